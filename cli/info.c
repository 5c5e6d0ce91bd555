/* cli/info.c: cgsolve --info: read and validate A without solving, and describe it */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "mpcg.h"

#include "cli/cgsolve.h"

/* Everything comes from the public describe calls: mpcg_matrix_describe (the matrix and its
 * file), mpcg_backend_describe (each backend's host analysis), mpcg_backend_auto. */

#define MAX_BACKENDS 16

typedef struct info_facts {
    mpcg_matrix_facts m;
    int nbackends;
    mpcg_backend_layout be[MAX_BACKENDS];
    const char *auto_cpu, *auto_cuda; /* what "auto" resolves to on each kind of device */
    int gpus;
} info_facts;

/* ---------------------------------------------------------------- facts */

/* Each backend's analysis of A on the host, and what "auto" means on each kind of device. */
static void backends(const mpcg_matrix *A, info_facts *f)
{
    for (int i = 0; i < mpcg_backend_count() && f->nbackends < MAX_BACKENDS; i++) {
        mpcg_backend_info b;
        if (mpcg_backend_get(i, &b) == MPCG_SUCCESS &&
            mpcg_backend_describe(A, b.name, &f->be[f->nbackends]) == MPCG_SUCCESS)
            f->nbackends++;
    }
    f->auto_cpu = mpcg_backend_auto(MPCG_DEVICE_CPU);
    f->auto_cuda = mpcg_backend_auto(MPCG_DEVICE_CUDA);
    f->gpus = mpcg_device_count();
}

/* ---------------------------------------------------------------- human report */

