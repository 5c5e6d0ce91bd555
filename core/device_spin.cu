/* core/device_spin.cu: a kernel that keeps the GPU busy for a given time (the device timer's
 * cover while the host queues the calls it times: core/device_cuda.c) */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <cuda_runtime.h>
#include <stdint.h>

#include "core/device_spin.h"

static __device__ __forceinline__ uint64_t global_ns(void)
{
    uint64_t t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

/* One thread waits until `ns` nanoseconds of the GPU's global timer have passed. */
static __global__ void spin_kernel(int64_t ns)
{
    const uint64_t t0 = global_ns();
    while ((int64_t)(global_ns() - t0) < ns) __nanosleep(1000);
}

extern "C" int mpcgi_device_spin(void *stream, int64_t ns)
{
    spin_kernel<<<1, 1, 0, (cudaStream_t)stream>>>(ns);
    return (int)cudaGetLastError();
}
