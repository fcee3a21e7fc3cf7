/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_KVM_EVENTS_H
#define __PERF_KVM_EVENTS_H

/*
 * perf kvm-events: pairs KVM tracepoints per vcpu into keyed latencies.
 * Unlike perf kvm stat (kvm-stat.h) it decodes what the recording says
 * (tracepoint formats, cpuid), not what the build machine is, so any host
 * can report on any recording; that is also why it shares nothing with
 * kvm-stat.h, whose definitions exist only where perf kvm stat is built.
 */
#include <byteswap.h>
#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include "stat.h"

struct tep_event;
struct perf_sample;
struct perf_time_interval;
struct hashmap;
struct intlist;
struct kvm_events_analysis;
struct latency_dist;
struct kvm_events_guest_symbols;
struct kvm_events_split;

#define KVM_EVENTS_NO_VCPU	(~0U)
#define KVM_EVENTS_NO_KEY	(~0ULL)
#define KVM_EVENTS_NAME_LEN	64

/*
 * Which exit reason encoding a sample's code is in.  The x86 values are
 * those of the kvm_exit "isa" field; the others are ours, set by the
 * decoder from the architecture's own tracepoints.
 */
#define KVM_EVENTS_ISA_VMX	1
#define KVM_EVENTS_ISA_SVM	2
#define KVM_EVENTS_ISA_PVM	3
#define KVM_EVENTS_ISA_ARM64	16
#define KVM_EVENTS_ISA_S390	17
#define KVM_EVENTS_ISA_PPC_HV	18
#define KVM_EVENTS_ISA_RISCV	19
#define KVM_EVENTS_ISA_LOONGARCH 20

enum kvm_tp_role {
	KVM_TP_EXIT,
	KVM_TP_ENTRY,
	KVM_TP_MMIO,
	KVM_TP_PIO,
	KVM_TP_USER_EXIT,
	KVM_TP_FPU,
	KVM_TP_MSR,
	KVM_TP_HYPERCALL,
	KVM_TP_HYPERCALL_END,	/* where a hypercall has its own end */
	KVM_TP_EXIT_DETAIL,	/* names an exit more precisely */
	KVM_TP_NESTED_EXIT,	/* the exit came from L2 */
	KVM_TP_NESTED_INJECT,	/* ...and goes on to L1 */
	KVM_TP_WAKEUP,		/* a halted vcpu woke up */
	KVM_TP_HALT_POLL,	/* its halt-polling window changed */
	KVM_TP__NR,
};

/*
 * The tp of a context switch record ordered among the samples: no
 * sample, so in none of the tracepoints' counts (kvm-events-sched.h).
 * Past the marks the reader puts among them, and a bit of a u32 still.
 */
#define KVM_EVENTS_SWITCH	31

/* One kvm tracepoint sample, reduced to what the analyses look at */
struct kvm_events_sample {
	enum kvm_tp_role	tp;
	u64			time;
	u32			pid;
	u32			tid;
	u32			vcpu;	/* KVM_EVENTS_NO_VCPU: not recorded */
	u32			isa;	/* 0: not recorded */
	u64			code;	/* exit reason, gpa, port */
	u32			kind;	/* mmio type, pio direction */
	u32			flag;	/* kvm_vcpu_wakeup's valid */
	u64			rip;	/* guest rip of an exit, 0: not recorded */
};

/*
 * A field's place in the raw data; size 0: the format has no such field,
 * whose value is then @none.  The readers load the 8 bytes at @offset and
 * keep those of @mask (0 for an absent field), or'ed with @none.
 */
struct kvm_events_field_at {
	u32			offset;
	u32			size;
	u64			mask;
	u64			none;
};

/*
 * Where one tracepoint format keeps the fields, resolved once per evsel
 * and copied out of its tep_format_fields: decoding reads none of them.
 */
struct kvm_events_decoder {
	enum kvm_tp_role	tp;
	struct kvm_events_field_at code_at, kind_at, vcpu_at, isa_at, flag_at, rip_at;
	u32			fixed_isa;	/* when there is no isa field */
	u32			min_raw_size;
};

