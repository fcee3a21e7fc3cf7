// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * perf kvm-events live --use-bpf: pairs each thread's begin and end
 * tracepoints in the kernel, and adds every duration to a histogram per
 * (VM, vcpu, key), so that nothing per event leaves the kernel.
 *
 * One program serves every analysis, and several at once: the loader
 * attaches it once to each tracepoint the analyses read, with the index
 * of that tracepoint's slot as the attach cookie, and sets before load
 * where the slot's fields are in the running kernel's record and what
 * it is (begin, end or whole event) to each analysis.  An event then
 * costs one run, one filter and one thread lookup however many analyses
 * read it; each analysis keeps its own pairing state in the thread's
 * value, and its index in its keys.  The state machine is that of
 * util/kvm-stat.c.
 *
 * For record --use-bpf it also writes each paired event of at least
 * min_time_ns into the records map, a bpf-output event that perf record
 * records, and dump_maps(), run by user space, writes the maps there.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

#include "kvm_events_pair.h"

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u32);			/* tid */
	__type(value, struct kvm_events_bpf_thread);
	__uint(max_entries, 1024);
} threads SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, struct kvm_events_bpf_key);
	__type(value, struct kvm_events_bpf_stats);
	__uint(max_entries, 4096);
} keys SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, struct kvm_events_bpf_bucket);
	__type(value, __u64);
	__uint(max_entries, 65536);
} buckets SEC(".maps");

/* The processes to watch, if filter_pids */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u32);
	__type(value, __u8);
	__uint(max_entries, 1);
} pids SEC(".maps");

/* record --use-bpf: perf record's bpf-output events, at analysis * nr_cpus + CPU */
struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
} records SEC(".maps");

/* filter_children: whether a process descends from parent_tgid (1) or not (2) */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__type(key, __u32);
	__type(value, __u8);
	__uint(max_entries, 1024);
} verdicts SEC(".maps");

/*
 * Set before load, in the .bss rather than the .rodata: the verifier
 * prunes nothing by them, and no volatile is needed to read them.
 */
struct kvm_events_bpf_slot slots[KVM_EVENTS_BPF_MAX_SLOTS];
__u32 nr_analyses;
__u32 nr_cpus;
__u32 filter_pids;
/* Only perf record's workload and its children, as perf record's inherit */
__u32 filter_children;
__u32 parent_tgid;
__u32 emit_records;
__u64 min_time_ns;
char analysis_names[KVM_EVENTS_BPF_MAX_ANALYSES][KVM_EVENTS_BPF_NAME_LEN];
__u32 dumps;

struct kvm_events_bpf_counts counts[KVM_EVENTS_BPF_MAX_ANALYSES];

/* The analysis index @a, bounded where the verifier can see it */
#define ANALYSIS(a)	((a) & (KVM_EVENTS_BPF_MAX_ANALYSES - 1))

/*
 * The words of the event's record, read once per event, as far as its
 * slot's fields go: a field is then a shift of one of them.  A probe
 * read per field cost more than the pairing itself.  (A tracepoint
 * program may read its record as its context, but at constant offsets
 * only, which a field's, set at load, is not to the verifier; and one
 * program attached to several tracepoints may read no further than the
 * shortest record.)
 */
struct record {
	__u64	w[KVM_EVENTS_BPF_RECORD_WORDS];
};

static __always_inline void read_record(void *ctx, const struct kvm_events_bpf_slot *s,
					struct record *r)
{
	__u32 size = s->record_size;

	if (size > sizeof(*r))
		size = sizeof(*r);
	bpf_probe_read_kernel(r, size, ctx);
}

/*
 * A field, zero-extended as perf reads it.  The loader takes only fields
 * within one word: a record's fields are aligned to their size.
 */
static __u64 field(const struct record *r, const struct kvm_events_bpf_field *f)
{
	__u32 off = f->offset, i = off / 8, shift;
	__u64 w;

	if (!f->size || i >= KVM_EVENTS_BPF_RECORD_WORDS)
		return 0;
	w = r->w[i];
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	shift = (8 - off % 8 - f->size) * 8;
#else
	shift = (off % 8) * 8;
#endif
	w >>= shift & 63;
	return f->size >= 8 ? w : w & ((1ULL << ((f->size * 8) & 63)) - 1);
}

