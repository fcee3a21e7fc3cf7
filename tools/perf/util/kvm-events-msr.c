// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <linux/bits.h>

#include "kvm-events-analysis.h"
#include "kvm-events-arch.h"

/* msr: from kvm_msr to kvm_entry, keyed by index and direction */
static bool msr_begin(const struct kvm_events_sample *s, u64 *key)
{
	if (s->tp != KVM_TP_MSR)
		return false;
	*key = (u64)(u32)s->code << 1 | (s->kind != 0);
	return true;
}

static void msr_key_name(u64 key, char *buf, size_t size)
{
	const char *name = kvm_events_x86_msr_name(key >> 1);
	int len = snprintf(buf, size, "%#llx:%c", (unsigned long long)(key >> 1),
			   key & 1 ? 'W' : 'R');

	if (name && len > 0 && (size_t)len < size)
		snprintf(buf + len, size - len, "/%s", name);
}

const struct kvm_events_analysis kvm_events_analysis_msr = {
	.name = "msr", .column = "MSR Access",
	.tps = KVM_EVENTS_VMEXIT_TPS | BIT(KVM_TP_MSR),
	.needs = BIT(KVM_TP_MSR),
	.begin = msr_begin, .end = kvm_events__entry_end, .key_name = msr_key_name,
	.begins = BIT(KVM_TP_MSR), .ends = BIT(KVM_TP_ENTRY),
};
