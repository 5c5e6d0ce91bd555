/* core/timer.h: wall-clock time */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef MPCG_CORE_TIMER_H
#define MPCG_CORE_TIMER_H

/* Seconds since an arbitrary start, from a monotonic clock. */
double mpcgi_wtime(void);

#endif /* MPCG_CORE_TIMER_H */
