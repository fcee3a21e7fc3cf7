// SPDX-License-Identifier: GPL-2.0
/*
 * perf kvm-events diff: two recordings' keys joined by name, the largest
 * changes of the --key statistics first, as a table, JSON or CSV.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <linux/kernel.h>

#include "debug.h"
#include "kvm-events.h"
#include "kvm-events-display.h"
#include "kvm-events-display-json.h"
#include "intlist.h"

/* The original layout's width of the key column, and its least */
#define KEY_WIDTH	20

/* diff's table: the keys of two recordings side by side */
struct diff_row {
	const char		*name;
	struct kvm_events_key	*old, *new;
	bool			idle;
};

/* The two recordings of a diff, and how their rows are sorted */
struct diff_sides {
	const struct kvm_events_display	*old, *new;
	double				old_s, new_s;
	const struct kvm_events_sort_keys *sort;
	int				width;	/* of the key column */
};

/*
 * One statistic of diff's table: its value on each side and its change.
 * value() is false where the side has no such value.
 */
struct diff_metric {
	const char	*header;
	const char	*unit;
	bool		(*value)(const struct kvm_events_key *key, double seconds,
				 double *v);
	double		pct;	/* a percentile's */
};

static bool diff_rate(const struct kvm_events_key *key, double seconds, double *v)
{
	*v = key && seconds > 0 ? key->samples / seconds : 0;
	return key && seconds > 0;
}

/* In microseconds spent per second of the recording */
static bool diff_time(const struct kvm_events_key *key, double seconds, double *v)
{
	*v = key && seconds > 0 ? key->total_ns / 1000.0 / seconds : 0;
	return key && seconds > 0;
}

static bool diff_timed(const struct kvm_events_key *key, double *v)
{
	*v = 0;
	return key && key->timed;
}

static bool diff_avg(const struct kvm_events_key *key, double s __maybe_unused, double *v)
{
	if (!diff_timed(key, v))
		return false;
	*v = (double)key->total_ns / key->timed / 1000;
	return true;
}

static bool diff_min(const struct kvm_events_key *key, double s __maybe_unused, double *v)
{
	if (!diff_timed(key, v))
		return false;
	*v = key->stats.min / 1000.0;
	return true;
}

static bool diff_max(const struct kvm_events_key *key, double s __maybe_unused, double *v)
{
	if (!diff_timed(key, v))
		return false;
	*v = key->stats.max / 1000.0;
	return true;
}

static bool diff_stddev(const struct kvm_events_key *key, double s __maybe_unused,
			double *v)
{
	if (!diff_timed(key, v))
		return false;
	*v = kvm_events_key__stddev(key) / 1000;
	return true;
}

static bool diff_percentile(const struct kvm_events_key *key, double pct, double *v)
{
	if (!diff_timed(key, v))
		return false;
	*v = kvm_events_key__percentile(key, pct) / 1000.0;
	return true;
}

/* By enum kvm_events_sort; the name has no column */
static const struct diff_metric diff_metrics[] = {
	[KVM_EVENTS_SORT_SAMPLE]	= { "Samples/s", "", diff_rate, 0 },
	[KVM_EVENTS_SORT_TIME]		= { "Time/s", "us", diff_time, 0 },
	[KVM_EVENTS_SORT_MEAN]		= { "Avg time", "us", diff_avg, 0 },
	[KVM_EVENTS_SORT_MIN]		= { "Min time", "us", diff_min, 0 },
	[KVM_EVENTS_SORT_MAX]		= { "Max time", "us", diff_max, 0 },
	[KVM_EVENTS_SORT_STDDEV]	= { "Stddev", "us", diff_stddev, 0 },
	[KVM_EVENTS_SORT_P50]		= { "p50", "us", NULL, 50 },
	[KVM_EVENTS_SORT_P90]		= { "p90", "us", NULL, 90 },
	[KVM_EVENTS_SORT_P99]		= { "p99", "us", NULL, 99 },
	[KVM_EVENTS_SORT_P99_9]		= { "p99.9", "us", NULL, 99.9 },
};

/* Shown whatever the sort: after the sort keys' own columns */
static const enum kvm_events_sort diff_always[] = {
	KVM_EVENTS_SORT_SAMPLE, KVM_EVENTS_SORT_MEAN, KVM_EVENTS_SORT_P99,
};

#define DIFF_MAX_COLUMNS	(KVM_EVENTS_MAX_SORT_KEYS + ARRAY_SIZE(diff_always))
#define DIFF_CELL		13	/* a value and its unit */