static void add_bucket(const struct kvm_events_bpf_key *key, __u64 ns)
{
	struct kvm_events_bpf_bucket b = { .key = *key };
	__u64 one = 1, *n;

	b.bucket = kvm_events_bpf_bucket_of(ns);
	n = bpf_map_lookup_elem(&buckets, &b);
	if (n) {
		__sync_fetch_and_add(n, 1);
		return;
	}
	if (!bpf_map_update_elem(&buckets, &b, &one, BPF_NOEXIST))
		return;
	/* Another CPU made it first, or the map is full. */
	n = bpf_map_lookup_elem(&buckets, &b);
	if (n)
		__sync_fetch_and_add(n, 1);
	else
		__sync_fetch_and_add(&counts[ANALYSIS(key->analysis)].full_buckets, 1);
}

/* An event, to one analysis: the thread's pairing for it */
struct pairing {
	void					*ctx;
	const struct record			*record;
	const struct kvm_events_bpf_slot	*slot;
	struct kvm_events_bpf_thread		*thread;
	struct kvm_events_bpf_pairing		*state;
	__u32					analysis;
	__u32					kind;	/* if the slot's by_kind */
	__u32					slot_index;
	__u64					now;
};

/* Where analysis @a writes on this CPU: its bpf-output event's index */
static __u64 output_of(__u32 a)
{
	return (__u64)a * nr_cpus + bpf_get_smp_processor_id();
}

/* A REC_EVENT for a paired event of at least min_time_ns */
static void emit(const struct pairing *pr, const struct kvm_events_bpf_key *key, __u64 ns,
		 struct kvm_events_bpf_stats *st)
{
	struct kvm_events_bpf_counts *c = &counts[ANALYSIS(key->analysis)];
	struct kvm_events_bpf_rec_event rec = {
		.head.type = KVM_EVENTS_BPF_REC_EVENT,
		.key = *key, .ns = ns, .rip = pr->state->rip, .tid = pr->thread->tid,
	};

	if (!emit_records || ns < min_time_ns)
		return;
	__sync_fetch_and_add(&st->kept, 1);
	if (bpf_perf_event_output(pr->ctx, &records, output_of(key->analysis), &rec, sizeof(rec)))
		__sync_fetch_and_add(&c->lost_records, 1);
	else
		__sync_fetch_and_add(&c->kept, 1);
}

static struct kvm_events_bpf_stats *key_stats(const struct kvm_events_bpf_key *key)
{
	struct kvm_events_bpf_stats zero = { .min_ns = ~0ULL }, *st;

	st = bpf_map_lookup_elem(&keys, key);
	if (st)
		return st;
	bpf_map_update_elem(&keys, key, &zero, BPF_NOEXIST);
	return bpf_map_lookup_elem(&keys, key);
}

enum how { TIMED, NO_END, NO_BEGIN, UNTIMED };

/* A sample of @key, of @key->analysis, is resolved: timed with @ns, or why not. */
static void account(const struct pairing *pr, struct kvm_events_bpf_key *key,
		    enum how how, __u64 ns)
{
	struct kvm_events_bpf_counts *c = &counts[ANALYSIS(key->analysis)];
	struct kvm_events_bpf_stats *st;

	key->pid = pr->thread->pid;
	key->vcpu = pr->thread->vcpu;
	st = key_stats(key);
	if (!st) {
		__sync_fetch_and_add(&c->full_keys, 1);
		return;
	}
	__sync_fetch_and_add(&c->keyed, 1);
	__sync_fetch_and_add(&st->samples, 1);
	if (how == NO_END) {
		__sync_fetch_and_add(&st->no_end, 1);
		__sync_fetch_and_add(&c->no_end, 1);
	} else if (how == NO_BEGIN) {
		__sync_fetch_and_add(&st->no_begin, 1);
		__sync_fetch_and_add(&c->no_begin, 1);
	}
	if (how != TIMED)
		return;
	/* A key is one vcpu's: its thread alone writes min and max. */
	__sync_fetch_and_add(&st->timed, 1);
	__sync_fetch_and_add(&st->total_ns, ns);
	if (ns < st->min_ns)
		st->min_ns = ns;
	if (ns > st->max_ns)
		st->max_ns = ns;
	add_bucket(key, ns);
	emit(pr, key, ns, st);
}

