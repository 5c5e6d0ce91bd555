/* include/mpcg.h: the public interface of mpcg, conjugate gradient for sparse SPD systems */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef MPCG_H
#define MPCG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* ---------------------------------------------------------------- version */

#define MPCG_VERSION_MAJOR 0
#define MPCG_VERSION_MINOR 1
#define MPCG_VERSION_PATCH 0

/* ---------------------------------------------------------------- export, C++ guard */

#if defined(_WIN32)
#define MPCG_API
#else
#define MPCG_API __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Version of the library that is linked (which may differ from the header's macros).
 * @param[out] v  v[0] = major, v[1] = minor, v[2] = patch; ignored if NULL.
 * Thread safety: safe.
 */
MPCG_API void mpcg_version(int v[3]);

/* ---------------------------------------------------------------- status */

/**
 * Result of every call that can fail. A closed set, not bit flags. Not converging is not an
 * error: mpcg_solve() returns MPCG_SUCCESS and reports the reason in mpcg_info.reason (unless
 * mpcg_solver_set_error_if_not_converged() asked otherwise).
 */
typedef enum mpcg_status {
    MPCG_SUCCESS = 0,
    MPCG_ERR_INVALID_ARG,   /**< an argument is NULL, out of range or inconsistent */
    MPCG_ERR_INVALID_STATE, /**< wrong call order, or an object of another context */
    MPCG_ERR_NOT_SUPPORTED, /**< this backend x precision x device combination */
    MPCG_ERR_HOST_ALLOC,    /**< host memory allocation failed */
    MPCG_ERR_DEVICE_ALLOC,  /**< device memory allocation failed */
    MPCG_ERR_NO_DEVICE,     /**< a GPU was asked for and none is usable (or no CUDA build) */
    MPCG_ERR_CUDA,          /**< the CUDA runtime reported an error */
    MPCG_ERR_CUSPARSE,      /**< cuSPARSE reported an error */
    MPCG_ERR_CUBLAS,        /**< cuBLAS reported an error */
    MPCG_ERR_IO,            /**< a file could not be opened, read or written */
    MPCG_ERR_PARSE,         /**< malformed Matrix Market input ("file:line: what is wrong") */
    MPCG_ERR_NOT_CONVERGED, /**< only with error_if_not_converged: the solve diverged */
    MPCG_ERR_INTERNAL,      /**< a bug in mpcg; please report it with the message */
    MPCG_STATUS_COUNT       /**< number of codes, for tests */
} mpcg_status;

/** "MPCG_ERR_PARSE" for MPCG_ERR_PARSE. Never NULL ("MPCG_STATUS_UNKNOWN" if out of range). */
MPCG_API const char *mpcg_status_name(mpcg_status s);
/** A short description, e.g. "malformed Matrix Market file". Never NULL. */
MPCG_API const char *mpcg_status_string(mpcg_status s);

/* ---------------------------------------------------------------- small enums */

/** Arithmetic and storage precision of a solve (runtime choice, never fixed at build). */
typedef enum mpcg_precision {
    MPCG_PRECISION_FP64 = 0, /**< values and vectors in double */
    MPCG_PRECISION_FP32 = 1, /**< matrix values and vectors in single, scalars and sums in
                                  double; the exit check is the true residual in double, so a
                                  tol beyond fp32 ends MPCG_DIVERGED_STAGNATION, never a false
                                  convergence (docs/precision.md) */
    MPCG_PRECISION_MIXED = 2 /**< fp64 accuracy from mostly fp32 work: an fp32 CG on the fp32
                                  values (hi) whose residual is brought back to the fp64 true
                                  residual b - A x (hi + lo values) as it falls (option
                                  mixed.strategy: reliable updates or iterative refinement); the
                                  answer of an fp64 solve, ending in fp64 if fp32 stops
                                  improving (mpcg_info.precision_fallback; docs/precision.md) */
} mpcg_precision;

/** "fp64", "fp32" or "mixed": the CLI, JSON and option word of a precision; "unknown" for a
 *  value outside the enum. Never NULL. */
MPCG_API const char *mpcg_precision_name(mpcg_precision p);

/** The preconditioner M of a PCG solve (mpcg_solver_set_precond; docs/preconditioners.md). */
typedef enum mpcg_precond {
    MPCG_PRECOND_NONE = 0,      /**< plain CG */
    MPCG_PRECOND_JACOBI = 1,    /**< M = diag(A), fused into the GPU iteration */
    MPCG_PRECOND_BJACOBI = 2,   /**< M = the diagonal blocks of A (option precond.block_size,
                                     default 48; 0: node blocks detected from the pattern),
                                     inverted at setup */
    MPCG_PRECOND_CHEBYSHEV = 3, /**< a Chebyshev polynomial in D^-1 A of degree precond.degree,
                                    its lambda_max estimated at setup */
    MPCG_PRECOND_AUTO = 4       /**< chosen at setup: Jacobi, or none when A's diagonal is one
                                    value (Jacobi would only scale the iteration); the
                                    default of every interface (docs/options.md) */
} mpcg_precond;

/** "none", "jacobi", "bjacobi", "chebyshev" or "auto" (the CLI and JSON word); "unknown"
 *  outside the enum. Never NULL. */
MPCG_API const char *mpcg_precond_name(mpcg_precond p);

/**
 * A preconditioner from its name, as cgsolve's --precond, the Python package's M= and the
 * Fortran module take it: "none", "jacobi", "bjacobi[:B]" (B rows a block: option
 * precond.block_size), "chebyshev[:D]" (degree D: option precond.degree) or "auto". The
 * library's one table of preconditioner names serves this and mpcg_precond_name.
 * @param[in]  spec   the name (NUL-terminated)
 * @param[out] type   the preconditioner (may be NULL)
 * @param[out] param  B or D where the name carries one, else -1 (may be NULL)
 * @return MPCG_SUCCESS; MPCG_ERR_INVALID_ARG for NULL, an unknown name, a number after a name
 *         that takes none, or one that is not a whole number of at most 12 digits (the message,
 *         mpcg_last_error(NULL), lists the names). Ranges are the options' (below).
 */
MPCG_API mpcg_status mpcg_precond_parse(const char *spec, mpcg_precond *type, int64_t *param);

/** Where a context computes. */
typedef enum mpcg_device_kind { MPCG_DEVICE_CPU = 0, MPCG_DEVICE_CUDA = 1 } mpcg_device_kind;

/**
 * Why a solve stopped. Signs follow PETSc's KSPConvergedReason: positive = converged,
 * negative = diverged, 0 = no solve has run yet.
 */
typedef enum mpcg_reason {
    MPCG_REASON_NONE = 0,
    MPCG_CONVERGED_RTOL = 2,               /**< true ||b - A x|| <= tol * ||b|| */
    MPCG_CONVERGED_ZERO_RHS = 3,           /**< b = 0, so x = 0 exactly, without iterating */
    MPCG_CONVERGED_ATOL = 4,               /**< true ||b - A x|| <= atol, where atol > tol ||b||
                                                (mpcg_solver_set_atol: the absolute bound was
                                                the looser one, so it decided) */
    MPCG_DIVERGED_MAX_ITER = -3,           /**< maxit iterations without reaching tol */
    MPCG_DIVERGED_BREAKDOWN = -5,          /**< p^T A p = 0 with p != 0 (A singular on p) */
    MPCG_DIVERGED_INDEFINITE_MATRIX = -8,  /**< p^T A p < 0: A is not positive definite */
    MPCG_DIVERGED_NAN = -9,                /**< a NaN or Inf appeared in the iteration */
    MPCG_DIVERGED_STAGNATION = -10,        /**< the true residual stays above tol while the
                                                recurrence residual says converged */
    MPCG_DIVERGED_INDEFINITE_PC = -11      /**< r^T M^-1 r <= 0: the preconditioner is not
                                                positive definite */
} mpcg_reason;

/** "MPCG_CONVERGED_RTOL" etc. Never NULL. */
MPCG_API const char *mpcg_reason_name(mpcg_reason r);
/** A sentence fragment, e.g. "p^T A p < 0: the matrix is not positive definite". Never NULL. */
MPCG_API const char *mpcg_reason_string(mpcg_reason r);

/** Severity of a log message passed to the callback of mpcg_context_set_log(). */
typedef enum mpcg_log_level {
    MPCG_LOG_ERROR = 0,
    MPCG_LOG_WARN = 1,
    MPCG_LOG_INFO = 2,
    MPCG_LOG_DEBUG = 3
} mpcg_log_level;

/** Initial guess of a solve. */
typedef enum mpcg_guess {
    MPCG_GUESS_ZERO = 0,    /**< x is ignored on entry and treated as zero (the default) */
    MPCG_GUESS_PROVIDED = 1 /**< x on entry is the initial guess */
} mpcg_guess;

/** Integer type of an index array passed as `const void *` (the row pointers of
 *  mpcg_matrix_view_device_csr). */
typedef enum mpcg_index_type {
    MPCG_INDEX_INT32 = 0, /**< int32_t entries */
    MPCG_INDEX_INT64 = 1  /**< int64_t entries */
} mpcg_index_type;

/* ---------------------------------------------------------------- opaque types */

typedef struct mpcg_context mpcg_context; /**< device, stream, handles, errors, log */
typedef struct mpcg_matrix mpcg_matrix;   /**< a square sparse matrix (CSR on the host) */
typedef struct mpcg_solver mpcg_solver;   /**< options and setup state of a CG solve */
typedef struct mpcg_batch mpcg_batch;     /**< many small independent systems (docs/batched.md) */

