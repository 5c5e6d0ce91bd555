/* solver/cgsolve_report.c: the human summary and the JSON report of cgsolve */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "solver/cgsolve.h"

static const char *precision_name(mpcg_precision p)
{
    return p == MPCG_PRECISION_FP32 ? "fp32" : p == MPCG_PRECISION_MIXED ? "mixed" : "fp64";
}

/* The matrix name for reports: the file's base name, or the generator spec. */
static const char *matrix_label(const options *o)
{
    if (o->generate) return o->generate;
    const char *s = strrchr(o->matrix, '/');
    return s ? s + 1 : o->matrix;
}

/* Achieved bandwidth of the iteration model (GB/s), 0 if not measurable. */
static double achieved_gbs(const mpcg_info *info)
{
    if (info->iterations <= 0 || info->solve_time_s <= 0) return 0.0;
    return info->bytes_per_iteration * (double)info->iterations / info->solve_time_s * 1e-9;
}

void cgsolve_print_summary(const mpcg_context *ctx, const mpcg_matrix *A, const options *o,
                           const mpcg_info *info)
{
    /* with --json - the report owns stdout; the summary goes to stderr */
    FILE *f = o->json_file && strcmp(o->json_file, "-") == 0 ? stderr : stdout;
    fprintf(f, "matrix      %s: n = %lld, nnz = %lld\n", matrix_label(o),
           (long long)mpcg_matrix_n(A), (long long)mpcg_matrix_nnz(A));
    fprintf(f, "device      %s\n", mpcg_context_device_name(ctx));
    fprintf(f, "solver      cg, spmv %s, precision %s, tol %.3g\n", info->backend,
           precision_name(info->precision), o->tol);
    fprintf(f, "result      %s (%s)\n", info->converged ? "converged" : "NOT converged",
           mpcg_reason_string(info->reason));
    fprintf(f, "iterations  %lld\n", (long long)info->iterations);
    fprintf(f, "residual    true ||b - Ax||/||b|| = %.6e, recurrence = %.6e\n", info->true_relres,
           info->recurrence_relres);
    if (info->residual_replacements)
        fprintf(f, "            (%lld residual replacements)\n",
               (long long)info->residual_replacements);
    fprintf(f, "time        setup %.6f s, solve %.6f s", info->setup_time_s, info->solve_time_s);
    if (info->iterations > 0)
        fprintf(f, " (%.3f ms/iteration, %.1f GB/s modelled traffic)",
               1e3 * info->solve_time_s / (double)info->iterations, achieved_gbs(info));
    fprintf(f, "\n");
}

/* JSON string with the characters JSON requires escaped. */
static void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
        else if (c < 0x20) fprintf(f, "\\u%04x", c);
        else fputc(c, f);
    }
    fputc('"', f);
}

/* A number, or null for NaN/Inf (which JSON cannot hold). */
static void json_num(FILE *f, double v)
{
    if (isfinite(v)) fprintf(f, "%.17g", v);
    else fputs("null", f);
}

int cgsolve_write_json(const mpcg_context *ctx, const mpcg_matrix *A, const options *o,
                       const mpcg_info *info)
{
    int to_stdout = strcmp(o->json_file, "-") == 0;
    FILE *f = to_stdout ? stdout : fopen(o->json_file, "w");
    if (!f) {
        fprintf(stderr, "cgsolve: cannot open %s: %s\n", o->json_file, strerror(errno));
        return 0;
    }
    fprintf(f, "{\n  \"mpcg_version\": \"%d.%d.%d\",\n", MPCG_VERSION_MAJOR, MPCG_VERSION_MINOR,
            MPCG_VERSION_PATCH);
    fprintf(f, "  \"matrix\": {\"name\": ");
    json_str(f, matrix_label(o));
    fprintf(f, ", \"n\": %lld, \"nnz\": %lld},\n", (long long)mpcg_matrix_n(A),
            (long long)mpcg_matrix_nnz(A));
    fprintf(f, "  \"solver\": {\"method\": \"cg\", \"backend\": ");
    json_str(f, info->backend);
    fprintf(f, ", \"precision\": \"%s\", \"tol\": ", precision_name(info->precision));
    json_num(f, o->tol);
    fprintf(f, ", \"maxit\": ");
    if (o->maxit >= 0) fprintf(f, "%lld", (long long)o->maxit);
    else fputs("null", f);
    fprintf(f, ", \"initial_guess\": \"%s\"},\n", o->x0_file ? "provided" : "zero");
    fprintf(f, "  \"result\": {\"converged\": %s, \"reason\": ", info->converged ? "true" : "false");
    json_str(f, mpcg_reason_name(info->reason));
    fprintf(f, ", \"iterations\": %lld, \"true_relres\": ", (long long)info->iterations);
    json_num(f, info->true_relres);
    fprintf(f, ", \"recurrence_relres\": ");
    json_num(f, info->recurrence_relres);
    fprintf(f, ", \"residual_replacements\": %lld},\n", (long long)info->residual_replacements);
    fprintf(f, "  \"time\": {\"setup_s\": ");
    json_num(f, info->setup_time_s);
    fprintf(f, ", \"solve_s\": ");
    json_num(f, info->solve_time_s);
    fprintf(f, ", \"ms_per_iteration\": ");
    json_num(f, info->iterations > 0 ? 1e3 * info->solve_time_s / (double)info->iterations : NAN);
    fprintf(f, "},\n  \"traffic\": {\"bytes_per_iteration\": ");
    json_num(f, info->bytes_per_iteration);
    fprintf(f, ", \"achieved_gbs\": ");
    json_num(f, info->iterations > 0 ? achieved_gbs(info) : NAN);
    fprintf(f, "},\n  \"device\": {\"kind\": \"%s\", \"name\": ",
            mpcg_context_device_kind(ctx) == MPCG_DEVICE_CUDA ? "cuda" : "cpu");
    json_str(f, mpcg_context_device_name(ctx));
    fprintf(f, "}\n}\n");
    int ok = !ferror(f);
    if (!to_stdout && fclose(f) != 0) ok = 0;
    if (!ok) fprintf(stderr, "cgsolve: error writing %s\n", o->json_file);
    return ok;
}
