// SPDX-License-Identifier: GPL-2.0
/*
 * perf kvm-events live --use-bpf: loads util/bpf_skel/kvm_events_pair.bpf.c,
 * configured for one analysis (or, for record --use-bpf, several) from
 * the running kernel's tracepoint formats, and reads its maps into a
 * report.
 *
 * What each tracepoint is to the analysis (begin, end or a whole event,
 * and whether it names a key) is asked of the analysis' own ops, and the
 * keys are made by them from the raw fields the kernel kept: the program
 * knows nothing of any analysis, and adding one needs nothing here.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <traceevent/event-parse.h>
#include <linux/err.h>
#include <linux/kernel.h>
#include <linux/zalloc.h>

#include "debug.h"
#include "intlist.h"
#include "kvm-events.h"
#include "kvm-events-analysis.h"
#include "kvm-events-bpf-recording.h"
#include "trace-event.h"
#include "bpf-kvm-events.h"
#include "bpf_skel/kvm_events_pair.skel.h"

/* The pids map's room: -p's list, or a workload */
#define MAX_PIDS	64

struct kvm_events_bpf {
	struct kvm_events_pair_bpf	*skel;
	struct bpf_link			*links[KVM_EVENTS_BPF_MAX_SLOTS];
	/* Each slot's tracepoint, to attach to */
	char				sys[KVM_EVENTS_BPF_MAX_SLOTS][32];
	char				name[KVM_EVENTS_BPF_MAX_SLOTS][64];
	u32				nr_slots;
	u32				nr_analyses;
	u32				slot_analyses;	/* 1 + the last with a role in a slot */
	u32				nr_cpus;	/* possible: the records map's stride */
	pid_t				pids[MAX_PIDS];
	u32				nr_pids;
};

struct kvm_events_bpf *kvm_events_bpf__new(u32 map_entries)
{
	struct kvm_events_bpf *bpf = zalloc(sizeof(*bpf));
	struct kvm_events_pair_bpf *skel;

	if (!bpf)
		return NULL;
	skel = kvm_events_pair_bpf__open();
	if (!skel) {
		pr_err("perf kvm-events: --use-bpf: cannot open the BPF program: %s\n",
		       strerror(errno));
		free(bpf);
		return NULL;
	}
	bpf->skel = skel;
	bpf->nr_cpus = libbpf_num_possible_cpus();
	bpf_map__set_max_entries(skel->maps.records,
				 KVM_EVENTS_BPF_MAX_ANALYSES * bpf->nr_cpus);
	bpf_map__set_max_entries(skel->maps.threads, map_entries);
	bpf_map__set_max_entries(skel->maps.keys, map_entries);
	bpf_map__set_max_entries(skel->maps.buckets,
				 map_entries * KVM_EVENTS_BPF_BUCKETS_PER_KEY);
	return bpf;
}

void kvm_events_bpf__delete(struct kvm_events_bpf *bpf)
{
	u32 i;

	if (!bpf)
		return;
	for (i = 0; i < bpf->nr_slots; i++)
		bpf_link__destroy(bpf->links[i]);
	kvm_events_pair_bpf__destroy(bpf->skel);
	free(bpf);
}

static void set_field(struct kvm_events_bpf_field *out, struct kvm_events_field_at at)
{
	out->offset = at.offset;
	out->size = at.size;
}

/* Whether the program reads the field: one of its record's words, in one piece */
static bool field_readable(struct kvm_events_field_at at)
{
	if (!at.size)
		return true;
	if (at.size != 1 && at.size != 2 && at.size != 4 && at.size != 8)
		return false;
	return at.offset % at.size == 0 &&
	       at.offset + at.size <= KVM_EVENTS_BPF_RECORD_WORDS * 8;
}

/*
 * The bytes of the record the program reads, up to its last field's end;
 * -EINVAL if a field is not one it reads
 */