/* A kvm_exit without an isa field: @isa, the recording host's, says */
static inline void kvm_events_decoder__default_isa(struct kvm_events_decoder *dec, u32 isa)
{
	if (dec->tp != KVM_TP_EXIT || dec->isa_at.size || dec->fixed_isa)
		return;
	dec->fixed_isa = isa;
	dec->isa_at.none = isa;
}

/* How the keys are grouped into tables */
enum kvm_events_group {
	KVM_EVENTS_GROUP_NONE,
	KVM_EVENTS_GROUP_VCPU,
	KVM_EVENTS_GROUP_VM,
};

struct kvm_events_key {
	u64			key;
	u32			group;		/* vcpu id or pid, per grouping */
	u32			pid;		/* the group's VM; 0 ungrouped */
	char			name[KVM_EVENTS_NAME_LEN];
	u64			samples;	/* every access or exit seen */
	u64			timed;		/* of those, the ones paired in time */
	u64			total_ns;
	struct stats		stats;		/* of the timed ones */
	struct latency_dist	*dist;		/* for percentiles, if asked */
	u64			*log2_ns;	/* --histogram: kvm_events_log2_bucket() */
	void			*observed;	/* the observer's own, for this key */
	struct kvm_events_split	*split;		/* on and off CPU, if switches were recorded */
};

/*
 * --histogram's buckets, in nanoseconds: bucket 0 holds 0 ns, bucket
 * k > 0 holds [2^(k-1), 2^k) ns, and the last one everything from
 * 2^62 ns on.  Nanoseconds, because most exits take under 2 us.
 */
#define KVM_EVENTS_LOG2_BUCKETS	64

static inline u64 kvm_events_log2_bucket_low(int bucket)
{
	return bucket ? 1ULL << (bucket - 1) : 0;
}

/* Where every sample read went; the buckets add up to read */
struct kvm_events_totals {
	u64	read;		/* samples handed to the report */
	u64	keyed;		/* counted as a sample of a key */
	u64	paired_end;	/* closed or named a counted sample's interval */
	u64	no_end;		/* counted samples whose end never came */
	u64	no_begin;	/* counted samples whose begin was not recorded */
	u64	filtered;	/* dropped by a filter option */
	u64	unused;		/* carry nothing for the chosen analysis */
	u64	no_memory;	/* left out: no memory for their key or vcpu */
	u64	total_ns;
	u64	lost_events;	/* PERF_RECORD_LOST */
	u64	lost_chunks;
	u64	lost_samples;	/* PERF_RECORD_LOST_SAMPLES: the same drops */
	u64	out_of_order;	/* came after their round was delivered */
	u64	first_time;	/* of the samples read, for a header without */
	u64	last_time;
	u64	by_tp[KVM_TP__NR];
	u64	other_events;	/* of events no decoder reads: in read and unused */
	u64	switch_records;	/* context switches: no samples, not in read */
	/* A record --use-bpf recording's: the kernel counted, some events whole */
	bool	kernel_totals;
	bool	kernel_exact;	/* every timed event whole: exact percentiles */
	u64	kernel_min_time;	/* written whole from this duration on */
	u64	kernel_kept;	/* events written whole, of the report's keys */
	u64	kernel_events;	/* ...of those, read */
	u64	lost_records;	/* not written whole: the buffer was full */
};

/* One of the slowest events, for --top */
struct kvm_events_outlier {
	u64	duration;
	u64	time;
	u64	key;
	u64	rip;
	u32	vcpu;
	u32	pid;
	u32	tid;
	bool	timed;	/* false: cut off from its begin or end, no duration */
	bool	split;	/* its time off CPU is known: */
	u64	offcpu_ns;
	u32	next_tid;	/* what ran the longest instead: kvm-events-sched.h */
};

/* What a key is: what the analysis makes of an event, or where the guest was */
enum kvm_events_site {
	KVM_EVENTS_SITE_NONE,
	KVM_EVENTS_SITE_RIP,	/* --key rip: the guest rip of the exit */
	KVM_EVENTS_SITE_SYM,	/* --key sym: the guest function it is in */
};

