/* core/vec_impl.h: the host vector kernels written once over the value type T, included by
 * core/vec.c for double (SUFFIX f64) and float (SUFFIX f32) (STYLE 9.9.3) */
/* SPDX-License-Identifier: BSD-3-Clause */
/* No include guard: included once per value type, with T and SUFFIX defined. */

#define VEC_CAT2(a, b) a##_##b
#define VEC_CAT(a, b) VEC_CAT2(a, b)
#define VEC_FN(name) VEC_CAT(name, SUFFIX)

/* Products accumulated in double, the blocks' partials added in a fixed order. */
static double VEC_FN(dot_blocks)(double *partials, int64_t n, const T *x, const T *y)
{
    int64_t nb = mpcgi_host_dot_blocks(n);
#pragma omp parallel for schedule(static) if (n > 4 * DOT_BLOCK)
    for (int64_t b = 0; b < nb; b++) {
        int64_t lo = b * DOT_BLOCK, hi = lo + DOT_BLOCK < n ? lo + DOT_BLOCK : n;
        double s = 0.0;
        for (int64_t i = lo; i < hi; i++) s += (double)x[i] * (double)y[i];
        partials[b] = s;
    }
    double s = 0.0;
    for (int64_t b = 0; b < nb; b++) s += partials[b];
    return s;
}

static mpcg_status VEC_FN(host_dot)(mpcg_context *ctx, void *ws, int64_t n, const void *x,
                                    const void *y, double *out)
{
    (void)ctx;
    *out = VEC_FN(dot_blocks)(ws, n, x, y);
    return MPCG_SUCCESS;
}

static mpcg_status VEC_FN(host_axpy)(mpcg_context *ctx, int64_t n, double a, const void *xv,
                                     void *yv)
{
    const T *x = xv, ta = (T)a;
    T *y = yv;
    (void)ctx;
#pragma omp parallel for schedule(static) if (n > 16384)
    for (int64_t i = 0; i < n; i++) y[i] += ta * x[i];
    return MPCG_SUCCESS;
}

static mpcg_status VEC_FN(host_axpy_wide)(mpcg_context *ctx, int64_t n, double a,
                                          const void *xv, double *y)
{
    const T *x = xv;
    (void)ctx;
#pragma omp parallel for schedule(static) if (n > 16384)
    for (int64_t i = 0; i < n; i++) y[i] += a * (double)x[i];
    return MPCG_SUCCESS;
}

static mpcg_status VEC_FN(host_xpay)(mpcg_context *ctx, int64_t n, const void *xv, double a,
                                     void *yv)
{
    const T *x = xv, ta = (T)a;
    T *y = yv;
    (void)ctx;
#pragma omp parallel for schedule(static) if (n > 16384)
    for (int64_t i = 0; i < n; i++) y[i] = x[i] + ta * y[i];
    return MPCG_SUCCESS;
}

static mpcg_status VEC_FN(host_copy)(mpcg_context *ctx, int64_t n, const void *x, void *y)
{
    (void)ctx;
    if (n > 0) memcpy(y, x, (size_t)n * sizeof(T));
    return MPCG_SUCCESS;
}

static mpcg_status VEC_FN(host_zero)(mpcg_context *ctx, int64_t n, void *y)
{
    (void)ctx;
    if (n > 0) memset(y, 0, (size_t)n * sizeof(T));
    return MPCG_SUCCESS;
}

static mpcg_status VEC_FN(host_demote)(mpcg_context *ctx, int64_t n, const double *x, void *yv)
{
    T *y = yv;
    (void)ctx;
#pragma omp parallel for schedule(static) if (n > 16384)
    for (int64_t i = 0; i < n; i++) y[i] = (T)x[i];
    return MPCG_SUCCESS;
}

static mpcg_status VEC_FN(host_promote)(mpcg_context *ctx, int64_t n, const void *xv, double *y)
{
    const T *x = xv;
    (void)ctx;
#pragma omp parallel for schedule(static) if (n > 16384)
    for (int64_t i = 0; i < n; i++) y[i] = (double)x[i];
    return MPCG_SUCCESS;
}

#undef VEC_FN
#undef VEC_CAT
#undef VEC_CAT2
