// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * perf kvm-events live --use-bpf: pairs each thread's begin and end
 * tracepoints in the kernel, and adds every duration to a histogram per
 * (VM, vcpu, key), so that nothing per event leaves the kernel.
 *
 * One program serves every analysis: the loader attaches it to each
 * tracepoint the analysis reads, with the index of that tracepoint's
 * slot as the attach cookie, and sets before load what each slot is
 * (begin, end or whole event) and where its fields are in the running
 * kernel's record.  The state machine is that of util/kvm-stat.c.
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

/* record --use-bpf: perf record's bpf-output event, one per CPU */
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
__u32 filter_pids;
/* Only perf record's workload and its children, as perf record's inherit */
__u32 filter_children;
__u32 parent_tgid;
__u32 emit_records;
__u64 min_time_ns;
char analysis[KVM_EVENTS_BPF_NAME_LEN];
__u32 dumps;

struct kvm_events_bpf_counts counts;

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
		__sync_fetch_and_add(&counts.full_buckets, 1);
}

/* A REC_EVENT for a paired event of at least min_time_ns */
static void emit(void *ctx, const struct kvm_events_bpf_key *key,
		 const struct kvm_events_bpf_thread *t, __u64 ns,
		 struct kvm_events_bpf_stats *st)
{
	struct kvm_events_bpf_rec_event rec = {
		.head.type = KVM_EVENTS_BPF_REC_EVENT,
		.key = *key, .ns = ns, .rip = t->rip, .tid = t->tid,
	};

