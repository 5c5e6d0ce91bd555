/* cli/cgsolve.c: the cgsolve command: read or generate A, solve A x = b with CG, report */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "mpcg.h"

#include "cli/cgsolve.h"

/* Exit status for a failed library call; prints the library's message: without --verbose only
 * its text ("A.mtx:4: row index 3 out of range [1, 2]"), not the source location and frames. */
int cgsolve_fail(const mpcg_context *ctx, const options *o, mpcg_status st, const char *what)
{
    if (o->verbose) {
        fprintf(stderr, "cgsolve: %s: %s\n%s\n", what, mpcg_status_string(st),
                mpcg_last_error(ctx));
    } else {
        char text[1024];
        mpcg_last_error_message(ctx, text, sizeof text);
        fprintf(stderr, "cgsolve: %s\n", text);
    }
    switch (st) {
    case MPCG_ERR_IO:
    case MPCG_ERR_PARSE: return EXIT_INPUT;
    case MPCG_ERR_INVALID_ARG:
    case MPCG_ERR_NOT_SUPPORTED: return EXIT_INPUT;
    default: return EXIT_FAILURE_OTHER;
    }
}

int cgsolve_check_writable(const char *option, const char *path)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0666);
    if (fd >= 0) { /* it did not exist: leave nothing behind */
        close(fd);
        unlink(path);
        return -1;
    }
    if (errno == EEXIST) { /* exists: writable without truncating it (a FIFO without reader is) */
        fd = open(path, O_WRONLY | O_NONBLOCK);
        if (fd >= 0) close(fd);
        if (fd >= 0 || errno == ENXIO) return -1;
    }
    fprintf(stderr, "cgsolve: %s %s: cannot write: %s\n", option, path, strerror(errno));
    return EXIT_INPUT;
}

int cgsolve_apply_options(mpcg_context *ctx, mpcg_solver *S, const options *o)
{
    mpcg_status st;
    if (o->precision_set && (st = mpcg_solver_set_precision(S, o->precision)) != MPCG_SUCCESS)
        return cgsolve_fail(ctx, o, st, "--precision");
    /* without --precond, the library's default: auto (docs/options.md, "Defaults") */
    if (o->precond_spec &&
        (st = mpcg_solver_set_precond_spec(S, o->precond_spec)) != MPCG_SUCCESS) {
        int rc = cgsolve_fail(ctx, o, st, "--precond");
        return st == MPCG_ERR_INVALID_ARG ? EXIT_USAGE : rc;
    }
    if (o->ooc) { /* parse_args checked that o->spmv streams */
        char key[64];
        snprintf(key, sizeof key, "%s.ooc", o->spmv);
        if ((st = mpcg_solver_set_option(S, key, "on")) != MPCG_SUCCESS)
            return cgsolve_fail(ctx, o, st, "--ooc");
    }
    for (int i = 0; i < o->nset; i++) {
        char kv[512];
        snprintf(kv, sizeof kv, "%s", o->set[i]);
        char *eq = strchr(kv, '=');
        *eq = '\0'; /* parse_args checked there is one */
        if ((st = mpcg_solver_set_option(S, kv, eq + 1)) != MPCG_SUCCESS) {
            int rc = cgsolve_fail(ctx, o, st, "-O");
            return st == MPCG_ERR_INVALID_ARG ? EXIT_USAGE : rc;
        }
    }
    return -1;
}

/* Check MPCG_OPTIONS, -O, --precision and --precond on a solver of a 1 x 1 matrix on the CPU,
 * so that a bad key fails in milliseconds, before a large matrix is read. -1 if they are fine (or cannot be checked here:
 * the run reports it), else the exit status (message printed). */
static int check_options_early(const options *o)
{
    mpcg_context *ctx = NULL;
    mpcg_matrix *A = NULL;
    mpcg_solver *S = NULL;
    mpcg_status st;
    int rc = -1;
    if (mpcg_context_create("cpu", &ctx) == MPCG_SUCCESS &&
        mpcg_matrix_generate(ctx, "poisson2d:1", &A) == MPCG_SUCCESS) {
        /* the solver applies MPCG_OPTIONS: a bad key or value there is a usage error too */
        if ((st = mpcg_solver_create(ctx, A, &S)) == MPCG_ERR_INVALID_ARG) {
            char text[1024];
            mpcg_last_error_message(ctx, text, sizeof text);
            fprintf(stderr, "cgsolve: MPCG_OPTIONS: %s\n", text);
            if (o->verbose) fprintf(stderr, "%s\n", mpcg_last_error(ctx));
            rc = EXIT_USAGE;
        } else if (st == MPCG_SUCCESS) {
            rc = cgsolve_apply_options(ctx, S, o);
        }
    }
    mpcg_solver_destroy(S);
    mpcg_matrix_destroy(A);
    mpcg_context_destroy(ctx);
    return rc;
}