/* What to keep: filters and the statistics the output needs */
struct kvm_events_options {
	u32			nr_vcpu_ranges;	/* 0: every vcpu */
	u32			(*vcpu_ranges)[2];
	struct intlist		*pids;
	struct perf_time_interval *time_ranges;
	int			nr_time_ranges;
	u64			min_duration;	/* ns */
	enum kvm_events_group	group;
	bool			percentiles;
	bool			stddev;		/* costs a division per sample */
	bool			histogram;
	u32			top;
	const char		*heatmap;	/* --heatmap: the SVG to write */
	/* --key rip or sym, and --guest-kallsyms that names the sites, or NULL */
	enum kvm_events_site	site;
	const struct kvm_events_guest_symbols *guest_symbols;
	bool			sched;		/* switches recorded: split the time */
};

struct kvm_events_pairing;

/*
 * Another view of the timed events (--heatmap's), kept by its owner: the
 * engine hands it each one, and *@observed, the key's pointer for it.  A
 * report without one pays a test per timed event, nothing more.
 */
struct kvm_events_observer {
	void (*timed)(struct kvm_events_observer *observer, void **observed,
		      u64 first, u64 time, u64 duration);
	/* The reading starts over: what was seen is to be forgotten */
	void (*forget)(struct kvm_events_observer *observer);
};

struct kvm_events_report {
	const struct kvm_events_analysis *analysis;
	u32			tps;		/* BIT(tp) the analysis reads */
	struct kvm_events_options opts;
	struct kvm_events_outlier *top;	/* --top: a heap, sorted at the end */
	u32			nr_top;
	struct kvm_events_totals totals;
	struct kvm_events_pairing *pairing;	/* the engine's own */
	struct kvm_events_observer *observer;	/* not the report's: its owner's */
};

/* What keys can be sorted by: all descending, but the name */
enum kvm_events_sort {
	KVM_EVENTS_SORT_SAMPLE,
	KVM_EVENTS_SORT_TIME,
	KVM_EVENTS_SORT_MEAN,
	KVM_EVENTS_SORT_MIN,
	KVM_EVENTS_SORT_MAX,
	KVM_EVENTS_SORT_STDDEV,
	KVM_EVENTS_SORT_P50,
	KVM_EVENTS_SORT_P90,
	KVM_EVENTS_SORT_P99,
	KVM_EVENTS_SORT_P99_9,
	/* The time on and off CPU, in the order of enum kvm_events_cpu_part */
	KVM_EVENTS_SORT_ONCPU,
	KVM_EVENTS_SORT_OFFCPU,
	KVM_EVENTS_SORT_PREEMPTED,
	KVM_EVENTS_SORT_BLOCKED,
	KVM_EVENTS_SORT_NAME,
};

#define KVM_EVENTS_MAX_SORT_KEYS	8
/* Sort by by[0], its ties by by[1]..., the last ties by name */
struct kvm_events_sort_keys {
	u32			nr;
	enum kvm_events_sort	by[KVM_EVENTS_MAX_SORT_KEYS];
};

int kvm_events_decoder__init(struct kvm_events_decoder *dec,
			     struct tep_event *format);
int kvm_events_decoder__decode(const struct kvm_events_decoder *dec,
			       struct perf_sample *sample, bool needs_swap,
			       struct kvm_events_sample *out);

/*
 * A field's value in @raw, or at.none; @swap: @raw is of the other byte
 * order.  Inline, like the decoding below: the readers decode every
 * sample, and the calls would cost more than the rest of it.
 */
static inline u64 kvm_events_field__value(const u8 *raw, struct kvm_events_field_at at,
					  bool swap)
{
	u32 v32;
	u16 v16;
	u64 v;

	switch (at.size) {
	case 0:
		return at.none;
	case 1:
		return raw[at.offset];
	case 2:
		memcpy(&v16, raw + at.offset, 2);
		return swap ? bswap_16(v16) : v16;
	case 4:
		memcpy(&v32, raw + at.offset, 4);
		return swap ? bswap_32(v32) : v32;
	default:
		memcpy(&v, raw + at.offset, 8);
		return swap ? bswap_64(v) : v;
	}
}

/* The fields of @raw, at least dec->min_raw_size bytes, into @out */
static inline void kvm_events_decoder__decode_raw(const struct kvm_events_decoder *dec,
						  const u8 *raw, bool swap,
						  struct kvm_events_sample *out)
{
	out->code = kvm_events_field__value(raw, dec->code_at, swap);
	out->kind = kvm_events_field__value(raw, dec->kind_at, swap);
	out->vcpu = kvm_events_field__value(raw, dec->vcpu_at, swap);
	out->isa = kvm_events_field__value(raw, dec->isa_at, swap);
	out->flag = kvm_events_field__value(raw, dec->flag_at, swap);
	out->rip = kvm_events_field__value(raw, dec->rip_at, swap);
}

