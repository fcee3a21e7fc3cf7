/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_KVM_EVENTS_HEATMAP_H
#define __PERF_KVM_EVENTS_HEATMAP_H

/*
 * perf kvm-events report --heatmap: per key, the timed samples counted
 * per (time column, --histogram's log2 ns bucket), drawn as an SVG.
 * It observes a report (struct kvm_events_observer): the engine hands it
 * each timed event, only where --heatmap is asked.
 */
#include <linux/types.h>
#include "kvm-events.h"

struct kvm_events_display;

/* The recording's span, in this many columns */
#define KVM_EVENTS_HEATMAP_COLUMNS	120
/* The busiest keys drawn; the others are counted in a note */
#define KVM_EVENTS_HEATMAP_PANELS	12
/* Where the header gives no span (a pipe), columns start this wide, in ns */
#define KVM_EVENTS_HEATMAP_MIN_WIDTH	1000

/* One key's counts; a column is allocated at its first sample */
struct kvm_events_grid {
	struct kvm_events_grid	*next;		/* every grid, to merge columns */
	u64			*col[KVM_EVENTS_HEATMAP_COLUMNS];
};

/* A report's observer: kvm_events_report's observer = &heatmap->observer */
struct kvm_events_heatmap {
	struct kvm_events_observer observer;
	u64			first;		/* the header's span, */
	u64			last;		/* last <= first: none */
	u64			origin;		/* the time of column 0's start */
	u64			width;		/* ns per column */
	bool			started;	/* origin is set */
	u64			no_memory;	/* timed samples left out of a grid */
	struct kvm_events_grid	*grids;
};

/* @first and @last: the header's sample times; last <= first: unknown */
struct kvm_events_heatmap *kvm_events_heatmap__new(u64 first, u64 last);
void kvm_events_heatmap__delete(struct kvm_events_heatmap *heatmap);
/* Writes @heatmap of @d's report as an SVG to @path; errors are printed */
int kvm_events_heatmap__write(const struct kvm_events_heatmap *heatmap,
			      const struct kvm_events_display *d, const char *path);

#endif /* __PERF_KVM_EVENTS_HEATMAP_H */
