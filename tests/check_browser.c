/* check_browser.c: the SVG timeline of step 10 at P=4 renders in headless
 * Chromium.  The test takes a screenshot and checks that the lanes area is
 * not blank: it must hold the colours of at least five kinds of op, and of
 * the lane backgrounds. */
#include "checktools.h"

#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef CHROMIUM
#define CHROMIUM "chromium"
#endif

START_TEST(step10_timeline_renders_in_chromium)
{
    char *svg = write_temp(".svg", ""), *png = write_temp(".png", "");
    char profile[] = "/tmp/pldtest-chromium-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(profile));
    struct cmd_result r = run_cmd("%s -d 0-3 --trace %s", tutorial("10_allreduce_ring"), svg);
    ck_assert_int_eq(r.status, 0);
    cmd_result_free(&r);
    /* the flags that keep headless Chromium off the network and quiet */
    r = run_cmd("timeout 120 %s --headless --no-sandbox --disable-gpu --disable-quic "
                "--no-first-run --disable-background-networking --disable-component-update "
                "--disable-sync --hide-scrollbars --user-data-dir=%s --window-size=1100,320 "
                "--screenshot=%s file://%s",
                CHROMIUM, profile, png, svg);
    ck_assert_msg(r.status == 0, "chromium failed (%d):\n%s", r.status, r.err);
    cmd_result_free(&r);

    png_image img;
    memset(&img, 0, sizeof img);
    img.version = PNG_IMAGE_VERSION;
    ck_assert_msg(png_image_begin_read_from_file(&img, png), "not a PNG: %s", img.message);
    img.format = PNG_FORMAT_RGB;
    unsigned char *px = malloc(PNG_IMAGE_SIZE(img));
    ck_assert(png_image_finish_read(&img, NULL, px, 0, NULL));
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
    png_image_free(&img);
    unlink(svg);
    unlink(png);
    free(svg);
    free(png);
    r = run_cmd("rm -rf %s", profile);
    cmd_result_free(&r);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("browser");
    TCase *tc = tcase_create("browser");
    tcase_set_timeout(tc, 180);
    tcase_add_test(tc, step10_timeline_renders_in_chromium);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
