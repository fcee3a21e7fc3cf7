// SPDX-License-Identifier: GPL-2.0
/*
 * The engine of perf kvm-events: pair each vcpu's begin and end events as
 * an analysis (kvm-events-analyses.c) says, and keep per-key statistics,
 * filters and the slowest events.  Every sample handed to it ends in one
 * bucket of struct kvm_events_totals.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <linux/bits.h>
#include <linux/err.h>
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/zalloc.h>

#include "debug.h"
#include "hashmap.h"
#include "intlist.h"
#include "kvm-events-analysis.h"
#include "kvm-events-pairing.h"
#include "kvm-events-sched.h"
#include "latency-dist.h"
#include "time-utils.h"

/* What --top allocates first: most ask for a few */
#define TOP_MIN_ALLOC	64

/* How a sample's interval was resolved */
enum resolution {
	TIMED,
	NO_END,
	NO_BEGIN,
	UNTIMED,	/* an event that has no duration by nature */
};

u64 kvm_events_key__percentile(const struct kvm_events_key *key, double pct)
{
	u64 v;

	if (!key->dist || !latency_dist__count(key->dist))
		return 0;
	v = latency_dist__percentile(key->dist, pct);
	/* The middle of a bucket may lie past what was seen. */
	if (v < key->stats.min)
		v = key->stats.min;
	if (v > key->stats.max)
		v = key->stats.max;
	return v;
}

bool kvm_events_key__percentile_exact(const struct kvm_events_key *key)
{
	return key->dist && latency_dist__exact(key->dist);
}

/* Sample standard deviation of the timed durations, in ns */
double kvm_events_key__stddev(const struct kvm_events_key *key)
{
	if (key->stats.n < 2)
		return 0;
	return sqrt(key->stats.M2 / (key->stats.n - 1));
}

/* Keys are u64 on every host, so the map holds pointers to them. */
static size_t key_hash(long key, void *ctx __maybe_unused)
{
	const struct kvm_events_key *k = (const void *)key;
	u64 h = k->key ^ ((u64)k->group << 47) ^ ((u64)k->pid << 23);

	return (size_t)((h ^ (h >> 29)) * 0x9e3779b97f4a7c15ULL);
}

static bool key_equal(long key1, long key2, void *ctx __maybe_unused)
{
	const struct kvm_events_key *a = (const void *)key1;
	const struct kvm_events_key *b = (const void *)key2;

	return a->key == b->key && a->group == b->group && a->pid == b->pid;
}

size_t kvm_events_pairing__tid_hash(long key, void *ctx __maybe_unused)
{
	return key;
}

bool kvm_events_pairing__tid_equal(long key1, long key2, void *ctx __maybe_unused)
{
	return key1 == key2;
}

int kvm_events_pids__add(struct intlist *pids, u32 pid)
{
	int err = intlist__add(pids, pid);

	return err == -EEXIST ? 0 : err;
}

int kvm_events_report__init(struct kvm_events_report *report,
			    const struct kvm_events_analysis *analysis,
			    const struct kvm_events_options *opts)
{
	struct kvm_events_pairing *pairing = zalloc(sizeof(*pairing));
	struct hashmap *keys, *vcpus;

	memset(report, 0, sizeof(*report));
	if (!pairing)
		return -ENOMEM;
	report->pairing = pairing;
	report->analysis = analysis;
	report->tps = analysis->tps;
	if (opts)
		report->opts = *opts;
	pairing->filtering = report->opts.nr_vcpu_ranges || report->opts.pids ||
			     report->opts.nr_time_ranges || report->opts.min_duration;
	pairing->vcpu_matters = report->opts.nr_vcpu_ranges ||
				report->opts.group == KVM_EVENTS_GROUP_VCPU;
	keys = hashmap__new(key_hash, key_equal, NULL);
	vcpus = hashmap__new(kvm_events_pairing__tid_hash, kvm_events_pairing__tid_equal, NULL);
	pairing->keys = IS_ERR(keys) ? NULL : keys;
	pairing->vcpus = IS_ERR(vcpus) ? NULL : vcpus;
	if (!pairing->keys || !pairing->vcpus)
		return -ENOMEM;
	/* --top N: the heap grows as events come, up to N */
	if (report->opts.top) {
		report->pairing->alloc_top = min_t(u32, report->opts.top, TOP_MIN_ALLOC);
		report->top = calloc(report->pairing->alloc_top, sizeof(*report->top));
		if (!report->top)
			return -ENOMEM;
	}
	return 0;
}

