// SPDX-License-Identifier: GPL-2.0
/*
 * perf kvm-events on x86: VMX, SVM and PVM share the kvm tracepoints;
 * kvm_exit's isa field (or the header's cpuid where it has none) tells
 * which encoding an exit reason is in.
 */
#include <string.h>
#include <linux/kernel.h>

#include "kvm-events-arch.h"

/* The exit reason tables are facts from the tree's x86 uapi headers. */
#include "../../arch/x86/include/uapi/asm/kvm.h"
#include "../../arch/x86/include/uapi/asm/vmx.h"
#include "../../arch/x86/include/uapi/asm/svm.h"

static const struct kvm_events_tp_desc x86_tps[] = {
	KVM_EVENTS_TP("kvm", "kvm_exit", EXIT, .code = "exit_reason",
		      .vcpu = "vcpu_id", .isa_field = "isa", .rip = "guest_rip"),
	KVM_EVENTS_TP("kvm", "kvm_entry", ENTRY, .vcpu = "vcpu_id"),
	KVM_EVENTS_TP("kvm", "kvm_msr", MSR, .code = "ecx", .kind = "write"),
	KVM_EVENTS_TP("kvm", "kvm_hypercall", HYPERCALL, .code = "nr"),
	KVM_EVENTS_TP("kvm", "kvm_nested_vmexit", NESTED_EXIT,
		      .code = "exit_reason", .vcpu = "vcpu_id", .isa_field = "isa"),
	KVM_EVENTS_TP("kvm", "kvm_nested_vmexit_inject", NESTED_INJECT,
		      .code = "exit_code", .isa_field = "isa"),
};

static const struct kvm_code_name vmx_exit_reasons[] = { VMX_EXIT_REASONS };
static const struct kvm_code_name svm_exit_reasons[] = { SVM_EXIT_REASONS };

/* PVM's exits: exception vectors, then its own reasons above 0xffff */
static const struct kvm_code_name pvm_exit_reasons[] = {
	{ 0, "#DE" }, { 1, "#DB" }, { 2, "NMI" }, { 3, "#BP" }, { 4, "#OF" },
	{ 5, "#BR" }, { 6, "#UD" }, { 7, "#NM" }, { 8, "#DF" }, { 10, "#TS" },
	{ 11, "#NP" }, { 12, "#SS" }, { 13, "#GP" }, { 14, "#PF" },
	{ 16, "#MF" }, { 17, "#AC" }, { 18, "#MC" }, { 19, "#XM" },
	{ 20, "#VE" }, { 1025, "FAILED_VMENTRY" }, { 0x10000, "SYSCALL" },
	{ 0x20000, "HYPERCALL" }, { 0x30000, "ERETU" }, { 0x40000, "ERETS" },
	{ 0x50000, "INTERRUPT" }, { 0x60000, "INT80" },
};

static const char *vmx_exit_name(u32 code)
{
	return kvm_code_name__find(vmx_exit_reasons, ARRAY_SIZE(vmx_exit_reasons), code);
}

static const char *svm_exit_name(u32 code)
{
	return kvm_code_name__find(svm_exit_reasons, ARRAY_SIZE(svm_exit_reasons), code);
}

static const char *pvm_exit_name(u32 code)
{
	return kvm_code_name__find(pvm_exit_reasons, ARRAY_SIZE(pvm_exit_reasons), code);
}

/* MWAIT exits are emulated as a NOP by KVM: not idle. */
static bool vmx_exit_is_idle(u32 code)
{
	return code == EXIT_REASON_HLT;
}

static bool svm_exit_is_idle(u32 code)
{
	return code == SVM_EXIT_HLT;
}

/*
 * MSR names: msr-index.h's, as perf trace's x86_msr.sh generates them
 * for its tracepoint beautifiers, and the MSRs that header lacks.
 */
#include "trace/beauty/generated/x86_arch_MSRs_array.c"

static const struct kvm_code_name more_msr_names[] = {
	/* The script leaves this one out; guests write it on every timer. */
	{ 0x6e0, "IA32_TSC_DEADLINE" },
	/* x2APIC registers: 0x800 + the xAPIC offset / 16 */
	{ 0x802, "X2APIC_ID" }, { 0x808, "X2APIC_TPR" }, { 0x80b, "X2APIC_EOI" },
	{ 0x830, "X2APIC_ICR" }, { 0x838, "X2APIC_TMICT" },
	{ 0x839, "X2APIC_TMCCT" }, { 0x83f, "X2APIC_SELF_IPI" },
	/* KVM's paravirtual MSRs, of the uapi asm/kvm_para.h */
	{ 0x11, "KVM_WALL_CLOCK" }, { 0x12, "KVM_SYSTEM_TIME" },
	{ 0x4b564d00, "KVM_WALL_CLOCK_NEW" }, { 0x4b564d01, "KVM_SYSTEM_TIME_NEW" },
	{ 0x4b564d02, "KVM_ASYNC_PF_EN" }, { 0x4b564d03, "KVM_STEAL_TIME" },
	{ 0x4b564d04, "KVM_PV_EOI_EN" }, { 0x4b564d05, "KVM_POLL_CONTROL" },
};

static const char *msr_name_in(const char * const *names, size_t nr, u64 base,
			       u32 index)
{
	return index >= base && index - base < nr ? names[index - base] : NULL;
}

const char *kvm_events_x86_msr_name(u32 index)
{
	const char *name;

	name = msr_name_in(x86_MSRs, ARRAY_SIZE(x86_MSRs), 0, index) ?:
	       msr_name_in(x86_64_specific_MSRs, ARRAY_SIZE(x86_64_specific_MSRs),
			   x86_64_specific_MSRs_offset, index) ?:
	       msr_name_in(x86_AMD_V_KVM_MSRs, ARRAY_SIZE(x86_AMD_V_KVM_MSRs),
			   x86_AMD_V_KVM_MSRs_offset, index);
	return name ?: kvm_code_name__find(more_msr_names, ARRAY_SIZE(more_msr_names), index);
}

/* The cpuid of a recording whose kvm_exit has no isa field */
u32 kvm_events_isa_from_cpuid(const char *cpuid)
{
	if (!cpuid)
		return 0;
	if (strstr(cpuid, "GenuineIntel"))
		return KVM_EVENTS_ISA_VMX;
	if (strstr(cpuid, "AuthenticAMD") || strstr(cpuid, "HygonGenuine"))
		return KVM_EVENTS_ISA_SVM;
	return 0;
}

const struct kvm_events_arch kvm_events_arch_vmx = {
	.isa = KVM_EVENTS_ISA_VMX, KVM_EVENTS_ARCH_TPS(x86_tps),
	.exit_name = vmx_exit_name, .exit_is_idle = vmx_exit_is_idle,
};

/* SVM and PVM read the tracepoints of VMX's entry. */
const struct kvm_events_arch kvm_events_arch_svm = {
	.isa = KVM_EVENTS_ISA_SVM,
	.exit_name = svm_exit_name, .exit_is_idle = svm_exit_is_idle,
};

/* A PVM guest halts through a hypercall or an emulated #GP. */
const struct kvm_events_arch kvm_events_arch_pvm = {
	.isa = KVM_EVENTS_ISA_PVM, .exit_name = pvm_exit_name,
};