/* The pending sample's end will never come. */
static void cut(const struct pairing *pr)
{
	struct kvm_events_bpf_pairing *p = pr->state;

	if (p->has_pending)
		account(pr, &p->pending, NO_END, 0);
	p->has_pending = 0;
	p->open = 0;
}

/* A new thread's value: too large for the stack, and never written */
const struct kvm_events_bpf_thread new_thread = {};

/* bpf_loop()'s: the thread's pairing for analysis @a, cut */
static long cut_analysis(__u64 a, const struct pairing *event)
{
	struct pairing pr = *event;

	pr.analysis = ANALYSIS(a);
	pr.state = &pr.thread->of[ANALYSIS(a)];
	cut(&pr);
	return 0;
}

/* Thread @tid of process @pid, found (@t) or not: its entry, made or renewed */
static struct kvm_events_bpf_thread *thread_of(void *ctx, struct kvm_events_bpf_thread *t,
					       __u32 tid, __u32 pid)
{
	if (t) {
		/* A new process reused the thread id. */
		if (t->pid != pid) {
			struct pairing pr = { .ctx = ctx, .thread = t };

			bpf_loop(nr_analyses, cut_analysis, &pr, 0);
			t->pid = pid;
			t->vcpu = KVM_EVENTS_BPF_NO_VCPU;
		}
		return t;
	}
	/* Only this thread, running here, makes or changes its entry. */
	bpf_map_update_elem(&threads, &tid, &new_thread, BPF_NOEXIST);
	t = bpf_map_lookup_elem(&threads, &tid);
	if (t) {
		t->pid = pid;
		t->tid = tid;
		t->vcpu = KVM_EVENTS_BPF_NO_VCPU;
	}
	return t;
}

static void read_key(const struct pairing *pr, struct kvm_events_bpf_key *key)
{
	const struct kvm_events_bpf_slot *s = pr->slot;

	key->analysis = pr->analysis;
	key->tp = s->tp;
	key->code = field(pr->record, &s->code);
	key->kind = field(pr->record, &s->kind);
	key->flag = field(pr->record, &s->flag);
	key->isa = s->isa.size ? field(pr->record, &s->isa) : s->fixed_isa;
}

/* A sample an event resolved, for account() */
struct outcome {
	struct kvm_events_bpf_key	key;
	__u64				ns;
	enum how			how;
	bool				resolved;
};

/* A begin, the sample pending cut before it: the new one waits for its end. */
static void begin(struct pairing *pr, bool keyed)
{
	struct kvm_events_bpf_pairing *p = pr->state;

	p->open = 1;
	p->begin_time = pr->now;
	if (pr->slot->rip.size)
		p->rip = field(pr->record, &pr->slot->rip);
	p->has_pending = keyed;
	if (keyed)
		read_key(pr, &p->pending);
	else
		__sync_fetch_and_add(&counts[pr->analysis].unused, 1);
}

/* An end: the sample it closes, into @out */
static void end(struct pairing *pr, bool keyed, struct outcome *out)
{
	struct kvm_events_bpf_pairing *p = pr->state;

	if (keyed) {
		/* It names its key (an MMIO read): timed from a keyless begin. */
		read_key(pr, &out->key);
		out->how = p->open ? TIMED : NO_BEGIN;
		out->ns = p->open ? pr->now - p->begin_time : 0;
		out->resolved = true;
	} else if (p->has_pending) {
		/* An end that only closes an interval is part of its pair. */
		__sync_fetch_and_add(&counts[pr->analysis].paired_end, 1);
		out->key = p->pending;
		out->how = TIMED;
		out->ns = pr->now - p->begin_time;
		out->resolved = true;
	} else {
		__sync_fetch_and_add(&counts[pr->analysis].unused, 1);
	}
	p->has_pending = 0;
	p->open = 0;
}

static void whole(struct pairing *pr, bool timed, struct outcome *out)
{
	read_key(pr, &out->key);
	out->how = timed ? TIMED : UNTIMED;
	out->ns = timed ? out->key.code : 0;
	out->resolved = true;
}

struct task_struct___kvm_events {
	struct task_struct___kvm_events *real_parent;
	int tgid;
} __attribute__((preserve_access_index));

/* The depth of the process tree below perf that counts as its workload's */
#define MAX_GENERATIONS	8