static void key__delete(struct kvm_events_key *key)
{
	latency_dist__delete(key->dist);
	kvm_events_split__delete(key->split);
	free(key->log2_ns);
	free(key);
}

void kvm_events_report__exit(struct kvm_events_report *report)
{
	struct hashmap_entry *cur;
	size_t bkt;

	if (!report->pairing)
		return;
	if (report->pairing->keys) {
		hashmap__for_each_entry(report->pairing->keys, cur, bkt)
			key__delete(cur->pvalue);
		hashmap__free(report->pairing->keys);
	}
	if (report->pairing->vcpus) {
		hashmap__for_each_entry(report->pairing->vcpus, cur, bkt)
			free(cur->pvalue);
		hashmap__free(report->pairing->vcpus);
	}
	if (report->pairing->deferral)
		report->pairing->deferral->free(report->pairing->deferral);
	zfree(&report->top);
	zfree(&report->pairing);
}

/* The map, on a miss of the cache; a new vcpu_state for a thread not seen yet */
static noinline struct vcpu_state *vcpu_state__find(struct kvm_events_report *report,
						    const struct kvm_events_sample *s,
						    struct vcpu_state **cached)
{
	struct vcpu_state *vcpu;

	if (hashmap__find(report->pairing->vcpus, s->tid, &vcpu)) {
		*cached = vcpu;
		return vcpu;
	}
	vcpu = zalloc(sizeof(*vcpu));
	if (!vcpu)
		return NULL;
	vcpu->tid = s->tid;
	vcpu->pid = s->pid;
	vcpu->vcpu = KVM_EVENTS_NO_VCPU;
	vcpu->started = !report->pairing->deferral;
	if (hashmap__add(report->pairing->vcpus, s->tid, vcpu)) {
		free(vcpu);
		return NULL;
	}
	report->pairing->not_vcpu[s->tid % PAIRING_CACHE] = 0;
	*cached = vcpu;
	return vcpu;
}

/* Thread @tid's vcpu_state if the cache holds it, else NULL */
static __always_inline struct vcpu_state *
vcpu_state__cached(const struct kvm_events_pairing *pairing, u32 tid)
{
	struct vcpu_state *vcpu = pairing->vcpu_cache[tid % PAIRING_CACHE];

	return vcpu && vcpu->tid == tid ? vcpu : NULL;
}

static __always_inline struct vcpu_state *vcpu_state__get(struct kvm_events_report *report,
							  const struct kvm_events_sample *s)
{
	/* Every sample looks its vcpu up: the map only on a cache miss. */
	struct vcpu_state *vcpu = vcpu_state__cached(report->pairing, s->tid);

	if (vcpu)
		return vcpu;
	return vcpu_state__find(report, s, &report->pairing->vcpu_cache[s->tid % PAIRING_CACHE]);
}

/*
 * A vcpu id is only unique within its VM: a --per-vcpu group is the pair
 * (pid, vcpu id), its pid in key->pid.  --per-vm's group is the pid.
 */
static u32 group_pid_of(const struct kvm_events_report *report,
			const struct vcpu_state *vcpu)
{
	return report->opts.group == KVM_EVENTS_GROUP_NONE ? 0 : vcpu->pid;
}

static u32 group_of(const struct kvm_events_report *report,
		    const struct vcpu_state *vcpu)
{
	switch (report->opts.group) {
	case KVM_EVENTS_GROUP_VCPU:
		return vcpu->vcpu;
	case KVM_EVENTS_GROUP_VM:
		return vcpu->pid;
	case KVM_EVENTS_GROUP_NONE:
	default:
		return 0;
	}
}

static struct kvm_events_key *key__new(struct kvm_events_report *report,
				       u64 key, u32 group, u32 pid)
{
	struct kvm_events_key *entry = zalloc(sizeof(*entry));

	if (!entry)
		return NULL;
	entry->key = key;
	entry->group = group;
	entry->pid = pid;
	init_stats(&entry->stats);
	kvm_events_report__key_name(report, key, entry->name, sizeof(entry->name));
	if (report->opts.percentiles)
		entry->dist = latency_dist__new();
	if (report->opts.histogram)
		entry->log2_ns = calloc(KVM_EVENTS_LOG2_BUCKETS, sizeof(u64));
	/* Events that one sample times (halt's) have no interval to split. */
	if (report->opts.sched && !report->analysis->whole)
		entry->split = kvm_events_split__new(report->opts.percentiles);
	if ((report->opts.percentiles && !entry->dist) ||
	    (report->opts.histogram && !entry->log2_ns) ||
	    (report->opts.sched && !report->analysis->whole && !entry->split) ||
	    hashmap__add(report->pairing->keys, entry, entry)) {
		latency_dist__delete(entry->dist);
		kvm_events_split__delete(entry->split);
		free(entry->log2_ns);
		free(entry);
		return NULL;
	}
	return entry;
}

