/* core/csr_view.c: device CSR views on CUDA: the checks of a new view, its host copies, the
 * parts the backends copy or convert from it, its diagonal and split test */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdio.h>
#include <string.h>

#include "core/alloc.h"
#include "core/cache.h"
#include "core/csr_view.h"
#include "core/csr_view_kernels.h"
#include "core/device.h"
#include "core/device_cuda.h"

/* ---------------------------------------------------------------- checks */

mpcg_status mpcgi_view_check_pointer(mpcg_context *ctx, const void *p, size_t align,
                                     const char *what)
{
    const struct mpcgi_gpu *g = mpcgi_gpu_of(ctx);
    struct cudaPointerAttributes at;
    MPCG_ENSURE(ctx, g, MPCG_ERR_INVALID_STATE,
                "device CSR views need a GPU context, and context %s runs on the CPU",
                ctx->device_name);
    MPCG_ENSURE(ctx, (uintptr_t)p % align == 0, MPCG_ERR_INVALID_ARG,
                "%s = %p is not aligned to its %zu-byte entries", what, p, align);
    MPCG_CUDA(ctx, cudaPointerGetAttributes(&at, p));
    MPCG_ENSURE(ctx, at.type == cudaMemoryTypeDevice || at.type == cudaMemoryTypeManaged,
                MPCG_ERR_INVALID_ARG,
                "%s = %p is %s memory, not device memory: a device view takes arrays in GPU "
                "memory (mpcg_matrix_create_csr copies host arrays)", what, p,
                at.type == cudaMemoryTypeHost ? "pinned host" : "host");
    MPCG_ENSURE(ctx, at.type == cudaMemoryTypeManaged || at.device == g->id,
                MPCG_ERR_INVALID_ARG, "%s = %p is memory of GPU %d; the context computes on "
                "GPU %d", what, p, at.device, g->id);
    return MPCG_SUCCESS;
}

/* One entry of a device array, for a message. */
static mpcg_status entry(mpcg_context *ctx, const void *array, int64_t k, size_t size, void *out)
{
    return mpcgi_device_copy(ctx, out, (const char *)array + (size_t)k * size, size, MPCGI_D2H);
}

/* Row pointer i as int64. */
static mpcg_status row_ptr_at(mpcg_context *ctx, const mpcgi_csr_view *v, int64_t i, long long *p)
{
    int32_t p32 = 0;
    int64_t p64 = 0;
    if (v->rp64) MPCG_CHECK(ctx, entry(ctx, v->row_ptr, i, sizeof p64, &p64));
    else MPCG_CHECK(ctx, entry(ctx, v->row_ptr, i, sizeof p32, &p32));
    *p = v->rp64 ? (long long)p64 : (long long)p32;
    return MPCG_SUCCESS;
}

/* The message of the first rule the check found broken (row pointers, columns, order, values). */
static mpcg_status report(mpcg_context *ctx, int64_t n, int64_t nnz, const mpcgi_csr_view *v,
                          const mpcgi_view_check_result *r)
{
    long long p = 0, q = 0;
    int32_t c = 0, c0 = 0;
    double a = 0;
    if (r->bad_rp) {
        const int64_t i = n + 1 - (int64_t)r->bad_rp;
        MPCG_CHECK(ctx, row_ptr_at(ctx, v, i, &p));
        if (i > 0) MPCG_CHECK(ctx, row_ptr_at(ctx, v, i - 1, &q));
        MPCG_FAIL(ctx, MPCG_ERR_INVALID_ARG,
                  "row_ptr_dev[%lld] = %lld: row pointers must start at 0, end at nnz = %lld "
                  "and not decrease (row_ptr_dev[%lld] = %lld)", (long long)i, p, (long long)nnz,
                  (long long)(i > 0 ? i - 1 : 0), i > 0 ? q : p);
    }
    if (r->bad_col) {
        const int64_t k = nnz - (int64_t)r->bad_col;
        MPCG_CHECK(ctx, entry(ctx, v->col_idx, k, sizeof c, &c));
        MPCG_FAIL(ctx, MPCG_ERR_INVALID_ARG, "col_idx_dev[%lld] = %d out of range [0, %lld)",
                  (long long)k, c, (long long)n);
    }
    if (r->bad_order) {
        const int64_t k = nnz - (int64_t)r->bad_order;
        MPCG_CHECK(ctx, entry(ctx, v->col_idx, k, sizeof c, &c));
        MPCG_CHECK(ctx, entry(ctx, v->col_idx, k - 1, sizeof c0, &c0));
        MPCG_FAIL(ctx, MPCG_ERR_INVALID_ARG,
                  "col_idx_dev[%lld] = %d follows %d in its row: a device view needs the "
                  "columns of each row strictly increasing (sorted, no duplicates)",
                  (long long)k, c, c0);
    }
    const int64_t k = nnz - (int64_t)r->bad_val;
    MPCG_CHECK(ctx, entry(ctx, v->val, k, sizeof a, &a));
    MPCG_FAIL(ctx, MPCG_ERR_INVALID_ARG, "val_dev[%lld] = %g is not finite", (long long)k, a);
}

