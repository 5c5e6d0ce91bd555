/* core/launch.cuh: kernel launches with programmatic dependent launch (PDL) on Hopper, for the
 * kernels of the fused CG iteration */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef MPCG_CORE_LAUNCH_CUH
#define MPCG_CORE_LAUNCH_CUH

#include <cstdint>
#include <cuda_runtime.h>
#include <utility>

/*
 * A kernel launched with PDL may be scheduled while the kernel before it on the stream still
 * runs (once every block of that one has started: mpcgi_pdl_start), so its launch and block
 * dispatch overlap the other's last wave instead of following it. Its blocks then wait in
 * mpcgi_pdl_start until the kernel before has finished and its writes are visible, before they
 * read or write anything: the order and the results are those of a plain launch.
 *
 * Every kernel launched by mpcgi_launch calls mpcgi_pdl_start in every block before any early
 * return (a block that returned without waiting would let the kernel finish before its
 * predecessor, and the next kernel's wait would no longer cover that one), and before any
 * memory access but its early loads. On devices below compute capability 9.0 launches are
 * plain, and the wait is a no-op. (An environment knob that turned PDL off is gone:
 * docs/solver.md keeps its numbers.)
 *
 * Early loads: a kernel's blocks start only once every block of the kernel right ahead of it
 * has passed its own wait, so everything queued two kernels back or more has finished and its
 * writes are visible. Before its wait a kernel may therefore load what the kernel right ahead
 * of it does not write (the fused CG's update kernels: core/cg_kernels.cu), overlapping the
 * loads with that kernel's last wave; it writes nothing before the wait.
 */

/* Wait for the kernel before (PDL), then allow the kernel after to be scheduled. */
static __device__ __forceinline__ void mpcgi_pdl_start()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

/* Whether launches on the current device use PDL: compute capability 9.0 or more; asked once
 * per device (a benign race: every thread stores the same). */
static inline bool mpcgi_pdl_on()
{
    static signed char known[64]; /* 0 not asked, 1 on, -1 off */
    int dev = 0, major = 0;
    if (cudaGetDevice(&dev) != cudaSuccess || dev < 0 || dev >= 64) {
        (void)cudaGetLastError();
        return false;
    }
    if (known[dev] == 0) {
        const bool on = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) ==
                            cudaSuccess &&
                        major >= 9;
        (void)cudaGetLastError();
        known[dev] = on ? 1 : -1;
    }
    return known[dev] > 0;
}

/* Blocks for `items` work items, `per_block` to a block: at least 1, at most 65536 (the kernel
 * strides over the rest). Not to be confused with core/cuda_reduce.cuh's mpcgi_grid_for (n
 * entries of MPCGI_THREADS-thread blocks, at most `most` blocks): under one name, the two were
 * overloads, and core/cg_kernels.cu, which includes both headers, took this one for its
 * reductions (grids beyond the MPCGI_CG_BLOCKS partials above 2^20 rows, and update_p on a
 * 65536th of its blocks). */
static inline unsigned mpcgi_blocks_for(int64_t items, int per_block)
{
    const int64_t b = (items + per_block - 1) / per_block;
    return (unsigned)(b < 1 ? 1 : b > 65536 ? 65536 : b);
}

/* kernel<<<grid, block, smem, stream>>>(args...), with PDL where mpcgi_pdl_on(); the launch's
 * error. */
template <typename... P, typename... A>
static cudaError_t mpcgi_launch_smem(void (*kernel)(P...), unsigned grid, unsigned block,
                                     size_t smem, void *stream, A &&...args)
{
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr[0].val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(grid);
    cfg.blockDim = dim3(block);
    cfg.dynamicSmemBytes = smem;
    cfg.stream = (cudaStream_t)stream;
    cfg.attrs = attr;
    cfg.numAttrs = mpcgi_pdl_on() ? 1 : 0;
    return cudaLaunchKernelEx(&cfg, kernel, std::forward<A>(args)...);
}

/* The same without dynamic shared memory. */
template <typename... P, typename... A>
static cudaError_t mpcgi_launch(void (*kernel)(P...), unsigned grid, unsigned block, void *stream,
                                A &&...args)
{
    return mpcgi_launch_smem(kernel, grid, block, 0, stream, std::forward<A>(args)...);
}

#endif /* MPCG_CORE_LAUNCH_CUH */