static int record_size(const struct kvm_events_decoder *dec)
{
	const struct kvm_events_field_at at[] = {
		dec->code_at, dec->kind_at, dec->isa_at, dec->flag_at, dec->vcpu_at, dec->rip_at,
	};
	u32 i, end = 0;

	for (i = 0; i < ARRAY_SIZE(at); i++) {
		if (!field_readable(at[i]))
			return -EINVAL;
		if (at[i].size)
			end = max(end, (u32)(at[i].offset + at[i].size));
	}
	return end;
}

/* The slot of @event, added if no analysis read it before */
static struct kvm_events_bpf_slot *slot_of(struct kvm_events_bpf *bpf,
					   struct tep_event *event,
					   const struct kvm_events_decoder *dec)
{
	struct kvm_events_bpf_slot *s;
	int size;
	u32 i;

	for (i = 0; i < bpf->nr_slots; i++) {
		if (!strcmp(bpf->sys[i], event->system) && !strcmp(bpf->name[i], event->name))
			return &bpf->skel->bss->slots[i];
	}
	if (bpf->nr_slots == KVM_EVENTS_BPF_MAX_SLOTS) {
		pr_err("perf kvm-events: --use-bpf: more than %d tracepoints\n",
		       KVM_EVENTS_BPF_MAX_SLOTS);
		return ERR_PTR(-E2BIG);
	}
	size = record_size(dec);
	if (size < 0) {
		pr_err("perf kvm-events: --use-bpf: %s:%s: a field past its first %d bytes, or unaligned: this kernel's format is not one the program reads\n",
		       event->system, event->name, KVM_EVENTS_BPF_RECORD_WORDS * 8);
		return ERR_PTR(-EINVAL);
	}
	s = &bpf->skel->bss->slots[bpf->nr_slots];
	s->tp = dec->tp;
	set_field(&s->code, dec->code_at);
	set_field(&s->kind, dec->kind_at);
	set_field(&s->isa, dec->isa_at);
	set_field(&s->flag, dec->flag_at);
	set_field(&s->vcpu, dec->vcpu_at);
	set_field(&s->rip, dec->rip_at);
	s->fixed_isa = dec->fixed_isa;
	s->record_size = size;
	snprintf(bpf->sys[bpf->nr_slots], sizeof(bpf->sys[0]), "%s", event->system);
	snprintf(bpf->name[bpf->nr_slots], sizeof(bpf->name[0]), "%s", event->name);
	bpf->nr_slots++;
	return s;
}

/* What @slot's analyses make of @event, beside those already reading it */
int kvm_events_bpf__add_slot(struct kvm_events_bpf *bpf, struct tep_event *event,
			     const struct kvm_events_bpf_slot *slot,
			     const struct kvm_events_decoder *dec)
{
	struct kvm_events_bpf_slot *s = slot_of(bpf, event, dec);
	u32 a, kind;

	if (IS_ERR(s))
		return PTR_ERR(s);
	for (a = 0; a < KVM_EVENTS_BPF_MAX_ANALYSES; a++) {
		for (kind = 0; kind < KVM_EVENTS_BPF_KINDS; kind++) {
			if (slot->of[a].role[kind]) {
				s->of[a] = slot->of[a];
				s->by_kind |= slot->of[a].by_kind;
				bpf->slot_analyses = max(bpf->slot_analyses, a + 1);
				break;
			}
		}
	}
	return 0;
}

u32 kvm_events_bpf__nr_slots(const struct kvm_events_bpf *bpf)
{
	return bpf->nr_slots;
}

const struct kvm_events_bpf_slot *kvm_events_bpf__slot(const struct kvm_events_bpf *bpf,
						       u32 i)
{
	return &bpf->skel->bss->slots[i];
}

/* An arbitrary code, to tell whole()'s duration from KVM_EVENTS_NO_TIME */
#define PROBE_CODE	12345

/* What @analysis makes of an event of tracepoint @tp whose kind is @kind */
static void probe_role(const struct kvm_events_analysis *analysis, u32 tp,
		       struct kvm_events_bpf_role_of *of, u32 kind)
{
	struct kvm_events_sample s = {
		.tp = tp, .kind = kind, .code = PROBE_CODE, .flag = 1,
		.vcpu = KVM_EVENTS_NO_VCPU,
	};
	u64 key, ns;

