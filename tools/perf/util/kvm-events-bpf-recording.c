// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's pairing into a report (see kvm-events-bpf-recording.h).
 *
 * A record --use-bpf recording holds, in the bpf-output event of each
 * analysis, the events of at least --min-time written whole, and dumps
 * of the maps.  The counts, times and histograms are the last whole
 * dump's.  Percentiles and stddev are exact when every paired event was
 * written whole (--min-time 0) and every one was read; otherwise they
 * come from the histograms, within one bucket (1/128 of the value).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/string.h>
#include <linux/zalloc.h>

#include "debug.h"
#include "evsel.h"
#include "kvm-events.h"
#include "kvm-events-analysis.h"
#include "kvm-events-bpf-recording.h"
#include "latency-dist.h"
#include "sample.h"

/* The key @analysis makes of the event the kernel kept, if any */
static bool analysis_key(const struct kvm_events_analysis *analysis,
			 const struct kvm_events_bpf_key *k, u64 *key)
{
	struct kvm_events_sample s = {
		.tp = k->tp, .pid = k->pid, .vcpu = k->vcpu, .isa = k->isa,
		.code = k->code, .kind = k->kind, .flag = k->flag,
	};
	u64 ns;

	*key = KVM_EVENTS_NO_KEY;
	if (!analysis->begin(&s, key) && !analysis->end(&s, key) &&
	    !(analysis->whole && analysis->whole(&s, key, &ns)))
		return false;
	return *key != KVM_EVENTS_NO_KEY;
}

/* The report's entry of the kernel's key; NULL: left out, and counted */
static struct kvm_events_key *report_entry(struct kvm_events_report *report,
					   const struct kvm_events_bpf_key *k,
					   u64 samples)
{
	struct kvm_events_key *entry;
	u64 key;

	if (!analysis_key(report->analysis, k, &key)) {
		report->totals.unused += samples;
		return NULL;
	}
	if (!kvm_events_report__selects(report, k->pid, k->vcpu)) {
		report->totals.filtered += samples;
		return NULL;
	}
	entry = kvm_events_report__entry(report, key, k->pid, k->vcpu);
	if (!entry)
		report->totals.no_memory += samples;
	return entry;
}

void kvm_events_bpf__add_stats(struct kvm_events_report *report,
			       const struct kvm_events_bpf_key *k,
			       const struct kvm_events_bpf_stats *st)
{
	struct kvm_events_key *entry = report_entry(report, k, st->samples);
	struct kvm_events_totals *t = &report->totals;

	if (!entry)
		return;
	entry->samples += st->samples;
	entry->timed += st->timed;
	entry->total_ns += st->total_ns;
	t->keyed += st->samples;
	t->no_end += st->no_end;
	t->no_begin += st->no_begin;
	t->total_ns += st->total_ns;
	t->kernel_kept += st->kept;
	if (!st->timed)
		return;
	entry->stats.n += st->timed;
	entry->stats.mean = (double)entry->total_ns / entry->timed;
	entry->stats.min = min_t(u64, entry->stats.min, st->min_ns);
	entry->stats.max = max_t(u64, entry->stats.max, st->max_ns);
}

/* @count durations of @ns: the histograms, and the spread about the mean */
static void add_durations(struct kvm_events_key *entry, u64 ns, u64 count)
{
	double d = ns - entry->stats.mean;

	if (entry->log2_ns)
		entry->log2_ns[kvm_events_log2_bucket(ns)] += count;
	entry->stats.M2 += d * d * count;
}

void kvm_events_bpf__add_bucket(struct kvm_events_report *report,
				const struct kvm_events_bpf_bucket *b, u64 count)
{
	struct kvm_events_key *entry = report_entry(report, &b->key, 0);

	if (!entry)
		return;
	if (entry->dist && latency_dist__add_bucket(entry->dist, b->bucket, count))
		pr_warning_once("kvm-events: out of memory, percentiles are incomplete\n");
	add_durations(entry, latency_dist__bucket_value(b->bucket), count);
}

void kvm_events_bpf__add_counts(struct kvm_events_report *report,
				const struct kvm_events_bpf_counts *c,
				const __u32 *tps, u32 nr_slots)
{
	struct kvm_events_totals *t = &report->totals;
	u32 i;

	for (i = 0; i < nr_slots && i < KVM_EVENTS_BPF_MAX_SLOTS; i++) {
		t->read += c->events[i];
		t->by_tp[tps[i] % KVM_TP__NR] += c->events[i];
	}
	t->paired_end += c->paired_end;
	t->unused += c->unused;
	t->no_memory += c->full_threads + c->full_keys;
}

const char *kvm_events_bpf_recording__analysis(struct evsel *evsel)
{
	const char *name = evsel__name(evsel);

	if (!evsel__is_bpf_output(evsel) || !strstarts(name, KVM_EVENTS_BPF_EVENT_PREFIX))
		return NULL;
	return name + strlen(KVM_EVENTS_BPF_EVENT_PREFIX);
}

