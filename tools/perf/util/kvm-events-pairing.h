/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_KVM_EVENTS_PAIRING_H
#define __PERF_KVM_EVENTS_PAIRING_H

/* The pairing engine's state of a report (kvm-stat.c), and what the join uses */
#include <stdbool.h>
#include <linux/types.h>
#include "kvm-events.h"
#include "kvm-events-sched.h"

/* Direct-mapped caches in front of the maps, for the per-sample lookups */
#define PAIRING_CACHE	64

struct vcpu_state;

/*
 * What holds back a second part's samples until the first part's state
 * of their thread is known (kvm-events-join.c).  The engine calls it only
 * for a thread not started in its report, which a report of a whole file
 * never has, and for the switch records of a second part.
 */
struct kvm_events_deferral {
	/* A sample of a thread not started yet: true if it was held */
	bool (*sample)(struct kvm_events_report *report, struct vcpu_state *vcpu,
		       const struct kvm_events_sample *s);
	/* A switch of @vcpu, NULL for a thread without state: true if taken */
	bool (*switched)(struct kvm_events_report *report, struct vcpu_state *vcpu,
			 const struct kvm_events_sample *s);
	void (*free)(struct kvm_events_deferral *deferral);
};

/* The engine's own state of a report */
struct kvm_events_pairing {
	bool			filtering;	/* any filter in the options */
	struct hashmap		*keys;
	struct hashmap		*vcpus;
	struct kvm_events_key	*key_cache[PAIRING_CACHE];
	struct vcpu_state	*vcpu_cache[PAIRING_CACHE];
	/* Tid + 1 of a thread that has no vcpu_state, 0: none */
	u32			not_vcpu[PAIRING_CACHE];
	u32			alloc_top;
	bool			vcpu_matters;	/* to a filter or the grouping */
	/* A report of the second part of a file: its threads start unstarted. */
	struct kvm_events_deferral *deferral;
};

/*
 * Pairing state of one vcpu thread.  A sample is accounted when its interval
 * is resolved (ended, superseded or cut off): --duration needs its time.
 */
struct vcpu_state {
	u32	tid;
	u32	pid;
	u32	vcpu;
	bool	open;		/* an interval has begun */
	bool	pending;	/* ...for a sample of pending_key */
	u64	begin_time;
	u64	pending_key;
	u64	rip;		/* of the last exit */
	u64	begin_rip;	/* of the exit the interval began in */
	bool	started;	/* in a second part: its state is its own */
	struct kvm_events_offcpu offcpu;	/* of the open interval */
};

size_t kvm_events_pairing__tid_hash(long key, void *ctx);
bool kvm_events_pairing__tid_equal(long key1, long key2, void *ctx);
/* The thread id now runs in VM process @pid: what it began is cut off. */
void kvm_events_pairing__reused(struct kvm_events_report *report,
				struct vcpu_state *vcpu, u32 pid);
/*
 * What any sample tells of its thread: its vcpu id, its exit's RIP.  The
 * caller first gives a sample of another VM process than @vcpu's to
 * kvm_events_pairing__reused(): kvm-stat.c, which defines it, includes
 * this header, whose inline functions call into no file of ours.
 */
static inline void vcpu_state__note(struct vcpu_state *vcpu,
				    const struct kvm_events_sample *s)
{
	if (s->vcpu != KVM_EVENTS_NO_VCPU)
		vcpu->vcpu = s->vcpu;
	if (s->tp == KVM_TP_EXIT)
		vcpu->rip = s->rip;
}
/* The key's entry, made if new; NULL without memory */
struct kvm_events_key *kvm_events_pairing__key(struct kvm_events_report *report,
					       u64 key, u32 group, u32 pid);

#endif /* __PERF_KVM_EVENTS_PAIRING_H */