	if (analysis->begin(&s, &key))
		of->role[kind] = KVM_EVENTS_BPF_BEGIN;
	else if (analysis->end(&s, &key))
		of->role[kind] = KVM_EVENTS_BPF_END;
	else if (analysis->whole && analysis->whole(&s, &key, &ns))
		of->role[kind] = KVM_EVENTS_BPF_WHOLE;
	else
		return;
	of->keyed[kind] = key != KVM_EVENTS_NO_KEY;
	if (of->role[kind] == KVM_EVENTS_BPF_WHOLE)
		of->whole_timed = ns == PROBE_CODE;
}

/*
 * The slot of tracepoint @event for @analysis, the program's analysis
 * @a, if it has a role: its role by kind where the analysis tells kinds
 * apart (mmio's type is the only such use, with kinds 1 and 2).
 */
static int add_tracepoint(struct kvm_events_bpf *bpf, u32 a,
			  const struct kvm_events_analysis *analysis,
			  struct tep_event *event, const struct kvm_events_decoder *dec)
{
	struct kvm_events_bpf_slot slot = { .tp = dec->tp };
	struct kvm_events_bpf_role_of *of = &slot.of[a];
	bool any = false;
	u32 kind;

	for (kind = 0; kind < KVM_EVENTS_BPF_KINDS; kind++) {
		probe_role(analysis, dec->tp, of, kind);
		any |= of->role[kind];
		of->by_kind |= of->role[kind] != of->role[0] ||
			       of->keyed[kind] != of->keyed[0];
	}
	if (!any)
		return 0;
	return kvm_events_bpf__add_slot(bpf, event, &slot, dec);
}

/* Room for the names of one tracepoint role, over every architecture */
#define MAX_NAMES	16

/*
 * BIT(tp) of the tracepoints of @analysis that this kernel has, into
 * *@found, each given a slot of @bpf unless it is NULL
 */
static int analysis_tracepoints(struct kvm_events_bpf *bpf,
				const struct kvm_events_analysis *analysis, u32 *found)
{
	u32 tps = analysis->record_tps ?: analysis->tps, tp;
	const char *names[MAX_NAMES];
	size_t i, nr;

	for (tp = 0; tp < KVM_TP__NR; tp++) {
		if (!(tps & BIT(tp)))
			continue;
		nr = kvm_events_tracepoints(BIT(tp), names, MAX_NAMES);
		for (i = 0; i < nr; i++) {
			char sys[64], *name;
			struct kvm_events_decoder dec;
			struct tep_event *event;
			int err;

			snprintf(sys, sizeof(sys), "%s", names[i]);
			name = strchr(sys, ':');
			if (!name)
				continue;
			*name++ = '\0';
			event = trace_event__tp_format(sys, name);
			if (IS_ERR_OR_NULL(event))
				continue;	/* not this kernel's */
			if (kvm_events_decoder__init(&dec, event))
				return -EINVAL;
			err = bpf ? add_tracepoint(bpf, bpf->nr_analyses, analysis, event,
						   &dec) : 0;
			if (err)
				return err;
			*found |= BIT(dec.tp);
		}
	}
	return 0;
}

bool kvm_events_bpf__kernel_has(const struct kvm_events_analysis *analysis)
{
	u32 found = 0;

	return !analysis_tracepoints(NULL, analysis, &found) &&
	       (found & analysis->needs) == analysis->needs;
}

