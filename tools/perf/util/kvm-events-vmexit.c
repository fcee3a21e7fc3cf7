// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <linux/kernel.h>

#include "kvm-events-analysis.h"
#include "kvm-events-arch.h"

/*
 * vmexit: from kvm_exit to the vcpu's next kvm_entry.  A key holds the
 * exit code in bits 0-31, the isa in 32-39 (VMX and SVM reuse numbers)
 * and the nesting level in 40-41.
 */
#define KEY_LEVEL_SHIFT	40

enum nesting_level {
	LEVEL_L1,		/* or not nested */
	LEVEL_L2,		/* an L2 exit that L0 handled */
	LEVEL_L2_TO_L1,		/* an L2 exit forwarded to L1 */
};

static u64 vmexit_key(u32 isa, u32 code, enum nesting_level level)
{
	return (u64)level << KEY_LEVEL_SHIFT | (u64)(u8)isa << KVM_EVENTS_KEY_ISA_SHIFT | code;
}

static bool vmexit_begin(const struct kvm_events_sample *s, u64 *key)
{
	const struct kvm_events_arch *arch;

	if (s->tp != KVM_TP_EXIT)
		return false;
	arch = kvm_events_arch__find(s->isa);
	*key = vmexit_key(s->isa, arch && arch->exit_code ? arch->exit_code(s) : (u32)s->code,
			  LEVEL_L1);
	return true;
}

/* Nested exits and the arm64/loongarch detail events name the exit. */
static bool vmexit_refine(const struct kvm_events_sample *s, u64 *key)
{
	u32 isa = (u8)(*key >> KVM_EVENTS_KEY_ISA_SHIFT), code = (u32)*key;
	enum nesting_level level = *key >> KEY_LEVEL_SHIFT;
	const struct kvm_events_arch *arch = kvm_events_arch__find(isa);

	if (s->tp == KVM_TP_NESTED_EXIT && level == LEVEL_L1)
		level = LEVEL_L2;
	else if (s->tp == KVM_TP_NESTED_INJECT)
		level = LEVEL_L2_TO_L1;
	else if (s->tp == KVM_TP_EXIT_DETAIL && arch && arch->exit_detail)
		code = arch->exit_detail(code, s);
	else if (s->tp != KVM_TP_NESTED_EXIT)
		return false;
	*key = vmexit_key(isa, code, level);
	return true;
}

static const char * const level_prefix[] = {
	[LEVEL_L1]	 = "",
	[LEVEL_L2]	 = "L2:",
	[LEVEL_L2_TO_L1] = "L2>L1:",
};

static void vmexit_key_name(u64 key, char *buf, size_t size)
{
	const struct kvm_events_arch *arch = kvm_events_key_arch(key);
	enum nesting_level level = (key >> KEY_LEVEL_SHIFT) & 3;
	const char *name = arch ? arch->exit_name((u32)key) : NULL;
	const char *prefix = level <= LEVEL_L2_TO_L1 ? level_prefix[level] : "";
	int len = snprintf(buf, size, "%s", prefix);

	if (len < 0 || (size_t)len >= size)
		return;
	if (name && arch->spell_names)
		kvm_events__spell_word(name, buf + len, size - len);
	else if (name)
		snprintf(buf + len, size - len, "%s", name);
	else
		snprintf(buf + len, size - len, "0x%x", (u32)key);
}

static bool vmexit_is_idle(u64 key)
{
	const struct kvm_events_arch *arch = kvm_events_key_arch(key);

	return arch && arch->exit_is_idle && arch->exit_is_idle((u32)key);
}

const struct kvm_events_analysis kvm_events_analysis_vmexit = {
	.name = "vmexit", .column = "VM-EXIT",
	.tps = KVM_EVENTS_VMEXIT_TPS | BIT(KVM_TP_EXIT_DETAIL) |
	       BIT(KVM_TP_NESTED_EXIT) | BIT(KVM_TP_NESTED_INJECT),
	.needs = KVM_EVENTS_VMEXIT_TPS, .by_default = true,
	.begin = vmexit_begin, .end = kvm_events__entry_end, .refine = vmexit_refine,
	.begins = BIT(KVM_TP_EXIT), .ends = BIT(KVM_TP_ENTRY),
	.key_name = vmexit_key_name, .is_idle = vmexit_is_idle,
};
