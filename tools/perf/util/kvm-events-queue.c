// SPDX-License-Identifier: GPL-2.0
/*
 * perf's round ordering for decoded kvm samples, as perf's ordered_events
 * gives it to tools, without an allocation per event: at the end of a
 * round (PERF_RECORD_FINISHED_ROUND) the samples no later than the end of
 * the previous round are sorted and delivered, ties in read order.
 */
#include <stdlib.h>
#include <string.h>

#include "debug.h"
#include "kvm-events-queue.h"

/*
 * The samples delivered leave room at the start: move the others there
 * before the array doubles.
 */
bool kvm_events_queue__grow(struct kvm_events_queue *q)
{
	size_t alloc = q->alloc ? q->alloc * 2 : 4096;
	void *items, *buf;

	if (q->head) {
		memmove(q->items, q->items + q->head, (q->nr - q->head) * sizeof(*q->items));
		q->nr -= q->head;
		q->head = 0;
		if (q->nr < q->alloc / 2)
			return true;
	}
	items = reallocarray(q->items, alloc, sizeof(*q->items));
	buf = reallocarray(q->merge_buf, alloc, sizeof(*q->merge_buf));
	if (items)
		q->items = items;
	if (buf)
		q->merge_buf = buf;
	if (!items || !buf)
		return false;
	q->alloc = alloc;
	return true;
}

/* Merges the sorted runs a[lo, mid) and a[mid, hi), ties from the left. */
static void merge_runs(struct kvm_events_sample *a, struct kvm_events_sample *tmp,
		       size_t lo, size_t mid, size_t hi)
{
	size_t i = lo, j = mid, k = 0;

	if (a[mid - 1].time <= a[mid].time)
		return;
	while (i < mid && j < hi)
		tmp[k++] = a[j].time < a[i].time ? a[j++] : a[i++];
	while (i < mid)
		tmp[k++] = a[i++];
	memcpy(a + lo, tmp, k * sizeof(*a));
}

/*
 * A stable sort that is linear on what a recording gives: a few sorted
 * runs, one per CPU buffer, and the sorted rest of the previous round.
 */
static void kvm_events_queue__sort(struct kvm_events_queue *q)
{
	struct kvm_events_sample *a = q->items + q->head;
	size_t n = q->nr - q->head, *runs, nr_runs = 0, i;

	for (i = 1; i < n && a[i - 1].time <= a[i].time; i++)
		;
	if (i >= n)
		return;
	runs = calloc(n + 1, sizeof(*runs));
	if (!runs) {
		/* Slower, and still stable enough: equal times keep no order. */
		pr_warning_once("kvm-events: out of memory, events sorted without ties in order\n");
		return;
	}
	runs[nr_runs++] = 0;
	for (i = 1; i < n; i++) {
		if (a[i].time < a[i - 1].time)
			runs[nr_runs++] = i;
	}
	runs[nr_runs] = n;
	while (nr_runs > 1) {
		size_t out = 0;

		for (i = 0; i + 1 < nr_runs; i += 2) {
			merge_runs(a, q->merge_buf, runs[i], runs[i + 1], runs[i + 2]);
			runs[out++] = runs[i];
		}
		if (i < nr_runs)
			runs[out++] = runs[i];
		runs[out] = n;
		nr_runs = out;
	}
	free(runs);
}

/* Hands the queued events up to @limit to the pairing, in time order. */
void kvm_events_queue__flush(struct kvm_events_queue *q, struct kvm_events_report *report,
			     u64 limit)
{
	size_t end = q->head;

	/* Nothing queued, maybe nothing ever: no array yet */
	if (end == q->nr)
		return;
	kvm_events_queue__sort(q);
	while (end < q->nr && q->items[end].time <= limit)
		end++;
	kvm_events_report__add_many(report, q->items + q->head, end - q->head);
	q->head = end;
	if (q->head == q->nr)
		q->head = q->nr = 0;
}

/*
 * perf's rule: at the end of a round, what came before the previous one
 * ended can be delivered, nothing older will come.
 */
void kvm_events_queue__round_end(struct kvm_events_queue *q, struct kvm_events_report *report)
{
	kvm_events_queue__flush(q, report, q->flush_limit);
	q->last_flush = q->flush_limit;
	q->flush_limit = q->max_time;
}

void kvm_events_queue__exit(struct kvm_events_queue *q)
{
	free(q->items);
	free(q->merge_buf);
}
