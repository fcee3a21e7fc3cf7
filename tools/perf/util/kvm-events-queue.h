/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_KVM_EVENTS_QUEUE_H
#define __PERF_KVM_EVENTS_QUEUE_H

#include <linux/types.h>
#include "kvm-events.h"

/* Decoded samples of the current and the previous round, not yet delivered */
struct kvm_events_queue {
	struct kvm_events_sample	*items;
	struct kvm_events_sample	*merge_buf;
	size_t				nr;
	size_t				alloc;
	u64				flush_limit;	/* of the next round end */
	u64				last_flush;
	u64				max_time;
	u64				out_of_order;	/* older than the last flush */
};

/* Where the next sample is decoded in place; NULL when out of memory */
struct kvm_events_sample *kvm_events_queue__slot(struct kvm_events_queue *q);
/* Queues the sample just decoded in kvm_events_queue__slot()'s place */
void kvm_events_queue__push(struct kvm_events_queue *q, const struct kvm_events_sample *s);
/* Hands the queued samples up to @limit to @report, in time order */
void kvm_events_queue__flush(struct kvm_events_queue *q, struct kvm_events_report *report,
			     u64 limit);
void kvm_events_queue__round_end(struct kvm_events_queue *q, struct kvm_events_report *report);
void kvm_events_queue__exit(struct kvm_events_queue *q);

#endif /* __PERF_KVM_EVENTS_QUEUE_H */
