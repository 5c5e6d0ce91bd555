/* bench/experiments/pool_cost.cu: what device allocations cost in a fresh process, cudaMalloc /
 * cudaFree against a context-owned stream-ordered pool (an experiment, not built by make;
 * issue 25, session 18)
 *
 * Build and run (the device machine has nvcc):
 *   nvcc -O2 -std=c++17 -arch=sm_90 bench/experiments/pool_cost.cu -o pool_cost && ./pool_cost
 *
 * The question: auto's trial builds four plans one after the other and frees the losers; each
 * plan makes 3 - 8 allocations of a few kB to a few hundred MB. Session 17 measured 75 - 390 us
 * a cudaMalloc or cudaFree there. Does a pool (cudaMemPoolCreate, release threshold kept high
 * while the trial runs, trimmed after) make the second and later plans' allocations cheap, and
 * what do the first allocations, the frees and the trim cost? Each line: the wall time of one
 * call (cudaFreeAsync followed by cudaStreamSynchronize where noted), in us.
 */
#include "experiment.cuh"
#include <chrono>
#include <cstdint>

static double now_us()
{
    return std::chrono::duration<double, std::micro>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

/* A plan's allocations, about poisson3d:128 fp64 sized (bytes). */
static const size_t plan_a[] = {16u << 20, 8u << 20, 96u << 20, 48u << 20, 4096, 1u << 20};
static const size_t plan_b[] = {150u << 20, 12u << 20, 64u << 10, 16u << 20};
static const size_t plan_c[] = {120u << 20, 60u << 20, 8u << 20, 256u << 10, 8u << 20};
#define NA (sizeof plan_a / sizeof plan_a[0])
#define NB (sizeof plan_b / sizeof plan_b[0])
#define NC (sizeof plan_c / sizeof plan_c[0])

__global__ void touch(char *p, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        p[i] = 1;
}

typedef void *(*alloc_fn)(size_t, cudaStream_t, cudaMemPool_t);
typedef void (*free_fn)(void *, cudaStream_t);

static void *plain_alloc(size_t b, cudaStream_t, cudaMemPool_t)
{
    void *p;
    CK(cudaMalloc(&p, b));
    return p;
}
static void plain_free(void *p, cudaStream_t)
{
    CK(cudaFree(p));
}
static void *pool_alloc(size_t b, cudaStream_t s, cudaMemPool_t pool)
{
    void *p;
    CK(cudaMallocFromPoolAsync(&p, b, pool, s));
    return p;
}
static void pool_free(void *p, cudaStream_t s)
{
    CK(cudaFreeAsync(p, s));
    CK(cudaStreamSynchronize(s));
}

/* One plan: allocate each array, touch it (a build writes it), sync; then (a loser) free. */
static double plan(const char *what, const size_t *sz, int n, alloc_fn al, free_fn fr,
                   cudaStream_t s, cudaMemPool_t pool, int do_free)
{
    void *p[8];
    double t_alloc = 0, t_free = 0;
    for (int i = 0; i < n; i++) {
        double t0 = now_us();
        p[i] = al(sz[i], s, pool);
        t_alloc += now_us() - t0;
        touch<<<264, 256, 0, s>>>((char *)p[i], sz[i]);
    }
    CK(cudaStreamSynchronize(s));
    if (do_free)
        for (int i = 0; i < n; i++) {
            double t0 = now_us();
            fr(p[i], s);
            t_free += now_us() - t0;
        }
    printf("  %-28s %d allocs %8.1f us  %d frees %8.1f us\n", what, n, t_alloc, do_free ? n : 0,
           t_free);
    return t_alloc + t_free;
}

/* Two rounds of a trial: plan a kept, b and c built and freed; each round's total. */
static void trial_rounds(alloc_fn al, free_fn fr, cudaStream_t s, cudaMemPool_t pool,
                         const char *note)
{
    for (int round = 0; round < 2; round++) {
        double tot = 0;
        tot += plan("plan a (kept)", plan_a, NA, al, fr, s, pool, 0);
        tot += plan("plan b (loses)", plan_b, NB, al, fr, s, pool, 1);
        tot += plan("plan c (loses)", plan_c, NC, al, fr, s, pool, 1);
        printf("  round %d total %.1f us%s\n", round, tot, note);
    }
}

int main()
{
    cudaStream_t s;
    double t0 = now_us();
    CK(cudaFree(0));
    printf("context: %.0f us\n", now_us() - t0);
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    int dev = 0;
    CK(cudaGetDevice(&dev));

    printf("cudaMalloc / cudaFree, a trial of three plans (two lose), then the same again:\n");
    trial_rounds(plain_alloc, plain_free, s, nullptr, "");

    for (int reserve = 0; reserve < 2; reserve++) {
        cudaMemPoolProps props = {};
        props.allocType = cudaMemAllocationTypePinned;
        props.location.type = cudaMemLocationTypeDevice;
        props.location.id = dev;
        cudaMemPool_t pool;
        t0 = now_us();
        CK(cudaMemPoolCreate(&pool, &props));
        uint64_t keep = UINT64_MAX;
        CK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep));
        printf("pool%s: create %.1f us\n", reserve ? " with a reserve" : "", now_us() - t0);
        if (reserve) {
            t0 = now_us();
            void *r;
            CK(cudaMallocFromPoolAsync(&r, 512u << 20, pool, s));
            CK(cudaFreeAsync(r, s));
            CK(cudaStreamSynchronize(s));
            printf("  reserve 512 MiB: %.1f us\n", now_us() - t0);
        }
        trial_rounds(pool_alloc, pool_free, s, pool, " (plan a's arrays stay)");
        size_t reserved = 0, used = 0;
        CK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &reserved));
        CK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &used));
        t0 = now_us();
        CK(cudaMemPoolTrimTo(pool, 0));
        double trim = now_us() - t0;
        size_t after = 0;
        CK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &after));
        printf("  trim: %.1f us; reserved %.1f -> %.1f MiB (in use %.1f MiB)\n", trim,
               reserved / 1048576.0, after / 1048576.0, used / 1048576.0);
        /* threshold 0: what an allocation and a free cost when nothing is kept */
        uint64_t none = 0;
        CK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &none));
        for (int k = 0; k < 3; k++) {
            t0 = now_us();
            void *q;
            CK(cudaMallocFromPoolAsync(&q, 64u << 20, pool, s));
            touch<<<264, 256, 0, s>>>((char *)q, 64u << 20);
            CK(cudaStreamSynchronize(s));
            double ta = now_us() - t0;
            t0 = now_us();
            pool_free(q, s);
            printf("  threshold 0: 64 MiB alloc+touch %.1f us, free+sync %.1f us\n", ta,
                   now_us() - t0);
        }
        /* a free of the kept plan's arrays at the end would go the same way: leak them here */
        CK(cudaDeviceSynchronize());
    }
    /* a small allocation's cost, the host's view */
    for (int k = 0; k < 3; k++) {
        t0 = now_us();
        void *q;
        CK(cudaMalloc(&q, 256));
        double ta = now_us() - t0;
        t0 = now_us();
        CK(cudaFree(q));
        printf("cudaMalloc 256 B %.1f us, cudaFree %.1f us\n", ta, now_us() - t0);
    }
    return 0;
}
