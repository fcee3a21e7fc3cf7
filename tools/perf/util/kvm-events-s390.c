// SPDX-License-Identifier: GPL-2.0
/*
 * perf kvm-events on s390: SIE exits and entries; a DIAGNOSE is the
 * guest's hypercall.  The names are the text of the tree's uapi sie.h.
 */
#include <string.h>
#include <linux/kernel.h>

#include "kvm-events-arch.h"
#include "../../arch/s390/include/uapi/asm/sie.h"

/* The intercept of a guest in enabled wait: it waits for an interrupt */
#define S390_ICPT_WAIT	0x1c

static const struct kvm_events_tp_desc s390_tps[] = {
	KVM_EVENTS_TP("kvm", "kvm_s390_sie_exit", EXIT, .isa = KVM_EVENTS_ISA_S390,
		      .code = "icptcode", .vcpu = "id", .rip = "pswaddr"),
	KVM_EVENTS_TP("kvm", "kvm_s390_sie_enter", ENTRY, .vcpu = "id"),
	KVM_EVENTS_TP("kvm", "kvm_s390_handle_diag", HYPERCALL,
		      .isa = KVM_EVENTS_ISA_S390, .code = "code", .vcpu = "id"),
};

static const struct kvm_code_name s390_intercepts[] = { sie_intercept_code };
static const struct kvm_code_name s390_diagnoses[] = { diagnose_codes };

static const char *s390_exit_name(u32 code)
{
	return kvm_code_name__find(s390_intercepts, ARRAY_SIZE(s390_intercepts), code);
}

static bool s390_exit_is_idle(u32 code)
{
	return code == S390_ICPT_WAIT;
}

/* "DIAG (0x500) KVM virtio functions" -> " KVM virtio functions" */
static const char *s390_diagnose_name(u32 code)
{
	const char *text = kvm_code_name__find(s390_diagnoses,
					       ARRAY_SIZE(s390_diagnoses), code);
	const char *end = text ? strchr(text, ')') : NULL;

	return end ? end + 1 : text;
}

const struct kvm_events_arch kvm_events_arch_s390 = {
	.isa = KVM_EVENTS_ISA_S390, KVM_EVENTS_ARCH_TPS(s390_tps),
	.exit_name = s390_exit_name, .spell_names = true,
	.exit_is_idle = s390_exit_is_idle, .hypercall_name = s390_diagnose_name,
};