int kvm_events_bpf__add_analysis(struct kvm_events_bpf *bpf,
				 const struct kvm_events_analysis *analysis)
{
	u32 found = 0;
	int err;

	if (bpf->nr_analyses == KVM_EVENTS_BPF_MAX_ANALYSES) {
		pr_err("perf kvm-events: --use-bpf: more than %d analyses\n",
		       KVM_EVENTS_BPF_MAX_ANALYSES);
		return -E2BIG;
	}
	err = analysis_tracepoints(bpf, analysis, &found);
	if (err)
		return err;
	if ((found & analysis->needs) != analysis->needs) {
		pr_err("perf kvm-events: --use-bpf --event %s: this kernel has no %s tracepoint (is the kvm module loaded?)\n",
		       analysis->name,
		       kvm_tp_role__name(__builtin_ctz(analysis->needs & ~found)));
		return -ENOENT;
	}
	snprintf(bpf->skel->bss->analysis_names[bpf->nr_analyses],
		 KVM_EVENTS_BPF_NAME_LEN, "%s", analysis->name);
	bpf->nr_analyses++;
	return 0;
}

int kvm_events_bpf__add_pid(struct kvm_events_bpf *bpf, pid_t pid)
{
	if (bpf->nr_pids == MAX_PIDS) {
		pr_err("perf kvm-events: --use-bpf: more than %d processes\n", MAX_PIDS);
		return -E2BIG;
	}
	bpf->pids[bpf->nr_pids++] = pid;
	return 0;
}

int kvm_events_bpf__add_pids(struct kvm_events_bpf *bpf, const char *list)
{
	const char *p = list;

	while (*p) {
		char *end;
		long pid = strtol(p, &end, 10);

		if (end == p || pid <= 0 || pid > INT_MAX || (*end && *end != ',')) {
			pr_err("perf kvm-events: -p %s: not a list of process ids\n", list);
			return -EINVAL;
		}
		if (kvm_events_bpf__add_pid(bpf, pid))
			return -E2BIG;
		p = *end ? end + 1 : end;
	}
	return 0;
}

int kvm_events_bpf__attach(struct kvm_events_bpf *bpf)
{
	LIBBPF_OPTS(bpf_tracepoint_opts, opts);
	u32 i;

	for (i = 0; i < bpf->nr_slots; i++) {
		/* The cookie tells the program which slot fired. */
		opts.bpf_cookie = i;
		bpf->links[i] = bpf_program__attach_tracepoint_opts(bpf->skel->progs.kvm_event,
								    bpf->sys[i], bpf->name[i],
								    &opts);
		if (!bpf->links[i]) {
			int err = -errno;

			pr_err("perf kvm-events: --use-bpf: cannot attach to %s:%s: %s\n",
			       bpf->sys[i], bpf->name[i], strerror(-err));
			return err;
		}
	}
	return 0;
}

int kvm_events_bpf__load(struct kvm_events_bpf *bpf)
{
	struct kvm_events_pair_bpf *skel = bpf->skel;
	int err, fd;
	u8 one = 1;
	u32 i;

	if (!bpf->nr_slots) {
		pr_err("perf kvm-events: --use-bpf: no tracepoint to attach to\n");
		return -ENOENT;
	}
	skel->bss->filter_pids = bpf->nr_pids > 0;
	/* The tests' slots are made without an analysis' ops. */
	skel->bss->nr_analyses = max(bpf->nr_analyses, bpf->slot_analyses);
	skel->bss->nr_cpus = bpf->nr_cpus;
	bpf_map__set_max_entries(skel->maps.pids, bpf->nr_pids ?: 1);
	err = kvm_events_pair_bpf__load(skel);
	if (err) {
		pr_err("perf kvm-events: --use-bpf: cannot load the BPF program: %s (it needs root, or CAP_BPF and CAP_PERFMON, and Linux 5.17 or later)\n",
		       strerror(-err));
		return err;
	}
	fd = bpf_map__fd(skel->maps.pids);
	for (i = 0; i < bpf->nr_pids; i++) {
		u32 pid = bpf->pids[i];

		if (bpf_map_update_elem(fd, &pid, &one, BPF_ANY))
			return -errno;
	}
	return 0;
}

int kvm_events_bpf__start(struct kvm_events_bpf *bpf)
{
	return kvm_events_bpf__load(bpf) ?: kvm_events_bpf__attach(bpf);
}

void kvm_events_bpf__detach(struct kvm_events_bpf *bpf)
{
	u32 i;

	for (i = 0; i < bpf->nr_slots; i++) {
		bpf_link__destroy(bpf->links[i]);
		bpf->links[i] = NULL;
	}
}

