// SPDX-License-Identifier: GPL-2.0
/*
 * perf kvm-events' printers: the text tables of a report (--stats and
 * --fields columns, --histogram, --top, the footer), its JSON and CSV,
 * live's interval table and diff's table.
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
#include "machine.h"
#include "thread.h"
#include "time-utils.h"

/*
 * Output columns.  A value is in ns for the time columns, a fraction for
 * the shares, a count for samples.
 */
enum column_kind {
	COLUMN_COUNT,
	COLUMN_SHARE,
	COLUMN_TIME,
};

struct table_totals {
	u64	samples;
	u64	total_ns;
};

struct kvm_events_column {
	const char	*name;		/* for --fields, json and csv */
	const char	*header;
	enum column_kind kind;
	double		pct;		/* a percentile's; 0: value() says */
	double		(*value)(struct kvm_events_key *key,
				 const struct table_totals *totals);
};

static double col_samples(struct kvm_events_key *key,
			  const struct table_totals *t __maybe_unused)
{
	return key->samples;
}

static double col_samples_share(struct kvm_events_key *key,
				const struct table_totals *t)
{
	return t->samples ? (double)key->samples * 100 / t->samples : 0;
}

static double col_time_share(struct kvm_events_key *key,
			     const struct table_totals *t)
{
	return t->total_ns ? (double)key->total_ns * 100 / t->total_ns : 0;
}

static double col_total(struct kvm_events_key *key,
			const struct table_totals *t __maybe_unused)
{
	return key->total_ns;
}

static double col_min(struct kvm_events_key *key,
		      const struct table_totals *t __maybe_unused)
{
	return key->stats.min;
}

static double col_max(struct kvm_events_key *key,
		      const struct table_totals *t __maybe_unused)
{
	return key->stats.max;
}

static double col_avg(struct kvm_events_key *key,
		      const struct table_totals *t __maybe_unused)
{
	return (double)key->total_ns / key->timed;
}

static double col_stddev(struct kvm_events_key *key,
			 const struct table_totals *t __maybe_unused)
{
	return kvm_events_key__stddev(key);
}

static const struct kvm_events_column columns[] = {
	{ "samples", "Samples", COLUMN_COUNT, 0, col_samples },
	{ "samples%", "Samples%", COLUMN_SHARE, 0, col_samples_share },
	{ "time%", "Time%", COLUMN_SHARE, 0, col_time_share },
	{ "total", "Total time", COLUMN_TIME, 0, col_total },
	{ "min", "Min time", COLUMN_TIME, 0, col_min },
	{ "max", "Max time", COLUMN_TIME, 0, col_max },
	{ "avg", "Avg time", COLUMN_TIME, 0, col_avg },
	{ "stddev", "Stddev", COLUMN_TIME, 0, col_stddev },
	{ "p50", "p50", COLUMN_TIME, 50, NULL },
	{ "p90", "p90", COLUMN_TIME, 90, NULL },
	{ "p99", "p99", COLUMN_TIME, 99, NULL },
	{ "p99.9", "p99.9", COLUMN_TIME, 99.9, NULL },
};

static double column_value(const struct kvm_events_column *col,
			   struct kvm_events_key *key,
			   const struct table_totals *totals)
{
	if (col->pct)
		return kvm_events_key__percentile(key, col->pct);
	return col->value(key, totals);
}

static const struct kvm_events_column *column__find(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(columns); i++) {
		if (!strcmp(columns[i].name, name))
			return &columns[i];
	}
	return NULL;
}

int kvm_events_view__set_fields(struct kvm_events_view *view, const char *cmd,
				const char *list)
{
	char *copy = strdup(list), *tok, *save = NULL;
	int ret = 0;

	if (!copy)
		return -ENOMEM;
	view->nr_columns = 0;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		const struct kvm_events_column *col = column__find(tok);

		if (!col) {
			pr_err("perf kvm-events %s: --fields %s: unknown field '%s', expected any of %s\n",
			       cmd, list, tok, KVM_EVENTS_STATS_FIELDS);
			ret = -EINVAL;
			break;
		}
		if (view->nr_columns == KVM_EVENTS_MAX_COLUMNS) {
			pr_err("perf kvm-events %s: --fields %s: more than %d fields\n",
			       cmd, list, KVM_EVENTS_MAX_COLUMNS);
			ret = -EINVAL;
			break;
		}
		view->columns[view->nr_columns++] = col;
	}
	free(copy);
	if (!ret && !view->nr_columns) {
		pr_err("perf kvm-events %s: --fields '%s': no field, expected any of %s\n",
		       cmd, list, KVM_EVENTS_STATS_FIELDS);
		ret = -EINVAL;
	}
	return ret;
}

