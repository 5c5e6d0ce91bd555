/* core/device_spin.h: the launcher of core/device_spin.cu (plain C, no CUDA types) */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef MPCG_CORE_DEVICE_SPIN_H
#define MPCG_CORE_DEVICE_SPIN_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Queue on `stream` (a cudaStream_t) a kernel that keeps the GPU busy for `ns` nanoseconds of its
 * global timer: the device timer's cover while the host queues the calls it times
 * (mpcgi_device_time_calls). Returns cudaGetLastError(). */
int mpcgi_device_spin(void *stream, int64_t ns);

#ifdef __cplusplus
}
#endif

#endif /* MPCG_CORE_DEVICE_SPIN_H */