void kvm_events_bpf__set_records(struct kvm_events_bpf *bpf, u64 min_time_ns)
{
	bpf->skel->bss->emit_records = 1;
	bpf->skel->bss->min_time_ns = min_time_ns;
}

void kvm_events_bpf__filter_children(struct kvm_events_bpf *bpf, pid_t parent)
{
	bpf->skel->bss->parent_tgid = parent;
	bpf->skel->bss->filter_children = 1;
}

int kvm_events_bpf__set_output(struct kvm_events_bpf *bpf, u32 analysis, int cpu, int fd)
{
	u32 i = analysis * bpf->nr_cpus + cpu;

	if (analysis >= bpf->nr_analyses || cpu < 0 || (u32)cpu >= bpf->nr_cpus)
		return -EINVAL;
	if (bpf_map__update_elem(bpf->skel->maps.records, &i, sizeof(i), &fd,
				 sizeof(fd), BPF_ANY))
		return -errno;
	return 0;
}

int kvm_events_bpf__dump(struct kvm_events_bpf *bpf, u32 analysis)
{
	/* dump_maps()'s one argument */
	u64 args[1] = { analysis };

	LIBBPF_OPTS(bpf_test_run_opts, opts, .ctx_in = args, .ctx_size_in = sizeof(args));
	if (bpf_prog_test_run_opts(bpf_program__fd(bpf->skel->progs.dump_maps), &opts))
		return -errno;
	return 0;
}

static int read_keys(struct kvm_events_bpf *bpf, struct kvm_events_report *report)
{
	int fd = bpf_map__fd(bpf->skel->maps.keys);
	struct kvm_events_bpf_key k, *prev = NULL;
	struct kvm_events_bpf_stats st;

	while (!bpf_map_get_next_key(fd, prev, &k)) {
		if (!bpf_map_lookup_elem(fd, &k, &st))
			kvm_events_bpf__add_stats(report, &k, &st);
		prev = &k;
	}
	return 0;
}

static int read_buckets(struct kvm_events_bpf *bpf, struct kvm_events_report *report)
{
	int fd = bpf_map__fd(bpf->skel->maps.buckets);
	struct kvm_events_bpf_bucket b, *prev = NULL;
	u64 count;

	while (!bpf_map_get_next_key(fd, prev, &b)) {
		if (!bpf_map_lookup_elem(fd, &b, &count))
			kvm_events_bpf__add_bucket(report, &b, count);
		prev = &b;
	}
	return 0;
}

/* Samples still open at the end: their end never came. */
static void read_pending(struct kvm_events_bpf *bpf, struct kvm_events_report *report)
{
	int fd = bpf_map__fd(bpf->skel->maps.threads);
	struct kvm_events_bpf_thread t;
	u32 tid, *prev = NULL;

	while (!bpf_map_get_next_key(fd, prev, &tid)) {
		/* live's one analysis */
		struct kvm_events_bpf_pairing *p = &t.of[0];

		if (!bpf_map_lookup_elem(fd, &tid, &t) && p->has_pending) {
			struct kvm_events_bpf_stats st = { .samples = 1, .no_end = 1 };

			p->pending.pid = t.pid;
			p->pending.vcpu = t.vcpu;
			kvm_events_bpf__add_stats(report, &p->pending, &st);
		}
		prev = &tid;
	}
}

void kvm_events_bpf__counts(struct kvm_events_bpf *bpf, u32 analysis,
			    struct kvm_events_bpf_counts *counts)
{
	/* The .bss is mmapped: the program's counts as they are now. */
	*counts = bpf->skel->bss->counts[analysis % KVM_EVENTS_BPF_MAX_ANALYSES];
}

int kvm_events_bpf__read(struct kvm_events_bpf *bpf,
			 struct kvm_events_report *report, bool final)
{
	struct kvm_events_bpf_counts c;
	__u32 tps[KVM_EVENTS_BPF_MAX_SLOTS];
	u32 i;

