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
    mpcgi_rng g;
    if (spmv_check_start("test_spmv_cusparsesell", &g) != 0)
        return test_finish("test_spmv_cusparsesell");
    /* against the reference, not bit for bit: cuSPARSE's sums are its own */
    spmv_check_target sell = {&mpcgi_spmv_cusparse_sell, 0};
    spmv_check_fold_shapes(&g, spmv_check_with_defaults, &sell);
    return spmv_check_finish("test_spmv_cusparsesell");
}
