/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
#ifndef __PERF_BPF_SKEL_KVM_EVENTS_PAIR_H
#define __PERF_BPF_SKEL_KVM_EVENTS_PAIR_H

/*
 * What kvm_events_pair.bpf.c and its loader, util/bpf-kvm-events.c, share: the
 * configuration of the tracepoints the program is attached to, and the
 * layout of its maps.  The program pairs each thread's begin and end
 * events in the kernel; what makes a key of them is left to user space,
 * which hands the raw fields of the keyed event to the analysis' own
 * begin(), end() or whole().
 */

/* Tracepoints one program can be attached to, each with its cookie */
#define KVM_EVENTS_BPF_MAX_SLOTS	16

/*
 * The analyses one program pairs at once (record --use-bpf's --event):
 * a power of two, which the program masks its index with
 */
#define KVM_EVENTS_BPF_MAX_ANALYSES	8

#define KVM_EVENTS_BPF_NO_VCPU		0xffffffffU

/* The buckets of util/latency-dist.c: 2^7 per power of two */
#define KVM_EVENTS_BPF_SUB_BITS		7

enum kvm_events_bpf_role {
	KVM_EVENTS_BPF_BEGIN = 1,
	KVM_EVENTS_BPF_END,
	KVM_EVENTS_BPF_WHOLE,	/* an event the kernel timed itself */
};

/*
 * The most of a tracepoint's record the program reads, in 8-byte words:
 * the kvm events' fields all lie within them.
 */
#define KVM_EVENTS_BPF_RECORD_WORDS	10

/* Where a field of the tracepoint's record is; size 0: not there */
struct kvm_events_bpf_field {
	__u16	offset;
	__u16	size;	/* 1, 2, 4 or 8 */
};

/*
 * The kinds a slot can tell apart: an analysis may give a tracepoint a
 * role by its kind field (kvm_mmio begins when it writes, ends when it
 * reads), and a program is attached to a tracepoint only once.
 */
#define KVM_EVENTS_BPF_KINDS		4

/* What one analysis makes of a slot's events */
struct kvm_events_bpf_role_of {
	__u8	role[KVM_EVENTS_BPF_KINDS];	/* enum kvm_events_bpf_role, 0: none */
	__u8	keyed[KVM_EVENTS_BPF_KINDS];	/* its event is a sample of a key */
	__u8	by_kind;	/* role[kind], keyed[kind]; else [0] for all */
	__u8	whole_timed;	/* WHOLE: the duration is the code field */
	__u8	pad[2];
};

/*
 * One attached tracepoint: its cookie indexes slots[].  Where its fields
 * are is the tracepoint's; what it is, each analysis' (of[analysis]), so
 * that one run of the program serves every analysis that reads it.
 */
struct kvm_events_bpf_slot {
	__u32	tp;		/* what user space calls it, kept in keys */
	__u32	fixed_isa;	/* where there is no isa field */
	__u32	by_kind;	/* an analysis tells its kinds apart */
	__u32	record_size;	/* the bytes its fields take */
	struct kvm_events_bpf_field code, kind, isa, flag, vcpu, rip;
	struct kvm_events_bpf_role_of of[KVM_EVENTS_BPF_MAX_ANALYSES];
};

/* The event that names a key, in a VM's vcpu: what user space keys on */
struct kvm_events_bpf_key {
	__u32	pid;
	__u32	vcpu;
	__u64	code;
	__u32	kind;
	__u32	flag;
	__u32	tp;
	__u32	isa;
	__u32	analysis;	/* the program's index of it */
	__u32	pad;
};

struct kvm_events_bpf_stats {
	__u64	samples;	/* every sample of the key */
	__u64	timed;		/* of those, the paired ones */
	__u64	total_ns;
	__u64	min_ns;
	__u64	max_ns;
	__u64	no_end;		/* its end never came: another begin did */
	__u64	no_begin;	/* an end that names it, without a begin */
	__u64	kept;		/* timed ones of at least min_time_ns: recorded */
};

/* One log-linear bucket of a key's durations */
struct kvm_events_bpf_bucket {
	struct kvm_events_bpf_key	key;
	__u32				bucket;
	__u32				pad;
};

/* One analysis' pairing state of a thread */
struct kvm_events_bpf_pairing {
	__u64				begin_time;
	__u64				rip;		/* the guest's, at the begin */
	struct kvm_events_bpf_key	pending;	/* the open keyed sample */
	__u32				open;		/* an interval has begun */
	__u32				has_pending;	/* ...for pending */
};