/* A paired event the kernel wrote whole, keyed as the report keys it */
struct whole_event {
	u64	key;
	u64	ns;
	u64	end;	/* its time */
	u32	pid;
	u32	vcpu;
	u32	tid;
	u64	rip;
};

/* One dump of the maps, as it is read */
struct dump {
	u32				number;
	u64				time;	/* of its counts */
	struct kvm_events_bpf_rec_key	*keys;
	size_t				nr_keys, alloc_keys;
	struct kvm_events_bpf_rec_bucket *buckets;
	size_t				nr_buckets, alloc_buckets;
	struct kvm_events_bpf_rec_counts counts;
};

struct kvm_events_bpf_recording {
	const char		*input;
	struct dump		reading;
	struct dump		whole;		/* the last whole one */
	struct whole_event	*events;
	size_t			nr_events, alloc_events;
	u64			cut_dumps;	/* dumps a full buffer cut short */
};

struct kvm_events_bpf_recording *kvm_events_bpf_recording__new(const char *input)
{
	struct kvm_events_bpf_recording *rec = zalloc(sizeof(*rec));

	if (rec)
		rec->input = input;
	return rec;
}

static void dump__exit(struct dump *d)
{
	free(d->keys);
	free(d->buckets);
	memset(d, 0, sizeof(*d));
}

void kvm_events_bpf_recording__delete(struct kvm_events_bpf_recording *rec)
{
	if (!rec)
		return;
	dump__exit(&rec->reading);
	dump__exit(&rec->whole);
	free(rec->events);
	free(rec);
}

/* Room for one more of @size at *@array, which holds @nr of @alloc */
static void *grow(void **array, size_t *alloc, size_t nr, size_t size)
{
	if (nr == *alloc) {
		size_t more = *alloc ? *alloc * 2 : 64;
		void *p = reallocarray(*array, more, size);

		if (!p)
			return NULL;
		*array = p;
		*alloc = more;
	}
	return *array + nr * size;
}

static int add_event(struct kvm_events_bpf_recording *rec, struct kvm_events_report *report,
		     const struct kvm_events_bpf_rec_event *r, u64 time)
{
	struct whole_event *e;
	u64 key;

	/* Counted in the dumps: here only what the tables time */
	if (!analysis_key(report->analysis, &r->key, &key) ||
	    !kvm_events_report__selects(report, r->key.pid, r->key.vcpu))
		return 0;
	e = grow((void **)&rec->events, &rec->alloc_events, rec->nr_events, sizeof(*e));
	if (!e)
		return -ENOMEM;
	*e = (struct whole_event){
		.key = key, .ns = r->ns, .end = time, .pid = r->key.pid,
		.vcpu = r->key.vcpu, .tid = r->tid, .rip = r->rip,
	};
	rec->nr_events++;
	return 0;
}

/* A record of dump @number: a new dump starts over. */
static struct dump *dump_of(struct kvm_events_bpf_recording *rec, u32 number)
{
	struct dump *d = &rec->reading;

	if (d->number != number) {
		d->number = number;
		d->nr_keys = 0;
		d->nr_buckets = 0;
	}
	return d;
}

/* The dump's counts end it: whole if none of its records is missing. */
static void end_dump(struct kvm_events_bpf_recording *rec,
		     const struct kvm_events_bpf_rec_counts *c, u64 time)
{
	struct dump *d = dump_of(rec, c->head.dump), done;

	if (d->nr_keys != c->nr_keys || d->nr_buckets != c->nr_buckets) {
		pr_debug("%s: dump %u cut short: %zu of %u keys, %zu of %u buckets\n",
			 rec->input, c->head.dump, d->nr_keys, c->nr_keys,
			 d->nr_buckets, c->nr_buckets);
		rec->cut_dumps++;
		d->number = 0;
		return;
	}
	d->counts = *c;
	d->counts.analysis[sizeof(d->counts.analysis) - 1] = '\0';
	d->time = time;
	/* The whole one becomes the one to read into. */
	done = rec->whole;
	rec->whole = *d;
	*d = done;
	d->number = 0;
}

/* One record, copied out of the raw data, which is 4-byte aligned only */
union bpf_record {
	struct kvm_events_bpf_rec_head		head;
	struct kvm_events_bpf_rec_event		event;
	struct kvm_events_bpf_rec_key		key;
	struct kvm_events_bpf_rec_bucket	bucket;
	struct kvm_events_bpf_rec_counts	counts;
};

