// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <linux/bits.h>
#include <linux/compiler.h>

#include "kvm-events-analysis.h"

/*
 * halt: each kvm_vcpu_wakeup is a halt that ended while KVM polled
 * ("poll") or after the vcpu slept ("wait"), timed by the kernel itself;
 * each kvm_halt_poll_ns is a change of the polling window, without time.
 */
#define HALT_WAITED	BIT(0)
#define HALT_INVALID	BIT(1)
#define HALT_GROW	BIT(2)
#define HALT_SHRINK	BIT(3)

static bool halt_whole(const struct kvm_events_sample *s, u64 *key,
		       u64 *duration)
{
	if (s->tp == KVM_TP_WAKEUP) {
		*key = (s->kind ? HALT_WAITED : 0) | (s->flag ? 0 : HALT_INVALID);
		*duration = s->code;
		return true;
	}
	if (s->tp == KVM_TP_HALT_POLL) {
		*key = s->kind ? HALT_GROW : HALT_SHRINK;
		*duration = KVM_EVENTS_NO_TIME;
		return true;
	}
	return false;
}

static bool no_interval(const struct kvm_events_sample *s __maybe_unused,
			u64 *key __maybe_unused)
{
	return false;
}

static void halt_key_name(u64 key, char *buf, size_t size)
{
	if (key & HALT_GROW)
		snprintf(buf, size, "grow");
	else if (key & HALT_SHRINK)
		snprintf(buf, size, "shrink");
	else
		snprintf(buf, size, "%s%s", key & HALT_WAITED ? "wait" : "poll",
			 key & HALT_INVALID ? ":invalid" : "");
}

/* kvm_vcpu_wakeup has no vcpu id: the exits around it tell it */
const struct kvm_events_analysis kvm_events_analysis_halt = {
	.name = "halt", .column = "Halt",
	.tps = KVM_EVENTS_VMEXIT_TPS | BIT(KVM_TP_WAKEUP) | BIT(KVM_TP_HALT_POLL),
	.needs = BIT(KVM_TP_WAKEUP),
	.begin = no_interval, .end = no_interval, .whole = halt_whole,
	.key_name = halt_key_name,
};
