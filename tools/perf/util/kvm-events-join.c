// SPDX-License-Identifier: GPL-2.0
/*
 * A file read in two parts at once (kvm-events-reader-parts.c): the second
 * part's report starts without the state the first part leaves each
 * thread in.  Until a thread sets its state anew (a begin or an end, after
 * every sample of the first part), its samples are held back, as they
 * tell the thread's state; at the end, the first part is handed what was
 * held, and the second part's threads, keys and totals are joined to it.
 * The pairing engine (kvm-stat.c) calls in here through struct
 * kvm_events_deferral, only for threads not started in a second part.
 */
#include <errno.h>
#include <stdlib.h>
#include <linux/err.h>
#include <linux/kernel.h>
#include <linux/zalloc.h>

#include "debug.h"
#include "hashmap.h"
#include "kvm-events-analysis.h"
#include "kvm-events-pairing.h"
#include "latency-dist.h"
#include "stat.h"

/*
 * The samples a second part holds back, at most: past that, the parts
 * cannot be joined (threads that never set their state anew, or never
 * show their vcpu id where it matters).
 */
#define DEFERRED_MAX	(64 * 1024)

/* A second part's report: what it holds back for the first */
struct second_part {
	struct kvm_events_deferral deferral;
	bool			cannot_join;
	u64			defer_until;	/* no first part's sample is later */
	struct kvm_events_sample *deferred;
	size_t			nr_deferred;
	size_t			alloc_deferred;
	/* Its switches of threads it has no state of: kvm_events_offcpu_ahead by tid */
	struct hashmap		*ahead;
};

static struct second_part *second_part_of(const struct kvm_events_report *report)
{
	return container_of(report->pairing->deferral, struct second_part, deferral);
}

/* Whether the interval before @s tells how @s is accounted */
static bool needs_interval(const struct kvm_events_analysis *analysis,
			   const struct kvm_events_sample *s)
{
	u64 key, duration;

	if (analysis->begin(s, &key) || analysis->end(s, &key))
		return true;
	if (analysis->whole && analysis->whole(s, &key, &duration))
		return false;
	/* Without a key to refine, it is of no use: no interval can make it one. */
	return analysis->refine;
}

/* Holds @s back for the first part; false if there is no room for it */
static bool second_part__hold(struct second_part *part, const struct kvm_events_sample *s)
{
	if (part->nr_deferred == part->alloc_deferred) {
		size_t alloc = part->alloc_deferred ? part->alloc_deferred * 2 : 256;
		void *grown = NULL;

		if (alloc <= DEFERRED_MAX)
			grown = reallocarray(part->deferred, alloc, sizeof(*s));
		if (!grown) {
			part->cannot_join = true;
			return false;
		}
		part->deferred = grown;
		part->alloc_deferred = alloc;
	}
	part->deferred[part->nr_deferred++] = *s;
	return true;
}

/*
 * A second part's sample of a thread not yet started in it: held for the
 * first part, where it is accounted, with what it tells of the thread
 * kept as the engine keeps it.  A begin or an end sets the thread's
 * interval whatever came before: the first one after every sample of the
 * first part, with the vcpu id known where it matters, starts the thread
 * here, in the state it leaves there.
 */
static bool deferral__sample(struct kvm_events_report *report, struct vcpu_state *vcpu,
			     const struct kvm_events_sample *s)
{
	struct second_part *part = second_part_of(report);
	bool known = s->time > part->defer_until &&
		     (!report->pairing->vcpu_matters || s->vcpu != KVM_EVENTS_NO_VCPU ||
		      (vcpu->pid == s->pid && vcpu->vcpu != KVM_EVENTS_NO_VCPU));
	u64 key;

	/* A sample that needs nothing of the interval is accounted here. */
	if (known && !needs_interval(report->analysis, s))
		return false;
	if (!second_part__hold(part, s))
		return true;
	/* Nothing is pending before the start: nothing is accounted here. */
	if (vcpu->pid != s->pid)
		kvm_events_pairing__reused(report, vcpu, s->pid);
	vcpu_state__note(vcpu, s);
	if (!known)
		return true;
	if (report->analysis->begin(s, &key)) {
		vcpu->open = true;
		vcpu->begin_time = s->time;
		vcpu->begin_rip = vcpu->rip;
		vcpu->pending = key != KVM_EVENTS_NO_KEY;
		vcpu->pending_key = key;
	} else if (report->analysis->end(s, &key)) {
		vcpu->open = false;
		vcpu->pending = false;
	} else {
		return true;
	}
	vcpu->started = true;
	return true;
}