/** Log callback: level, the message (no trailing newline), and the user pointer. */
typedef void (*mpcg_log_fn)(mpcg_log_level level, const char *message, void *user);

/**
 * Monitor callback, called every K iterations (mpcg_solver_set_monitor) with the iteration
 * number and the recurrence relative residual ||r_k|| / ||b||. Called from the solving thread.
 * The progress callback (mpcg_solver_set_progress) has the same type.
 */
typedef void (*mpcg_monitor_fn)(int64_t iteration, double relres, void *user);

/**
 * Monitor callback of a block solve (mpcg_solver_set_block_monitor): column (0 .. nrhs - 1, the
 * caller's order) read its recurrence residual ||r_k|| / ||b_column|| at block iteration k.
 */
typedef void (*mpcg_block_monitor_fn)(int64_t iteration, int column, double relres, void *user);

/* ---------------------------------------------------------------- plain-data structs */

/**
 * What a solve did. A plain output struct filled by mpcg_solve(). Fields are only ever added at
 * the end; none is ever reordered or removed.
 */
typedef struct mpcg_info {
    mpcg_reason reason;        /**< why the solve stopped */
    int converged;             /**< 1 if reason > 0 (and so the true ||b - A x|| <=
                                    max(tol ||b||, atol)), else 0 */
    int64_t iterations;        /**< CG iterations performed: updates of x. Exact on the GPU too:
                                    the fused loop checks the residual only every K iterations
                                    (mpcg_solver_set_check_interval), but iterations queued after
                                    the stopping one do nothing, so x is the iterate of this
                                    count and is never updated past it */
    double true_relres;        /**< ||b - A x|| / ||b||, recomputed in fp64 at exit (0 if b = 0) */
    double recurrence_relres;  /**< ||r_k|| / ||b|| of the CG recurrence at exit */
    double setup_time_s;       /**< wall time of the most recent mpcg_solver_setup (explicit or
                                    run by this solve) */
    double solve_time_s;       /**< wall time of the solve: copies of b and x to and from the
                                    device, the iteration and the true residual */
    char backend[32];          /**< SpMV backend actually used, e.g. "cpu", "cusparse" */
    mpcg_precision precision;  /**< precision actually used */
    int64_t residual_replacements; /**< times r was replaced by the true residual b - A x */
    double bytes_per_iteration;    /**< memory traffic model of one iteration: the backend's matrix
                                        bytes + 112 n on the CPU (SpMV vectors, x gathered once, and
                                        the vector operations; docs/roofline.md); + 88 n in the
                                        fused GPU loop (+ 104 n when the backend has no fused SpMV
                                        + dot) */
    char variant[32];              /**< the CG variant that ran ("host", "launched", "graph",
                                        "persistent-single", "persistent-two-barrier"; option
                                        cg.variant), chosen at setup */
    char variant_reason[256];      /**< why that variant: the option, or the rule that chose it */
    int64_t spmvs;                 /**< products with A: one per iteration, plus every true residual
                                        (start, checks, reliable updates, exit) */
    int64_t spmvs_fp64;         /**< of those, the ones on the fp64 values (fp64 solves: all; fp32
                                     and mixed: the true residuals and the fp64 finish) */
    char mixed_strategy[16];    /**< mixed: "reliable" or "refinement" (option mixed.strategy);
                                     "" otherwise */
    int precision_fallback;     /**< mixed: 1 if the fp32 iteration stopped improving and the
                                     solve went on in fp64 from iteration fallback_iteration */
    int64_t fallback_iteration; /**< the iteration where the fp64 finish began (-1: none) */
    char storage_fallback[160]; /**< mixed: why the matrix is held in fp64 values instead of the
                                     hi/lo halves (a value beyond fp32's range, ...); "" if not */
    int64_t mixed_head_iterations; /**< mixed: the first iterations, run in fp64 until the
                                        residual fell to tol 10^D (option mixed.fp64_head) */
    char precond[16];              /**< the preconditioner used: "none", "jacobi", "bjacobi",
                                        "chebyshev" (what MPCG_PRECOND_AUTO chose) */
    char precond_describe[200];    /**< what it built ("bjacobi, 1806 blocks of up to 3 rows
                                        (detected node blocks)"); "" without one */
    double precond_setup_time_s;   /**< its setup (part of setup_time_s) */
    int64_t precond_spmvs;         /**< products with A in its applies in this solve (in spmvs too;
                                        chebyshev's setup estimate is in precond_describe) */
    char spmv_describe[768];       /**< the SpMV plan's layout in words after the solve (as
                                        `cgsolve --info`; what a backend measured, e.g. the gather
                                        backend's out-of-core model) */
} mpcg_info;

/** Description of an option key (mpcg_option_get), for listings such as --help-options. */
typedef struct mpcg_option_info {
    const char *key;         /**< "cg.variant", "adaptive.mode", ... */
    char default_value[32];  /**< the default as text ("auto", "0", "uniform") */
    char range[160];         /**< the accepted values in words */
    const char *description; /**< one line */
} mpcg_option_info;

/** Capability bits of an SpMV backend (mpcg_backend_info.caps). */
enum {
    MPCG_CAP_FP64 = 1u << 0,          /**< fp64 values */
    MPCG_CAP_FP32 = 1u << 1,          /**< its SpMV takes fp32 values (fp32 solves: see
                                           mpcg_solver_set_precision) */
    MPCG_CAP_NEEDS_DEVICE = 1u << 2,  /**< runs on a GPU (with a CPU emulation on --device=cpu) */
    MPCG_CAP_CPU_EMULATION = 1u << 3, /**< has a CPU emulation of its layout */
    MPCG_CAP_DETERMINISTIC = 1u << 4, /**< the same input gives bit-identical output */
    MPCG_CAP_MIXED_STORE = 1u << 5,   /**< stores each value a as hi = (float)a and lo =
                                           (float)(a - hi) for mixed precision: fp32 SpMVs read
                                           hi, fp64 ones hi + lo (fp64 storage where the split
                                           is not exact) */
    MPCG_CAP_OUT_OF_CORE = 1u << 6    /**< on a GPU, option NAME.ooc=on streams the matrix
                                           from pinned host memory in chunks sized to the
                                           device-memory limit (cgsolve --ooc) */
};

/** Description of a registered SpMV backend (mpcg_backend_get). */
typedef struct mpcg_backend_info {
    const char *name;        /**< registry name: the --spmv value and the JSON value */
    const char *description; /**< one line */
    unsigned caps;           /**< MPCG_CAP_* bits */
} mpcg_backend_info;

/** One backend the setup of `--spmv=auto` considered (mpcg_backend_choice). Plain data. */
typedef struct mpcg_backend_candidate {
    const char *backend; /**< registry name (static storage) */
    int skipped;         /**< 1: not timed (not allowed for this solve, never tried by auto,
                              over the trial's budget, or its plan failed); reason says why */
    char reason[200];    /**< why it was skipped; "" when it was timed */
    double setup_s;      /**< wall time of its plan's setup (analysis, upload, waited for);
                              0 when skipped before a plan was built. Where the trial built
                              the candidates from one device copy of the matrix (copy_s > 0):
                              the build from that copy (the copy itself is copy_s) */
    double setup_h2d_s;  /**< of setup_s, the host-to-device copies of the matrix */
    double spmv_s;       /**< one SpMV in the precision the solve iterates in: the median of
                              the timed calls (CUDA events, after a warm-up); 0 when skipped.
                              With mpcg_backend_choice.timed_dot, on a backend with a fused
                              product, that product (the SpMV and x.y in one pass) */
    double score_s;      /**< setup_s + expected_spmvs * spmv_s: what the choice minimises */
} mpcg_backend_candidate;

/** Most candidates an mpcg_backend_choice lists. */
#define MPCG_BACKEND_CHOICE_MAX 12

/**
 * How the setup chose the SpMV backend (mpcg_solver_backend_choice; docs/backends/auto.md).
 * A plain output struct: fields are only ever added at the end, never reordered or removed.
 */
typedef struct mpcg_backend_choice {
    char chosen[32];       /**< the backend the setup kept (= mpcg_info.backend) */
    char source[8];        /**< "trial" (auto timed the candidates), "cache" (auto found the
                                decision of an earlier trial), "fixed" (a backend was named),
                                "cpu" (auto on a CPU context: the cpu backend, no trial) */
    double expected_spmvs; /**< SpMVs the choice weighs a plan's setup against (option
                                auto.iterations; trial and cache) */
    double trial_s;        /**< what auto spent beyond the kept plan's own setup: the other
                                plans' setups, every trial SpMV and warm-up, the fingerprint, the
                                cache file (trial and cache; 0 otherwise) */
    double trial_h2d_s;    /**< of trial_s, the host-to-device copies of the other plans */
    double trial_cost_spmv_equivalents; /**< trial_s / the kept backend's spmv_s */
    double hash_s;                      /**< of trial_s, the pattern hash of the fingerprint */
    int ncandidates; /**< entries of candidates (trial: every backend of the build; cache:
                          as the trial that wrote the file measured them) */
    mpcg_backend_candidate candidates[MPCG_BACKEND_CHOICE_MAX];
    char note[512]; /**< the cache: the file read or written, or why one was ignored
                         ("" without a cache) */
    double copy_s;  /**< trial: the one device copy of a host matrix every candidate was built
                         from (the upload, waited for). It counts as the kept plan's own upload
                         where that plan is kept (a backend that builds its layout on the
                         device), else (built again on the host matrix: cusparse) in trial_s.
                         0 where each candidate uploaded its own (a device view, a single
                         candidate, too little device memory) and on a cache hit */
    int timed_dot;  /**< trial: 1 where spmv_s timed the product with its dot fused (y = A x and
                         x.y in one pass), as the fp64 CG iteration on a GPU runs it, on the
                         candidates that have one; 0: the plain SpMV everywhere */
} mpcg_backend_choice;

