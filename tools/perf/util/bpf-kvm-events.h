/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_BPF_KVM_EVENTS_H
#define __PERF_BPF_KVM_EVENTS_H

/*
 * perf kvm-events live --use-bpf: the events of an analysis paired in the
 * kernel by util/bpf_skel/kvm_events_pair.bpf.c, and its maps read into a
 * report that the usual printers print.
 */
#include <stdbool.h>
#include <sys/types.h>
#include <linux/types.h>

struct kvm_events_analysis;
struct kvm_events_decoder;
struct intlist;
struct kvm_events_options;
struct kvm_events_report;
struct kvm_events_view;
struct kvm_events_vm_filter;
struct tep_event;

/* --bpf-map-entries: keys; the histograms' buckets get 16 times as many */
#define KVM_EVENTS_BPF_MAP_ENTRIES	4096
#define KVM_EVENTS_BPF_BUCKETS_PER_KEY	16

/* What live --use-bpf is asked for: its options and the rest of argv */
struct kvm_events_bpf_live {
	const struct kvm_events_analysis	*analysis;
	const struct kvm_events_options		*opts;
	const struct kvm_events_view		*view;
	u32					delay;	/* seconds */
	u32					map_entries;
	const char				*pids;	/* -p */
	struct kvm_events_vm_filter		*vm_filter;	/* --vm */
	bool					all;	/* -a */
	int					argc;	/* the command */
	const char				**argv;
	bool					tui;	/* the browser */
	struct kvm_events_metrics		*metrics;	/* --metrics-* */
};

#ifdef HAVE_BPF_SKEL
#include "bpf_skel/kvm_events_pair.h"

struct kvm_events_bpf;

struct kvm_events_bpf *kvm_events_bpf__new(u32 map_entries);
void kvm_events_bpf__delete(struct kvm_events_bpf *bpf);
/*
 * The tracepoints @analysis reads, where this kernel has them, as the
 * program's next analysis: the first is 0.  One program pairs them all.
 */
int kvm_events_bpf__add_analysis(struct kvm_events_bpf *bpf,
				 const struct kvm_events_analysis *analysis);
/* Whether this kernel has the tracepoints @analysis needs */
bool kvm_events_bpf__kernel_has(const struct kvm_events_analysis *analysis);
/*
 * One tracepoint as @slot says (its roles to each analysis), its fields
 * where @dec found them; the tests' analysis, without ops, is 0.
 */
int kvm_events_bpf__add_slot(struct kvm_events_bpf *bpf, struct tep_event *event,
			     const struct kvm_events_bpf_slot *slot,
			     const struct kvm_events_decoder *dec);
/* Only these processes (before load); by default every one */
int kvm_events_bpf__add_pid(struct kvm_events_bpf *bpf, pid_t pid);
/* Each of -p's comma separated list */
int kvm_events_bpf__add_pids(struct kvm_events_bpf *bpf, const char *list);
int kvm_events_bpf__start(struct kvm_events_bpf *bpf);
/* __start() in two: load (errors before perf record starts), then attach */
int kvm_events_bpf__load(struct kvm_events_bpf *bpf);
int kvm_events_bpf__attach(struct kvm_events_bpf *bpf);
void kvm_events_bpf__detach(struct kvm_events_bpf *bpf);
/*
 * record --use-bpf: before load, write each paired event of at least
 * @min_time_ns whole; then each analysis' bpf-output event of each CPU
 * to write to, and a dump of the analysis' maps there when asked.
 */
void kvm_events_bpf__set_records(struct kvm_events_bpf *bpf, u64 min_time_ns);
/* Only processes that descend from @parent (perf record's workload) */
void kvm_events_bpf__filter_children(struct kvm_events_bpf *bpf, pid_t parent);
int kvm_events_bpf__set_output(struct kvm_events_bpf *bpf, u32 analysis, int cpu, int fd);
int kvm_events_bpf__dump(struct kvm_events_bpf *bpf, u32 analysis);
/* The tracepoints as configured, for the tests */
u32 kvm_events_bpf__nr_slots(const struct kvm_events_bpf *bpf);
const struct kvm_events_bpf_slot *kvm_events_bpf__slot(const struct kvm_events_bpf *bpf,
						       u32 i);
/*
 * The maps so far into @report, which must be new.  @final: what is still
 * open will never end (as kvm_events_report__finish()).
 */
int kvm_events_bpf__read(struct kvm_events_bpf *bpf,
			 struct kvm_events_report *report, bool final);
/* Adds to @pids the processes the maps hold keys or threads of */
int kvm_events_bpf__pids(struct kvm_events_bpf *bpf, struct intlist *pids);
/* Deletes process @pid's keys and threads from the maps: it exited */
int kvm_events_bpf__forget_pid(struct kvm_events_bpf *bpf, u32 pid);
/* For the tests: the program's own counts, and one key's maps */
void kvm_events_bpf__counts(struct kvm_events_bpf *bpf, u32 analysis,
			    struct kvm_events_bpf_counts *counts);
int kvm_events_bpf__stats(struct kvm_events_bpf *bpf,
			  const struct kvm_events_bpf_key *key,
			  struct kvm_events_bpf_stats *stats);
u64 kvm_events_bpf__bucket(struct kvm_events_bpf *bpf,
			   const struct kvm_events_bpf_key *key, u32 bucket);

int kvm_events_bpf__live(const struct kvm_events_bpf_live *live);

/*
 * record --use-bpf: the program of the analyses of @events (record's
 * --event, NULL by default) loaded, for the processes of @pids (-p) or
 * else perf record's; NULL: it said why.  Each analysis has a bpf-output
 * event for perf record to open; the hooks go to cmd_record_hooked().
 */
struct kvm_events_bpf_record;
struct record_hooks;

struct kvm_events_bpf_record *kvm_events_bpf_record__new(const char *events,
							 u64 min_time_ns,
							 const char *pids);
void kvm_events_bpf_record__delete(struct kvm_events_bpf_record *rec);
u32 kvm_events_bpf_record__nr_events(const struct kvm_events_bpf_record *rec);
const char *kvm_events_bpf_record__event(const struct kvm_events_bpf_record *rec, u32 i);
const struct record_hooks *kvm_events_bpf_record__hooks(const struct kvm_events_bpf_record *rec);
/* perf record's --control option, that the dumps wake it through */
const char *kvm_events_bpf_record__control(const struct kvm_events_bpf_record *rec);
#else
#include <stdio.h>
#include <linux/compiler.h>

static inline int kvm_events_bpf__live(const struct kvm_events_bpf_live *live
				       __maybe_unused)
{
	fprintf(stderr, "perf kvm-events live: --use-bpf: %s\n",
		"this perf was built without BPF skeletons (BUILD_BPF_SKEL=1 needs clang)");
	return 1;
}
#endif /* HAVE_BPF_SKEL */

#endif /* __PERF_BPF_KVM_EVENTS_H */
