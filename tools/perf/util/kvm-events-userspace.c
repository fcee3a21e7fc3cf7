// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <linux/bits.h>
#include <linux/kernel.h>

#include "kvm-events-analysis.h"

/*
 * userspace: from kvm_userspace_exit, where KVM_RUN returns to the VMM, to
 * the vcpu thread's next kvm event: back in KVM_RUN.  That is kvm_fpu(load)
 * where it is recorded, kvm_entry on hosts that emit it, or whatever the
 * backend traces first.  KVM_RUN failing (negative errno) is a key too.
 */
static bool userspace_begin(const struct kvm_events_sample *s, u64 *key)
{
	if (s->tp != KVM_TP_USER_EXIT)
		return false;
	if ((int)s->kind < 0)
		*key = 1ULL << 32 | (u32)-(int)s->kind;
	else
		*key = (u32)s->code;
	return true;
}

static bool any_end(const struct kvm_events_sample *s, u64 *key)
{
	*key = KVM_EVENTS_NO_KEY;
	return s->tp != KVM_TP_USER_EXIT;
}

/* KVM_EXIT_* of the kernel's uapi linux/kvm.h, by number */
static const char * const kvm_exit_names[] = {
	"UNKNOWN", "EXCEPTION", "IO", "HYPERCALL", "DEBUG", "HLT", "MMIO",
	"IRQ_WINDOW_OPEN", "SHUTDOWN", "FAIL_ENTRY", "INTR", "SET_TPR",
	"TPR_ACCESS", "S390_SIEIC", "S390_RESET", "DCR", "NMI",
	"INTERNAL_ERROR", "OSI", "PAPR_HCALL", "S390_UCONTROL", "WATCHDOG",
	"S390_TSCH", "EPR", "SYSTEM_EVENT", "S390_STSI", "IOAPIC_EOI",
	"HYPERV", "ARM_NISV", "X86_RDMSR", "X86_WRMSR", "DIRTY_RING_FULL",
	"AP_RESET_HOLD", "X86_BUS_LOCK", "XEN", "RISCV_SBI", "RISCV_CSR",
	"NOTIFY", "LOONGARCH_IOCSR", "MEMORY_FAULT",
};

static void userspace_key_name(u64 key, char *buf, size_t size)
{
	u32 code = (u32)key;

	if (key >> 32)
		snprintf(buf, size, "%s(%u)", code == EINTR ? "restart" : "error", code);
	else if (code < ARRAY_SIZE(kvm_exit_names))
		snprintf(buf, size, "%s", kvm_exit_names[code]);
	else
		snprintf(buf, size, "0x%x", code);
}

/*
 * Any event of the vcpu thread ends its time in the VMM.  record takes
 * kvm_userspace_exit and kvm_fpu only when asked (record --event
 * userspace or all): they fire on every return to the VMM, kvm_fpu twice.
 */
const struct kvm_events_analysis kvm_events_analysis_userspace = {
	.name = "userspace", .column = "Userspace Exit",
	.tps = GENMASK(KVM_TP__NR - 1, 0),
	.record_tps = KVM_EVENTS_VMEXIT_TPS | BIT(KVM_TP_USER_EXIT) | BIT(KVM_TP_FPU),
	.needs = BIT(KVM_TP_USER_EXIT),
	.begin = userspace_begin, .end = any_end, .key_name = userspace_key_name,
	.begins = BIT(KVM_TP_USER_EXIT),
	.ends = GENMASK(KVM_TP__NR - 1, 0) & ~BIT(KVM_TP_USER_EXIT),
};