/* ---------------------------------------------------------------- context */

/**
 * Create a context: the device all work of its objects runs on.
 * @param[in]  device  "auto" (first GPU if one is usable, else the CPU), "cpu", "cuda" (GPU 0)
 *                     or "cuda:N"; NULL means "auto".
 * @param[out] out     the new context; NULL on failure.
 * @return MPCG_SUCCESS; MPCG_ERR_INVALID_ARG (out NULL or device string malformed);
 *         MPCG_ERR_NO_DEVICE ("cuda[:N]" asked and no such usable GPU, or a CPU-only build);
 *         MPCG_ERR_HOST_ALLOC; MPCG_ERR_CUDA/CUSPARSE/CUBLAS (handle creation failed).
 * A failure has no context to hold its message: mpcg_last_error(NULL) returns it (per thread).
 * Thread safety: each context is used by one thread at a time.
 * @see mpcg_context_destroy, mpcg_context_device_kind
 */
MPCG_API mpcg_status mpcg_context_create(const char *device, mpcg_context **out);

/** Destroy a context and everything it owns. Accepts NULL. Objects created from it must be
 *  destroyed first. */
MPCG_API void mpcg_context_destroy(mpcg_context *ctx);

/** MPCG_DEVICE_CPU or MPCG_DEVICE_CUDA: what the context actually uses. */
MPCG_API mpcg_device_kind mpcg_context_device_kind(const mpcg_context *ctx);

/** Human description of the device, e.g. "cpu (8 OpenMP threads)" or "cuda:0 NVIDIA H100".
 *  Owned by the context, valid until it is destroyed. */
MPCG_API const char *mpcg_context_device_name(const mpcg_context *ctx);

/**
 * Order all work of the context's objects (copies, kernels, cuSPARSE and cuBLAS calls) on the
 * caller's CUDA stream instead of the context's own one, e.g. to overlap mpcg with other work
 * or to order it after kernels that produce b. The call first waits for the work already queued
 * on the current stream, so nothing is reordered across the change; both library handles are
 * re-bound to the new stream.
 * @param[in] stream  a cudaStream_t (passed as void *) of the context's GPU, or NULL to go back to
 *                    the context's own non-blocking stream. To use the legacy default stream,
 *                    pass cudaStreamLegacy. The caller owns the stream and keeps it alive until
 *                    it is replaced or the context is destroyed.
 * @return MPCG_SUCCESS; MPCG_ERR_INVALID_ARG (invalid ctx); MPCG_ERR_INVALID_STATE (a non-NULL
 *         stream on a CPU context; NULL is accepted there and does nothing);
 *         MPCG_ERR_CUDA/MPCG_ERR_CUSPARSE/MPCG_ERR_CUBLAS (waiting or re-binding failed: the
 *         context keeps its previous stream).
 * Thread safety: not while another call uses the context.
 * @see mpcg_context_stream
 */
MPCG_API mpcg_status mpcg_context_set_stream(mpcg_context *ctx, void *stream);

/** The stream all work of ctx is ordered on (a cudaStream_t as void *): the caller's stream set
 *  by mpcg_context_set_stream(), else the context's own (never NULL on a GPU context). NULL on
 *  a CPU context or for an invalid ctx. */
MPCG_API void *mpcg_context_stream(const mpcg_context *ctx);

/**
 * Cap the GPU memory the context's objects may hold at once (matrix layouts, work vectors,
 * workspaces: every block mpcg allocates on the device; not the memory cuSPARSE, cuBLAS or the
 * CUDA runtime keep for themselves). An allocation that would take the total past the cap fails
 * as if the GPU were full: MPCG_ERR_DEVICE_ALLOC, with a message naming the limit. It makes
 * running out of device memory reproducible (tests, `cgsolve --device-memory-limit`) and keeps
 * mpcg inside a budget on a shared GPU. Blocks already held are kept even if they exceed a new,
 * lower cap; only later allocations are refused. A solver whose setup failed this way can set up
 * and solve again after the cap is raised.
 * @param[in] bytes  the cap; 0 (the default) means no limit beyond the GPU's own memory.
 * @return MPCG_SUCCESS; MPCG_ERR_INVALID_ARG (invalid ctx). On a CPU context the call succeeds
 *         and does nothing: it holds no device memory.
 * Thread safety: not while another call uses the context.
 * @see mpcg_solver_setup
 */
MPCG_API mpcg_status mpcg_context_set_device_memory_limit(mpcg_context *ctx, size_t bytes);

/**
 * Where `--spmv=auto` keeps its decisions (docs/backends/auto.md, "The cache"): one small text
 * file per matrix fingerprint (n, nnz, a hash of the pattern, precision, GPU model, mpcg version),
 * so a later setup on the same pattern skips the trial. The library reads no environment variable
 * for it: cgsolve passes $XDG_CACHE_HOME/mpcg (else $HOME/.cache/mpcg); a program chooses its own.
 * The directory is created at the first write (mode 0700). A file that cannot be read or does not
 * parse is ignored (a warning in the log and in mpcg_backend_choice.note), never an error; a
 * failed write is logged and the setup goes on. Option auto.cache=off turns it off per solver.
 * @param[in] dir  a directory path (copied), shorter than 1000 bytes; NULL or "" (the default):
 *                 no cache.
 * @return MPCG_SUCCESS; MPCG_ERR_INVALID_ARG (invalid ctx, dir too long).
 * Thread safety: not while another call uses the context. Processes may share the directory:
 * files are replaced atomically.
 * @see mpcg_solver_backend_choice
 */
MPCG_API mpcg_status mpcg_context_set_cache_dir(mpcg_context *ctx, const char *dir);

/**
 * Route diagnostics (warnings such as "diagonal entry 3 is negative") to a callback.
 * The library never prints on its own.
 * @param[in] level  messages of this level and more severe are passed.
 * @param[in] fn     callback, or NULL to silence.
 * @param[in] user   passed to fn unchanged.
 * @return MPCG_SUCCESS; MPCG_ERR_INVALID_ARG if ctx is NULL.
 */
MPCG_API mpcg_status mpcg_context_set_log(mpcg_context *ctx, mpcg_log_level level, mpcg_log_fn fn,
                                          void *user);

/**
 * The message of the first failure since the last mpcg_clear_error(), formatted as
 * "<file>:<line>: <function>: <message>" plus up to a few "called from" frames; "" if none.
 * For a parse error the message holds "path:line: what is wrong".
 * @param[in] ctx  a context, or NULL for the failure of the last mpcg_context_create() of this
 *                 thread.
 * Owned by the context (or the thread); valid until the next call that fails.
 */
MPCG_API const char *mpcg_last_error(const mpcg_context *ctx);

/**
 * The message of the recorded failure alone, as a program shows it to its user: without the
 * "<file>:<line>: <function>: " location and without the "called from" frames of
 * mpcg_last_error(). For a parse error that is "path:line: what is wrong"; for a bad option,
 * "unknown option 'x'; the options are: ...".
 * @param[in]  ctx   a context, or NULL for the thread's mpcg_context_create() failure.
 * @param[out] buf   host buffer for the text, always NUL-terminated (truncated to size - 1
 *                   characters); may be NULL with size 0 to ask for the length.
 * @param[in]  size  bytes of buf.
 * @return the length of the whole message (as snprintf: a return >= size means it was
 *         truncated); 0 and "" when no failure is recorded.
 * Thread safety: as mpcg_last_error().
 * @see mpcg_last_error, mpcg_clear_error
 */
MPCG_API size_t mpcg_last_error_message(const mpcg_context *ctx, char *buf, size_t size);

/** Forget the recorded error so the next failure's message is kept. Accepts NULL. */
MPCG_API void mpcg_clear_error(mpcg_context *ctx);

/* ---------------------------------------------------------------- matrix */

/**
 * Read a square matrix from a Matrix Market file, plain or gzip-compressed (gzip is recognised by
 * its first two bytes, not by a ".gz" name, and read through zlib; bzip2, xz and zstd data are
 * recognised the same way and refused by name). Accepts coordinate and array formats; real,
 * integer and pattern (all values 1.0) fields; general, symmetric, hermitian (for real values
 * the same as symmetric) and skew-symmetric storage, expanded to the full matrix (only the
 * lower triangle may be stored; a skew-symmetric file has no diagonal). Duplicate coordinate
 * entries are summed; explicit zeros of a coordinate file are kept, zeros of an array file are
 * not stored. Values must be finite, and so must the sums of duplicates. The matrix is named
 * after the file's base name without ".mtx" / ".mtx.gz". docs/matrix-market.md lists what is
 * accepted and rejected.
 * On any malformed input nothing is returned and the error message holds "path:line: what"
 * (1-based line; the line after the last one when the file ends early).
 * Memory follows what is read, not what the size line claims: the entries are read first, into
 * arrays that grow as they arrive, and the n + 1 row pointers (8 bytes a row) are allocated only
 * after the declared n has been checked against them and against the memory available (Linux's
 * MemAvailable + SwapFree, bounded by RLIMIT_AS and RLIMIT_DATA). A size that does not fit is
 * refused at the size line with MPCG_ERR_HOST_ALLOC; so is an n whose entries leave rows empty
 * when a CG solve of n rows (40 bytes a row) would not fit: a 100-byte file that declares 2e9
 * rows fails at once.
 * @param[in]  ctx   context that will own the matrix.
 * @param[in]  path  file name (host string).
 * @param[out] out   the matrix, NULL on failure.
 * @return MPCG_SUCCESS; MPCG_ERR_INVALID_ARG (NULL or invalid argument); MPCG_ERR_IO (cannot
 *         open or read, also a truncated .gz); MPCG_ERR_PARSE (malformed; also complex, not
 *         square, n < 1 or n > 2^31 - 1); MPCG_ERR_NOT_SUPPORTED (gzip data in a build without
 *         zlib; bzip2, xz or zstd data); MPCG_ERR_HOST_ALLOC (also "path:line:" for a declared
 *         size beyond the memory available).
 * Thread safety: one thread at a time per context (as every call on a context).
 * @see mpcg_matrix_write_mm, mpcg_matrix_generate
 */