void kvm_events_view__needs(const struct kvm_events_view *view,
			    struct kvm_events_options *opts)
{
	int i;

	/* JSON and CSV give every statistic. */
	if (view->format != KVM_EVENTS_FORMAT_TABLE)
		opts->percentiles = opts->stddev = true;
	for (i = 0; i < (int)view->sort.nr; i++) {
		if (view->sort.by[i] >= KVM_EVENTS_SORT_P50 &&
		    view->sort.by[i] <= KVM_EVENTS_SORT_P99_9)
			opts->percentiles = true;
		if (view->sort.by[i] == KVM_EVENTS_SORT_STDDEV)
			opts->stddev = true;
	}
	for (i = 0; i < view->nr_columns; i++) {
		if (view->columns[i]->pct)
			opts->percentiles = true;
		if (view->columns[i]->value == col_stddev)
			opts->stddev = true;
	}
}

/*
 * Cell widths of the original kvm-events layout: "%10llu", "%12.2f%%",
 * "%12.2fus", each after a space.
 */
static int column_width(const struct kvm_events_column *col)
{
	return col->kind == COLUMN_COUNT ? 10 : col->kind == COLUMN_SHARE ? 13 : 14;
}

static void print_cell(const struct kvm_events_column *col, struct kvm_events_key *key,
		       const struct table_totals *totals, FILE *fp)
{
	int width = column_width(col);
	bool untimed = !key->timed && col->value != col_samples &&
		       col->value != col_samples_share;

	if (untimed)
		fprintf(fp, " %*s", width, "-");
	else if (col->kind == COLUMN_COUNT)
		fprintf(fp, " %*" PRIu64, width, key->samples);
	else if (col->kind == COLUMN_SHARE)
		fprintf(fp, " %*.2f%%", width - 1, column_value(col, key, totals));
	else
		fprintf(fp, " %*.2fus", width - 2, column_value(col, key, totals) / 1000);
}

static void print_header(const struct kvm_events_display *d, FILE *fp)
{
	int i;

	fprintf(fp, "%20s", kvm_events_analysis__column(d->report->analysis));
	for (i = 0; i < d->view->nr_columns; i++) {
		const struct kvm_events_column *col = d->view->columns[i];
		int width = column_width(col);

		/* That layout's last header, "Avg time", stands out by one. */
		if (i == d->view->nr_columns - 1 && col->kind == COLUMN_TIME)
			width++;
		fprintf(fp, " %*s", width, col->header);
	}
	fprintf(fp, "\n\n");
}

static void print_row(const struct kvm_events_display *d, struct kvm_events_key *key,
		      const struct table_totals *totals, FILE *fp)
{
	int i;

	fprintf(fp, "%20s", key->name);
	for (i = 0; i < d->view->nr_columns; i++)
		print_cell(d->view->columns[i], key, totals, fp);
	fprintf(fp, "\n");
}

/* A log2 histogram in microseconds, as bcc and bpftrace draw them */
static void print_histogram(struct kvm_events_key *key, FILE *fp)
{
	int first = -1, last = -1, b, width = 40;
	u64 most = 0;

	for (b = 0; b < KVM_EVENTS_LOG2_BUCKETS; b++) {
		if (!key->log2_us[b])
			continue;
		if (first < 0)
			first = b;
		last = b;
		if (key->log2_us[b] > most)
			most = key->log2_us[b];
	}
	if (first < 0)
		return;
	fprintf(fp, "\n%s (us):\n", key->name);
	for (b = first; b <= last; b++) {
		u64 lo = b ? 1ULL << (b - 1) : 0, hi = 1ULL << b;
		int bar = most ? (int)(key->log2_us[b] * width / most) : 0;
		char range[48];

		if (b == KVM_EVENTS_LOG2_BUCKETS - 1)
			snprintf(range, sizeof(range), "[%" PRIu64 ", ...)", lo);
		else
			snprintf(range, sizeof(range), "[%" PRIu64 ", %" PRIu64 ")", lo, hi);
		fprintf(fp, "%-22s %10" PRIu64 " |%-*.*s|\n", range,
			key->log2_us[b], width, bar,
			"@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@");
	}
}

