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
#include "usage_error.h"

#include <getopt.h>
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

/* Each series also has a marker shape (k % 6) and a dash pattern (k % 4):
 * twelve distinct pairs, so near-identical series stay apart in greyscale. */
static const char *const dashes[] = {"", "7,4", "2,3", "9,3,2,3"};

/* Draws marker `shape` at (x, y): circle, square, triangle, diamond,
 * triangle down, cross. */
static void marker(FILE *f, int shape, double x, double y, const char *c)
{
    const double r = 3.5;
    switch (shape) {
    case 0:
        fprintf(f, "<circle class=\"m0\" cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" fill=\"%s\"/>\n", x, y,
                r, c);
        break;
    case 1:
        fprintf(f,
                "<rect class=\"m1\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
                "fill=\"%s\"/>\n",
                x - r, y - r, 2 * r, 2 * r, c);
        break;
    case 2:
        fprintf(f, "<path class=\"m2\" d=\"M%.1f,%.1f L%.1f,%.1f L%.1f,%.1f z\" fill=\"%s\"/>\n", x,
                y - r - 1, x + r + 1, y + r, x - r - 1, y + r, c);
        break;
    case 3:
        fprintf(f,
                "<path class=\"m3\" d=\"M%.1f,%.1f L%.1f,%.1f L%.1f,%.1f L%.1f,%.1f z\" "
                "fill=\"%s\"/>\n",
                x, y - r - 1, x + r + 1, y, x, y + r + 1, x - r - 1, y, c);
        break;
    case 4:
        fprintf(f,
                "<path class=\"m4\" d=\"M%.1f,%.1f L%.1f,%.1f L%.1f,%.1f z\" fill=\"white\" "
                "stroke=\"%s\" stroke-width=\"1.5\"/>\n",
                x, y + r + 1, x + r + 1, y - r, x - r - 1, y - r, c);
        break;
    default:
        fprintf(
            f,
            "<path class=\"m5\" d=\"M%.1f,%.1f L%.1f,%.1f M%.1f,%.1f L%.1f,%.1f\" stroke=\"%s\" "
            "stroke-width=\"2\"/>\n",
            x - r, y - r, x + r, y + r, x - r, y + r, x + r, y - r, c);
    }
}

/* Splits `line` (its '\n' or "\r\n" cut) at every ',' into at most `max`
 * fields, empty ones kept; the number of fields, or max + 1 when there are
 * more. */
static int split_csv(char *line, char **field, int max)
{
    int nf = 0;
    line[strcspn(line, "\r\n")] = '\0';
    for (char *p = line;; p++) {
        char *comma = strchr(p, ',');
        if (nf == max)
            return max + 1;
        field[nf++] = p;
        if (!comma)
            return nf;
        *comma = '\0';
        p = comma;
    }
}

/* All of `s` as a finite number; 0 or -1. */
static int number(const char *s, double *out)
{
    char *end;
    if (!*s || *s == ' ')
        return -1;
    *out = strtod(s, &end);
    return *end == '\0' && isfinite(*out) ? 0 : -1;
}

/* Reads one line into `line`; 1, 0 at the end, or -1 after a message when
 * the line does not fit. */
static int next_line(FILE *f, char *line, size_t len, const char *path, int lineno)
{
    if (!fgets(line, (int)len, f))
        return 0;
    if (!strchr(line, '\n') && !feof(f)) {
        fprintf(stderr, "pldsim-plot: %s:%d: a line longer than %zu characters\n", path, lineno,
                len - 2);
        return -1;
    }
    return 1;
}

enum { CSV_COLUMNS = 16, SIZE_COL = 3, TIME_COL = 12, BUSBW_COL = 14 };
#define MAX_BYTES 1125899906842624.0 /* 1 PiB, pldsim-perf's largest size */

/* Reads one CSV written by pldsim-perf --csv: its header, then one row per
 * size; column 3 is size_B, 12 the in-place time (us), 14 the in-place
 * busbw (GB/s).  Every row is checked: a wrong one is one message naming
 * FILE:LINE and what was expected, never a point left out unsaid.  A row
 * whose y is 0 (the in-place time of a run at P=1) has no place on a log
 * axis: it is left out with a note. */
