/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_KVM_EVENTS_SITES_H
#define __PERF_KVM_EVENTS_SITES_H

/*
 * Guest code sites: the guest's functions, from its /proc/kallsyms or
 * System.map, so that --key rip and --key sym name the guest code that
 * exits.
 */
#include <stddef.h>
#include <linux/types.h>

struct kvm_events_guest_function {
	u64	start;
	char	*name;
};

/* The guest's functions by start, one per start */
struct kvm_events_guest_symbols {
	struct kvm_events_guest_function	*functions;
	size_t					nr;
};

int kvm_events_guest_symbols__load(struct kvm_events_guest_symbols *syms,
				   const char *path);
void kvm_events_guest_symbols__exit(struct kvm_events_guest_symbols *syms);
const struct kvm_events_guest_function *
kvm_events_guest_symbols__find(const struct kvm_events_guest_symbols *syms, u64 rip);

#endif /* __PERF_KVM_EVENTS_SITES_H */
