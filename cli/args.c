/* cli/args.c: cgsolve's command line: usage, parsing and checking, the listings */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpcg.h"

#include "cli/cgsolve.h"

static const char usage_text[] =
    "usage: cgsolve [options] A.mtx\n"
    "       cgsolve [options] --generate=SPEC\n"
    "       cgsolve [options] --batch=DIR|FILE,FILE,...\n"
    "       cgsolve --info [--json=FILE] A.mtx\n"
    "Solve A x = b with the conjugate gradient method; A must be symmetric positive definite.\n"
    "\n"
    "input:\n"
    "  A.mtx                 Matrix Market file (.mtx or .mtx.gz): coordinate or array; real,\n"
    "                        integer or pattern; general, symmetric or skew-symmetric\n"
    "  --generate=SPEC       poisson2d:N (5-point), poisson3d:N (7-point), poisson3d27:N,\n"
    "                        replicate:FILE:K[:perm], powerlaw:N:DEG, biased:N (row 0 dense,\n"
    "                        the other rows their diagonal: not symmetric, an SpMV stress test)\n"
    "  -b, --rhs-file=FILE   right-hand side(s) from a Matrix Market file: n x 1, or n x S\n"
    "                        (S <= 64 columns: solved together by block CG, docs/block.md)\n"
    "  --rhs=KIND[:S]        ones (default), random (uniform in [-1, 1)), Aones (b = A * ones);\n"
    "                        :S makes S columns (random: the stream continues column to\n"
    "                        column; ones, Aones: S equal columns) for block CG\n"
    "  --seed=N              seed of --rhs=random (default 1)\n"
    "  --x0=FILE             initial guess from a Matrix Market vector file (default zero)\n"
    "  --check-symmetry      fail unless A equals its transpose exactly (without it, a\n"
    "                        non-symmetric A gets a warning on stderr)\n"
    "  --info                read and validate A without solving: size, symmetry, diagonal,\n"
    "                        row lengths, each backend's storage (with --json too); exit 0 if\n"
    "                        A is valid, 3 with the parse error if not\n"
    "  --batch=DIR|LIST      many small systems solved together by batched CG\n"
    "                        (docs/batched.md): every *.mtx and *.mtx.gz of directory DIR\n"
    "                        (by name), or the comma-separated files of LIST; each at most\n"
    "                        16384 rows. b: --rhs=ones (default) or random (one stream over\n"
    "                        the systems in order); x0 = 0; --precond=auto (default, as\n"
    "                        for one system), none or jacobi; --precision=fp64 only; --tol,\n"
    "                        --maxit (per system), --device apply. A summary (-v: a line per\n"
    "                        system); exit 1 if any system did not converge. Takes no A.mtx,\n"
    "                        --generate, -b, --rhs=Aones or :S > 1, --x0, -o, --spmv, -O,\n"
    "                        --ooc, --monitor, --history, --plot, --check-interval or --info\n"
    "solver:\n";