/* "7.9 KiB" */
static const char *human_bytes(double b, char *buf, size_t size)
{
    static const char *const unit[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    while (b >= 1024.0 && u < 4)
        b /= 1024.0, u++;
    snprintf(buf, size, u ? "%.1f %s" : "%.0f %s", b, unit[u]);
    return buf;
}

static const char *symmetry_words(const mpcg_matrix_facts *m)
{
    return m->symmetric                ? "symmetric"
           : m->skew_symmetric         ? "skew-symmetric"
           : m->structurally_symmetric ? "structurally symmetric (values differ)"
                                       : "not symmetric";
}

static void print_info(FILE *f, const options *o, const info_facts *x)
{
    const mpcg_matrix_facts *m = &x->m;
    char b1[32];
    fprintf(f, "matrix      %s", cgsolve_matrix_label(o));
    if (m->from_file)
        fprintf(f, ": Matrix Market %s %s %s\n", m->format, m->field, m->declared_symmetry);
    else
        fprintf(f, ": generated\n");
    fprintf(f, "size        n = %lld, nnz = %lld expanded, %lld stored in the %s\n",
            (long long)m->n, (long long)m->nnz, (long long)m->nnz_stored,
            m->from_file ? "file" : "generator");
    fprintf(f, "symmetry    %s", symmetry_words(m));
    if (!m->symmetric)
        fprintf(f, ": %lld entr%s from the transpose, the first A(%lld, %lld)",
                (long long)m->asymmetric_entries,
                m->asymmetric_entries == 1 ? "y differs" : "ies differ",
                (long long)m->first_asymmetric_row + 1, (long long)m->first_asymmetric_col + 1);
    fprintf(f, "\n");
    fprintf(f, "diagonal    %lld positive", (long long)m->diag_positive);
    const int64_t count[3] = {m->diag_missing, m->diag_zero, m->diag_negative};
    const int64_t first[3] = {m->first_missing, m->first_zero, m->first_negative};
    static const char *const what[3] = {"missing", "zero", "negative"};
    for (int k = 0; k < 3; k++) {
        fprintf(f, ", %lld %s", (long long)count[k], what[k]);
        if (count[k]) fprintf(f, " (first: row %lld)", (long long)first[k] + 1);
    }
    fprintf(f, "%s\n", m->diag_positive < m->n ? ": A is not positive definite" : "");
    fprintf(f, "rows        nnz per row: min %lld, mean %.2f, max %lld, sigma %.2f; %lld empty\n",
            (long long)m->row_nnz_min, m->row_nnz_mean, (long long)m->row_nnz_max,
            m->row_nnz_stddev, (long long)m->empty_rows);
    for (int i = 0; i < x->nbackends; i++) {
        const mpcg_backend_layout *b = &x->be[i];
        fprintf(f, "%-12s%s: ", i ? "" : "storage", b->name);
        if (b->status == MPCG_SUCCESS)
            fprintf(f, "%s; %s per SpMV\n", b->storage,
                    human_bytes((double)b->bytes_matrix, b1, sizeof b1));
        else
            fprintf(f, "cannot hold A: %s\n", b->message);
    }
    fprintf(f, "            auto: %s on the CPU; on a GPU the fastest candidate timed at setup, "
            "first %s (%d usable here)\n",
            x->auto_cpu ? x->auto_cpu : "none", x->auto_cuda ? x->auto_cuda : "none (no CUDA)",
            x->gpus);
}

/* ---------------------------------------------------------------- JSON report */

static void json_row(FILE *f, int64_t first)
{
    if (first >= 0)
        fprintf(f, "%lld", (long long)first + 1);
    else
        fputs("null", f);
}

/* A string, or null for NULL and "" (no such fact). */
static void json_name(FILE *f, const char *s)
{
    if (s && *s)
        cgsolve_json_str(f, s);
    else
        fputs("null", f);
}

static const char *json_bool(int b) { return b ? "true" : "false"; }

static void json_matrix(FILE *f, const options *o, const mpcg_matrix_facts *m)
{
    fprintf(f, "  \"valid\": true,\n  \"matrix\": {\"name\": ");
    cgsolve_json_str(f, cgsolve_matrix_label(o));
    fprintf(f, ", \"n\": %lld, \"nnz\": %lld, \"nnz_stored\": %lld,\n", (long long)m->n,
            (long long)m->nnz, (long long)m->nnz_stored);
    fprintf(f, "             \"format\": ");
    json_name(f, m->format);
    fprintf(f, ", \"field\": ");
    json_name(f, m->field);
    fprintf(f, ", \"declared_symmetry\": ");
    json_name(f, m->declared_symmetry);
    fprintf(f,
            ",\n             \"symmetric\": %s, \"skew_symmetric\": %s, "
            "\"structurally_symmetric\": %s,\n",
            json_bool(m->symmetric), json_bool(m->skew_symmetric),
            json_bool(m->structurally_symmetric));
    fprintf(f, "             \"asymmetric_entries\": %lld, \"first_asymmetric\": ",
            (long long)m->asymmetric_entries);
    if (m->asymmetric_entries)
        fprintf(f, "[%lld, %lld]", (long long)m->first_asymmetric_row + 1,
                (long long)m->first_asymmetric_col + 1);
    else
        fputs("null", f);
    fprintf(f,
            ",\n             \"diagonal\": {\"positive\": %lld, \"missing\": %lld, "
            "\"zero\": %lld, \"negative\": %lld, \"first_missing\": ",
            (long long)m->diag_positive, (long long)m->diag_missing, (long long)m->diag_zero,
            (long long)m->diag_negative);
    json_row(f, m->first_missing);
    fprintf(f, ", \"first_zero\": ");
    json_row(f, m->first_zero);
    fprintf(f, ", \"first_negative\": ");
    json_row(f, m->first_negative);
    fprintf(f, "},\n             \"row_nnz\": {\"min\": %lld, \"mean\": ",
            (long long)m->row_nnz_min);
    cgsolve_json_num(f, m->row_nnz_mean);
    fprintf(f, ", \"max\": %lld, \"stddev\": ", (long long)m->row_nnz_max);
    cgsolve_json_num(f, m->row_nnz_stddev);
    fprintf(f, ", \"empty\": %lld}},\n", (long long)m->empty_rows);
}

static void json_backends(FILE *f, const info_facts *x)
{
    const mpcg_matrix_facts *m = &x->m;
    fprintf(f, "  \"backends\": [");
    for (int i = 0; i < x->nbackends; i++) {
        const mpcg_backend_layout *b = &x->be[i];
        fprintf(f, "%s\n    {\"name\": ", i ? "," : "");
        cgsolve_json_str(f, b->name);
        fprintf(f, ", \"status\": ");
        cgsolve_json_str(f, mpcg_status_name(b->status));
        fprintf(f, ", \"storage\": "); /* the layout, or why there is none */
        cgsolve_json_str(f, b->status == MPCG_SUCCESS ? b->storage : b->message);
        if (b->status == MPCG_SUCCESS) {
            fprintf(f, ", \"bytes_matrix\": %zu, \"padding_ratio\": ", b->bytes_matrix);
            cgsolve_json_num(f, b->padding_ratio);
        } else {
            fprintf(f, ", \"bytes_matrix\": null, \"padding_ratio\": null");
        }
        fprintf(f, "}");
    }
    fprintf(f, "\n  ],\n  \"auto_backend\": {\"cpu\": ");
    json_name(f, x->auto_cpu);
    fprintf(f, ", \"cuda\": ");
    json_name(f, x->auto_cuda);
    fprintf(f, "},\n  \"gpus\": %d,\n  \"warnings\": [", x->gpus);
    const char *sep = "";
    if (!m->symmetric) {
        fprintf(f, "\"A is %s: CG needs a symmetric positive definite matrix\"",
                symmetry_words(m));
        sep = ", ";
    }
    if (m->diag_positive < m->n)
        fprintf(f,
                "%s\"the diagonal has %lld missing, %lld zero and %lld negative entries: A is "
                "not positive definite\"",
                sep, (long long)m->diag_missing, (long long)m->diag_zero,
                (long long)m->diag_negative);
    fprintf(f, "]\n");
}

/* The report: facts when x is not NULL, else the error (status, message). 0 on a write error. */
static int write_json(const options *o, const info_facts *x, mpcg_status st, const char *msg)
{
    FILE *f = cgsolve_json_open(o, "info");
    if (!f) return 0;
    if (x) {
        json_matrix(f, o, &x->m);
        json_backends(f, x);
    } else {
        fprintf(f, "  \"valid\": false,\n  \"matrix\": {\"name\": ");
        cgsolve_json_str(f, cgsolve_matrix_label(o));
        fprintf(f, "},\n  \"error\": {\"status\": ");
        cgsolve_json_str(f, mpcg_status_name(st));
        fprintf(f, ", \"message\": ");
        cgsolve_json_str(f, msg);
        fprintf(f, "}\n");
    }
    return cgsolve_json_close(o, f);
}

/* ---------------------------------------------------------------- --info */

int cgsolve_info(const options *o)
{
    mpcg_context *ctx = NULL;
    mpcg_matrix *A = NULL;
    static info_facts x; /* static: the backend table is a few KiB */
    mpcg_status st = MPCG_SUCCESS;
    int rc;
    memset(&x, 0, sizeof x);

    /* the analysis is the host's: --info never touches a GPU */
    if ((st = mpcg_context_create("cpu", &ctx)) != MPCG_SUCCESS)
        return cgsolve_fail(NULL, o, st, "cannot create a CPU context");
    if ((rc = cgsolve_load_matrix(ctx, o, &A, &st)) < 0) {
        if ((st = mpcg_matrix_check(A, 0)) == MPCG_SUCCESS && o->check_symmetry)
            st = mpcg_matrix_check(A, MPCG_CHECK_SYMMETRY);
        if (st != MPCG_SUCCESS) rc = cgsolve_fail(ctx, o, st, cgsolve_matrix_label(o));
    }
    if (rc >= 0) {
        char text[1024];
        mpcg_last_error_message(ctx, text, sizeof text);
        if (o->json_file && !write_json(o, NULL, st, text)) rc = EXIT_FAILURE_OTHER;
        goto done;
    }
    mpcg_matrix_describe(A, &x.m);
    backends(A, &x);
    if (!o->quiet) print_info(cgsolve_human_stream(o), o, &x);
    rc = EXIT_CONVERGED;
    if (o->json_file && !write_json(o, &x, MPCG_SUCCESS, NULL)) rc = EXIT_FAILURE_OTHER;
done:
    mpcg_matrix_destroy(A);
    mpcg_context_destroy(ctx);
    return rc;
}