/* Read a Matrix Market file of n rows into a new column-major array; *cols its columns, which
 * must be `want` when want > 0 (at most 64). */
static int read_block(mpcg_context *ctx, const options *o, const char *path, int64_t n, int want,
                      const char *what, double **out, int *cols)
{
    int64_t rows = n, c; /* a file of other than n rows is refused at its size line */
    mpcg_status st = mpcg_dense_read_mm_rows(ctx, path, n, &c, out);
    if (st != MPCG_SUCCESS) return cgsolve_fail(ctx, o, st, what);
    if (rows != n || c > 64 || (want > 0 && c != want)) {
        if (rows != n)
            fprintf(stderr, "cgsolve: %s %s has %lld rows, but A has %lld rows\n", what, path,
                    (long long)rows, (long long)n);
        else if (c > 64)
            fprintf(stderr, "cgsolve: %s %s has %lld columns: at most 64\n", what, path,
                    (long long)c);
        else
            fprintf(stderr, "cgsolve: %s %s has %lld columns, but B has %d\n", what, path,
                    (long long)c, want);
        mpcg_free(*out);
        *out = NULL;
        return EXIT_INPUT;
    }
    *cols = (int)c;
    return -1;
}

/* splitmix64 (the library's own generator for its tests and generators), so --rhs=random gives
 * the same b as before cgsolve kept to the public API: uniform in [0, 1) with 53 bits. */
double cgsolve_uniform(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return (double)((z ^ (z >> 31)) >> 11) * 0x1.0p-53;
}

/* b = ones, random in [-1, 1) (the stream goes on in *seed), or A * ones. */
static void make_rhs(const mpcg_matrix *A, const char *kind, uint64_t *seed, double *b)
{
    int64_t n = mpcg_matrix_n(A);
    if (strncmp(kind, "random", 6) == 0) {
        for (int64_t i = 0; i < n; i++) b[i] = 2.0 * cgsolve_uniform(seed) - 1.0;
    } else if (strncmp(kind, "Aones", 5) == 0) {
        const int64_t *rp;
        const double *val;
        mpcg_matrix_csr(A, &rp, NULL, &val);
        for (int64_t i = 0; i < n; i++) {
            double s = 0.0;
            for (int64_t k = rp[i]; k < rp[i + 1]; k++) s += val[k];
            b[i] = s;
        }
    } else {
        for (int64_t i = 0; i < n; i++) b[i] = 1.0;
    }
}

/* One line per call, flushed: a pipe (cgsolve ... | tee) shows the iteration as it goes. */
static void print_monitor(int64_t it, double relres, void *user)
{
    FILE *f = user;
    fprintf(f, "  iteration %8lld  recurrence relres %.6e\n", (long long)it, relres);
    fflush(f);
}

/* Several right-hand sides: a line per column still iterating. */
static void print_block_monitor(int64_t it, int column, double relres, void *user)
{
    FILE *f = user;
    fprintf(f, "  iteration %8lld  column %2d  recurrence relres %.6e\n", (long long)it, column,
            relres);
    fflush(f);
}

int cgsolve_open_context(const options *o, mpcg_context **ctx)
{
    mpcg_status st;
    if ((st = mpcg_context_create(o->device, ctx)) != MPCG_SUCCESS)
        return cgsolve_fail(NULL, o, st, "cannot use the device");
    int on_cpu = mpcg_context_device_kind(*ctx) == MPCG_DEVICE_CPU;
    if (o->ooc && on_cpu) { /* out-of-core streams to a GPU: nothing to do on the CPU */
        fprintf(stderr, "cgsolve: --ooc needs a GPU, and none is usable\n");
        return EXIT_FAILURE_OTHER; /* as --device=cuda without one */
    }
    /* a build with CUDA on a machine without a usable GPU: said with -v only (the summary's
     * device line says where it ran); a build without CUDA has nothing to say */
    if (o->verbose && (!o->device || strcmp(o->device, "auto") == 0) && on_cpu &&
        mpcg_backend_auto(MPCG_DEVICE_CUDA))
        fprintf(stderr, "cgsolve: no usable GPU found, running on the CPU\n");
    char dir[1024];
    cgsolve_cache_dir(o, dir, sizeof dir);
    if ((st = mpcg_context_set_cache_dir(*ctx, dir)) != MPCG_SUCCESS)
        return cgsolve_fail(*ctx, o, st, "--cache-dir");
    if (o->memory_limit_set) {
        if ((st = mpcg_context_set_device_memory_limit(*ctx, o->device_memory_limit)))
            return cgsolve_fail(*ctx, o, st, "--device-memory-limit");
        if (!o->quiet && on_cpu)
            fprintf(stderr, "cgsolve: --device-memory-limit has no effect on the CPU\n");
    }
    return -1;
}