/* A switch of a thread without state here: the join gives it to the first part's */
static void second_part__switch_ahead(struct kvm_events_report *report,
				      struct second_part *part,
				      const struct kvm_events_sample *s)
{
	struct kvm_events_offcpu_ahead *ahead;

	report->totals.switch_records++;
	if (!part->ahead) {
		part->ahead = hashmap__new(kvm_events_pairing__tid_hash,
					   kvm_events_pairing__tid_equal, NULL);
		if (IS_ERR(part->ahead))
			part->ahead = NULL;
	}
	if (!part->ahead) {
		part->cannot_join = true;
		return;
	}
	if (!hashmap__find(part->ahead, s->tid, &ahead)) {
		ahead = zalloc(sizeof(*ahead));
		if (!ahead || hashmap__add(part->ahead, s->tid, ahead)) {
			free(ahead);
			part->cannot_join = true;
			return;
		}
		kvm_events_offcpu__begin(&ahead->offcpu);
	}
	kvm_events_offcpu_ahead__add(ahead, s);
}

/* Held where the first part's state decides it, kept for the join without state */
static bool deferral__switched(struct kvm_events_report *report, struct vcpu_state *vcpu,
			       const struct kvm_events_sample *s)
{
	struct second_part *part = second_part_of(report);

	if (s->time <= part->defer_until || (vcpu && !vcpu->started)) {
		second_part__hold(part, s);
		return true;
	}
	if (!vcpu)
		second_part__switch_ahead(report, part, s);
	return !vcpu;
}

static void deferral__free(struct kvm_events_deferral *deferral)
{
	struct second_part *part = container_of(deferral, struct second_part, deferral);
	struct hashmap_entry *entry;
	size_t bkt;

	if (part->ahead) {
		hashmap__for_each_entry(part->ahead, entry, bkt)
			free(entry->pvalue);
		hashmap__free(part->ahead);
	}
	free(part->deferred);
	free(part);
}

/*
 * Makes @report that of the second part of a file, joined to the first's
 * at the end.  Until kvm_events_report__defer_until() says, any sample
 * may be due before one of the first part's.
 */
int kvm_events_report__second_part(struct kvm_events_report *report)
{
	struct second_part *part = zalloc(sizeof(*part));

	if (!part)
		return -ENOMEM;
	part->deferral.sample = deferral__sample;
	part->deferral.switched = deferral__switched;
	part->deferral.free = deferral__free;
	part->defer_until = UINT64_MAX;
	report->pairing->deferral = &part->deferral;
	return 0;
}

/* No sample of the first part is later than @time. */
void kvm_events_report__defer_until(struct kvm_events_report *report, u64 time)
{
	second_part_of(report)->defer_until = time;
}

/* Whether the second part held back no more than it could */
bool kvm_events_report__can_join(const struct kvm_events_report *second)
{
	return !second_part_of(second)->cannot_join;
}

/*
 * What the second part held back that may be due before some of the
 * first part's samples, which the first orders with its own: how many,
 * from *@held on.  They come first: all were handed over in time order.
 */
size_t kvm_events_report__held(const struct kvm_events_report *second,
			       const struct kvm_events_sample **held)
{
	const struct second_part *part = second_part_of(second);
	size_t i;

	for (i = 0; i < part->nr_deferred; i++) {
		if (part->deferred[i].time > part->defer_until)
			break;
	}
	*held = part->deferred;
	return i;
}

/* The mean and M2 of two sets of values from theirs (Chan et al.) */
static void stats__join(struct stats *to, const struct stats *from)
{
	double n = to->n + from->n, delta = from->mean - to->mean;

	if (!from->n)
		return;
	/* As they are: mean * n / n need not give the mean back. */
	if (!to->n) {
		*to = *from;
		return;
	}
	to->mean += delta * from->n / n;
	to->M2 += from->M2 + delta * delta * to->n * from->n / n;
	to->n = n;
	to->min = min(to->min, from->min);
	to->max = max(to->max, from->max);
}

