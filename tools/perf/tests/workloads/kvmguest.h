/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_TESTS_WORKLOADS_KVMGUEST_H
#define __PERF_TESTS_WORKLOADS_KVMGUEST_H

#include <stddef.h>

/* A place in a guest's code, as a guest System.map names it (--key sym) */
struct kvmguest_label {
	unsigned long	offset;
	const char	*name;
};

/* perf test -w kvmguest map: @nr labels of the code at @base, the last its end */
int kvmguest_print_map(unsigned long base, const struct kvmguest_label *labels, size_t nr);

/* The kvmguest workload's arm64 guest, in kvmguest-arm64.c */
int kvmguest_arm64(int argc, const char **argv);

#endif /* __PERF_TESTS_WORKLOADS_KVMGUEST_H */