int kvm_events_bpf_recording__add(struct kvm_events_bpf_recording *rec,
				  struct kvm_events_report *report,
				  const struct perf_sample *sample)
{
	static const u32 sizes[] = {
		[KVM_EVENTS_BPF_REC_EVENT] = sizeof(struct kvm_events_bpf_rec_event),
		[KVM_EVENTS_BPF_REC_KEY] = sizeof(struct kvm_events_bpf_rec_key),
		[KVM_EVENTS_BPF_REC_BUCKET] = sizeof(struct kvm_events_bpf_rec_bucket),
		[KVM_EVENTS_BPF_REC_COUNTS] = sizeof(struct kvm_events_bpf_rec_counts),
	};
	union bpf_record r = { .head.type = 0 };
	struct dump *d;
	void *slot;

	if (sample->raw_size >= sizeof(r.head))
		memcpy(&r.head, sample->raw_data, sizeof(r.head));
	if (!r.head.type || r.head.type >= ARRAY_SIZE(sizes) ||
	    sample->raw_size < sizes[r.head.type]) {
		pr_err("%s: --use-bpf record at %llu: %u bytes of type %u, not one perf kvm-events wrote\n",
		       rec->input, (unsigned long long)sample->time, sample->raw_size,
		       r.head.type);
		return -EINVAL;
	}
	memcpy(&r, sample->raw_data, sizes[r.head.type]);
	switch (r.head.type) {
	case KVM_EVENTS_BPF_REC_EVENT:
		return add_event(rec, report, &r.event, sample->time);
	case KVM_EVENTS_BPF_REC_KEY:
		d = dump_of(rec, r.head.dump);
		slot = grow((void **)&d->keys, &d->alloc_keys, d->nr_keys, sizeof(*d->keys));
		if (!slot)
			return -ENOMEM;
		memcpy(slot, &r.key, sizeof(r.key));
		d->nr_keys++;
		return 0;
	case KVM_EVENTS_BPF_REC_BUCKET:
		d = dump_of(rec, r.head.dump);
		slot = grow((void **)&d->buckets, &d->alloc_buckets, d->nr_buckets,
			    sizeof(*d->buckets));
		if (!slot)
			return -ENOMEM;
		memcpy(slot, &r.bucket, sizeof(r.bucket));
		d->nr_buckets++;
		return 0;
	default:
		end_dump(rec, &r.counts, sample->time);
		return 0;
	}
}

/*
 * The events written whole time every event the dump counts when none
 * was below --min-time and none was lost: the events of the report's
 * keys then number what the dump says they kept.
 */
static bool events_are_all(struct kvm_events_bpf_recording *rec,
			   struct kvm_events_report *report, size_t nr)
{
	const struct kvm_events_bpf_counts *c = &rec->whole.counts.counts;

	return !rec->whole.counts.min_time_ns && !c->lost_records &&
	       !kvm_events_totals__lost(&report->totals) && nr == report->totals.kernel_kept;
}

static void add_whole_event(struct kvm_events_report *report, const struct whole_event *e,
			    bool all)
{
	struct kvm_events_key *entry = kvm_events_report__entry(report, e->key, e->pid, e->vcpu);
	struct kvm_events_outlier o = {
		.duration = e->ns, .time = e->end - e->ns, .key = e->key, .rip = e->rip,
		.vcpu = e->vcpu, .pid = e->pid, .tid = e->tid, .timed = true,
	};

	if (!entry)
		return;
	if (all) {
		if (entry->dist && latency_dist__add(entry->dist, e->ns))
			pr_warning_once("kvm-events: out of memory, percentiles are incomplete\n");
		add_durations(entry, e->ns, 1);
	}
	if (report->opts.top)
		kvm_events_report__outlier(report, &o);
}

const char *kvm_events_bpf_recording__dumped(const struct kvm_events_bpf_recording *rec)
{
	return rec->whole.number ? rec->whole.counts.analysis : NULL;
}

int kvm_events_bpf_recording__finish(struct kvm_events_bpf_recording *rec,
				     struct kvm_events_report *report)
{
	struct dump *d = &rec->whole;
	struct kvm_events_totals *t = &report->totals;
	size_t i, nr = 0;
	bool all;

	if (!d->number) {
		pr_err("%s: recorded with --use-bpf, but holds no whole dump of the kernel's counts%s\n",
		       rec->input, rec->cut_dumps ? ": its buffers were full" :
		       ": perf kvm-events record was stopped before it wrote one");
		return -EINVAL;
	}
	kvm_events_bpf__add_counts(report, &d->counts.counts, d->counts.tp,
				   KVM_EVENTS_BPF_MAX_SLOTS);
	for (i = 0; i < d->nr_keys; i++)
		kvm_events_bpf__add_stats(report, &d->keys[i].key, &d->keys[i].stats);
	/* What ended after the dump is in no count. */
	while (nr < rec->nr_events && rec->events[nr].end <= d->time)
		nr++;
	all = events_are_all(rec, report, nr);
	for (i = 0; i < nr; i++)
		add_whole_event(report, &rec->events[i], all);
	if (!all) {
		for (i = 0; i < d->nr_buckets; i++)
			kvm_events_bpf__add_bucket(report, &d->buckets[i].bucket,
						   d->buckets[i].count);
	}
	t->kernel_totals = true;
	t->kernel_min_time = d->counts.min_time_ns;
	t->kernel_events = nr;
	t->kernel_exact = all;
	t->lost_records = d->counts.counts.lost_records;
	return 0;
}