MPCG_API mpcg_status mpcg_matrix_read_mm(mpcg_context *ctx, const char *path, mpcg_matrix **out);

/**
 * Create a matrix from host CSR arrays (copied; the caller keeps its arrays).
 * Column indices of a row may come in any order: they are sorted; duplicates are rejected.
 * @param[in] n        rows = columns, >= 1.
 * @param[in] row_ptr  host, n+1 entries, row_ptr[0] = 0, non-decreasing, 0-based.
 * @param[in] col_idx  host, row_ptr[n] entries in [0, n).
 * @param[in] val      host, row_ptr[n] finite values.
 * @param[out] out     the matrix, NULL on failure.
 * @return MPCG_SUCCESS; MPCG_ERR_INVALID_ARG (any array inconsistent, message names the
 *         first offending entry); MPCG_ERR_HOST_ALLOC.
 */
MPCG_API mpcg_status mpcg_matrix_create_csr(mpcg_context *ctx, int64_t n, const int64_t *row_ptr,
                                            const int32_t *col_idx, const double *val,
                                            mpcg_matrix **out);

/**
 * Generate a test matrix from a specification: "poisson2d:N" (5-point, diagonal 4,
 * n = N^2, nnz = 5N^2 - 4N), "poisson3d:N" (7-point, diagonal 6, n = N^3, nnz = 7N^3 - 6N^2),
 * "poisson3d27:N" (27-point, diagonal 26, n = N^3, nnz = (3N - 2)^3; the HPCG matrix). Every
 * neighbour inside the N^d grid is -1 (Dirichlet boundary); the stencils are SPD, with sorted
 * columns. "biased:N" (n = N, nnz = 2N - 1) is an SpMV stress matrix, not symmetric: row 0 holds
 * every column, every other row only its diagonal (docs/matrix-market.md gives the values).
 * N >= 1 (N = 1 gives a 1 x 1 matrix). The matrix is named after spec.
 * @param[in]  spec  "NAME:N" (host string).
 * @param[out] out   the matrix, NULL on failure.
 * @return MPCG_SUCCESS; MPCG_ERR_INVALID_ARG (unknown or malformed spec, N < 1, n > 2^31 - 1;
 *         the message lists the known generators); MPCG_ERR_HOST_ALLOC.
 * Thread safety: one thread at a time per context. Builds the rows with OpenMP threads.
 */
MPCG_API mpcg_status mpcg_matrix_generate(mpcg_context *ctx, const char *spec, mpcg_matrix **out);

/** Destroy a matrix. Accepts NULL. */
MPCG_API void mpcg_matrix_destroy(mpcg_matrix *A);

/** Number of rows (= columns). 0 if A is NULL. */
MPCG_API int64_t mpcg_matrix_n(const mpcg_matrix *A);
/** Number of stored nonzeros of the full (expanded) matrix. 0 if A is NULL. */
MPCG_API int64_t mpcg_matrix_nnz(const mpcg_matrix *A);

/**
 * Read-only view of the host CSR arrays (owned by the matrix; valid until it is destroyed or
 * its values updated). Any out pointer may be NULL. On a device view
 * (mpcg_matrix_view_device_csr) these are a host copy, made at the first call (device to host,
 * 8 (n + 1) + 12 nnz bytes) and refreshed by mpcg_matrix_update_values_device.
 */
MPCG_API mpcg_status mpcg_matrix_csr(const mpcg_matrix *A, const int64_t **row_ptr,
                                     const int32_t **col_idx, const double **val);

/**
 * Replace the values, keeping the pattern (same row_ptr/col_idx as at creation).
 * Solvers set up on A re-run only their numeric setup at the next solve.
 * @param[in] val  host, nnz finite values in the matrix's CSR order.
 * @return MPCG_SUCCESS; MPCG_ERR_INVALID_ARG (NULL, or a non-finite value);
 *         MPCG_ERR_INVALID_STATE (A is a device view: mpcg_matrix_update_values_device).
 */
MPCG_API mpcg_status mpcg_matrix_update_values(mpcg_matrix *A, const double *val);

/**
 * A matrix over CSR arrays the caller already holds in GPU memory, without copying them (a view,
 * as cusparseCreateCsr or Ginkgo's array views): the caller keeps the arrays alive, and the
 * pattern unchanged, until the matrix is destroyed; the values may change through
 * mpcg_matrix_update_values_device(). Solvers read the arrays where a backend can (cusparse
 * uses them in place) and otherwise build their own layout from them on the device; the table of
 * docs/backends.md ("Device views") says what each backend does, and mpcg_info.spmv_describe
 * says it for the plan of a solve.
 * The structure is checked on the device here, one pass over the arrays (about one SpMV's
 * traffic) and one synchronisation of the context's stream: row_ptr[0] = 0, row_ptr[n] = nnz,
 * non-decreasing row pointers, columns in [0, n) and strictly increasing within each row (sorted,
 * no duplicates: they are not sorted for you), finite values. Later values
 * (mpcg_matrix_update_values_device) are not checked: a NaN there ends a solve with
 * MPCG_DIVERGED_NAN; mpcg_matrix_check() checks them on demand.
 * The arrays are read on the context's stream (mpcg_context_set_stream): write them on that
 * stream, or synchronise, before this call.
 * @param[in] ctx          a context on a GPU (the arrays' GPU).
 * @param[in] n            rows = columns, 1 <= n <= 2^31 - 1.
 * @param[in] nnz          stored entries, 0 <= nnz (= row_ptr[n]; nnz <= 2^31 - 1 with
 *                         MPCG_INDEX_INT32 row pointers).
 * @param[in] row_ptr_dev  device, n + 1 entries of row_ptr_type, 0-based.
 * @param[in] row_ptr_type MPCG_INDEX_INT32 or MPCG_INDEX_INT64 (backends with 32-bit row
 *                         pointers, such as cusparse, make an int32 copy of int64 ones on the
 *                         device: 4 (n + 1) bytes, once per matrix).
 * @param[in] col_idx_dev  device, nnz int32 column indices (NULL only if nnz = 0).
 * @param[in] val_dev      device, nnz fp64 values (NULL only if nnz = 0). fp32 solves make
 *                         their fp32 copy on the device; fp32 input values are not taken.
 * @param[out] out         the matrix, NULL on failure.
 * @return MPCG_SUCCESS; MPCG_ERR_INVALID_ARG (NULL, n or nnz out of range, an unknown
 *         row_ptr_type, a pointer that is host memory, memory of another GPU or misaligned for
 *         its type, a structure error naming the first offending entry); MPCG_ERR_INVALID_STATE
 *         (ctx on the CPU); MPCG_ERR_NO_DEVICE (a build without CUDA); MPCG_ERR_HOST_ALLOC;
 *         MPCG_ERR_DEVICE_ALLOC; MPCG_ERR_CUDA.
 * Host-side calls on a view copy it to the host first (device to host, kept by the matrix and
 * refreshed with its values): mpcg_matrix_csr, mpcg_matrix_describe, mpcg_matrix_write_mm,
 * mpcg_backend_describe, mpcg_matrix_check with flags, and setups of the bjacobi preconditioner
 * or of a backend that builds its layout on the host (cusparsesell). mpcg_matrix_update_values
 * (host values) refuses a view.
 * Thread safety: one thread at a time per context.
 * @see mpcg_matrix_update_values_device, mpcg_matrix_create_csr, docs/embedding.md
 */
MPCG_API mpcg_status mpcg_matrix_view_device_csr(mpcg_context *ctx, int64_t n, int64_t nnz,
                                                 const void *row_ptr_dev,
                                                 mpcg_index_type row_ptr_type,
                                                 const int32_t *col_idx_dev,
                                                 const double *val_dev, mpcg_matrix **out);

/**
 * New values of a device view (same pattern), without a trip through the host: from now on A
 * reads val_dev, which may be the array it had (rewritten in place) or another one (as
 * cusparseCsrSetPointers); the caller keeps it alive. Solvers set up on A refresh only their
 * numeric setup at their next solve, on the context's stream, reading val_dev there: write it on
 * that stream (or synchronise) before the solve, and leave it unchanged until the solve returns.
 * The values are not checked here (mpcg_matrix_check does it on demand). A view that has a host
 * copy (see mpcg_matrix_view_device_csr) copies the new values to the host too (8 nnz bytes,
 * device to host, synchronising the stream).
 * @param[in] A        a matrix made by mpcg_matrix_view_device_csr.
 * @param[in] val_dev  device, nnz fp64 values in A's CSR order (NULL only if nnz = 0).
 * @return MPCG_SUCCESS; MPCG_ERR_INVALID_ARG (invalid A, NULL, a host pointer, memory of another
 *         GPU); MPCG_ERR_INVALID_STATE (A holds host CSR: use mpcg_matrix_update_values);
 *         MPCG_ERR_CUDA.
 */
MPCG_API mpcg_status mpcg_matrix_update_values_device(mpcg_matrix *A, const double *val_dev);

