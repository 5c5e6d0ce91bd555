/* cli/batch.c: cgsolve --batch: many small systems, read from the Matrix Market files
 * of a directory or a list, solved together by batched CG (docs/batched.md); the summary, the
 * line per system and the JSON report's "batch" */
/* SPDX-License-Identifier: BSD-3-Clause */
#define _POSIX_C_SOURCE 200809L /* opendir, stat, clock_gettime */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "mpcg.h"

#include "cli/cgsolve.h"

/* One system: its file and what the reports say of it. */
typedef struct batch_sys {
    char *path;       /* the file (allocated) */
    const char *name; /* in path: the file name in a directory, the entry as given in a list */
    int64_t n, nnz;
    char *warning; /* the non-symmetry warning (allocated), NULL if none */
} batch_sys;

/* The systems and their concatenated CSR (mpcg_batch_create: local columns). */
typedef struct batch_set {
    batch_sys *sys;
    int64_t k, cap;
    int64_t *off, *ptr; /* k + 1 offsets; rows + 1 row pointers */
    int32_t *col;
    double *val;
    int64_t rows, nnz, max_n, rows_cap, nnz_cap;
} batch_set;

/* What the summary and the JSON report say of the results. */
typedef struct batch_stats {
    int64_t converged, it_min, it_max, worst; /* worst: the system of the largest residual */
    double it_median, worst_relres, setup_s, solve_s;
    int64_t count[9]; /* per reason, in the order of reasons[] */
    mpcg_precond precond; /* the one the solve ran (auto resolved) */
} batch_stats;

static const mpcg_reason reasons[9] = {
    MPCG_CONVERGED_RTOL,      MPCG_CONVERGED_ZERO_RHS,         MPCG_DIVERGED_MAX_ITER,
    MPCG_DIVERGED_BREAKDOWN,  MPCG_DIVERGED_INDEFINITE_MATRIX, MPCG_DIVERGED_NAN,
    MPCG_DIVERGED_STAGNATION, MPCG_DIVERGED_INDEFINITE_PC,     MPCG_REASON_NONE};

static int out_of_memory(void)
{
    fprintf(stderr, "cgsolve: --batch: out of memory\n");
    return EXIT_FAILURE_OTHER;
}

static double seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* ---------------------------------------------------------------- the files */

/* Add the file path (allocated; taken over) named name_at characters into it. */
static int add_file(batch_set *s, char *path, size_t name_at)
{
    if (!path) return out_of_memory();
    if (s->k == s->cap) {
        int64_t cap = s->cap ? 2 * s->cap : 16;
        batch_sys *sys = realloc(s->sys, (size_t)cap * sizeof *sys);
        if (!sys) {
            free(path);
            return out_of_memory();
        }
        s->sys = sys, s->cap = cap;
    }
    s->sys[s->k++] = (batch_sys){.path = path, .name = path + name_at};
    return -1;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a > b && strcmp(s + a - b, suffix) == 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(((const batch_sys *)a)->name, ((const batch_sys *)b)->name);
}

/* Every *.mtx and *.mtx.gz of dir, sorted by name (bytewise). */
static int list_dir(const char *dir, batch_set *s)
{
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "cgsolve: --batch %s: cannot read the directory: %s\n", dir,
                strerror(errno));
        return EXIT_INPUT;
    }
    const size_t len = strlen(dir);
    const int slash = len > 0 && dir[len - 1] != '/';
    struct dirent *e;
    int rc = -1;
    while (rc < 0 && (e = readdir(d))) {
        if (!ends_with(e->d_name, ".mtx") && !ends_with(e->d_name, ".mtx.gz")) continue;
        char *path = malloc(len + strlen(e->d_name) + 2);
        if (path) sprintf(path, "%s%s%s", dir, slash ? "/" : "", e->d_name);
        rc = add_file(s, path, len + (size_t)slash);
    }
    closedir(d);
    if (rc >= 0) return rc;
    if (s->k == 0) {
        fprintf(stderr, "cgsolve: --batch %s: no .mtx or .mtx.gz file in the directory\n", dir);
        return EXIT_INPUT;
    }
    qsort(s->sys, (size_t)s->k, sizeof *s->sys, by_name);
    return -1;
}

