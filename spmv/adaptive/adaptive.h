/* spmv/adaptive/adaptive.h: what an adaptive plan chose (for tests, benchmarks and the log) */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef MPCG_SPMV_ADAPTIVE_H
#define MPCG_SPMV_ADAPTIVE_H

#include <stdint.h>

#include "core/options.h"
#include "spmv/adaptive/kernels.h"

typedef struct mpcgi_adaptive_info {
    int path;                              /* MPCGI_ADAPTIVE_UNIFORM, _SPLIT, _BINNED, _TILES */
    int nt;                                /* uniform and split: threads per row */
    int nt_fp32;                           /* the same for the fp32 SpMV */
    int rows_per_group;                    /* R */
    int staged_rows;                       /* uniform path staged: rows per tile; else 0 */
    int block, chunk;                      /* threads per block; nonzeros per long-row chunk */
    int long_min;                          /* rows longer than this are long rows */
    int64_t bin_rows[MPCGI_ADAPTIVE_BINS]; /* rows per bin: long, NT = 32, 16, ..., 1 */
    int64_t long_blocks;                   /* chunks of the long rows */
    int64_t max_len;                       /* the longest row */
    int64_t vblocks;                       /* virtual blocks of one SpMV */
    int index_bits; /* 32, or 16 where a GPU plan stores 16-bit column offsets col - row */
    double setup_ms;   /* device plans: the binning on the GPU (count, decide, scatter), CUDA
                          events */
    double tiles_ms;   /* device plans on the tiles path: the tiles' layout after the binning
                          (sort, rounds, slots; its allocations and the scratch's release),
                          CUDA events; else 0 */
    double columns_ms; /* device plans: the 16-bit columns (allocate, write, free the 32-bit
                          ones), host clock; 0 where the columns stay 32-bit */
    /* the row list (list_length: n binned, the long rows split, 0 uniform) and the long rows'
     * first chunks (bin_rows[0] + 1, split and binned); host arrays for a CPU plan, device
     * arrays for a GPU plan; NULL when uniform */
    int64_t list_length;
    const int32_t *rows, *long_start;
    /* tiles path: tiles, rows of the largest, slots and the entry of each (-1 if empty; host
     * array for a CPU plan, device array for a GPU plan) */
    int tiles, tile_rows;
    int64_t slots;
    const int32_t *slot_perm;
} mpcgi_adaptive_info;

/* The backend's option keys (adaptive.*; spmv/adaptive/rules.c). */
extern const mpcgi_option_table mpcgi_adaptive_options;

/* "uniform", "split", "binned" or "tiles". */
const char *mpcgi_adaptive_path_name(int path);

/* The choices of a plan of the adaptive backend (plan->impl). */
void mpcgi_spmv_adaptive_info(const void *impl, mpcgi_adaptive_info *info);

#endif /* MPCG_SPMV_ADAPTIVE_H */
