/* pldsim-plot: draws pldsim-perf CSV files as one SVG line chart.
 *
 *   pldsim-plot [-y time|busbw] [-t TITLE] -o OUT.svg A.csv[=LABEL] B.csv[=LABEL] ...
 *   pldsim-plot --xy --xlabel X --ylabel Y [-t TITLE] -o OUT.svg A.txt=LABEL ...
 *
 * x is the size in bytes and y the in-place time in microseconds (or busbw
 * in GB/s), both on log scales; one line per file, labelled LABEL or by
 * the file's collective, mode and P.  With --xy each file holds "x y" pairs,
 * one per line ('#' starts a comment), such as wall seconds against device
 * count from bench-scale.  The SVG is self-contained (no fonts or scripts to
 * fetch), so it renders anywhere, including in docs. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SERIES 12
#define MAX_POINTS 128

struct series {
    char label[96];
    double x[MAX_POINTS], y[MAX_POINTS];
    int n;
};

static const char *const colours[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd",
                                      "#ff7f0e", "#17becf", "#8c564b", "#e377c2",
                                      "#7f7f7f", "#bcbd22", "#393b79", "#637939"};

/* Reads one CSV written by pldsim-perf --csv; column 3 is size_B, 12 the
 * in-place time (us), 14 the in-place busbw (GB/s). */
static int read_csv(const char *path, struct series *s, int want_busbw)
{
    FILE *f = fopen(path, "r");
    char line[1024];
    if (!f) {
        fprintf(stderr, "pldsim-plot: cannot read %s\n", path);
        return -1;
    }
    if (!fgets(line, sizeof line, f) || strncmp(line, "collective,", 11) != 0) {
        fprintf(stderr, "pldsim-plot: %s is not a pldsim-perf CSV (no header)\n", path);
        fclose(f);
        return -1;
    }
    while (s->n < MAX_POINTS && fgets(line, sizeof line, f)) {
        char *field[20];
        int nf = 0;
        for (char *p = strtok(line, ",\n"); p && nf < 20; p = strtok(NULL, ",\n"))
            field[nf++] = p;
        if (nf < 16)
            continue;
        if (!s->label[0])
            snprintf(s->label, sizeof s->label, "%s %s P=%s", field[0], field[1], field[2]);
        double x = atof(field[3]), y = atof(field[want_busbw ? 14 : 12]);
        if (x > 0 && y > 0) {
            s->x[s->n] = x;
            s->y[s->n++] = y;
        }
    }
    fclose(f);
    return s->n ? 0 : -1;
}

/* Reads "x y" pairs (--xy); lines starting with '#' are comments.  Only
 * finite positive values count: an "inf" made the log axes' tick loop
 * endless. */
static int read_xy(const char *path, struct series *s)
{
    FILE *f = fopen(path, "r");
    char line[1024];
    if (!f) {
        fprintf(stderr, "pldsim-plot: cannot read %s\n", path);
        return -1;
    }
    while (s->n < MAX_POINTS && fgets(line, sizeof line, f)) {
        double x, y;
        if (line[0] != '#' && sscanf(line, "%lf %lf", &x, &y) == 2 && x > 0 && y > 0 &&
            isfinite(x) && isfinite(y)) {
            s->x[s->n] = x;
            s->y[s->n++] = y;
        }
    }
    fclose(f);
    if (!s->n)
        fprintf(stderr, "pldsim-plot: %s has no \"x y\" lines with finite positive values\n", path);
    return s->n ? 0 : -1;
}

static void human_bytes(double b, char *buf, size_t len)
{
    if (b >= 1048576)
        snprintf(buf, len, "%gM", b / 1048576);
    else if (b >= 1024)
        snprintf(buf, len, "%gK", b / 1024);
    else
        snprintf(buf, len, "%g", b);
}

/* Writes `s` as XML text: a title or a label may hold & < > or quotes. */
static void xml_text(FILE *f, const char *s)
{
    for (; *s; s++)
        switch (*s) {
        case '&':
            fputs("&amp;", f);
            break;
        case '<':
            fputs("&lt;", f);
            break;
        case '>':
            fputs("&gt;", f);
            break;
        case '"':
            fputs("&quot;", f);
            break;
        default:
            if ((unsigned char)*s >= 0x20)
                fputc(*s, f);
        }
}