/* The files of --batch: a directory's, or the entries of a comma-separated list. */
static int list_files(const char *arg, batch_set *s)
{
    struct stat st;
    if (stat(arg, &st) == 0 && S_ISDIR(st.st_mode)) return list_dir(arg, s);
    for (const char *p = arg;; p++) {
        size_t len = strcspn(p, ",");
        if (len == 0) {
            fprintf(stderr,
                    "cgsolve: --batch=%s: an empty file name in the list\n"
                    "Try 'cgsolve --help'.\n",
                    arg);
            return EXIT_USAGE;
        }
        char *path = malloc(len + 1);
        if (path) memcpy(path, p, len), path[len] = '\0';
        int rc = add_file(s, path, 0);
        if (rc >= 0) return rc;
        p += len;
        if (!*p) return -1;
    }
}

/* ---------------------------------------------------------------- the concatenated CSR */

/* Room for rows more rows and nnz more entries. */
static int reserve(batch_set *s, int64_t rows, int64_t nnz)
{
    if (!s->off && !(s->off = calloc((size_t)s->k + 1, sizeof *s->off))) return out_of_memory();
    if (s->rows + rows + 1 > s->rows_cap) {
        int64_t cap = 2 * (s->rows + rows + 1);
        int64_t *ptr = realloc(s->ptr, (size_t)cap * sizeof *ptr);
        if (!ptr) return out_of_memory();
        if (!s->ptr) ptr[0] = 0;
        s->ptr = ptr, s->rows_cap = cap;
    }
    if (s->nnz + nnz >= s->nnz_cap) { /* at least one entry: no NULL arrays for the batch */
        int64_t cap = 2 * (s->nnz + nnz) + 1;
        int32_t *col = realloc(s->col, (size_t)cap * sizeof *col);
        if (col) s->col = col;
        double *val = col ? realloc(s->val, (size_t)cap * sizeof *val) : NULL;
        if (!val) return out_of_memory();
        s->val = val, s->nnz_cap = cap;
    }
    return -1;
}

/* Append system i's CSR (its columns are local already). */
static int append(batch_set *s, int64_t i, const mpcg_matrix *A)
{
    const int64_t n = mpcg_matrix_n(A), nnz = mpcg_matrix_nnz(A);
    const int64_t *ptr;
    const int32_t *col;
    const double *val;
    int rc = reserve(s, n, nnz);
    if (rc >= 0) return rc;
    mpcg_matrix_csr(A, &ptr, &col, &val);
    for (int64_t r = 0; r < n; r++)
        s->ptr[s->rows + r + 1] = s->nnz + ptr[r + 1];
    memcpy(s->col + s->nnz, col, (size_t)nnz * sizeof *col);
    memcpy(s->val + s->nnz, val, (size_t)nnz * sizeof *val);
    s->rows += n, s->nnz += nnz;
    s->off[i + 1] = s->rows;
    s->sys[i].n = n, s->sys[i].nnz = nnz;
    if (n > s->max_n) s->max_n = n;
    return -1;
}

/* "cgsolve: FILE: the library's message" for a check of a matrix read from FILE. */
static int fail_file(const mpcg_context *ctx, const options *o, mpcg_status st, const char *path)
{
    char text[600];
    mpcg_last_error_message(ctx, text, sizeof text);
    fprintf(stderr, "cgsolve: %s: %s\n", path, text);
    if (o->verbose) fprintf(stderr, "%s\n", mpcg_last_error(ctx));
    return st == MPCG_ERR_HOST_ALLOC ? EXIT_FAILURE_OTHER : EXIT_INPUT;
}

/* A system's size, values and symmetry (an error with --check-symmetry, else a warning). */
static int check_system(mpcg_context *ctx, const options *o, const mpcg_matrix *A, batch_sys *y)
{
    mpcg_status st;
    if (mpcg_matrix_n(A) > MPCG_BATCH_MAX_ROWS) {
        fprintf(stderr,
                "cgsolve: %s: n = %lld rows, more than a batch takes (%d): solve it on "
                "its own (cgsolve %s)\n",
                y->path, (long long)mpcg_matrix_n(A), MPCG_BATCH_MAX_ROWS, y->path);
        return EXIT_INPUT;
    }
    if ((st = mpcg_matrix_check(A, 0)) != MPCG_SUCCESS ||
        (o->check_symmetry && (st = mpcg_matrix_check(A, MPCG_CHECK_SYMMETRY))))
        return fail_file(ctx, o, st, y->path);
    if (!o->check_symmetry && mpcg_matrix_check(A, MPCG_CHECK_SYMMETRY) != MPCG_SUCCESS) {
        char text[300], warning[400];
        mpcg_last_error_message(ctx, text, sizeof text);
        snprintf(warning, sizeof warning,
                 "%s: %s: CG may fail or return a wrong x (--check-symmetry makes this an error)",
                 y->name, text);
        fprintf(stderr, "cgsolve: warning: %s\n", warning);
        mpcg_clear_error(ctx);
        if (!(y->warning = malloc(strlen(warning) + 1))) return out_of_memory();
        strcpy(y->warning, warning);
    }
    return -1;
}

