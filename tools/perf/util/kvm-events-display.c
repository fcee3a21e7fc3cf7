// SPDX-License-Identifier: GPL-2.0
/*
 * perf kvm-events' printers: the text tables of a report (--stats and
 * --fields columns, --histogram, --top, the footer) and live's interval
 * table.  JSON and CSV are in kvm-events-display-json.c, diff's output
 * in kvm-events-display-diff.c.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <linux/kernel.h>

#include "debug.h"
#include "kvm-events.h"
#include "kvm-events-display.h"
#include "kvm-events-sched.h"
#include "kvm-events-vms.h"
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

struct kvm_events_column {
	const char	*name;		/* for --fields, json and csv */
	const char	*header;
	enum column_kind kind;
	double		pct;		/* a percentile's; 0: value() says */
	double		(*value)(struct kvm_events_key *key,
				 const struct kvm_events_table_totals *totals);
};

static double col_samples(struct kvm_events_key *key,
			  const struct kvm_events_table_totals *t __maybe_unused)
{
	return key->samples;
}

double kvm_events_samples_share(struct kvm_events_key *key,
				const struct kvm_events_table_totals *t)
{
	return t->samples ? (double)key->samples * 100 / t->samples : 0;
}

double kvm_events_time_share(struct kvm_events_key *key,
			     const struct kvm_events_table_totals *t)
{
	return t->total_ns ? (double)key->total_ns * 100 / t->total_ns : 0;
}

static double col_total(struct kvm_events_key *key,
			const struct kvm_events_table_totals *t __maybe_unused)
{
	return key->total_ns;
}

static double col_min(struct kvm_events_key *key,
		      const struct kvm_events_table_totals *t __maybe_unused)
{
	return key->stats.min;
}

static double col_max(struct kvm_events_key *key,
		      const struct kvm_events_table_totals *t __maybe_unused)
{
	return key->stats.max;
}

double kvm_events_avg_ns(struct kvm_events_key *key,
		      const struct kvm_events_table_totals *t __maybe_unused)
{
	return (double)key->total_ns / key->timed;
}

static double col_stddev(struct kvm_events_key *key,
			 const struct kvm_events_table_totals *t __maybe_unused)
{
	return kvm_events_key__stddev(key);
}

static const struct kvm_events_column columns[] = {
	{ "samples", "Samples", COLUMN_COUNT, 0, col_samples },
	{ "samples%", "Samples%", COLUMN_SHARE, 0, kvm_events_samples_share },
	{ "time%", "Time%", COLUMN_SHARE, 0, kvm_events_time_share },
	{ "total", "Total time", COLUMN_TIME, 0, col_total },
	{ "min", "Min time", COLUMN_TIME, 0, col_min },
	{ "max", "Max time", COLUMN_TIME, 0, col_max },
	{ "avg", "Avg time", COLUMN_TIME, 0, kvm_events_avg_ns },
	{ "stddev", "Stddev", COLUMN_TIME, 0, col_stddev },
	{ "p50", "p50", COLUMN_TIME, 50, NULL },
	{ "p90", "p90", COLUMN_TIME, 90, NULL },
	{ "p99", "p99", COLUMN_TIME, 99, NULL },
	{ "p99.9", "p99.9", COLUMN_TIME, 99.9, NULL },
};

/*
 * The time on and off CPU, where switches were recorded: per part of
 * enum kvm_events_cpu_part, in its order, its share of the key's time
 * and its percentiles.
 */
#define CPU_PART_NR_COLUMNS	5

