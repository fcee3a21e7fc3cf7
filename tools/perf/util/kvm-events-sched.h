/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_KVM_EVENTS_SCHED_H
#define __PERF_KVM_EVENTS_SCHED_H

/*
 * An event's time on and off CPU, from the context switches of its
 * thread that perf record --switch-events writes: where KVM handling an
 * exit took long because the host ran something else, or the vcpu thread
 * slept on a lock, a page or I/O.
 */
#include <linux/types.h>
#include <stdbool.h>
#include <perf/event.h>
#include "kvm-events.h"

struct latency_dist;

/* A switch record's kvm_events_sample: tp KVM_EVENTS_SWITCH, kind: */
#define KVM_EVENTS_SWITCH_OUT	1	/* tid left its CPU; flag: preempted */
#define KVM_EVENTS_SWITCH_IN	2	/* tid came back */
/* code: the task switched to or from; 0 is the idle task */
#define KVM_EVENTS_NO_TASK	(~0U)	/* not recorded: per thread */

/* The parts of an event's time, as columns and JSON fields name them */
enum kvm_events_cpu_part {
	KVM_EVENTS_ONCPU,
	KVM_EVENTS_OFFCPU,
	KVM_EVENTS_PREEMPTED,	/* off CPU, switched out while runnable */
	KVM_EVENTS_BLOCKED,	/* off CPU, switched out to sleep */
	KVM_EVENTS_CPU_PARTS,
};

/* A vcpu thread's time off CPU within its open interval */
struct kvm_events_offcpu {
	bool	off;		/* switched out, since @since */
	bool	preempted;	/* ...while runnable */
	u32	next_tid;	/* ...to this task, or KVM_EVENTS_NO_TASK */
	u64	since;
	u64	offcpu_ns;	/* the interval's, up to the last switch in */
	u64	preempted_ns;
	u64	longest_ns;	/* its longest time off, for --top: */
	u32	longest_next;	/* what ran instead */
};

/*
 * The switches that the second part of a file read in two parts sees of
 * a thread before any of its kvm samples, later than all of the first
 * part: whether it is a vcpu inside an exit there is the first part's to
 * know, at the join.
 */
struct kvm_events_offcpu_ahead {
	bool			seen;		/* a switch of the thread */
	u64			first_in;	/* a switch in first, or 0 */
	struct kvm_events_offcpu offcpu;	/* the rest, as if in an exit */
};

/* A key's events timed by a begin and an end, split into on and off CPU */
struct kvm_events_split {
	u64			events;		/* split: its timed events, but whole ones */
	u64			switched;	/* of those, the ones a switch touched */
	u64			ns[KVM_EVENTS_CPU_PARTS];
	struct latency_dist	*dist[KVM_EVENTS_CPU_PARTS];	/* for percentiles, if asked */
};

/* Whether the switch records of @attr's evsel say their thread and time */
bool kvm_events_switches_readable(const struct perf_event_attr *attr);
/*
 * @s but its time: what switch record @event says of thread @pid/@tid.
 * Each task's switches are its own records, written as it leaves its CPU
 * and as it comes back; a system wide recording's also name the task
 * switched to or from.  Inline: the reader makes one of every record.
 */
static inline void kvm_events_switch__init(struct kvm_events_sample *s,
					   const union perf_event *event, u32 pid, u32 tid)
{
	u16 misc = event->header.misc;

	s->tp = KVM_EVENTS_SWITCH;
	s->pid = pid;
	s->tid = tid;
	s->vcpu = KVM_EVENTS_NO_VCPU;
	s->isa = 0;
	s->kind = misc & PERF_RECORD_MISC_SWITCH_OUT ? KVM_EVENTS_SWITCH_OUT :
						       KVM_EVENTS_SWITCH_IN;
	s->flag = !!(misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT);
	s->code = event->header.type == PERF_RECORD_SWITCH_CPU_WIDE ?
		  event->context_switch.next_prev_tid : KVM_EVENTS_NO_TASK;
	s->rip = 0;
}

const char *kvm_events_cpu_part__name(enum kvm_events_cpu_part part);

/* An interval begins: nothing of it is off CPU yet.  Inline: every begin does it. */
static inline void kvm_events_offcpu__begin(struct kvm_events_offcpu *o)
{
	o->off = false;
	o->offcpu_ns = 0;
	o->preempted_ns = 0;
	o->longest_ns = 0;
	o->longest_next = KVM_EVENTS_NO_TASK;
}
/* The thread leaves its CPU at @time, inside an interval begun at @begin */
void kvm_events_offcpu__out(struct kvm_events_offcpu *o, u64 time,
			    bool preempted, u32 next_tid);
/* ...and comes back at @time: the time off counts from @begin on */
void kvm_events_offcpu__in(struct kvm_events_offcpu *o, u64 time, u64 begin);

void kvm_events_offcpu_ahead__add(struct kvm_events_offcpu_ahead *ahead,
				  const struct kvm_events_sample *s);
/* The first part's state of the thread, @open since @begin, goes on with @ahead. */
void kvm_events_offcpu__join(struct kvm_events_offcpu *o, bool open, u64 begin,
			     const struct kvm_events_offcpu_ahead *ahead);

struct kvm_events_split *kvm_events_split__new(bool percentiles);
void kvm_events_split__delete(struct kvm_events_split *split);
/* One event of @duration ns, with what @o saw of it; -ENOMEM: percentiles lack it */
int kvm_events_split__add(struct kvm_events_split *split, u64 duration,
			  const struct kvm_events_offcpu *o);
int kvm_events_split__join(struct kvm_events_split *to,
			   const struct kvm_events_split *from);
/* Whether every timed event of a key, @timed of them, was split */
bool kvm_events_split__whole(const struct kvm_events_split *split, u64 timed);
u64 kvm_events_split__percentile(const struct kvm_events_split *split,
				 enum kvm_events_cpu_part part, double pct);

#endif /* __PERF_KVM_EVENTS_SCHED_H */