/* Read every file, check it and append it to the concatenation. */
static int read_all(mpcg_context *ctx, const options *o, batch_set *s)
{
    for (int64_t i = 0; i < s->k; i++) {
        mpcg_matrix *A = NULL;
        mpcg_status st = mpcg_matrix_read_mm(ctx, s->sys[i].path, &A);
        if (st != MPCG_SUCCESS) return cgsolve_fail(ctx, o, st, s->sys[i].path);
        int rc = check_system(ctx, o, A, &s->sys[i]);
        if (rc < 0) rc = append(s, i, A);
        mpcg_matrix_destroy(A);
        if (rc >= 0) return rc;
    }
    return -1;
}

/* ---------------------------------------------------------------- the solve */

/* Create the batch, b (ones, or one random stream over the systems in order), solve from
 * x = 0 into res; the times in t. */
static int solve_all(mpcg_context *ctx, const options *o, const batch_set *s,
                     mpcg_batch_result *res, batch_stats *t)
{
    mpcg_batch *B = NULL;
    mpcg_status st;
    double *b = malloc((size_t)s->rows * sizeof *b), *x = calloc((size_t)s->rows, sizeof *x);
    int rc = -1;
    if (!b || !x) {
        free(b), free(x);
        return out_of_memory();
    }
    uint64_t seed = o->seed;
    const int random = o->rhs_kind && strncmp(o->rhs_kind, "random", 6) == 0;
    for (int64_t i = 0; i < s->rows; i++)
        b[i] = random ? 2.0 * cgsolve_uniform(&seed) - 1.0 : 1.0;
    double t0 = seconds();
    if ((st = mpcg_batch_create(ctx, s->k, s->off, s->ptr, s->col, s->val, &B)) != MPCG_SUCCESS ||
        (st = mpcg_batch_set_tol(B, o->tol)) != MPCG_SUCCESS ||
        (o->maxit >= 0 && (st = mpcg_batch_set_maxit(B, o->maxit)) != MPCG_SUCCESS) ||
        (o->precond_set && (st = mpcg_batch_set_precond(B, o->precond)) != MPCG_SUCCESS))
        rc = cgsolve_fail(ctx, o, st, "batch");
    t->precond = mpcg_batch_precond(B);
    double t1 = seconds();
    if (rc < 0 && (st = mpcg_batch_solve(B, b, x, res)) != MPCG_SUCCESS)
        rc = cgsolve_fail(ctx, o, st, "batch solve failed");
    t->setup_s = t1 - t0, t->solve_s = seconds() - t1;
    mpcg_batch_destroy(B);
    free(b), free(x);
    return rc;
}