/* Out of line: the lookup key zeroes a whole entry, too slow for every sample */
noinline struct kvm_events_key *kvm_events_pairing__key(struct kvm_events_report *report,
							u64 key, u32 group, u32 pid)
{
	struct kvm_events_key lookup = { .key = key, .group = group, .pid = pid };
	struct kvm_events_key *entry;

	if (!hashmap__find(report->pairing->keys, &lookup, &entry))
		entry = key__new(report, key, group, pid);
	return entry;
}

static struct kvm_events_key *key__get(struct kvm_events_report *report,
				       u64 key, u32 group, u32 pid)
{
	struct kvm_events_key **cached, *entry;

	cached = &report->pairing->key_cache[(key ^ key >> 7 ^ group ^ pid) % PAIRING_CACHE];
	entry = *cached;
	if (entry && entry->key == key && entry->group == group && entry->pid == pid)
		return entry;
	entry = kvm_events_pairing__key(report, key, group, pid);
	if (entry)
		*cached = entry;
	return entry;
}

static bool vcpu_selected(const struct kvm_events_options *opts, u32 vcpu)
{
	u32 i;

	if (!opts->nr_vcpu_ranges)
		return true;
	for (i = 0; i < opts->nr_vcpu_ranges; i++) {
		if (vcpu >= opts->vcpu_ranges[i][0] && vcpu <= opts->vcpu_ranges[i][1])
			return true;
	}
	return false;
}

/* Whether the --vcpu and -p filters take VM @pid's vcpu @vcpu */
bool kvm_events_report__selects(const struct kvm_events_report *report,
				u32 pid, u32 vcpu)
{
	const struct kvm_events_options *opts = &report->opts;

	return vcpu_selected(opts, vcpu) &&
	       (!opts->pids || intlist__has_entry(opts->pids, pid));
}

static bool is_filtered(const struct kvm_events_report *report,
			const struct vcpu_state *vcpu, u64 time,
			enum resolution how, u64 duration)
{
	const struct kvm_events_options *opts = &report->opts;

	if (!kvm_events_report__selects(report, vcpu->pid, vcpu->vcpu))
		return true;
	if (opts->nr_time_ranges &&
	    perf_time__ranges_skip_sample(opts->time_ranges,
					  opts->nr_time_ranges, time))
		return true;
	return opts->min_duration && (how != TIMED || duration < opts->min_duration);
}

int kvm_events_log2_bucket(u64 duration)
{
	int bucket = duration ? ilog2(duration) + 1 : 0;

	return min(bucket, KVM_EVENTS_LOG2_BUCKETS - 1);
}

/*
 * Is @a faster than @b?  An event whose time is unknown ranks below every
 * timed one, so that --top lists it only where fewer events have a time,
 * the later the lower.
 */
static bool outlier_faster(const struct kvm_events_outlier *a,
			   const struct kvm_events_outlier *b)
{
	if (a->timed != b->timed)
		return !a->timed;
	return a->timed ? a->duration < b->duration : a->time > b->time;
}

/* Keeps the opts.top slowest: a min-heap, its root the fastest kept. */
static void top_sift_down(struct kvm_events_outlier *heap, u32 nr, u32 i)
{
	for (;;) {
		u32 l = 2 * i + 1, r = l + 1, min = i;
		struct kvm_events_outlier tmp;

		if (l < nr && outlier_faster(&heap[l], &heap[min]))
			min = l;
		if (r < nr && outlier_faster(&heap[r], &heap[min]))
			min = r;
		if (min == i)
			return;
		tmp = heap[i];
		heap[i] = heap[min];
		heap[min] = tmp;
		i = min;
	}
}