/*
 * The same, without a branch on each field's size: 8 bytes loaded and
 * masked.  @raw must be followed by 7 readable bytes past the sample
 * (RECORD_INPUT_SLACK); the masks keep the low bytes, so a big-endian host
 * decodes by size.
 */
static inline u64 kvm_events_field__load(const u8 *raw, struct kvm_events_field_at at)
{
	u64 v;

	memcpy(&v, raw + at.offset, sizeof(v));
	return (v & at.mask) | at.none;
}

static inline void kvm_events_decoder__load_raw(const struct kvm_events_decoder *dec,
						const u8 *raw, struct kvm_events_sample *out)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	out->code = kvm_events_field__load(raw, dec->code_at);
	out->kind = kvm_events_field__load(raw, dec->kind_at);
	out->vcpu = kvm_events_field__load(raw, dec->vcpu_at);
	out->isa = kvm_events_field__load(raw, dec->isa_at);
	out->flag = kvm_events_field__load(raw, dec->flag_at);
	out->rip = kvm_events_field__load(raw, dec->rip_at);
#else
	kvm_events_decoder__decode_raw(dec, raw, false, out);
#endif
}

const struct kvm_events_analysis *kvm_events_analysis__find(const char *name);
const char *kvm_events_analysis__names(void);
const struct kvm_events_analysis *
kvm_events_analysis__next(const struct kvm_events_analysis *analysis);
const char *kvm_events_analysis__column(const struct kvm_events_analysis *analysis);
const char *kvm_events_analysis__name(const struct kvm_events_analysis *analysis);
/* A key's name in the report's terms: the analysis', or a site's */
void kvm_events_report__key_name(const struct kvm_events_report *report, u64 key,
				 char *buf, size_t size);
/* The keys' column, and whether a key is idle, in the report's terms */
const char *kvm_events_report__column(const struct kvm_events_report *report);
bool kvm_events_report__is_idle(const struct kvm_events_report *report, u64 key);
/* --key rip and sym: the key of the site at @rip, the column, a key's name */
u64 kvm_events_report__site_key(const struct kvm_events_report *report, u64 rip);
const char *kvm_events_site__column(enum kvm_events_site site);
void kvm_events_site__key_name(const struct kvm_events_report *report, u64 key,
			       char *buf, size_t size);
void kvm_events_analysis__key_name(const struct kvm_events_analysis *analysis,
				   u64 key, char *buf, size_t size);
bool kvm_events_analysis__is_idle(const struct kvm_events_analysis *analysis,
				  u64 key);
u32 kvm_events_isa_from_cpuid(const char *cpuid);
const char *kvm_tp_role__name(enum kvm_tp_role tp);
/* "system:name" of every tracepoint a decoder knows, for record */
size_t kvm_events_tracepoints(u32 tps, const char **names, size_t max);
u32 kvm_events_record_tps(const char *list);
/* Room for every analysis of the table, and some to come */
#define KVM_EVENTS_MAX_ANALYSES	16
size_t kvm_events_analyses_of(const char *list, const struct kvm_events_analysis **chosen,
			      size_t max);
u32 kvm_events_analysis__needs(const struct kvm_events_analysis *analysis);

/* Adds @pid to a list of pids (opts.pids...) unless it is there: 0 or -ENOMEM */
int kvm_events_pids__add(struct intlist *pids, u32 pid);

int kvm_events_report__init(struct kvm_events_report *report,
			    const struct kvm_events_analysis *analysis,
			    const struct kvm_events_options *opts);
void kvm_events_report__exit(struct kvm_events_report *report);
/* Does the analysis read samples of @tp at all? */
static inline bool kvm_events_report__reads(const struct kvm_events_report *report,
					    enum kvm_tp_role tp)
{
	return report->tps & (1U << tp);
}

void kvm_events_report__skip(struct kvm_events_report *report,
			     enum kvm_tp_role tp, u64 nr);
