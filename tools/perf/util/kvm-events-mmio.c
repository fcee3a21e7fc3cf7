// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <linux/bits.h>

#include "kvm-events-analysis.h"

/* kvm_mmio "type" values */
#define KVM_MMIO_READ	1
#define KVM_MMIO_WRITE	2

/*
 * mmio: a write runs from kvm_mmio(write) to kvm_entry; a read from the
 * kvm_exit that led to it to kvm_mmio(read), where the value is known.
 */
static u64 mmio_key(const struct kvm_events_sample *s)
{
	return s->code << 1 | (s->kind == KVM_MMIO_WRITE);
}

static bool mmio_begin(const struct kvm_events_sample *s, u64 *key)
{
	*key = KVM_EVENTS_NO_KEY;
	if (s->tp == KVM_TP_MMIO && s->kind == KVM_MMIO_WRITE)
		*key = mmio_key(s);
	return s->tp == KVM_TP_EXIT || *key != KVM_EVENTS_NO_KEY;
}

static bool mmio_end(const struct kvm_events_sample *s, u64 *key)
{
	*key = KVM_EVENTS_NO_KEY;
	if (s->tp == KVM_TP_MMIO && s->kind == KVM_MMIO_READ)
		*key = mmio_key(s);
	return s->tp == KVM_TP_ENTRY || *key != KVM_EVENTS_NO_KEY;
}

static void mmio_key_name(u64 key, char *buf, size_t size)
{
	snprintf(buf, size, "%#llx:%c", (unsigned long long)(key >> 1),
		 key & 1 ? 'W' : 'R');
}

const struct kvm_events_analysis kvm_events_analysis_mmio = {
	.name = "mmio", .column = "MMIO Access",
	.tps = KVM_EVENTS_VMEXIT_TPS | BIT(KVM_TP_MMIO),
	.needs = BIT(KVM_TP_MMIO), .by_default = true,
	.begin = mmio_begin, .end = mmio_end, .key_name = mmio_key_name,
	.begins = BIT(KVM_TP_EXIT) | BIT(KVM_TP_MMIO), .ends = BIT(KVM_TP_ENTRY) | BIT(KVM_TP_MMIO),
};