static bool diff_value(enum kvm_events_sort sort, const struct kvm_events_key *key,
		       double seconds, double *v)
{
	const struct diff_metric *m = &diff_metrics[sort];

	return m->value ? m->value(key, seconds, v) : diff_percentile(key, m->pct, v);
}

/* new - old; a side without the value counts as 0 */
static double diff_change(const struct diff_sides *sides, const struct diff_row *row,
			  enum kvm_events_sort sort)
{
	double o, n;

	diff_value(sort, row->old, sides->old_s, &o);
	diff_value(sort, row->new, sides->new_s, &n);
	return n - o;
}

/* qsort() takes no context */
static const struct diff_sides *diff_sort_sides;

/* The largest change of each sort key in turn first, then names */
static int compare_diff_rows(const void *a, const void *b)
{
	const struct diff_sides *sides = diff_sort_sides;
	const struct diff_row *x = a, *y = b;
	u32 i;

	for (i = 0; i < sides->sort->nr; i++) {
		enum kvm_events_sort sort = sides->sort->by[i];
		double cx, cy;

		if (sort == KVM_EVENTS_SORT_NAME)
			break;
		cx = fabs(diff_change(sides, x, sort));
		cy = fabs(diff_change(sides, y, sort));
		if (cx != cy)
			return cx < cy ? 1 : -1;
	}
	return strcmp(x->name, y->name);
}

/* The sort keys' columns, then those always shown, each once */
static size_t diff_columns(const struct kvm_events_sort_keys *sort,
			   enum kvm_events_sort *cols)
{
	size_t nr = 0, i, j;

	for (i = 0; i < sort->nr + ARRAY_SIZE(diff_always); i++) {
		enum kvm_events_sort c = i < sort->nr ? sort->by[i] :
					 diff_always[i - sort->nr];

		if (c == KVM_EVENTS_SORT_NAME)
			continue;
		for (j = 0; j < nr && cols[j] != c; j++)
			;
		if (j == nr)
			cols[nr++] = c;
	}
	return nr;
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
	int width = DIFF_CELL - (int)strlen(unit);

	if (has)
		fprintf(fp, " %*.2f%s", width, value, unit);
	else
		fprintf(fp, " %*s", DIFF_CELL, "-");
}

static void print_diff_row(const struct diff_sides *sides, const struct diff_row *row,
			   const enum kvm_events_sort *cols, size_t nr_cols, FILE *fp)
{
	size_t i;

	fprintf(fp, "%*s", sides->width, row->name);
	for (i = 0; i < nr_cols; i++) {
		const char *unit = diff_metrics[cols[i]].unit;
		double o, n;
		bool has_o = diff_value(cols[i], row->old, sides->old_s, &o);
		bool has_n = diff_value(cols[i], row->new, sides->new_s, &n);

		print_value(o, has_o, unit, fp);
		print_value(n, has_n, unit, fp);
		print_change(o, n, has_o, has_n, fp);
	}
	fprintf(fp, "\n");
}

/* The end of @path that fits a cell: the file name, as far as it goes */
static const char *diff_label(const char *path)
{
	size_t len = strlen(path);

	return len > DIFF_CELL ? path + len - DIFF_CELL : path;
}

/* Each statistic over its two columns, then each side's file */
static void print_diff_header(const struct diff_sides *sides,
			      const enum kvm_events_sort *cols, size_t nr_cols, FILE *fp)
{
	const char *column = kvm_events_report__column(sides->old->report);
	size_t i;

	fprintf(fp, "%*s", sides->width, "");
	for (i = 0; i < nr_cols; i++)
		fprintf(fp, "%s %*s %*s", i ? "          " : "", DIFF_CELL,
			diff_metrics[cols[i]].header, DIFF_CELL, diff_metrics[cols[i]].header);
	fprintf(fp, "\n%*s", sides->width, column);
	for (i = 0; i < nr_cols; i++)
		fprintf(fp, " %*s %*s %9s", DIFF_CELL, diff_label(sides->old->input),
			DIFF_CELL, diff_label(sides->new->input), "Change");
	fprintf(fp, "\n\n");
}

static void print_diff_sort(const struct kvm_events_sort_keys *sort, FILE *fp)
{
	u32 i;

	fprintf(fp, "\nSorted by");
	for (i = 0; i < sort->nr && sort->by[i] != KVM_EVENTS_SORT_NAME; i++)
		fprintf(fp, "%s the largest change of %s", i ? ", then" : "",
			diff_metrics[sort->by[i]].header);
	fprintf(fp, "%s name.\n", i ? ", then" : "");
}