/* the solver part of --help (one string would pass C99's 4095 characters) */
static const char usage_rest[] =
    "  --tol=T               relative tolerance on the true residual ||b - A x|| / ||b||\n"
    "                        (default 1e-8)\n"
    "  --atol=A              absolute tolerance: converged when ||b - A x|| <= max(T ||b||, A)\n"
    "                        (default 0: T alone; reason MPCG_CONVERGED_ATOL where A decided)\n"
    "  --maxit=N             maximum iterations (default max(100, 10 n))\n"
    "  --spmv=NAME           SpMV backend (default auto: on a GPU, each candidate's plan is\n"
    "                        built and a few SpMVs timed at setup, the fastest counting its\n"
    "                        setup is kept and the decision cached per matrix; -v shows the\n"
    "                        trial; -O auto.*; see --list-backends)\n"
    "  --cache-dir=DIR       where auto's decisions are kept (default $XDG_CACHE_HOME/mpcg,\n"
    "                        else $HOME/.cache/mpcg; \"\": none; -O auto.cache=off: not used)\n"
    "  --precision=P         fp64 (default), fp32 or mixed. fp32: single-precision values\n"
    "                        and vectors, sums in double, checked with the fp64 true\n"
    "                        residual (a tol beyond fp32's reach, about 1e-7 x cond(A):\n"
    "                        1e-4 for cond(A) = 1e3, ends \"stagnation\" with the residual\n"
    "                        reached and a hint; use mixed for such a tol). mixed: fp32\n"
    "                        iterations on hi = (float)a with x in fp64, the residual\n"
    "                        replaced by the fp64 true residual (hi + lo values) as it\n"
    "                        falls: fp64's answer; fp64 to the end if fp32 stops improving\n"
    "                        (-O mixed.strategy=reliable|refinement; docs/precision.md)\n"
    "  --precond=M           auto (default: jacobi, or none when A's diagonal is constant),\n"
    "                        none (plain CG), jacobi,\n"
    "                        bjacobi[:B] (diagonal blocks of B rows, default 48, inverted at\n"
    "                        setup with LAPACKE; B = 0: node blocks detected from the\n"
    "                        pattern) or\n"
    "                        chebyshev[:D] (degree D polynomial in D^-1 A, default 3); a\n"
    "                        diagonal entry <= 0 is an error naming the row; on a GPU\n"
    "                        every kind runs inside the fused iteration in every precision\n"
    "                        (docs/preconditioners.md)\n"
    "  --device=D            auto (default: first GPU, else the CPU), cpu, cuda, cuda:N\n"
    "  --threads=N           OpenMP threads of the CPU path, N >= 1 (default: OMP_NUM_THREADS,\n"
    "                        else one per core)\n"
    "  --check-interval=K    GPU: read the residual every K iterations (default 0:\n"
    "                        adaptive); results and iteration counts do not depend on K\n"
    "  -O KEY=VALUE          set a tuning option (repeatable, applied in order after the\n"
    "                        options above); --help-options lists the keys\n"
    "  --ooc                 with --spmv=gather on a GPU: the matrix in pinned host memory,\n"
    "                        streamed in chunks sized to the device memory (sets -O\n"
    "                        gather.ooc=on; fp64 only; docs/backends/fold.md); refused with a\n"
    "                        backend that cannot stream, --device=cpu or no GPU\n"
    "  --device-memory-limit=BYTES\n"
    "                        cap the GPU memory mpcg may hold (suffix K, M, G or T: powers\n"
    "                        of 1024; 0: no cap); beyond it setup fails as out of memory\n";

/* --help's output, environment and exit status */
static const char usage_out[] =
    "output:\n"
    "  -o, --output=FILE     write the solution x as a Matrix Market vector (%.17g); - for\n"
    "                        stdout (the summary and the monitor then go to stderr)\n"
    "  --json=FILE           machine-readable report (docs/json-report.md); - for stdout\n"
    "  --history=FILE        the residual history as CSV: iteration, recurrence relres,\n"
    "                        true relres (empty where not computed), seconds since the\n"
    "                        solve began; every iteration on the CPU, every check window on\n"
    "                        a GPU (--check-interval=1: every iteration; docs/history.md);\n"
    "                        several right-hand sides: every column's, the first field the\n"
    "                        column\n"
    "  --plot=FILE           the same as an SVG plot: log10 relative residual against the\n"
    "                        iteration, the true residuals as circles, the stopping level\n"
    "                        dashed (self-contained: no script, font or link); a curve\n"
    "                        per column with several right-hand sides\n"
    "  --monitor[=K]         print the recurrence residual every K iterations (default 1;\n"
    "                        each column's with several right-hand sides; on stderr with\n"
    "                        --json=- or -o -)\n"
    "  -q, --quiet           print nothing but errors and warnings (on a terminal cgsolve\n"
    "                        otherwise shows a progress line on stderr while it solves,\n"
    "                        also off with --monitor)\n"
    "  -v, --verbose         the CG variant that ran and why, how auto chose the backend\n"
    "                        (each candidate's setup and SpMV time), a note when a CUDA build\n"
    "                        finds no usable GPU; errors with the library's source location\n"
    "                        and call frames (without -v: the message alone)\n"
    "  --list-backends       list the SpMV backends of this build and exit\n"
    "  --help-options        list the -O keys with their defaults and ranges and exit\n"
    "  -h, --help            this text\n"
    "  -V, --version         the version\n"
    "\n"
    "environment:\n"
    "  OMP_NUM_THREADS       OpenMP threads of the CPU path (--threads overrides it)\n"
    "  MPCG_OPTIONS          \"key=value,key=value\": -O options applied first, by the library\n"
    "                        (a bad key or value: exit 2, as a bad -O)\n"
    "  XDG_CACHE_HOME, HOME  the default --cache-dir\n"
    "\n"
    "exit status: 0 converged, 1 not converged (max iterations, breakdown, indefinite, NaN,\n"
    "stagnation; with --batch: a system did not converge), 2 bad usage (also an unknown -O or\n"
    "MPCG_OPTIONS key or value, --spmv, --device or --generate), 3 bad input (unreadable or\n"
    "malformed file, wrong sizes, not symmetric with --check-symmetry, an -o or --json path that\n"
    "cannot be written, a precision this version does not run), 4 other errors (device,\n"
    "memory).\n";