static bool descends_from_parent(void)
{
	struct task_struct___kvm_events *task = (void *)bpf_get_current_task();
	int i;

	for (i = 0; i < MAX_GENERATIONS; i++) {
		task = BPF_CORE_READ(task, real_parent);
		if (!task)
			return false;
		if (BPF_CORE_READ(task, tgid) == (int)parent_tgid)
			return true;
	}
	return false;
}

static bool watched(__u32 pid)
{
	__u8 *verdict, v;

	if (filter_pids)
		return bpf_map_lookup_elem(&pids, &pid);
	if (!filter_children)
		return true;
	verdict = bpf_map_lookup_elem(&verdicts, &pid);
	if (verdict)
		return *verdict == 1;
	v = descends_from_parent() ? 1 : 2;
	bpf_map_update_elem(&verdicts, &pid, &v, BPF_ANY);
	return v == 1;
}

/*
 * The role of the event to analysis @a, by its kind where the analysis
 * tells kinds apart; 0: none (a kvm_mmio of no data, to mmio)
 */
static __u8 role_of(const struct kvm_events_bpf_role_of *of, __u32 *kind)
{
	__u32 k = of->by_kind ? *kind : 0;

	if (k >= KVM_EVENTS_BPF_KINDS)
		return 0;
	/* The verifier wants the index bounded in the register it uses. */
	barrier_var(k);
	k &= KVM_EVENTS_BPF_KINDS - 1;
	*kind = k;
	return of->role[k];
}

/* The event, to analysis @a; the thread looked up on its first use */
/*
 * bpf_loop()'s: the event, to analysis @a.  A callback, not a loop of
 * the program's own, which the verifier would walk analysis by analysis
 * along every path through the last: past its million instructions.
 * It changes nothing of @event, so that the verifier's walks of it, one
 * per analysis, converge at once.
 */
static long pair_analysis(__u64 a, const struct pairing *event)
{
	const struct kvm_events_bpf_role_of *of = &event->slot->of[ANALYSIS(a)];
	struct kvm_events_bpf_counts *c = &counts[ANALYSIS(a)];
	struct pairing pr = *event;
	struct outcome out = {};
	__u32 kind = pr.kind;
	__u8 role = role_of(of, &kind);
	bool keyed;

	if (!role)
		return 0;
	__sync_fetch_and_add(&c->events[pr.slot_index & (KVM_EVENTS_BPF_MAX_SLOTS - 1)], 1);
	if (!pr.thread) {
		__sync_fetch_and_add(&c->full_threads, 1);
		return 0;
	}
	pr.analysis = ANALYSIS(a);
	pr.state = &pr.thread->of[ANALYSIS(a)];
	keyed = of->keyed[kind];
	/*
	 * A begin, or an end that names a key of its own, cuts the sample
	 * pending.  Then at most one sample is resolved: account() is
	 * inlined at two places, not six, for the verifier to walk.
	 */
	if (role == KVM_EVENTS_BPF_BEGIN ||
	    (role == KVM_EVENTS_BPF_END && keyed && pr.state->has_pending))
		cut(&pr);
	if (role == KVM_EVENTS_BPF_BEGIN)
		begin(&pr, keyed);
	else if (role == KVM_EVENTS_BPF_END)
		end(&pr, keyed, &out);
	else
		whole(&pr, of->whole_timed, &out);
	if (out.resolved)
		account(&pr, &out.key, out.how, out.ns);
	return 0;
}

static __always_inline void pair_event(void *ctx)
{
	__u64 id = bpf_get_current_pid_tgid(), slot = bpf_get_attach_cookie(ctx);
	__u32 tid = (__u32)id, pid = id >> 32;
	struct pairing pr = { .ctx = ctx };
	struct kvm_events_bpf_thread *t;
	struct record record = {};

	if (slot >= KVM_EVENTS_BPF_MAX_SLOTS)
		return;
	/*
	 * Only a watched process' threads have entries: the filter is asked
	 * for a thread without one, or of another process, only.
	 */
	t = bpf_map_lookup_elem(&threads, &tid);
	if (!t || t->pid != pid) {
		if (!watched(pid))
			return;
		t = thread_of(ctx, t, tid, pid);
	}
	pr.slot = &slots[slot];
	read_record(ctx, pr.slot, &record);
	pr.record = &record;
	pr.slot_index = slot;
	pr.thread = t;
	if (pr.slot->by_kind)
		pr.kind = field(&record, &pr.slot->kind);
	if (t && pr.slot->vcpu.size)
		t->vcpu = field(&record, &pr.slot->vcpu);
	/* One time for every analysis */
	pr.now = bpf_ktime_get_ns();
	bpf_loop(nr_analyses, pair_analysis, &pr, 0);
}