/** Checks of mpcg_matrix_check(). */
enum {
    MPCG_CHECK_DIAGONAL = 1u << 0, /**< warn (log) about missing, zero or negative diagonal */
    MPCG_CHECK_SYMMETRY = 1u << 1  /**< fail unless A equals its transpose exactly */
};

/**
 * Validate a matrix: values are always checked finite; flags add the checks above. A device
 * view (mpcg_matrix_view_device_csr) is checked on the device (its structure again and its
 * current values); flags then read a host copy of it.
 * @return MPCG_SUCCESS; MPCG_ERR_INVALID_ARG naming the first offending entry (non-finite
 *         value, or A(i,j) != A(j,i) with MPCG_CHECK_SYMMETRY).
 */
MPCG_API mpcg_status mpcg_matrix_check(const mpcg_matrix *A, unsigned flags);

/**
 * What mpcg_matrix_describe() finds about a matrix (`cgsolve --info`). Rows and columns are
 * 0-based here (reports add 1). A plain output struct: fields are only ever added at the end,
 * never reordered or removed.
 */
typedef struct mpcg_matrix_facts {
    int64_t n;                    /**< rows = columns */
    int64_t nnz;                  /**< stored nonzeros of the expanded matrix */
    int64_t nnz_stored;           /**< entries listed in the file (a coordinate file's declared
                                       count, every value of an array file); nnz otherwise */
    int from_file;                /**< 1 if read by mpcg_matrix_read_mm (the words below are
                                       its banner's), 0 for generated or created matrices */
    char format[16];              /**< "coordinate" or "array"; "" unless from_file */
    char field[16];               /**< "real", "integer" or "pattern"; "" unless from_file */
    char declared_symmetry[16];   /**< "general", "symmetric", "skew-symmetric" or
                                       "hermitian"; "" unless from_file */
    int symmetric;                /**< A(i,j) == A(j,i) exactly (a missing entry counts as 0) */
    int skew_symmetric;           /**< A(i,j) == -A(j,i) for all i, j */
    int structurally_symmetric;   /**< (i,j) is stored exactly when (j,i) is */
    int64_t asymmetric_entries;   /**< stored entries with A(i,j) != A(j,i) */
    int64_t first_asymmetric_row; /**< the first of them in row order; -1 if none */
    int64_t first_asymmetric_col; /**< its column; -1 if none */
    int64_t diag_positive, diag_missing, diag_zero, diag_negative; /**< they sum to n */
    int64_t first_missing, first_zero, first_negative; /**< first such row; -1 if none */
    int64_t row_nnz_min, row_nnz_max; /**< nonzeros of the shortest and longest row */
    int64_t empty_rows;               /**< rows without a stored entry */
    double row_nnz_mean;              /**< nnz / n */
    double row_nnz_stddev;            /**< population standard deviation of the row lengths */
} mpcg_matrix_facts;

/**
 * Describe A: size, the file's banner (when read from a file), how A relates to its transpose,
 * the diagonal and the row lengths. One pass of the same symmetry scan as
 * mpcg_matrix_check(A, MPCG_CHECK_SYMMETRY), which this call does not fail on: a non-symmetric
 * A is a fact here, not an error. O(nnz log(nnz / n)) on the host; never touches a GPU.
 * @param[in]  A    a matrix.
 * @param[out] out  the facts (host).
 * @return MPCG_SUCCESS; MPCG_ERR_INVALID_ARG (invalid A, out NULL).
 * Thread safety: safe with other read-only calls on A.
 * @see mpcg_matrix_check, mpcg_backend_describe
 */
MPCG_API mpcg_status mpcg_matrix_describe(const mpcg_matrix *A, mpcg_matrix_facts *out);

/**
 * Write the matrix as "%%MatrixMarket matrix coordinate real general", 1-based, row by row,
 * with %.17g values (in any locale), which mpcg_matrix_read_mm reads back bit-identically.
 * A write that fails removes the partial file (if it is a regular file).
 * @return MPCG_SUCCESS; MPCG_ERR_INVALID_ARG (A invalid or path NULL); MPCG_ERR_IO (cannot
 *         create or write, message names the path; recorded in A's context);
 *         MPCG_ERR_NOT_SUPPORTED (a path ending in ".gz": compression is not written);
 *         MPCG_ERR_HOST_ALLOC.
 */
MPCG_API mpcg_status mpcg_matrix_write_mm(const mpcg_matrix *A, const char *path);

/* ---------------------------------------------------------------- vectors (I/O) */

/**
 * Read a dense vector: a Matrix Market "array" real or integer general file of n x 1 (or 1 x n),
 * or a coordinate real or integer general file of n x 1 (or 1 x n) where missing entries are
 * zero and duplicates are summed. ".gz" and errors as in mpcg_matrix_read_mm.
 * @param[out] n  its length (0 on failure).
 * @param[out] x  a new host array of n doubles; release it with mpcg_free(). NULL on failure.
 * @return MPCG_SUCCESS; MPCG_ERR_INVALID_ARG; MPCG_ERR_IO; MPCG_ERR_PARSE ("path:line: what");
 *         MPCG_ERR_NOT_SUPPORTED (.gz without zlib); MPCG_ERR_HOST_ALLOC.
 */
MPCG_API mpcg_status mpcg_vector_read_mm(mpcg_context *ctx, const char *path, int64_t *n,
                                         double **x);

/**
 * Write x (host, n entries, 1 <= n <= 2^31 - 1, all finite) as a Matrix Market "array real
 * general" n x 1 file, %.17g, which mpcg_vector_read_mm reads back bit-identically.
 * @return MPCG_SUCCESS; MPCG_ERR_INVALID_ARG (NULL, n out of range, a non-finite value);
 *         MPCG_ERR_IO (the partial file is removed); MPCG_ERR_NOT_SUPPORTED (".gz");
 *         MPCG_ERR_HOST_ALLOC.
 */
MPCG_API mpcg_status mpcg_vector_write_mm(mpcg_context *ctx, const char *path, int64_t n,
                                          const double *x);

/**
 * Read a dense rows x cols block (several vectors: the right-hand sides of mpcg_solve_block) as
 * mpcg_vector_read_mm reads a vector: an "array" file (column by column, as stored) or a
 * "coordinate" file (missing entries zero, duplicates summed).
 * @param[out] x  a new host array, column-major (column j at x + j rows); mpcg_free() it.
 * @return as mpcg_vector_read_mm.
 */
MPCG_API mpcg_status mpcg_dense_read_mm(mpcg_context *ctx, const char *path, int64_t *rows,
                                        int64_t *cols, double **x);

/**
 * Read a dense block that must have `rows` rows (the n of the system it belongs to), as
 * mpcg_dense_read_mm reads one: the size line is checked first, and a file of another row count
 * is refused there, before any value is read or allocated ("path:line: R rows, but N
 * expected"), however large the count it declares.
 * @param[in]  rows  the rows the file must have, >= 1.
 * @param[out] cols  its columns (0 on failure).
 * @param[out] x     a new host array, column-major; mpcg_free() it. NULL on failure.
 * @return as mpcg_dense_read_mm; MPCG_ERR_PARSE also for a file of other than `rows` rows;
 *         MPCG_ERR_INVALID_ARG also for rows < 1.
 */
MPCG_API mpcg_status mpcg_dense_read_mm_rows(mpcg_context *ctx, const char *path, int64_t rows,
                                             int64_t *cols, double **x);

/** Write a rows x cols column-major block as an "array real general" file (as
 * mpcg_vector_write_mm, which is the cols = 1 case). */
MPCG_API mpcg_status mpcg_dense_write_mm(mpcg_context *ctx, const char *path, int64_t rows,
                                         int64_t cols, const double *x);

/** Release memory the library returned (mpcg_vector_read_mm). Accepts NULL. */
MPCG_API void mpcg_free(void *p);

/* ---------------------------------------------------------------- solver */

/**
 * Create a CG solver for A (which must outlive the solver). Defaults: backend "auto" ("cpu" on
 * the CPU; on a GPU the fastest candidate, timed on A at setup or found in the context's cache:
 * mpcg_solver_backend_choice), precision fp64, preconditioner auto (Jacobi unless A's diagonal
 * is constant), tol 1e-8 (relative), maxit max(100, 10 n), zero initial guess, no monitor
 * (docs/options.md, "Defaults").
 * @return MPCG_SUCCESS; MPCG_ERR_INVALID_ARG; MPCG_ERR_INVALID_STATE (A of another context);
 *         MPCG_ERR_HOST_ALLOC.
 */
MPCG_API mpcg_status mpcg_solver_create(mpcg_context *ctx, mpcg_matrix *A, mpcg_solver **out);

/** Destroy a solver and its setup state. Accepts NULL. */
MPCG_API void mpcg_solver_destroy(mpcg_solver *solver);

/** SpMV backend by registry name ("auto", "cpu", ...; see mpcg_backend_get). Takes effect at
 *  the next setup. @return MPCG_ERR_INVALID_ARG for an unknown name (the message lists the
 *  known ones); MPCG_ERR_NOT_SUPPORTED if the backend is not in this build. */
MPCG_API mpcg_status mpcg_solver_set_spmv(mpcg_solver *solver, const char *name);

/** Precision of the solve, stored for the next setup: MPCG_PRECISION_FP64, _FP32 or _MIXED (b
 *  and x stay double arrays in all three; docs/precision.md). @return MPCG_SUCCESS;
 *  MPCG_ERR_INVALID_ARG for a value that is none of the three. */
MPCG_API mpcg_status mpcg_solver_set_precision(mpcg_solver *solver, mpcg_precision precision);