static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "cgsolve: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\nTry 'cgsolve --help'.\n");
    va_end(ap);
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

/* "auto, cpu, cusparse, ..." */
static void backend_names(char *buf, size_t size)
{
    size_t len = (size_t)snprintf(buf, size, "auto");
    for (int i = 0; i < mpcg_backend_count() && len < size; i++) {
        mpcg_backend_info b;
        if (mpcg_backend_get(i, &b) == MPCG_SUCCESS)
            len += (size_t)snprintf(buf + len, size - len, ", %s", b.name);
    }
}

/* The capabilities of the registered backend NAME in *caps: 1, or 0 where there is none. */
static int backend_caps(const char *name, unsigned *caps)
{
    for (int i = 0; i < mpcg_backend_count(); i++) {
        mpcg_backend_info b;
        if (mpcg_backend_get(i, &b) == MPCG_SUCCESS && strcmp(b.name, name) == 0) {
            *caps = b.caps;
            return 1;
        }
    }
    return 0;
}

static int known_backend(const char *name)
{
    unsigned caps;
    return strcmp(name, "auto") == 0 || backend_caps(name, &caps);
}

/* Whether backend NAME streams its matrix from host memory (NAME.ooc=on). */
static int streams_ooc(const char *name)
{
    unsigned caps = 0;
    return backend_caps(name, &caps) && (caps & MPCG_CAP_OUT_OF_CORE);
}

/* auto, cpu, cuda or cuda:N (the forms mpcg_context_create accepts). */
static int valid_device(const char *d)
{
    if (!strcmp(d, "auto") || !strcmp(d, "cpu") || !strcmp(d, "cuda")) return 1;
    if (strncmp(d, "cuda:", 5) != 0 || d[5] < '0' || d[5] > '9') return 0;
    int64_t id;
    return parse_i64(d + 5, &id) && id >= 0 && id <= 1023;
}

/* The precisions a CG solve runs in with this library (not only what the SpMV kernels have):
 * asked of a solver on a 1 x 1 matrix, so the listing follows the library. */
static void solve_precisions(int runs[3])
{
    mpcg_context *ctx = NULL;
    mpcg_matrix *A = NULL;
    mpcg_solver *S = NULL;
    runs[0] = 1, runs[1] = runs[2] = 0;
    if (mpcg_context_create("cpu", &ctx) == MPCG_SUCCESS &&
        mpcg_matrix_generate(ctx, "poisson2d:1", &A) == MPCG_SUCCESS &&
        mpcg_solver_create(ctx, A, &S) == MPCG_SUCCESS)
        for (int p = MPCG_PRECISION_FP32; p <= MPCG_PRECISION_MIXED; p++)
            runs[p] = mpcg_solver_set_precision(S, (mpcg_precision)p) == MPCG_SUCCESS &&
                      mpcg_solver_setup(S) == MPCG_SUCCESS;
    mpcg_solver_destroy(S);
    mpcg_matrix_destroy(A);
    mpcg_context_destroy(ctx);
}