static void print_diff_rows(const struct diff_sides *sides, const struct diff_row *rows,
			    size_t nr, bool idle, FILE *fp)
{
	enum kvm_events_sort cols[DIFF_MAX_COLUMNS];
	size_t nr_cols = diff_columns(sides->sort, cols), i;

	print_diff_header(sides, cols, nr_cols, fp);
	for (i = 0; i < nr; i++) {
		if (rows[i].idle == idle)
			print_diff_row(sides, &rows[i], cols, nr_cols, fp);
	}
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

/* One side of a diff row, as its JSON and CSV give it */
struct diff_side {
	bool	has;		/* the recording has the key */
	bool	has_rate;	/* ...and a span to divide by */
	bool	timed;
	u64	samples;
	double	rate;		/* samples per second */
	double	avg_ns;
	u64	p99_ns;
};

static struct diff_side diff_side(const struct kvm_events_key *key, double seconds)
{
	struct diff_side side = { .has = key != NULL };

	if (!key)
		return side;
	side.samples = key->samples;
	side.has_rate = seconds > 0;
	side.rate = side.has_rate ? key->samples / seconds : 0;
	side.timed = key->timed;
	if (side.timed) {
		side.avg_ns = (double)key->total_ns / key->timed;
		side.p99_ns = kvm_events_key__percentile(key, 99);
	}
	return side;
}

/* The change the table shows as a percentage; false where it shows none */
static bool change_pct(double old, double new, bool has_old, bool has_new, double *pct)
{
	if (!has_old || !has_new || (old == 0 && new != 0))
		return false;
	*pct = old == 0 ? 0 : (new - old) * 100 / old;
	return true;
}

static void json_double_or_null(const char *name, double value, bool known, FILE *fp)
{
	if (known)
		fprintf(fp, "\"%s\": %.6f", name, value);
	else
		fprintf(fp, "\"%s\": null", name);
}

static void json_diff_side(const char *name, const struct diff_side *side, FILE *fp)
{
	fprintf(fp, "\"%s\": ", name);
	if (!side->has) {
		fprintf(fp, "null");
		return;
	}
	fprintf(fp, "{\"samples\": %" PRIu64 ", ", side->samples);
	json_double_or_null("samples_per_s", side->rate, side->has_rate, fp);
	fprintf(fp, ", ");
	json_double_or_null("avg_ns", side->avg_ns, side->timed, fp);
	fprintf(fp, ", ");
	kvm_events_json_u64("p99_ns", side->p99_ns, side->timed, fp);
	fprintf(fp, "}");
}

/* In ns spent per second of the recording */
static double time_change_ns(const struct diff_sides *sides, const struct diff_row *row)
{
	return diff_change(sides, row, KVM_EVENTS_SORT_TIME) * 1000;
}

static void json_diff_row(const struct diff_sides *sides, const struct diff_row *row,
			  FILE *fp)
{
	struct diff_side o = diff_side(row->old, sides->old_s);
	struct diff_side n = diff_side(row->new, sides->new_s);
	double pct = 0;
	bool known;

	fprintf(fp, "    {\"key\": ");
	kvm_events_json_string(row->name, fp);
	fprintf(fp, ", ");
	json_diff_side("old", &o, fp);
	fprintf(fp, ", ");
	json_diff_side("new", &n, fp);
	known = change_pct(o.rate, n.rate, o.has_rate, n.has_rate, &pct);
	fprintf(fp, ", ");
	json_double_or_null("samples_per_s_change_pct", pct, known, fp);
	known = change_pct(o.avg_ns, n.avg_ns, o.timed, n.timed, &pct);
	fprintf(fp, ", ");
	json_double_or_null("avg_change_pct", pct, known, fp);
	known = change_pct(o.p99_ns, n.p99_ns, o.timed, n.timed, &pct);
	fprintf(fp, ", ");
	json_double_or_null("p99_change_pct", pct, known, fp);
	fprintf(fp, ", \"time_per_s_change_ns\": %.6f}", time_change_ns(sides, row));
}

/* With --vm, the VMs it took in one recording: their pids and names there */
static void json_diff_vms(const struct kvm_events_display *d, FILE *fp)
{
	struct int_node *node;
	const char *name;

	fputs(", \"vms\": ", fp);
	if (!d->view->vms) {
		fputs("null", fp);
		return;
	}
	fputc('[', fp);
	intlist__for_each_entry(node, d->report->opts.pids) {
		name = kvm_events_display__vm_name(d, node->i);
		fprintf(fp, "{\"pid\": %lu, \"vm\": ", node->i);
		if (name)
			kvm_events_json_string(name, fp);
		else
			fputs("null", fp);
		fprintf(fp, "}%s", intlist__next(node) ? ", " : "");
	}
	fputc(']', fp);
}

static void json_diff_input(const char *name, const struct kvm_events_display *d,
			    double seconds, FILE *fp)
{
	fprintf(fp, "  \"%s\": {\"input\": ", name);
	kvm_events_json_string(d->input, fp);
	json_diff_vms(d, fp);
	fprintf(fp, ", \"seconds\": %.9f},\n", seconds);
}

static void print_diff_json(const struct diff_sides *sides, const struct diff_row *rows,
			    size_t nr, FILE *fp)
{
	const struct kvm_events_analysis *analysis = sides->old->report->analysis;
	size_t i;

	fprintf(fp, "{\n  \"schema_version\": %d,\n  \"analysis\": \"%s\",\n",
		KVM_EVENTS_SCHEMA_VERSION, kvm_events_analysis__name(analysis));
	fprintf(fp, "  \"schema_minor\": %d,\n  \"vm\": ", KVM_EVENTS_SCHEMA_MINOR);
	if (sides->old->view->vms)
		kvm_events_json_string(sides->old->view->vms, fp);
	else
		fputs("null", fp);
	fputs(",\n", fp);
	json_diff_input("old", sides->old, sides->old_s, fp);
	json_diff_input("new", sides->new, sides->new_s, fp);
	fprintf(fp, "  \"keys\": [\n");
	for (i = 0; i < nr; i++) {
		json_diff_row(sides, &rows[i], fp);
		fprintf(fp, "%s\n", i + 1 < nr ? "," : "");
	}
	fprintf(fp, "  ]\n}\n");
}

static void csv_double_or_empty(double value, bool known, FILE *fp)
{
	if (known)
		fprintf(fp, ",%.6f", value);
	else
		fputc(',', fp);
}

static void csv_diff_side(const struct diff_side *side, FILE *fp)
{
	kvm_events_csv_u64(side->samples, side->has, fp);
	csv_double_or_empty(side->rate, side->has_rate, fp);
	csv_double_or_empty(side->avg_ns, side->timed, fp);
	kvm_events_csv_u64(side->p99_ns, side->timed, fp);
}

/* diff's CSV columns: the JSON's keys[] fields, old.X as old_X */
#define DIFF_CSV_SIDE(side)	side "_samples," side "_samples_per_s," side "_avg_ns," \
				side "_p99_ns"
#define DIFF_CSV_CHANGES	"samples_per_s_change_pct,avg_change_pct,p99_change_pct," \
				"time_per_s_change_ns"

static void print_diff_csv(const struct diff_sides *sides, const struct diff_row *rows,
			   size_t nr, FILE *fp)
{
	const struct kvm_events_analysis *analysis = sides->old->report->analysis;
	size_t i;

	fprintf(fp,
		"# schema_version=%d analysis=%s old=%s old_seconds=%.9f new=%s new_seconds=%.9f\n",
		KVM_EVENTS_SCHEMA_VERSION, kvm_events_analysis__name(analysis),
		sides->old->input, sides->old_s, sides->new->input, sides->new_s);
	fprintf(fp, "key," DIFF_CSV_SIDE("old") "," DIFF_CSV_SIDE("new") "," DIFF_CSV_CHANGES "\n");
	for (i = 0; i < nr; i++) {
		struct diff_side o = diff_side(rows[i].old, sides->old_s);
		struct diff_side n = diff_side(rows[i].new, sides->new_s);
		double pct = 0;
		bool known;

		fprintf(fp, "%s", rows[i].name);
		csv_diff_side(&o, fp);
		csv_diff_side(&n, fp);
		known = change_pct(o.rate, n.rate, o.has_rate, n.has_rate, &pct);
		csv_double_or_empty(pct, known, fp);
		known = change_pct(o.avg_ns, n.avg_ns, o.timed, n.timed, &pct);
		csv_double_or_empty(pct, known, fp);
		known = change_pct(o.p99_ns, n.p99_ns, o.timed, n.timed, &pct);
		csv_double_or_empty(pct, known, fp);
		fprintf(fp, ",%.6f\n", time_change_ns(sides, &rows[i]));
	}
}

/*
 * The VMs --vm took in one recording, by their pids there: the same VM
 * after a restart is the same name with another pid.
 */
static void print_diff_vms(const struct kvm_events_display *d, const char *side, FILE *fp)
{
	struct int_node *node;
	const char *name;

	fprintf(fp, "; %s:", side);
	intlist__for_each_entry(node, d->report->opts.pids) {
		name = kvm_events_display__vm_name(d, node->i);
		fputc(' ', fp);
		if (name)
			kvm_events_print_name(name, fp);
		fprintf(fp, "%spid %lu%s", name ? " (" : "", node->i, name ? ")" : "");
		if (intlist__next(node))
			fputc(',', fp);
	}
	if (!intlist__nr_entries(d->report->opts.pids))
		fputs(" none", fp);
}

/* "--vm web1; old: web1 (pid 4242); new: web1 (pid 5353)", with --vm */
static void print_diff_vm_filter(const struct diff_sides *sides, FILE *fp)
{
	if (!sides->old->view->vms)
		return;
	fputs("--vm ", fp);
	kvm_events_print_name(sides->old->view->vms, fp);
	print_diff_vms(sides->old, "old", fp);
	print_diff_vms(sides->new, "new", fp);
	fputs("\n\n", fp);
}

static void print_diff_table(struct diff_sides *sides, const struct diff_row *rows,
			     size_t nr, FILE *fp)
{
	bool split_idle = sides->old->view->split_idle;
	size_t i, nr_idle = 0;

	for (i = 0; i < nr; i++) {
		nr_idle += rows[i].idle;
		sides->width = max_t(int, sides->width, strlen(rows[i].name));
	}
	fprintf(fp, "\n\nCompare %s (%.6fs) with %s (%.6fs):\n\n", sides->old->input,
		sides->old_s, sides->new->input, sides->new_s);
	print_diff_vm_filter(sides, fp);
	print_diff_rows(sides, rows, nr, false, fp);
	if (split_idle && nr_idle) {
		fprintf(fp, "\nIdle: the vcpu waits for work:\n\n");
		print_diff_rows(sides, rows, nr, true, fp);
	}
	print_diff_sort(sides->sort, fp);
}

/* Both recordings' keys, joined by name, in the order of the sort keys */
bool kvm_events_display__diff_sorts(const struct kvm_events_view *view)
{
	u32 i;

	for (i = 0; i < view->sort.nr; i++) {
		if (view->sort.by[i] != KVM_EVENTS_SORT_NAME &&
		    view->sort.by[i] >= ARRAY_SIZE(diff_metrics)) {
			pr_err("perf kvm-events diff: --key %s: diff compares no time on or off CPU\n",
			       view->sort_names);
			return false;
		}
	}
	return true;
}

int kvm_events_display__diff(const struct kvm_events_display *old, double old_s,
			     const struct kvm_events_display *new, double new_s,
			     FILE *fp)
{
	const struct kvm_events_sort_keys by_name = { .nr = 0 };
	struct diff_sides sides = { old, new, old_s, new_s, &old->view->sort, KEY_WIDTH };
	struct kvm_events_key **o, **n;
	size_t nr_o, nr_n, nr, i;
	struct diff_row *rows;

	o = kvm_events_report__sorted(old->report, &by_name, &nr_o);
	n = kvm_events_report__sorted(new->report, &by_name, &nr_n);
	rows = calloc(nr_o + nr_n + 1, sizeof(*rows));
	if (!o || !n || !rows) {
		free(o);
		free(n);
		free(rows);
		return -ENOMEM;
	}
	nr = join_diff_rows(o, nr_o, n, nr_n, rows);
	for (i = 0; i < nr; i++) {
		const struct kvm_events_key *key = rows[i].old ?: rows[i].new;

		rows[i].idle = old->view->split_idle &&
			       kvm_events_report__is_idle(old->report, key->key);
	}
	diff_sort_sides = &sides;
	qsort(rows, nr, sizeof(*rows), compare_diff_rows);
	if (old->view->format == KVM_EVENTS_FORMAT_JSON)
		print_diff_json(&sides, rows, nr, fp);
	else if (old->view->format == KVM_EVENTS_FORMAT_CSV)
		print_diff_csv(&sides, rows, nr, fp);
	else
		print_diff_table(&sides, rows, nr, fp);
	free(o);
	free(n);
	free(rows);
	return 0;
}