	kvm_events_bpf__counts(bpf, 0, &c);
	for (i = 0; i < bpf->nr_slots; i++)
		tps[i] = kvm_events_bpf__slot(bpf, i)->tp;
	kvm_events_bpf__add_counts(report, &c, tps, bpf->nr_slots);
	read_keys(bpf, report);
	if (final)
		read_pending(bpf, report);
	return read_buckets(bpf, report);
}

/* Where a map's entries hold their process's pid */
struct pid_at {
	struct bpf_map	*map;
	size_t		offset;
	bool		in_value;	/* else in the key */
};

static void pid_at(struct kvm_events_bpf *bpf, struct pid_at *at)
{
	at[0] = (struct pid_at){ bpf->skel->maps.keys,
				 offsetof(struct kvm_events_bpf_key, pid), false };
	at[1] = (struct pid_at){ bpf->skel->maps.buckets,
				 offsetof(struct kvm_events_bpf_bucket, key.pid), false };
	at[2] = (struct pid_at){ bpf->skel->maps.threads,
				 offsetof(struct kvm_events_bpf_thread, pid), true };
}

/*
 * Calls @fn with each entry's key and pid, the map's next key read first:
 * @fn may delete the entry it is given.
 */
static int map__walk_pids(const struct pid_at *at,
			     int (*fn)(int fd, const void *key, u32 pid, void *arg), void *arg)
{
	int fd = bpf_map__fd(at->map), err = 0, more;
	void *key = zalloc(bpf_map__key_size(at->map));
	void *next = zalloc(bpf_map__key_size(at->map));
	void *value = zalloc(bpf_map__value_size(at->map));
	u32 pid;

	if (!key || !next || !value) {
		err = -ENOMEM;
		goto out;
	}
	more = !bpf_map_get_next_key(fd, NULL, next);
	while (more && !err) {
		memcpy(key, next, bpf_map__key_size(at->map));
		more = !bpf_map_get_next_key(fd, key, next);
		if (at->in_value && bpf_map_lookup_elem(fd, key, value))
			continue;
		memcpy(&pid, (at->in_value ? value : key) + at->offset, sizeof(pid));
		err = fn(fd, key, pid, arg);
	}
out:
	free(key);
	free(next);
	free(value);
	return err;
}

static int add_pid_of(int fd __maybe_unused, const void *key __maybe_unused, u32 pid,
		      void *arg)
{
	return kvm_events_pids__add(arg, pid);
}

int kvm_events_bpf__pids(struct kvm_events_bpf *bpf, struct intlist *pids)
{
	struct pid_at at[3];
	int i, err = 0;

	pid_at(bpf, at);
	for (i = 0; i < 3 && !err; i++)
		err = map__walk_pids(&at[i], add_pid_of, pids);
	return err;
}

static int delete_of(int fd, const void *key, u32 pid, void *arg)
{
	if (pid == *(u32 *)arg)
		bpf_map_delete_elem(fd, key);
	return 0;
}

/* The process exited: its keys leave the maps, and their room comes back. */
int kvm_events_bpf__forget_pid(struct kvm_events_bpf *bpf, u32 pid)
{
	struct pid_at at[3];
	int i, err = 0;

	pid_at(bpf, at);
	for (i = 0; i < 3 && !err; i++)
		err = map__walk_pids(&at[i], delete_of, &pid);
	return err;
}

int kvm_events_bpf__stats(struct kvm_events_bpf *bpf,
			  const struct kvm_events_bpf_key *key,
			  struct kvm_events_bpf_stats *stats)
{
	return bpf_map_lookup_elem(bpf_map__fd(bpf->skel->maps.keys), key, stats) ? -errno : 0;
}

u64 kvm_events_bpf__bucket(struct kvm_events_bpf *bpf,
			   const struct kvm_events_bpf_key *key, u32 bucket)
{
	struct kvm_events_bpf_bucket b = { .key = *key, .bucket = bucket };
	u64 count = 0;

	bpf_map_lookup_elem(bpf_map__fd(bpf->skel->maps.buckets), &b, &count);
	return count;
}
