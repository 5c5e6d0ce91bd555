/* test/test_spmv_cusparsesell.c: the cusparsesell baseline (cuSPARSE's sliced ELL): the checks
 * of test/spmv_check.h against the long double reference (not bit for bit: cuSPARSE's sums are
 * its own) on the matrices fold's layout is checked on */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdio.h>

#include "core/context.h"
#include "core/device.h"
#include "test/spmv_check.h"
#include "test/testutil.h"

#define cpu spmv_check_cpu
#define gpu spmv_check_gpu

int main(void)
{
    test_init_seed("test_spmv_cusparsesell");
    CHECK_OK(NULL, mpcg_context_create("cpu", &cpu));
    if (!cpu) return test_finish("test_spmv_cusparsesell");
    if (mpcgi_device_count() > 0)
        CHECK_OK(NULL, mpcg_context_create("cuda:0", &gpu));
    else
        printf("test_spmv_cusparsesell: no usable GPU, the GPU checks are skipped\n");
    mpcgi_rng g;
    mpcgi_rng_seed(&g, test_seed);
    /* against the reference, not bit for bit: cuSPARSE's sums are its own */
    spmv_check_target sell = {&mpcgi_spmv_cusparse_sell, 0};
    spmv_check_fold_shapes(&g, spmv_check_with_defaults, &sell);
    int skip = !gpu && !test_failures; /* the CPU checks passed; the GPU ones could not run */
    mpcg_context_destroy(gpu);
    mpcg_context_destroy(cpu);
    return skip ? TEST_SKIP : test_finish("test_spmv_cusparsesell");
}
