// SPDX-License-Identifier: GPL-2.0
/*
 * perf kvm-events on arm64: kvm_exit has no vcpu id (the thread tells the
 * vcpus apart).  A trap is keyed by its exception class, any other exit
 * by its exception type with bit 31 set; kvm_wfx_arm64 tells WFI from WFE.
 */
#include <linux/bits.h>
#include <linux/kernel.h>

#include "kvm-events-arch.h"
#include "../arch/arm64/util/arm64_exception_types.h"

#define ARM64_NOT_TRAP		BIT(31)
#define ARM64_WFI		0x100
#define ARM64_WFE		0x101

static const struct kvm_events_tp_desc arm64_tps[] = {
	KVM_EVENTS_TP("kvm", "kvm_exit", EXIT, .isa = KVM_EVENTS_ISA_ARM64,
		      .code = "esr_ec", .kind = "ret", .rip = "vcpu_pc"),
	KVM_EVENTS_TP("kvm", "kvm_wfx_arm64", EXIT_DETAIL,
		      .isa = KVM_EVENTS_ISA_ARM64, .kind = "is_wfe", .rip = "vcpu_pc"),
	KVM_EVENTS_TP("kvm", "kvm_hvc_arm64", HYPERCALL,
		      .isa = KVM_EVENTS_ISA_ARM64, .code = "r0"),
};

static const struct kvm_code_name arm64_exit_classes[] = { kvm_arm_exception_class };

/*
 * Classes that the header defines but leaves out of its list, and those
 * of newer CPUs than it knows (the codes are the architecture's).
 */
static const struct kvm_code_name arm64_more_exit_classes[] = {
	ECN(ILL), ECN(SVC32), ECN(HVC32), ECN(SMC32), ECN(ERET),
	{ 0x0d, "BTI" }, { 0x1c, "FPAC" }, { 0x1d, "SME" }, { 0x27, "MOPS" },
	{ ARM64_WFI, "WFI" }, { ARM64_WFE, "WFE" },
};

static const struct kvm_code_name arm64_exit_types[] = { kvm_arm_exception_type };

static u32 arm64_exit_code(const struct kvm_events_sample *s)
{
	if (s->kind == ARM_EXCEPTION_TRAP)
		return (u32)s->code;
	return ARM64_NOT_TRAP | s->kind;
}

static u32 arm64_exit_detail(u32 code, const struct kvm_events_sample *s)
{
	if (code != ESR_ELx_EC_WFx)
		return code;
	return s->kind ? ARM64_WFE : ARM64_WFI;
}

static const char *arm64_exit_name(u32 code)
{
	const char *name;

	if (code & ARM64_NOT_TRAP)
		return kvm_code_name__find(arm64_exit_types, ARRAY_SIZE(arm64_exit_types),
					   code & ~ARM64_NOT_TRAP);
	name = kvm_code_name__find(arm64_exit_classes, ARRAY_SIZE(arm64_exit_classes), code);
	return name ?: kvm_code_name__find(arm64_more_exit_classes,
					   ARRAY_SIZE(arm64_more_exit_classes), code);
}

/* WFE waits for an event, often a spinning lock: only WFI idles. */
static bool arm64_exit_is_idle(u32 code)
{
	return code == ARM64_WFI || code == ESR_ELx_EC_WFx;
}

/* SMCCC function ids of the PSCI and SMCCC calls guests make */
static const struct kvm_code_name arm64_hypercalls[] = {
	{ 0x80000000, "SMCCC_VERSION" }, { 0x80000001, "SMCCC_ARCH_FEATURES" },
	{ 0x84000000, "PSCI_VERSION" }, { 0x84000001, "CPU_SUSPEND" },
	{ 0xc4000001, "CPU_SUSPEND" }, { 0x84000002, "CPU_OFF" },
	{ 0x84000003, "CPU_ON" }, { 0xc4000003, "CPU_ON" },
	{ 0x84000008, "SYSTEM_OFF" }, { 0x84000009, "SYSTEM_RESET" },
};

static const char *arm64_hypercall_name(u32 nr)
{
	return kvm_code_name__find(arm64_hypercalls, ARRAY_SIZE(arm64_hypercalls), nr);
}

const struct kvm_events_arch kvm_events_arch_arm64 = {
	.isa = KVM_EVENTS_ISA_ARM64, KVM_EVENTS_ARCH_TPS(arm64_tps),
	.exit_code = arm64_exit_code, .exit_detail = arm64_exit_detail,
	.exit_name = arm64_exit_name, .exit_is_idle = arm64_exit_is_idle,
	.hypercall_name = arm64_hypercall_name,
};