static const char *comm_of(const struct kvm_events_display *d, u32 pid)
{
	struct thread *thread;
	const char *comm = NULL;

	thread = machine__find_thread(d->machine, pid, pid);
	if (thread) {
		comm = thread__comm_str(thread);
		thread__put(thread);
	}
	return comm ? comm : "?";
}

static void print_title(const struct kvm_events_display *d, struct kvm_events_key **keys,
			size_t nr, FILE *fp)
{
	u32 group = nr ? keys[0]->group : 0;

	switch (nr ? d->report->opts.group : KVM_EVENTS_GROUP_NONE) {
	case KVM_EVENTS_GROUP_VCPU:
		if (group == KVM_EVENTS_NO_VCPU)
			fprintf(fp, "Analyze events for threads without a known VCPU id:\n\n");
		else
			fprintf(fp, "Analyze events for VCPU %u:\n\n", group);
		return;
	case KVM_EVENTS_GROUP_VM:
		fprintf(fp, "Analyze events for VM pid %u (%s):\n\n", group,
			comm_of(d, group));
		return;
	case KVM_EVENTS_GROUP_NONE:
	default:
		break;
	}
	if (!d->view->vcpus)
		fprintf(fp, "Analyze events for all VCPUs:\n\n");
	else if (strspn(d->view->vcpus, "0123456789") == strlen(d->view->vcpus))
		fprintf(fp, "Analyze events for VCPU %s:\n\n", d->view->vcpus);
	else
		fprintf(fp, "Analyze events for VCPUs %s:\n\n", d->view->vcpus);
}

static bool is_idle(const struct kvm_events_display *d, const struct kvm_events_key *key)
{
	return d->view->split_idle &&
	       kvm_events_analysis__is_idle(d->report->analysis, key->key);
}

/* Prints keys[0..nr) whose idleness is @idle, as one table. */
static void print_rows(const struct kvm_events_display *d, struct kvm_events_key **keys,
		       size_t nr, bool idle, FILE *fp)
{
	struct table_totals totals = { 0, 0 };
	size_t i;

	for (i = 0; i < nr; i++) {
		/* Samples% stays a share of every sample, idle or not. */
		totals.samples += keys[i]->samples;
		if (is_idle(d, keys[i]) == idle)
			totals.total_ns += keys[i]->total_ns;
	}
	for (i = 0; i < nr; i++) {
		if (is_idle(d, keys[i]) == idle)
			print_row(d, keys[i], &totals, fp);
	}
	if (!idle)
		fprintf(fp, "\nTotal Samples:%" PRIu64 ", Total events handled time:%.2fus.\n",
			totals.samples, (double)totals.total_ns / 1000);
}

static bool has_idle(const struct kvm_events_display *d, struct kvm_events_key **keys,
		     size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++) {
		if (is_idle(d, keys[i]))
			return true;
	}
	return false;
}

static void print_table(const struct kvm_events_display *d, struct kvm_events_key **keys,
			size_t nr, FILE *fp)
{
	size_t i;

	fprintf(fp, "\n\n");
	print_title(d, keys, nr, fp);
	print_header(d, fp);
	print_rows(d, keys, nr, false, fp);
	if (has_idle(d, keys, nr)) {
		fprintf(fp,
			"\nIdle: the vcpu waits for work; not in Time%% or the total above:\n\n");
		print_header(d, fp);
		print_rows(d, keys, nr, true, fp);
	}
	for (i = 0; d->report->opts.histogram && i < nr; i++)
		print_histogram(keys[i], fp);
}

static void print_no_samples(const struct kvm_events_display *d, FILE *fp)
{
	const struct kvm_events_totals *t = &d->report->totals;
	const char *sep = "";
	int tp;

	fprintf(fp, "No %s samples; kvm events read:",
		kvm_events_analysis__name(d->report->analysis));
	for (tp = 0; tp < KVM_TP__NR; tp++) {
		if (!t->by_tp[tp])
			continue;
		fprintf(fp, "%s %s %" PRIu64, sep, kvm_tp_role__name(tp), t->by_tp[tp]);
		sep = ",";
	}
	fprintf(fp, "%s.\n", *sep ? "" : " none");
}

