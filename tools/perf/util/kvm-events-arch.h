/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_KVM_EVENTS_ARCH_H
#define __PERF_KVM_EVENTS_ARCH_H

/*
 * What perf kvm-events knows of each architecture: its kvm tracepoints,
 * how its exit codes read and are named, and which exit idles.  One
 * struct kvm_events_arch per architecture, each in its own file; the
 * decoders find them in kvm_events_arches[] (kvm-events-tp.c).
 */
#include <linux/kernel.h>
#include <linux/types.h>
#include "kvm-events.h"

/* A code and its name; the tree's headers give such {code, "name"} lists. */
struct kvm_code_name {
	u64		code;
	const char	*name;
};

static inline const char *kvm_code_name__find(const struct kvm_code_name *table,
					      size_t nr, u64 code)
{
	size_t i;

	for (i = 0; i < nr; i++) {
		if (table[i].code == code)
			return table[i].name;
	}
	return NULL;
}
/* "I/O request" -> "I_O_REQUEST": names are one word in tables and CSV */
void kvm_events__spell_word(const char *text, char *buf, size_t size);

/*
 * What one kvm tracepoint is to the analyses, and which of its fields
 * they read.  A name may have several descriptions, one per architecture:
 * the first whose required fields the recorded format has is the one.
 */
struct kvm_events_tp_desc {
	const char		*system;
	const char		*name;
	enum kvm_tp_role	role;
	u32			isa;	/* when the format has no isa field */
	const char		*code;	/* required when set */
	const char		*kind;	/* required when set */
	const char		*vcpu;	/* optional: older kernels lack it */
	const char		*isa_field;	/* optional */
	const char		*rip;	/* optional */
	const char		*flag;	/* optional */
};

#define KVM_EVENTS_TP(_system, _name, _role, ...)			\
	{ .system = _system, .name = _name, .role = KVM_TP_##_role,	\
	  __VA_ARGS__ }

struct kvm_events_arch {
	u32				isa;
	const struct kvm_events_tp_desc	*tps;
	size_t				nr_tps;
	/* The key code of an exit sample; NULL: its code as it is */
	u32		(*exit_code)(const struct kvm_events_sample *s);
	/* What a KVM_TP_EXIT_DETAIL sample makes of the exit's code */
	u32		(*exit_detail)(u32 code, const struct kvm_events_sample *s);
	const char	*(*exit_name)(u32 code);
	bool		spell_names;	/* the names are text: make them words */
	/* An exit in which the vcpu waits for work; NULL: none can be told */
	bool		(*exit_is_idle)(u32 code);
	const char	*(*hypercall_name)(u32 nr);
	bool		(*hypercall_is_idle)(u32 nr);
};

#define KVM_EVENTS_ARCH_TPS(_tps)	.tps = _tps, .nr_tps = ARRAY_SIZE(_tps)

extern const struct kvm_events_arch kvm_events_arch_vmx;
extern const struct kvm_events_arch kvm_events_arch_svm;
extern const struct kvm_events_arch kvm_events_arch_pvm;
extern const struct kvm_events_arch kvm_events_arch_arm64;
extern const struct kvm_events_arch kvm_events_arch_s390;
extern const struct kvm_events_arch kvm_events_arch_ppc_hv;
extern const struct kvm_events_arch kvm_events_arch_riscv;
extern const struct kvm_events_arch kvm_events_arch_loongarch;

const struct kvm_events_arch *kvm_events_arch__find(u32 isa);
/* x86 MSR names, for the msr analysis */
const char *kvm_events_x86_msr_name(u32 index);

#endif /* __PERF_KVM_EVENTS_ARCH_H */
