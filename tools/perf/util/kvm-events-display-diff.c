// SPDX-License-Identifier: GPL-2.0
/*
 * perf kvm-events diff's table: two recordings' keys joined by name, the
 * largest change of the time spent per second first.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <linux/kernel.h>

#include "kvm-events.h"
#include "kvm-events-display.h"

/* The original layout's width of the key column, and its least */
#define KEY_WIDTH	20

struct diff_row {
	const char		*name;
	struct kvm_events_key	*old, *new;
	double			change;	/* of the time spent per second */
};

static double time_per_second(const struct kvm_events_key *key, double seconds)
{
	return key && seconds > 0 ? key->total_ns / seconds : 0;
}

static int compare_diff_rows(const void *a, const void *b)
{
	const struct diff_row *x = a, *y = b;

	if (fabs(x->change) != fabs(y->change))
		return fabs(x->change) < fabs(y->change) ? 1 : -1;
	return strcmp(x->name, y->name);
}

static void print_change(double old, double new, bool has_old, bool has_new,
			 FILE *fp)
{
	if (!has_old && !has_new)
		fprintf(fp, " %9s", "-");
	else if (!has_old)
		fprintf(fp, " %9s", "new");
	else if (!has_new)
		fprintf(fp, " %9s", "gone");
	else if (old == 0)
		fprintf(fp, " %9s", new == 0 ? "0.00%" : "-");
	else
		fprintf(fp, " %+8.2f%%", (new - old) * 100 / old);
}

static void print_value(double value, bool has, const char *unit, FILE *fp)
{
	if (has)
		fprintf(fp, " %11.2f%s", value, unit);
	else
		fprintf(fp, " %*s", 11 + (int)strlen(unit), "-");
}

static void print_diff_row(const struct diff_row *row, double old_s,
			   double new_s, int width, FILE *fp)
{
	const struct kvm_events_key *o = row->old, *n = row->new;
	bool o_timed = o && o->timed, n_timed = n && n->timed;
	double o_rate = o && old_s > 0 ? o->samples / old_s : 0;
	double n_rate = n && new_s > 0 ? n->samples / new_s : 0;
	double o_mean = o_timed ? (double)o->total_ns / o->timed / 1000 : 0;
	double n_mean = n_timed ? (double)n->total_ns / n->timed / 1000 : 0;
	double o_p99 = o_timed ? kvm_events_key__percentile(o, 99) / 1000.0 : 0;
	double n_p99 = n_timed ? kvm_events_key__percentile(n, 99) / 1000.0 : 0;

	fprintf(fp, "%*s", width, row->name);
	print_value(o_rate, o && old_s > 0, "", fp);
	print_value(n_rate, n && new_s > 0, "", fp);
	print_change(o_rate, n_rate, o && old_s > 0, n && new_s > 0, fp);
	print_value(o_mean, o_timed, "us", fp);
	print_value(n_mean, n_timed, "us", fp);
	print_change(o_mean, n_mean, o_timed, n_timed, fp);
	print_value(o_p99, o_timed, "us", fp);
	print_value(n_p99, n_timed, "us", fp);
	print_change(o_p99, n_p99, o_timed, n_timed, fp);
	fprintf(fp, "\n");
}

/* Joins both sorted by name: the rows of @o, then @n's new names */
static size_t join_diff_rows(struct kvm_events_key **o, size_t nr_o,
			     struct kvm_events_key **n, size_t nr_n,
			     struct diff_row *rows)
{
	size_t nr = 0, i, j;

	for (i = 0; i < nr_o; i++)
		rows[nr++] = (struct diff_row){ .name = o[i]->name, .old = o[i] };
	for (i = 0; i < nr_n; i++) {
		for (j = 0; j < nr_o && strcmp(rows[j].name, n[i]->name); j++)
			;
		if (j == nr_o) {
			j = nr++;
			rows[j].name = n[i]->name;
		}
		rows[j].new = n[i];
	}
	return nr;
}

/* Both recordings' keys, joined by name, the largest change first */
int kvm_events_display__diff(const struct kvm_events_display *old, double old_s,
			     const struct kvm_events_display *new, double new_s,
			     FILE *fp)
{
	struct kvm_events_key **o, **n;
	size_t nr_o, nr_n, nr, i;
	struct diff_row *rows;
	int width = KEY_WIDTH;

	o = kvm_events_report__sorted(old->report, KVM_EVENTS_SORT_NAME, &nr_o);
	n = kvm_events_report__sorted(new->report, KVM_EVENTS_SORT_NAME, &nr_n);
	rows = calloc(nr_o + nr_n + 1, sizeof(*rows));
	if (!o || !n || !rows) {
		free(o);
		free(n);
		free(rows);
		return -ENOMEM;
	}
	nr = join_diff_rows(o, nr_o, n, nr_n, rows);
	for (i = 0; i < nr; i++)
		rows[i].change = time_per_second(rows[i].new, new_s) -
				 time_per_second(rows[i].old, old_s);
	qsort(rows, nr, sizeof(*rows), compare_diff_rows);

	fprintf(fp, "\n\nCompare %s (%.6fs) with %s (%.6fs):\n\n", old->input,
		old_s, new->input, new_s);
	for (i = 0; i < nr; i++)
		width = max_t(int, width, strlen(rows[i].name));
	fprintf(fp, "%*s %11s %11s %9s %13s %13s %9s %13s %13s %9s\n\n", width,
		kvm_events_analysis__column(old->report->analysis),
		"Samples/s", "Samples/s", "Change", "Avg time", "Avg time",
		"Change", "p99", "p99", "Change");
	for (i = 0; i < nr; i++)
		print_diff_row(&rows[i], old_s, new_s, width, fp);
	fprintf(fp, "\nSorted by the change of the time spent per second of recording.\n");
	free(o);
	free(n);
	free(rows);
	return 0;
}