int kvm_events_key__join(struct kvm_events_key *to, const struct kvm_events_key *from)
{
	int i;

	to->samples += from->samples;
	to->timed += from->timed;
	to->total_ns += from->total_ns;
	stats__join(&to->stats, &from->stats);
	if (to->dist && from->dist && latency_dist__join(to->dist, from->dist))
		return -ENOMEM;
	if (to->split && from->split && kvm_events_split__join(to->split, from->split))
		return -ENOMEM;
	for (i = 0; to->log2_ns && from->log2_ns && i < KVM_EVENTS_LOG2_BUCKETS; i++)
		to->log2_ns[i] += from->log2_ns[i];
	return 0;
}

static int key__join(struct kvm_events_report *report, const struct kvm_events_key *from)
{
	struct kvm_events_key *to = kvm_events_pairing__key(report, from->key, from->group,
							    from->pid);

	return to ? kvm_events_key__join(to, from) : -ENOMEM;
}

static void totals__join(struct kvm_events_totals *to, const struct kvm_events_totals *from)
{
	int i;

	to->read += from->read;
	to->keyed += from->keyed;
	to->paired_end += from->paired_end;
	to->no_end += from->no_end;
	to->no_begin += from->no_begin;
	to->filtered += from->filtered;
	to->unused += from->unused;
	to->no_memory += from->no_memory;
	to->total_ns += from->total_ns;
	to->other_events += from->other_events;
	to->switch_records += from->switch_records;
	for (i = 0; i < KVM_TP__NR; i++)
		to->by_tp[i] += from->by_tp[i];
}

/* The span of the samples read, as if @s had been read too */
static void totals__span(struct kvm_events_totals *totals, u64 time)
{
	if (!totals->first_time || time < totals->first_time)
		totals->first_time = time;
	totals->last_time = max(totals->last_time, time);
}

/* The switches a second part saw ahead of the threads' first samples there */
static void join_ahead(struct kvm_events_report *first, struct hashmap *ahead)
{
	struct hashmap_entry *cur;
	struct vcpu_state *to;
	size_t bkt, inside = 0;

	hashmap__for_each_entry(ahead, cur, bkt) {
		if (!hashmap__find(first->pairing->vcpus, cur->key, &to))
			continue;
		kvm_events_offcpu__join(&to->offcpu, to->open, to->begin_time, cur->pvalue);
		inside += to->open;
	}
	/* Which path the switches took: the tests ask. */
	pr_debug("kvm-events: switches ahead in the second part: %zu threads, %zu of them in an exit of the first\n",
		 hashmap__size(ahead), inside);
}

/*
 * Joins the report of a file's second part to the first's, once the
 * first was handed the samples kvm_events_report__held() gives: the rest
 * of those the second held back follow, in their order; the threads that
 * began an interval in the second go on from its state, and its keys and
 * totals are added.  Only the mean and M2 of --stddev differ from those of
 * one report of all the samples, in the last bits of a double.
 */
int kvm_events_report__join(struct kvm_events_report *first,
			    const struct kvm_events_report *second)
{
	const struct second_part *part = second_part_of(second);
	struct kvm_events_totals span = first->totals;
	const struct kvm_events_sample *held;
	struct hashmap_entry *cur;
	size_t bkt, i;

	if (part->ahead)
		join_ahead(first, part->ahead);
	for (i = kvm_events_report__held(second, &held); i < part->nr_deferred; i++) {
		kvm_events_report__add(first, &part->deferred[i]);
		totals__span(&span, part->deferred[i].time);
	}
	hashmap__for_each_entry(second->pairing->vcpus, cur, bkt) {
		const struct vcpu_state *from = cur->pvalue;
		struct vcpu_state *to;

		if (from->started && hashmap__find(first->pairing->vcpus, from->tid, &to))
			*to = *from;
	}
	hashmap__for_each_entry(second->pairing->keys, cur, bkt) {
		if (key__join(first, cur->pvalue))
			return -ENOMEM;
	}
	totals__join(&first->totals, &second->totals);
	if (second->totals.first_time) {
		totals__span(&span, second->totals.first_time);
		totals__span(&span, second->totals.last_time);
	}
	first->totals.first_time = span.first_time;
	first->totals.last_time = span.last_time;
	return 0;
}