int cgsolve_load_matrix(mpcg_context *ctx, const options *o, mpcg_matrix **A, mpcg_status *st)
{
    *st = o->generate ? mpcg_matrix_generate(ctx, o->generate, A)
                      : mpcg_matrix_read_mm(ctx, o->matrix, A);
    if (*st == MPCG_SUCCESS) return -1;
    int rc = cgsolve_fail(ctx, o, *st, o->generate ? o->generate : o->matrix);
    /* a spec the generators do not know is a usage error, as a bad --spmv or --device */
    return o->generate && *st == MPCG_ERR_INVALID_ARG ? EXIT_USAGE : rc;
}

/* Validate A: finite values; symmetric (an error with --check-symmetry, else a warning). */
static int check_matrix(mpcg_context *ctx, const mpcg_matrix *A, const options *o,
                        cgsolve_checks *checks)
{
    mpcg_status st;
    if ((st = mpcg_matrix_check(A, 0)) != MPCG_SUCCESS ||
        (o->check_symmetry && (st = mpcg_matrix_check(A, MPCG_CHECK_SYMMETRY))))
        return cgsolve_fail(ctx, o, st, "invalid matrix");
    /* CG needs a symmetric matrix: checked always (O(nnz log)), an error only when asked */
    checks->symmetric = 1;
    if (!o->check_symmetry && mpcg_matrix_check(A, MPCG_CHECK_SYMMETRY) != MPCG_SUCCESS) {
        char text[300];
        mpcg_last_error_message(ctx, text, sizeof text);
        checks->symmetric = 0;
        snprintf(checks->warning, sizeof checks->warning,
                 "%s: CG may fail or return a wrong x (--check-symmetry makes this an error)",
                 text);
        fprintf(stderr, "cgsolve: warning: %s\n", checks->warning);
        mpcg_clear_error(ctx);
    }
    return -1;
}

/* B (from -b or --rhs; *nrhs columns) and X (from --x0, or zero), column-major n x nrhs. */
static int make_vectors(mpcg_context *ctx, const mpcg_matrix *A, const options *o, double **b,
                        double **x, int *nrhs)
{
    int64_t n = mpcg_matrix_n(A);
    int rc, cols;
    *nrhs = o->nrhs > 1 ? o->nrhs : 1;
    if (o->rhs_file) {
        if ((rc = read_block(ctx, o, o->rhs_file, n, 0, "right-hand side", b, nrhs)) >= 0)
            return rc;
    } else {
        if (!(*b = malloc((size_t)n * (size_t)*nrhs * sizeof **b + 8))) {
            fprintf(stderr, "cgsolve: out of memory for b (%lld doubles)\n", (long long)n);
            return EXIT_FAILURE_OTHER;
        }
        uint64_t seed = o->seed;
        for (int j = 0; j < *nrhs; j++)
            make_rhs(A, o->rhs_kind ? o->rhs_kind : "ones", &seed, *b + (size_t)j * n);
    }
    if (o->x0_file) return read_block(ctx, o, o->x0_file, n, *nrhs, "initial guess", x, &cols);
    if (!(*x = calloc((size_t)n * (size_t)*nrhs + 1, sizeof **x))) {
        fprintf(stderr, "cgsolve: out of memory for x (%lld doubles)\n", (long long)n);
        return EXIT_FAILURE_OTHER;
    }
    return -1;
}

/* The progress line: on a terminal only, not with --quiet, not beside --monitor's lines; a
 * single right-hand side (block CG reports no progress). */
static int progress_wanted(const options *o, int nrhs)
{
    return !o->quiet && !o->monitor && nrhs == 1 && isatty(fileno(stderr));
}

/* Create the solver, set it up and solve; how its backend was chosen; prog: the progress line,
 * or NULL. */
