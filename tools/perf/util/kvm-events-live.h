/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_KVM_EVENTS_LIVE_H
#define __PERF_KVM_EVENTS_LIVE_H

/*
 * perf kvm-events live: the kvm tracepoints opened in this process, their
 * ring buffers read on a timer into the report's engine, and every -d
 * seconds the interval just ended and the run so far.
 */
#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "kvm-events.h"

struct hashmap;
struct kvm_events_metrics;
struct kvm_events_view;

/*
 * What each key gained between two refreshes: the engine only keeps
 * counts since the start, so the last refresh's are kept to subtract.
 */
struct kvm_events_interval {
	struct hashmap		*seen;	/* key -> its counts at the last update */
	struct kvm_events_key	*rows;	/* what each key gained since */
	struct kvm_events_key	**keys;	/* those of rows that gained samples */
	size_t			nr;	/* in keys */
	size_t			alloc;	/* of rows and keys */
};

int kvm_events_interval__init(struct kvm_events_interval *iv);
/*
 * From the counts since the start of @keys (in the order to show), sets
 * iv->keys[0..iv->nr) to the keys that gained samples since the last
 * update, each holding only what it gained, in the same order.
 */
int kvm_events_interval__update(struct kvm_events_interval *iv,
				struct kvm_events_key **keys, size_t nr);
void kvm_events_interval__exit(struct kvm_events_interval *iv);

/* What to watch, and how to show it */
struct kvm_events_live_args {
	const struct kvm_events_analysis *analysis;
	const struct kvm_events_options	*opts;
	const struct kvm_events_view	*view;
	/* The target, as perf record takes it; none: the workload, or -a */
	const char			*pid;
	const char			*tid;
	const char			*cpu_list;
	bool				system_wide;
	unsigned int			mmap_pages;
	const char			**argv;	/* the workload, NULL-ended */
	int				argc;
	u32				delay;	/* seconds between refreshes */
	bool				tui;	/* the browser, not the tables */
	struct kvm_events_metrics	*metrics;	/* --metrics-* */
};

/* KVM_EVENTS_LIVE_NO_TRACEPOINT: the host has none of the analysis' */
#define KVM_EVENTS_LIVE_NO_TRACEPOINT	(-1000)

/*
 * Runs live until the workload ends, the target's processes are gone, or
 * SIGINT/SIGTERM.  Returns the exit status: the workload's, 0 without
 * one, non-zero after an error it printed (or KVM_EVENTS_LIVE_NO_TRACEPOINT,
 * for the caller to explain).
 */
int kvm_events_live__run(const struct kvm_events_live_args *args);

#endif /* __PERF_KVM_EVENTS_LIVE_H */