/* A thread: looked up once per event for every analysis */
struct kvm_events_bpf_thread {
	__u32				pid;
	__u32				tid;
	__u32				vcpu;
	__u32				pad;
	struct kvm_events_bpf_pairing	of[KVM_EVENTS_BPF_MAX_ANALYSES];
};

/*
 * What the program counts outside the keys, per analysis, in its .bss:
 * nothing is dropped without a count.
 */
struct kvm_events_bpf_counts {
	__u64	events[KVM_EVENTS_BPF_MAX_SLOTS];	/* taken, per slot */
	__u64	keyed;		/* samples of a key */
	__u64	paired_end;	/* ends that closed a keyed sample */
	__u64	unused;		/* events that counted for nothing */
	__u64	no_end;
	__u64	no_begin;
	__u64	full_threads;	/* events of a thread the map had no room for */
	__u64	full_keys;	/* samples of a key the map had no room for */
	__u64	full_buckets;	/* durations without room in the histogram */
	__u64	kept;		/* record: events written */
	__u64	lost_records;	/* ...and not, the buffer being full */
};

/*
 * record --use-bpf: what the program writes into the bpf-output event
 * of each analysis that perf record records (the records map holds them
 * by analysis, then CPU).  Each paired event of at least min_time_ns
 * is one REC_EVENT.  The maps are written whole, as a dump, at intervals
 * and at the end: a REC_KEY per key (and per sample still open, as one
 * without an end), a REC_BUCKET per bucket, then a REC_COUNTS that says
 * how many of each the dump has, so that a reader can tell a whole dump
 * from one cut short.  Dumps are cumulative: the last whole one is all.
 */
/* The name of an analysis' bpf-output event: this prefix, then its name */
#define KVM_EVENTS_BPF_EVENT_PREFIX	"kvm_events_"
#define KVM_EVENTS_BPF_NAME_LEN		16

enum kvm_events_bpf_rec_type {
	KVM_EVENTS_BPF_REC_EVENT = 1,
	KVM_EVENTS_BPF_REC_KEY,
	KVM_EVENTS_BPF_REC_BUCKET,
	KVM_EVENTS_BPF_REC_COUNTS,
};

struct kvm_events_bpf_rec_head {
	__u32	type;
	__u32	dump;	/* the dump's number, from 1; 0 for an event */
};

struct kvm_events_bpf_rec_event {
	struct kvm_events_bpf_rec_head	head;
	struct kvm_events_bpf_key	key;
	__u64				ns;	/* it ended at the sample's time */
	__u64				rip;
	__u32				tid;
	__u32				pad;
};

struct kvm_events_bpf_rec_key {
	struct kvm_events_bpf_rec_head	head;
	struct kvm_events_bpf_key	key;
	struct kvm_events_bpf_stats	stats;
};

struct kvm_events_bpf_rec_bucket {
	struct kvm_events_bpf_rec_head	head;
	struct kvm_events_bpf_bucket	bucket;
	__u64				count;
};

struct kvm_events_bpf_rec_counts {
	struct kvm_events_bpf_rec_head	head;
	struct kvm_events_bpf_counts	counts;
	__u32				tp[KVM_EVENTS_BPF_MAX_SLOTS];	/* each slot's */
	__u64				min_time_ns;
	__u32				nr_keys;	/* the dump's REC_KEYs */
	__u32				nr_buckets;
	/* Its analysis: a killed perf record did not name its events */
	char				analysis[KVM_EVENTS_BPF_NAME_LEN];
};

/* The bucket of @ns: as latency-dist.c's octave * 2^SUB_BITS + sub */
static inline __u32 kvm_events_bpf_bucket_of(__u64 ns)
{
	__u32 bits = 0;
	__u64 v = ns;

	if (ns < (1ULL << KVM_EVENTS_BPF_SUB_BITS))
		return ns;
	if (v >> 32) {
		bits += 32;
		v >>= 32;
	}
	if (v >> 16) {
		bits += 16;
		v >>= 16;
	}
	if (v >> 8) {
		bits += 8;
		v >>= 8;
	}
	if (v >> 4) {
		bits += 4;
		v >>= 4;
	}
	if (v >> 2) {
		bits += 2;
		v >>= 2;
	}
	if (v >> 1)
		bits += 1;
	return ((bits - KVM_EVENTS_BPF_SUB_BITS + 1) << KVM_EVENTS_BPF_SUB_BITS) |
	       ((ns >> (bits - KVM_EVENTS_BPF_SUB_BITS)) &
		((1U << KVM_EVENTS_BPF_SUB_BITS) - 1));
}

#endif /* __PERF_BPF_SKEL_KVM_EVENTS_PAIR_H */
