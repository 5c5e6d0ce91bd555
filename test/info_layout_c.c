/* test/info_layout_c.c: the C compiler's layout of mpcg_info, for test/test_fortran.sh, which
 * compares it line by line with test/info_layout_f.f90's (the Fortran module's bind(C) type) */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <stddef.h>
#include <stdio.h>

#include "mpcg.h"

_Static_assert(sizeof(mpcg_reason) == sizeof(int) && sizeof(mpcg_precision) == sizeof(int),
               "the Fortran module declares the C enums as integer(c_int)");

#define ENUM(e) printf("enum %s %d\n", #e, (int)(e))
#define FIELD(f) printf("offset %s %zu\n", #f, offsetof(mpcg_info, f))

int main(void)
{
    printf("size %zu\n", sizeof(mpcg_info));
    FIELD(reason);
    FIELD(converged);
    FIELD(iterations);
    FIELD(true_relres);
    FIELD(recurrence_relres);
    FIELD(setup_time_s);
    FIELD(solve_time_s);
    FIELD(backend);
    FIELD(precision);
    FIELD(residual_replacements);
    FIELD(bytes_per_iteration);
    FIELD(variant);
    FIELD(variant_reason);
    FIELD(spmvs);
    FIELD(spmvs_fp64);
    FIELD(mixed_strategy);
    FIELD(precision_fallback);
    FIELD(fallback_iteration);
    FIELD(storage_fallback);
    FIELD(mixed_head_iterations);
    FIELD(precond);
    FIELD(precond_describe);
    FIELD(precond_setup_time_s);
    FIELD(precond_spmvs);
    FIELD(spmv_describe);
    ENUM(MPCG_SUCCESS);
    ENUM(MPCG_ERR_INVALID_ARG);
    ENUM(MPCG_ERR_INVALID_STATE);
    ENUM(MPCG_ERR_NOT_SUPPORTED);
    ENUM(MPCG_ERR_HOST_ALLOC);
    ENUM(MPCG_ERR_DEVICE_ALLOC);
    ENUM(MPCG_ERR_NO_DEVICE);
    ENUM(MPCG_ERR_CUDA);
    ENUM(MPCG_ERR_CUSPARSE);
    ENUM(MPCG_ERR_CUBLAS);
    ENUM(MPCG_ERR_IO);
    ENUM(MPCG_ERR_PARSE);
    ENUM(MPCG_ERR_NOT_CONVERGED);
    ENUM(MPCG_ERR_INTERNAL);
    ENUM(MPCG_STATUS_COUNT);
    ENUM(MPCG_PRECISION_FP64);
    ENUM(MPCG_PRECISION_FP32);
    ENUM(MPCG_PRECISION_MIXED);
    ENUM(MPCG_PRECOND_NONE);
    ENUM(MPCG_PRECOND_JACOBI);
    ENUM(MPCG_PRECOND_BJACOBI);
    ENUM(MPCG_PRECOND_CHEBYSHEV);
    ENUM(MPCG_PRECOND_AUTO);
    ENUM(MPCG_DEVICE_CPU);
    ENUM(MPCG_DEVICE_CUDA);
    ENUM(MPCG_REASON_NONE);
    ENUM(MPCG_CONVERGED_RTOL);
    ENUM(MPCG_CONVERGED_ZERO_RHS);
    ENUM(MPCG_CONVERGED_ATOL);
    ENUM(MPCG_DIVERGED_MAX_ITER);
    ENUM(MPCG_DIVERGED_BREAKDOWN);
    ENUM(MPCG_DIVERGED_INDEFINITE_MATRIX);
    ENUM(MPCG_DIVERGED_NAN);
    ENUM(MPCG_DIVERGED_STAGNATION);
    ENUM(MPCG_DIVERGED_INDEFINITE_PC);
    ENUM(MPCG_LOG_ERROR);
    ENUM(MPCG_LOG_WARN);
    ENUM(MPCG_LOG_INFO);
    ENUM(MPCG_LOG_DEBUG);
    ENUM(MPCG_GUESS_ZERO);
    ENUM(MPCG_GUESS_PROVIDED);
    ENUM(MPCG_INDEX_INT32);
    ENUM(MPCG_INDEX_INT64);
    ENUM(MPCG_CHECK_DIAGONAL);
    ENUM(MPCG_CHECK_SYMMETRY);
    return 0;
}