static int read_csv(const char *path, struct series *s, int want_busbw)
{
    static const char *const names[CSV_COLUMNS] = {
        "collective",     "mode",      "P",          "size_B",        "count",
        "type",           "redop",     "root",       "oop_time_us",   "oop_algbw_GBps",
        "oop_busbw_GBps", "oop_wrong", "ip_time_us", "ip_algbw_GBps", "ip_busbw_GBps",
        "ip_wrong"};
    FILE *f = fopen(path, "r");
    char line[1024], *field[CSV_COLUMNS + 1];
    int lineno = 1, ycol = want_busbw ? BUSBW_COL : TIME_COL, rows = 0, zeros = 0, rc;
    char zero_lines[64] = ""; /* the first of them, to name in the note */
    if (!f) {
        fprintf(stderr, "pldsim-plot: cannot read %s\n", path);
        return -1;
    }
    if ((rc = next_line(f, line, sizeof line, path, 1)) <= 0 || strncmp(line, "collective,", 11)) {
        if (rc >= 0)
            fprintf(stderr, "pldsim-plot: %s is not a pldsim-perf CSV (no header)\n", path);
        fclose(f);
        return -1;
    }
    int nf = split_csv(line, field, CSV_COLUMNS);
    for (int i = 0; i < CSV_COLUMNS && nf == CSV_COLUMNS; i++)
        if (strcmp(field[i], names[i]) != 0)
            nf = -1;
    if (nf != CSV_COLUMNS) {
        fprintf(stderr,
                "pldsim-plot: %s:1: not pldsim-perf's header; expected the %d columns "
                "collective,mode,P,size_B,...,ip_busbw_GBps,ip_wrong\n",
                path, CSV_COLUMNS);
        fclose(f);
        return -1;
    }
    while ((rc = next_line(f, line, sizeof line, path, ++lineno)) > 0) {
        if (line[strspn(line, " \t\r\n")] == '\0')
            continue; /* a blank line */
        const char *why = NULL;
        double x = 0, y = 0;
        int col = SIZE_COL;
        nf = split_csv(line, field, CSV_COLUMNS);
        rows++;
        if (nf != CSV_COLUMNS) {
            fprintf(stderr,
                    "pldsim-plot: %s:%d: %s%d columns; expected %d, as the header has (pldsim-perf "
                    "--csv)\n",
                    path, lineno, nf > CSV_COLUMNS ? "more than " : "",
                    nf > CSV_COLUMNS ? CSV_COLUMNS : nf, CSV_COLUMNS);
            break;
        }
        if (number(field[SIZE_COL], &x) != 0 || x < 1 || x > MAX_BYTES || x != floor(x))
            why = "expected a whole number of bytes from 1 to 1125899906842624 (1 PiB)";
        else if (number(field[ycol], &y) != 0 || y < 0) {
            col = ycol;
            why = "expected a finite number, 0 or more";
        }
        if (why) {
            fprintf(stderr, "pldsim-plot: %s:%d: %s '%s': %s\n", path, lineno, names[col],
                    field[col], why);
            break;
        }
        if (y == 0) {
            if (zeros++ < 4)
                snprintf(zero_lines + strlen(zero_lines), sizeof zero_lines - strlen(zero_lines),
                         "%s%d", zeros > 1 ? ", " : "", lineno);
            else if (zeros == 5)
                snprintf(zero_lines + strlen(zero_lines), sizeof zero_lines - strlen(zero_lines),
                         ", ...");
            continue;
        }
        if (s->n == MAX_POINTS) {
            fprintf(stderr, "pldsim-plot: %s:%d: more than %d rows; expected at most %d sizes\n",
                    path, lineno, MAX_POINTS, MAX_POINTS);
            break;
        }
        if (!s->label[0])
            snprintf(s->label, sizeof s->label, "%s %s P=%s", field[0], field[1], field[2]);
        s->x[s->n] = x;
        s->y[s->n++] = y;
    }
    fclose(f);
    if (rc != 0) /* a message was printed */
        return -1;
    if (!rows) {
        fprintf(stderr,
                "pldsim-plot: %s:1: a header and no rows; expected one row per size "
                "(pldsim-perf --csv)\n",
                path);
        return -1;
    }
    /* each names the rows by FILE:LINE, as every refusal does: the first
     * such line, and the others after it */
    if (!s->n) {
        fprintf(stderr,
                "pldsim-plot: %s:%d: every row's %s is 0 (lines %s): nothing to draw on a log "
                "axis; expected some above 0\n",
                path, atoi(zero_lines), names[ycol], zero_lines);
        return -1;
    }
    if (zeros == 1)
        fprintf(stderr, "pldsim-plot: %s:%d: 1 row with %s 0 left out (a log axis has no 0)\n",
                path, atoi(zero_lines), names[ycol]);
    else if (zeros)
        fprintf(stderr,
                "pldsim-plot: %s:%d: %d rows with %s 0 left out (a log axis has no 0): lines %s\n",
                path, atoi(zero_lines), zeros, names[ycol], zero_lines);
    return 0;
}

