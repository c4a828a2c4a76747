/* check_browser.c: the SVG timeline renders in headless Chromium as a user
 * sees it, the default picture (idle stretches cut short) of the whole
 * run.  Step 10 at P=4: the lanes area holds the colours of the five kinds
 * of op.  Step 10 at P=16: the middle of every op that is 4 px wide or
 * more shows the op's own colour, so no arrow or arrowhead hides a block
 * (where a block crosses a break, the middle of its longest part outside
 * the break's band).  Needs chromium and libpng, both optional at
 * configure time: without them the suite reports SKIP. */
#include "checktools.h"
#include "timeline_read.h"

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

/* Where to look at block `o`: its middle, or, when that is in a break's
 * band (a long wait or a dispatch drawn through it), the middle of its
 * longest part outside the bands. */
static double sample_x(const struct timeline *tl, const struct tl_op *o)
{
    double cx = o->x + o->w / 2;
    if (!timeline_break_at(tl, cx))
        return cx;
    double best = -1, best_w = 0, a = o->x;
    for (int k = 0; k <= tl->nbreaks; k++) {
        double b = k < tl->nbreaks ? tl->breaks[k].x : o->x + o->w; /* breaks run left to right */
        b = b < o->x + o->w ? b : o->x + o->w;
        if (b - a > best_w)
            best_w = b - a, best = (a + b) / 2;
        if (k < tl->nbreaks && tl->breaks[k].x + tl->breaks[k].w > a)
            a = tl->breaks[k].x + tl->breaks[k].w;
    }
    return best_w >= 4 ? best : -1;
}

START_TEST(no_arrow_hides_a_block_at_p16)
{
    if (!*CHROMIUM) {
        skip_test(__func__, "chromium was not found (configure finds it optional)");
        return;
    }
    /* the whole run, as --trace FILE.svg draws it */
    char *svg = write_temp(".svg", "");
    struct cmd_result r =
        run_cmd("%s -d 0-15 --no-summary --trace %s", tutorial("10_allreduce_ring"), svg);
    ck_assert_msg(r.status == 0, "%s", r.err);
    cmd_result_free(&r);
    char *text = slurp(svg);
    struct timeline tl;
    ck_assert_int_eq(timeline_read(text, &tl), 0);
    ck_assert_int_gt(tl.nbreaks, 0);
    const struct tl_op *o = tl.ops;
    int n = tl.nops, checked = 0;
    unsigned width, height;
    unsigned char *px = screenshot(svg, (int)tl.width, (int)tl.height, &width, &height);
    for (int i = 0; i < n; i++) {
        if (o[i].w < 4)
            continue;
        double cx = sample_x(&tl, &o[i]), cy = o[i].y + o[i].h / 2;
        if (cx < 0)
            continue;
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
    ck_assert_msg(checked > 1000, "only %d blocks were wide enough to check", checked);
    timeline_free(&tl);
    free(px);
    free(text);
    unlink(svg);
    free(svg);
}
END_TEST
#endif

#ifdef HAVE_LIBPNG
START_TEST(step10_timeline_renders_in_chromium)
{
    if (!*CHROMIUM) {
        skip_test(__func__, "chromium was not found (configure finds it optional)");
        return;
    }
    /* the whole run, as --trace FILE.svg draws it */
    char *svg = write_temp(".svg", "");
    struct cmd_result r =
        run_cmd("%s -d 0-3 --no-summary --trace %s", tutorial("10_allreduce_ring"), svg);
    ck_assert_int_eq(r.status, 0);
    cmd_result_free(&r);
    char *text = slurp(svg);
    struct timeline tl;
    ck_assert_int_eq(timeline_read(text, &tl), 0);
    ck_assert_int_eq(tl.lanes, 5);
    struct {
        unsigned width, height;
    } img;
    unsigned char *px = screenshot(svg, (int)tl.width, (int)tl.height, &img.width, &img.height);
    ck_assert_uint_ge(img.width, tl.plot_x1);

    /* the lanes: the host and four ranks */
    unsigned colours[4096];
    int ncol = 0;
    for (unsigned y = tl.lanes_y0; y < tl.lanes_y0 + tl.lanes * tl.lane_h && y < img.height; y++)
        for (unsigned x = tl.plot_x0; x < tl.plot_x1 && x < img.width; x++) {
            const unsigned char *p = px + 3 * ((size_t)y * img.width + x);
            unsigned c = (unsigned)p[0] << 16 | (unsigned)p[1] << 8 | p[2];
            int k = 0;
            while (k < ncol && colours[k] != c)
                k++;
            if (k == ncol && ncol < 4096)
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
    timeline_free(&tl);
    free(text);
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