/* Room for one more in the heap; false if there is no memory for it */
static bool top_grow(struct kvm_events_report *report)
{
	u32 alloc = report->pairing->alloc_top;
	void *top;

	if (report->nr_top < alloc)
		return true;
	alloc = alloc > report->opts.top / 2 ? report->opts.top : alloc * 2;
	top = reallocarray(report->top, alloc, sizeof(*report->top));
	if (!top)
		return false;
	report->top = top;
	report->pairing->alloc_top = alloc;
	return true;
}

static void top_add(struct kvm_events_report *report,
		    const struct kvm_events_outlier *o)
{
	struct kvm_events_outlier *heap;
	u32 i;

	/* Without memory for more, the slowest of those kept stay. */
	if (report->nr_top < report->opts.top && !top_grow(report)) {
		pr_warning_once("kvm-events: out of memory, --top keeps the slowest of %u events\n",
				report->nr_top);
		report->opts.top = report->nr_top;
	}
	heap = report->top;
	if (report->nr_top == report->opts.top) {
		if (!outlier_faster(&heap[0], o))
			return;
		heap[0] = *o;
		top_sift_down(heap, report->nr_top, 0);
		return;
	}
	i = report->nr_top++;
	heap[i] = *o;
	while (i && outlier_faster(&heap[i], &heap[(i - 1) / 2])) {
		struct kvm_events_outlier tmp = heap[i];

		heap[i] = heap[(i - 1) / 2];
		heap[(i - 1) / 2] = tmp;
		i = (i - 1) / 2;
	}
}

static int compare_outliers(const void *a, const void *b)
{
	const struct kvm_events_outlier *x = a, *y = b;

	if (x->timed != y->timed)
		return x->timed ? -1 : 1;
	if (x->duration != y->duration)
		return x->duration < y->duration ? 1 : -1;
	return x->time < y->time ? -1 : x->time > y->time;
}

void kvm_events_report__outlier(struct kvm_events_report *report,
				const struct kvm_events_outlier *o)
{
	if (report->opts.top)
		top_add(report, o);
}

/* Slowest first; the heap is no heap after this. */
void kvm_events_report__sort_top(struct kvm_events_report *report)
{
	if (!report->nr_top)
		return;
	qsort(report->top, report->nr_top, sizeof(*report->top),
	      compare_outliers);
}

/* Out of line: only --top calls it, and its outlier would give account() a canary. */
static noinline void top_add_event(struct kvm_events_report *report,
				   const struct kvm_events_key *entry,
				   const struct vcpu_state *vcpu, u64 time, u64 rip,
				   u64 duration, bool timed)
{
	struct kvm_events_outlier o = {
		.duration = duration, .time = time, .key = entry->key,
		.rip = rip, .vcpu = vcpu->vcpu, .pid = vcpu->pid,
		.tid = vcpu->tid, .timed = timed,
	};

	if (timed && entry->split) {
		o.split = true;
		o.offcpu_ns = min(vcpu->offcpu.offcpu_ns, duration);
		o.next_tid = vcpu->offcpu.longest_next;
	}
	top_add(report, &o);
}

/*
 * Only a recording with switches splits the time, and most events stay
 * on CPU: those without percentiles add their time, the others go out
 * of line.
 */
static void add_split(struct kvm_events_split *split,
		      const struct vcpu_state *vcpu, u64 duration)
{
	if (likely(!vcpu->offcpu.offcpu_ns && !split->dist[KVM_EVENTS_ONCPU])) {
		split->events++;
		split->ns[KVM_EVENTS_ONCPU] += duration;
	} else if (kvm_events_split__add(split, duration, &vcpu->offcpu)) {
		pr_warning_once("kvm-events: out of memory, percentiles are incomplete\n");
	}
}

static void add_time(struct kvm_events_report *report,
		     struct kvm_events_key *entry,
		     const struct vcpu_state *vcpu, u64 time, u64 duration)
{
	entry->timed++;
	entry->total_ns += duration;
	if (report->opts.stddev) {
		update_stats(&entry->stats, duration);
	} else {
		/* update_stats() without the mean and M2 nothing will print */
		entry->stats.n++;
		entry->stats.min = min(entry->stats.min, duration);
		entry->stats.max = max(entry->stats.max, duration);
	}
	report->totals.total_ns += duration;
	if (entry->dist && latency_dist__add(entry->dist, duration))
		pr_warning_once("kvm-events: out of memory, percentiles are incomplete\n");
	if (entry->log2_ns)
		entry->log2_ns[kvm_events_log2_bucket(duration)]++;
	if (report->observer)
		report->observer->timed(report->observer, &entry->observed,
					report->totals.first_time, time, duration);
	if (entry->split)
		add_split(entry->split, vcpu, duration);
	if (report->top)
		top_add_event(report, entry, vcpu, time, vcpu->rip, duration, true);
}

