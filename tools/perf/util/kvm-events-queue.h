/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_KVM_EVENTS_QUEUE_H
#define __PERF_KVM_EVENTS_QUEUE_H

#include <stdbool.h>
#include <linux/compiler.h>
#include <linux/types.h>
#include "kvm-events.h"

/*
 * A stretch of queued samples in time order: what one CPU's buffer gives
 * in a round.  Samples before start were delivered; the last run is the
 * one samples are added to, and ends at the queue's nr.
 */
struct kvm_events_queue_run {
	size_t				start;
	size_t				end;
};

/* A thread's samples in a row in one run of a flush: a vcpu's stint on a CPU */
struct kvm_events_queue_stint {
	size_t				start;
	size_t				end;
	size_t				next;	/* the thread's next stint, or SIZE_MAX */
};

/* A thread in a flush, in the table by tid */
struct kvm_events_queue_thread {
	u64				time;	/* of its latest sample read */
	size_t				first;	/* its stints, as a list */
	size_t				last;
	u32				tid;
	u32				check;	/* the flush's that wrote it; older ones are free */
	bool				back_in_time;	/* a sample before one read earlier */
};

/* A run in the merge of a flush: its samples up to the flush's limit */
struct kvm_events_queue_head {
	u64				time;	/* of the next one */
	u32				rank;	/* for ties: see head_next() */
	size_t				next;
	size_t				end;
	size_t				run;
};

/* A round of a file's second part: its earliest sample, the latest read by its end */
struct kvm_events_queue_round {
	u64				min_time;
	u64				max_time;
};

/* The rounds a second part keeps, to be checked against the first part */
#define KVM_EVENTS_QUEUE_ROUNDS	64

/*
 * Decoded samples not yet delivered, as runs in read order.  Delivering
 * moves the runs' starts, not the samples: those no later than a flush's
 * limit are a prefix of each run.
 */
struct kvm_events_queue {
	struct kvm_events_sample	*items;
	size_t				nr;	/* where the next sample goes */
	size_t				limit;	/* up to which samples go: alloc, or a wrap's */
	size_t				alloc;
	struct kvm_events_queue_run	*runs;	/* alloc + 1: a run per sample at most */
	size_t				index_alloc;	/* runs to tree, sized for this alloc */
	size_t				nr_runs;
	struct kvm_events_queue_head	*heads;	/* as many */
	u32				*tree;	/* of losers and winners over the heads */
	struct kvm_events_sample	*batch;	/* merged samples, for the pairing */
	/* A flush's stints and threads */
	struct kvm_events_queue_stint	*stints;
	size_t				nr_stints;
	size_t				max_stints;	/* kept in this flush */
	bool				stints_dropped;	/* more than kept */
	struct kvm_events_queue_thread	*threads;	/* by tid */
	u32				*thread_slots;	/* as first read */
	u32				nr_threads;
	u32				nr_checks;
	bool				back_in_time;	/* a thread */
	/* Flushes of several runs: handed over run after run, thread by thread, or merged */
	u64				run_after_run;
	u64				thread_by_thread;
	u64				merged;
	u64				wraps;	/* times the runs went on at the array's start */
	u32				failed_checks;	/* in a row */
	u32				unchecked;	/* flushes to merge before the next check */
	u64				last_time;	/* of the last sample queued */
	u64				flush_limit;	/* of the next round end */
	u64				last_flush;
	u64				max_time;	/* of the runs ended */
	u64				out_of_order;	/* older than the last flush */
	u64				round_min;	/* of this round's samples */
	/* A second part's first rounds, or NULL */
	struct kvm_events_queue_round	*rounds;
	u32				nr_rounds;
	/* ...and the samples of the first, held for the first part */
	struct kvm_events_sample	*held;
	size_t				nr_held;
	size_t				alloc_held;
};

/* Makes room for one more sample; false when out of memory */
bool kvm_events_queue__grow(struct kvm_events_queue *q);
/* Ends the last run: the next sample is older than the one before it. */
void kvm_events_queue__new_run(struct kvm_events_queue *q);

/*
 * Where the next sample is decoded in place; NULL when out of memory.
 * Inline, as push: the reader calls both for every sample.
 */
static inline struct kvm_events_sample *kvm_events_queue__slot(struct kvm_events_queue *q)
{
	if (q->nr == q->limit && !kvm_events_queue__grow(q))
		return NULL;
	return &q->items[q->nr];
}

/* Queues the sample just decoded in kvm_events_queue__slot()'s place */
static inline void kvm_events_queue__push(struct kvm_events_queue *q,
					  const struct kvm_events_sample *s)
{
	if (s->time < q->last_flush)
		q->out_of_order++;
	if (s->time < q->round_min)
		q->round_min = s->time;
	/* A run's latest sample is its last: max_time takes it as the run ends. */
	if (unlikely(s->time < q->last_time))
		kvm_events_queue__new_run(q);
	q->last_time = s->time;
	q->nr++;
}

/* Hands the queued samples up to @limit to @report, in time order */
void kvm_events_queue__flush(struct kvm_events_queue *q, struct kvm_events_report *report,
			     u64 limit);
void kvm_events_queue__round_end(struct kvm_events_queue *q, struct kvm_events_report *report);
void kvm_events_queue__init(struct kvm_events_queue *q);
/* For the second part of a file: keeps its first rounds */
int kvm_events_queue__keep_rounds(struct kvm_events_queue *q);
bool kvm_events_queue__follows(const struct kvm_events_queue *second,
			       const struct kvm_events_queue *first);
int kvm_events_queue__add(struct kvm_events_queue *q, const struct kvm_events_sample *s,
			  size_t nr);
void kvm_events_queue__exit(struct kvm_events_queue *q);

#endif /* __PERF_KVM_EVENTS_QUEUE_H */