/*
 * A tracepoint program's return value decides whether the event goes on
 * to perf's other users of the tracepoint: 0 would drop it for every perf
 * record, perf kvm stat or perf trace on the host while live --use-bpf
 * runs.  So the program always lets it through.
 */
SEC("tracepoint")
int kvm_event(void *ctx)
{
	pair_event(ctx);
	return 1;
}

struct bpf_map;

struct dump_state {
	void	*ctx;
	__u64	output;
	__u32	analysis;
	__u32	dump;
	__u32	nr_keys;
	__u32	nr_buckets;
};

static long dump_key(struct bpf_map *map, struct kvm_events_bpf_key *key,
		     struct kvm_events_bpf_stats *st, struct dump_state *d)
{
	struct kvm_events_bpf_rec_key rec = {
		.head = { KVM_EVENTS_BPF_REC_KEY, d->dump }, .key = *key, .stats = *st,
	};

	if (key->analysis != d->analysis)
		return 0;
	bpf_perf_event_output(d->ctx, &records, d->output, &rec, sizeof(rec));
	d->nr_keys++;
	return 0;
}

/* A sample still open: as it stands, its end never came. */
static long dump_pending(struct bpf_map *map, __u32 *tid,
			 struct kvm_events_bpf_thread *t, struct dump_state *d)
{
	struct kvm_events_bpf_rec_key rec = {
		.head = { KVM_EVENTS_BPF_REC_KEY, d->dump },
		.stats = { .samples = 1, .no_end = 1, .min_ns = ~0ULL },
	};
	const struct kvm_events_bpf_pairing *p = &t->of[ANALYSIS(d->analysis)];

	if (!p->has_pending)
		return 0;
	rec.key = p->pending;
	rec.key.pid = t->pid;
	rec.key.vcpu = t->vcpu;
	bpf_perf_event_output(d->ctx, &records, d->output, &rec, sizeof(rec));
	d->nr_keys++;
	return 0;
}

static long dump_bucket(struct bpf_map *map, struct kvm_events_bpf_bucket *b,
			__u64 *count, struct dump_state *d)
{
	struct kvm_events_bpf_rec_bucket rec = {
		.head = { KVM_EVENTS_BPF_REC_BUCKET, d->dump }, .bucket = *b, .count = *count,
	};

	if (b->key.analysis != d->analysis)
		return 0;
	bpf_perf_event_output(d->ctx, &records, d->output, &rec, sizeof(rec));
	d->nr_buckets++;
	return 0;
}

/*
 * Run by user space (BPF_PROG_RUN), for the analysis of its one argument,
 * on the CPU it is on, whose bpf-output event of the analysis then holds
 * the dump in order.  A record the buffer had no room for leaves the dump
 * short of its count: the reader takes an earlier one.
 */
SEC("raw_tp")
int dump_maps(__u64 *ctx)
{
	struct dump_state d = { .ctx = ctx, .analysis = ANALYSIS(ctx[0]), .dump = ++dumps };
	struct kvm_events_bpf_rec_counts rec = {
		.head = { KVM_EVENTS_BPF_REC_COUNTS, d.dump },
	};
	int i;

	d.output = output_of(d.analysis);

	bpf_for_each_map_elem(&keys, dump_key, &d, 0);
	bpf_for_each_map_elem(&threads, dump_pending, &d, 0);
	bpf_for_each_map_elem(&buckets, dump_bucket, &d, 0);
	rec.counts = counts[d.analysis];
	for (i = 0; i < KVM_EVENTS_BPF_MAX_SLOTS; i++)
		rec.tp[i] = slots[i].tp;
	rec.min_time_ns = min_time_ns;
	rec.nr_keys = d.nr_keys;
	rec.nr_buckets = d.nr_buckets;
	__builtin_memcpy(rec.analysis, analysis_names[d.analysis], sizeof(rec.analysis));
	bpf_perf_event_output(ctx, &records, d.output, &rec, sizeof(rec));
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
