/* SPDX-License-Identifier: GPL-2.0 */
/* What the kvm-events and kvm-events-queue test suites share */
#ifndef __PERF_TESTS_KVM_EVENTS_COMMON_H
#define __PERF_TESTS_KVM_EVENTS_COMMON_H

#include <stdbool.h>
#include <linux/types.h>

#include "debug.h"

/* Whether @val is @expected; when not, says both before the assertion fails */
static inline bool u64_is(u64 val, u64 expected)
{
	if (val == expected)
		return true;
	pr_debug("got %llu, expected %llu\n", (unsigned long long)val,
		 (unsigned long long)expected);
	return false;
}

#endif /* __PERF_TESTS_KVM_EVENTS_COMMON_H */
