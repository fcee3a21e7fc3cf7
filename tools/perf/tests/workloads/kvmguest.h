/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_TESTS_WORKLOADS_KVMGUEST_H
#define __PERF_TESTS_WORKLOADS_KVMGUEST_H

/* The kvmguest workload's arm64 guest, in kvmguest-arm64.c */
int kvmguest_arm64(int argc, const char **argv);

#endif /* __PERF_TESTS_WORKLOADS_KVMGUEST_H */
