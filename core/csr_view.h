/* core/csr_view.h: a view of the caller's device CSR arrays (mpcg_matrix_view_device_csr) and
 * the device layer's calls on it (plain C) */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef MPCG_CORE_CSR_VIEW_H
#define MPCG_CORE_CSR_VIEW_H

#include <stddef.h>
#include <stdint.h>

#include "core/csr.h"
#include "mpcg.h"

/*
 * The matrix of a view (core/matrix.h) holds one of these and points its mpcgi_csr's `dev` at it.
 * The arrays are the caller's (borrowed); what the library derives from them on the device is
 * the view's (owned, made on demand, freed with the matrix). Host copies ("mirrors") live in the
 * mpcgi_csr itself, at the level its `mirror` field says:
 *   MPCGI_MIRROR_NONE  nothing on the host;
 *   MPCGI_MIRROR_ROWS  row_ptr (int64) holds the row pointers: 8 (n + 1) bytes copied once (the
 *                      analysis of backends that build their layout on the device);
 *   MPCGI_MIRROR_FULL  row_ptr, col_idx and val hold the whole matrix, the values refreshed by
 *                      mpcg_matrix_update_values_device (host-built layouts, bjacobi, the host
 *                      calls of the public API).
 * core/csr_view.c implements the calls below in a CUDA build, core/device_stub.c otherwise
 * (MPCG_ERR_NO_DEVICE: no view can exist there).
 */
struct mpcgi_pattern_sample; /* core/cache.h */

enum { MPCGI_MIRROR_NONE = 0, MPCGI_MIRROR_ROWS = 1, MPCGI_MIRROR_FULL = 2 };

typedef struct mpcgi_csr_view {
    const void *row_ptr;    /* n + 1, int64 if rp64 else int32 (the caller's) */
    int rp64;
    const int32_t *col_idx; /* nnz, strictly increasing within a row (the caller's) */
    const double *val;      /* nnz (the caller's; mpcg_matrix_update_values_device re-points) */
    int64_t max_len;        /* the longest row, found by the structure check */
    int32_t *row_ptr32;     /* rp64: the int32 copy (on demand; nnz <= INT32_MAX) */
    int64_t *row_ptr64;     /* !rp64: the int64 copy (on demand) */
    size_t d2h_bytes;       /* bytes the host copies have read so far (the reports) */
} mpcgi_csr_view;

/* Check the arrays of a new view of n rows and nnz entries (every field of *v but the derived
 * ones set): ctx on a GPU (MPCG_ERR_INVALID_STATE), each pointer device memory of ctx's GPU and
 * aligned to its type, then the structure on the device (mpcg_matrix_view_device_csr lists the
 * rules; MPCG_ERR_INVALID_ARG naming the first offending entry). Sets v->max_len. */
mpcg_status mpcgi_view_open(mpcg_context *ctx, int64_t n, int64_t nnz, mpcgi_csr_view *v);
/* The structure and the current values again (mpcg_matrix_check). */
mpcg_status mpcgi_view_validate(mpcg_context *ctx, const mpcgi_csr *A);
/* MPCG_ERR_INVALID_ARG unless p is device memory of ctx's GPU aligned to `align` bytes; `what`
 * names the argument in the message. */
mpcg_status mpcgi_view_check_pointer(mpcg_context *ctx, const void *p, size_t align,
                                     const char *what);
/* Free what the view derived (accepts a view without any). */
void mpcgi_view_release(mpcg_context *ctx, mpcgi_csr_view *v);
/* Make A's host copy at least `level` (MPCGI_MIRROR_*); a no-op where it is there. */
mpcg_status mpcgi_view_mirror(mpcg_context *ctx, mpcgi_csr *A, int level);
/* A FULL copy's values (and its val32, lo32 where made) from the view's current values. */
mpcg_status mpcgi_view_mirror_values(mpcg_context *ctx, mpcgi_csr *A);
/* The first value k whose hi + lo split is not exact (mpcgi_split_problem), found on the device,
 * and the value; *k = -1 where every split is exact. */
mpcg_status mpcgi_view_split_first(mpcg_context *ctx, const mpcgi_csr *A, int64_t *k,
                                   double *a);
/* The diagonal on the host: diag[i] = a_ii and has[i] = 1, or has[i] = 0 where row i stores no
 * a_ii (found on the device; 9 n bytes copied to the host). */
mpcg_status mpcgi_view_diag(mpcg_context *ctx, const mpcgi_csr *A, double *diag,
                            unsigned char *has);
/* The pattern sample of the sampled hash (core/cache.h: mpcgi_pattern_sample_count(n) entries
 * into s), read on the device: 2 k + 2 END words a sampled row copied to the host. */
mpcg_status mpcgi_view_pattern_samples(mpcg_context *ctx, const mpcgi_csr *A,
                                       struct mpcgi_pattern_sample *s);

/* ---- CUDA builds only (the backends' uploads; no stub) */

/* What a backend copies of A into its own device arrays. */
typedef enum mpcgi_csr_part {
    MPCGI_PART_ROW_PTR64, /* n + 1 int64 */
    MPCGI_PART_COL,       /* nnz int32 */
    MPCGI_PART_VAL,       /* nnz fp64 */
    MPCGI_PART_VAL32,     /* nnz fp32: (float)a, the hi of the mixed storage */
    MPCGI_PART_LO32       /* nnz fp32: (float)(a - (double)(float)a), the low halves */
} mpcgi_csr_part;

/* Fill dst (device memory of the part's size) with a part of A, queued on the context's stream,
 * from wherever A lives: host CSR is copied host to device (val32 and lo32 from A's own copies,
 * which the dispatcher made); a device view is copied device to device or converted by a kernel
 * (the same roundings as the host's). */
mpcg_status mpcgi_csr_to_device(mpcg_context *ctx, const mpcgi_csr *A, mpcgi_csr_part part,
                                void *dst);
/* The view's row pointers as int32: the caller's, or (int64 ones) the view's copy, made on the
 * device at the first call (4 (n + 1) bytes). MPCG_ERR_NOT_SUPPORTED where nnz > INT32_MAX. */
mpcg_status mpcgi_view_row_ptr32(mpcg_context *ctx, const mpcgi_csr *A, const int32_t **out);

#endif /* MPCG_CORE_CSR_VIEW_H */