static int by_value(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Converged systems, the count per reason, the iterations' min, median and max, the largest
 * true residual (NaN counts as the largest). */
static int tally(const batch_set *s, const mpcg_batch_result *res, batch_stats *t)
{
    int64_t *it = malloc((size_t)s->k * sizeof *it);
    if (!it) return out_of_memory();
    t->worst = 0, t->worst_relres = res[0].true_relres;
    for (int64_t i = 0; i < s->k; i++) {
        it[i] = res[i].iterations;
        t->converged += res[i].reason > 0;
        for (int r = 0; r < 9; r++)
            t->count[r] += res[i].reason == reasons[r];
        double v = res[i].true_relres;
        if (!isnan(t->worst_relres) && (isnan(v) || v > t->worst_relres))
            t->worst = i, t->worst_relres = v;
    }
    qsort(it, (size_t)s->k, sizeof *it, by_value);
    t->it_min = it[0], t->it_max = it[s->k - 1];
    t->it_median = 0.5 * (double)(it[(s->k - 1) / 2] + it[s->k / 2]);
    free(it);
    return -1;
}

/* ---------------------------------------------------------------- the reports */

/* The iteration cap of a system of n rows: --maxit, else the library's max(100, 10 n). */
static int64_t batch_maxit(const options *o, int64_t n)
{
    return o->maxit >= 0 ? o->maxit : 10 * n > 100 ? 10 * n : 100;
}

static void print_systems(FILE *f, const batch_set *s, const mpcg_batch_result *res)
{
    for (int64_t i = 0; i < s->k; i++)
        fprintf(f, "system %-4lld %s: n = %lld, %s (%s), %lld iterations, true relres %.6e\n",
                (long long)i, s->sys[i].name, (long long)s->sys[i].n,
                res[i].reason > 0 ? "converged" : "NOT converged",
                mpcg_reason_string(res[i].reason), (long long)res[i].iterations,
                res[i].true_relres);
}

static void print_summary(const mpcg_context *ctx, const options *o, const batch_set *s,
                          const mpcg_batch_result *res, const batch_stats *t)
{
    FILE *f = cgsolve_human_stream(o);
    fprintf(f,
            "matrix      batch %s: %lld systems, %lld rows total, %lld nnz total, largest n = "
            "%lld\n",
            o->batch, (long long)s->k, (long long)s->rows, (long long)s->nnz, (long long)s->max_n);
    fprintf(f, "device      %s\n", mpcg_context_device_name(ctx));
    fprintf(f, "solver      batched cg, precond %s%s, precision fp64, tol %.3g",
            mpcg_precond_name(t->precond),
            o->precond_set && o->precond != MPCG_PRECOND_AUTO ? "" : " (auto)", o->tol);
    if (o->maxit >= 0) fprintf(f, ", maxit %lld", (long long)o->maxit);
    else fprintf(f, ", maxit max(100, 10 n_i) <= %lld", (long long)batch_maxit(o, s->max_n));
    fprintf(f, ", rhs %s\n", o->rhs_kind ? o->rhs_kind : "ones");
    if (o->verbose) print_systems(f, s, res);
    fprintf(f, "result      %lld of %lld systems converged\n", (long long)t->converged,
            (long long)s->k);
    const char *label = "reasons ";
    for (int r = 0; r < 9; r++)
        if (t->count[r]) {
            fprintf(f, "%-11s %lld %s\n", label, (long long)t->count[r],
                    mpcg_reason_string(reasons[r]));
            label = "";
        }
    fprintf(f, "iterations  min %lld, median %.*f, max %lld\n", (long long)t->it_min,
            t->it_median == floor(t->it_median) ? 0 : 1, t->it_median, (long long)t->it_max);
    fprintf(f, "residual    worst true ||b - Ax||/||b|| = %.6e (%s)\n", t->worst_relres,
            s->sys[t->worst].name);
    fprintf(f, "time        setup %.6f s, solve %.6f s\n", t->setup_s, t->solve_s);
}

static void json_systems(FILE *f, const options *o, const batch_set *s,
                         const mpcg_batch_result *res)
{
    fprintf(f, ",\n            \"systems\": [");
    for (int64_t i = 0; i < s->k; i++) {
        fprintf(f, "%s\n    {\"name\": ", i ? "," : "");
        cgsolve_json_str(f, s->sys[i].name);
        fprintf(f, ", \"n\": %lld, \"nnz\": %lld, \"converged\": %s, \"reason\": ",
                (long long)s->sys[i].n, (long long)s->sys[i].nnz,
                res[i].reason > 0 ? "true" : "false");
        cgsolve_json_str(f, mpcg_reason_name(res[i].reason));
        fprintf(f, ", \"iterations\": %lld, \"true_relres\": ", (long long)res[i].iterations);
        cgsolve_json_num(f, res[i].true_relres);
        fprintf(f, ", \"recurrence_relres\": ");
        cgsolve_json_num(f, res[i].recurrence_relres);
        fprintf(f, ", \"maxit\": %lld}", (long long)batch_maxit(o, s->sys[i].n));
    }
    fprintf(f, "]},\n");
}

static void json_batch(FILE *f, const options *o, const batch_set *s, const batch_stats *t)
{
    fprintf(f, "  \"batch\": {\"source\": ");
    cgsolve_json_str(f, o->batch);
    fprintf(f,
            ", \"k\": %lld, \"rows\": %lld, \"nnz\": %lld, \"largest_n\": %lld, "
            "\"converged\": %lld,\n            \"reasons\": {",
            (long long)s->k, (long long)s->rows, (long long)s->nnz, (long long)s->max_n,
            (long long)t->converged);
    const char *sep = "";
    for (int r = 0; r < 9; r++)
        if (t->count[r]) {
            fprintf(f, "%s\"%s\": %lld", sep, mpcg_reason_name(reasons[r]), (long long)t->count[r]);
            sep = ", ";
        }
    fprintf(f, "}, \"iterations_min\": %lld, \"iterations_median\": ", (long long)t->it_min);
    cgsolve_json_num(f, t->it_median);
    fprintf(f, ", \"iterations_max\": %lld,\n            \"worst_true_relres\": ",
            (long long)t->it_max);
    cgsolve_json_num(f, t->worst_relres);
    fprintf(f, ", \"worst_system\": ");
    cgsolve_json_str(f, s->sys[t->worst].name);
    fprintf(f, ", \"setup_s\": ");
    cgsolve_json_num(f, t->setup_s);
    fprintf(f, ", \"solve_s\": ");
    cgsolve_json_num(f, t->solve_s);
}

/* The JSON report (mode "batch"): 0 on a write error (message printed). */
static int write_json(const mpcg_context *ctx, const options *o, const batch_set *s,
                      const mpcg_batch_result *res, const batch_stats *t)
{
    FILE *f = cgsolve_json_open(o, "batch");
    if (!f) return 0;
    fprintf(f, "  \"solver\": {\"method\": \"batched cg\", \"precision\": \"fp64\", \"tol\": ");
    cgsolve_json_num(f, o->tol);
    /* --maxit, else the largest system's cap (each system's is in "systems") */
    fprintf(f, ", \"maxit\": %lld", (long long)batch_maxit(o, s->max_n));
    fprintf(f, ", \"precond\": \"%s\", \"rhs\": ", mpcg_precond_name(t->precond));
    cgsolve_json_str(f, o->rhs_kind ? o->rhs_kind : "ones");
    fprintf(f, ", \"seed\": %llu},\n", (unsigned long long)o->seed);
    json_batch(f, o, s, t);
    json_systems(f, o, s, res);
    fprintf(f, "  \"time\": {\"setup_s\": ");
    cgsolve_json_num(f, t->setup_s);
    fprintf(f, ", \"solve_s\": ");
    cgsolve_json_num(f, t->solve_s);
    fprintf(f, "},\n");
    cgsolve_json_device(f, ctx, o);
    fprintf(f, "  \"warnings\": [");
    const char *sep = "";
    for (int64_t i = 0; i < s->k; i++)
        if (s->sys[i].warning) {
            fputs(sep, f);
            cgsolve_json_str(f, s->sys[i].warning);
            sep = ", ";
        }
    fprintf(f, "]\n");
    return cgsolve_json_close(o, f);
}

static void free_set(batch_set *s)
{
    for (int64_t i = 0; i < s->k; i++)
        free(s->sys[i].path), free(s->sys[i].warning);
    free(s->sys), free(s->off), free(s->ptr), free(s->col), free(s->val);
}

int cgsolve_batch(const options *o)
{
    mpcg_context *ctx = NULL;
    batch_set s = {0};
    batch_stats t = {0};
    mpcg_batch_result *res = NULL;
    int rc;
    if ((rc = list_files(o->batch, &s)) < 0 && (rc = cgsolve_open_context(o, &ctx)) < 0 &&
        (rc = read_all(ctx, o, &s)) < 0) {
        if (!(res = calloc((size_t)s.k, sizeof *res))) rc = out_of_memory();
        if (rc < 0 && (rc = solve_all(ctx, o, &s, res, &t)) < 0 && (rc = tally(&s, res, &t)) < 0) {
            if (!o->quiet) print_summary(ctx, o, &s, res, &t);
            rc = t.converged == s.k ? EXIT_CONVERGED : EXIT_NOT_CONVERGED;
            if (o->json_file && !write_json(ctx, o, &s, res, &t)) rc = EXIT_FAILURE_OTHER;
        }
    }
    free(res);
    free_set(&s);
    mpcg_context_destroy(ctx);
    return rc;
}
