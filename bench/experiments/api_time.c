/* bench/experiments/api_time.c: an LD_PRELOAD shim that times the CUDA runtime calls a program
 * makes through libcudart.so (allocation, copies, synchronization, launches) and prints, at
 * exit, the calls and wall time of each on stderr. Where does a plan's setup spend its time?
 * There is no Nsight Systems on the GPU machine (an experiment, not built by make; issue 25,
 * session 17).
 *
 * Build and use:
 *   gcc -O2 -shared -fPIC -I/usr/local/cuda/include bench/experiments/api_time.c \
 *       -ldl -o api_time.so
 *   LD_PRELOAD=./api_time.so ./cgsolve -v ...
 * API_TIME_TRACE=<us> also prints each call that took longer than <us> microseconds, with its
 * time since the first call, so that the program's own log lines place it, and a launch's kernel
 * (a first launch loads the kernel's module: CUDA's lazy loading). Calls made inside
 * other libraries against their own static runtime (cuSPARSE's) are not seen.
 */
#define _GNU_SOURCE
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum {
    F_MALLOC,
    F_FREE,
    F_MALLOC_HOST,
    F_FREE_HOST,
    F_MEMCPY,
    F_MEMCPY_ASYNC,
    F_MEMSET_ASYNC,
    F_STREAM_SYNC,
    F_DEVICE_SYNC,
    F_EVENT_SYNC,
    F_LAUNCH,
    F_LAUNCH_EX,
    F_PROPS,
    F_FUNC_ATTR,
    F_COUNT
};

static const char *const names[F_COUNT] = {"cudaMalloc",
                                           "cudaFree",
                                           "cudaMallocHost",
                                           "cudaFreeHost",
                                           "cudaMemcpy",
                                           "cudaMemcpyAsync",
                                           "cudaMemsetAsync",
                                           "cudaStreamSynchronize",
                                           "cudaDeviceSynchronize",
                                           "cudaEventSynchronize",
                                           "cudaLaunchKernel",
                                           "cudaLaunchKernelExC",
                                           "cudaGetDeviceProperties",
                                           "cudaFuncGetAttributes"};

static double total[F_COUNT], t_first = -1;
static long calls[F_COUNT];
static double trace_us = -1;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static void *next(int f)
{
    static void *fn[F_COUNT];
    if (!fn[f]) fn[f] = dlsym(RTLD_NEXT, names[f]);
    if (!fn[f]) {
        fprintf(stderr, "api_time: %s not found\n", names[f]);
        abort();
    }
    return fn[f];
}

static double begin(void)
{
    double t = now();
    if (t_first < 0) {
        const char *s = getenv("API_TIME_TRACE");
        trace_us = s ? atof(s) : -1;
        t_first = t;
    }
    return t;
}

typedef cudaError_t (*name_fn)(const char **, const void *);

/* func: the kernel of a launch (its name is printed), or NULL */
static void end(int f, double t0, size_t bytes, const void *func)
{
    const double d = now() - t0;
    total[f] += d;
    calls[f]++;
    if (trace_us < 0 || d * 1e6 <= trace_us) return;
    const char *name = "";
    static name_fn get_name;
    if (func && !get_name) get_name = (name_fn)dlsym(RTLD_NEXT, "cudaFuncGetName");
    if (func && get_name && get_name(&name, func) != cudaSuccess) name = "?";
    fprintf(stderr, "api_time: +%.3f ms %s %.1f us", (t0 - t_first) * 1e3, names[f], d * 1e6);
    if (bytes) fprintf(stderr, " bytes %zu", bytes);
    fprintf(stderr, "%s%.120s\n", func ? " " : "", name);
}

#define WRAP_FN(f, bytes, func, call)                                                              \
    do {                                                                                           \
        double t0_ = begin();                                                                      \
        cudaError_t e_ = call;                                                                     \
        end(f, t0_, bytes, func);                                                                  \
        return e_;                                                                                 \
    } while (0)
#define WRAP(f, bytes, call) WRAP_FN(f, bytes, NULL, call)