static const struct kvm_events_column cpu_part_columns[] = {
	{ "oncpu", "On CPU%", COLUMN_SHARE, 0, NULL },
	{ "oncpu.p50", "On CPU p50", COLUMN_TIME, 50, NULL },
	{ "oncpu.p90", "On CPU p90", COLUMN_TIME, 90, NULL },
	{ "oncpu.p99", "On CPU p99", COLUMN_TIME, 99, NULL },
	{ "oncpu.p99.9", "On CPU p99.9", COLUMN_TIME, 99.9, NULL },
	{ "offcpu", "Off CPU%", COLUMN_SHARE, 0, NULL },
	{ "offcpu.p50", "Off CPU p50", COLUMN_TIME, 50, NULL },
	{ "offcpu.p90", "Off CPU p90", COLUMN_TIME, 90, NULL },
	{ "offcpu.p99", "Off CPU p99", COLUMN_TIME, 99, NULL },
	{ "offcpu.p99.9", "Off CPU p99.9", COLUMN_TIME, 99.9, NULL },
	{ "preempted", "Preempt%", COLUMN_SHARE, 0, NULL },
	{ "preempted.p50", "Preempt p50", COLUMN_TIME, 50, NULL },
	{ "preempted.p90", "Preempt p90", COLUMN_TIME, 90, NULL },
	{ "preempted.p99", "Preempt p99", COLUMN_TIME, 99, NULL },
	{ "preempted.p99.9", "Preempt p99.9", COLUMN_TIME, 99.9, NULL },
	{ "blocked", "Blocked%", COLUMN_SHARE, 0, NULL },
	{ "blocked.p50", "Blocked p50", COLUMN_TIME, 50, NULL },
	{ "blocked.p90", "Blocked p90", COLUMN_TIME, 90, NULL },
	{ "blocked.p99", "Blocked p99", COLUMN_TIME, 99, NULL },
	{ "blocked.p99.9", "Blocked p99.9", COLUMN_TIME, 99.9, NULL },
};

/* 1 + the part of the time on or off CPU that @col shows; 0: none */
static int column_cpu_part(const struct kvm_events_column *col)
{
	if (col < cpu_part_columns || col >= cpu_part_columns + ARRAY_SIZE(cpu_part_columns))
		return 0;
	return 1 + (col - cpu_part_columns) / CPU_PART_NR_COLUMNS;
}

/* A part of the key's time on or off CPU: its share, or a percentile */
static double cpu_part_value(const struct kvm_events_column *col,
			     const struct kvm_events_key *key)
{
	const struct kvm_events_split *split = key->split;
	u64 total = split->ns[KVM_EVENTS_ONCPU] + split->ns[KVM_EVENTS_OFFCPU];
	int part = column_cpu_part(col) - 1;

	if (col->pct)
		return kvm_events_split__percentile(split, part, col->pct);
	return total ? (double)split->ns[part] * 100 / total : 0;
}

