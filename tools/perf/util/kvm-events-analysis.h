/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_KVM_EVENTS_ANALYSIS_H
#define __PERF_KVM_EVENTS_ANALYSIS_H

/*
 * The ops of one analysis of perf kvm-events.  The engine (kvm-stat.c)
 * pairs each vcpu's samples with them; kvm-events-analyses.c holds the
 * table of analyses, so that adding one is adding one entry there.
 */
#include <linux/bits.h>
#include <linux/types.h>
#include "kvm-events.h"
#include "kvm-events-arch.h"

/*
 * One analysis: which samples open and close a vcpu's interval, and which
 * of them are samples of a key.  *key is KVM_EVENTS_NO_KEY for an event
 * that only marks time (the kvm_exit before an MMIO read, the kvm_entry).
 */
struct kvm_events_arch;

struct kvm_events_analysis {
	const char	*name;
	const char	*column;
	u32		tps;	/* BIT(tp) of each tracepoint it reads */
	/* What record asks for it, if not tps; without needs it counts nothing */
	u32		record_tps;
	u32		needs;
	bool		by_default;	/* recorded without record --event */
	bool		(*begin)(const struct kvm_events_sample *s, u64 *key);
	bool		(*end)(const struct kvm_events_sample *s, u64 *key);
	/* BIT(tp) of the samples begin() and end() may take: the rest skip the call */
	u32		begins;
	u32		ends;
	/* Optional: a sample that tells more of the open interval's key */
	bool		(*refine)(const struct kvm_events_sample *s, u64 *key);
	/*
	 * Optional: a sample that is a whole event, which the kernel timed
	 * itself (*duration, or KVM_EVENTS_NO_TIME for an event without one).
	 */
	bool		(*whole)(const struct kvm_events_sample *s, u64 *key,
				 u64 *duration);
	void		(*key_name)(u64 key, char *buf, size_t size);
	/* Optional: a vcpu waiting for work, whose time is not overhead */
	bool		(*is_idle)(u64 key);
};

#define KVM_EVENTS_NO_TIME	(~0ULL)

/* Where keys that differ by architecture keep their isa */
#define KVM_EVENTS_KEY_ISA_SHIFT	32

#define KVM_EVENTS_VMEXIT_TPS	(BIT(KVM_TP_EXIT) | BIT(KVM_TP_ENTRY))

/* The architecture of a key that keeps its isa */
static inline const struct kvm_events_arch *kvm_events_key_arch(u64 key)
{
	return kvm_events_arch__find((u8)(key >> KVM_EVENTS_KEY_ISA_SHIFT));
}

/* The end of most analyses: the vcpu is back in the guest */
static inline bool kvm_events__entry_end(const struct kvm_events_sample *s, u64 *key)
{
	*key = KVM_EVENTS_NO_KEY;
	return s->tp == KVM_TP_ENTRY;
}

extern const struct kvm_events_analysis kvm_events_analysis_vmexit;
extern const struct kvm_events_analysis kvm_events_analysis_mmio;
extern const struct kvm_events_analysis kvm_events_analysis_ioport;
extern const struct kvm_events_analysis kvm_events_analysis_userspace;
extern const struct kvm_events_analysis kvm_events_analysis_msr;
extern const struct kvm_events_analysis kvm_events_analysis_hypercall;
extern const struct kvm_events_analysis kvm_events_analysis_halt;

#endif /* __PERF_KVM_EVENTS_ANALYSIS_H */
