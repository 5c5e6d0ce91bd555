/* cli/history.c: cgsolve --history and --plot: the solver's residual history as CSV
 * and as an SVG plot (cli/plot.c) */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli/cgsolve.h"

double cgsolve_stop_level(const options *o, double bnorm)
{
    return bnorm > 0 && o->atol / bnorm > o->tol ? o->atol / bnorm : o->tol;
}

/* A number of the CSV: %.17g (it reads back exactly), or an empty field where there is none. */
static void csv_num(FILE *f, const char *fmt, double v)
{
    if (isfinite(v)) fprintf(f, fmt, v);
}

/* One history (nh = 1): iteration,relres,true_relres,time_s; several columns (block CG): the
 * column first, then the same, column after column. */
static int write_csv(FILE *f, const cgsolve_history *hs, int nh)
{
    fprintf(f, "%siteration,relres,true_relres,time_s\n", nh > 1 ? "column," : "");
    for (int j = 0; j < nh; j++)
        for (int64_t i = 0; i < hs[j].count; i++) {
            const cgsolve_history *h = &hs[j];
            if (nh > 1) fprintf(f, "%d,", j);
            fprintf(f, "%lld,", (long long)h->iteration[i]);
            csv_num(f, "%.17g", h->relres[i]);
            fputc(',', f);
            csv_num(f, "%.17g", h->true_relres[i]);
            fputc(',', f);
            csv_num(f, "%.9g", h->time_s[i]);
            fputc('\n', f);
        }
    return !ferror(f);
}

static int write_plot(FILE *f, const cgsolve_history *h, const mpcg_matrix *A, const options *o,
                      const mpcg_info *info, int nrhs, double bnorm)
{
    char title[320], subtitle[320], atol[40] = "";
    snprintf(title, sizeof title, "%s (n = %lld): %s, %s", cgsolve_matrix_label(o),
             (long long)mpcg_matrix_n(A), info->backend, mpcg_precision_name(info->precision));
    if (o->atol > 0) snprintf(atol, sizeof atol, ", atol %.3g", o->atol);
    snprintf(subtitle, sizeof subtitle, "%s %s after %lld iterations%s; %s %s, tol %.3g%s",
             info->converged ? "converged" : "NOT converged", mpcg_reason_name(info->reason),
             (long long)info->iterations, nrhs > 1 ? " (the most of a column)" : "",
             nrhs > 1 ? "block.method" : "variant", info->variant, o->tol, atol);
    int64_t any = 0;
    for (int j = 0; j < nrhs; j++) any += h[j].count;
    const cgsolve_plot_text t = {.title = title,
                                 .subtitle = subtitle,
                                 .level = cgsolve_stop_level(o, bnorm),
                                 .empty_why = !any ? "b = 0, solved without iterating" : NULL};
    return cgsolve_write_svg(f, h, nrhs, &t);
}

/* Open path, write the CSV (svg 0) or the plot, close; -1 or the exit status (message
 * printed). */
static int write_file(int svg, const char *path, const cgsolve_history *h, const mpcg_matrix *A,
                      const options *o, const mpcg_info *info, int nrhs, double bnorm)
{
    const char *option = svg ? "--plot" : "--history";
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "cgsolve: %s %s: cannot open: %s\n", option, path, strerror(errno));
        return EXIT_FAILURE_OTHER;
    }
    int ok = svg ? write_plot(f, h, A, o, info, nrhs, bnorm) : write_csv(f, h, nrhs);
    if (fclose(f) != 0) ok = 0;
    if (!ok) {
        fprintf(stderr, "cgsolve: %s %s: error writing\n", option, path);
        return EXIT_FAILURE_OTHER;
    }
    return -1;
}

int cgsolve_write_history(const mpcg_solver *S, const mpcg_matrix *A, const options *o,
                          const mpcg_info *info, int nrhs, double bnorm)
{
    cgsolve_history h[64] = {{0}}; /* one per column (block CG), else h[0] */
    int rc;
    if (!o->history_file && !o->plot_file) return -1;
    for (int j = 0; j < nrhs; j++) {
        cgsolve_history *c = &h[j];
        mpcg_status st =
            nrhs > 1 ? mpcg_solver_get_block_history(S, j, &c->count, &c->iteration, &c->relres,
                                                     &c->true_relres, &c->time_s)
                     : mpcg_solver_get_history(S, &c->count, &c->iteration, &c->relres,
                                               &c->true_relres, &c->time_s);
        if (st != MPCG_SUCCESS) c->count = 0;
    }
    if (o->history_file &&
        (rc = write_file(0, o->history_file, h, A, o, info, nrhs, bnorm)) >= 0)
        return rc;
    if (o->plot_file && (rc = write_file(1, o->plot_file, h, A, o, info, nrhs, bnorm)) >= 0)
        return rc;
    return -1;
}