/*
 * Accounts one sample of @key, seen at @time, once its interval is
 * resolved: timed with @duration, or why not.
 */
static void account(struct kvm_events_report *report,
		    const struct vcpu_state *vcpu, u64 key, u64 time,
		    enum resolution how, u64 duration)
{
	struct kvm_events_key *entry;

	if (report->pairing->filtering && is_filtered(report, vcpu, time, how, duration)) {
		report->totals.filtered++;
		return;
	}
	/* The exit's: an event cut off from its end began in an earlier one. */
	if (report->opts.site)
		key = kvm_events_report__site_key(report, how == NO_END ? vcpu->begin_rip :
						  vcpu->rip);
	entry = key__get(report, key, group_of(report, vcpu), group_pid_of(report, vcpu));
	if (!entry) {
		/* Out of memory: say so in the buckets rather than crash. */
		report->totals.no_memory++;
		return;
	}
	entry->samples++;
	report->totals.keyed++;
	if (how == TIMED)
		add_time(report, entry, vcpu, time, duration);
	else if (how == NO_END)
		report->totals.no_end++;
	else if (how == NO_BEGIN)
		report->totals.no_begin++;
	/*
	 * An event cut off from its begin or end has a time, unknown: --top
	 * lists it after the timed ones rather than show none where no
	 * event has an end (kvm_pio without kvm_entry).
	 */
	if (report->top && (how == NO_END || how == NO_BEGIN))
		top_add_event(report, entry, vcpu, time,
			      how == NO_END ? vcpu->begin_rip : vcpu->rip, 0, false);
}

/* The pending sample's end will never come. */
static void vcpu_state__cut(struct kvm_events_report *report,
			    struct vcpu_state *vcpu)
{
	if (vcpu->pending)
		account(report, vcpu, vcpu->pending_key, vcpu->begin_time,
			NO_END, 0);
	vcpu->pending = false;
	vcpu->open = false;
}

static void vcpu_state__begin(struct kvm_events_report *report,
			      struct vcpu_state *vcpu,
			      const struct kvm_events_sample *s, u64 key)
{
	bool keyed = key != KVM_EVENTS_NO_KEY;

	vcpu_state__cut(report, vcpu);
	vcpu->open = true;
	vcpu->begin_time = s->time;
	vcpu->begin_rip = vcpu->rip;
	kvm_events_offcpu__begin(&vcpu->offcpu);
	vcpu->pending = keyed;
	vcpu->pending_key = key;
	if (!keyed)
		report->totals.unused++;
}

static __always_inline void vcpu_state__end(struct kvm_events_report *report,
					    struct vcpu_state *vcpu,
					    const struct kvm_events_sample *s, u64 key)
{
	u64 begin = vcpu->begin_time;
	bool open = vcpu->open;

	if (key == KVM_EVENTS_NO_KEY) {
		/* An end that only closes an interval is part of its pair. */
		if (vcpu->pending) {
			report->totals.paired_end++;
			account(report, vcpu, vcpu->pending_key, begin,
				s->time < begin ? NO_BEGIN : TIMED,
				s->time - begin);
		} else {
			report->totals.unused++;
		}
		vcpu->pending = false;
		vcpu->open = false;
		return;
	}

	/*
	 * An end that names its key (an MMIO read) is timed from a begin
	 * that named none; an interval opened by another counted sample
	 * is that sample's, and it will never get its end.
	 */
	if (vcpu->pending) {
		vcpu_state__cut(report, vcpu);
		open = false;
	}
	if (open && s->time >= begin)
		account(report, vcpu, key, s->time, TIMED, s->time - begin);
	else
		account(report, vcpu, key, s->time, NO_BEGIN, 0);
	vcpu->open = false;
}

/* Accounts @nr samples of a tracepoint the analysis does not read. */
void kvm_events_report__skip(struct kvm_events_report *report,
			     enum kvm_tp_role tp, u64 nr)
{
	report->totals.read += nr;
	report->totals.by_tp[tp] += nr;
	report->totals.unused += nr;
}

