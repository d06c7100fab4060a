// SPDX-License-Identifier: GPL-2.0
/*
 * Instruction counter for bench.c, built without the harness's include
 * path (it needs the real <linux/types.h>).  All calls are no-ops and
 * perf_stop() returns -1 where perf events do not work (no PMU in a VM).
 */
#include <linux/perf_event.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "perf.h"

static int perf_fd = -1;

int perf_open(void)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_HARDWARE;
	a.size = sizeof(a);
	a.config = PERF_COUNT_HW_INSTRUCTIONS;
	a.disabled = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	perf_fd = syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	return perf_fd < 0 ? -1 : 0;
}

void perf_start(void)
{
	if (perf_fd >= 0) {
		ioctl(perf_fd, PERF_EVENT_IOC_RESET, 0);
		ioctl(perf_fd, PERF_EVENT_IOC_ENABLE, 0);
	}
}

long long perf_stop(void)
{
	long long v;

	if (perf_fd < 0)
		return -1;
	ioctl(perf_fd, PERF_EVENT_IOC_DISABLE, 0);
	if (read(perf_fd, &v, sizeof(v)) != sizeof(v))
		return -1;
	return v;
}
