// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <linux/bits.h>
#include <linux/kernel.h>

#include "kvm-events-analysis.h"
#include "kvm-events-arch.h"

/*
 * hypercall: from kvm_hypercall (x86), kvm_hvc_arm64, kvm_hcall_enter
 * (powerpc) or kvm_s390_handle_diag to kvm_entry, or to kvm_hcall_exit
 * where there is one.  The key is the number, and the isa beside it for
 * other architectures than x86: each numbers its own.
 */
static bool hypercall_begin(const struct kvm_events_sample *s, u64 *key)
{
	if (s->tp != KVM_TP_HYPERCALL)
		return false;
	*key = s->isa ? (u64)(u8)s->isa << KVM_EVENTS_KEY_ISA_SHIFT | (u32)s->code : s->code;
	return true;
}

static bool hypercall_end(const struct kvm_events_sample *s, u64 *key)
{
	*key = KVM_EVENTS_NO_KEY;
	return s->tp == KVM_TP_ENTRY || s->tp == KVM_TP_HYPERCALL_END;
}

/* KVM_HC_* of the kernel's uapi linux/kvm_para.h */
static const struct kvm_code_name hypercall_names[] = {
	{ 1, "VAPIC_POLL_IRQ" }, { 2, "MMU_OP" }, { 3, "FEATURES" },
	{ 4, "PPC_MAP_MAGIC_PAGE" }, { 5, "KICK_CPU" },
	{ 6, "MIPS_GET_CLOCK_FREQ" }, { 7, "MIPS_EXIT_VM" },
	{ 8, "MIPS_CONSOLE_OUTPUT" }, { 9, "CLOCK_PAIRING" }, { 10, "SEND_IPI" },
	{ 11, "SCHED_YIELD" }, { 12, "MAP_GPA_RANGE" },
};

static void hypercall_key_name(u64 key, char *buf, size_t size)
{
	u32 isa = (u8)(key >> KVM_EVENTS_KEY_ISA_SHIFT), nr = (u32)key;
	const struct kvm_events_arch *arch;
	const char *name = NULL;
	int len;

	/* x86's kvm_hypercall has no isa: KVM's own numbers, in decimal */
	if (!isa) {
		name = kvm_code_name__find(hypercall_names, ARRAY_SIZE(hypercall_names), key);
		if (name)
			snprintf(buf, size, "%llu/%s", (unsigned long long)key, name);
		else
			snprintf(buf, size, "%llu", (unsigned long long)key);
		return;
	}
	arch = kvm_events_arch__find(isa);
	if (arch && arch->hypercall_name)
		name = arch->hypercall_name(nr);
	len = snprintf(buf, size, "0x%x", nr);
	if (name && len > 0 && (size_t)len + 1 < size) {
		buf[len++] = '/';
		kvm_events__spell_word(name, buf + len, size - len);
	}
}

static bool hypercall_is_idle(u64 key)
{
	const struct kvm_events_arch *arch = kvm_events_key_arch(key);

	return arch && arch->hypercall_is_idle && arch->hypercall_is_idle((u32)key);
}

const struct kvm_events_analysis kvm_events_analysis_hypercall = {
	.name = "hypercall", .column = "Hypercall",
	.tps = KVM_EVENTS_VMEXIT_TPS | BIT(KVM_TP_HYPERCALL) | BIT(KVM_TP_HYPERCALL_END),
	.needs = BIT(KVM_TP_HYPERCALL),
	.begin = hypercall_begin, .end = hypercall_end,
	.begins = BIT(KVM_TP_HYPERCALL), .ends = BIT(KVM_TP_ENTRY) | BIT(KVM_TP_HYPERCALL_END),
	.key_name = hypercall_key_name, .is_idle = hypercall_is_idle,
};
