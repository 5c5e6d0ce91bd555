/* test/test_cgsolve_progress.c: cgsolve's progress line (cli/progress.c): the rate
 * over the last points, the iterations it predicts, the line's words, and at most one line an
 * interval, none before the first, erased at the end */
/* SPDX-License-Identifier: BSD-3-Clause */
#include "cli/cgsolve.h"
#include "test/testutil.h"

/* A relres falling by q an iteration is seen as rate q, from a point every iteration (the CPU)
 * or every 8 (GPU windows), also once the ring of 32 points has wrapped. */
static void test_rate_and_left(void)
{
    cgsolve_progress p;
    cgsolve_progress_init(&p, stdout, 1e-8);
    CHECK(isnan(cgsolve_progress_rate(&p)));
    for (int k = 0; k < 40; k++) cgsolve_progress_step(&p, k, pow(0.5, k), -1.0);
    CHECK(p.n == CGSOLVE_PROGRESS_WINDOW && p.it[p.head] == 40 - CGSOLVE_PROGRESS_WINDOW);
    CHECK(test_close(cgsolve_progress_rate(&p), 0.5, 1e-12, 0));

    cgsolve_progress_init(&p, stdout, 1e-8);
    for (int w = 0; w < 5; w++) cgsolve_progress_step(&p, 8 * w, pow(0.9, 8 * w), -1.0);
    CHECK(test_close(cgsolve_progress_rate(&p), 0.9, 1e-12, 0));
    /* zero, NaN and Inf are not points; the same iteration twice gives no rate */
    cgsolve_progress_step(&p, 40, 0.0, -1.0);
    cgsolve_progress_step(&p, 40, NAN, -1.0);
    cgsolve_progress_step(&p, 40, INFINITY, -1.0);
    CHECK(p.n == 5);
    cgsolve_progress_init(&p, stdout, 1e-8);
    cgsolve_progress_step(&p, 3, 0.1, -1.0);
    cgsolve_progress_step(&p, 3, 0.01, -1.0);
    CHECK(isnan(cgsolve_progress_rate(&p)));

    /* from 1e-2 to 1e-8 at 0.1 an iteration: 6; at 0.5: ceil(6 / log10(2)) = 20 */
    CHECK(cgsolve_progress_left(1e-2, 0.1, 1e-8) == 6.0);
    CHECK(cgsolve_progress_left(1e-2, 0.5, 1e-8) == 20.0);
    CHECK(cgsolve_progress_left(1e-9, 0.5, 1e-8) == 0.0);
    CHECK(cgsolve_progress_left(1e-2, 1.0, 1e-8) == -1.0);
    CHECK(cgsolve_progress_left(1e-2, 1.3, 1e-8) == -1.0);
    CHECK(cgsolve_progress_left(1e-2, NAN, 1e-8) == -1.0);
}

static void test_line(void)
{
    char buf[160];
    cgsolve_progress_line(buf, sizeof buf, 404, 5.344e-10, 0.9187, 20.0);
    CHECK(strcmp(buf, "cgsolve: iteration 404  relres 5.344e-10  rate 0.9187/it  ~20 left") == 0);
    cgsolve_progress_line(buf, sizeof buf, 7, 2.5, 1.0895, -1.0);
    CHECK(strcmp(buf, "cgsolve: iteration 7  relres 2.500e+00  rate 1.0895/it") == 0);
    cgsolve_progress_line(buf, sizeof buf, 0, 1.0, NAN, -1.0);
    CHECK(strcmp(buf, "cgsolve: iteration 0  relres 1.000e+00") == 0);
}

/* The lines written: each starts with \r and ends erasing the rest of the terminal line. */
static int count_lines(FILE *f, char *all, size_t size)
{
    size_t len;
    rewind(f);
    len = fread(all, 1, size - 1, f);
    all[len] = '\0';
    int lines = 0;
    for (const char *c = all; (c = strstr(c, "\rcgsolve: iteration")) != NULL; c++) lines++;
    return lines;
}

/* Clock t (seconds from the start): nothing before 0.25, then at most one line a 0.25 s; the
 * end erases the line once, and a solve that never drew one writes nothing. */
static void test_throttle(void)
{
    char all[4096];
    FILE *f = tmpfile();
    CHECK(f != NULL);
    if (!f) return;
    cgsolve_progress p;
    cgsolve_progress_init(&p, f, 1e-6);
    p.t_last = 0.0; /* the start, on the test's clock */
    const double t[] = {0.05, 0.1, 0.2, 0.26, 0.3, 0.45, 0.52, 0.6, 1.4};
    const int want[] = {0, 0, 0, 1, 1, 1, 2, 2, 3};
    for (int i = 0; i < 9; i++) {
        cgsolve_progress_step(&p, i + 1, pow(0.5, i + 1), t[i]);
        CHECK(count_lines(f, all, sizeof all) == want[i]);
    }
    CHECK(strstr(all, "\rcgsolve: iteration 4  relres 6.250e-02  rate 0.5000/it  ~16 left\033[K"));
    cgsolve_progress_end(&p);
    cgsolve_progress_end(&p);
    count_lines(f, all, sizeof all);
    size_t len = strlen(all);
    CHECK(len > 4 && strcmp(all + len - 4, "\r\033[K") == 0);
    CHECK(strstr(all, "\r\033[K\r\033[K") == NULL);
    fclose(f);

    f = tmpfile();
    CHECK(f != NULL);
    if (!f) return;
    cgsolve_progress_init(&p, f, 1e-6);
    p.t_last = 0.0;
    for (int i = 0; i < 50; i++) cgsolve_progress_step(&p, i, 1.0 / (i + 1), 0.001 * i);
    cgsolve_progress_end(&p);
    CHECK(ftell(f) == 0);
    fclose(f);
}

int main(void)
{
    test_init_seed("test_cgsolve_progress");
    test_rate_and_left();
    test_line();
    test_throttle();
    return test_finish("test_cgsolve_progress");
}
