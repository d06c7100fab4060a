/* SPDX-License-Identifier: GPL-2.0 */
/* perf.c: user-space instruction counts, if the machine has a PMU. */
#ifndef MASK_ALLOC_BENCH_PERF_H
#define MASK_ALLOC_BENCH_PERF_H

int perf_open(void);
void perf_start(void);
long long perf_stop(void);

#endif
