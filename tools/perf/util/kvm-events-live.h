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
struct intlist;
struct kvm_events_metrics;
struct kvm_events_view;
struct kvm_events_vms;
struct kvm_events_vm_filter;

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
/* @key is freed (its VM exited): a new key may come at its address. */
void kvm_events_interval__forget(struct kvm_events_interval *iv,
				 const struct kvm_events_key *key);

/*
 * What live and live --use-bpf keep of the VMs: their names, read from
 * /proc at each refresh (only new processes are read), --vm's choice of
 * them, and the processes seen to exit, whose keys go one refresh later.
 */
struct kvm_events_live_vms {
	struct kvm_events_vms		*vms;
	struct kvm_events_vm_filter	*filter;	/* --vm, or NULL */
	struct intlist			*taken;		/* --vm's pids: the report's opts.pids */
	struct intlist			*others;	/* not taken, until the next scan */
	struct intlist			*exited;	/* seen gone at the last refresh */
	u32				last_pid;	/* the last decided, for a run of samples */
	bool				last_taken;
	bool				decided;
};

int kvm_events_live_vms__init(struct kvm_events_live_vms *lv,
			      struct kvm_events_vm_filter *filter);
void kvm_events_live_vms__exit(struct kvm_events_live_vms *lv);
/* At a refresh: the new processes of @procfs, and the VMs --vm takes among them */
int kvm_events_live_vms__scan(struct kvm_events_live_vms *lv, const char *procfs);
/* --vm: whether it takes process @pid, decided at its first sight, kept in taken */
bool kvm_events_live_vms__takes(struct kvm_events_live_vms *lv, u32 pid);
/*
 * At a refresh: @drop is called for each process seen gone at the last
 * one, which is forgotten; then the processes of @pids (a report's) that
 * are gone now are kept for the next.  Returns 0 or -ENOMEM.
 */
int kvm_events_live_vms__exits(struct kvm_events_live_vms *lv, struct intlist *pids,
			       void (*drop)(u32 pid, void *arg), void *arg);

/* What to watch, and how to show it */
struct kvm_events_live_args {
	const struct kvm_events_analysis *analysis;
	const struct kvm_events_options	*opts;
	const struct kvm_events_view	*view;
	/* The target, as perf record takes it; none: the workload, or -a */
	const char			*pid;
	struct kvm_events_vm_filter	*vm_filter;	/* --vm */
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