/* The structure check on the device (and the values with check_values), one copy back. */
static mpcg_status check(mpcg_context *ctx, int64_t n, int64_t nnz, mpcgi_csr_view *v,
                         int check_values)
{
    mpcg_status st = MPCG_SUCCESS;
    mpcgi_view_check_result *d = NULL, r;
    MPCG_TRY(ctx, st, mpcgi_device_alloc(ctx, sizeof *d, &d));
    MPCG_CUDA_GOTO(ctx, st, cudaMemsetAsync(d, 0, sizeof *d, mpcgi_gpu_of(ctx)->stream));
    MPCG_CUDA_GOTO(ctx, st, (cudaError_t)mpcgi_view_check(mpcgi_device_stream(ctx), n, nnz,
                                                          v->row_ptr, v->rp64, v->col_idx,
                                                          v->val, check_values, d));
    MPCG_TRY(ctx, st, mpcgi_device_copy(ctx, &r, d, sizeof r, MPCGI_D2H));
    v->max_len = (int64_t)r.max_len;
    if (r.bad_rp || r.bad_col || r.bad_order || r.bad_val)
        MPCG_TRY(ctx, st, report(ctx, n, nnz, v, &r));
done:
    mpcgi_device_free(ctx, d);
    return st;
}

mpcg_status mpcgi_view_open(mpcg_context *ctx, int64_t n, int64_t nnz, mpcgi_csr_view *v)
{
    MPCG_CHECK(ctx, mpcgi_view_check_pointer(ctx, v->row_ptr, v->rp64 ? 8 : 4, "row_ptr_dev"));
    if (nnz > 0) {
        MPCG_CHECK(ctx, mpcgi_view_check_pointer(ctx, v->col_idx, 4, "col_idx_dev"));
        MPCG_CHECK(ctx, mpcgi_view_check_pointer(ctx, v->val, 8, "val_dev"));
    }
    MPCG_CHECK(ctx, check(ctx, n, nnz, v, 1));
    return MPCG_SUCCESS;
}

mpcg_status mpcgi_view_validate(mpcg_context *ctx, const mpcgi_csr *A)
{
    mpcgi_csr_view v = *A->dev; /* max_len is written again: the same */
    MPCG_CHECK(ctx, check(ctx, A->n, A->nnz, &v, 1));
    return MPCG_SUCCESS;
}

void mpcgi_view_release(mpcg_context *ctx, mpcgi_csr_view *v)
{
    mpcgi_device_free(ctx, v->row_ptr32);
    mpcgi_device_free(ctx, v->row_ptr64);
    v->row_ptr32 = NULL;
    v->row_ptr64 = NULL;
}

/* ---------------------------------------------------------------- host copies */

