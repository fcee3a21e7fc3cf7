/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_KVM_EVENTS_HEATMAP_H
#define __PERF_KVM_EVENTS_HEATMAP_H

/*
 * perf kvm-events report --heatmap: per key, the timed samples counted
 * per (time column, --histogram's log2 ns bucket), drawn as an SVG.
 * The engine keeps the counts only where --heatmap is asked.
 */
#include <linux/types.h>

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

struct kvm_events_heatmap {
	u64			origin;		/* the time of column 0's start */
	u64			width;		/* ns per column */
	u64			header_last;	/* the header's last sample time, or 0 */
	bool			started;	/* origin is set */
	u64			no_memory;	/* timed samples left out of a grid */
	struct kvm_events_grid	*grids;
};

/* @first and @last: the header's sample times; last <= first: unknown */
struct kvm_events_heatmap *kvm_events_heatmap__new(u64 first, u64 last);
void kvm_events_heatmap__delete(struct kvm_events_heatmap *heatmap);
/*
 * A timed sample at @time that took @duration ns, into *@grid.  Where the
 * header gave no span, column 0 starts at @first, the first sample read.
 */
void kvm_events_heatmap__add(struct kvm_events_heatmap *heatmap,
			     struct kvm_events_grid **grid, u64 first,
			     u64 time, u64 duration);
/* Writes the report's heatmap as an SVG to @path; errors are printed */
int kvm_events_heatmap__write(const struct kvm_events_display *d, const char *path);

#endif /* __PERF_KVM_EVENTS_HEATMAP_H */