static void print_top(const struct kvm_events_display *d, FILE *fp)
{
	const struct kvm_events_report *r = d->report;
	u32 i;

	fprintf(fp, "\nSlowest %u events:\n\n%16s %10s %8s %20s %15s %18s\n\n",
		r->nr_top, "Time", "VCPU", "PID",
		kvm_events_analysis__column(r->analysis), "Duration", "Guest RIP");
	for (i = 0; i < r->nr_top; i++) {
		const struct kvm_events_outlier *o = &r->top[i];
		char time[32], vcpu[16], name[KVM_EVENTS_NAME_LEN];

		kvm_events_analysis__key_name(r->analysis, o->key, name, sizeof(name));
		timestamp__scnprintf_usec(o->time, time, sizeof(time));
		if (o->vcpu == KVM_EVENTS_NO_VCPU)
			snprintf(vcpu, sizeof(vcpu), "?");
		else
			snprintf(vcpu, sizeof(vcpu), "%u", o->vcpu);
		fprintf(fp, "%16s %10s %8u %20s %13.2fus %#18" PRIx64 "\n", time,
			vcpu, o->pid, name,
			(double)o->duration / 1000, o->rip);
	}
}

static void print_footer(const struct kvm_events_display *d, FILE *fp)
{
	const struct kvm_events_totals *t = &d->report->totals;

	if (!t->keyed)
		print_no_samples(d, fp);
	if (t->no_end || t->no_begin)
		fprintf(fp, "Samples without time:%llu (no end event:%llu, no begin event:%llu).\n",
			(unsigned long long)(t->no_end + t->no_begin),
			(unsigned long long)t->no_end, (unsigned long long)t->no_begin);
	if (t->filtered)
		fprintf(fp, "Filtered out:%" PRIu64 " samples.\n", t->filtered);
	if (t->no_memory)
		fprintf(fp, "Left out for lack of memory:%" PRIu64 " samples.\n", t->no_memory);
	if (kvm_events_totals__lost(t))
		fprintf(fp, "Lost events:%" PRIu64 ", in %" PRIu64 " chunks.\n",
			kvm_events_totals__lost(t), t->lost_chunks);
	if (t->out_of_order)
		fprintf(fp, "Out of time order:%" PRIu64 " events, paired as they came.\n",
			t->out_of_order);
	if (verbose <= 0)
		return;
	fprintf(fp, "Samples read:%" PRIu64 " = counted in a key %" PRIu64,
		t->read, t->keyed);
	fprintf(fp, " + ends of counted samples %" PRIu64 " + filtered %" PRIu64,
		t->paired_end, t->filtered);
	fprintf(fp, " + other %" PRIu64 " + left out for lack of memory %" PRIu64 ".\n",
		t->unused, t->no_memory);
}

void kvm_events_display__tables(const struct kvm_events_display *d,
				struct kvm_events_key **keys, size_t nr, FILE *fp)
{
	size_t start = 0, end;

	/* Sorted by group first: one table per run of equal groups. */
	do {
		for (end = start; end < nr && keys[end]->group == keys[start]->group; end++)
			;
		print_table(d, keys + start, end - start, fp);
		start = end;
	} while (start < nr);
	if (d->report->opts.top)
		print_top(d, fp);
	print_footer(d, fp);
}

/*
 * --key names: every --fields column, perf kvm stat's names, and the
 * first names of this command.  A share sorts as the count it is of.
 */