static int list_backends(void)
{
    int runs[3];
    solve_precisions(runs);
    printf("%-12s %-16s %-8s %-13s %s\n", "name", "precisions", "runs on", "deterministic",
           "description");
    for (int i = 0; i < mpcg_backend_count(); i++) {
        mpcg_backend_info b;
        if (mpcg_backend_get(i, &b) != MPCG_SUCCESS) continue;
        char prec[24] = "";
        if ((b.caps & MPCG_CAP_FP64) && runs[MPCG_PRECISION_FP64]) strcat(prec, "fp64");
        if ((b.caps & MPCG_CAP_FP32) && runs[MPCG_PRECISION_FP32])
            strcat(prec, *prec ? ",fp32" : "fp32");
        if ((b.caps & MPCG_CAP_MIXED_STORE) && runs[MPCG_PRECISION_MIXED])
            strcat(prec, *prec ? ",mixed" : "mixed");
        printf("%-12s %-16s %-8s %-13s %s%s%s\n", b.name, *prec ? prec : "-",
               b.caps & MPCG_CAP_NEEDS_DEVICE ? "gpu" : "cpu",
               b.caps & MPCG_CAP_DETERMINISTIC ? "yes" : "no", b.description,
               b.caps & MPCG_CAP_CPU_EMULATION ? " (CPU emulation with --device=cpu)" : "",
               b.caps & MPCG_CAP_OUT_OF_CORE ? " (out-of-core on a GPU with --ooc)" : "");
    }
    const char *on_cpu = mpcg_backend_auto(MPCG_DEVICE_CPU);
    const char *on_gpu = mpcg_backend_auto(MPCG_DEVICE_CUDA);
    printf("%-12s %-16s %-8s %-13s on a GPU the fastest candidate, timed at setup (first %s); %s "
           "on the CPU\n",
           "auto", "-", "-", "-", on_gpu ? on_gpu : "none", on_cpu ? on_cpu : "none");
    return EXIT_CONVERGED;
}

/* One line per key: the key, its default, its range and what it does, in aligned columns. */
static int help_options(void)
{
    int wk = (int)strlen("key"), wd = (int)strlen("default"), wr = (int)strlen("range");
    mpcg_option_info k;
    for (int i = 0; i < mpcg_option_count(); i++) {
        if (mpcg_option_get(i, &k) != MPCG_SUCCESS) continue;
        if ((int)strlen(k.key) > wk) wk = (int)strlen(k.key);
        if ((int)strlen(k.default_value) > wd) wd = (int)strlen(k.default_value);
        if ((int)strlen(k.range) > wr) wr = (int)strlen(k.range);
    }
    printf("%-*s  %-*s  %-*s  %s\n", wk, "key", wd, "default", wr, "range", "description");
    for (int i = 0; i < mpcg_option_count(); i++)
        if (mpcg_option_get(i, &k) == MPCG_SUCCESS)
            printf("%-*s  %-*s  %-*s  %s\n", wk, k.key, wd, k.default_value, wr, k.range,
                   k.description);
    return EXIT_CONVERGED;
}

/* The value options that check their argument: -1 to go on, else the exit status. */
static int value_option(int c, const char *arg, options *o);

enum { O_GEN = 256, O_RHS, O_SEED, O_X0, O_TOL, O_ATOL, O_MAXIT, O_SPMV, O_PREC, O_DEV, O_JSON, O_MON,
       O_LIST, O_SYM, O_INFO, O_MEMLIM, O_CHECK, O_THREADS, O_HELPOPT, O_PRECOND, O_OOC,
       O_HISTORY, O_PLOT, O_BATCH, O_CACHE };

