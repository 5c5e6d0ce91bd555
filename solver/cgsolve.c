/* solver/cgsolve.c: the cgsolve command: read or generate A, solve A x = b with CG, report */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/rng.h"
#include "mpcg.h"

#include "solver/cgsolve.h"

static const char usage_text[] =
    "usage: cgsolve [options] A.mtx\n"
    "       cgsolve [options] --generate=SPEC\n"
    "       cgsolve --info [--json=FILE] A.mtx\n"
    "Solve A x = b with the conjugate gradient method; A must be symmetric positive definite.\n"
    "\n"
    "input:\n"
    "  A.mtx                 Matrix Market file (.mtx or .mtx.gz): coordinate or array; real,\n"
    "                        integer or pattern; general, symmetric or skew-symmetric\n"
    "  --generate=SPEC       poisson2d:N (5-point), poisson3d:N (7-point), poisson3d27:N\n"
    "  -b, --rhs-file=FILE   right-hand side from a Matrix Market vector file\n"
    "  --rhs=KIND            ones (default), random (uniform in [-1, 1)), Aones (b = A * ones)\n"
    "  --seed=N              seed of --rhs=random (default 1)\n"
    "  --x0=FILE             initial guess from a Matrix Market vector file (default zero)\n"
    "  --check-symmetry      fail unless A equals its transpose exactly (without it, a\n"
    "                        non-symmetric A gets a warning on stderr)\n"
    "  --info                read and validate A without solving: size, symmetry, diagonal,\n"
    "                        row lengths, each backend's storage (with --json too); exit 0 if\n"
    "                        A is valid, 3 with the parse error if not\n"
    "solver:\n"
    "  --tol=T               relative tolerance on the true residual ||b - A x|| / ||b||\n"
    "                        (default 1e-8)\n"
    "  --maxit=N             maximum iterations (default max(100, 10 n))\n"
    "  --spmv=NAME           SpMV backend (default auto; see --list-backends)\n"
    "  --precision=P         fp64 (the only precision of this version)\n"
    "  --device=D            auto (default: first GPU, else the CPU), cpu, cuda, cuda:N\n"
    "  --check-interval=K    GPU: read the residual every K iterations (default 0:\n"
    "                        adaptive); results and iteration counts do not depend on K\n"
    "  --device-memory-limit=BYTES\n"
    "                        cap the GPU memory mpcg may hold (suffix K, M, G or T: powers\n"
    "                        of 1024; 0: no cap); beyond it setup fails as out of memory\n"
    "output:\n"
    "  -o, --output=FILE     write the solution x as a Matrix Market vector (%.17g)\n"
    "  --json=FILE           machine-readable report (docs/json-report.md); - for stdout\n"
    "  --monitor[=K]         print the recurrence residual every K iterations (default 1)\n"
    "  -q, --quiet           print nothing but errors and warnings\n"
    "  -v, --verbose         errors with the library's source location and call frames\n"
    "  --list-backends       list the SpMV backends of this build and exit\n"
    "  -h, --help            this text\n"
    "  -V, --version         the version\n"
    "\n"
    "exit status: 0 converged, 1 not converged (max iterations, breakdown, indefinite, NaN,\n"
    "stagnation), 2 bad usage, 3 bad input (unreadable or malformed file, wrong sizes, not\n"
    "symmetric with --check-symmetry), 4 other errors (device, memory).\n";

static int usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, "cgsolve: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\nTry 'cgsolve --help'.\n");
    return EXIT_USAGE;
}

static int parse_double(const char *s, double *out)
{
    char *end;
    errno = 0;
    *out = strtod(s, &end);
    return errno == 0 && end != s && *end == '\0' && isfinite(*out);
}

static int parse_i64(const char *s, int64_t *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    *out = v;
    return errno == 0 && end != s && *end == '\0';
}

