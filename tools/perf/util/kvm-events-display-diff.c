// SPDX-License-Identifier: GPL-2.0
/*
 * perf kvm-events diff: two recordings' keys joined by name, the largest
 * change of the time spent per second first, as a table, JSON or CSV.
 */
#include <errno.h>
#include <inttypes.h>
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

static void json_diff_row(const struct diff_row *row, double old_s, double new_s, FILE *fp)
{
	struct diff_side o = diff_side(row->old, old_s), n = diff_side(row->new, new_s);
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
	fprintf(fp, ", \"time_per_s_change_ns\": %.6f}", row->change);
}

static void json_diff_input(const char *name, const struct kvm_events_display *d,
			    double seconds, FILE *fp)
{
	fprintf(fp, "  \"%s\": {\"input\": ", name);
	kvm_events_json_string(d->input, fp);
	fprintf(fp, ", \"seconds\": %.9f},\n", seconds);
}

static void print_diff_json(const struct kvm_events_display *old, double old_s,
			    const struct kvm_events_display *new, double new_s,
			    const struct diff_row *rows, size_t nr, FILE *fp)
{
	size_t i;

	fprintf(fp, "{\n  \"schema_version\": %d,\n  \"analysis\": \"%s\",\n",
		KVM_EVENTS_SCHEMA_VERSION, kvm_events_analysis__name(old->report->analysis));
	json_diff_input("old", old, old_s, fp);
	json_diff_input("new", new, new_s, fp);
	fprintf(fp, "  \"keys\": [\n");
	for (i = 0; i < nr; i++) {
		json_diff_row(&rows[i], old_s, new_s, fp);
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

static void print_diff_csv(const struct kvm_events_display *old, double old_s,
			   const struct kvm_events_display *new, double new_s,
			   const struct diff_row *rows, size_t nr, FILE *fp)
{
	size_t i;

	fprintf(fp,
		"# schema_version=%d analysis=%s old=%s old_seconds=%.9f new=%s new_seconds=%.9f\n",
		KVM_EVENTS_SCHEMA_VERSION, kvm_events_analysis__name(old->report->analysis),
		old->input, old_s, new->input, new_s);
	fprintf(fp, "key," DIFF_CSV_SIDE("old") "," DIFF_CSV_SIDE("new") "," DIFF_CSV_CHANGES "\n");
	for (i = 0; i < nr; i++) {
		struct diff_side o = diff_side(rows[i].old, old_s);
		struct diff_side n = diff_side(rows[i].new, new_s);
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
		fprintf(fp, ",%.6f\n", rows[i].change);
	}
}

static void print_diff_table(const struct kvm_events_display *old, double old_s,
			     const struct kvm_events_display *new, double new_s,
			     const struct diff_row *rows, size_t nr, FILE *fp)
{
	int width = KEY_WIDTH;
	size_t i;

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
}

/* Both recordings' keys, joined by name, the largest change first */
int kvm_events_display__diff(const struct kvm_events_display *old, double old_s,
			     const struct kvm_events_display *new, double new_s,
			     FILE *fp)
{
	struct kvm_events_key **o, **n;
	size_t nr_o, nr_n, nr, i;
	struct diff_row *rows;

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

	if (old->view->format == KVM_EVENTS_FORMAT_JSON)
		print_diff_json(old, old_s, new, new_s, rows, nr, fp);
	else if (old->view->format == KVM_EVENTS_FORMAT_CSV)
		print_diff_csv(old, old_s, new, new_s, rows, nr, fp);
	else
		print_diff_table(old, old_s, new, new_s, rows, nr, fp);
	free(o);
	free(n);
	free(rows);
	return 0;
}