static int solve(mpcg_context *ctx, mpcg_matrix *A, const options *o, const double *b, double *x,
                 int nrhs, mpcg_solver **S, mpcg_info *info, mpcg_backend_choice *choice,
                 cgsolve_progress *prog)
{
    mpcg_status st;
    int rc;
    if ((st = mpcg_solver_create(ctx, A, S)) != MPCG_SUCCESS ||
        (o->spmv && (st = mpcg_solver_set_spmv(*S, o->spmv)) != MPCG_SUCCESS) ||
        (st = mpcg_solver_set_tol(*S, o->tol)) != MPCG_SUCCESS ||
        (st = mpcg_solver_set_atol(*S, o->atol)) != MPCG_SUCCESS ||
        (o->maxit >= 0 && (st = mpcg_solver_set_maxit(*S, o->maxit)) != MPCG_SUCCESS) ||
        (st = mpcg_solver_set_check_interval(*S, o->check_interval)) != MPCG_SUCCESS ||
        (o->x0_file && (st = mpcg_solver_set_initial_guess(*S, MPCG_GUESS_PROVIDED))) ||
        ((o->history_file || o->plot_file) && (st = mpcg_solver_set_history(*S, 1))) ||
        (prog && (st = mpcg_solver_set_progress(*S, cgsolve_progress_note, prog))) ||
        (o->monitor && !o->quiet &&
         ((st = mpcg_solver_set_monitor(*S, o->monitor, print_monitor,
                                        cgsolve_human_stream(o))) ||
          (st = mpcg_solver_set_block_monitor(*S, o->monitor, print_block_monitor,
                                              cgsolve_human_stream(o))))))
        return cgsolve_fail(ctx, o, st, "solver options");
    if ((rc = cgsolve_apply_options(ctx, *S, o)) >= 0) return rc;
    if ((st = mpcg_solver_setup(*S)) != MPCG_SUCCESS) return cgsolve_fail(ctx, o, st, "solve failed");
    if (prog) cgsolve_progress_init(prog, stderr, prog->target); /* the solve's clock */
    st = nrhs > 1 ? mpcg_solve_block(*S, nrhs, b, x, info) : mpcg_solve(*S, b, x, info);
    if (prog) cgsolve_progress_end(prog);
    if (st != MPCG_SUCCESS || (st = mpcg_solver_backend_choice(*S, choice)) != MPCG_SUCCESS)
        return cgsolve_fail(ctx, o, st, "solve failed");
    return -1;
}

/* -o -: x as Matrix Market on stdout (the summary and the monitor went to stderr): written by
 * the library to a temporary file, then copied. -1, or the exit status (message printed). */
static int write_stdout(mpcg_context *ctx, const options *o, int64_t n, int nrhs, const double *x)
{
    const char *dir = getenv("TMPDIR");
    char path[1024], buf[65536];
    snprintf(path, sizeof path, "%s/cgsolve-x-XXXXXX", dir && *dir ? dir : "/tmp");
    int fd = mkstemp(path);
    if (fd < 0) {
        fprintf(stderr, "cgsolve: -o -: cannot make a temporary file: %s\n", strerror(errno));
        return EXIT_FAILURE_OTHER;
    }
    close(fd);
    mpcg_status st = mpcg_dense_write_mm(ctx, path, n, nrhs, x);
    FILE *f = st == MPCG_SUCCESS ? fopen(path, "rb") : NULL;
    size_t got;
    int ok = f != NULL;
    while (ok && (got = fread(buf, 1, sizeof buf, f)) > 0)
        ok = fwrite(buf, 1, got, stdout) == got;
    if (f && ferror(f)) ok = 0;
    if (f) fclose(f);
    unlink(path);
    if (st != MPCG_SUCCESS) return cgsolve_fail(ctx, o, st, "-o -");
    if (!ok || fflush(stdout) != 0) {
        fprintf(stderr, "cgsolve: -o -: error writing x to stdout\n");
        return EXIT_FAILURE_OTHER;
    }
    return -1;
}

/* The reports, the history and x; the exit status. infos: nrhs, one per column; bnorm: ||b||
 * of the first. */