static const struct {
	const char		*name;
	enum kvm_events_sort	sort;
} sort_names[] = {
	{ "samples",	KVM_EVENTS_SORT_SAMPLE },
	{ "samples%",	KVM_EVENTS_SORT_SAMPLE },
	{ "time%",	KVM_EVENTS_SORT_TIME },
	{ "total",	KVM_EVENTS_SORT_TIME },
	{ "min",	KVM_EVENTS_SORT_MIN },
	{ "max",	KVM_EVENTS_SORT_MAX },
	{ "avg",	KVM_EVENTS_SORT_MEAN },
	{ "stddev",	KVM_EVENTS_SORT_STDDEV },
	{ "p50",	KVM_EVENTS_SORT_P50 },
	{ "p90",	KVM_EVENTS_SORT_P90 },
	{ "p99",	KVM_EVENTS_SORT_P99 },
	{ "p99.9",	KVM_EVENTS_SORT_P99_9 },
	{ "name",	KVM_EVENTS_SORT_NAME },
	{ "sample",	KVM_EVENTS_SORT_SAMPLE },
	{ "time",	KVM_EVENTS_SORT_TIME },
	{ "mean",	KVM_EVENTS_SORT_MEAN },
	{ "max_t",	KVM_EVENTS_SORT_MAX },
	{ "min_t",	KVM_EVENTS_SORT_MIN },
	{ "mean_t",	KVM_EVENTS_SORT_MEAN },
	{ "ev_name",	KVM_EVENTS_SORT_NAME },
};

static int sort_key__find(const char *name, enum kvm_events_sort *sort)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(sort_names); i++) {
		if (!strcmp(name, sort_names[i].name)) {
			*sort = sort_names[i].sort;
			return 0;
		}
	}
	return -EINVAL;
}

int kvm_events_view__set_sort(struct kvm_events_view *view, const char *cmd,
			      const char *list)
{
	char *copy = strdup(list), *tok, *save = NULL;
	struct kvm_events_sort_keys *keys = &view->sort;
	int ret = 0;

	if (!copy)
		return -ENOMEM;
	keys->nr = 0;
	for (tok = strtok_r(copy, ",", &save); tok && !ret; tok = strtok_r(NULL, ",", &save)) {
		if (keys->nr == KVM_EVENTS_MAX_SORT_KEYS) {
			pr_err("perf kvm-events %s: --key %s: more than %d keys\n",
			       cmd, list, KVM_EVENTS_MAX_SORT_KEYS);
			ret = -EINVAL;
		} else if (sort_key__find(tok, &keys->by[keys->nr++])) {
			pr_err("perf kvm-events %s: --key %s: unknown key '%s', expected a comma separated list of %s\n",
			       cmd, list, tok, KVM_EVENTS_SORT_NAMES);
			ret = -EINVAL;
		}
	}
	free(copy);
	if (!ret && !keys->nr) {
		pr_err("perf kvm-events %s: --key '%s': no key, expected a comma separated list of %s\n",
		       cmd, list, KVM_EVENTS_SORT_NAMES);
		ret = -EINVAL;
	}
	view->sort_names = ret ? NULL : list;
	if (ret)
		keys->nr = 0;
	return ret;
}

static void json_string(const char *str, FILE *fp)
{
	fputc('"', fp);
	for (; *str; str++) {
		if (*str == '"' || *str == '\\')
			fprintf(fp, "\\%c", *str);
		else if ((unsigned char)*str < 0x20)
			fprintf(fp, "\\u%04x", *str);
		else
			fputc(*str, fp);
	}
	fputc('"', fp);
}

static const char * const group_names[] = {
	[KVM_EVENTS_GROUP_NONE] = "none",
	[KVM_EVENTS_GROUP_VCPU] = "vcpu",
	[KVM_EVENTS_GROUP_VM]	= "vm",
};

/* Every statistic of a key: times in ns, exact integers where they are */
static void json_key(const struct kvm_events_display *d, struct kvm_events_key *key,
		     const struct table_totals *totals, FILE *fp)
{
	/* A vcpu whose id no event recorded is no vcpu 0: null. */
	if (d->report->opts.group == KVM_EVENTS_GROUP_VCPU && key->group == KVM_EVENTS_NO_VCPU)
		fprintf(fp, "    {\"group\": null, \"key\": ");
	else
		fprintf(fp, "    {\"group\": %u, \"key\": ", key->group);
	json_string(key->name, fp);
	fprintf(fp, ", \"samples\": %" PRIu64 ", \"timed\": %" PRIu64
		", \"samples_pct\": %.6f, \"time_pct\": %.6f, \"total_ns\": %" PRIu64,
		key->samples, key->timed, col_samples_share(key, totals),
		col_time_share(key, totals), key->total_ns);
	if (key->timed) {
		fprintf(fp, ", \"min_ns\": %" PRIu64 ", \"max_ns\": %" PRIu64
			", \"avg_ns\": %.3f, \"stddev_ns\": %.3f",
			key->stats.min, key->stats.max, col_avg(key, totals),
			kvm_events_key__stddev(key));
	}
	if (key->timed && key->dist) {
		fprintf(fp, ", \"p50_ns\": %" PRIu64 ", \"p90_ns\": %" PRIu64
			", \"p99_ns\": %" PRIu64 ", \"p99.9_ns\": %" PRIu64
			", \"percentiles_exact\": %s",
			kvm_events_key__percentile(key, 50),
			kvm_events_key__percentile(key, 90),
			kvm_events_key__percentile(key, 99),
			kvm_events_key__percentile(key, 99.9),
			kvm_events_key__percentile_exact(key) ? "true" : "false");
	}
	fprintf(fp, ", \"idle\": %s}",
		kvm_events_analysis__is_idle(d->report->analysis, key->key) ?
		"true" : "false");
}

