/* solver/cgsolve_info.c: cgsolve --info: read and validate A without solving, and describe it */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "core/context.h"
#include "core/csr.h"
#include "core/device.h"
#include "core/matrix.h"
#include "io/mm.h"
#include "spmv/spmv.h"
#if MPCG_HAVE_CUDA
#include "spmv/adaptive.h"
#endif

#include "solver/cgsolve.h"

/* cgsolve links the library's internals (libmpcgi) for this file: the Matrix Market header,
 * the CSR arrays and the backends' analysis, none of which the public API shows. */

#define MAX_BACKENDS 16

/* How A relates to its transpose (missing entries count as zeros, as in mpcg_matrix_check). */
typedef struct symmetry_facts {
    int symmetric;            /* A(i,j) == A(j,i) for all i, j */
    int skew;                 /* A(i,j) == -A(j,i) for all i, j (so a zero diagonal) */
    int structural;           /* (i,j) stored iff (j,i) stored */
    int64_t mismatched;       /* stored entries with A(i,j) != A(j,i) */
    int64_t first_i, first_j; /* the first of them (0-based), -1 if none */
} symmetry_facts;

typedef struct row_facts {
    int64_t min, max, empty;
    double mean, sigma; /* population standard deviation */
} row_facts;

typedef struct backend_facts {
    const char *name;
    mpcg_status status;  /* of its analysis on this matrix */
    char storage[200];   /* what it would store, or why it cannot */
    size_t bytes_matrix; /* bytes one SpMV reads of the matrix (fp64) */
    double padding;      /* stored entries / nnz */
} backend_facts;

typedef struct info_facts {
    int from_file; /* read from a file: h holds its header */
    mpcgi_mm_header h;
    int64_t n, nnz, stored;
    symmetry_facts sym;
    mpcgi_diag_stats diag;
    row_facts rows;
    int nbackends;
    backend_facts be[MAX_BACKENDS];
    const char *auto_cpu, *auto_cuda; /* what "auto" resolves to on each kind of device */
    int gpus;
} info_facts;

static const char *const format_name[] = {"coordinate", "array"};
static const char *const field_name[] = {"real", "integer", "pattern"};
static const char *const symmetry_name[] = {"general", "symmetric", "skew-symmetric"};

/* ---------------------------------------------------------------- facts */

static void symmetry(const mpcgi_csr *A, symmetry_facts *s)
{
    *s = (symmetry_facts){1, 1, 1, 0, -1, -1};
    for (int64_t i = 0; i < A->n; i++)
        for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++) {
            int32_t j = A->col_idx[k];
            int64_t t = mpcgi_csr_find(A, j, (int32_t)i);
            double a = A->val[k], at = t < 0 ? 0.0 : A->val[t];
            if (t < 0) s->structural = 0;
            if (a != -at) s->skew = 0;
            if (a != at) {
                s->symmetric = 0;
                if (!s->mismatched++) s->first_i = i, s->first_j = j;
            }
        }
}

static void row_lengths(const mpcgi_csr *A, row_facts *r)
{
    double sum = 0.0, sq = 0.0;
    r->min = INT64_MAX;
    r->max = r->empty = 0;
    for (int64_t i = 0; i < A->n; i++) {
        int64_t len = A->row_ptr[i + 1] - A->row_ptr[i];
        if (len < r->min) r->min = len;
        if (len > r->max) r->max = len;
        r->empty += len == 0;
        sum += (double)len;
    }
    r->mean = sum / (double)A->n;
    for (int64_t i = 0; i < A->n; i++) {
        double d = (double)(A->row_ptr[i + 1] - A->row_ptr[i]) - r->mean;
        sq += d * d;
    }
    r->sigma = sqrt(sq / (double)A->n);
}

