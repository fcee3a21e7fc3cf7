// SPDX-License-Identifier: GPL-2.0
/*
 * perf kvm-events on powerpc book3s HV: guest exits are interrupt vectors,
 * hypercalls are PAPR hcalls between kvm_hcall_enter and kvm_hcall_exit.
 */
#include <linux/kernel.h>

#include "kvm-events-arch.h"
#include "../arch/powerpc/util/book3s_hv_exits.h"
#include "../arch/powerpc/util/book3s_hcalls.h"

#define PPC_H_CEDE	0xe0

static const struct kvm_events_tp_desc ppc_hv_tps[] = {
	KVM_EVENTS_TP("kvm_hv", "kvm_guest_exit", EXIT, .isa = KVM_EVENTS_ISA_PPC_HV,
		      .code = "trap", .vcpu = "vcpu_id", .rip = "pc"),
	KVM_EVENTS_TP("kvm_hv", "kvm_guest_enter", ENTRY, .vcpu = "vcpu_id"),
	KVM_EVENTS_TP("kvm_hv", "kvm_hcall_enter", HYPERCALL,
		      .isa = KVM_EVENTS_ISA_PPC_HV, .code = "req", .vcpu = "vcpu_id"),
	KVM_EVENTS_TP("kvm_hv", "kvm_hcall_exit", HYPERCALL_END, .vcpu = "vcpu_id"),
};

static const struct kvm_code_name ppc_hv_exits[] = { kvm_trace_symbol_exit };

/* Vectors the kernel traces that the tree's perf header does not list */
static const struct kvm_code_name ppc_hv_more_exits[] = {
	{ 0x1980, "NESTED_HV_DECREMENTER" }, { 0xa00, "DOORBELL" },
	{ 0xe60, "HMI" }, { 0xe80, "H_DOORBELL" }, { 0xea0, "H_VIRT" },
	{ 0xf60, "FAC_UNAVAIL" }, { 0xf80, "H_FAC_UNAVAIL" },
	{ 0x1500, "HV_SOFTPATCH" }, { 0x5555, "HV_RM_HARD" },
};

static const struct kvm_code_name ppc_hcalls[] = { kvm_trace_symbol_hcall };

static const char *ppc_hv_exit_name(u32 code)
{
	const char *name = kvm_code_name__find(ppc_hv_exits, ARRAY_SIZE(ppc_hv_exits), code);

	return name ?: kvm_code_name__find(ppc_hv_more_exits,
					   ARRAY_SIZE(ppc_hv_more_exits), code);
}

static const char *ppc_hcall_name(u32 nr)
{
	return kvm_code_name__find(ppc_hcalls, ARRAY_SIZE(ppc_hcalls), nr);
}

/* H_CEDE gives the cpu up until an interrupt: an idle guest's call */
static bool ppc_hcall_is_idle(u32 nr)
{
	return nr == PPC_H_CEDE;
}

const struct kvm_events_arch kvm_events_arch_ppc_hv = {
	.isa = KVM_EVENTS_ISA_PPC_HV, KVM_EVENTS_ARCH_TPS(ppc_hv_tps),
	.exit_name = ppc_hv_exit_name, .hypercall_name = ppc_hcall_name,
	.hypercall_is_idle = ppc_hcall_is_idle,
};