/*
 * Accounts @nr samples of events that no decoder reads: other kvm
 * tracepoints, and events recorded beside them (sched_switch, cycles).
 * They are read all the same, and so in the totals, in the other bucket.
 */
void kvm_events_report__skip_other(struct kvm_events_report *report, u64 nr)
{
	report->totals.read += nr;
	report->totals.other_events += nr;
	report->totals.unused += nr;
}

/*
 * PERF_RECORD_LOST says what a ring buffer dropped as it happens;
 * PERF_RECORD_LOST_SAMPLES, written by perf record as it ends from each
 * event's lost count, says the same drops again.  Either alone is the
 * number lost: a recording may have only one of them.
 */
u64 kvm_events_totals__lost(const struct kvm_events_totals *totals)
{
	return max(totals->lost_events, totals->lost_samples);
}

/*
 * The thread id now runs in another process: a new VM reused it after the
 * old one ended.  Nothing the old vcpu began can end in the new one.
 */
void kvm_events_pairing__reused(struct kvm_events_report *report,
				struct vcpu_state *vcpu, u32 pid)
{
	vcpu_state__cut(report, vcpu);
	vcpu->pid = pid;
	vcpu->vcpu = KVM_EVENTS_NO_VCPU;
	vcpu->rip = 0;
	vcpu->offcpu.off = false;
}

/* A sample that is a whole event: no interval to open or close. */
static void add_whole(struct kvm_events_report *report,
		      const struct vcpu_state *vcpu,
		      const struct kvm_events_sample *s, u64 key, u64 duration)
{
	if (duration == KVM_EVENTS_NO_TIME)
		account(report, vcpu, key, s->time, UNTIMED, 0);
	else
		account(report, vcpu, key, s->time - min(duration, s->time),
			TIMED, duration);
}

/* The vcpu_state of a switch's thread, in the map; NULL for one without */
static noinline struct vcpu_state *switch__find_vcpu(struct kvm_events_pairing *pairing, u32 tid)
{
	struct vcpu_state *vcpu;

	/* A system wide recording's switches are mostly other tasks'. */
	if (pairing->not_vcpu[tid % PAIRING_CACHE] == tid + 1)
		return NULL;
	if (hashmap__find(pairing->vcpus, tid, &vcpu))
		return vcpu;
	pairing->not_vcpu[tid % PAIRING_CACHE] = tid + 1;
	return NULL;
}

/*
 * A context switch: time off CPU, if it falls in an open interval.  Only
 * threads that wrote kvm samples have a state: the switches of the others
 * (a system wide recording holds every task's) tell nothing.  The map is
 * looked up out of line: its result's address would cost a canary.
 */
static noinline void report__switch(struct kvm_events_report *report,
				    const struct kvm_events_sample *s)
{
	struct kvm_events_pairing *pairing = report->pairing;
	struct vcpu_state *vcpu = vcpu_state__cached(pairing, s->tid);

	if (!vcpu)
		vcpu = switch__find_vcpu(pairing, s->tid);
	/* A second part holds back what the first part's state decides. */
	if (pairing->deferral && pairing->deferral->switched(report, vcpu, s))
		return;
	report->totals.switch_records++;
	if (!vcpu)
		return;
	if (s->kind & KVM_EVENTS_SWITCH_IN)
		kvm_events_offcpu__in(&vcpu->offcpu, s->time, vcpu->begin_time);
	else if (vcpu->open)
		kvm_events_offcpu__out(&vcpu->offcpu, s->time, s->flag, s->code);
}