static const struct option longs[] = {
    {"generate", required_argument, 0, O_GEN},   {"rhs-file", required_argument, 0, 'b'},
    {"rhs", required_argument, 0, O_RHS},        {"seed", required_argument, 0, O_SEED},
    {"x0", required_argument, 0, O_X0},          {"tol", required_argument, 0, O_TOL},
    {"atol", required_argument, 0, O_ATOL},
    {"maxit", required_argument, 0, O_MAXIT},    {"spmv", required_argument, 0, O_SPMV},
    {"precision", required_argument, 0, O_PREC}, {"device", required_argument, 0, O_DEV},
    {"precond", required_argument, 0, O_PRECOND},
    {"output", required_argument, 0, 'o'},       {"json", required_argument, 0, O_JSON},
    {"history", required_argument, 0, O_HISTORY}, {"plot", required_argument, 0, O_PLOT},
    {"monitor", optional_argument, 0, O_MON},    {"quiet", no_argument, 0, 'q'},
    {"verbose", no_argument, 0, 'v'},            {"list-backends", no_argument, 0, O_LIST},
    {"check-symmetry", no_argument, 0, O_SYM},   {"info", no_argument, 0, O_INFO},
    {"device-memory-limit", required_argument, 0, O_MEMLIM},
    {"ooc", no_argument, 0, O_OOC},              {"batch", required_argument, 0, O_BATCH},
    {"cache-dir", required_argument, 0, O_CACHE},
    {"check-interval", required_argument, 0, O_CHECK},
    {"threads", required_argument, 0, O_THREADS},
    {"help-options", no_argument, 0, O_HELPOPT}, {"help", no_argument, 0, 'h'},
    {"version", no_argument, 0, 'V'},            {0, 0, 0, 0}};

/* The first option given that --batch does not take, NULL if none. */
static const char *batch_refuses(const options *o)
{
    if (o->matrix || o->generate) return "A.mtx or --generate (the systems are DIR's or LIST's)";
    if (o->info) return "--info (it describes one matrix)";
    if (o->rhs_file) return "-b (b is --rhs=ones or --rhs=random)";
    if (o->rhs_kind && strncmp(o->rhs_kind, "ones", 4) && strncmp(o->rhs_kind, "random", 6))
        return "--rhs=Aones (b is --rhs=ones or --rhs=random)";
    if (o->nrhs > 1) return "--rhs=KIND:S (one right-hand side per system)";
    if (o->x0_file) return "--x0 (every system starts from x = 0)";
    if (o->out_file) return "-o";
    if (o->spmv) return "--spmv (the batch has its own kernels)";
    if (o->nset) return "-O (the batch has no tuning options)";
    if (o->ooc) return "--ooc";
    if (o->monitor) return "--monitor";
    if (o->check_interval_set) return "--check-interval";
    if (o->atol > 0) return "--atol (each system stops at tol ||b_i||)";
    if (o->history_file) return "--history (one history per solve)";
    if (o->plot_file) return "--plot (one history per solve)";
    if (o->precision_set && o->precision != MPCG_PRECISION_FP64)
        return o->precision == MPCG_PRECISION_FP32 ? "--precision=fp32 (it runs in fp64)"
                                                   : "--precision=mixed (it runs in fp64)";
    return NULL;
}

