/* check_browser.c: the SVG timeline renders in headless Chromium as a user
 * sees it.  Step 10 at P=4: the lanes area holds the colours of the five
 * kinds of op.  Step 10 at P=16, a window of it: the middle of every op
 * that is 4 px wide or more shows the op's own colour, so no arrow or
 * arrowhead hides a block.  Needs chromium and libpng, both optional at
 * configure time: without them the suite reports SKIP. */
#include "checktools.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef CHROMIUM
#define CHROMIUM "chromium"
#endif

#ifdef HAVE_LIBPNG
#include <png.h>

/* Renders `svg` at w x h CSS px, one device px each, into RGB pixels
 * (caller frees); sets *width and *height. */
static unsigned char *screenshot(const char *svg, int w, int h, unsigned *width, unsigned *height)
{
    char *png = write_temp(".png", "");
    char profile[] = "/tmp/pldtest-chromium-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(profile));
    /* the flags that keep headless Chromium off the network and quiet */
    struct cmd_result r =
        run_cmd("timeout 120 %s --headless --no-sandbox --disable-gpu --disable-quic "
                "--no-first-run --disable-background-networking --disable-component-update "
                "--disable-sync --hide-scrollbars --force-device-scale-factor=1 --user-data-dir=%s "
                "--window-size=%d,%d --screenshot=%s file://%s",
                CHROMIUM, profile, w, h, png, svg);
    ck_assert_msg(r.status == 0, "chromium failed (%d):\n%s", r.status, r.err);
    cmd_result_free(&r);
    png_image img;
    memset(&img, 0, sizeof img);
    img.version = PNG_IMAGE_VERSION;
    ck_assert_msg(png_image_begin_read_from_file(&img, png), "not a PNG: %s", img.message);
    img.format = PNG_FORMAT_RGB;
    unsigned char *px = malloc(PNG_IMAGE_SIZE(img));
    ck_assert(png_image_finish_read(&img, NULL, px, 0, NULL));
    *width = img.width, *height = img.height;
    png_image_free(&img);
    unlink(png);
    free(png);
    r = run_cmd("rm -rf %s", profile);
    cmd_result_free(&r);
    return px;
}

struct op_rect {
    double x, y, w, h;
    unsigned colour;
};

/* The op blocks of an SVG timeline (the <rect>s with a <title>), in
 * drawing order; returns how many (at most `max`). */
static int op_rects(const char *svg, struct op_rect *o, int max)
{
    int n = 0;
    for (const char *p = svg; n < max && (p = strstr(p, "<rect x=\"")); p++) {
        const char *end = strchr(p, '>');
        if (!end || strncmp(end + 1, "<title>", 7) != 0)
            continue;
        unsigned c;
        if (sscanf(p, "<rect x=\"%lf\" y=\"%lf\" width=\"%lf\" height=\"%lf\" fill=\"#%x\"",
                   &o[n].x, &o[n].y, &o[n].w, &o[n].h, &c) == 5) {
            o[n].colour = c;
            n++;
        }
    }
    return n;
}

START_TEST(no_arrow_hides_a_block_at_p16)
{
    if (!*CHROMIUM) {
        skip_test(__func__, "chromium was not found (configure finds it optional)");
        return;
    }
    /* 45 us of the ring's rounds (check_traces: timeline_draws_a_window) */
    char *txt = write_temp(".txt", ""), *svg = write_temp(".svg", "");
    struct cmd_result r = run_cmd("%s -d 0-15 --no-summary --trace %s && %s/tools/pldsim-timeline "
                                  "--from 4470 --to 4515 %s %s",
                                  tutorial("10_allreduce_ring"), txt, PLD_BUILDDIR, txt, svg);
    ck_assert_msg(r.status == 0, "%s", r.err);
    cmd_result_free(&r);
    char *text = slurp(svg);
    int W = atoi(strstr(text, "width=\"") + 7), H = atoi(strstr(text, "height=\"") + 8);
    static struct op_rect o[20000];
    int n = op_rects(text, o, 20000), checked = 0;
    unsigned width, height;
    unsigned char *px = screenshot(svg, W, H, &width, &height);
    for (int i = 0; i < n; i++) {
        if (o[i].w < 4)
            continue;
        double cx = o[i].x + o[i].w / 2, cy = o[i].y + o[i].h / 2;
        unsigned want = o[i].colour; /* the block drawn last over that point */
        for (int j = i + 1; j < n; j++)
            if (cx >= o[j].x && cx < o[j].x + o[j].w && cy >= o[j].y && cy < o[j].y + o[j].h)
                want = o[j].colour;
        unsigned x = (unsigned)cx, y = (unsigned)cy;
        ck_assert(x < width && y < height);
        const unsigned char *p = px + 3 * ((size_t)y * width + x);
        unsigned got = (unsigned)p[0] << 16 | (unsigned)p[1] << 8 | p[2];
        ck_assert_msg(got == want,
                      "the block at (%.1f, %.1f), %.1f px wide, shows #%06x, not #%06x", o[i].x,
                      o[i].y, o[i].w, got, want);
        checked++;
    }
    ck_assert_msg(checked > 100, "only %d blocks were wide enough to check", checked);
    free(px);
    free(text);
    unlink(txt), unlink(svg);
    free(txt), free(svg);
}
END_TEST
#endif