/* Inline, for the callers that hand samples over in runs */
static __always_inline void report__add(struct kvm_events_report *report,
					const struct kvm_events_sample *s)
{
	const struct kvm_events_analysis *analysis = report->analysis;
	struct vcpu_state *vcpu;
	u64 key, duration;

	if (!kvm_events_report__reads(report, s->tp)) {
		if (unlikely(s->tp == KVM_EVENTS_SWITCH)) {
			report__switch(report, s);
			return;
		}
		kvm_events_report__skip(report, s->tp, 1);
		return;
	}
	vcpu = vcpu_state__get(report, s);
	if (unlikely(vcpu && !vcpu->started) &&
	    report->pairing->deferral->sample(report, vcpu, s))
		return;
	report->totals.read++;
	report->totals.by_tp[s->tp]++;
	/* They come in time order. */
	if (!report->totals.first_time)
		report->totals.first_time = s->time;
	report->totals.last_time = s->time;
	if (!vcpu) {
		report->totals.no_memory++;
		return;
	}
	if (vcpu->pid != s->pid)
		kvm_events_pairing__reused(report, vcpu, s->pid);
	vcpu_state__note(vcpu, s);
	/* It wrote this sample on CPU: the switch back in was lost. */
	if (unlikely(vcpu->offcpu.off))
		kvm_events_offcpu__in(&vcpu->offcpu, s->time, vcpu->begin_time);

	if ((analysis->begins & BIT(s->tp)) && analysis->begin(s, &key))
		vcpu_state__begin(report, vcpu, s, key);
	else if ((analysis->ends & BIT(s->tp)) && analysis->end(s, &key))
		vcpu_state__end(report, vcpu, s, key);
	else if (analysis->whole && analysis->whole(s, &key, &duration))
		add_whole(report, vcpu, s, key, duration);
	else if (analysis->refine && vcpu->pending &&
		 analysis->refine(s, &vcpu->pending_key))
		report->totals.paired_end++;
	else
		report->totals.unused++;
}

void kvm_events_report__add(struct kvm_events_report *report,
			    const struct kvm_events_sample *s)
{
	report__add(report, s);
}

void kvm_events_report__add_many(struct kvm_events_report *report,
				 const struct kvm_events_sample *s, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++)
		report__add(report, &s[i]);
}

/*
 * The pairing is per thread, and counts, sums, minima, maxima and
 * histograms do not depend on the order they are added in.  What does:
 * the standard deviation's running mean, which of equal events --top
 * keeps, an observer (the heatmap), and a second part's deferral, which
 * stops at the first sample whose thread's state it cannot know.
 */
bool kvm_events_report__per_thread(const struct kvm_events_report *report)
{
	bool per_thread = !report->opts.stddev && !report->top;

	per_thread = per_thread && !report->observer;
	per_thread = per_thread && !report->pairing->deferral;
	return per_thread;
}

/* In time order, the first sample read gives the first time, the last the last. */
void kvm_events_report__set_span(struct kvm_events_report *report, u64 first_time,
				 const struct kvm_events_span *span)
{
	if (!span->read)
		return;
	if (!first_time)
		report->totals.first_time = span->first;
	report->totals.last_time = span->last;
}

/* For samples paired elsewhere (in the kernel, by BPF): @key's entry, made if new */
struct kvm_events_key *kvm_events_report__entry(struct kvm_events_report *report,
						u64 key, u32 pid, u32 vcpu)
{
	struct vcpu_state state = { .pid = pid, .vcpu = vcpu };

	return key__get(report, key, group_of(report, &state),
			group_pid_of(report, &state));
}

static int compare_desc(double a, double b)
{
	return a == b ? 0 : a < b ? 1 : -1;
}

/* What @sort sorts by: a key without a timed sample has 0 for each time */
static double sort_value(const struct kvm_events_key *key, enum kvm_events_sort sort)
{
	if (sort == KVM_EVENTS_SORT_SAMPLE)
		return key->samples;
	if (!key->timed)
		return 0;
	if (sort == KVM_EVENTS_SORT_TIME)
		return key->total_ns;
	if (sort == KVM_EVENTS_SORT_MEAN)
		return (double)key->total_ns / key->timed;
	if (sort == KVM_EVENTS_SORT_MIN)
		return key->stats.min;
	if (sort == KVM_EVENTS_SORT_MAX)
		return key->stats.max;
	if (sort == KVM_EVENTS_SORT_STDDEV)
		return kvm_events_key__stddev(key);
	if (sort >= KVM_EVENTS_SORT_ONCPU && sort <= KVM_EVENTS_SORT_BLOCKED)
		return kvm_events_split__whole(key->split, key->timed) ?
		       key->split->ns[sort - KVM_EVENTS_SORT_ONCPU] : 0;
	return kvm_events_key__percentile(key, sort == KVM_EVENTS_SORT_P50 ? 50 :
					  sort == KVM_EVENTS_SORT_P90 ? 90 :
					  sort == KVM_EVENTS_SORT_P99 ? 99 : 99.9);
}