/* BYTES with an optional suffix K, M, G or T (powers of 1024, either case). */
static int parse_bytes(const char *s, size_t *out)
{
    char *end;
    if (*s < '0' || *s > '9') return 0;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s) return 0;
    int shift = 0;
    switch (*end) {
    case 'k': case 'K': shift = 10; end++; break;
    case 'm': case 'M': shift = 20; end++; break;
    case 'g': case 'G': shift = 30; end++; break;
    case 't': case 'T': shift = 40; end++; break;
    default: break;
    }
    if (*end != '\0' || v > (SIZE_MAX >> shift)) return 0;
    *out = (size_t)v << shift;
    return 1;
}

static int list_backends(void)
{
    printf("%-12s %-11s %-8s %-13s %s\n", "name", "precisions", "runs on", "deterministic",
           "description");
    for (int i = 0; i < mpcg_backend_count(); i++) {
        mpcg_backend_info b;
        if (mpcg_backend_get(i, &b) != MPCG_SUCCESS) continue;
        char prec[16] = "";
        if (b.caps & MPCG_CAP_FP64) strcat(prec, "fp64");
        if (b.caps & MPCG_CAP_FP32) strcat(prec, *prec ? ",fp32" : "fp32");
        printf("%-12s %-11s %-8s %-13s %s%s\n", b.name, prec,
               b.caps & MPCG_CAP_NEEDS_DEVICE ? "gpu" : "cpu",
               b.caps & MPCG_CAP_DETERMINISTIC ? "yes" : "no", b.description,
               b.caps & MPCG_CAP_CPU_EMULATION ? " (CPU emulation with --device=cpu)" : "");
    }
    printf("%-12s %-11s %-8s %-13s %s\n", "auto", "-", "-", "-",
           "cusparse on a GPU, cpu on the CPU");
    return EXIT_CONVERGED;
}

