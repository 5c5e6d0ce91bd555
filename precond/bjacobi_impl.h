/* precond/bjacobi_impl.h: block-Jacobi's host apply written once over the value type T,
 * included by precond/bjacobi.c for double (SUFFIX f64) and float (SUFFIX f32) (STYLE 9.9.3);
 * the sums run in T and in the order of the device kernels (precond/precond_kernels.cu) */
/* SPDX-License-Identifier: BSD-3-Clause */
/* No include guard: included once per value type, with T and SUFFIX defined. */

#define BJ_CAT2(a, b) a##_##b
#define BJ_CAT(a, b) BJ_CAT2(a, b)
#define BJ_FN(name) BJ_CAT(name, SUFFIX)

/* z = L^-T L^-1 r for one block of nb rows (L row-major lower): forward, then backward
 * substitution in z. */
static void BJ_FN(cholesky_solve)(const T *L, int64_t nb, const T *r, T *z)
{
    for (int64_t i = 0; i < nb; i++) {
        T s = r[i];
        for (int64_t j = 0; j < i; j++)
            s -= L[i * nb + j] * z[j];
        z[i] = s / L[i * nb + i];
    }
    for (int64_t i = nb - 1; i >= 0; i--) {
        T s = z[i];
        for (int64_t j = i + 1; j < nb; j++)
            s -= L[j * nb + i] * z[j];
        z[i] = s / L[i * nb + i];
    }
}

/* z_b = binv_b r_b (or the Cholesky solve with the factors in binv) for every block */
static void BJ_FN(apply_blocks)(const mpcgi_precond *pc, const T *binv, const T *r, T *z)
{
    const int cholesky = pc->params.block_apply == MPCGI_BLOCK_APPLY_CHOLESKY;
    /* reads nb^2 + nb values and writes nb per block of nb rows (cholesky: half of the nb^2) */
#pragma omp parallel for schedule(static) if (pc->n > 16384)
    for (int64_t b = 0; b < pc->nblocks; b++) {
        const int64_t start = pc->bstart[b];
        const int64_t nb = pc->bstart[b + 1] - start;
        const T *a = binv + pc->boff[b];
        if (cholesky) {
            BJ_FN(cholesky_solve)(a, nb, r + start, z + start);
            continue;
        }
        for (int64_t i = 0; i < nb; i++) {
            T s = 0;
            for (int64_t j = 0; j < nb; j++)
                s += a[i * nb + j] * r[start + j];
            z[start + i] = s;
        }
    }
}

#undef BJ_FN
#undef BJ_CAT
#undef BJ_CAT2