/** Preconditioner of the solve, for the next setup (docs/preconditioners.md): MPCG_PRECOND_AUTO
 *  (the default, in every interface: Jacobi unless A's diagonal is constant, then none;
 *  mpcg_info.precond names the one it chose), _NONE (plain CG), _JACOBI, _BJACOBI (option
 *  precond.block_size) or _CHEBYSHEV (precond.degree, precond.lmin_divisor). Built at setup from A's values and rebuilt after
 *  mpcg_matrix_update_values; a diagonal entry <= 0 fails the setup with MPCG_ERR_INVALID_ARG
 *  naming the row. On a GPU, fp64 Jacobi is fused into the launched and graph variants; the
 *  others, and every fp32 or mixed PCG, run the host variant over device vectors.
 *  @return MPCG_SUCCESS; MPCG_ERR_INVALID_ARG for a value outside the enum. */
MPCG_API mpcg_status mpcg_solver_set_precond(mpcg_solver *solver, mpcg_precond precond);

/** mpcg_solver_set_precond from a name (mpcg_precond_parse: "bjacobi:24", "chebyshev:4", ...),
 *  its number set as the option it stands for (precond.block_size, precond.degree), whose
 *  range is checked there. On failure nothing changes.
 *  @return MPCG_SUCCESS; MPCG_ERR_INVALID_ARG for a bad name or a number out of range. */
MPCG_API mpcg_status mpcg_solver_set_precond_spec(mpcg_solver *solver, const char *spec);

/** Relative tolerance: stop when ||b - A x|| <= max(tol ||b||, atol) (atol: 0 unless
 *  mpcg_solver_set_atol). 0 < tol < 1. */
MPCG_API mpcg_status mpcg_solver_set_tol(mpcg_solver *solver, double tol);

/**
 * Absolute tolerance, as PETSc's abstol and SciPy's atol: the solve converges when the true
 * residual ||b - A x|| <= max(tol ||b||, atol), recomputed in fp64 as for tol alone. It is the
 * same test in every CG variant, precision and preconditioner, and per column in block solves.
 * Where atol > tol ||b|| decides, the reason is MPCG_CONVERGED_ATOL, else MPCG_CONVERGED_RTOL.
 * b = 0 still ends at once with x = 0 (MPCG_CONVERGED_ZERO_RHS); a b with ||b|| <= atol ends
 * after the initial residual, without an iteration. Used by the next solve (no new setup).
 * @param[in] atol  >= 0 and finite, in the units of b; 0 (the default) is the relative test
 *                  alone, bit for bit the solve without this call.
 * @return MPCG_SUCCESS; MPCG_ERR_INVALID_ARG (NULL solver, atol < 0, NaN or Inf).
 * Thread safety: not while another call uses the solver.
 * @see mpcg_solver_set_tol, mpcg_info
 */
MPCG_API mpcg_status mpcg_solver_set_atol(mpcg_solver *solver, double atol);

/** Maximum number of iterations, >= 0 (0 only computes the residual of the guess). */
MPCG_API mpcg_status mpcg_solver_set_maxit(mpcg_solver *solver, int64_t maxit);

/** Zero (default) or provided initial guess. */
MPCG_API mpcg_status mpcg_solver_set_initial_guess(mpcg_solver *solver, mpcg_guess guess);

/** Call fn every `every` iterations (and at iteration 0); every <= 0 or fn NULL turns it off. */
MPCG_API mpcg_status mpcg_solver_set_monitor(mpcg_solver *solver, int64_t every, mpcg_monitor_fn fn,
                                             void *user);

/**
 * Record the residual history of each solve, as PETSc's KSPSetResidualHistory: one entry each
 * time the solve reads the recurrence residual, with the true residual where the solve computes
 * one (docs/history.md). On the CPU, and in the host variant on a GPU, that is every iteration,
 * so a solve of k iterations has k + 1 entries (0 .. k). The GPU variants (launched, graph,
 * persistent loops) read the residual once a check window (mpcg_solver_set_check_interval;
 * with a monitor, at the monitor's iterations), so they record iteration 0 and the end of each
 * window: set the check interval to 1 for every iteration, at the cost of a round trip each.
 * True residuals: iteration 0 (b - A x0; b for a zero guess), every check of the true residual
 * (residual replacements, mixed reliable updates and refinement steps) and the end; the others
 * are NaN. A b = 0 records nothing (count 0). A block solve (mpcg_solve_block) records one
 * history per column instead (mpcg_solver_get_block_history); this one then has count 0.
 * @param[in] on  nonzero: record from the next solve on; 0: stop and release the history.
 * @return MPCG_SUCCESS; MPCG_ERR_INVALID_ARG (NULL solver).
 * Recording allocates host memory as the history grows (doubling, 32 bytes an entry); a solve
 * whose history cannot grow fails with MPCG_ERR_HOST_ALLOC (the entries so far stay readable).
 * Thread safety: not while another call uses the solver.
 * @see mpcg_solver_get_history
 */
MPCG_API mpcg_status mpcg_solver_set_history(mpcg_solver *solver, int on);

/**
 * The residual history of the last solve (mpcg_solver_set_history), as PETSc's
 * KSPGetResidualHistory, one array per column; entry i describes iteration iteration[i]
 * (strictly increasing).
 * @param[out] count        entries (0 when the history is off, before a solve, after a block
 *                          solve (mpcg_solver_get_block_history) or a b = 0); must not be NULL.
 * @param[out] iteration    the iteration of each entry (0 = the initial residual).
 * @param[out] relres       the recurrence residual ||r_k|| / ||b|| (NaN if that iteration had
 *                          only a true residual; the solvers read the recurrence one wherever
 *                          they compute a true one, so this is for completeness).
 * @param[out] true_relres  ||b - A x_k|| / ||b|| computed in fp64 at that iteration, or NaN.
 * @param[out] time_s       seconds since the solve began (the clock of info->solve_time_s),
 *                          non-decreasing.
 * Any of the four array pointers may be NULL (not wanted); each is set to NULL when count is 0.
 * The arrays belong to the solver: read-only, valid until the next solve, the next
 * mpcg_solver_set_history or mpcg_solver_destroy (copy them to keep them).
 * @return MPCG_SUCCESS; MPCG_ERR_INVALID_ARG (NULL solver or count).
 * Thread safety: safe with other read-only calls on the solver, not during a solve.
 */
MPCG_API mpcg_status mpcg_solver_get_history(const mpcg_solver *solver, int64_t *count,
                                             const int64_t **iteration, const double **relres,
                                             const double **true_relres, const double **time_s);

/**
 * The residual history of column `column` of the last block solve (mpcg_solve_block, with
 * mpcg_solver_set_history on), as mpcg_solver_get_history gives a single solve's: one entry per
 * block iteration the column took part in, 0 (its initial residual, true) to the iteration it
 * converged or stopped at; the recurrence residual ||r_k|| / ||b_column|| of each, the true one
 * where the block solve computed it (the start, each check of the converging columns, the end),
 * else NaN; seconds since the solve began. Columns solved in groups (more than 32) count their
 * iterations from 0 in their group. count is 0 for a b = 0 column, for a column the last solve
 * did not have, after a single solve and with the history off.
 * @param[in] column  0 .. 63.
 * The arrays belong to the solver, valid until the next solve, mpcg_solver_set_history or
 * mpcg_solver_destroy.
 * @return MPCG_SUCCESS; MPCG_ERR_INVALID_ARG (NULL solver or count, column out of range).
 * Thread safety: safe with other read-only calls on the solver, not during a solve.
 */
MPCG_API mpcg_status mpcg_solver_get_block_history(const mpcg_solver *solver, int column,
                                                   int64_t *count, const int64_t **iteration,
                                                   const double **relres,
                                                   const double **true_relres,
                                                   const double **time_s);

/**
 * A block solve's monitor: fn(k, column, recurrence relres of that column, user) for every
 * column still iterating at block iteration 0 and every `every`-th one after, in the caller's
 * column order, from the solving thread. every <= 0 or fn NULL turns it off. mpcg_solve and
 * mpcg_solve_device do not call it (their monitor is mpcg_solver_set_monitor's).
 * @return MPCG_SUCCESS; MPCG_ERR_INVALID_ARG (NULL solver).
 */
MPCG_API mpcg_status mpcg_solver_set_block_monitor(mpcg_solver *solver, int64_t every,
                                                   mpcg_block_monitor_fn fn, void *user);

/**
 * A progress callback: fn(iteration, recurrence relres, user) each time the solve reads the
 * residual (the entries of the history): every iteration of the host loop, once a check window
 * on a GPU. Unlike a monitor, it does not make the GPU read the residual more often, so it
 * costs a GPU solve nothing; cgsolve's progress line uses it. It is called from the solving
 * thread and must return quickly (rate-limit any output). fn NULL turns it off.
 * @return MPCG_SUCCESS; MPCG_ERR_INVALID_ARG (NULL solver).
 * @see mpcg_solver_set_monitor
 */
MPCG_API mpcg_status mpcg_solver_set_progress(mpcg_solver *solver, mpcg_monitor_fn fn,
                                              void *user);

/**
 * A preconditioner of the caller's (mpcg_solver_set_precond_callback): z = M r for the n doubles
 * of r, M an SPD approximation of A^-1 (SciPy's M). r and z are host arrays. Return 0 to go on;
 * anything else ends the solve with MPCG_ERR_INVALID_ARG.
 */
typedef int (*mpcg_precond_fn)(const double *r, double *z, void *user);

