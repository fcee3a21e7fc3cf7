/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_KVM_EVENTS_BROWSE_H
#define __PERF_KVM_EVENTS_BROWSE_H

/*
 * What perf kvm-events' browser (--tui: ui/browsers/kvm-events.c) shows,
 * without the terminal: the source's counts per key, VM and vcpu, merged
 * per key as its filters say, sorted, as text lines that the report's own
 * printers write; and each key's detail.
 */
#include <stdbool.h>
#include <stdio.h>
#include <linux/types.h>
#include "kvm-events.h"
#include "kvm-events-display.h"

struct hashmap;
struct machine;

/*
 * Where the counts come from: a recording (report), the ring buffers of
 * live, or live --use-bpf's maps.  The source's report keys its events
 * per vcpu (KVM_EVENTS_GROUP_VCPU), with every statistic.
 */
struct kvm_events_browse_source {
	const char			*title;		/* "live", the recording */
	const struct kvm_events_view	*view;
	/* Refreshes every delay seconds; 0: a recording, nothing new comes */
	int				delay;
	/*
	 * The counts so far, which the source does not change until put();
	 * NULL: none to show (out of memory, said).  A live source's machine,
	 * for the VMs' names, is the source's until put() too.
	 */
	struct kvm_events_report	*(*get)(struct kvm_events_browse_source *src,
						struct machine **machine);
	void				(*put)(struct kvm_events_browse_source *src);
	/*
	 * Starts over with @analysis: a recording is read again, live counts
	 * from now.  NULL: the source cannot (live --use-bpf).
	 */
	int				(*set_analysis)(struct kvm_events_browse_source *src,
							const struct kvm_events_analysis *analysis);
	/* Whether no more will come: the workload or the watched VMs ended */
	bool				(*ended)(struct kvm_events_browse_source *src);
	/* The VMs' names (kvm-events-vms.h); NULL: pids and comms only */
	struct kvm_events_vms		*vms;
};

/* The filters' "every VM", "every vcpu" */
#define KVM_EVENTS_BROWSE_ALL	(~0U)

struct kvm_events_browse {
	struct kvm_events_browse_source	*src;
	struct kvm_events_view		view;	/* the source's, with the browser's sort */
	const struct kvm_events_analysis *analysis;
	int				sort_column;	/* -1: the key's name */
	bool				interval;	/* the last interval, not the total */
	bool				paused;
	u32				pid;		/* KVM_EVENTS_BROWSE_ALL, or a VM */
	u32				vcpu;		/* KVM_EVENTS_BROWSE_ALL, or one */
	/* What is shown: the source's keys merged, sorted */
	struct kvm_events_report	rows;
	bool				has_rows;
	struct kvm_events_key		**keys;
	size_t				nr;
	int				width;
	struct kvm_events_table_totals	totals;
	struct kvm_events_totals	source_totals;
	/* The intervals: each vcpu key's counts at the last tick, and since */
	struct hashmap			*seen;
	struct kvm_events_key		*gained;
	size_t				nr_gained, alloc_gained;
	u64				last_tick;	/* CLOCK_MONOTONIC ns */
	double				interval_s;
	u64				read_at_tick;
	double				events_per_s;
	/* The VMs and vcpus seen, ascending, for the filter keys */
	u32				*pids, *vcpus;
	size_t				nr_pids, nr_vcpus;
	char				message[160];	/* the last key's answer */
};

int kvm_events_browse__init(struct kvm_events_browse *b,
			    struct kvm_events_browse_source *src,
			    const struct kvm_events_analysis *analysis);
void kvm_events_browse__exit(struct kvm_events_browse *b);
/* A refresh: the counts so far, and those of the interval since the last */
int kvm_events_browse__tick(struct kvm_events_browse *b);
/* The rows again, after a change of sort, filter or mode */
int kvm_events_browse__rebuild(struct kvm_events_browse *b);

/* The keys: each changes the view and says what it did in b->message */
int kvm_events_browse__next_sort(struct kvm_events_browse *b, int step);
int kvm_events_browse__next_analysis(struct kvm_events_browse *b);
int kvm_events_browse__next_pid(struct kvm_events_browse *b);
int kvm_events_browse__next_vcpu(struct kvm_events_browse *b);
int kvm_events_browse__toggle_interval(struct kvm_events_browse *b);
void kvm_events_browse__toggle_pause(struct kvm_events_browse *b);

/* The lines of the screen, without a newline */
void kvm_events_browse__title(const struct kvm_events_browse *b, char *buf, size_t size);
void kvm_events_browse__summary(const struct kvm_events_browse *b, char *buf, size_t size);
void kvm_events_browse__columns(const struct kvm_events_browse *b, char *buf, size_t size);
void kvm_events_browse__row(const struct kvm_events_browse *b, size_t i, char *buf, size_t size);
/* Row @i's key in every VM and vcpu, its percentiles and histogram */
int kvm_events_browse__detail(struct kvm_events_browse *b, size_t i, FILE *fp);

#ifdef HAVE_SLANG_SUPPORT
#define KVM_EVENTS_HAVE_TUI	1
/* Runs the browser until q or ^C; the terminal is restored whatever happens */
int kvm_events_browse__run(struct kvm_events_browse_source *src,
			   const struct kvm_events_analysis *analysis);
#else
#include <errno.h>
#include <linux/compiler.h>
#define KVM_EVENTS_HAVE_TUI	0
static inline int kvm_events_browse__run(struct kvm_events_browse_source *src __maybe_unused,
					 const struct kvm_events_analysis *analysis __maybe_unused)
{
	return -EOPNOTSUPP;
}
#endif

#endif /* __PERF_KVM_EVENTS_BROWSE_H */
