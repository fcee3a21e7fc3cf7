/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_KVM_EVENTS_QUEUE_H
#define __PERF_KVM_EVENTS_QUEUE_H

#include <stdbool.h>
#include <linux/types.h>
#include "kvm-events.h"

/*
 * Decoded samples of the current and the previous round, not yet
 * delivered: items[head, nr).  Delivering moves head, not the samples.
 */
struct kvm_events_queue {
	struct kvm_events_sample	*items;
	struct kvm_events_sample	*merge_buf;
	size_t				head;
	size_t				nr;
	size_t				alloc;
	u64				flush_limit;	/* of the next round end */
	u64				last_flush;
	u64				max_time;
	u64				out_of_order;	/* older than the last flush */
};

/* Makes room for one more sample; false when out of memory */
bool kvm_events_queue__grow(struct kvm_events_queue *q);

/*
 * Where the next sample is decoded in place; NULL when out of memory.
 * Inline, as push: the reader calls both for every sample.
 */
static inline struct kvm_events_sample *kvm_events_queue__slot(struct kvm_events_queue *q)
{
	if (q->nr == q->alloc && !kvm_events_queue__grow(q))
		return NULL;
	return &q->items[q->nr];
}

/* Queues the sample just decoded in kvm_events_queue__slot()'s place */
static inline void kvm_events_queue__push(struct kvm_events_queue *q,
					  const struct kvm_events_sample *s)
{
	if (s->time < q->last_flush)
		q->out_of_order++;
	if (s->time > q->max_time)
		q->max_time = s->time;
	q->nr++;
}

/* Hands the queued samples up to @limit to @report, in time order */
void kvm_events_queue__flush(struct kvm_events_queue *q, struct kvm_events_report *report,
			     u64 limit);
void kvm_events_queue__round_end(struct kvm_events_queue *q, struct kvm_events_report *report);
void kvm_events_queue__exit(struct kvm_events_queue *q);

#endif /* __PERF_KVM_EVENTS_QUEUE_H */