/* What the options say together. */
static int check_combination(const options *o)
{
    if (o->batch && batch_refuses(o))
        return usage_error("--batch takes no %s", batch_refuses(o));
    if (o->batch && o->precond_set && o->precond != MPCG_PRECOND_NONE &&
        o->precond != MPCG_PRECOND_JACOBI && o->precond != MPCG_PRECOND_AUTO)
        return usage_error("--precond=%s: --batch takes auto, none or jacobi",
                           mpcg_precond_name(o->precond));
    if (o->batch) return -1;
    if (!o->matrix == !o->generate)
        return usage_error("%s", o->matrix ? "give either A.mtx or --generate, not both"
                                           : "no matrix: give A.mtx or --generate=SPEC");
    if (o->out_file && o->json_file && !strcmp(o->out_file, "-") && !strcmp(o->json_file, "-"))
        return usage_error("%s", "-o - and --json=- both write to stdout: give one a file");
    if (o->rhs_file && o->rhs_kind)
        return usage_error("%s", "give either -b FILE or --rhs=KIND, not both");
    if (o->info && (o->rhs_file || o->rhs_kind || o->x0_file || o->out_file || o->monitor ||
                    o->history_file || o->plot_file))
        return usage_error("%s", "--info solves nothing: it takes no -b, --rhs, --x0, -o, "
                                 "--monitor, --history or --plot");
    if (o->ooc && (!o->spmv || !streams_ooc(o->spmv)))
        return usage_error("--ooc streams the matrix with an out-of-core SpMV backend: give "
                           "--spmv=NAME of one (--list-backends: \"out-of-core\")%s%s",
                           o->spmv ? "; not " : "", o->spmv ? o->spmv : "");
    if (o->ooc && o->device && strcmp(o->device, "cpu") == 0)
        return usage_error("%s", "--ooc streams the matrix to a GPU: it does not run with "
                                 "--device=cpu");
    if (o->info && (o->nset || o->precision_set || o->precond_set || o->ooc))
        return usage_error("%s", "--info describes A with the default options: it takes no -O, "
                                 "--precision or --precond");
    return -1;
}

int cgsolve_parse_args(int argc, char **argv, options *o)
{
    int c, rc;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":b:o:O:qvhV", longs, NULL)) != -1) {
        switch (c) {
        case 'b': o->rhs_file = optarg; break;
        case O_X0: o->x0_file = optarg; break;
        case 'o': o->out_file = optarg; break;
        case O_JSON: o->json_file = optarg; break;
        case O_HISTORY: o->history_file = optarg; break;
        case O_PLOT: o->plot_file = optarg; break;
        case 'q': o->quiet = 1; break;
        case 'v': o->verbose = 1; break;
        case O_SYM: o->check_symmetry = 1; break;
        case O_INFO: o->info = 1; break;
        case O_OOC: o->ooc = 1; break;
        case O_BATCH: o->batch = optarg; break;
        case O_CACHE: o->cache_dir = optarg; break;
        case O_LIST: return list_backends();
        case O_HELPOPT: return help_options();
        case 'h':
            fputs(usage_text, stdout), fputs(usage_rest, stdout), fputs(usage_out, stdout);
            return EXIT_CONVERGED;
        case 'V': printf("cgsolve (mpcg) %d.%d.%d\n", MPCG_VERSION_MAJOR, MPCG_VERSION_MINOR,
                         MPCG_VERSION_PATCH);
                  return EXIT_CONVERGED;
        case ':': return usage_error("option %s needs a value", argv[optind - 1]);
        case '?': return usage_error("unknown option %s", argv[optind - 1]);
        default:
            if ((rc = value_option(c, optarg, o)) >= 0) return rc;
        }
    }
    if (optind < argc) o->matrix = argv[optind++];
    if (optind < argc) return usage_error("unexpected argument %s", argv[optind]);
    return check_combination(o);
}

/* --precond=NAME: checked against the library's table of names (mpcg_precond_parse); the word
 * itself goes to the solver (mpcg_solver_set_precond_spec, which checks B's or D's range). */
static int precond_option(const char *arg, options *o)
{
    if (mpcg_precond_parse(arg, &o->precond, NULL) != MPCG_SUCCESS) {
        char why[256];
        mpcg_last_error_message(NULL, why, sizeof why);
        return usage_error("--precond: %s", why);
    }
    o->precond_set = 1;
    o->precond_spec = arg;
    return -1;
}

