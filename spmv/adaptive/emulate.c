/* spmv/adaptive/emulate.c: the CPU emulation of the adaptive backend's kernels (apply_host) */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <math.h>

#include "core/alloc.h"
#include "core/error.h"
#include "spmv/adaptive/plan.h"

#define EMU_T double
#define EMU_FMA fma
#define EMU_VALS const double *
#define EMU_VAL(val, k) (val)[k]
#define EMU(name) name##_f64
#include "spmv/adaptive/impl.h"
#undef EMU_T
#undef EMU_FMA
#undef EMU_VALS
#undef EMU

#define EMU_T float
#define EMU_FMA fmaf
#define EMU_VALS const float *
#define EMU(name) name##_f32
#include "spmv/adaptive/impl.h"
#undef EMU_T
#undef EMU_FMA
#undef EMU_VALS
#undef EMU_VAL
#undef EMU

/* The mixed storage: value k is (double)hi[k] + (double)lo[k] (load_matrix of
 * mpcgi_split_vals, spmv/adaptive/device.cuh), summed as fp64 is. */
typedef struct emu_split {
    const float *hi, *lo;
} emu_split;
#define EMU_T double
#define EMU_FMA fma
#define EMU_VALS emu_split
#define EMU_VAL(val, k) ((double)(val).hi[k] + (double)(val).lo[k])
#define EMU_NO_TILES
#define EMU(name) name##_mixed
#include "spmv/adaptive/impl.h"
#undef EMU_T
#undef EMU_FMA
#undef EMU_VALS
#undef EMU_VAL
#undef EMU_NO_TILES
#undef EMU

/* fp32 reads the matrix's own fp32 values (A->val32, made by the dispatcher with the plan), the
 * mixed apply A->val32 and A->lo32 in the fp64 layout (not on the tiles path). */
mpcg_status mpcgi_adaptive_emulate(mpcg_context *ctx, const adaptive_plan *p, mpcg_precision prec,
                                   const void *x, void *y)
{
    mpcgi_adaptive_launch l32;
    if (prec == MPCG_PRECISION_MIXED) {
        MPCG_CHECK(ctx, mpcgi_adaptive_mixed_supported(ctx, p));
        emulate_mixed(p, &p->L, (emu_split){p->A->val32, p->A->lo32}, x, y, p->h.part);
        return MPCG_SUCCESS;
    }
    if (p->L.path == MPCGI_ADAPTIVE_TILES) {
        if (prec == MPCG_PRECISION_FP64) return emulate_tiles_f64(ctx, p, p->A->val, x, y);
        return emulate_tiles_f32(ctx, p, p->A->val32, x, y);
    }
    if (prec == MPCG_PRECISION_FP64) {
        emulate_f64(p, &p->L, p->A->val, x, y, p->h.part);
    } else {
        mpcgi_adaptive_fp32_launch(p, &l32);
        emulate_f32(p, &l32, p->A->val32, x, y, (float *)p->h.part);
    }
    return MPCG_SUCCESS;
}