static void json_filter(const char *name, const char *value, FILE *fp)
{
	fprintf(fp, "\"%s\": ", name);
	if (value)
		json_string(value, fp);
	else
		fprintf(fp, "null");
}

/*
 * Shares are of the key's group, as in the tables.  Keys come sorted by
 * group: the totals are summed once per group, at its first key.
 */
static void group_totals(struct kvm_events_key **keys, size_t nr, size_t i,
			 struct table_totals *totals)
{
	size_t j;

	if (i && keys[i - 1]->group == keys[i]->group)
		return;
	totals->samples = totals->total_ns = 0;
	for (j = i; j < nr && keys[j]->group == keys[i]->group; j++) {
		totals->samples += keys[j]->samples;
		totals->total_ns += keys[j]->total_ns;
	}
}

/* --top in JSON: the slowest events, slowest first */
static void json_top(const struct kvm_events_display *d, FILE *fp)
{
	const struct kvm_events_report *r = d->report;
	u32 i;

	fprintf(fp, "  \"top\": [");
	for (i = 0; i < r->nr_top; i++) {
		const struct kvm_events_outlier *o = &r->top[i];
		char name[KVM_EVENTS_NAME_LEN];

		kvm_events_analysis__key_name(r->analysis, o->key, name, sizeof(name));
		fprintf(fp, "%s\n    {\"time_ns\": %" PRIu64 ", \"vcpu\": ", i ? "," : "", o->time);
		if (o->vcpu == KVM_EVENTS_NO_VCPU)
			fprintf(fp, "null");
		else
			fprintf(fp, "%u", o->vcpu);
		fprintf(fp, ", \"pid\": %u, \"key\": ", o->pid);
		json_string(name, fp);
		fprintf(fp, ", \"duration_ns\": %" PRIu64 ", \"rip\": \"%#" PRIx64 "\"}",
			o->duration, o->rip);
	}
	fprintf(fp, "%s],\n", r->nr_top ? "\n  " : "");
}