/* --precision, --device, --spmv, --generate, -O and --threads. */
static int choice_option(int c, const char *arg, options *o)
{
    char names[256];
    int64_t v;
    switch (c) {
    case O_PREC:
        if (!strcmp(arg, "fp64")) o->precision = MPCG_PRECISION_FP64;
        else if (!strcmp(arg, "fp32")) o->precision = MPCG_PRECISION_FP32;
        else if (!strcmp(arg, "mixed")) o->precision = MPCG_PRECISION_MIXED;
        else return usage_error("--precision=%s: expected fp64, fp32 or mixed", arg);
        o->precision_set = 1;
        return -1;
    case O_PRECOND:
        return precond_option(arg, o);
    case O_DEV:
        if (!valid_device(arg))
            return usage_error("--device=%s: expected auto, cpu, cuda or cuda:N (N in [0, 1023])",
                               arg);
        o->device = arg;
        return -1;
    case O_SPMV:
        backend_names(names, sizeof names);
        if (!known_backend(arg))
            return usage_error("--spmv=%s: unknown SpMV backend (this build has: %s)", arg, names);
        o->spmv = arg;
        return -1;
    case O_GEN:
        if (!strchr(arg, ':') || arg[0] == ':' || strchr(arg, ':')[1] == '\0')
            return usage_error("--generate=%s: expected NAME:N such as poisson3d:64", arg);
        o->generate = arg;
        return -1;
    case 'O':
        if (!strchr(arg, '=') || arg[0] == '=')
            return usage_error("-O %s: expected KEY=VALUE (cgsolve --help-options lists the keys)",
                               arg);
        if (o->nset == CGSOLVE_MAX_SET)
            return usage_error("-O %s: at most %d -O options", arg, CGSOLVE_MAX_SET);
        o->set[o->nset++] = arg;
        return -1;
    case O_THREADS:
        if (!parse_i64(arg, &v) || v < 1 || v > 65536)
            return usage_error("--threads=%s: expected an integer in [1, 65536]", arg);
        o->threads = (int)v;
        return -1;
    default: return usage_error("unknown option %c", c);
    }
}

static int value_option(int c, const char *arg, options *o)
{
    int64_t v;
    switch (c) {
    case O_RHS: {
        const char *colon = strchr(arg, ':');
        const size_t len = colon ? (size_t)(colon - arg) : strlen(arg);
        if (!((len == 4 && !strncmp(arg, "ones", 4)) || (len == 6 && !strncmp(arg, "random", 6)) ||
              (len == 5 && !strncmp(arg, "Aones", 5))))
            return usage_error("--rhs=%s: expected ones, random or Aones, with :S for S columns",
                               arg);
        if (colon && (!parse_i64(colon + 1, &v) || v < 1 || v > 64))
            return usage_error("--rhs=%s: S must be a whole number in [1, 64]", arg);
        o->rhs_kind = arg;
        o->nrhs = colon ? (int)v : 1;
        return -1;
    }
    case O_SEED:
        if (!parse_i64(arg, &v) || v < 0)
            return usage_error("--seed=%s: expected a non-negative integer", arg);
        o->seed = (uint64_t)v;
        return -1;
    case O_TOL:
        if (!parse_double(arg, &o->tol) || o->tol <= 0 || o->tol >= 1)
            return usage_error("--tol=%s: expected a number in (0, 1)", arg);
        return -1;
    case O_ATOL:
        if (!parse_double(arg, &o->atol) || o->atol < 0)
            return usage_error("--atol=%s: expected a finite number >= 0", arg);
        return -1;
    case O_MAXIT:
        if (!parse_i64(arg, &o->maxit) || o->maxit < 0)
            return usage_error("--maxit=%s: expected a non-negative integer", arg);
        return -1;
    case O_MON:
        o->monitor = 1;
        if (arg && (!parse_i64(arg, &o->monitor) || o->monitor < 1))
            return usage_error("--monitor=%s: expected a positive integer", arg);
        return -1;
    case O_MEMLIM:
        if (!parse_bytes(arg, &o->device_memory_limit))
            return usage_error("--device-memory-limit=%s: expected a byte count such as "
                               "1048576, 512M or 2G", arg);
        o->memory_limit_set = 1;
        return -1;
    case O_CHECK:
        if (!parse_i64(arg, &o->check_interval) || o->check_interval < 0)
            return usage_error("--check-interval=%s: expected a non-negative integer "
                               "(0: adaptive)", arg);
        o->check_interval_set = 1;
        return -1;
    default: return choice_option(c, arg, o);
    }
}
