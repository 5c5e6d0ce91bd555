/* spmv/warp_emulate.h: a warp's strided sum, as the backends' fixup kernels add the parts of a
 * row, replayed on the host by their CPU emulations (bit for bit) */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef MPCG_SPMV_WARP_EMULATE_H
#define MPCG_SPMV_WARP_EMULATE_H

#include <stdint.h>

/* v[first] + ... + v[end - 1] the way one warp adds it: lane l sums v[first + l], v[first + l +
 * 32], ... in order from 0, then the tree of __shfl_down_sync (offsets 16 .. 1; a lane whose
 * partner is past lane 31 adds its own value, which never reaches lane 0); lane 0's sum. */
#define MPCGI_WARP_STRIDED_SUM(NAME, T)                                                          \
    static inline T NAME(const T *v, int64_t first, int64_t end)                                 \
    {                                                                                            \
        T lane[32];                                                                              \
        for (int l = 0; l < 32; l++) {                                                           \
            T acc = 0;                                                                           \
            for (int64_t j = first + l; j < end; j += 32) acc = acc + v[j];                      \
            lane[l] = acc;                                                                       \
        }                                                                                        \
        for (int off = 16; off >= 1; off /= 2)                                                   \
            for (int l = 0; l < 32; l++) lane[l] = lane[l] + (l + off < 32 ? lane[l + off] : lane[l]); \
        return lane[0];                                                                          \
    }

MPCGI_WARP_STRIDED_SUM(mpcgi_warp_strided_sum_f64, double)
MPCGI_WARP_STRIDED_SUM(mpcgi_warp_strided_sum_f32, float)

#endif /* MPCG_SPMV_WARP_EMULATE_H */
