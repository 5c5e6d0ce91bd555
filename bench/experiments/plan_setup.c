/* bench/experiments/plan_setup.c: what one backend's plan costs to set up, as auto's trial builds
 * it (from the trial's device copy of the matrix, waited for), many times in one process: the
 * median, the quartiles and the device allocations of a setup. A single setup time in spmvbench's
 * auto line moves by 2x between runs; this takes the spread out of an old-against-new comparison
 * (an experiment, not built by make; issue 25, session 18).
 *
 * Build (in a configured build directory BUILD of the tree, after make):
 *   gcc -O2 -fopenmp -I. -IBUILD -Iinclude -I/usr/local/cuda/include \
 *       bench/experiments/plan_setup.c BUILD/.libs/libmpcgi.a -L/usr/local/cuda/lib64 \
 *       -lcusparse -lcublas -lcudart -lstdc++ -lz -lm -o plan_setup
 *   ./plan_setup MATRIX.mtx|SPEC adaptive fp32 [reps]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/device.h"
#include "core/matrix.h"
#include "core/timer.h"
#include "include/mpcg.h"
#include "spmv/auto.h"
#include "spmv/spmv.h"

#include "experiment.h"

static int cmp(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: plan_setup MATRIX.mtx|SPEC BACKEND fp64|fp32|both [reps]\n");
        return 2;
    }
    const int reps = argc > 4 ? atoi(argv[4]) : 31;
    const unsigned caps = !strcmp(argv[3], "fp64")   ? MPCG_CAP_FP64
                          : !strcmp(argv[3], "fp32") ? MPCG_CAP_FP32
                                                     : MPCG_CAP_FP64 | MPCG_CAP_FP32;
    mpcg_context *ctx;
    mpcg_matrix *M;
    CKM(NULL, mpcg_context_create("cuda:0", &ctx));
    if (strstr(argv[1], ".mtx"))
        CKM(ctx, mpcg_matrix_read_mm(ctx, argv[1], &M));
    else
        CKM(ctx, mpcg_matrix_generate(ctx, argv[1], &M));
    if (caps & MPCG_CAP_FP32) CKM(ctx, mpcgi_csr_fill_val32(ctx, &M->csr));
    const struct mpcgi_spmv_ops *ops;
    CKM(ctx, mpcgi_spmv_lookup(ctx, argv[2], &ops));
    mpcgi_auto_copy copy;
    CKM(ctx, mpcgi_auto_copy_attach(ctx, &M->csr, &copy));
    double *t = calloc((size_t)reps, sizeof *t);
    int64_t allocs = 0;
    for (int r = -3; r < reps; r++) { /* three first: kernels loaded, the allocator warm */
        mpcgi_spmv_plan *plan;
        const int64_t a0 = mpcgi_alloc_device_attempts();
        const double t0 = mpcgi_wtime();
        CKM(ctx, mpcgi_spmv_plan_create(ctx, ops, &M->csr, caps, NULL, &plan));
        CKM(ctx, mpcgi_device_sync(ctx));
        const double dt = mpcgi_wtime() - t0;
        allocs = mpcgi_alloc_device_attempts() - a0;
        mpcgi_spmv_plan_destroy(ctx, plan);
        if (r >= 0) t[r] = dt;
    }
    qsort(t, (size_t)reps, sizeof *t, cmp);
    printf("%s %s %s: n %lld nnz %lld, setup from the device copy over %d: median %.3f ms, "
           "quartiles %.3f - %.3f ms, min %.3f; %lld device allocations a setup\n",
           argv[1], argv[2], argv[3], (long long)M->csr.n, (long long)M->csr.nnz, reps,
           1e3 * t[reps / 2], 1e3 * t[reps / 4], 1e3 * t[3 * reps / 4], 1e3 * t[0],
           (long long)allocs);
    mpcgi_auto_copy_detach(ctx, &M->csr, &copy);
    free(t);
    mpcg_matrix_destroy(M);
    mpcg_context_destroy(ctx);
    return 0;
}
