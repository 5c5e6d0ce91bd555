/* bench/experiments/experiment.h: the error checks every experiment shares, C and CUDA C++ alike
 * (experiment.cuh includes it; included by the experiments, not built by make) */
#ifndef MPCG_BENCH_EXPERIMENT_H
#define MPCG_BENCH_EXPERIMENT_H

#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

/* A CUDA runtime call that must succeed: else its error and the line, and exit 1. */
#define CK(x)                                                                                      \
    do {                                                                                           \
        cudaError_t e_ = (x);                                                                      \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));            \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

/* A library call on context ctx that must succeed: else the context's message and the line, and
 * exit 1 (the includer includes mpcg.h). */
#define CKM(ctx, x)                                                                                \
    do {                                                                                           \
        if ((x) != MPCG_SUCCESS) {                                                                 \
            char m_[512];                                                                          \
            mpcg_last_error_message(ctx, m_, sizeof m_);                                           \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, m_);                                \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

#endif /* MPCG_BENCH_EXPERIMENT_H */