/* A's row pointers into its host row_ptr (int64), allocated here. */
static mpcg_status mirror_rows(mpcg_context *ctx, mpcgi_csr *A)
{
    const size_t n1 = (size_t)A->n + 1;
    MPCG_CHECK(ctx, mpcgi_host_alloc_array(ctx, n1, sizeof *A->row_ptr, &A->row_ptr));
    if (A->dev->rp64) {
        MPCG_CHECK(ctx, mpcgi_device_copy(ctx, A->row_ptr, A->dev->row_ptr, n1 * 8, MPCGI_D2H));
    } else { /* into the lower half, then widened in place from the top (entry i is read
              * before its 8 bytes, which start at or above it, are written) */
        int32_t *p32 = (int32_t *)A->row_ptr;
        MPCG_CHECK(ctx, mpcgi_device_copy(ctx, p32, A->dev->row_ptr, n1 * 4, MPCGI_D2H));
        for (size_t i = n1; i-- > 0;) A->row_ptr[i] = p32[i];
    }
    A->dev->d2h_bytes += n1 * (A->dev->rp64 ? 8 : 4);
    return MPCG_SUCCESS;
}

mpcg_status mpcgi_view_mirror_values(mpcg_context *ctx, mpcgi_csr *A)
{
    if (A->mirror < MPCGI_MIRROR_FULL) return MPCG_SUCCESS;
    mpcg_status st = mpcgi_device_copy(ctx, A->val, A->dev->val, (size_t)A->nnz * 8, MPCGI_D2H);
    if (st == MPCG_SUCCESS) A->dev->d2h_bytes += (size_t)A->nnz * 8;
    if (st == MPCG_SUCCESS && A->val32) st = mpcgi_csr_fill_val32(ctx, A);
    if (st == MPCG_SUCCESS && A->lo32) st = mpcgi_csr_fill_lo32(ctx, A);
    if (st != MPCG_SUCCESS) A->mirror = MPCGI_MIRROR_ROWS; /* stale: copied again when asked */
    MPCG_CHECK(ctx, st);
    return MPCG_SUCCESS;
}

mpcg_status mpcgi_view_mirror(mpcg_context *ctx, mpcgi_csr *A, int level)
{
    const size_t nnz = (size_t)A->nnz;
    if (A->mirror >= level) return MPCG_SUCCESS;
    if (A->mirror < MPCGI_MIRROR_ROWS) {
        mpcg_status st = mirror_rows(ctx, A);
        if (st != MPCG_SUCCESS) {
            mpcgi_host_free(A->row_ptr);
            A->row_ptr = NULL;
            MPCG_CHECK(ctx, st);
        }
        A->mirror = MPCGI_MIRROR_ROWS;
    }
    if (level < MPCGI_MIRROR_FULL) return MPCG_SUCCESS;
    if (!A->col_idx)
        MPCG_CHECK(ctx, mpcgi_host_alloc_array(ctx, nnz, sizeof *A->col_idx, &A->col_idx));
    if (!A->val) MPCG_CHECK(ctx, mpcgi_host_alloc_array(ctx, nnz, sizeof *A->val, &A->val));
    MPCG_CHECK(ctx, mpcgi_device_copy(ctx, A->col_idx, A->dev->col_idx, nnz * 4, MPCGI_D2H));
    A->dev->d2h_bytes += nnz * 4;
    A->mirror = MPCGI_MIRROR_FULL;
    MPCG_CHECK(ctx, mpcgi_view_mirror_values(ctx, A)); /* back to ROWS if it fails */
    return MPCG_SUCCESS;
}

/* ---------------------------------------------------------------- what backends read */

mpcg_status mpcgi_view_row_ptr32(mpcg_context *ctx, const mpcgi_csr *A, const int32_t **out)
{
    mpcgi_csr_view *v = A->dev;
    *out = NULL;
    if (!v->rp64) {
        *out = v->row_ptr;
        return MPCG_SUCCESS;
    }
    MPCG_ENSURE(ctx, A->nnz <= INT32_MAX, MPCG_ERR_NOT_SUPPORTED,
                "%lld nonzeros do not fit the int32 copy of the view's row pointers",
                (long long)A->nnz);
    if (!v->row_ptr32) {
        int32_t *p = NULL;
        MPCG_CHECK(ctx, mpcgi_device_alloc(ctx, ((size_t)A->n + 1) * 4, &p));
        mpcg_status st = MPCGI_CUDA_STATUS(
            ctx, (cudaError_t)mpcgi_view_narrow(mpcgi_device_stream(ctx), A->n + 1,
                                                v->row_ptr, p));
        if (st != MPCG_SUCCESS) mpcgi_device_free(ctx, p);
        MPCG_CHECK(ctx, st);
        v->row_ptr32 = p;
    }
    *out = v->row_ptr32;
    return MPCG_SUCCESS;
}