static void print_json(const struct kvm_events_display *d, struct kvm_events_key **keys,
		       size_t nr, FILE *fp)
{
	const struct kvm_events_totals *t = &d->report->totals;
	char duration[32];
	struct table_totals totals = { 0, 0 };
	size_t i;
	int tp;

	snprintf(duration, sizeof(duration), "%g", d->view->duration_us);
	fprintf(fp, "{\n  \"input\": ");
	json_string(d->input, fp);
	fprintf(fp, ",\n  \"analysis\": \"%s\",\n  \"sort\": ",
		kvm_events_analysis__name(d->report->analysis));
	json_string(d->view->sort_names, fp);
	fprintf(fp, ",\n  \"group_by\": \"%s\",\n  \"filters\": {",
		group_names[d->report->opts.group]);
	json_filter("vcpu", d->view->vcpus, fp);
	fprintf(fp, ", ");
	json_filter("pid", d->view->pids, fp);
	fprintf(fp, ", ");
	json_filter("time", d->view->time, fp);
	fprintf(fp, ", ");
	json_filter("duration_us", d->view->duration_us > 0 ? duration : NULL, fp);
	fprintf(fp, "},\n  \"keys\": [\n");
	for (i = 0; i < nr; i++) {
		group_totals(keys, nr, i, &totals);
		json_key(d, keys[i], &totals, fp);
		fprintf(fp, "%s\n", i + 1 < nr ? "," : "");
	}
	fprintf(fp, "  ],\n");
	if (d->report->opts.top)
		json_top(d, fp);
	fprintf(fp, "  \"totals\": {\"read\": %" PRIu64 ", \"samples\": %" PRIu64
		", \"total_ns\": %" PRIu64 ", \"no_end\": %" PRIu64 ", \"no_begin\": %" PRIu64
		", \"filtered\": %" PRIu64 ", \"paired_ends\": %" PRIu64 ", \"other\": %" PRIu64
		", \"no_memory\": %" PRIu64
		", \"lost_events\": %" PRIu64 ", \"lost_chunks\": %" PRIu64
		", \"perf_record_lost\": %" PRIu64 ", \"perf_record_lost_samples\": %" PRIu64
		", \"out_of_order\": %" PRIu64 "},\n"
		"  \"events_read\": {",
		t->read, t->keyed, t->total_ns, t->no_end, t->no_begin, t->filtered,
		t->paired_end, t->unused, t->no_memory, kvm_events_totals__lost(t), t->lost_chunks,
		t->lost_events, t->lost_samples, t->out_of_order);
	for (tp = 0; tp < KVM_TP__NR; tp++)
		fprintf(fp, "\"%s\": %" PRIu64 "%s", kvm_tp_role__name(tp), t->by_tp[tp],
			tp + 1 < KVM_TP__NR ? ", " : "");
	fprintf(fp, "}\n}\n");
}

/* One row per key; the totals and filters come first as # comments. */
static void print_csv(const struct kvm_events_display *d, struct kvm_events_key **keys,
		      size_t nr, FILE *fp)
{
	const struct kvm_events_totals *t = &d->report->totals;
	struct table_totals totals = { 0, 0 };
	size_t i;

	fprintf(fp,
		"# input=%s analysis=%s sort=%s group_by=%s vcpu=%s pid=%s time=%s duration_us=%g\n",
		d->input, kvm_events_analysis__name(d->report->analysis),
		d->view->sort_names, group_names[d->report->opts.group],
		d->view->vcpus ?: "", d->view->pids ?: "", d->view->time ?: "",
		d->view->duration_us);
	fprintf(fp, "# read=%" PRIu64 " samples=%" PRIu64 " total_ns=%" PRIu64
		" no_end=%" PRIu64 " no_begin=%" PRIu64 " filtered=%" PRIu64
		" paired_ends=%" PRIu64 " other=%" PRIu64 " no_memory=%" PRIu64
		" lost_events=%" PRIu64
		" lost_chunks=%" PRIu64 " perf_record_lost=%" PRIu64
		" perf_record_lost_samples=%" PRIu64 " out_of_order=%" PRIu64 "\n",
		t->read, t->keyed, t->total_ns, t->no_end, t->no_begin, t->filtered,
		t->paired_end, t->unused, t->no_memory, kvm_events_totals__lost(t), t->lost_chunks,
		t->lost_events, t->lost_samples, t->out_of_order);
	fprintf(fp,
		"group,key,samples,timed,samples_pct,time_pct,total_ns,min_ns,max_ns,avg_ns,stddev_ns,p50_ns,p90_ns,p99_ns,p99.9_ns,idle\n");
	for (i = 0; i < nr; i++) {
		struct kvm_events_key *key = keys[i];

		group_totals(keys, nr, i, &totals);
		/* An unknown vcpu: an empty cell */
		if (d->report->opts.group != KVM_EVENTS_GROUP_VCPU ||
		    key->group != KVM_EVENTS_NO_VCPU)
			fprintf(fp, "%u", key->group);
		fprintf(fp, ",%s,%" PRIu64 ",%" PRIu64 ",%.6f,%.6f,%" PRIu64,
			key->name, key->samples, key->timed,
			col_samples_share(key, &totals),
			col_time_share(key, &totals), key->total_ns);
		if (key->timed)
			fprintf(fp, ",%" PRIu64 ",%" PRIu64 ",%.3f,%.3f", key->stats.min,
				key->stats.max, col_avg(key, &totals),
				kvm_events_key__stddev(key));
		else
			fprintf(fp, ",,,,");
		if (key->timed && key->dist)
			fprintf(fp, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64,
				kvm_events_key__percentile(key, 50),
				kvm_events_key__percentile(key, 90),
				kvm_events_key__percentile(key, 99),
				kvm_events_key__percentile(key, 99.9));
		else
			fprintf(fp, ",,,,");
		fprintf(fp, ",%d\n",
			kvm_events_analysis__is_idle(d->report->analysis, key->key));
	}
}

