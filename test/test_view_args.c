/* test/test_view_args.c: the argument checks of mpcg_matrix_view_device_csr and
 * mpcg_matrix_update_values_device, without a GPU (test/test_device_csr.c runs the views) */
/* SPDX-License-Identifier: BSD-3-Clause */
#include "core/alloc.h"
#include "test/testutil.h"

static mpcg_context *cpu;

/* The call fails with `want`, *out is NULL and the message holds `words`. */
static void refused(mpcg_status got, mpcg_status want, const mpcg_matrix *out, const char *words,
                    int line)
{
    const char *msg = mpcg_last_error(cpu);
    if (got != want || out != NULL || !strstr(msg, words)) {
        fprintf(stderr, "line %d: %s (want %s), out %p, message '%s' (want '%s')\n", line,
                mpcg_status_name(got), mpcg_status_name(want), (const void *)out, msg, words);
        test_failures++;
    }
    mpcg_clear_error(cpu);
}

#define REFUSED(call, want, words)                                                          \
    do {                                                                                    \
        mpcg_status got_ = (call); /* before V is read */                                  \
        refused(got_, (want), V, (words), __LINE__);                                        \
    } while (0)

int main(void)
{
    test_init_seed("test_view_args");
    const int64_t live = mpcgi_alloc_live();
    /* a CUDA build has a GPU backend; a CPU-only build none (and no device views) */
    const int cuda_build = mpcg_backend_auto(MPCG_DEVICE_CUDA) != NULL;
    int32_t rp[3] = {0, 1, 2}, col[2] = {0, 1};
    double val[2] = {1, 2};
    mpcg_matrix *V = (mpcg_matrix *)&V, *H = NULL;
    CHECK_OK(NULL, mpcg_context_create("cpu", &cpu));

    CHECK_STATUS(NULL, mpcg_matrix_view_device_csr(NULL, 2, 2, rp, MPCG_INDEX_INT32, col, val, &V),
                 MPCG_ERR_INVALID_ARG);
    CHECK(V == NULL);
    V = NULL;
    REFUSED(mpcg_matrix_view_device_csr(cpu, 2, 2, rp, MPCG_INDEX_INT32, col, val, NULL),
            MPCG_ERR_INVALID_ARG, "out must not be NULL");
    V = (mpcg_matrix *)&V;
    REFUSED(mpcg_matrix_view_device_csr(cpu, 0, 0, rp, MPCG_INDEX_INT32, col, val, &V),
            MPCG_ERR_INVALID_ARG, "n = 0 out of range");
    REFUSED(mpcg_matrix_view_device_csr(cpu, (int64_t)INT32_MAX + 1, 2, rp, MPCG_INDEX_INT32, col,
                                        val, &V),
            MPCG_ERR_INVALID_ARG, "out of range [1, 2147483647]");
    REFUSED(mpcg_matrix_view_device_csr(cpu, 2, 2, rp, (mpcg_index_type)7, col, val, &V),
            MPCG_ERR_INVALID_ARG, "row_ptr_type 7");
    REFUSED(mpcg_matrix_view_device_csr(cpu, 2, -1, rp, MPCG_INDEX_INT32, col, val, &V),
            MPCG_ERR_INVALID_ARG, "nnz = -1 out of range");
    REFUSED(mpcg_matrix_view_device_csr(cpu, 2, (int64_t)INT32_MAX + 1, rp, MPCG_INDEX_INT32, col,
                                        val, &V),
            MPCG_ERR_INVALID_ARG, "for int32 row pointers");
    REFUSED(mpcg_matrix_view_device_csr(cpu, 2, 2, NULL, MPCG_INDEX_INT32, col, val, &V),
            MPCG_ERR_INVALID_ARG, "must not be NULL");
    REFUSED(mpcg_matrix_view_device_csr(cpu, 2, 2, rp, MPCG_INDEX_INT32, col, NULL, &V),
            MPCG_ERR_INVALID_ARG, "must not be NULL");
    /* arguments that pass: the device layer refuses the CPU context (a CUDA build), or the
     * build (no CUDA) */
    if (cuda_build)
        REFUSED(mpcg_matrix_view_device_csr(cpu, 2, 2, rp, MPCG_INDEX_INT64, col, val, &V),
                MPCG_ERR_INVALID_STATE, "need a GPU context");
    else
        REFUSED(mpcg_matrix_view_device_csr(cpu, 2, 2, rp, MPCG_INDEX_INT64, col, val, &V),
                MPCG_ERR_NO_DEVICE, "built without CUDA");
    V = NULL;
    REFUSED(mpcg_matrix_view_device_csr(cpu, 2, 0, rp, MPCG_INDEX_INT32, NULL, NULL, &V),
            cuda_build ? MPCG_ERR_INVALID_STATE : MPCG_ERR_NO_DEVICE, "");

    /* values of a device view only */
    int64_t rp64[3] = {0, 1, 2};
    CHECK_OK(cpu, mpcg_matrix_create_csr(cpu, 2, rp64, col, val, &H));
    CHECK_STATUS(NULL, mpcg_matrix_update_values_device(NULL, val), MPCG_ERR_INVALID_ARG);
    CHECK_STATUS(cpu, mpcg_matrix_update_values_device(H, val), MPCG_ERR_INVALID_STATE);
    CHECK(strstr(mpcg_last_error(cpu), "mpcg_matrix_update_values") != NULL);
    mpcg_clear_error(cpu);
    mpcg_matrix_destroy(H);
    mpcg_context_destroy(cpu);
    CHECK(mpcgi_alloc_live() == live);
    return test_finish("test_view_args");
}