/* The view's row pointers as int64: the caller's, or the view's widened copy. */
static mpcg_status row_ptr64(mpcg_context *ctx, const mpcgi_csr *A, const int64_t **out)
{
    mpcgi_csr_view *v = A->dev;
    *out = v->row_ptr;
    if (v->rp64) return MPCG_SUCCESS;
    if (!v->row_ptr64) {
        int64_t *p = NULL;
        MPCG_CHECK(ctx, mpcgi_device_alloc(ctx, ((size_t)A->n + 1) * 8, &p));
        mpcg_status st = MPCGI_CUDA_STATUS(
            ctx, (cudaError_t)mpcgi_view_widen(mpcgi_device_stream(ctx), A->n + 1, v->row_ptr, p));
        if (st != MPCG_SUCCESS) mpcgi_device_free(ctx, p);
        MPCG_CHECK(ctx, st);
        v->row_ptr64 = p;
    }
    *out = v->row_ptr64;
    return MPCG_SUCCESS;
}

/* A part of a device view: a copy on the device, or a conversion. */
static mpcg_status view_part(mpcg_context *ctx, const mpcgi_csr *A, mpcgi_csr_part part,
                             void *dst)
{
    const mpcgi_csr_view *v = A->dev;
    const size_t nnz = (size_t)A->nnz;
    void *s = mpcgi_device_stream(ctx);
    const int64_t *rp = NULL;
    switch (part) {
    case MPCGI_PART_ROW_PTR64:
        MPCG_CHECK(ctx, row_ptr64(ctx, A, &rp));
        return mpcgi_device_copy(ctx, dst, rp, ((size_t)A->n + 1) * 8, MPCGI_D2D);
    case MPCGI_PART_COL: return mpcgi_device_copy(ctx, dst, v->col_idx, nnz * 4, MPCGI_D2D);
    case MPCGI_PART_VAL: return mpcgi_device_copy(ctx, dst, v->val, nnz * 8, MPCGI_D2D);
    case MPCGI_PART_VAL32:
        MPCG_LAUNCH(ctx, mpcgi_view_to_f32(s, A->nnz, v->val, dst));
        return MPCG_SUCCESS;
    case MPCGI_PART_LO32: MPCG_LAUNCH(ctx, mpcgi_view_lo32(s, A->nnz, v->val, dst)); break;
    }
    return MPCG_SUCCESS;
}

mpcg_status mpcgi_csr_to_device(mpcg_context *ctx, const mpcgi_csr *A, mpcgi_csr_part part,
                                void *dst)
{
    if (A->dev) {
        MPCG_CHECK(ctx, view_part(ctx, A, part, dst));
        return MPCG_SUCCESS;
    }
    const size_t nnz = (size_t)A->nnz;
    const void *src = part == MPCGI_PART_ROW_PTR64 ? (const void *)A->row_ptr
                      : part == MPCGI_PART_COL     ? (const void *)A->col_idx
                      : part == MPCGI_PART_VAL     ? (const void *)A->val
                      : part == MPCGI_PART_VAL32   ? (const void *)A->val32
                                                   : (const void *)A->lo32;
    const size_t bytes = part == MPCGI_PART_ROW_PTR64 ? ((size_t)A->n + 1) * 8
                         : part == MPCGI_PART_VAL     ? nnz * 8
                                                      : nnz * 4;
    MPCG_ENSURE(ctx, src || bytes == 0, MPCG_ERR_INTERNAL,
                "part %d of the host matrix is not there", (int)part);
    MPCG_CHECK(ctx, mpcgi_device_copy(ctx, dst, src, bytes, MPCGI_H2D));
    return MPCG_SUCCESS;
}

/* ---------------------------------------------------------------- values */

