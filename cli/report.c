/* cli/report.c: the human summary and the JSON report of cgsolve */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli/cgsolve.h"

const char *cgsolve_matrix_label(const options *o)
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

int64_t cgsolve_maxit(const options *o, const mpcg_matrix *A)
{
    const int64_t n = mpcg_matrix_n(A);
    return o->maxit >= 0 ? o->maxit : 10 * n > 100 ? 10 * n : 100;
}

FILE *cgsolve_human_stream(const options *o)
{
    /* with --json=- the report owns stdout, with -o - the solution does; the summary and the
     * monitor go to stderr */
    return (o->json_file && strcmp(o->json_file, "-") == 0) ||
                   (o->out_file && strcmp(o->out_file, "-") == 0)
               ? stderr
               : stdout;
}

void cgsolve_print_summary(const mpcg_context *ctx, const mpcg_matrix *A, const options *o,
                           const mpcg_info *info, const mpcg_backend_choice *choice)
{
    FILE *f = cgsolve_human_stream(o);
    fprintf(f, "matrix      %s: n = %lld, nnz = %lld\n", cgsolve_matrix_label(o),
           (long long)mpcg_matrix_n(A), (long long)mpcg_matrix_nnz(A));
    fprintf(f, "device      %s\n", mpcg_context_device_name(ctx));
    fprintf(f, "solver      cg, spmv %s, precision %s", info->backend,
           mpcg_precision_name(info->precision));
    if (info->mixed_strategy[0]) fprintf(f, " (%s)", info->mixed_strategy);
    fprintf(f, ", tol %.3g", o->tol);
    if (o->atol > 0 || o->verbose) fprintf(f, ", atol %.3g", o->atol);
    fprintf(f, "\n");
    if (info->precond_describe[0] && strcmp(info->precond, "none") == 0)
        fprintf(f, "precond     %s\n", info->precond_describe); /* auto chose none */
    else if (info->precond_describe[0])
        fprintf(f, "precond     %s (setup %.6f s)\n", info->precond_describe,
                info->precond_setup_time_s);
    if (info->storage_fallback[0])
        fprintf(f, "storage     fp64 values, not the hi/lo halves: %s\n", info->storage_fallback);
    if (o->verbose && info->spmv_describe[0])
        fprintf(f, "spmv        %s\n", info->spmv_describe);
    if (o->verbose) cgsolve_print_choice(f, choice);
    if (o->verbose) /* empty where the library does not say (it chooses at setup) */
        fprintf(f, "variant     %s (%s)\n", info->variant[0] ? info->variant : "unknown",
                info->variant_reason[0] ? info->variant_reason : "no reason given");
    fprintf(f, "result      %s (%s)\n", info->converged ? "converged" : "NOT converged",
           mpcg_reason_string(info->reason));
    if (info->precision == MPCG_PRECISION_FP32 && info->reason == MPCG_DIVERGED_STAGNATION)
        fprintf(f, "hint        fp32 stops near 1e-7 x cond(A) (cond(A) = 1e3: near 1e-4), here at "
                   "%.1e > tol %.3g;\n            --precision=mixed reaches fp64's tolerance\n",
                info->true_relres, o->tol);
    fprintf(f, "iterations  %lld\n", (long long)info->iterations);
    fprintf(f, "residual    true ||b - Ax||/||b|| = %.6e, recurrence = %.6e\n", info->true_relres,
           info->recurrence_relres);
    if (info->residual_replacements)
        fprintf(f, "            (%lld residual replacements)\n",
               (long long)info->residual_replacements);
    fprintf(f, "products    %lld SpMVs, %lld of them with fp64 values\n", (long long)info->spmvs,
            (long long)info->spmvs_fp64);
    if (info->mixed_head_iterations)
        fprintf(f, "fp64 head   iterations 1 to %lld in fp64 (option mixed.fp64_head)\n",
                (long long)info->mixed_head_iterations);
    if (info->precision_fallback)
        fprintf(f, "fallback    fp32 stopped improving: fp64 from iteration %lld on\n",
                (long long)info->fallback_iteration);
    fprintf(f, "time        setup %.6f s, solve %.6f s", info->setup_time_s, info->solve_time_s);
    if (info->iterations > 0)
        fprintf(f, " (%.3f ms/iteration, %.1f GB/s modelled traffic)",
               1e3 * info->solve_time_s / (double)info->iterations, achieved_gbs(info));
    fprintf(f, "\n");
}

void cgsolve_json_str(FILE *f, const char *s)
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

void cgsolve_json_num(FILE *f, double v)
{
    if (isfinite(v)) fprintf(f, "%.17g", v);
    else fputs("null", f);
}

FILE *cgsolve_json_open(const options *o, const char *mode)
{
    FILE *f = strcmp(o->json_file, "-") == 0 ? stdout : fopen(o->json_file, "w");
    if (!f) {
        fprintf(stderr, "cgsolve: cannot open %s: %s\n", o->json_file, strerror(errno));
        return NULL;
    }
    fprintf(f, "{\n  \"mpcg_version\": \"%d.%d.%d\",\n  \"mode\": \"%s\",\n",
            MPCG_VERSION_MAJOR, MPCG_VERSION_MINOR, MPCG_VERSION_PATCH, mode);
    return f;
}

int cgsolve_json_close(const options *o, FILE *f)
{
    fprintf(f, "}\n");
    int ok = !ferror(f);
    if (f != stdout && fclose(f) != 0) ok = 0;
    if (!ok) fprintf(stderr, "cgsolve: error writing %s\n", o->json_file);
    return ok;
}