/**
 * Use fn as the preconditioner of the next setup and its solves (PCG with z = fn(r) in the host
 * loop, solver/cg.c), in place of the one of mpcg_solver_set_precond, which applies again once fn
 * is NULL. The solve runs the host variant (docs/solver.md): auto chooses it, and cg.variant
 * naming another fails the setup with MPCG_ERR_NOT_SUPPORTED. Precision fp64 only (setup:
 * MPCG_ERR_NOT_SUPPORTED otherwise); mpcg_solve_block refuses it (MPCG_ERR_NOT_SUPPORTED). On a
 * GPU context, r is copied to the host and z back every iteration. info.precond is "callback".
 * @param[in] fn    the preconditioner, or NULL to remove it.
 * @param[in] user  passed to fn.
 * @return MPCG_SUCCESS; MPCG_ERR_INVALID_ARG (NULL solver).
 * Thread safety: not while another call uses the solver.
 * @see mpcg_solver_set_iterate_callback
 */
MPCG_API mpcg_status mpcg_solver_set_precond_callback(mpcg_solver *solver, mpcg_precond_fn fn,
                                                      void *user);

/**
 * The caller's view of the iterate (mpcg_solver_set_iterate_callback): called after every
 * iteration with its number (1, 2, ...) and x_k, n doubles on the host, read-only and valid
 * during the call. Return 0 to go on; anything else ends the solve with MPCG_ERR_INVALID_ARG.
 */
typedef int (*mpcg_iterate_fn)(int64_t iteration, const double *x, void *user);

/**
 * Call fn after every iteration with x_k (SciPy's callback(xk)). As for
 * mpcg_solver_set_precond_callback: the host variant runs (auto chooses it, cg.variant naming
 * another fails the setup), fp64 only, not in mpcg_solve_block; on a GPU context x is copied to
 * the host every iteration. Takes effect at the next setup (the next solve runs it).
 * @param[in] fn    the callback, or NULL to remove it.
 * @return MPCG_SUCCESS; MPCG_ERR_INVALID_ARG (NULL solver).
 * Thread safety: not while another call uses the solver.
 * @see mpcg_solver_set_progress (the residual alone, and no cost on a GPU)
 */
MPCG_API mpcg_status mpcg_solver_set_iterate_callback(mpcg_solver *solver, mpcg_iterate_fn fn,
                                                      void *user);

/** If on, a solve that does not converge returns MPCG_ERR_NOT_CONVERGED (info still filled). */
MPCG_API mpcg_status mpcg_solver_set_error_if_not_converged(mpcg_solver *solver, int on);

/**
 * How often the GPU solve reads the residual. On a GPU, CG keeps its scalars on the device and
 * the host queues K iterations before it waits for the device and checks the stop tests; the
 * device stops by itself, so results, reasons and info->iterations do not depend on K (only the
 * time does: up to K - 1 queued iterations run as empty kernels after the stop).
 * @param[in] K  >= 1: a fixed interval; 0 (default): adaptive (4 at first, doubling up to 64
 *               while tol is far, then half the iterations the residual's decay rate still
 *               predicts; 1024 in the persistent loops of small systems, which stop
 *               themselves, unless a history or progress callback is on). With a monitor
 *               (mpcg_solver_set_monitor), windows end at the monitor's iterations instead.
 *               docs/solver.md, "The GPU iteration".
 * Takes effect at the next setup (the next solve runs it). Ignored on the CPU.
 * @return MPCG_SUCCESS; MPCG_ERR_INVALID_ARG (NULL solver, K < 0).
 * Thread safety: not while another call uses the solver.
 * @see mpcg_solver_set_monitor, mpcg_info
 */
MPCG_API mpcg_status mpcg_solver_set_check_interval(mpcg_solver *solver, int64_t K);

/**
 * Set a tuning option by its dotted key (as PETSc's -ksp_* options or AmgX's config keys):
 * "cg.variant", "cg.check_interval", "adaptive.mode", ... mpcg_option_count() and
 * mpcg_option_get() list every key with its default and range (`cgsolve --help-options`).
 * The value is checked here; it takes effect at the next setup (the next solve runs it).
 * Options are applied in order over the defaults; mpcg_solver_create() first applies the
 * environment variable MPCG_OPTIONS="key=value,key=value" (read once per solver, the only
 * environment variable the library reads), so a benchmark sweep can set options of a program
 * that does not expose them.
 * @param[in] key    a key of mpcg_option_get (host string).
 * @param[in] value  its value as text: a number, a word of its range, or "auto" where the range
 *                   says so.
 * @return MPCG_SUCCESS; MPCG_ERR_INVALID_ARG (NULL solver, unknown key: the message lists the
 *         valid keys; bad value: the message gives the key's range).
 * Thread safety: not while another call uses the solver.
 * @see mpcg_option_count, mpcg_option_get
 */
MPCG_API mpcg_status mpcg_solver_set_option(mpcg_solver *solver, const char *key,
                                            const char *value);

/** Number of option keys of this build (the solver's and every compiled backend's). */
MPCG_API int mpcg_option_count(void);

/** Describe option i in [0, mpcg_option_count()). @return MPCG_ERR_INVALID_ARG otherwise. */
MPCG_API mpcg_status mpcg_option_get(int i, mpcg_option_info *info);

/**
 * Analyse the matrix for the chosen backend and allocate all work space. Optional: the first
 * mpcg_solve() runs it. Re-run automatically after option or value changes.
 * @return MPCG_SUCCESS; MPCG_ERR_INVALID_ARG (NULL); MPCG_ERR_NOT_SUPPORTED (backend x
 *         precision x device); MPCG_ERR_HOST_ALLOC; MPCG_ERR_DEVICE_ALLOC; MPCG_ERR_CUDA/...
 */
MPCG_API mpcg_status mpcg_solver_setup(mpcg_solver *solver);

/**
 * Solve A x = b with CG. b and x are host arrays of n doubles.
 * @param[in]     b     right-hand side (host).
 * @param[in,out] x     on entry the initial guess if MPCG_GUESS_PROVIDED (else ignored); on
 *                      exit the last iterate, also when the solve did not converge (host).
 * @param[out]    info  what happened; may be NULL.
 * @return MPCG_SUCCESS whether or not it converged (see info->reason); MPCG_ERR_INVALID_ARG
 *         (NULL b/x, or NaN/Inf in b or in the guess); MPCG_ERR_NOT_CONVERGED (only with
 *         error_if_not_converged); the setup statuses.
 */
MPCG_API mpcg_status mpcg_solve(mpcg_solver *solver, const double *b, double *x, mpcg_info *info);

/**
 * Solve A x = b with CG where b and x are already in GPU memory: nothing is copied between host
 * and device (only the scalars of the iteration). Same options, setup and results as mpcg_solve().
 * @param[in]     b_dev  right-hand side, n doubles on the context's GPU.
 * @param[in,out] x_dev  n doubles on the context's GPU: on entry the initial guess if
 *                       MPCG_GUESS_PROVIDED (else ignored); on exit the last iterate.
 * @param[out]    info   what happened (host); may be NULL.
 * Both arrays must stay valid and untouched by other work until the call returns; the solve is
 * ordered on the context's stream (mpcg_context_stream), so kernels that produced b_dev on that
 * stream are finished first, and x_dev is complete when the call returns. The context's GPU must
 * be the calling thread's current CUDA device (as for any CUDA call on these pointers).
 * Validation differs from mpcg_solve() only where the data lives: a NaN in b_dev or in the guess
 * gives MPCG_ERR_INVALID_ARG (found through the norm, so the message names no index); an Inf
 * makes the norm infinite and the solve stops with MPCG_DIVERGED_NAN, as an overflowing ||b||
 * does in mpcg_solve().
 * @return as mpcg_solve(); MPCG_ERR_INVALID_STATE if the context is not on a GPU.
 * Thread safety: not while another call uses the solver or its context.
 * @see mpcg_solve, mpcg_context_set_stream
 */
MPCG_API mpcg_status mpcg_solve_device(mpcg_solver *solver, const double *b_dev, double *x_dev,
                                       mpcg_info *info);

/**
 * Solve A X = B for nrhs right-hand sides at once with block CG (docs/block.md): one SpMM a
 * step for the whole block. Option block.method: "block" (O'Leary's block CG, its search
 * directions orthonormalised and the dependent ones dropped, so duplicate or converged columns
 * do no harm) or "independent" (nrhs CGs sharing the SpMM); block.rank_digits.
 * @param[in]  nrhs   1 .. 64.
 * @param[in]  B      host, n x nrhs column-major (column j at B + j n).
 * @param[in,out] X   host, n x nrhs column-major: the initial guess if
 *                    mpcg_solver_set_initial_guess(PROVIDED), the solution on return.
 * @param[out] infos  nrhs infos, one per column: reason, iterations (the step at which that
 *                    column converged), true_relres, recurrence_relres; spmvs counts the
 *                    block products of the whole solve.
 * @return MPCG_SUCCESS; MPCG_ERR_INVALID_ARG (nrhs out of range, NULL, a column of B not
 *         finite); MPCG_ERR_NOT_SUPPORTED (precision other than fp64, a backend without a block
 *         product: --list-backends); MPCG_ERR_NOT_CONVERGED with error_if_not_converged.
 * Thread safety: not while another call uses the solver or its context.
 */
MPCG_API mpcg_status mpcg_solve_block(mpcg_solver *solver, int nrhs, const double *B, double *X,
                                      mpcg_info *infos);

/** mpcg_solve_block on device arrays (n x nrhs column-major); GPU contexts only. */
MPCG_API mpcg_status mpcg_solve_block_device(mpcg_solver *solver, int nrhs, const double *B_dev,
                                             double *X_dev, mpcg_info *infos);