/* Reads "x y" pairs (--xy); blank lines and lines starting with '#' are
 * skipped.  Every other line is two finite positive numbers (log axes: an
 * "inf" made the ticks' loop endless), or one message naming it. */
static int read_xy(const char *path, struct series *s)
{
    FILE *f = fopen(path, "r");
    char line[1024];
    int lineno = 0, rc;
    if (!f) {
        fprintf(stderr, "pldsim-plot: cannot read %s\n", path);
        return -1;
    }
    while ((rc = next_line(f, line, sizeof line, path, ++lineno)) > 0) {
        double x, y;
        char extra;
        size_t lead = strspn(line, " \t");
        if (line[lead] == '#' || line[lead + strspn(line + lead, " \t\r\n")] == '\0')
            continue;
        if (sscanf(line, "%lf %lf %c", &x, &y, &extra) != 2 || !isfinite(x) || !isfinite(y) ||
            x <= 0 || y <= 0) {
            line[strcspn(line, "\r\n")] = '\0';
            fprintf(stderr,
                    "pldsim-plot: %s:%d: '%s': expected \"x y\", two finite numbers above 0 "
                    "(log axes)\n",
                    path, lineno, line);
            rc = -1;
            break;
        }
        if (s->n == MAX_POINTS) {
            fprintf(stderr, "pldsim-plot: %s:%d: more than %d points; expected at most %d\n", path,
                    lineno, MAX_POINTS, MAX_POINTS);
            rc = -1;
            break;
        }
        s->x[s->n] = x;
        s->y[s->n++] = y;
    }
    fclose(f);
    if (rc != 0)
        return -1;
    if (!s->n)
        fprintf(stderr, "pldsim-plot: %s has no \"x y\" lines; expected one point a line\n", path);
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

/* A tick label in one style for every decade: 0.001, 0.01, 0.1, 1, 10,
 * 100, 1k, 10k, 1M, 1G (plain decimals below 1000, SI suffixes above), so
 * that an axis never mixes 1e+06 with 100000. */
static void si_label(double v, char *buf, size_t len)
{
    static const struct {
        double scale;
        const char *suffix;
    } si[] = {{1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}};
    for (size_t k = 0; k < sizeof si / sizeof si[0]; k++)
        if (v >= si[k].scale * (1 - 1e-9)) {
            snprintf(buf, len, "%.4g%s", v / si[k].scale, si[k].suffix);
            return;
        }
    int decimals = v >= 1 ? 0 : (int)fmin(12, ceil(-log10(v) - 1e-9) + 3);
    snprintf(buf, len, "%.*f", decimals, v);
    /* 0.100 -> 0.1: no trailing zeros */
    char *dot = strchr(buf, '.');
    if (dot) {
        char *e = buf + strlen(buf) - 1;
        while (e > dot && *e == '0')
            *e-- = '\0';
        if (e == dot)
            *e = '\0';
    }
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

static const char usage[] =
    "usage: pldsim-plot [-y time|busbw] [-t TITLE] -o OUT.svg A.csv[=LABEL] ...\n"
    "       pldsim-plot --xy --xlabel X --ylabel Y [-t TITLE] -o OUT.svg A.txt=LABEL ...\n"
    "Draws pldsim-perf CSV files (--csv), or files of \"x y\" pairs (--xy), as one SVG\n"
    "line chart on log scales: one line per file, each with its own colour, marker\n"
    "and dash pattern.\n"
    "  -o OUT.svg        the SVG to write (required)\n"
    "  -y time|busbw     what a CSV's y axis shows (default time: the in-place us)\n"
    "  -t TITLE          the chart's title (default pldsim-perf)\n"
    "      --xy          the files hold \"x y\" pairs, '#' starts a comment\n"
    "      --xlabel X    the x axis's label (--xy)\n"
    "      --ylabel Y    the y axis's label (--xy)\n"
    "  -h, --help        this help\n"
    "      --version     pldsim-plot's version\n"
    "At most 12 files; =LABEL names a line (default: the CSV's collective, mode, P).\n";

int main(int argc, char **argv)
{
    struct series s[MAX_SERIES];
    int ns = 0, busbw = 0, xy = 0;
    const char *out = NULL, *title = "pldsim-perf", *xlabel = NULL, *ylabel = NULL;
    memset(s, 0, sizeof s);
    static const struct option opts[] = {
        {"xy", no_argument, NULL, 'x'},           {"xlabel", required_argument, NULL, 'X'},
        {"ylabel", required_argument, NULL, 'Y'}, {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},      {0}};
    opterr = 0;
    for (int c; (c = getopt_long(argc, argv, ":o:t:y:h", opts, NULL)) != -1;) {
        switch (c) {
        case 'o':
            out = optarg;
            break;
        case 't':
            title = optarg;
            break;
        case 'y':
            if (strcmp(optarg, "busbw") != 0 && strcmp(optarg, "time") != 0)
                return usage_error("pldsim-plot", "bad -y '%s'; expected time or busbw", optarg);
            busbw = strcmp(optarg, "busbw") == 0;
            break;
        case 'x':
            xy = 1;
            break;
        case 'X':
            xlabel = optarg;
            break;
        case 'Y':
            ylabel = optarg;
            break;
        case 'V':
            /* pld_print_version's line; this tool does not link libpld */
            printf("pldsim-plot (pldsim) %s\n", PLD_PACKAGE_VERSION);
            return 0;
        case 'h':
            fputs(usage, stdout);
            return 0;
        case ':':
            return usage_error("pldsim-plot", "%s needs a value", argv[optind - 1]);
        default:
            return usage_error("pldsim-plot", "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (!out)
        return usage_error("pldsim-plot", "-o OUT.svg is required%s", "");
    if (optind == argc)
        return usage_error("pldsim-plot", "no input files%s", "");
    if (argc - optind > MAX_SERIES)
        return usage_error("pldsim-plot", "at most 12 input files, got more: '%s' is the 13th",
                           argv[optind + MAX_SERIES]);
    /* the files are read after every option, so that -y and --xy apply to all */
    for (int i = optind; i < argc; i++) {
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
        char lab[32];
        si_label(pow(10, d), lab, sizeof lab);
        fprintf(f,
                "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n"
                "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
                L, y, L + pw, y, L - 6, y + 4, lab);
    }
    /* x ticks at powers of 2, far enough apart that their labels do not
     * run into each other (48 px); a power of 2 reads best in binary
     * multiples (1K, 2K, 4K rather than 1.024k, 2.048k), below 1024 plain */
    int step = (int)ceil(48 / (pw / (lx1 - lx0)));
    if (step < (xy ? 1 : 2))
        step = xy ? 1 : 2;
    for (double e = ceil(lx0 / step) * step; e <= lx1 + 1e-9; e += step) {
        double x = PX(pow(2, e));
        char lab[32];
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
        const char *c = colours[k % 12], *dash = dashes[k % 4];
        fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\"", c);
        if (*dash)
            fprintf(f, " stroke-dasharray=\"%s\"", dash);
        fputs(" points=\"", f);
        for (int i = 0; i < s[k].n; i++)
            fprintf(f, "%.1f,%.1f ", PX(s[k].x[i]), PY(s[k].y[i]));
        fprintf(f, "\"/>\n");
        for (int i = 0; i < s[k].n; i++)
            marker(f, k % 6, PX(s[k].x[i]), PY(s[k].y[i]), c);
        double ly = T + 10 + 20 * k;
        fprintf(f,
                "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"%s\" "
                "stroke-width=\"2\"%s%s%s/>\n",
                L + pw + 10, ly, L + pw + 44, ly, c, *dash ? " stroke-dasharray=\"" : "", dash,
                *dash ? "\"" : "");
        marker(f, k % 6, L + pw + 27, ly, c);
        fprintf(f, "<text x=\"%.0f\" y=\"%.0f\">", L + pw + 50, ly + 4);
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
