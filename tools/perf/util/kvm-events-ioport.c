// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <linux/bits.h>

#include "kvm-events-analysis.h"

/* ioport: from kvm_pio to kvm_entry */
static bool ioport_begin(const struct kvm_events_sample *s, u64 *key)
{
	if (s->tp != KVM_TP_PIO)
		return false;
	*key = (u64)(u32)s->code << 1 | (s->kind != 0);
	return true;
}

static void ioport_key_name(u64 key, char *buf, size_t size)
{
	snprintf(buf, size, "%#llx:%s", (unsigned long long)(key >> 1),
		 key & 1 ? "POUT" : "PIN");
}

/* kvm_exit gives the --top rip of the port accesses */
const struct kvm_events_analysis kvm_events_analysis_ioport = {
	.name = "ioport", .column = "IO Port Access",
	.tps = KVM_EVENTS_VMEXIT_TPS | BIT(KVM_TP_PIO),
	.needs = BIT(KVM_TP_PIO), .by_default = true,
	.begin = ioport_begin, .end = kvm_events__entry_end,
	.begins = BIT(KVM_TP_PIO), .ends = BIT(KVM_TP_ENTRY),
	.key_name = ioport_key_name,
};