/* Returns -1 to go on, else the exit status. */
static int parse_args(int argc, char **argv, options *o)
{
    enum { O_GEN = 256, O_RHS, O_SEED, O_X0, O_TOL, O_MAXIT, O_SPMV, O_PREC, O_DEV, O_JSON,
           O_MON, O_LIST, O_SYM, O_INFO, O_MEMLIM, O_CHECK };
    static const struct option longs[] = {
        {"generate", required_argument, 0, O_GEN}, {"rhs-file", required_argument, 0, 'b'},
        {"rhs", required_argument, 0, O_RHS},       {"seed", required_argument, 0, O_SEED},
        {"x0", required_argument, 0, O_X0},         {"tol", required_argument, 0, O_TOL},
        {"maxit", required_argument, 0, O_MAXIT},   {"spmv", required_argument, 0, O_SPMV},
        {"precision", required_argument, 0, O_PREC}, {"device", required_argument, 0, O_DEV},
        {"output", required_argument, 0, 'o'},      {"json", required_argument, 0, O_JSON},
        {"monitor", optional_argument, 0, O_MON},   {"quiet", no_argument, 0, 'q'},
        {"verbose", no_argument, 0, 'v'},
        {"list-backends", no_argument, 0, O_LIST},  {"check-symmetry", no_argument, 0, O_SYM},
        {"info", no_argument, 0, O_INFO},
        {"device-memory-limit", required_argument, 0, O_MEMLIM},
        {"check-interval", required_argument, 0, O_CHECK},
        {"help", no_argument, 0, 'h'},              {"version", no_argument, 0, 'V'},
        {0, 0, 0, 0}};
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":b:o:qvhV", longs, NULL)) != -1) {
        switch (c) {
        case O_GEN: o->generate = optarg; break;
        case 'b': o->rhs_file = optarg; break;
        case O_RHS:
            if (strcmp(optarg, "ones") && strcmp(optarg, "random") && strcmp(optarg, "Aones"))
                return usage_error("--rhs=%s: expected ones, random or Aones", optarg);
            o->rhs_kind = optarg;
            break;
        case O_SEED: {
            int64_t v;
            if (!parse_i64(optarg, &v) || v < 0)
                return usage_error("--seed=%s: expected a non-negative integer", optarg);
            o->seed = (uint64_t)v;
            break;
        }
        case O_X0: o->x0_file = optarg; break;
        case O_TOL:
            if (!parse_double(optarg, &o->tol) || o->tol <= 0 || o->tol >= 1)
                return usage_error("--tol=%s: expected a number in (0, 1)", optarg);
            break;
        case O_MAXIT:
            if (!parse_i64(optarg, &o->maxit) || o->maxit < 0)
                return usage_error("--maxit=%s: expected a non-negative integer", optarg);
            break;
        case O_SPMV: o->spmv = optarg; break;
        case O_PREC:
            if (strcmp(optarg, "fp64"))
                return usage_error("--precision=%s: this version solves in fp64 only", optarg);
            break;
        case O_DEV: o->device = optarg; break;
        case 'o': o->out_file = optarg; break;
        case O_JSON: o->json_file = optarg; break;
        case O_MON:
            o->monitor = 1;
            if (optarg && (!parse_i64(optarg, &o->monitor) || o->monitor < 1))
                return usage_error("--monitor=%s: expected a positive integer", optarg);
            break;
        case 'q': o->quiet = 1; break;
        case 'v': o->verbose = 1; break;
        case O_LIST: return list_backends();
        case O_SYM: o->check_symmetry = 1; break;
        case O_INFO: o->info = 1; break;
        case O_MEMLIM:
            if (!parse_bytes(optarg, &o->device_memory_limit))
                return usage_error("--device-memory-limit=%s: expected a byte count such as "
                                   "1048576, 512M or 2G", optarg);
            o->memory_limit_set = 1;
            break;
        case O_CHECK:
            if (!parse_i64(optarg, &o->check_interval) || o->check_interval < 0)
                return usage_error("--check-interval=%s: expected a non-negative integer "
                                   "(0: adaptive)", optarg);
            break;
        case 'h': fputs(usage_text, stdout); return EXIT_CONVERGED;
        case 'V': printf("cgsolve (mpcg) %d.%d.%d\n", MPCG_VERSION_MAJOR, MPCG_VERSION_MINOR,
                         MPCG_VERSION_PATCH);
                  return EXIT_CONVERGED;
        case ':': return usage_error("option %s needs a value", argv[optind - 1]);
        default: return usage_error("unknown option %s", argv[optind - 1]);
        }
    }
    if (optind < argc) o->matrix = argv[optind++];
    if (optind < argc) return usage_error("unexpected argument %s", argv[optind]);
    if (!o->matrix == !o->generate)
        return usage_error("%s", o->matrix ? "give either A.mtx or --generate, not both"
                                           : "no matrix: give A.mtx or --generate=SPEC");
    if (o->rhs_file && o->rhs_kind)
        return usage_error("%s", "give either -b FILE or --rhs=KIND, not both");
    if (o->info && (o->rhs_file || o->rhs_kind || o->x0_file || o->out_file || o->monitor))
        return usage_error("%s", "--info solves nothing: it takes no -b, --rhs, --x0, -o or "
                                 "--monitor");
    return -1;
}

const char *cgsolve_error_text(const char *msg, int *len)
{
    /* "<file>:<line>: <function>: <text>\n  called from ..." */
    const char *text = strstr(msg, ": ");
    text = text ? strstr(text + 2, ": ") : NULL;
    text = text ? text + 2 : msg;
    *len = (int)strcspn(text, "\n");
    return text;
}

/* Exit status for a failed library call; prints the library's message: without --verbose only
 * its text ("A.mtx:4: row index 3 out of range [1, 2]"), not the source location and frames. */
int cgsolve_fail(const mpcg_context *ctx, const options *o, mpcg_status st, const char *what)
{
    const char *msg = mpcg_last_error(ctx);
    if (o->verbose) {
        fprintf(stderr, "cgsolve: %s: %s\n%s\n", what, mpcg_status_string(st), msg);
    } else {
        int len;
        const char *text = cgsolve_error_text(msg, &len);
        fprintf(stderr, "cgsolve: %.*s\n", len, text);
    }
    switch (st) {
    case MPCG_ERR_IO:
    case MPCG_ERR_PARSE: return EXIT_INPUT;
    case MPCG_ERR_INVALID_ARG:
    case MPCG_ERR_NOT_SUPPORTED: return EXIT_INPUT;
    default: return EXIT_FAILURE_OTHER;
    }
}