void kvm_events_report__skip_other(struct kvm_events_report *report, u64 nr);
void kvm_events_report__add(struct kvm_events_report *report,
			    const struct kvm_events_sample *sample);
/* The same for @nr samples in a row */
void kvm_events_report__add_many(struct kvm_events_report *report,
				 const struct kvm_events_sample *s, size_t nr);
/*
 * Whether what the report gives depends only on each thread's samples
 * coming in time order, not on how the threads' samples interleave.
 */
bool kvm_events_report__per_thread(const struct kvm_events_report *report);

/* The earliest and latest times of the samples a report reads, in a flush */
struct kvm_events_span {
	u64			first;	/* the earliest but 0, or 0 */
	u64			last;
	bool			read;	/* whether it holds one */
};

/*
 * After samples handed over in another order than time's: sets the first
 * and last times as time order would have, from @span, the flush's, and
 * @first_time, the report's before it.
 */
void kvm_events_report__set_span(struct kvm_events_report *report, u64 first_time,
				 const struct kvm_events_span *span);
void kvm_events_report__finish(struct kvm_events_report *report);
/*
 * A file read in two parts at once: the second part's report holds back
 * what needs the first's state, and is joined to it at the end.
 */
int kvm_events_report__second_part(struct kvm_events_report *report);
void kvm_events_report__defer_until(struct kvm_events_report *report, u64 time);
bool kvm_events_report__can_join(const struct kvm_events_report *second);
size_t kvm_events_report__held(const struct kvm_events_report *second,
			       const struct kvm_events_sample **held);
int kvm_events_report__join(struct kvm_events_report *first,
			    const struct kvm_events_report *second);
struct kvm_events_key *kvm_events_report__key(struct kvm_events_report *report, const char *name);
struct kvm_events_key **kvm_events_report__sorted(struct kvm_events_report *report,
						  const struct kvm_events_sort_keys *sort,
						  size_t *nr);
void kvm_events_report__sort_top(struct kvm_events_report *report);
/* --top: an event timed elsewhere (in the kernel, by BPF) */
void kvm_events_report__outlier(struct kvm_events_report *report,
				const struct kvm_events_outlier *o);
/* Adds to @pids the VM processes @report has threads or keys of; 0 or -ENOMEM */
int kvm_events_report__pids(const struct kvm_events_report *report, struct intlist *pids);
/*
 * Forgets VM process @pid, which exited: its threads and its keys, each
 * key given first to @forget (NULL: none) for what points at it.  Returns
 * how many keys went.  Ungrouped keys (pid 0) are every VM's, and stay.
 */
size_t kvm_events_report__drop_pid(struct kvm_events_report *report, u32 pid,
				   void (*forget)(struct kvm_events_key *key, void *arg),
				   void *arg);

/* --histogram's bucket of @duration ns: 0 for 0, then [2^(b-1), 2^b) */
int kvm_events_log2_bucket(u64 duration);
/* Whether the --vcpu and -p filters take VM @pid's vcpu @vcpu */
bool kvm_events_report__selects(const struct kvm_events_report *report,
				u32 pid, u32 vcpu);
/* For samples paired elsewhere (BPF): see kvm-stat.c */
struct kvm_events_key *kvm_events_report__entry(struct kvm_events_report *report,
						u64 key, u32 pid, u32 vcpu);

/* What kvm_events_read() reads, and how */
struct kvm_events_input {
	struct perf_session	*session;
	int			threads;
	/* An evsel's decoder: NULL if no analysis reads it, or an ERR_PTR */
	const struct kvm_events_decoder *(*decoder)(struct kvm_events_input *input,
						    struct evsel *evsel);
};

int kvm_events_read(struct kvm_events_input *input,
		    struct kvm_events_report *report, bool *handled);
u64 kvm_events_totals__lost(const struct kvm_events_totals *totals);

/* Adds @from's events to @to, as if @to had counted them too */
int kvm_events_key__join(struct kvm_events_key *to, const struct kvm_events_key *from);
double kvm_events_key__stddev(const struct kvm_events_key *key);
u64 kvm_events_key__percentile(const struct kvm_events_key *key, double pct);
bool kvm_events_key__percentile_exact(const struct kvm_events_key *key);

#endif /* __PERF_KVM_EVENTS_H */