int main(int argc, char **argv)
{
    struct series s[MAX_SERIES];
    int ns = 0, busbw = 0, xy = 0;
    const char *out = NULL, *title = "pldsim-perf", *xlabel = NULL, *ylabel = NULL;
    memset(s, 0, sizeof s);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-o") == 0 && i + 1 < argc) {
            out = argv[++i];
        } else if (strcmp(argv[i], "-t") == 0 && i + 1 < argc) {
            title = argv[++i];
        } else if (strcmp(argv[i], "-y") == 0 && i + 1 < argc) {
            i++;
            if (strcmp(argv[i], "busbw") != 0 && strcmp(argv[i], "time") != 0) {
                fprintf(stderr, "pldsim-plot: bad -y '%s'; expected time or busbw\n", argv[i]);
                return 2;
            }
            busbw = strcmp(argv[i], "busbw") == 0;
        } else if (strcmp(argv[i], "--xy") == 0) {
            xy = 1;
        } else if (strcmp(argv[i], "--xlabel") == 0 && i + 1 < argc) {
            xlabel = argv[++i];
        } else if (strcmp(argv[i], "--ylabel") == 0 && i + 1 < argc) {
            ylabel = argv[++i];
        } else if (strcmp(argv[i], "--version") == 0) {
            /* pld_print_version's line; this tool does not link libpld */
            printf("pldsim-plot (pldsim) %s\n", PLD_PACKAGE_VERSION);
            return 0;
        } else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            puts("usage: pldsim-plot [-y time|busbw] [-t TITLE] -o OUT.svg A.csv[=LABEL] ...\n"
                 "       pldsim-plot --xy --xlabel X --ylabel Y [-t TITLE] -o OUT.svg "
                 "A.txt=LABEL ...");
            return 0;
        } else if (argv[i][0] == '-') {
            fprintf(stderr, "pldsim-plot: unknown option or missing value: '%s' (see --help)\n",
                    argv[i]);
            return 2;
        } else if (ns == MAX_SERIES) {
            fprintf(stderr, "pldsim-plot: at most %d series; '%s' is one too many\n", MAX_SERIES,
                    argv[i]);
            return 2;
        } else {
            char path[4096];
            snprintf(path, sizeof path, "%s", argv[i]);
            char *eq = strchr(path, '=');
            if (eq) {
                *eq = '\0';
                snprintf(s[ns].label, sizeof s[ns].label, "%s", eq + 1);
            }
            if ((xy ? read_xy(path, &s[ns]) : read_csv(path, &s[ns], busbw)) != 0)
                return 2;
            ns++;
        }
    }
    if (!out || !ns) {
        fputs("usage: pldsim-plot [-y time|busbw] [-t TITLE] -o OUT.svg A.csv[=LABEL] ...\n",
              stderr);
        return 2;
    }
    double x0 = INFINITY, x1 = 0, y0 = INFINITY, y1 = 0;
    for (int k = 0; k < ns; k++)
        for (int i = 0; i < s[k].n; i++) {
            x0 = fmin(x0, s[k].x[i]);
            x1 = fmax(x1, s[k].x[i]);
            y0 = fmin(y0, s[k].y[i]);
            y1 = fmax(y1, s[k].y[i]);
        }
    /* whole decades on y, powers of 4 on x */
    double ly0 = floor(log10(y0)), ly1 = ceil(log10(y1));
    if (ly1 <= ly0)
        ly1 = ly0 + 1;
    double lx0 = log2(x0), lx1 = log2(x1);
    if (lx1 <= lx0)
        lx1 = lx0 + 1;
    const double W = 760, H = 460, L = 80, R = 220, T = 50, B = 60;
    double pw = W - L - R, ph = H - T - B;
#define PX(x) (L + (log2(x) - lx0) / (lx1 - lx0) * pw)
#define PY(y) (T + ph - (log10(y) - ly0) / (ly1 - ly0) * ph)
    FILE *f = fopen(out, "w");
    if (!f) {
        fprintf(stderr, "pldsim-plot: cannot write %s\n", out);
        return 2;
    }
    fprintf(f,
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
            "viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\" font-size=\"12\">\n"
            "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
            "<text x=\"%.0f\" y=\"28\" font-size=\"16\">",
            W, H, W, H, L);
    xml_text(f, title);
    fputs("</text>\n", f);
    /* grid and axes */
    for (double d = ly0; d <= ly1 + 1e-9; d += 1) {
        double y = PY(pow(10, d));
        fprintf(f,
                "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n"
                "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%g</text>\n",
                L, y, L + pw, y, L - 6, y + 4, pow(10, d));
    }
    for (double e = ceil(lx0); e <= lx1 + 1e-9; e += xy ? 1 : 2) {
        double x = PX(pow(2, e));
        char lab[32];
        if (xy)
            snprintf(lab, sizeof lab, "%g", pow(2, e));
        else
            human_bytes(pow(2, e), lab, sizeof lab);
        fprintf(f,
                "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#eee\"/>\n"
                "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n",
                x, T, x, T + ph, x, T + ph + 18, lab);
    }
    fprintf(f,
            "<rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\" fill=\"none\" "
            "stroke=\"black\"/>\n"
            "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\">",
            L, T, pw, ph, L + pw / 2, H - 15);
    xml_text(f, xy && xlabel ? xlabel : "size (bytes, log scale)");
    fprintf(f,
            "</text>\n<text transform=\"translate(20,%.0f) rotate(-90)\" "
            "text-anchor=\"middle\">",
            T + ph / 2);
    xml_text(f, xy && ylabel ? ylabel
                : busbw      ? "busbw (GB/s, log scale)"
                             : "simulated time (us, log scale)");
    fputs("</text>\n", f);
    for (int k = 0; k < ns; k++) {
        const char *c = colours[k % 12];
        fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"", c);
        for (int i = 0; i < s[k].n; i++)
            fprintf(f, "%.1f,%.1f ", PX(s[k].x[i]), PY(s[k].y[i]));
        fprintf(f, "\"/>\n");
        for (int i = 0; i < s[k].n; i++)
            fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\" fill=\"%s\"/>\n", PX(s[k].x[i]),
                    PY(s[k].y[i]), c);
        double ly = T + 10 + 20 * k;
        fprintf(f,
                "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"%s\" "
                "stroke-width=\"3\"/>\n<text x=\"%.0f\" y=\"%.0f\">",
                L + pw + 15, ly, L + pw + 40, ly, c, L + pw + 46, ly + 4);
        xml_text(f, s[k].label);
        fputs("</text>\n", f);
    }
    fprintf(f, "</svg>\n");
    if (fclose(f) != 0) {
        fprintf(stderr, "pldsim-plot: cannot write %s\n", out);
        return 2;
    }
    return 0;
}