void cgsolve_json_device(FILE *f, const mpcg_context *ctx, const options *o)
{
    fprintf(f, "  \"device\": {\"kind\": \"%s\", \"name\": ",
            mpcg_context_device_kind(ctx) == MPCG_DEVICE_CUDA ? "cuda" : "cpu");
    cgsolve_json_str(f, mpcg_context_device_name(ctx));
    fprintf(f, ", \"memory_limit\": ");
    if (o->memory_limit_set && o->device_memory_limit &&
        mpcg_context_device_kind(ctx) == MPCG_DEVICE_CUDA)
        fprintf(f, "%zu", o->device_memory_limit);
    else
        fputs("null", f);
    fprintf(f, "},\n");
}

int cgsolve_write_json(const mpcg_context *ctx, const mpcg_matrix *A, const options *o,
                       const cgsolve_checks *checks, const mpcg_info *info, int nrhs,
                       const mpcg_info *infos, const mpcg_backend_choice *choice)
{
    FILE *f = cgsolve_json_open(o, "solve");
    if (!f) return 0;
    fprintf(f, "  \"matrix\": {\"name\": ");
    cgsolve_json_str(f, cgsolve_matrix_label(o));
    fprintf(f, ", \"n\": %lld, \"nnz\": %lld, \"symmetric\": %s},\n",
            (long long)mpcg_matrix_n(A), (long long)mpcg_matrix_nnz(A),
            checks->symmetric ? "true" : "false");
    fprintf(f, "  \"solver\": {\"method\": \"cg\", \"backend\": ");
    cgsolve_json_str(f, info->backend);
    fprintf(f, ", \"precision\": \"%s\", \"tol\": ", mpcg_precision_name(info->precision));
    cgsolve_json_num(f, o->tol);
    fprintf(f, ", \"atol\": ");
    cgsolve_json_num(f, o->atol);
    fprintf(f, ", \"maxit\": %lld", (long long)cgsolve_maxit(o, A));
    fprintf(f, ", \"initial_guess\": \"%s\",\n             \"variant\": ",
            o->x0_file ? "provided" : "zero");
    cgsolve_json_str(f, info->variant);
    fprintf(f, ", \"variant_reason\": ");
    cgsolve_json_str(f, info->variant_reason);
    fprintf(f, ",\n             \"precond\": ");
    cgsolve_json_str(f, info->precond[0] ? info->precond : "none");
    fprintf(f, ", \"spmv_describe\": ");
    if (info->spmv_describe[0]) cgsolve_json_str(f, info->spmv_describe);
    else fprintf(f, "null");
    fprintf(f, ", \"precond_describe\": ");
    if (info->precond_describe[0]) cgsolve_json_str(f, info->precond_describe);
    else fputs("null", f);
    fprintf(f, ", \"precond_setup_s\": ");
    cgsolve_json_num(f, info->precond_setup_time_s);
    fprintf(f, ",\n             \"backend_choice\": ");
    cgsolve_json_choice(f, choice);
    fprintf(f, "},\n");
    fprintf(f, "  \"result\": {\"converged\": %s, \"reason\": ", info->converged ? "true" : "false");
    cgsolve_json_str(f, mpcg_reason_name(info->reason));
    fprintf(f, ", \"iterations\": %lld, \"true_relres\": ", (long long)info->iterations);
    cgsolve_json_num(f, info->true_relres);
    fprintf(f, ", \"recurrence_relres\": ");
    cgsolve_json_num(f, info->recurrence_relres);
    fprintf(f, ", \"residual_replacements\": %lld, \"spmvs\": %lld, \"spmvs_fp64\": %lld",
            (long long)info->residual_replacements, (long long)info->spmvs,
            (long long)info->spmvs_fp64);
    fprintf(f, ",\n             \"mixed_strategy\": ");
    if (info->mixed_strategy[0]) cgsolve_json_str(f, info->mixed_strategy);
    else fputs("null", f);
    fprintf(f, ", \"mixed_head_iterations\": %lld", (long long)info->mixed_head_iterations);
    fprintf(f, ", \"precond_spmvs\": %lld", (long long)info->precond_spmvs);
    fprintf(f, ", \"precision_fallback\": %s, \"fallback_iteration\": ",
            info->precision_fallback ? "true" : "false");
    if (info->precision_fallback) fprintf(f, "%lld", (long long)info->fallback_iteration);
    else fputs("null", f);
    fprintf(f, ", \"storage_fallback\": ");
    if (info->storage_fallback[0]) cgsolve_json_str(f, info->storage_fallback);
    else fputs("null", f);
    fprintf(f, "},\n");
    fprintf(f, "  \"time\": {\"setup_s\": ");
    cgsolve_json_num(f, info->setup_time_s);
    fprintf(f, ", \"solve_s\": ");
    cgsolve_json_num(f, info->solve_time_s);
    fprintf(f, ", \"ms_per_iteration\": ");
    cgsolve_json_num(f, info->iterations > 0 ? 1e3 * info->solve_time_s / (double)info->iterations : NAN);
    fprintf(f, "},\n  \"traffic\": {\"bytes_per_iteration\": ");
    cgsolve_json_num(f, info->bytes_per_iteration);
    fprintf(f, ", \"achieved_gbs\": ");
    cgsolve_json_num(f, info->iterations > 0 ? achieved_gbs(info) : NAN);
    fprintf(f, "},\n");
    cgsolve_json_device(f, ctx, o);
    if (nrhs > 1) cgsolve_json_block(f, nrhs, infos);
    fprintf(f, "  \"warnings\": [");
    if (checks->warning[0]) cgsolve_json_str(f, checks->warning);
    fprintf(f, "]\n");
    return cgsolve_json_close(o, f);
}