typedef cudaError_t (*malloc_fn)(void **, size_t);
typedef cudaError_t (*free_fn)(void *);
typedef cudaError_t (*memcpy_fn)(void *, const void *, size_t, enum cudaMemcpyKind);
typedef cudaError_t (*memcpy_async_fn)(void *, const void *, size_t, enum cudaMemcpyKind,
                                       cudaStream_t);
typedef cudaError_t (*memset_async_fn)(void *, int, size_t, cudaStream_t);
typedef cudaError_t (*stream_fn)(cudaStream_t);
typedef cudaError_t (*void_fn)(void);
typedef cudaError_t (*event_fn)(cudaEvent_t);
typedef cudaError_t (*launch_fn)(const void *, dim3, dim3, void **, size_t, cudaStream_t);
typedef cudaError_t (*launch_ex_fn)(const cudaLaunchConfig_t *, const void *, void **);
typedef cudaError_t (*props_fn)(struct cudaDeviceProp *, int);
typedef cudaError_t (*attr_fn)(struct cudaFuncAttributes *, const void *);

cudaError_t cudaMalloc(void **p, size_t n)
{
    WRAP(F_MALLOC, n, ((malloc_fn)next(F_MALLOC))(p, n));
}
cudaError_t cudaFree(void *p)
{
    WRAP(F_FREE, 0, ((free_fn)next(F_FREE))(p));
}
cudaError_t cudaMallocHost(void **p, size_t n)
{
    WRAP(F_MALLOC_HOST, n, ((malloc_fn)next(F_MALLOC_HOST))(p, n));
}
cudaError_t cudaFreeHost(void *p)
{
    WRAP(F_FREE_HOST, 0, ((free_fn)next(F_FREE_HOST))(p));
}
cudaError_t cudaMemcpy(void *d, const void *s, size_t n, enum cudaMemcpyKind k)
{
    WRAP(F_MEMCPY, n, ((memcpy_fn)next(F_MEMCPY))(d, s, n, k));
}
cudaError_t cudaMemcpyAsync(void *d, const void *s, size_t n, enum cudaMemcpyKind k,
                            cudaStream_t st)
{
    WRAP(F_MEMCPY_ASYNC, n, ((memcpy_async_fn)next(F_MEMCPY_ASYNC))(d, s, n, k, st));
}
cudaError_t cudaMemsetAsync(void *d, int v, size_t n, cudaStream_t st)
{
    WRAP(F_MEMSET_ASYNC, n, ((memset_async_fn)next(F_MEMSET_ASYNC))(d, v, n, st));
}
cudaError_t cudaStreamSynchronize(cudaStream_t st)
{
    WRAP(F_STREAM_SYNC, 0, ((stream_fn)next(F_STREAM_SYNC))(st));
}
cudaError_t cudaDeviceSynchronize(void)
{
    WRAP(F_DEVICE_SYNC, 0, ((void_fn)next(F_DEVICE_SYNC))());
}
cudaError_t cudaEventSynchronize(cudaEvent_t e)
{
    WRAP(F_EVENT_SYNC, 0, ((event_fn)next(F_EVENT_SYNC))(e));
}
cudaError_t cudaLaunchKernel(const void *f, dim3 g, dim3 b, void **a, size_t sh, cudaStream_t st)
{
    WRAP_FN(F_LAUNCH, 0, f, ((launch_fn)next(F_LAUNCH))(f, g, b, a, sh, st));
}
cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t *c, const void *f, void **a)
{
    WRAP_FN(F_LAUNCH_EX, 0, f, ((launch_ex_fn)next(F_LAUNCH_EX))(c, f, a));
}
cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *p, int d)
{
    WRAP(F_PROPS, 0, ((props_fn)next(F_PROPS))(p, d));
}
cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes *a, const void *f)
{
    WRAP(F_FUNC_ATTR, 0, ((attr_fn)next(F_FUNC_ATTR))(a, f));
}

__attribute__((destructor)) static void report(void)
{
    if (t_first < 0) return;
    fprintf(stderr, "api_time: %.3f ms from the first call to exit\n", (now() - t_first) * 1e3);
    for (int f = 0; f < F_COUNT; f++)
        if (calls[f])
            fprintf(stderr, "api_time: %-28s %7ld calls %10.3f ms\n", names[f], calls[f],
                    total[f] * 1e3);
}
