/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_KVM_EVENTS_DISPLAY_H
#define __PERF_KVM_EVENTS_DISPLAY_H

/*
 * perf kvm-events' output: the tables of a report, its JSON and CSV, the
 * interval table of live and diff's output.  The command parses the
 * options and reads the recordings; this prints what they hold.
 */
#include <stdbool.h>
#include <stdio.h>
#include "kvm-events.h"

struct machine;
struct kvm_events_vm;
struct kvm_events_vms;
struct kvm_events_vm_filter;
struct kvm_events_column;

#define KVM_EVENTS_MAX_COLUMNS		16
#define KVM_EVENTS_DEFAULT_FIELDS	"samples,samples%,time%,avg"
#define KVM_EVENTS_STATS_FIELDS		"samples,samples%,time%,total,min,max,avg,stddev,p50,p90,p99,p99.9"
/* --key: the fields, then perf kvm stat's names and this command's first ones */
#define KVM_EVENTS_SORT_NAMES		KVM_EVENTS_STATS_FIELDS \
					",name,sample,time,mean,max_t,min_t,mean_t,ev_name"

/* Of --json and --csv: it changes when a field is renamed or removed. */
#define KVM_EVENTS_SCHEMA_VERSION	1
/* ...and the fields added to it: 1, the VMs' names */
#define KVM_EVENTS_SCHEMA_MINOR		1

enum kvm_events_format {
	KVM_EVENTS_FORMAT_TABLE,
	KVM_EVENTS_FORMAT_JSON,
	KVM_EVENTS_FORMAT_CSV,
};

/* How a report is shown, as the options ask */
struct kvm_events_view {
	const struct kvm_events_column *columns[KVM_EVENTS_MAX_COLUMNS];
	int			nr_columns;
	enum kvm_events_format	format;
	struct kvm_events_sort_keys sort;
	const char		*sort_names;	/* --key as given */
	enum kvm_events_site	site;		/* --key rip or sym */
	bool			split_idle;
	bool			histogram;	/* --histogram: draw each key's */
	/* The filters as the user wrote them: titles, JSON and CSV echo them. */
	const char		*vcpus;
	const char		*pids;
	const char		*vms;		/* --vm */
	const char		*time;
	double			duration_us;
};

/* A report to print, and the recording it was read from */
struct kvm_events_display {
	const struct kvm_events_view	*view;
	struct kvm_events_report	*report;
	const char			*input;
	struct machine			*machine;	/* names --per-vm's VMs */
	/* ...as their owners do: the recording's names, or live's from /proc */
	struct kvm_events_vms		*vms;
	struct kvm_events_vm_filter	*vm_filter;	/* --vm: says what it did not find */
	/* The header's first and last sample times; equal: not recorded */
	u64				header_first;
	u64				header_last;
	/* The browser's table of an interval: counts, no statistics */
	bool				interval;
};

/* VM @pid as its owner names it (kvm-events-vms.h), or NULL: not a VMM known */
const struct kvm_events_vm *kvm_events_display__vm(const struct kvm_events_display *d, u32 pid);

/* ...its name, else its uuid, or NULL */
const char *kvm_events_display__vm_name(const struct kvm_events_display *d, u32 pid);
/* A name in a text line: its control characters as '?' */
void kvm_events_print_name(const char *name, FILE *fp);

/* --fields LIST into view->columns; @cmd names the subcommand in errors */
int kvm_events_view__set_fields(struct kvm_events_view *view, const char *cmd,
				const char *list);
/* Leaves out the on and off CPU columns where @report has no switches, saying so */
void kvm_events_view__fit(struct kvm_events_view *view,
			  const struct kvm_events_report *report, const char *input);
/* Sets the keys and the statistics that the view's columns, format and sort need. */
void kvm_events_view__needs(const struct kvm_events_view *view,
			    struct kvm_events_options *opts);
/* --key LIST into view->sort; @cmd names the subcommand in errors */
int kvm_events_view__set_sort(struct kvm_events_view *view, const char *cmd,
			      const char *list);

/* The tables of @keys, sorted by group, with the --top list and footer */
void kvm_events_display__tables(const struct kvm_events_display *d,
				struct kvm_events_key **keys, size_t nr, FILE *fp);
/* live: what @keys gained in the last @seconds, as one table */
void kvm_events_display__interval(const struct kvm_events_display *d,
				  struct kvm_events_key **keys, size_t nr,
				  double seconds, FILE *fp);
/*
 * The pieces of a table, for a browser (kvm-events-browse.c): the
 * key column's width, the totals that shares are of, the header and a
 * row, each line ending in a newline; with d->interval, those of live's
 * interval table.  A key's cells and their headers, without its name.
 */
int kvm_events_display__key_width(struct kvm_events_key **keys, size_t nr);
struct kvm_events_table_totals;
void kvm_events_display__table_totals(const struct kvm_events_display *d,
				      struct kvm_events_key **keys, size_t nr,
				      struct kvm_events_table_totals *totals);
void kvm_events_display__header(const struct kvm_events_display *d, int width, FILE *fp);
void kvm_events_display__row(const struct kvm_events_display *d, struct kvm_events_key *key,
			     const struct kvm_events_table_totals *totals, int width, FILE *fp);
void kvm_events_display__cells(const struct kvm_events_display *d, struct kvm_events_key *key,
			       const struct kvm_events_table_totals *totals, FILE *fp);
void kvm_events_display__cell_headers(const struct kvm_events_display *d, FILE *fp);
void kvm_events_display__histogram(struct kvm_events_key *key, FILE *fp);
/* The name of the view's column @i, and whether --key takes that name */
const char *kvm_events_view__column_name(const struct kvm_events_view *view, int i);
bool kvm_events_view__sorts_by(const char *name);

/*
 * Shared by the text, JSON and CSV printers, so that each figure is
 * computed once: a table's totals and a key's shares of them, in percent.
 */
struct kvm_events_table_totals {
	u64	samples;
	u64	total_ns;
};

double kvm_events_samples_share(struct kvm_events_key *key,
				const struct kvm_events_table_totals *t);
double kvm_events_time_share(struct kvm_events_key *key,
			     const struct kvm_events_table_totals *t);
double kvm_events_avg_ns(struct kvm_events_key *key,
			 const struct kvm_events_table_totals *t);
/* The buckets from a key's first non-empty one to its last; false: none */
bool kvm_events_histogram_span(const struct kvm_events_key *key, int *first,
			       int *last);
/* The upper bound of a log2 bucket; false for the last, which has none */
bool kvm_events_log2_bucket_high(int bucket, u64 *high);
/* The comm of VM process @pid, or NULL */
const char *kvm_events_display__comm(const struct kvm_events_display *d, u32 pid);
/* The comm of task @tid, or NULL */
const char *kvm_events_display__task_comm(const struct kvm_events_display *d, u32 tid);
/* Keys of one table: the same group and VM */
bool kvm_events_key__same_group(const struct kvm_events_key *a,
				const struct kvm_events_key *b);
/* Whether diff compares what each of the view's sort keys is; says why not */
bool kvm_events_display__diff_sorts(const struct kvm_events_view *view);
/* diff: @old's and @new's keys, recorded over @old_s and @new_s seconds */
int kvm_events_display__diff(const struct kvm_events_display *old, double old_s,
			     const struct kvm_events_display *new, double new_s,
			     FILE *fp);

#endif /* __PERF_KVM_EVENTS_DISPLAY_H */