/* The storage a backend's analysis chose, in words. */
static void describe_storage(const struct mpcgi_spmv_ops *ops, const void *impl, char *buf,
                             size_t size)
{
    if (strcmp(ops->name, "cpu") == 0) {
        snprintf(buf, size, "CSR: int64 row pointers, int32 column indices, fp64 values");
        return;
    }
    if (strcmp(ops->name, "cusparse") == 0) {
        snprintf(buf, size, "CSR: int32 row pointers and column indices, fp64 values (cuSPARSE)");
        return;
    }
#if MPCG_HAVE_CUDA
    if (strcmp(ops->name, "adaptive") == 0) {
        mpcgi_adaptive_info a;
        mpcgi_spmv_adaptive_info(impl, &a);
        if (a.path == MPCGI_ADAPTIVE_UNIFORM) {
            snprintf(buf, size, "CSR, uniform path: %d thread%s per row", a.nt,
                     a.nt == 1 ? "" : "s");
        } else if (a.path == MPCGI_ADAPTIVE_SPLIT) {
            snprintf(buf, size,
                     "CSR, split path: %lld long row%s in chunks of %d, the other rows "
                     "with %d thread%s each",
                     (long long)a.bin_rows[MPCGI_ADAPTIVE_LONG],
                     a.bin_rows[MPCGI_ADAPTIVE_LONG] == 1 ? "" : "s", a.chunk, a.nt,
                     a.nt == 1 ? "" : "s");
        } else if (a.path == MPCGI_ADAPTIVE_TILES) {
            snprintf(buf, size,
                     "CSR, tiles path: %d tiles of at most %d rows walked in column order "
                     "(%lld slots), %lld long row%s summed whole",
                     a.tiles, a.tile_rows, (long long)a.slots,
                     (long long)a.bin_rows[MPCGI_ADAPTIVE_LONG],
                     a.bin_rows[MPCGI_ADAPTIVE_LONG] == 1 ? "" : "s");
        } else {
            int len = snprintf(buf, size, "CSR, binned path: %lld long rows in chunks of %d",
                               (long long)a.bin_rows[MPCGI_ADAPTIVE_LONG], a.chunk);
            for (int b = 1; b < MPCGI_ADAPTIVE_BINS && len > 0 && (size_t)len < size; b++)
                len += snprintf(buf + len, size - (size_t)len, ", %lld with %d",
                                (long long)a.bin_rows[b], 1 << (MPCGI_ADAPTIVE_SHORT_BINS - b));
            if (len > 0 && (size_t)len < size)
                snprintf(buf + len, size - (size_t)len, " threads per row");
        }
        return;
    }
#endif
    (void)impl;
    snprintf(buf, size, "%s", ops->description);
}

/* Analyse A for every backend on the CPU context (a host analysis: the GPU binning of the
 * adaptive backend takes the same decision). */
static void backends(mpcg_context *ctx, const mpcgi_csr *A, info_facts *f)
{
    for (int i = 0; i < mpcgi_spmv_count() && f->nbackends < MAX_BACKENDS; i++) {
        const struct mpcgi_spmv_ops *ops = mpcgi_spmv_get(i);
        backend_facts *b = &f->be[f->nbackends++];
        mpcgi_spmv_sizes sizes = {.padding_ratio = 1.0};
        void *impl = NULL;
        b->name = ops->name;
        b->status = ops->analyze(ctx, A, MPCG_CAP_FP64, NULL, &impl, &sizes);
        if (b->status == MPCG_SUCCESS) {
            describe_storage(ops, impl, b->storage, sizeof b->storage);
            b->bytes_matrix = sizes.bytes_matrix;
            b->padding = sizes.padding_ratio;
            ops->destroy(ctx, impl);
        } else {
            int len;
            const char *text = cgsolve_error_text(mpcg_last_error(ctx), &len);
            snprintf(b->storage, sizeof b->storage, "%.*s", len, text);
            mpcg_clear_error(ctx);
        }
    }
    /* "auto" on this CPU context, and on a GPU context (a probe: the lookup reads the kind) */
    const struct mpcgi_spmv_ops *ops = NULL;
    f->auto_cpu = mpcgi_spmv_lookup(ctx, "auto", &ops) == MPCG_SUCCESS ? ops->name : NULL;
    mpcg_context probe = *ctx;
    probe.kind = MPCG_DEVICE_CUDA;
    f->auto_cuda = mpcgi_spmv_lookup(&probe, "auto", &ops) == MPCG_SUCCESS ? ops->name : NULL;
    mpcg_clear_error(ctx);
    f->gpus = mpcgi_device_count();
}