static double column_value(const struct kvm_events_column *col,
			   struct kvm_events_key *key,
			   const struct kvm_events_table_totals *totals)
{
	if (column_cpu_part(col))
		return cpu_part_value(col, key);
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
	for (i = 0; i < ARRAY_SIZE(cpu_part_columns); i++) {
		if (!strcmp(cpu_part_columns[i].name, name))
			return &cpu_part_columns[i];
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

void kvm_events_view__fit(struct kvm_events_view *view,
			  const struct kvm_events_report *report, const char *input)
{
	int i, kept = 0;

	if (report->opts.sched)
		return;
	for (i = 0; i < view->nr_columns; i++) {
		if (!column_cpu_part(view->columns[i]))
			view->columns[kept++] = view->columns[i];
	}
	if (kept == view->nr_columns)
		return;
	pr_warning("%s: no context switches recorded, so no time on or off CPU: those columns are left out; record with: perf kvm-events record --sched\n",
		   input);
	view->nr_columns = kept;
}

void kvm_events_view__needs(const struct kvm_events_view *view,
			    struct kvm_events_options *opts)
{
	int i;

	opts->site = view->site;
	opts->histogram |= view->histogram;
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

/* The original layout's width of the key column, and its least */
#define KEY_WIDTH	20
/* Digits a time may take in its unit before it moves to the next one */
#define TIME_DIGITS	12

/*
 * A time in us, as the original layout has it, unless it would take more
 * than TIME_DIGITS: then in ms or s, so that the cell keeps its @width.
 */
static void print_time(double ns, int width, FILE *fp)
{
	static const struct { const char *unit; double ns; } units[] = {
		{ "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 },
	};
	char digits[64];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(units); i++) {
		snprintf(digits, sizeof(digits), "%.2f", ns / units[i].ns);
		if (strlen(digits) <= TIME_DIGITS)
			break;
	}
	if (i == ARRAY_SIZE(units))
		i--;
	fprintf(fp, " %*s%s", width - (int)strlen(units[i].unit), digits, units[i].unit);
}

/* The key column fits the longest of @keys' names, and is at least KEY_WIDTH */
static int key_width(struct kvm_events_key **keys, size_t nr)
{
	int width = KEY_WIDTH;
	size_t i;

	for (i = 0; i < nr; i++)
		width = max_t(int, width, strlen(keys[i]->name));
	return width;
}

static void print_cell(const struct kvm_events_column *col, struct kvm_events_key *key,
		       const struct kvm_events_table_totals *totals, FILE *fp)
{
	int width = column_width(col);
	bool untimed = !key->timed && col->value != col_samples &&
		       col->value != kvm_events_samples_share;

	/* Not a false zero: some of its events had no split, halt's say. */
	if (column_cpu_part(col) && !kvm_events_split__whole(key->split, key->timed))
		untimed = true;
	if (untimed)
		fprintf(fp, " %*s", width, "-");
	else if (col->kind == COLUMN_COUNT)
		fprintf(fp, " %*" PRIu64, width, key->samples);
	else if (col->kind == COLUMN_SHARE)
		fprintf(fp, " %*.2f%%", width - 1, column_value(col, key, totals));
	else
		print_time(column_value(col, key, totals), width, fp);
}

static void print_header(const struct kvm_events_display *d, int width, FILE *fp)
{
	int i;

	fprintf(fp, "%*s", width, kvm_events_report__column(d->report));
	for (i = 0; i < d->view->nr_columns; i++) {
		const struct kvm_events_column *col = d->view->columns[i];
		int cell = column_width(col);

		/* That layout's last header, "Avg time", stands out by one. */
		if (i == d->view->nr_columns - 1 && col->kind == COLUMN_TIME)
			cell++;
		fprintf(fp, " %*s", cell, col->header);
	}
	fprintf(fp, "\n\n");
}

static void print_row(const struct kvm_events_display *d, struct kvm_events_key *key,
		      const struct kvm_events_table_totals *totals, int width, FILE *fp)
{
	int i;

	fprintf(fp, "%*s", width, key->name);
	for (i = 0; i < d->view->nr_columns; i++)
		print_cell(d->view->columns[i], key, totals, fp);
	fprintf(fp, "\n");
}

/* The buckets from a key's first non-empty one to its last; false: none */
bool kvm_events_histogram_span(const struct kvm_events_key *key, int *first,
			       int *last)
{
	int b;

	*first = *last = -1;
	for (b = 0; key->log2_ns && b < KVM_EVENTS_LOG2_BUCKETS; b++) {
		if (!key->log2_ns[b])
			continue;
		if (*first < 0)
			*first = b;
		*last = b;
	}
	return *first >= 0;
}

/* The upper bound of a bucket; false for the last, which has none */
bool kvm_events_log2_bucket_high(int bucket, u64 *high)
{
	if (bucket == KVM_EVENTS_LOG2_BUCKETS - 1)
		return false;
	*high = 1ULL << bucket;
	return true;
}

static void log2_bucket_range(int bucket, char *buf, size_t size)
{
	u64 high = 0;

	if (kvm_events_log2_bucket_high(bucket, &high))
		snprintf(buf, size, "[%" PRIu64 ", %" PRIu64 ")",
			 kvm_events_log2_bucket_low(bucket), high);
	else
		snprintf(buf, size, "[%" PRIu64 ", ...)", kvm_events_log2_bucket_low(bucket));
}

/* A log2 histogram in nanoseconds, drawn as bcc and bpftrace draw theirs */
static void print_histogram(struct kvm_events_key *key, FILE *fp)
{
	static const char bar[] = "@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@";
	int first, last, b, width = sizeof(bar) - 1, range_width;
	char range[48];
	u64 most = 0;

	if (!kvm_events_histogram_span(key, &first, &last))
		return;
	for (b = first; b <= last; b++)
		most = max(most, key->log2_ns[b]);
	/* The last range is the widest: the ranges line up on it. */
	log2_bucket_range(last, range, sizeof(range));
	range_width = max_t(int, strlen(range), 16);
	fprintf(fp, "\n%s (ns):\n", key->name);
	for (b = first; b <= last; b++) {
		int len = (int)(key->log2_ns[b] * width / most);

		log2_bucket_range(b, range, sizeof(range));
		fprintf(fp, "%-*s %10" PRIu64 " |%-*.*s|\n", range_width, range,
			key->log2_ns[b], width, len, bar);
	}
}

const char *kvm_events_display__comm(const struct kvm_events_display *d, u32 pid)
{
	const struct kvm_events_vm *vm;
	struct thread *thread;
	const char *comm = NULL;

	thread = d->machine ? machine__find_thread(d->machine, pid, pid) : NULL;
	if (thread) {
		comm = thread__comm_str(thread);
		thread__put(thread);
	}
	/* A process that started before the recording has no COMM in it. */
	if (!comm || !*comm) {
		vm = kvm_events_display__vm(d, pid);
		comm = vm && vm->comm ? vm->comm : comm;
	}
	return comm;
}

const struct kvm_events_vm *kvm_events_display__vm(const struct kvm_events_display *d, u32 pid)
{
	return d->vms ? kvm_events_vms__find(d->vms, pid) : NULL;
}

const char *kvm_events_display__vm_name(const struct kvm_events_display *d, u32 pid)
{
	const struct kvm_events_vm *vm = kvm_events_display__vm(d, pid);

	return vm ? vm->name ?: vm->uuid : NULL;
}

/* A task's comm, or NULL: the idle task's is in no thread perf keeps */
const char *kvm_events_display__task_comm(const struct kvm_events_display *d, u32 tid)
{
	return tid ? kvm_events_display__comm(d, tid) : "swapper";
}

static bool is_number(const char *list)
{
	return strspn(list, "0123456789") == strlen(list);
}

/* A name in a text line: its control characters (a newline...) as '?' */
void kvm_events_print_name(const char *name, FILE *fp)
{
	for (; *name; name++)
		fputc(iscntrl((unsigned char)*name) ? '?' : *name, fp);
}

/* "VM web1 (pid 4242, qemu-system-x86)", where its owner named it */
static bool print_vm_name(const struct kvm_events_display *d, u32 pid, const char *comm,
			  FILE *fp)
{
	const char *name = kvm_events_display__vm_name(d, pid);

	if (!name)
		return false;
	fputs("VM ", fp);
	kvm_events_print_name(name, fp);
	fprintf(fp, " (pid %u%s%s)", pid, comm ? ", " : "", comm ?: "");
	return true;
}

/* "VM pid 4242 (qemu-system-x86)", without the comm when it is unknown */
static void print_vm(const struct kvm_events_display *d, u32 pid, FILE *fp)
{
	const char *comm = kvm_events_display__comm(d, pid);

	if (print_vm_name(d, pid, comm, fp))
		return;
	fprintf(fp, "VM pid %u", pid);
	if (comm)
		fprintf(fp, " (%s)", comm);
}

/* The vcpus --vcpu shows, after @sep; nothing when it shows all */
static void print_vcpus_shown(const struct kvm_events_display *d, const char *sep, FILE *fp)
{
	const char *vcpus = d->view->vcpus;

	if (vcpus)
		fprintf(fp, "%s%s %s", sep, is_number(vcpus) ? "VCPU" : "VCPUs", vcpus);
}

/* Which VMs and vcpus the table shows: its group's, or the filters' */
static void print_title(const struct kvm_events_display *d, struct kvm_events_key **keys,
			size_t nr, FILE *fp)
{
	u32 group = nr ? keys[0]->group : 0;
	const char *pids = d->view->pids;

	fprintf(fp, "Analyze events for ");
	switch (nr ? d->report->opts.group : KVM_EVENTS_GROUP_NONE) {
	case KVM_EVENTS_GROUP_VCPU:
		print_vm(d, keys[0]->pid, fp);
		if (group == KVM_EVENTS_NO_VCPU)
			fprintf(fp, " threads without a known VCPU id");
		else
			fprintf(fp, " VCPU %u", group);
		break;
	case KVM_EVENTS_GROUP_VM:
		print_vm(d, group, fp);
		print_vcpus_shown(d, ", ", fp);
		break;
	case KVM_EVENTS_GROUP_NONE:
	default:
		if (pids)
			fprintf(fp, "VM %s %s, ", is_number(pids) ? "pid" : "pids", pids);
		if (d->view->vms) {
			fputs("VM ", fp);
			kvm_events_print_name(d->view->vms, fp);
			fputs(", ", fp);
		}
		if (d->view->vcpus)
			print_vcpus_shown(d, "", fp);
		else
			fprintf(fp, "all VCPUs");
		break;
	}
	fprintf(fp, ":\n\n");
}

static bool is_idle(const struct kvm_events_display *d, const struct kvm_events_key *key)
{
	return d->view->split_idle &&
	       kvm_events_report__is_idle(d->report, key->key);
}

/* Samples% stays a share of every sample, idle or not; Time% is not. */
static void rows_totals(const struct kvm_events_display *d, struct kvm_events_key **keys,
			size_t nr, bool idle, struct kvm_events_table_totals *totals)
{
	size_t i;

	totals->samples = totals->total_ns = 0;
	for (i = 0; i < nr; i++) {
		totals->samples += keys[i]->samples;
		if (is_idle(d, keys[i]) == idle)
			totals->total_ns += keys[i]->total_ns;
	}
}

static void print_total(const struct kvm_events_table_totals *totals, FILE *fp)
{
	fprintf(fp, "\nTotal Samples:%" PRIu64 ", Total events handled time:%.2fus.\n",
		totals->samples, (double)totals->total_ns / 1000);
}

/*
 * The total of a report of one table is the first line of its footer,
 * which comes after every table, --top's too.
 */
static bool total_in_footer(const struct kvm_events_display *d)
{
	return d->report->opts.top && d->report->opts.group == KVM_EVENTS_GROUP_NONE;
}

/* Prints keys[0..nr) whose idleness is @idle, as one table. */
static void print_rows(const struct kvm_events_display *d, struct kvm_events_key **keys,
		       size_t nr, bool idle, int width, FILE *fp)
{
	struct kvm_events_table_totals totals;
	size_t i;

	rows_totals(d, keys, nr, idle, &totals);
	for (i = 0; i < nr; i++) {
		if (is_idle(d, keys[i]) == idle)
			print_row(d, keys[i], &totals, width, fp);
	}
	if (!idle && !total_in_footer(d))
		print_total(&totals, fp);
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
			size_t nr, int width, FILE *fp)
{
	size_t i;

	fprintf(fp, "\n\n");
	print_title(d, keys, nr, fp);
	print_header(d, width, fp);
	print_rows(d, keys, nr, false, width, fp);
	if (has_idle(d, keys, nr)) {
		fprintf(fp,
			"\nIdle: the vcpu waits for work; not in Time%% or the total above:\n\n");
		print_header(d, width, fp);
		print_rows(d, keys, nr, true, width, fp);
	}
	for (i = 0; d->view->histogram && i < nr; i++)
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

/* The key column of --top fits the longest name it lists. */
static int top_key_width(const struct kvm_events_report *r)
{
	char name[KVM_EVENTS_NAME_LEN];
	int width = KEY_WIDTH;
	u32 i;

	for (i = 0; i < r->nr_top; i++) {
		kvm_events_report__key_name(r, r->top[i].key, name, sizeof(name));
		width = max_t(int, width, strlen(name));
	}
	return width;
}

/* A slow event's time off CPU, and what ran the longest instead: comm/tid */
static void print_top_split(const struct kvm_events_display *d,
			    const struct kvm_events_outlier *o, FILE *fp)
{
	const char *comm;

	if (!o->split) {
		fprintf(fp, " %15s", "-");
		return;
	}
	print_time(o->offcpu_ns, 15, fp);
	if (o->next_tid == KVM_EVENTS_NO_TASK)
		return;
	comm = kvm_events_display__task_comm(d, o->next_tid);
	fprintf(fp, "  %s/%u", comm ?: "?", o->next_tid);
}

static void print_top(const struct kvm_events_display *d, FILE *fp)
{
	const struct kvm_events_report *r = d->report;
	int width = top_key_width(r);
	u32 i;

	fprintf(fp, "\nSlowest %u events:\n\n%16s %10s %8s %8s %*s %15s %18s",
		r->nr_top, "Time", "VCPU", "PID", "TID", width,
		kvm_events_report__column(r), "Duration", "Guest RIP");
	if (d->report->opts.sched)
		fprintf(fp, " %15s  %s", "Off CPU", "Ran instead");
	fprintf(fp, "\n\n");
	for (i = 0; i < r->nr_top; i++) {
		const struct kvm_events_outlier *o = &r->top[i];
		char time[32], vcpu[16], name[KVM_EVENTS_NAME_LEN], rip[24];

		kvm_events_report__key_name(r, o->key, name, sizeof(name));
		timestamp__scnprintf_usec(o->time, time, sizeof(time));
		if (o->vcpu == KVM_EVENTS_NO_VCPU)
			snprintf(vcpu, sizeof(vcpu), "?");
		else
			snprintf(vcpu, sizeof(vcpu), "%u", o->vcpu);
		/* 0x0 too: the column is hex whatever the value */
		snprintf(rip, sizeof(rip), "0x%" PRIx64, o->rip);
		fprintf(fp, "%16s %10s %8u %8u %*s", time, vcpu, o->pid, o->tid, width, name);
		if (o->timed)
			print_time(o->duration, 15, fp);
		else
			fprintf(fp, " %15s", "-");
		fprintf(fp, " %18s", rip);
		if (r->opts.sched)
			print_top_split(d, o, fp);
		fputc('\n', fp);
	}
}

/* How many of the events split into on and off CPU a switch touched at all */
static void print_switched(const struct kvm_events_display *d, struct kvm_events_key **keys,
			   size_t nr, FILE *fp)
{
	u64 split = 0, switched = 0;
	size_t i;

	if (!d->report->opts.sched)
		return;
	for (i = 0; i < nr; i++) {
		if (keys[i]->split) {
			split += keys[i]->split->events;
			switched += keys[i]->split->switched;
		}
	}
	fprintf(fp, "Context switches:%" PRIu64 " records; off CPU in %" PRIu64 " of %" PRIu64
		" timed events (%.2f%%).\n", d->report->totals.switch_records, switched, split,
		split ? (double)switched * 100 / split : 0.0);
}

/* --vm's patterns that took no VM: said, not an empty table alone */
static void print_vms_unmatched(const struct kvm_events_display *d, FILE *fp)
{
	char *unmatched = d->vm_filter ? kvm_events_vm_filter__unmatched(d->vm_filter) : NULL;

	if (!unmatched)
		return;
	fputs("--vm: no VM matches ", fp);
	kvm_events_print_name(unmatched, fp);
	fputs(".\n", fp);
	free(unmatched);
}

/* A record --use-bpf recording: what the counts and percentiles come from */
static void print_kernel_totals(const struct kvm_events_totals *t, FILE *fp)
{
	fprintf(fp, "Counted in the kernel (record --use-bpf); events recorded whole:%" PRIu64,
		t->kernel_events);
	if (t->kernel_min_time)
		fprintf(fp, ", those of at least %.2fus", t->kernel_min_time / 1000.0);
	fprintf(fp, "; percentiles %s.\n", t->kernel_exact ? "exact, from every event" :
		"from the kernel's histograms, within 1/128 of the value");
	if (t->lost_records)
		fprintf(fp, "Not recorded whole, the buffer full:%" PRIu64 " events.\n",
			t->lost_records);
}

static void print_footer(const struct kvm_events_display *d, struct kvm_events_key **keys,
			 size_t nr, FILE *fp)
{
	const struct kvm_events_totals *t = &d->report->totals;

	if (total_in_footer(d)) {
		struct kvm_events_table_totals totals;

		rows_totals(d, keys, nr, false, &totals);
		print_total(&totals, fp);
	} else if (d->report->opts.top) {
		/* The tables' totals are their own: set the footer apart. */
		fprintf(fp, "\n");
	}

	if (!t->keyed)
		print_no_samples(d, fp);
	if (t->no_end || t->no_begin)
		fprintf(fp, "Samples without time:%llu (no end event:%llu, no begin event:%llu).\n",
			(unsigned long long)(t->no_end + t->no_begin),
			(unsigned long long)t->no_end, (unsigned long long)t->no_begin);
	if (t->filtered)
		fprintf(fp, "Filtered out:%" PRIu64 " samples.\n", t->filtered);
	print_vms_unmatched(d, fp);
	if (t->no_memory)
		fprintf(fp, "Left out for lack of memory:%" PRIu64 " samples.\n", t->no_memory);
	if (kvm_events_totals__lost(t))
		fprintf(fp, "Lost events:%" PRIu64 ", in %" PRIu64 " chunks.\n",
			kvm_events_totals__lost(t), t->lost_chunks);
	if (t->out_of_order)
		fprintf(fp, "Out of time order:%" PRIu64 " events, paired as they came.\n",
			t->out_of_order);
	if (t->kernel_totals)
		print_kernel_totals(t, fp);
	print_switched(d, keys, nr, fp);
	if (verbose <= 0)
		return;
	fprintf(fp, "Samples read:%" PRIu64 " = counted in a key %" PRIu64,
		t->read, t->keyed);
	fprintf(fp, " + ends of counted samples %" PRIu64 " + filtered %" PRIu64,
		t->paired_end, t->filtered);
	fprintf(fp, " + other %" PRIu64 " + left out for lack of memory %" PRIu64 ".\n",
		t->unused, t->no_memory);
	if (t->other_events)
		fprintf(fp, "Of the other:%" PRIu64 " samples of events no analysis reads.\n",
			t->other_events);
}

bool kvm_events_key__same_group(const struct kvm_events_key *a,
				const struct kvm_events_key *b)
{
	return a->group == b->group && a->pid == b->pid;
}

void kvm_events_display__tables(const struct kvm_events_display *d,
				struct kvm_events_key **keys, size_t nr, FILE *fp)
{
	size_t start = 0, end;
	int width = key_width(keys, nr);

	/* Sorted by group first: one table per run of equal groups. */
	do {
		end = start;
		while (end < nr && kvm_events_key__same_group(keys[end], keys[start]))
			end++;
		print_table(d, keys + start, end - start, width, fp);
		start = end;
	} while (start < nr);
	if (d->report->opts.top)
		print_top(d, fp);
	print_footer(d, keys, nr, fp);
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
	{ "oncpu",	KVM_EVENTS_SORT_ONCPU },
	{ "offcpu",	KVM_EVENTS_SORT_OFFCPU },
	{ "preempted",	KVM_EVENTS_SORT_PREEMPTED },
	{ "blocked",	KVM_EVENTS_SORT_BLOCKED },
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

/*
 * --key rip and --key sym are not sort keys: they make the keys guest
 * code sites, which the other keys of the list sort.
 */
static enum kvm_events_site site__find(const char *name)
{
	if (!strcmp(name, "rip"))
		return KVM_EVENTS_SITE_RIP;
	if (!strcmp(name, "sym"))
		return KVM_EVENTS_SITE_SYM;
	return KVM_EVENTS_SITE_NONE;
}

static int view__set_site(struct kvm_events_view *view, const char *cmd,
			  const char *list, enum kvm_events_site site)
{
	if (view->site && view->site != site) {
		pr_err("perf kvm-events %s: --key %s: rip and sym are two ways to key sites, choose one\n",
		       cmd, list);
		return -EINVAL;
	}
	view->site = site;
	return 0;
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
	view->site = KVM_EVENTS_SITE_NONE;
	for (tok = strtok_r(copy, ",", &save); tok && !ret; tok = strtok_r(NULL, ",", &save)) {
		/* rip and sym are no sort keys */
		if (site__find(tok)) {
			ret = view__set_site(view, cmd, list, site__find(tok));
			continue;
		}
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
	/* Sites alone are sorted by samples, in report, live and diff alike. */
	if (!ret && !keys->nr && view->site)
		keys->by[keys->nr++] = KVM_EVENTS_SORT_SAMPLE;
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

static void print_interval_header(const struct kvm_events_display *d, int width, FILE *fp)
{
	fprintf(fp, "%*s %10s %13s %13s %15s\n\n", width, kvm_events_report__column(d->report),
		"Samples", "Samples%", "Time%", "Avg time");
}

static void print_interval_row(struct kvm_events_key *key,
			       const struct kvm_events_table_totals *totals, int width, FILE *fp)
{
	fprintf(fp, "%*s %10" PRIu64 " %12.2f%%", width, key->name, key->samples,
		kvm_events_samples_share(key, totals));
	if (key->timed) {
		fprintf(fp, " %12.2f%%", kvm_events_time_share(key, totals));
		print_time(kvm_events_avg_ns(key, totals), 14, fp);
		fprintf(fp, "\n");
	} else {
		fprintf(fp, " %13s %14s\n", "-", "-");
	}
}

/*
 * The pieces of a table, for the browser (kvm-events-browse.c):
 * the report's own printers, so that its rows are the report's.
 */
int kvm_events_display__key_width(struct kvm_events_key **keys, size_t nr)
{
	return key_width(keys, nr);
}

void kvm_events_display__table_totals(const struct kvm_events_display *d,
				      struct kvm_events_key **keys, size_t nr,
				      struct kvm_events_table_totals *totals)
{
	size_t i;

	/* An interval's table has no idle part: its totals are every row's. */
	if (d->interval) {
		totals->samples = totals->total_ns = 0;
		for (i = 0; i < nr; i++) {
			totals->samples += keys[i]->samples;
			totals->total_ns += keys[i]->total_ns;
		}
		return;
	}
	rows_totals(d, keys, nr, false, totals);
}

void kvm_events_display__header(const struct kvm_events_display *d, int width, FILE *fp)
{
	if (d->interval)
		print_interval_header(d, width, fp);
	else
		print_header(d, width, fp);
}

void kvm_events_display__row(const struct kvm_events_display *d, struct kvm_events_key *key,
			     const struct kvm_events_table_totals *totals, int width, FILE *fp)
{
	if (d->interval)
		print_interval_row(key, totals, width, fp);
	else
		print_row(d, key, totals, width, fp);
}

void kvm_events_display__cells(const struct kvm_events_display *d, struct kvm_events_key *key,
			       const struct kvm_events_table_totals *totals, FILE *fp)
{
	int i;

	for (i = 0; i < d->view->nr_columns; i++)
		print_cell(d->view->columns[i], key, totals, fp);
}

void kvm_events_display__cell_headers(const struct kvm_events_display *d, FILE *fp)
{
	int i;

	for (i = 0; i < d->view->nr_columns; i++)
		fprintf(fp, " %*s", column_width(d->view->columns[i]), d->view->columns[i]->header);
}

void kvm_events_display__histogram(struct kvm_events_key *key, FILE *fp)
{
	print_histogram(key, fp);
}

const char *kvm_events_view__column_name(const struct kvm_events_view *view, int i)
{
	return view->columns[i]->name;
}

bool kvm_events_view__sorts_by(const char *name)
{
	enum kvm_events_sort sort;

	return !sort_key__find(name, &sort);
}

void kvm_events_display__interval(const struct kvm_events_display *d,
				  struct kvm_events_key **keys, size_t nr,
				  double seconds, FILE *fp)
{
	struct kvm_events_table_totals totals = { 0, 0 };
	int width = key_width(keys, nr);
	size_t i;

	for (i = 0; i < nr; i++) {
		totals.samples += keys[i]->samples;
		totals.total_ns += keys[i]->total_ns;
	}
	fprintf(fp, "Last %.2fs:\n\n", seconds);
	print_interval_header(d, width, fp);
	for (i = 0; i < nr; i++)
		print_interval_row(keys[i], &totals, width, fp);
	fprintf(fp, "\nSamples:%" PRIu64 " in the last interval.\n", totals.samples);
}
