// SPDX-License-Identifier: GPL-2.0
/*
 * On and off CPU inside events.  A vcpu thread is on CPU at each of its
 * samples, as it writes them: an event's time off CPU is that of its
 * switch outs to the switch ins that follow, within the event.
 */
#include <errno.h>
#include <stdlib.h>
#include <linux/kernel.h>
#include <perf/event.h>
#include "kvm-events.h"
#include "kvm-events-sched.h"
#include "latency-dist.h"

bool kvm_events_switches_readable(const struct perf_event_attr *attr)
{
	return attr->context_switch && attr->sample_id_all &&
	       (attr->sample_type & PERF_SAMPLE_TID) &&
	       (attr->sample_type & PERF_SAMPLE_TIME);
}

const char *kvm_events_cpu_part__name(enum kvm_events_cpu_part part)
{
	static const char * const names[KVM_EVENTS_CPU_PARTS] = {
		"oncpu", "offcpu", "preempted", "blocked",
	};

	return names[part];
}

void kvm_events_offcpu__out(struct kvm_events_offcpu *o, u64 time,
			    bool preempted, u32 next_tid)
{
	/* Out twice: the switch in between was lost; the first out stands. */
	if (o->off)
		return;
	o->off = true;
	o->since = time;
	o->preempted = preempted;
	o->next_tid = next_tid;
}

void kvm_events_offcpu__in(struct kvm_events_offcpu *o, u64 time, u64 begin)
{
	u64 since = max(o->since, begin), ns;

	if (!o->off)
		return;
	o->off = false;
	if (time <= since)
		return;
	ns = time - since;
	o->offcpu_ns += ns;
	if (o->preempted)
		o->preempted_ns += ns;
	if (ns > o->longest_ns) {
		o->longest_ns = ns;
		o->longest_next = o->next_tid;
	}
}

void kvm_events_offcpu_ahead__add(struct kvm_events_offcpu_ahead *ahead,
				  const struct kvm_events_sample *s)
{
	struct kvm_events_offcpu *o = &ahead->offcpu;

	if (!(s->kind & KVM_EVENTS_SWITCH_IN))
		kvm_events_offcpu__out(o, s->time, s->flag, s->code);
	else if (!ahead->seen)
		ahead->first_in = s->time;
	else
		kvm_events_offcpu__in(o, s->time, 0);
	ahead->seen = true;
}

void kvm_events_offcpu__join(struct kvm_events_offcpu *o, bool open, u64 begin,
			     const struct kvm_events_offcpu_ahead *ahead)
{
	const struct kvm_events_offcpu *a = &ahead->offcpu;

	if (ahead->first_in)
		kvm_events_offcpu__in(o, ahead->first_in, begin);
	/* In guest mode there, the time off CPU is in no exit. */
	if (!open)
		return;
	o->offcpu_ns += a->offcpu_ns;
	o->preempted_ns += a->preempted_ns;
	if (a->longest_ns > o->longest_ns) {
		o->longest_ns = a->longest_ns;
		o->longest_next = a->longest_next;
	}
	if (a->off)
		kvm_events_offcpu__out(o, a->since, a->preempted, a->next_tid);
}

struct kvm_events_split *kvm_events_split__new(bool percentiles)
{
	struct kvm_events_split *split = calloc(1, sizeof(*split));
	int part;

	if (!split || !percentiles)
		return split;
	for (part = 0; part < KVM_EVENTS_CPU_PARTS; part++) {
		split->dist[part] = latency_dist__new();
		if (!split->dist[part]) {
			kvm_events_split__delete(split);
			return NULL;
		}
	}
	return split;
}

void kvm_events_split__delete(struct kvm_events_split *split)
{
	int part;

	if (!split)
		return;
	for (part = 0; part < KVM_EVENTS_CPU_PARTS; part++)
		latency_dist__delete(split->dist[part]);
	free(split);
}

int kvm_events_split__add(struct kvm_events_split *split, u64 duration,
			  const struct kvm_events_offcpu *o)
{
	/* An end lost while off CPU: the event ends there, off CPU. */
	u64 offcpu = min(o->offcpu_ns, duration);
	u64 preempted = min(o->preempted_ns, offcpu);
	u64 ns[KVM_EVENTS_CPU_PARTS] = {
		[KVM_EVENTS_ONCPU] = duration - offcpu,
		[KVM_EVENTS_OFFCPU] = offcpu,
		[KVM_EVENTS_PREEMPTED] = preempted,
		[KVM_EVENTS_BLOCKED] = offcpu - preempted,
	};
	int part, ret = 0;

	split->events++;
	if (offcpu)
		split->switched++;
	for (part = 0; part < KVM_EVENTS_CPU_PARTS; part++) {
		split->ns[part] += ns[part];
		if (split->dist[part] && latency_dist__add(split->dist[part], ns[part]))
			ret = -ENOMEM;
	}
	return ret;
}

int kvm_events_split__join(struct kvm_events_split *to,
			   const struct kvm_events_split *from)
{
	int part;

	to->events += from->events;
	to->switched += from->switched;
	for (part = 0; part < KVM_EVENTS_CPU_PARTS; part++) {
		to->ns[part] += from->ns[part];
		if (to->dist[part] && from->dist[part] &&
		    latency_dist__join(to->dist[part], from->dist[part]))
			return -ENOMEM;
	}
	return 0;
}

bool kvm_events_split__whole(const struct kvm_events_split *split, u64 timed)
{
	return split && split->events == timed;
}

u64 kvm_events_split__percentile(const struct kvm_events_split *split,
				 enum kvm_events_cpu_part part, double pct)
{
	struct latency_dist *dist = split->dist[part];

	if (!dist || !latency_dist__count(dist))
		return 0;
	return latency_dist__percentile(dist, pct);
}
