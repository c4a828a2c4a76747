/* timeline_read.c: reads back the SVG timeline that src/observe/trace_svg.c
 * writes.  It knows the writer's element shapes (a lane is a <rect>
 * followed by its label, an op a <rect> followed by its <title>, a tick a
 * black <line> followed by its number, a break a <g class="break">), not
 * its constants, so the tests measure the picture rather than restate the
 * writer's arithmetic. */
#include "timeline_read.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double attr(const char *from, const char *end, const char *name)
{
    char key[32];
    snprintf(key, sizeof key, " %s=\"", name);
    const char *p = strstr(from, key);
    return p && (!end || p < end) ? atof(p + strlen(key)) : -1;
}

static void *grow(void *p, int n, size_t size)
{
    /* doubling at powers of two */
    if (n == 0 || (n & (n - 1)) == 0)
        p = realloc(p, (size_t)(n ? 2 * n : 1) * size);
    if (!p)
        abort();
    return p;
}

int timeline_read(const char *svg, struct timeline *t)
{
    memset(t, 0, sizeof *t);
    t->width = attr(svg, NULL, "width");
    t->height = attr(svg, NULL, "height");
    /* lanes: <rect .../>\n<text ... text-anchor="end">host</text> */
    for (const char *p = svg; (p = strstr(p, "text-anchor=\"end\">")); p++) {
        const char *rect = p;
        while (rect > svg && strncmp(rect, "<rect ", 6) != 0)
            rect--;
        if (t->lanes == 0) {
            t->plot_x0 = attr(rect, p, "x");
            t->plot_x1 = t->plot_x0 + attr(rect, p, "width");
            t->lanes_y0 = attr(rect, p, "y");
            t->lane_h = attr(rect, p, "height");
        }
        /* a lane with rows (a rank's cores) is taller than the others;
         * lane_y[lanes] is where the last one ends */
        t->lane_y = grow(t->lane_y, t->lanes, sizeof *t->lane_y);
        t->lane_y[t->lanes] = attr(rect, p, "y");
        t->lane_y = grow(t->lane_y, t->lanes + 1, sizeof *t->lane_y);
        t->lane_y[++t->lanes] = attr(rect, p, "y") + attr(rect, p, "height");
    }
    if (!t->lanes)
        return -1;
    for (const char *p = svg; (p = strstr(p, "<rect x=\"")); p++) {
        const char *end = strchr(p, '>');
        if (!end || strncmp(end + 1, "<title>", 7) != 0)
            continue;
        struct tl_op o;
        memset(&o, 0, sizeof o);
        if (sscanf(p, "<rect x=\"%lf\" y=\"%lf\" width=\"%lf\" height=\"%lf\" fill=\"#%x\"", &o.x,
                   &o.y, &o.w, &o.h, &o.colour) != 5)
            continue;
        if (sscanf(end + 8, "%31s %lf-%lf us<", o.op, &o.t0, &o.t1) != 3)
            o.t0 = o.t1 = -1;
        o.lane = 0;
        while (o.lane + 1 < t->lanes && o.y >= t->lane_y[o.lane + 1])
            o.lane++;
        t->ops = grow(t->ops, t->nops, sizeof *t->ops);
        t->ops[t->nops++] = o;
    }
    for (const char *p = svg; (p = strstr(p, "<g class=\"break\"")); p++) {
        const char *end = strstr(p, "</g>");
        struct tl_break b;
        b.from = attr(p, end, "data-from-us");
        b.to = attr(p, end, "data-to-us");
        const char *rect = strstr(p, "<rect "), *text = strstr(p, "<text ");
        if (!end || !rect || rect > end || !text || text > end)
            continue;
        b.x = attr(rect, end, "x");
        b.w = attr(rect, end, "width");
        b.label = atof(strchr(text, '>') + 1);
        t->breaks = grow(t->breaks, t->nbreaks, sizeof *t->breaks);
        t->breaks[t->nbreaks++] = b;
    }
    static const char tick[] = "stroke=\"black\"/><text x=\"";
    for (const char *p = svg; (p = strstr(p, tick)); p++) {
        struct tl_tick k;
        const char *num = strchr(p + sizeof tick - 1, '>');
        k.x = atof(p + sizeof tick - 1);
        k.value = atof(num + 1);
        t->ticks = grow(t->ticks, t->nticks, sizeof *t->ticks);
        t->ticks[t->nticks++] = k;
    }
    return 0;
}

void timeline_free(struct timeline *t)
{
    free(t->ops);
    free(t->lane_y);
    free(t->breaks);
    free(t->ticks);
    memset(t, 0, sizeof *t);
}

const struct tl_break *timeline_break_at(const struct timeline *t, double x)
{
    for (int i = 0; i < t->nbreaks; i++)
        if (x >= t->breaks[i].x && x <= t->breaks[i].x + t->breaks[i].w)
            return &t->breaks[i];
    return NULL;
}