/* ---------------------------------------------------------------- batches of small systems */

/** The largest system a batch takes (rows); a bigger one is for mpcg_solve (docs/batched.md). */
#define MPCG_BATCH_MAX_ROWS 16384

/** What the batched CG did for one system (mpcg_batch_solve). */
typedef struct mpcg_batch_result {
    mpcg_reason reason;       /**< MPCG_CONVERGED_RTOL, MPCG_CONVERGED_ZERO_RHS, or why not */
    int64_t iterations;       /**< CG steps of this system */
    double true_relres;       /**< ||b_i - A_i x_i|| / ||b_i||, in fp64 at exit (0 for b_i = 0) */
    double recurrence_relres; /**< CG's recurrence residual at exit, relative */
} mpcg_batch_result;

/**
 * Create a batch of k independent square systems A_i from one concatenated CSR (host arrays,
 * copied). System i owns rows offsets[i] .. offsets[i + 1] - 1 of the concatenation (n_i =
 * offsets[i + 1] - offsets[i] rows, 1 <= n_i <= MPCG_BATCH_MAX_ROWS); the column indices of its
 * rows are local, in [0, n_i). The matrices should be SPD: a member that is not is reported by
 * mpcg_batch_solve in its result, without spoiling the others.
 * @param[in] k        systems, >= 0 (an empty batch solves nothing).
 * @param[in] offsets  host, k + 1 entries, offsets[0] = 0, increasing.
 * @param[in] row_ptr  host, offsets[k] + 1 entries, row_ptr[0] = 0, non-decreasing, into
 *                     col_idx and val.
 * @param[in] col_idx  host, row_ptr[offsets[k]] local column indices, sorted and distinct in a
 *                     row.
 * @param[in] val      host, row_ptr[offsets[k]] finite values.
 * @param[out] out     the batch, NULL on failure.
 * @return MPCG_SUCCESS; MPCG_ERR_INVALID_ARG (the message names the first offending system and
 *         entry; a system above MPCG_BATCH_MAX_ROWS rows is refused, naming mpcg_solve);
 *         MPCG_ERR_HOST_ALLOC; MPCG_ERR_DEVICE_ALLOC.
 * Thread safety: one thread at a time per context.
 */
MPCG_API mpcg_status mpcg_batch_create(mpcg_context *ctx, int64_t k, const int64_t *offsets,
                                       const int64_t *row_ptr, const int32_t *col_idx,
                                       const double *val, mpcg_batch **out);

/** New values for every system, the pattern unchanged (host array, row_ptr[offsets[k]]). */
MPCG_API mpcg_status mpcg_batch_update_values(mpcg_batch *batch, const double *val);

/** Destroy a batch. Accepts NULL. */
MPCG_API void mpcg_batch_destroy(mpcg_batch *batch);

/** Systems in the batch (0 if NULL). */
MPCG_API int64_t mpcg_batch_count(const mpcg_batch *batch);
/** Rows of all systems together, offsets[k] (0 if NULL). */
MPCG_API int64_t mpcg_batch_rows(const mpcg_batch *batch);

/** Relative tolerance of every system (default 1e-8; 0 < tol < 1). */
MPCG_API mpcg_status mpcg_batch_set_tol(mpcg_batch *batch, double tol);
/** Iteration cap of every system (default -1: max(100, 10 n_i) for system i). */
MPCG_API mpcg_status mpcg_batch_set_maxit(mpcg_batch *batch, int64_t maxit);
/** MPCG_PRECOND_AUTO (the default, as mpcg_solver's: Jacobi unless the diagonal of every
 *  system is one constant, resolved from the values at each solve), MPCG_PRECOND_NONE or
 *  MPCG_PRECOND_JACOBI; others are MPCG_ERR_NOT_SUPPORTED. */
MPCG_API mpcg_status mpcg_batch_set_precond(mpcg_batch *batch, mpcg_precond precond);
/** The preconditioner the next mpcg_batch_solve runs, auto resolved: MPCG_PRECOND_NONE or
 *  MPCG_PRECOND_JACOBI (MPCG_PRECOND_NONE for an invalid batch). */
MPCG_API mpcg_precond mpcg_batch_precond(const mpcg_batch *batch);

/**
 * Y_i = A_i X_i for every system in one launch (seed 000): X and Y hold the systems' blocks one
 * after another, system i's n_i x s block at row offsets[i], row-major (a row's s values
 * contiguous); host arrays of offsets[k] * s values.
 * @param[in] s  columns, 1 .. 64.
 * @return MPCG_SUCCESS; MPCG_ERR_INVALID_ARG.
 */
MPCG_API mpcg_status mpcg_batch_spmm(mpcg_batch *batch, int s, const double *X, double *Y);
/** mpcg_batch_spmm on device arrays; GPU contexts only. */
MPCG_API mpcg_status mpcg_batch_spmm_device(mpcg_batch *batch, int s, const double *X_dev,
                                            double *Y_dev);

/**
 * Solve A_i x_i = b_i for every system with CG (or Jacobi PCG), from x_i = 0, in one launch on a
 * GPU (each system in its own thread block with its own convergence test). b and x are
 * concatenated like the rows (offsets[k] values, host arrays). A system that stops without
 * converging (not SPD, iteration cap, NaN) has its reason in results[i] and is not an error.
 * @param[out] results  k entries (host).
 * @return MPCG_SUCCESS; MPCG_ERR_INVALID_ARG (NULL, a value of b not finite).
 */
MPCG_API mpcg_status mpcg_batch_solve(mpcg_batch *batch, const double *b, double *x,
                                      mpcg_batch_result *results);
/** mpcg_batch_solve on device b and x (results on the host); GPU contexts only. */
MPCG_API mpcg_status mpcg_batch_solve_device(mpcg_batch *batch, const double *b_dev, double *x_dev,
                                             mpcg_batch_result *results);

/**
 * How the most recent setup chose the SpMV backend: with `auto` on a GPU, every candidate with
 * its measured setup and SpMV times (or why it was skipped) and what the trial cost, or the
 * cached decision; a named backend gives source "fixed", auto on the CPU source "cpu".
 * @param[out] out  the choice (host).
 * @return MPCG_SUCCESS; MPCG_ERR_INVALID_ARG (NULL); MPCG_ERR_INVALID_STATE (no setup yet).
 * Thread safety: safe with other read-only calls on the solver.
 */
MPCG_API mpcg_status mpcg_solver_backend_choice(const mpcg_solver *solver,
                                                mpcg_backend_choice *out);

/* ---------------------------------------------------------------- backend introspection */

/** Number of SpMV backends compiled into this build ("auto" is a policy, not a backend). */
MPCG_API int mpcg_backend_count(void);

/** Describe backend i in [0, mpcg_backend_count()). @return MPCG_ERR_INVALID_ARG otherwise. */
MPCG_API mpcg_status mpcg_backend_get(int i, mpcg_backend_info *info);

/**
 * What a backend's analysis of a matrix chooses (mpcg_backend_describe). A plain output struct:
 * fields are only ever added at the end, never reordered or removed.
 */
typedef struct mpcg_backend_layout {
    const char *name;     /**< registry name of the backend ("auto" resolved); static storage */
    mpcg_status status;   /**< MPCG_SUCCESS, or why the backend cannot hold A (e.g.
                               MPCG_ERR_NOT_SUPPORTED: more nonzeros than its 32-bit indices) */
    char storage[256];    /**< the layout in words, e.g. "CSR, uniform path: 4 threads per
                               row"; "" unless status is MPCG_SUCCESS */
    char message[256];    /**< why not (the message without its source location); "" on
                               success */
    size_t bytes_matrix;  /**< bytes of A one fp64 SpMV reads in that layout; 0 on failure */
    double padding_ratio; /**< stored entries / nnz of that layout (1 for CSR); 0 on failure */
} mpcg_backend_layout;

/**
 * Run a backend's analysis of A on the host, with the default options and fp64 values, and say
 * what it would store, without setting up a solver or touching a GPU (`cgsolve --info`). For
 * a GPU backend the host analysis takes the decisions its device setup takes.
 * A backend that cannot hold A is not a failure of this call: out->status and out->message say
 * why, and A's context keeps the error it had.
 * @param[in]  A        a matrix.
 * @param[in]  backend  a registry name (mpcg_backend_get) or "auto" (resolved for A's context).
 * @param[out] out      the layout (host).
 * @return MPCG_SUCCESS; MPCG_ERR_INVALID_ARG (invalid A, out NULL, unknown backend: the message
 *         lists the known ones).
 * Thread safety: safe with other read-only calls on A.
 * @see mpcg_backend_get, mpcg_matrix_describe
 */
MPCG_API mpcg_status mpcg_backend_describe(const mpcg_matrix *A, const char *backend,
                                           mpcg_backend_layout *out);

/**
 * The backend "auto" resolves to on a context of this kind (mpcg_solver_set_spmv): "cpu" for
 * MPCG_DEVICE_CPU; for MPCG_DEVICE_CUDA, where auto times its candidates on the matrix at setup
 * (mpcg_solver_backend_choice), the first candidate of that trial (what mpcg_backend_describe
 * describes for "auto"). Static storage; NULL if this build has no backend for that kind (a GPU
 * in a build without CUDA) or kind is not a mpcg_device_kind. Thread safety: safe.
 */
MPCG_API const char *mpcg_backend_auto(mpcg_device_kind kind);

/** Number of usable GPUs on this machine (0 in a build without CUDA). Thread safety: safe. */
MPCG_API int mpcg_device_count(void);

#ifdef __cplusplus
}
#endif

#endif /* MPCG_H */