mpcg_status mpcgi_view_split_first(mpcg_context *ctx, const mpcgi_csr *A, int64_t *k, double *a)
{
    mpcg_status st = MPCG_SUCCESS;
    unsigned long long *d = NULL, rev = 0;
    *k = -1;
    *a = 0;
    if (A->nnz == 0) return MPCG_SUCCESS;
    MPCG_TRY(ctx, st, mpcgi_device_alloc(ctx, sizeof *d, &d));
    MPCG_CUDA_GOTO(ctx, st, cudaMemsetAsync(d, 0, sizeof *d, mpcgi_gpu_of(ctx)->stream));
    MPCG_CUDA_GOTO(ctx, st, (cudaError_t)mpcgi_view_split_scan(mpcgi_device_stream(ctx),
                                                                A->nnz, A->dev->val, d));
    MPCG_TRY(ctx, st, mpcgi_device_copy(ctx, &rev, d, sizeof rev, MPCGI_D2H));
    if (rev) {
        *k = A->nnz - (int64_t)rev;
        MPCG_TRY(ctx, st, entry(ctx, A->dev->val, *k, sizeof *a, a));
    }
done:
    mpcgi_device_free(ctx, d);
    return st;
}

mpcg_status mpcgi_view_diag(mpcg_context *ctx, const mpcgi_csr *A, double *diag,
                            unsigned char *has)
{
    mpcg_status st = MPCG_SUCCESS;
    char *d = NULL;
    const size_t n = (size_t)A->n, db = n * sizeof *diag;
    MPCG_TRY(ctx, st, mpcgi_device_alloc(ctx, db + n, &d));
    MPCG_CUDA_GOTO(ctx, st, (cudaError_t)mpcgi_view_diag_scan(mpcgi_device_stream(ctx), A->n,
                                                         A->dev->row_ptr, A->dev->rp64,
                                                         A->dev->col_idx, A->dev->val,
                                                         (double *)d, (unsigned char *)d + db));
    MPCG_TRY(ctx, st, mpcgi_device_copy(ctx, diag, d, db, MPCGI_D2H));
    MPCG_TRY(ctx, st, mpcgi_device_copy(ctx, has, d + db, n, MPCGI_D2H));
    A->dev->d2h_bytes += db + n;
done:
    mpcgi_device_free(ctx, d);
    return st;
}

mpcg_status mpcgi_view_pattern_samples(mpcg_context *ctx, const mpcgi_csr *A,
                                       mpcgi_pattern_sample *s)
{
    mpcg_status st = MPCG_SUCCESS;
    const int64_t rows = mpcgi_pattern_sample_count(A->n);
    /* the kernel's output, row pointers then columns, brought back in one copy */
    const size_t kb = (size_t)rows * 2 * sizeof(int64_t),
                 cb = (size_t)rows * 2 * MPCGI_SAMPLE_END * sizeof(int32_t);
    int64_t h[2 * MPCGI_SAMPLE_ROWS + MPCGI_SAMPLE_END * MPCGI_SAMPLE_ROWS];
    const unsigned char *cols = (const unsigned char *)h + kb; /* read by memcpy only */
    char *d = NULL;
    if (rows == 0) return MPCG_SUCCESS;
    MPCG_TRY(ctx, st, mpcgi_device_alloc(ctx, kb + cb, &d));
    MPCG_CUDA_GOTO(ctx, st, (cudaError_t)mpcgi_view_sample(mpcgi_device_stream(ctx), A->n,
                                                           A->dev->row_ptr, A->dev->rp64,
                                                           A->dev->col_idx, rows,
                                                           MPCGI_SAMPLE_END, (int64_t *)d,
                                                           (int32_t *)(d + kb)));
    MPCG_TRY(ctx, st, mpcgi_device_copy(ctx, h, d, kb + cb, MPCGI_D2H));
    A->dev->d2h_bytes += kb + cb;
    for (int64_t k = 0; k < rows; k++) {
        s[k].k0 = h[2 * k];
        s[k].k1 = h[2 * k + 1];
        memcpy(s[k].col, cols + (size_t)k * sizeof s[k].col, sizeof s[k].col);
    }
done:
    mpcgi_device_free(ctx, d);
    return st;
}
