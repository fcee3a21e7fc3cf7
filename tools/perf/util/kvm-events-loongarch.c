// SPDX-License-Identifier: GPL-2.0
/*
 * perf kvm-events on loongarch: an exit re-enters the guest directly
 * (kvm_reenter) or after the VMM (kvm_enter); kvm_exit_idle and
 * kvm_exit_cache tell what a GSPR exit was.
 */
#include <linux/kernel.h>

#include "kvm-events-arch.h"

/* KVM's own reasons for GSPR exits, past the exception codes */
#define LOONGARCH_EXIT_IDLE	64

static const struct kvm_events_tp_desc loongarch_tps[] = {
	KVM_EVENTS_TP("kvm", "kvm_exit", EXIT, .isa = KVM_EVENTS_ISA_LOONGARCH,
		      .code = "reason", .vcpu = "vcpu_id", .rip = "pc"),
	KVM_EVENTS_TP("kvm", "kvm_exit_idle", EXIT_DETAIL,
		      .isa = KVM_EVENTS_ISA_LOONGARCH, .code = "reason",
		      .vcpu = "vcpu_id"),
	KVM_EVENTS_TP("kvm", "kvm_exit_cache", EXIT_DETAIL,
		      .isa = KVM_EVENTS_ISA_LOONGARCH, .code = "reason",
		      .vcpu = "vcpu_id"),
	KVM_EVENTS_TP("kvm", "kvm_enter", ENTRY, .vcpu = "vcpu_id"),
	KVM_EVENTS_TP("kvm", "kvm_reenter", ENTRY, .vcpu = "vcpu_id"),
};

/* The exception codes of the architecture manual (the tree has no header) */
static const struct kvm_code_name loongarch_exits[] = {
	{ 0, "INT" }, { 1, "TLBL" }, { 2, "TLBS" }, { 3, "TLBI" }, { 4, "TLBM" },
	{ 5, "TLBNR" }, { 6, "TLBNX" }, { 7, "TLBPE" }, { 8, "ADE" },
	{ 9, "ALE" }, { 10, "BCE" }, { 11, "SYS" }, { 12, "BP" }, { 13, "INE" },
	{ 14, "IPE" }, { 15, "FPDIS" }, { 16, "LSXDIS" }, { 17, "LASXDIS" },
	{ 18, "FPE" }, { 19, "WATCH" }, { 20, "BTDIS" }, { 21, "BTE" },
	{ 22, "GSPR" }, { 23, "HVC" }, { 24, "GCM" }, { 25, "SE" },
	{ LOONGARCH_EXIT_IDLE, "IDLE" }, { 65, "CACHE" },
};

static u32 loongarch_exit_detail(u32 code __maybe_unused,
				 const struct kvm_events_sample *s)
{
	return (u32)s->code;
}

static const char *loongarch_exit_name(u32 code)
{
	return kvm_code_name__find(loongarch_exits, ARRAY_SIZE(loongarch_exits), code);
}

static bool loongarch_exit_is_idle(u32 code)
{
	return code == LOONGARCH_EXIT_IDLE;
}

const struct kvm_events_arch kvm_events_arch_loongarch = {
	.isa = KVM_EVENTS_ISA_LOONGARCH, KVM_EVENTS_ARCH_TPS(loongarch_tps),
	.exit_detail = loongarch_exit_detail, .exit_name = loongarch_exit_name,
	.exit_is_idle = loongarch_exit_is_idle,
};