/* Groups (pid, then vcpu or pid) ascending, each sort key in turn, names ascending */
static int compare_keys(const struct kvm_events_key *a,
			const struct kvm_events_key *b,
			const struct kvm_events_sort_keys *sort)
{
	u32 i;

	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	if (a->group != b->group)
		return a->group < b->group ? -1 : 1;
	for (i = 0; i < sort->nr && sort->by[i] != KVM_EVENTS_SORT_NAME; i++) {
		int ret = compare_desc(sort_value(a, sort->by[i]), sort_value(b, sort->by[i]));

		if (ret)
			return ret;
	}
	return strcmp(a->name, b->name);
}

static const struct kvm_events_sort_keys *key_sort;	/* qsort() has no context */

static int compare_key_ptrs(const void *a, const void *b)
{
	return compare_keys(*(struct kvm_events_key * const *)a,
			    *(struct kvm_events_key * const *)b, key_sort);
}

/* All keys in output order; the caller frees the array. */
struct kvm_events_key **kvm_events_report__sorted(struct kvm_events_report *report,
						  const struct kvm_events_sort_keys *sort,
						  size_t *nr)
{
	struct kvm_events_key **keys;
	struct hashmap_entry *cur;
	size_t bkt, i = 0;

	*nr = hashmap__size(report->pairing->keys);
	keys = calloc(*nr ? *nr : 1, sizeof(*keys));
	if (!keys)
		return NULL;
	hashmap__for_each_entry(report->pairing->keys, cur, bkt)
		keys[i++] = cur->pvalue;
	key_sort = sort;
	qsort(keys, *nr, sizeof(*keys), compare_key_ptrs);
	return keys;
}

struct kvm_events_key *kvm_events_report__key(struct kvm_events_report *report,
					      const char *name)
{
	struct hashmap_entry *cur;
	size_t bkt;

	hashmap__for_each_entry(report->pairing->keys, cur, bkt) {
		struct kvm_events_key *entry = cur->pvalue;

		if (!strcmp(entry->name, name))
			return entry;
	}
	return NULL;
}

int kvm_events_report__pids(const struct kvm_events_report *report, struct intlist *pids)
{
	struct hashmap_entry *cur;
	size_t bkt;
	int err;

	hashmap__for_each_entry(report->pairing->vcpus, cur, bkt) {
		const struct vcpu_state *vcpu = cur->pvalue;

		err = kvm_events_pids__add(pids, vcpu->pid);
		if (err)
			return err;
	}
	/* Keys paired elsewhere (BPF) have no thread here; pid 0 is no VM's. */
	hashmap__for_each_entry(report->pairing->keys, cur, bkt) {
		const struct kvm_events_key *key = cur->pvalue;

		err = key->pid ? kvm_events_pids__add(pids, key->pid) : 0;
		if (err)
			return err;
	}
	return 0;
}

/* The caches may point at what is freed, and would name it again. */
static void pairing__flush_caches(struct kvm_events_pairing *pairing)
{
	memset(pairing->key_cache, 0, sizeof(pairing->key_cache));
	memset(pairing->vcpu_cache, 0, sizeof(pairing->vcpu_cache));
	memset(pairing->not_vcpu, 0, sizeof(pairing->not_vcpu));
}

size_t kvm_events_report__drop_pid(struct kvm_events_report *report, u32 pid,
				   void (*forget)(struct kvm_events_key *key, void *arg),
				   void *arg)
{
	struct kvm_events_pairing *pairing = report->pairing;
	struct hashmap_entry *cur, *tmp;
	size_t bkt, dropped = 0;

	/* Its threads first: their numbers may come back in another process. */
	hashmap__for_each_entry_safe(pairing->vcpus, cur, tmp, bkt) {
		struct vcpu_state *vcpu = cur->pvalue;

		if (vcpu->pid != pid)
			continue;
		hashmap__delete(pairing->vcpus, vcpu->tid, NULL, NULL);
		free(vcpu);
	}
	hashmap__for_each_entry_safe(pairing->keys, cur, tmp, bkt) {
		struct kvm_events_key *key = cur->pvalue;

		if (key->pid != pid)
			continue;
		hashmap__delete(pairing->keys, key, NULL, NULL);
		if (forget)
			forget(key, arg);
		key__delete(key);
		dropped++;
	}
	pairing__flush_caches(pairing);
	return dropped;
}

/* Whatever is still open when the recording stops never got its end. */
void kvm_events_report__finish(struct kvm_events_report *report)
{
	struct hashmap_entry *cur;
	size_t bkt;

	hashmap__for_each_entry(report->pairing->vcpus, cur, bkt)
		vcpu_state__cut(report, cur->pvalue);
}