int kvm_events_display__report(const struct kvm_events_display *d)
{
	struct kvm_events_key **keys;
	size_t nr;

	keys = kvm_events_report__sorted(d->report, &d->view->sort, &nr);
	if (!keys)
		return -ENOMEM;
	kvm_events_report__sort_top(d->report);
	if (d->view->format == KVM_EVENTS_FORMAT_JSON)
		print_json(d, keys, nr, stdout);
	else if (d->view->format == KVM_EVENTS_FORMAT_CSV)
		print_csv(d, keys, nr, stdout);
	else
		kvm_events_display__tables(d, keys, nr, stdout);
	free(keys);
	return 0;
}

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

	fprintf(fp, "%20s", row->name);
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
	const char *column = kvm_events_analysis__column(sides->old->report->analysis);
	size_t i;

	fprintf(fp, "%20s", "");
	for (i = 0; i < nr_cols; i++)
		fprintf(fp, "%s %*s %*s", i ? "          " : "", DIFF_CELL,
			diff_metrics[cols[i]].header, DIFF_CELL, diff_metrics[cols[i]].header);
	fprintf(fp, "\n%20s", column);
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

static void print_diff(const struct diff_sides *sides, const struct diff_row *rows,
		       size_t nr, FILE *fp)
{
	bool split_idle = sides->old->view->split_idle;
	size_t i, nr_idle = 0;

	for (i = 0; i < nr; i++)
		nr_idle += rows[i].idle;
	fprintf(fp, "\n\nCompare %s (%.6fs) with %s (%.6fs):\n\n", sides->old->input,
		sides->old_s, sides->new->input, sides->new_s);
	print_diff_rows(sides, rows, nr, false, fp);
	if (split_idle && nr_idle) {
		fprintf(fp, "\nIdle: the vcpu waits for work:\n\n");
		print_diff_rows(sides, rows, nr, true, fp);
	}
	print_diff_sort(sides->sort, fp);
}

/* Both recordings' keys, joined by name, in the order of the sort keys */
int kvm_events_display__diff(const struct kvm_events_display *old, double old_s,
			     const struct kvm_events_display *new, double new_s,
			     FILE *fp)
{
	const struct kvm_events_sort_keys by_name = { .nr = 0 };
	const struct kvm_events_analysis *analysis = old->report->analysis;
	struct diff_sides sides = { old, new, old_s, new_s, &old->view->sort };
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
			       kvm_events_analysis__is_idle(analysis, key->key);
	}
	diff_sort_sides = &sides;
	qsort(rows, nr, sizeof(*rows), compare_diff_rows);
	print_diff(&sides, rows, nr, fp);
	free(o);
	free(n);
	free(rows);
	return 0;
}

void kvm_events_display__interval(const struct kvm_events_display *d,
				  struct kvm_events_key **keys, size_t nr,
				  double seconds, FILE *fp)
{
	struct table_totals totals = { 0, 0 };
	size_t i;

	for (i = 0; i < nr; i++) {
		totals.samples += keys[i]->samples;
		totals.total_ns += keys[i]->total_ns;
	}
	fprintf(fp, "Last %.1fs:\n\n%20s %10s %13s %13s %15s\n\n", seconds,
		kvm_events_analysis__column(d->report->analysis), "Samples",
		"Samples%", "Time%", "Avg time");
	for (i = 0; i < nr; i++) {
		fprintf(fp, "%20s %10" PRIu64 " %12.2f%%", keys[i]->name,
			keys[i]->samples, col_samples_share(keys[i], &totals));
		if (keys[i]->timed)
			fprintf(fp, " %12.2f%% %12.2fus\n",
				col_time_share(keys[i], &totals),
				col_avg(keys[i], &totals) / 1000);
		else
			fprintf(fp, " %13s %14s\n", "-", "-");
	}
	fprintf(fp, "\nSamples:%" PRIu64 " in the last interval.\n", totals.samples);
}
