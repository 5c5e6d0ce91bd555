/* solver/pcg_tile.cuh: block-Jacobi's fused form, a tile at a time (precond/precond.h,
 * MPCGI_PC_FUSED_BLOCKS): what the launched update (solver/pcg_kernels.cu) and the two-barrier
 * loop (solver/cg_loop2.cu) share */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef MPCG_SOLVER_PCG_TILE_CUH
#define MPCG_SOLVER_PCG_TILE_CUH

#include <stdint.h>

#include "precond/precond.h"

/* Tile t of M: its first row r0 and block b0, its rows and blocks. */
struct mpcgi_pc_tile {
    int64_t r0, b0;
    int rows, nbt;
};

static __device__ __forceinline__ mpcgi_pc_tile mpcgi_pc_tile_of(const mpcgi_pc_fused &M, int64_t t)
{
    mpcgi_pc_tile g;
    g.r0 = M.tile_row[t], g.b0 = M.tile_block[t];
    g.rows = (int)(M.tile_row[t + 1] - g.r0), g.nbt = (int)(M.tile_block[t + 1] - g.b0);
    return g;
}

/* blk[i - r0] = the block of tile row i, from the tile's first; threads l, l + H, ... of the H
 * serving the tile write it (a barrier before it is read). */
static __device__ __forceinline__ void
mpcgi_pc_tile_map(const mpcgi_pc_fused &M, const mpcgi_pc_tile &g, int l, int H, int *blk)
{
    for (int j = l; j < g.nbt; j += H)
        for (int64_t i = M.bstart[g.b0 + j]; i < M.bstart[g.b0 + j + 1]; i++)
            blk[i - g.r0] = j;
}

/* z_i = binv_b(i, :) r_b for tile row l (l < rows) from the tile's r in shared memory rs, in
 * the host's order (precond/bjacobi.c). */
template <typename T>
static __device__ __forceinline__ T mpcgi_pc_tile_z(const mpcgi_pc_fused &M, const mpcgi_pc_tile &g,
                                                    const int *blk, const T *rs, int l)
{
    const int64_t i = g.r0 + l, b = g.b0 + blk[l], s = M.bstart[b], nb = M.bstart[b + 1] - s;
    const T *a = static_cast<const T *>(M.binv) + M.boff[b] + (i - s) * nb;
    const T *rb = rs + (s - g.r0);
    T zi = T(0);
    for (int64_t j = 0; j < nb; j++)
        zi += a[j] * rb[j];
    return zi;
}

#endif /* MPCG_SOLVER_PCG_TILE_CUH */
