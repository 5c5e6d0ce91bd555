/* cli/progress.c: cgsolve's progress line on a terminal: iteration, residual, rate and
 * the iterations the rate predicts, rewritten at most four times a second */
/* SPDX-License-Identifier: BSD-3-Clause */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <math.h>
#include <stdio.h>
#include <time.h>

#include "cli/cgsolve.h"

/*
 * The library calls cgsolve_progress_note at every residual the solve reads (the progress
 * callback, mpcg_solver_set_progress: each iteration on the CPU, each check window on a GPU),
 * which never changes what a GPU solve does. The note keeps the last CGSOLVE_PROGRESS_WINDOW
 * points (iteration, log10 relres); the line shows the rate, the geometric mean of the
 * residual's reduction per iteration over them, and how many iterations that rate needs from
 * here to the stopping level. Nothing is drawn during the first interval (a short solve prints
 * no line at all); the end erases the line, so the summary that follows stands alone.
 */

static double monotonic(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

void cgsolve_progress_init(cgsolve_progress *p, FILE *out, double target)
{
    *p = (cgsolve_progress){.out = out, .target = target, .t_last = monotonic(),
                            .interval = CGSOLVE_PROGRESS_INTERVAL};
}

double cgsolve_progress_rate(const cgsolve_progress *p)
{
    if (p->n < 2) return NAN;
    const int newest = (p->head + p->n - 1) % CGSOLVE_PROGRESS_WINDOW;
    const int oldest = p->head;
    const int64_t dk = p->it[newest] - p->it[oldest];
    if (dk <= 0) return NAN;
    return pow(10.0, (p->lr[newest] - p->lr[oldest]) / (double)dk);
}

double cgsolve_progress_left(double relres, double rate, double target)
{
    if (relres <= target) return 0.0;
    if (!(rate > 0.0 && rate < 1.0) || !(target > 0.0)) return -1.0; /* not falling: unknown */
    return ceil((log10(target) - log10(relres)) / log10(rate));
}

int cgsolve_progress_line(char *buf, size_t size, int64_t it, double relres, double rate,
                          double left)
{
    char r[32] = "", l[32] = "";
    if (rate > 0.0 && isfinite(rate)) snprintf(r, sizeof r, "  rate %.4f/it", rate);
    if (left >= 0.0 && left < 1e15) snprintf(l, sizeof l, "  ~%.0f left", left);
    return snprintf(buf, size, "cgsolve: iteration %lld  relres %.3e%s%s", (long long)it, relres,
                    r, l);
}

void cgsolve_progress_step(cgsolve_progress *p, int64_t it, double relres, double now)
{
    char line[160];
    if (!(relres > 0.0) || !isfinite(relres)) return; /* nothing a log rate can use */
    int slot = (p->head + p->n) % CGSOLVE_PROGRESS_WINDOW;
    if (p->n == CGSOLVE_PROGRESS_WINDOW) p->head = (p->head + 1) % CGSOLVE_PROGRESS_WINDOW;
    else p->n++;
    p->it[slot] = it;
    p->lr[slot] = log10(relres);
    if (now - p->t_last < p->interval) return; /* the first interval and between lines */
    p->t_last = now;
    double rate = cgsolve_progress_rate(p);
    cgsolve_progress_line(line, sizeof line, it, relres, rate,
                          cgsolve_progress_left(relres, rate, p->target));
    fprintf(p->out, "\r%s\033[K", line); /* over the last line, the rest of it erased */
    fflush(p->out);
    p->shown = 1;
}

void cgsolve_progress_note(int64_t it, double relres, void *user)
{
    cgsolve_progress_step(user, it, relres, monotonic());
}

void cgsolve_progress_end(cgsolve_progress *p)
{
    if (!p->shown) return;
    fputs("\r\033[K", p->out);
    fflush(p->out);
    p->shown = 0;
}