	if (!emit_records || ns < min_time_ns)
		return;
	__sync_fetch_and_add(&st->kept, 1);
	if (bpf_perf_event_output(ctx, &records, BPF_F_CURRENT_CPU, &rec, sizeof(rec)))
		__sync_fetch_and_add(&counts.lost_records, 1);
	else
		__sync_fetch_and_add(&counts.kept, 1);
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

/* A sample of @key is resolved: timed with @ns, or why not. */
static void account(void *ctx, struct kvm_events_bpf_key *key,
		    const struct kvm_events_bpf_thread *t, enum how how, __u64 ns)
{
	struct kvm_events_bpf_stats *st;

	key->pid = t->pid;
	key->vcpu = t->vcpu;
	st = key_stats(key);
	if (!st) {
		__sync_fetch_and_add(&counts.full_keys, 1);
		return;
	}
	__sync_fetch_and_add(&counts.keyed, 1);
	__sync_fetch_and_add(&st->samples, 1);
	if (how == NO_END) {
		__sync_fetch_and_add(&st->no_end, 1);
		__sync_fetch_and_add(&counts.no_end, 1);
	} else if (how == NO_BEGIN) {
		__sync_fetch_and_add(&st->no_begin, 1);
		__sync_fetch_and_add(&counts.no_begin, 1);
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
	emit(ctx, key, t, ns, st);
}

/* The pending sample's end will never come. */
static void cut(void *ctx, struct kvm_events_bpf_thread *t)
{
	if (t->has_pending)
		account(ctx, &t->pending, t, NO_END, 0);
	t->has_pending = 0;
	t->open = 0;
}

static struct kvm_events_bpf_thread *thread_of(void *ctx, __u32 tid, __u32 pid)
{
	struct kvm_events_bpf_thread zero = {
		.pid = pid, .tid = tid, .vcpu = KVM_EVENTS_BPF_NO_VCPU,
	};
	struct kvm_events_bpf_thread *t = bpf_map_lookup_elem(&threads, &tid);

	if (t) {
		/* A new process reused the thread id. */
		if (t->pid != pid) {
			cut(ctx, t);
			t->pid = pid;
			t->vcpu = KVM_EVENTS_BPF_NO_VCPU;
		}
		return t;
	}
	bpf_map_update_elem(&threads, &tid, &zero, BPF_NOEXIST);
	return bpf_map_lookup_elem(&threads, &tid);
}

static void read_key(void *ctx, const struct kvm_events_bpf_slot *s,
		     struct kvm_events_bpf_key *key)
{
	key->tp = s->tp;
	key->code = field(ctx, &s->code);
	key->kind = field(ctx, &s->kind);
	key->flag = field(ctx, &s->flag);
	key->isa = s->isa.size ? field(ctx, &s->isa) : s->fixed_isa;
}

static void begin(void *ctx, const struct kvm_events_bpf_slot *s,
		  struct kvm_events_bpf_thread *t, bool keyed)
{
	cut(ctx, t);
	t->open = 1;
	t->begin_time = bpf_ktime_get_ns();
	if (s->rip.size)
		t->rip = field(ctx, &s->rip);
	if (keyed) {
		read_key(ctx, s, &t->pending);
		t->has_pending = 1;
	} else {
		__sync_fetch_and_add(&counts.unused, 1);
	}
}

static void end(void *ctx, const struct kvm_events_bpf_slot *s,
		struct kvm_events_bpf_thread *t, bool keyed)
{
	__u64 now = bpf_ktime_get_ns(), ns = now - t->begin_time;
	struct kvm_events_bpf_key key = {};

	if (!keyed) {
		/* An end that only closes an interval is part of its pair. */
		if (t->has_pending) {
			__sync_fetch_and_add(&counts.paired_end, 1);
			account(ctx, &t->pending, t, TIMED, ns);
		} else {
			__sync_fetch_and_add(&counts.unused, 1);
		}
		t->has_pending = 0;
		t->open = 0;
		return;
	}
	/* It names its key (an MMIO read): timed from a keyless begin. */
	read_key(ctx, s, &key);
	if (t->has_pending)
		cut(ctx, t);
	account(ctx, &key, t, t->open ? TIMED : NO_BEGIN, t->open ? ns : 0);
	t->open = 0;
}

static void whole(void *ctx, const struct kvm_events_bpf_slot *s,
		  struct kvm_events_bpf_thread *t)
{
	struct kvm_events_bpf_key key = {};

	read_key(ctx, s, &key);
	if (s->whole_timed)
		account(ctx, &key, t, TIMED, key.code);
	else
		account(ctx, &key, t, UNTIMED, 0);
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

static __always_inline void pair_event(void *ctx)
{
	__u64 id = bpf_get_current_pid_tgid(), slot = bpf_get_attach_cookie(ctx);
	__u32 tid = (__u32)id, pid = id >> 32, kind = 0;
	const struct kvm_events_bpf_slot *s;
	struct kvm_events_bpf_thread *t;
	__u8 role;

	if (slot >= KVM_EVENTS_BPF_MAX_SLOTS)
		return;
	s = &slots[slot];
	if (!watched(pid))
		return;
	/* An event of no role for the analysis (a kvm_mmio of no data) */
	if (s->by_kind)
		kind = field(ctx, &s->kind);
	if (kind >= KVM_EVENTS_BPF_KINDS)
		return;
	/* The verifier wants the index bounded in the register it uses. */
	barrier_var(kind);
	kind &= KVM_EVENTS_BPF_KINDS - 1;
	role = s->role[kind];
	if (!role)
		return;
	__sync_fetch_and_add(&counts.events[slot], 1);
	t = thread_of(ctx, tid, pid);
	if (!t) {
		__sync_fetch_and_add(&counts.full_threads, 1);
		return;
	}
	if (s->vcpu.size)
		t->vcpu = field(ctx, &s->vcpu);
	if (role == KVM_EVENTS_BPF_BEGIN)
		begin(ctx, s, t, s->keyed[kind]);
	else if (role == KVM_EVENTS_BPF_END)
		end(ctx, s, t, s->keyed[kind]);
	else
		whole(ctx, s, t);
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

	bpf_perf_event_output(d->ctx, &records, BPF_F_CURRENT_CPU, &rec, sizeof(rec));
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

	if (!t->has_pending)
		return 0;
	rec.key = t->pending;
	rec.key.pid = t->pid;
	rec.key.vcpu = t->vcpu;
	bpf_perf_event_output(d->ctx, &records, BPF_F_CURRENT_CPU, &rec, sizeof(rec));
	d->nr_keys++;
	return 0;
}

static long dump_bucket(struct bpf_map *map, struct kvm_events_bpf_bucket *b,
			__u64 *count, struct dump_state *d)
{
	struct kvm_events_bpf_rec_bucket rec = {
		.head = { KVM_EVENTS_BPF_REC_BUCKET, d->dump }, .bucket = *b, .count = *count,
	};

	bpf_perf_event_output(d->ctx, &records, BPF_F_CURRENT_CPU, &rec, sizeof(rec));
	d->nr_buckets++;
	return 0;
}

/*
 * Run by user space (BPF_PROG_RUN) on the CPU it is on, whose bpf-output
 * event then holds the dump in order.  A record the buffer had no room
 * for leaves the dump short of its count: the reader takes an earlier one.
 */
SEC("raw_tp")
int dump_maps(void *ctx)
{
	struct dump_state d = { .ctx = ctx, .dump = ++dumps };
	struct kvm_events_bpf_rec_counts rec = {
		.head = { KVM_EVENTS_BPF_REC_COUNTS, d.dump },
	};
	int i;

	bpf_for_each_map_elem(&keys, dump_key, &d, 0);
	bpf_for_each_map_elem(&threads, dump_pending, &d, 0);
	bpf_for_each_map_elem(&buckets, dump_bucket, &d, 0);
	rec.counts = counts;
	for (i = 0; i < KVM_EVENTS_BPF_MAX_SLOTS; i++)
		rec.tp[i] = slots[i].tp;
	rec.min_time_ns = min_time_ns;
	rec.nr_keys = d.nr_keys;
	rec.nr_buckets = d.nr_buckets;
	__builtin_memcpy(rec.analysis, analysis, sizeof(rec.analysis));
	bpf_perf_event_output(ctx, &records, BPF_F_CURRENT_CPU, &rec, sizeof(rec));
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