static int report(mpcg_context *ctx, const mpcg_matrix *A, const mpcg_solver *S,
                  const options *o, const cgsolve_checks *checks, int nrhs,
                  const mpcg_info *infos, const double *x, double bnorm,
                  const mpcg_backend_choice *choice)
{
    int64_t n = mpcg_matrix_n(A), bad = 0;
    int rc;
    mpcg_status st;
    mpcg_info all = infos[0];
    if (nrhs > 1) cgsolve_block_aggregate(nrhs, infos, &all);
    if (!o->quiet) cgsolve_print_summary(ctx, A, o, &all, choice);
    if (!o->quiet && nrhs > 1) cgsolve_print_columns(o, nrhs, infos);
    if (o->json_file && !cgsolve_write_json(ctx, A, o, checks, &all, nrhs, infos, choice))
        return EXIT_FAILURE_OTHER;
    if ((rc = cgsolve_write_history(S, A, o, &all, nrhs, bnorm)) >= 0) return rc;
    while (o->out_file && bad < n * nrhs && isfinite(x[bad])) bad++;
    if (o->out_file && bad < n * nrhs) {
        /* a NaN iterate cannot be written (Matrix Market has no NaN); say so, keep status 1 */
        fprintf(stderr, "cgsolve: not writing %s: the iterate holds NaN or Inf\n", o->out_file);
    } else if (o->out_file && strcmp(o->out_file, "-") == 0) {
        if ((rc = write_stdout(ctx, o, n, nrhs, x)) >= 0) return rc;
    } else if (o->out_file && (st = mpcg_dense_write_mm(ctx, o->out_file, n, nrhs, x))) {
        return cgsolve_fail(ctx, o, st, o->out_file);
    }
    return all.converged ? EXIT_CONVERGED : EXIT_NOT_CONVERGED;
}

static int run(const options *o)
{
    mpcg_context *ctx = NULL;
    mpcg_matrix *A = NULL;
    mpcg_solver *S = NULL;
    double *b = NULL, *x = NULL; /* from mpcg_dense_read_mm_rows (mpcg_free) if from a file */
    mpcg_info *infos = calloc(64, sizeof *infos);
    mpcg_backend_choice *choice = calloc(1, sizeof *choice);
    mpcg_status st;
    cgsolve_checks checks = {0};
    cgsolve_progress prog;
    double bnorm = 0.0;
    int rc, nrhs = 1;

    if (!infos || !choice) {
        fprintf(stderr, "cgsolve: out of memory\n");
        return EXIT_FAILURE_OTHER;
    }
    if ((rc = cgsolve_open_context(o, &ctx)) >= 0 ||
        (rc = cgsolve_load_matrix(ctx, o, &A, &st)) >= 0 ||
        (rc = check_matrix(ctx, A, o, &checks)) >= 0 ||
        (rc = make_vectors(ctx, A, o, &b, &x, &nrhs)) >= 0)
        goto done;
    for (int64_t i = 0; i < mpcg_matrix_n(A); i++) bnorm += b[i] * b[i];
    bnorm = sqrt(bnorm);
    prog.target = cgsolve_stop_level(o, bnorm);
    if ((rc = solve(ctx, A, o, b, x, nrhs, &S, infos, choice,
                    progress_wanted(o, nrhs) ? &prog : NULL)) >= 0)
        goto done;
    rc = report(ctx, A, S, o, &checks, nrhs, infos, x, bnorm, choice);
done:
    if (o->rhs_file) mpcg_free(b);
    else free(b);
    if (o->x0_file) mpcg_free(x);
    else free(x);
    free(infos);
    free(choice);
    mpcg_solver_destroy(S);
    mpcg_matrix_destroy(A);
    mpcg_context_destroy(ctx);
    return rc;
}

/* What can be checked before any matrix is read: output paths, options, the thread count. */
static int prepare(const options *o)
{
    int rc;
    if (o->out_file && strcmp(o->out_file, "-") != 0 &&
        (rc = cgsolve_check_writable("-o", o->out_file)) >= 0)
        return rc;
    if (o->json_file && strcmp(o->json_file, "-") != 0 &&
        (rc = cgsolve_check_writable("--json", o->json_file)) >= 0)
        return rc;
    if (o->history_file && (rc = cgsolve_check_writable("--history", o->history_file)) >= 0)
        return rc;
    if (o->plot_file && (rc = cgsolve_check_writable("--plot", o->plot_file)) >= 0) return rc;
    if (o->threads > 0) {
#ifdef _OPENMP
        omp_set_num_threads(o->threads); /* before the context, which reports the count */
#else
        if (!o->quiet) fprintf(stderr, "cgsolve: --threads has no effect: built without OpenMP\n");
#endif
    }
    return check_options_early(o);
}

int main(int argc, char **argv)
{
    options o = {.tol = 1e-8, .maxit = -1, .seed = 1};
    int rc = cgsolve_parse_args(argc, argv, &o);
    if (rc >= 0) return rc;
    if ((rc = prepare(&o)) >= 0) return rc;
    return o.info ? cgsolve_info(&o) : o.batch ? cgsolve_batch(&o) : run(&o);
}