#ifdef HAVE_LIBPNG
/* The window of a text trace where the ring's rounds run: from a little
 * before the last rank's kernel launch (the end of the host's last
 * dispatch) to the end.  Before it, the ranks only wait for the host's
 * staggered dispatches (a2a3: 277 us each). */
static void rounds_window(const char *txt, double *from_us, double *to_us)
{
    char *text = slurp(txt);
    *from_us = 0, *to_us = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        double t0, t1;
        char rank[16], op[32];
        if (line[0] == '#' || sscanf(line, "%lf %lf %15s %31s", &t0, &t1, rank, op) != 4)
            continue;
        if (strcmp(op, "launch") == 0 && t0 / 1e3 > *from_us)
            *from_us = t0 / 1e3;
        if (t1 / 1e3 > *to_us)
            *to_us = t1 / 1e3;
    }
    free(text);
    *from_us -= (*to_us - *from_us) / 4;
}

START_TEST(step10_timeline_renders_in_chromium)
{
    if (!*CHROMIUM) {
        skip_test(__func__, "chromium was not found (configure finds it optional)");
        return;
    }
    char *txt = write_temp(".txt", ""), *svg = write_temp(".svg", "");
    struct cmd_result r =
        run_cmd("%s -d 0-3 --no-summary --trace %s", tutorial("10_allreduce_ring"), txt);
    ck_assert_int_eq(r.status, 0);
    cmd_result_free(&r);
    double from, to;
    rounds_window(txt, &from, &to);
    ck_assert(to > from && from > 0);
    /* 1000 px of plot, as the lanes below are measured */
    r = run_cmd("%s/tools/pldsim-timeline --from %.3f --to %.3f --width 1000 %s %s", PLD_BUILDDIR,
                from, to, txt, svg);
    ck_assert_msg(r.status == 0, "%s", r.err);
    cmd_result_free(&r);
    unlink(txt);
    free(txt);
    struct {
        unsigned width, height;
    } img;
    unsigned char *px = screenshot(svg, 1100, 320, &img.width, &img.height);
    ck_assert_uint_ge(img.width, 1000);

    /* the lanes: x from 70 to 1080, y from 40 to 180 (five 28-pixel lanes) */
    unsigned colours[64];
    int ncol = 0;
    for (unsigned y = 40; y < 180 && y < img.height; y++)
        for (unsigned x = 70; x < 1080 && x < img.width; x++) {
            const unsigned char *p = px + 3 * ((size_t)y * img.width + x);
            unsigned c = (unsigned)p[0] << 16 | (unsigned)p[1] << 8 | p[2];
            int k = 0;
            while (k < ncol && colours[k] != c)
                k++;
            if (k == ncol && ncol < 64)
                colours[ncol++] = c;
        }
    /* anti-aliasing adds shades; the op kinds alone give five */
    static const unsigned want[] = {0x4c78a8, 0xf58518, 0x54a24b, 0xb279a2, 0xd8d8d8};
    int found = 0;
    for (int w = 0; w < 5; w++)
        for (int k = 0; k < ncol; k++)
            if (colours[k] == want[w]) {
                found++;
                break;
            }
    ck_assert_msg(found == 5, "only %d of the 5 op colours on screen (%d colours in all)", found,
                  ncol);
    ck_assert_int_ge(ncol, 7);
    free(px);
    unlink(svg);
    free(svg);
}
END_TEST
#endif

int main(void)
{
#ifndef HAVE_LIBPNG
    puts("SKIP: libpng was not found at configure time; this suite reads screenshots with it");
    return 77;
#else
    Suite *s = suite_create("browser");
    TCase *tc = tcase_create("browser");
    tcase_set_timeout(tc, 180);
    tcase_add_test(tc, step10_timeline_renders_in_chromium);
    tcase_add_test(tc, no_arrow_hides_a_block_at_p16);
    suite_add_tcase(s, tc);
    return run_suite(s);
#endif
}