/* The header of the file A was read from (re-read: the reader keeps no header). */
static mpcg_status header(mpcg_context *ctx, const char *path, mpcgi_mm_header *h)
{
    mpcgi_lines r;
    mpcg_status st = mpcgi_lines_open(ctx, path, &r);
    if (st == MPCG_SUCCESS) st = mpcgi_mm_read_header(&r, MPCGI_MM_WANT_MATRIX, h);
    mpcgi_lines_close(&r);
    return st;
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

static const char *symmetry_words(const symmetry_facts *s)
{
    return s->symmetric    ? "symmetric"
           : s->skew       ? "skew-symmetric"
           : s->structural ? "structurally symmetric (values differ)"
                           : "not symmetric";
}

static void print_info(FILE *f, const options *o, const info_facts *x)
{
    char b1[32];
    fprintf(f, "matrix      %s", cgsolve_matrix_label(o));
    if (x->from_file)
        fprintf(f, ": Matrix Market %s %s %s\n", format_name[x->h.format], field_name[x->h.field],
                symmetry_name[x->h.symmetry]);
    else
        fprintf(f, ": generated\n");
    fprintf(f, "size        n = %lld, nnz = %lld expanded, %lld stored in the %s\n",
            (long long)x->n, (long long)x->nnz, (long long)x->stored,
            x->from_file ? "file" : "generator");
    fprintf(f, "symmetry    %s", symmetry_words(&x->sym));
    if (!x->sym.symmetric)
        fprintf(f, ": %lld entr%s from the transpose, the first A(%lld, %lld)",
                (long long)x->sym.mismatched, x->sym.mismatched == 1 ? "y differs" : "ies differ",
                (long long)x->sym.first_i + 1, (long long)x->sym.first_j + 1);
    fprintf(f, "\n");
    const mpcgi_diag_stats *d = &x->diag;
    fprintf(f, "diagonal    %lld positive", (long long)(x->n - d->missing - d->zero - d->negative));
    const int64_t count[3] = {d->missing, d->zero, d->negative};
    const int64_t first[3] = {d->first_missing, d->first_zero, d->first_negative};
    static const char *const what[3] = {"missing", "zero", "negative"};
    for (int k = 0; k < 3; k++) {
        fprintf(f, ", %lld %s", (long long)count[k], what[k]);
        if (count[k]) fprintf(f, " (first: row %lld)", (long long)first[k] + 1);
    }
    fprintf(f, "%s\n", d->missing || d->zero || d->negative ? ": A is not positive definite" : "");
    fprintf(f, "rows        nnz per row: min %lld, mean %.2f, max %lld, sigma %.2f; %lld empty\n",
            (long long)x->rows.min, x->rows.mean, (long long)x->rows.max, x->rows.sigma,
            (long long)x->rows.empty);
    for (int i = 0; i < x->nbackends; i++) {
        const backend_facts *b = &x->be[i];
        fprintf(f, "%-12s%s: ", i ? "" : "storage", b->name);
        if (b->status == MPCG_SUCCESS)
            fprintf(f, "%s; %s per SpMV\n", b->storage,
                    human_bytes((double)b->bytes_matrix, b1, sizeof b1));
        else
            fprintf(f, "cannot hold A: %s\n", b->storage);
    }
    fprintf(f, "            auto: %s on the CPU, %s on a GPU (%d usable here)\n",
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

static void json_name(FILE *f, const char *s)
{
    if (s)
        cgsolve_json_str(f, s);
    else
        fputs("null", f);
}

static void json_facts(FILE *f, const options *o, const info_facts *x)
{
    fprintf(f, "  \"valid\": true,\n  \"matrix\": {\"name\": ");
    cgsolve_json_str(f, cgsolve_matrix_label(o));
    fprintf(f, ", \"n\": %lld, \"nnz\": %lld, \"nnz_stored\": %lld,\n", (long long)x->n,
            (long long)x->nnz, (long long)x->stored);
    fprintf(f, "             \"format\": ");
    json_name(f, x->from_file ? format_name[x->h.format] : NULL);
    fprintf(f, ", \"field\": ");
    json_name(f, x->from_file ? field_name[x->h.field] : NULL);
    fprintf(f, ", \"declared_symmetry\": ");
    json_name(f, x->from_file ? symmetry_name[x->h.symmetry] : NULL);
    fprintf(f,
            ",\n             \"symmetric\": %s, \"skew_symmetric\": %s, "
            "\"structurally_symmetric\": %s,\n",
            x->sym.symmetric ? "true" : "false", x->sym.skew ? "true" : "false",
            x->sym.structural ? "true" : "false");
    fprintf(f, "             \"asymmetric_entries\": %lld, \"first_asymmetric\": ",
            (long long)x->sym.mismatched);
    if (x->sym.mismatched)
        fprintf(f, "[%lld, %lld]", (long long)x->sym.first_i + 1, (long long)x->sym.first_j + 1);
    else
        fputs("null", f);
    const mpcgi_diag_stats *d = &x->diag;
    fprintf(f,
            ",\n             \"diagonal\": {\"positive\": %lld, \"missing\": %lld, "
            "\"zero\": %lld, \"negative\": %lld, \"first_missing\": ",
            (long long)(x->n - d->missing - d->zero - d->negative), (long long)d->missing,
            (long long)d->zero, (long long)d->negative);
    json_row(f, d->first_missing);
    fprintf(f, ", \"first_zero\": ");
    json_row(f, d->first_zero);
    fprintf(f, ", \"first_negative\": ");
    json_row(f, d->first_negative);
    fprintf(f, "},\n             \"row_nnz\": {\"min\": %lld, \"mean\": ", (long long)x->rows.min);
    cgsolve_json_num(f, x->rows.mean);
    fprintf(f, ", \"max\": %lld, \"stddev\": ", (long long)x->rows.max);
    cgsolve_json_num(f, x->rows.sigma);
    fprintf(f, ", \"empty\": %lld}},\n  \"backends\": [", (long long)x->rows.empty);
    for (int i = 0; i < x->nbackends; i++) {
        const backend_facts *b = &x->be[i];
        fprintf(f, "%s\n    {\"name\": ", i ? "," : "");
        cgsolve_json_str(f, b->name);
        fprintf(f, ", \"status\": ");
        cgsolve_json_str(f, mpcg_status_name(b->status));
        fprintf(f, ", \"storage\": ");
        cgsolve_json_str(f, b->storage);
        if (b->status == MPCG_SUCCESS) {
            fprintf(f, ", \"bytes_matrix\": %zu, \"padding_ratio\": ", b->bytes_matrix);
            cgsolve_json_num(f, b->padding);
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
    if (!x->sym.symmetric) {
        fprintf(f, "\"A is %s: CG needs a symmetric positive definite matrix\"",
                symmetry_words(&x->sym));
        sep = ", ";
    }
    if (d->missing || d->zero || d->negative)
        fprintf(f,
                "%s\"the diagonal has %lld missing, %lld zero and %lld negative entries: A is "
                "not positive definite\"",
                sep, (long long)d->missing, (long long)d->zero, (long long)d->negative);
    fprintf(f, "]\n");
}

/* The report: facts when x is not NULL, else the error (status, message). 0 on a write error. */
static int write_json(const options *o, const info_facts *x, mpcg_status st, const char *msg,
                      int msg_len)
{
    FILE *f = cgsolve_json_open(o, "info");
    if (!f) return 0;
    if (x) {
        json_facts(f, o, x);
    } else {
        char text[1024];
        snprintf(text, sizeof text, "%.*s", msg_len, msg);
        fprintf(f, "  \"valid\": false,\n  \"matrix\": {\"name\": ");
        cgsolve_json_str(f, cgsolve_matrix_label(o));
        fprintf(f, "},\n  \"error\": {\"status\": ");
        cgsolve_json_str(f, mpcg_status_name(st));
        fprintf(f, ", \"message\": ");
        cgsolve_json_str(f, text);
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
    mpcg_status st;
    int rc;
    memset(&x, 0, sizeof x);

    /* the analysis is the host's: --info never touches a GPU */
    if ((st = mpcg_context_create("cpu", &ctx)) != MPCG_SUCCESS)
        return cgsolve_fail(NULL, o, st, "cannot create a CPU context");
    st = o->generate ? mpcg_matrix_generate(ctx, o->generate, &A)
                     : mpcg_matrix_read_mm(ctx, o->matrix, &A);
    if (st == MPCG_SUCCESS) st = mpcg_matrix_check(A, 0);
    if (st == MPCG_SUCCESS && o->check_symmetry) st = mpcg_matrix_check(A, MPCG_CHECK_SYMMETRY);
    if (st == MPCG_SUCCESS && !o->generate) {
        st = header(ctx, o->matrix, &x.h);
        x.from_file = st == MPCG_SUCCESS;
    }
    if (st != MPCG_SUCCESS) {
        int len;
        const char *text = cgsolve_error_text(mpcg_last_error(ctx), &len);
        rc = cgsolve_fail(ctx, o, st, o->generate ? o->generate : o->matrix);
        if (o->json_file && !write_json(o, NULL, st, text, len)) rc = EXIT_FAILURE_OTHER;
        goto done;
    }

    const mpcgi_csr *csr = &A->csr;
    x.n = csr->n;
    x.nnz = csr->nnz;
    x.stored = x.from_file ? x.h.entries : csr->nnz;
    symmetry(csr, &x.sym);
    mpcgi_csr_diag_stats(csr, &x.diag);
    row_lengths(csr, &x.rows);
    backends(ctx, csr, &x);

    if (!o->quiet)
        print_info(o->json_file && strcmp(o->json_file, "-") == 0 ? stderr : stdout, o, &x);
    rc = EXIT_CONVERGED;
    if (o->json_file && !write_json(o, &x, MPCG_SUCCESS, NULL, 0)) rc = EXIT_FAILURE_OTHER;
done:
    mpcg_matrix_destroy(A);
    mpcg_context_destroy(ctx);
    return rc;
}
