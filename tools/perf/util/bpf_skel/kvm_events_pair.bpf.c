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

/* A field of the tracepoint's record, zero-extended as perf reads it */
static __u64 field(void *ctx, const struct kvm_events_bpf_field *f)
{
	void *p = ctx + f->offset;
	__u64 v64 = 0;
	__u32 v32 = 0;
	__u16 v16 = 0;
	__u8 v8 = 0;

	/* Its own bytes only, typed: none past the record, in any byte order */
	switch (f->size) {
	case 1:
		bpf_probe_read_kernel(&v8, 1, p);
		return v8;
	case 2:
		bpf_probe_read_kernel(&v16, 2, p);
		return v16;
	case 4:
		bpf_probe_read_kernel(&v32, 4, p);
		return v32;
	case 8:
		bpf_probe_read_kernel(&v64, 8, p);
		return v64;
	default:
		return 0;
	}
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

static struct kvm_events_bpf_thread *thread_of(void *ctx, __u32 tid, __u32 pid)
{
	struct kvm_events_bpf_thread *t = bpf_map_lookup_elem(&threads, &tid);

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

static void read_key(void *ctx, const struct kvm_events_bpf_slot *s, __u32 a,
		     struct kvm_events_bpf_key *key)
{
	key->analysis = a;
	key->tp = s->tp;
	key->code = field(ctx, &s->code);
	key->kind = field(ctx, &s->kind);
	key->flag = field(ctx, &s->flag);
	key->isa = s->isa.size ? field(ctx, &s->isa) : s->fixed_isa;
}


static void begin(struct pairing *pr, bool keyed)
{
	struct kvm_events_bpf_pairing *p = pr->state;

	cut(pr);
	p->open = 1;
	p->begin_time = pr->now;
	if (pr->slot->rip.size)
		p->rip = field(pr->ctx, &pr->slot->rip);
	if (keyed) {
		read_key(pr->ctx, pr->slot, pr->analysis, &p->pending);
		p->has_pending = 1;
	} else {
		__sync_fetch_and_add(&counts[pr->analysis].unused, 1);
	}
}

static void end(struct pairing *pr, bool keyed)
{
	struct kvm_events_bpf_pairing *p = pr->state;
	__u64 ns = pr->now - p->begin_time;
	struct kvm_events_bpf_key key = {};

	if (!keyed) {
		/* An end that only closes an interval is part of its pair. */
		if (p->has_pending) {
			__sync_fetch_and_add(&counts[pr->analysis].paired_end, 1);
			account(pr, &p->pending, TIMED, ns);
		} else {
			__sync_fetch_and_add(&counts[pr->analysis].unused, 1);
		}
		p->has_pending = 0;
		p->open = 0;
		return;
	}
	/* It names its key (an MMIO read): timed from a keyless begin. */
	read_key(pr->ctx, pr->slot, pr->analysis, &key);
	if (p->has_pending)
		cut(pr);
	account(pr, &key, p->open ? TIMED : NO_BEGIN, p->open ? ns : 0);
	p->open = 0;
}

static void whole(struct pairing *pr, bool timed)
{
	struct kvm_events_bpf_key key = {};

	read_key(pr->ctx, pr->slot, pr->analysis, &key);
	if (timed)
		account(pr, &key, TIMED, key.code);
	else
		account(pr, &key, UNTIMED, 0);
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
	__u32 kind = pr.kind;
	__u8 role = role_of(of, &kind);

	if (!role)
		return 0;
	__sync_fetch_and_add(&c->events[pr.slot_index & (KVM_EVENTS_BPF_MAX_SLOTS - 1)], 1);
	if (!pr.thread) {
		__sync_fetch_and_add(&c->full_threads, 1);
		return 0;
	}
	pr.analysis = ANALYSIS(a);
	pr.state = &pr.thread->of[ANALYSIS(a)];
	if (role == KVM_EVENTS_BPF_BEGIN)
		begin(&pr, of->keyed[kind]);
	else if (role == KVM_EVENTS_BPF_END)
		end(&pr, of->keyed[kind]);
	else
		whole(&pr, of->whole_timed);
	return 0;
}

static __always_inline void pair_event(void *ctx)
{
	__u64 id = bpf_get_current_pid_tgid(), slot = bpf_get_attach_cookie(ctx);
	struct pairing pr = { .ctx = ctx };

	if (slot >= KVM_EVENTS_BPF_MAX_SLOTS)
		return;
	pr.slot = &slots[slot];
	pr.slot_index = slot;
	if (!watched(id >> 32))
		return;
	if (pr.slot->by_kind)
		pr.kind = field(ctx, &pr.slot->kind);
	/* One thread lookup and one time for every analysis */
	pr.thread = thread_of(ctx, (__u32)id, id >> 32);
	if (pr.thread && pr.slot->vcpu.size)
		pr.thread->vcpu = field(ctx, &pr.slot->vcpu);
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