/* Read a vector file of exactly n entries into a new array. */
static int read_vector(mpcg_context *ctx, const options *o, const char *path, int64_t n,
                       const char *what, double **out)
{
    int64_t m;
    mpcg_status st = mpcg_vector_read_mm(ctx, path, &m, out);
    if (st != MPCG_SUCCESS) return cgsolve_fail(ctx, o, st, what);
    if (m != n) {
        fprintf(stderr, "cgsolve: %s %s has %lld entries, but A has %lld rows\n", what, path,
                (long long)m, (long long)n);
        mpcg_free(*out);
        *out = NULL;
        return EXIT_INPUT;
    }
    return -1;
}

/* b = ones, random in [-1, 1), or A * ones. */
static void make_rhs(const mpcg_matrix *A, const char *kind, uint64_t seed, double *b)
{
    int64_t n = mpcg_matrix_n(A);
    if (strcmp(kind, "random") == 0) {
        mpcgi_rng g;
        mpcgi_rng_seed(&g, seed);
        for (int64_t i = 0; i < n; i++) b[i] = 2.0 * mpcgi_rng_uniform(&g) - 1.0;
    } else if (strcmp(kind, "Aones") == 0) {
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

static void print_monitor(int64_t it, double relres, void *user)
{
    (void)user;
    printf("  iteration %8lld  recurrence relres %.6e\n", (long long)it, relres);
}

static int run(const options *o)
{
    mpcg_context *ctx = NULL;
    mpcg_matrix *A = NULL;
    mpcg_solver *S = NULL;
    double *b = NULL, *x = NULL; /* from mpcg_vector_read_mm (mpcg_free) if read from a file */
    mpcg_info info;
    mpcg_status st;
    cgsolve_checks checks = {0};
    int rc = -1;

    if ((st = mpcg_context_create(o->device, &ctx)) != MPCG_SUCCESS) {
        rc = cgsolve_fail(NULL, o, st, "cannot use the device");
        goto done;
    }
    if (!o->quiet && (!o->device || strcmp(o->device, "auto") == 0) &&
        mpcg_context_device_kind(ctx) == MPCG_DEVICE_CPU)
        fprintf(stderr, "cgsolve: no usable GPU found, running on the CPU\n");
    if (o->memory_limit_set) {
        if ((st = mpcg_context_set_device_memory_limit(ctx, o->device_memory_limit))) {
            rc = cgsolve_fail(ctx, o, st, "--device-memory-limit");
            goto done;
        }
        if (!o->quiet && mpcg_context_device_kind(ctx) == MPCG_DEVICE_CPU)
            fprintf(stderr, "cgsolve: --device-memory-limit has no effect on the CPU\n");
    }
    st = o->generate ? mpcg_matrix_generate(ctx, o->generate, &A)
                     : mpcg_matrix_read_mm(ctx, o->matrix, &A);
    if (st != MPCG_SUCCESS) {
        rc = cgsolve_fail(ctx, o, st, o->generate ? o->generate : o->matrix);
        goto done;
    }
    if ((st = mpcg_matrix_check(A, 0)) != MPCG_SUCCESS ||
        (o->check_symmetry && (st = mpcg_matrix_check(A, MPCG_CHECK_SYMMETRY)))) {
        rc = cgsolve_fail(ctx, o, st, "invalid matrix");
        goto done;
    }
    /* CG needs a symmetric matrix: checked always (O(nnz log)), an error only when asked */
    checks.symmetric = 1;
    if (!o->check_symmetry && mpcg_matrix_check(A, MPCG_CHECK_SYMMETRY) != MPCG_SUCCESS) {
        int len;
        const char *text = cgsolve_error_text(mpcg_last_error(ctx), &len);
        checks.symmetric = 0;
        snprintf(checks.warning, sizeof checks.warning,
                 "%.*s: CG may fail or return a wrong x (--check-symmetry makes this an error)",
                 len, text);
        fprintf(stderr, "cgsolve: warning: %s\n", checks.warning);
        mpcg_clear_error(ctx);
    }
    int64_t n = mpcg_matrix_n(A);
    if (o->rhs_file) {
        if ((rc = read_vector(ctx, o, o->rhs_file, n, "right-hand side", &b)) >= 0) goto done;
    } else {
        if (!(b = malloc((size_t)n * sizeof *b))) {
            fprintf(stderr, "cgsolve: out of memory for b (%lld doubles)\n", (long long)n);
            rc = EXIT_FAILURE_OTHER;
            goto done;
        }
        make_rhs(A, o->rhs_kind ? o->rhs_kind : "ones", o->seed, b);
    }
    if (o->x0_file) {
        if ((rc = read_vector(ctx, o, o->x0_file, n, "initial guess", &x)) >= 0) goto done;
    } else if (!(x = calloc((size_t)n, sizeof *x))) {
        fprintf(stderr, "cgsolve: out of memory for x (%lld doubles)\n", (long long)n);
        rc = EXIT_FAILURE_OTHER;
        goto done;
    }
    if ((st = mpcg_solver_create(ctx, A, &S)) != MPCG_SUCCESS ||
        (o->spmv && (st = mpcg_solver_set_spmv(S, o->spmv)) != MPCG_SUCCESS) ||
        (st = mpcg_solver_set_tol(S, o->tol)) != MPCG_SUCCESS ||
        (o->maxit >= 0 && (st = mpcg_solver_set_maxit(S, o->maxit)) != MPCG_SUCCESS) ||
        (st = mpcg_solver_set_check_interval(S, o->check_interval)) != MPCG_SUCCESS ||
        (o->x0_file && (st = mpcg_solver_set_initial_guess(S, MPCG_GUESS_PROVIDED))) ||
        (o->monitor && !o->quiet &&
         (st = mpcg_solver_set_monitor(S, o->monitor, print_monitor, NULL))) ||
        (st = mpcg_solver_setup(S)) != MPCG_SUCCESS ||
        (st = mpcg_solve(S, b, x, &info)) != MPCG_SUCCESS) {
        rc = cgsolve_fail(ctx, o, st, "solve failed");
        goto done;
    }
    if (!o->quiet) cgsolve_print_summary(ctx, A, o, &info);
    if (o->json_file && !cgsolve_write_json(ctx, A, o, &checks, &info)) {
        rc = EXIT_FAILURE_OTHER;
        goto done;
    }
    int64_t bad = 0;
    while (o->out_file && bad < n && isfinite(x[bad])) bad++;
    if (o->out_file && bad < n) {
        /* a NaN iterate cannot be written (Matrix Market has no NaN); say so, keep status 1 */
        fprintf(stderr, "cgsolve: not writing %s: the iterate holds NaN or Inf\n", o->out_file);
    } else if (o->out_file && (st = mpcg_vector_write_mm(ctx, o->out_file, n, x))) {
        rc = cgsolve_fail(ctx, o, st, o->out_file);
        goto done;
    }
    rc = info.converged ? EXIT_CONVERGED : EXIT_NOT_CONVERGED;
done:
    if (o->rhs_file) mpcg_free(b);
    else free(b);
    if (o->x0_file) mpcg_free(x);
    else free(x);
    mpcg_solver_destroy(S);
    mpcg_matrix_destroy(A);
    mpcg_context_destroy(ctx);
    return rc;
}

int main(int argc, char **argv)
{
    options o = {.tol = 1e-8, .maxit = -1, .seed = 1};
    int rc = parse_args(argc, argv, &o);
    if (rc >= 0) return rc;
    return o.info ? cgsolve_info(&o) : run(&o);
}
