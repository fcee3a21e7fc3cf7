// SPDX-License-Identifier: GPL-2.0
/*
 * perf kvm-events' JSON and CSV: everything the text tables show, times
 * in ns, for jq and spreadsheets.  The schema is the man page's "JSON AND
 * CSV OUTPUT"; change it only with KVM_EVENTS_SCHEMA_VERSION.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <linux/kernel.h>

#include "kvm-events.h"
#include "kvm-events-display.h"
#include "kvm-events-display-json.h"
#include "kvm-events-sched.h"
#include "kvm-events-vms.h"

/* The percentiles of each time, as JSON and CSV name them */
static const struct {
	double		pct;
	const char	*name;
} percentiles[] = {
	{ 50, "p50" }, { 90, "p90" }, { 99, "p99" }, { 99.9, "p99_9" },
};

void kvm_events_json_string(const char *str, FILE *fp)
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

/* --histogram: the buckets the text draws, empty ones between included */
static void json_histogram(struct kvm_events_key *key, FILE *fp)
{
	int first, last, b;
	u64 high = 0;

	fprintf(fp, ", \"histogram\": [");
	if (!kvm_events_histogram_span(key, &first, &last)) {
		fprintf(fp, "]");
		return;
	}
	for (b = first; b <= last; b++) {
		fprintf(fp, "%s{\"low_ns\": %" PRIu64 ", \"high_ns\": ", b > first ? ", " : "",
			kvm_events_log2_bucket_low(b));
		if (kvm_events_log2_bucket_high(b, &high))
			fprintf(fp, "%" PRIu64, high);
		else
			fprintf(fp, "null");
		fprintf(fp, ", \"count\": %" PRIu64 "}", key->log2_ns[b]);
	}
	fprintf(fp, "]");
}

struct json_vms {
	FILE	*fp;
	size_t	nr;
};

static void json_string_or_null(const char *s, FILE *fp)
{
	if (s)
		kvm_events_json_string(s, fp);
	else
		fputs("null", fp);
}

/* A --per-vm or --per-vcpu key's VM as its owner names it: null where not */
static void json_vm_name(const struct kvm_events_display *d, u32 pid, FILE *fp)
{
	const struct kvm_events_vm *vm = kvm_events_display__vm(d, pid);

	fputs(", \"vm\": ", fp);
	json_string_or_null(kvm_events_display__vm_name(d, pid), fp);
	fputs(", \"vm_uuid\": ", fp);
	json_string_or_null(vm ? vm->uuid : NULL, fp);
}

/* A --per-vcpu key's vcpu: its VM's pid and comm, and its id */
static void json_vcpu(const struct kvm_events_display *d, const struct kvm_events_key *key,
		      FILE *fp)
{
	const char *comm = kvm_events_display__comm(d, key->pid);

	fprintf(fp, ", \"pid\": %u, \"comm\": ", key->pid);
	if (comm)
		kvm_events_json_string(comm, fp);
	else
		fprintf(fp, "null");
	if (key->group == KVM_EVENTS_NO_VCPU)
		fprintf(fp, ", \"vcpu\": null");
	else
		fprintf(fp, ", \"vcpu\": %u", key->group);
}

/* Each part's ns, as "oncpu_ns": ..., or null where not @known */
static void json_cpu_parts(const u64 *ns, bool known, FILE *fp)
{
	char name[32];
	int part;

	for (part = 0; part < KVM_EVENTS_CPU_PARTS; part++) {
		snprintf(name, sizeof(name), "%s_ns", kvm_events_cpu_part__name(part));
		fprintf(fp, ", ");
		kvm_events_json_u64(name, known ? ns[part] : 0, known, fp);
	}
}

/*
 * A key's time on and off CPU, and their percentiles: null where some
 * of its events had none (whole events, such as halt's).
 */
static void json_split(const struct kvm_events_display *d, struct kvm_events_key *key,
		       FILE *fp)
{
	const struct kvm_events_split *split = key->split;
	bool known = kvm_events_split__whole(split, key->timed);
	char name[32];
	size_t i;
	int part;

	if (!d->report->opts.sched)
		return;
	json_cpu_parts(known ? split->ns : NULL, known, fp);
	fprintf(fp, ", ");
	kvm_events_json_u64("switched", known ? split->switched : 0, known, fp);
	if (!key->timed || !key->dist)
		return;
	for (part = 0; part < KVM_EVENTS_CPU_PARTS; part++) {
		for (i = 0; i < ARRAY_SIZE(percentiles); i++) {
			snprintf(name, sizeof(name), "%s_%s_ns", kvm_events_cpu_part__name(part),
				 percentiles[i].name);
			fprintf(fp, ", ");
			kvm_events_json_u64(name, known ? kvm_events_split__percentile(split, part,
									  percentiles[i].pct) : 0,
					    known, fp);
		}
	}
}

/* Every statistic of a key: times in ns, exact integers where they are */
static void json_key(const struct kvm_events_display *d, struct kvm_events_key *key,
		     const struct kvm_events_table_totals *totals, FILE *fp)
{
	/* A vcpu whose id no event recorded is no vcpu 0: null. */
	if (d->report->opts.group == KVM_EVENTS_GROUP_VCPU && key->group == KVM_EVENTS_NO_VCPU)
		fprintf(fp, "    {\"group\": null, \"key\": ");
	else
		fprintf(fp, "    {\"group\": %u, \"key\": ", key->group);
	kvm_events_json_string(key->name, fp);
	if (d->report->opts.group == KVM_EVENTS_GROUP_VCPU)
		json_vcpu(d, key, fp);
	if (d->report->opts.group != KVM_EVENTS_GROUP_NONE)
		json_vm_name(d, key->pid, fp);
	fprintf(fp, ", \"samples\": %" PRIu64 ", \"timed\": %" PRIu64
		", \"samples_pct\": %.6f, \"time_pct\": %.6f, \"total_ns\": %" PRIu64,
		key->samples, key->timed, kvm_events_samples_share(key, totals),
		kvm_events_time_share(key, totals), key->total_ns);
	if (key->timed) {
		fprintf(fp, ", \"min_ns\": %" PRIu64 ", \"max_ns\": %" PRIu64
			", \"avg_ns\": %.3f, \"stddev_ns\": %.3f",
			key->stats.min, key->stats.max, kvm_events_avg_ns(key, totals),
			kvm_events_key__stddev(key));
	}
	if (key->timed && key->dist) {
		fprintf(fp, ", \"p50_ns\": %" PRIu64 ", \"p90_ns\": %" PRIu64
			", \"p99_ns\": %" PRIu64 ", \"p99_9_ns\": %" PRIu64
			", \"percentiles_exact\": %s",
			kvm_events_key__percentile(key, 50),
			kvm_events_key__percentile(key, 90),
			kvm_events_key__percentile(key, 99),
			kvm_events_key__percentile(key, 99.9),
			kvm_events_key__percentile_exact(key) ? "true" : "false");
	}
	json_split(d, key, fp);
	if (d->view->histogram)
		json_histogram(key, fp);
	fprintf(fp, ", \"idle\": %s}",
		kvm_events_report__is_idle(d->report, key->key) ?
		"true" : "false");
}

void kvm_events_json_u64(const char *name, u64 value, bool known, FILE *fp)
{
	if (known)
		fprintf(fp, "\"%s\": %" PRIu64, name, value);
	else
		fprintf(fp, "\"%s\": null", name);
}

/*
 * The recording's span: the first and last kvm samples read, and the
 * header's first and last sample times, which a pipe recording and
 * perf record -B do not write.
 */
static void json_span(const struct kvm_events_display *d, FILE *fp)
{
	const struct kvm_events_totals *t = &d->report->totals;
	bool header = d->header_last > d->header_first;

	fprintf(fp, "  \"span\": {");
	kvm_events_json_u64("first_sample_ns", t->first_time, t->read, fp);
	fprintf(fp, ", ");
	kvm_events_json_u64("last_sample_ns", t->last_time, t->read, fp);
	fprintf(fp, ", ");
	kvm_events_json_u64("header_first_sample_ns", d->header_first, header, fp);
	fprintf(fp, ", ");
	kvm_events_json_u64("header_last_sample_ns", d->header_last, header, fp);
	fprintf(fp, "},\n");
}

static void json_filter(const char *name, const char *value, FILE *fp)
{
	fprintf(fp, "\"%s\": ", name);
	if (value)
		kvm_events_json_string(value, fp);
	else
		fprintf(fp, "null");
}

/*
 * Shares are of the key's group, as in the tables.  Keys come sorted by
 * group: the totals are summed once per group, at its first key.
 */
static void group_totals(struct kvm_events_key **keys, size_t nr, size_t i,
			 struct kvm_events_table_totals *totals)
{
	size_t j;

	if (i && kvm_events_key__same_group(keys[i - 1], keys[i]))
		return;
	totals->samples = totals->total_ns = 0;
	for (j = i; j < nr && kvm_events_key__same_group(keys[j], keys[i]); j++) {
		totals->samples += keys[j]->samples;
		totals->total_ns += keys[j]->total_ns;
	}
}

/* A slow event's time off CPU, and the task that ran the longest instead */
static void json_top_split(const struct kvm_events_display *d,
			   const struct kvm_events_outlier *o, FILE *fp)
{
	bool next = o->split && o->next_tid != KVM_EVENTS_NO_TASK;
	const char *comm = next ? kvm_events_display__task_comm(d, o->next_tid) : NULL;

	if (!d->report->opts.sched)
		return;
	fprintf(fp, ", ");
	kvm_events_json_u64("offcpu_ns", o->offcpu_ns, o->split, fp);
	fprintf(fp, ", ");
	kvm_events_json_u64("next_tid", o->next_tid, next, fp);
	fprintf(fp, ", \"next_comm\": ");
	if (comm)
		kvm_events_json_string(comm, fp);
	else
		fprintf(fp, "null");
}

/*
 * The keys' time on and off CPU, beside total_ns: null unless every
 * timed event was split.
 */
static void json_totals_split(const struct kvm_events_display *d,
			      struct kvm_events_key **keys, size_t nr, FILE *fp)
{
	u64 ns[KVM_EVENTS_CPU_PARTS] = { 0 }, switched = 0;
	bool known = true;
	size_t i;
	int part;

	if (!d->report->opts.sched)
		return;
	for (i = 0; i < nr; i++) {
		known &= kvm_events_split__whole(keys[i]->split, keys[i]->timed);
		for (part = 0; known && part < KVM_EVENTS_CPU_PARTS; part++)
			ns[part] += keys[i]->split->ns[part];
		switched += known ? keys[i]->split->switched : 0;
	}
	fprintf(fp, ", \"switch_records\": %" PRIu64 ", ", d->report->totals.switch_records);
	kvm_events_json_u64("switched", switched, known, fp);
	json_cpu_parts(ns, known, fp);
}

/* A record --use-bpf recording's: what the kernel kept whole of its counts */
static void json_totals_kernel(const struct kvm_events_totals *t, FILE *fp)
{
	if (!t->kernel_totals)
		return;
	fprintf(fp, ", \"kernel\": {\"min_time_ns\": %" PRIu64 ", \"kept\": %" PRIu64
		", \"recorded\": %" PRIu64 ", \"lost_records\": %" PRIu64
		", \"exact_percentiles\": %s}",
		t->kernel_min_time, t->kernel_kept, t->kernel_events, t->lost_records,
		t->kernel_exact ? "true" : "false");
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

		kvm_events_report__key_name(r, o->key, name, sizeof(name));
		fprintf(fp, "%s\n    {\"time_ns\": %" PRIu64 ", \"vcpu\": ", i ? "," : "", o->time);
		if (o->vcpu == KVM_EVENTS_NO_VCPU)
			fprintf(fp, "null");
		else
			fprintf(fp, "%u", o->vcpu);
		fprintf(fp, ", \"pid\": %u, \"tid\": %u, \"key\": ", o->pid, o->tid);
		kvm_events_json_string(name, fp);
		json_vm_name(d, o->pid, fp);
		if (o->timed)
			fprintf(fp, ", \"duration_ns\": %" PRIu64, o->duration);
		else
			fprintf(fp, ", \"duration_ns\": null");
		json_top_split(d, o, fp);
		/* 0: the recording has no guest RIP for it */
		if (o->rip)
			fprintf(fp, ", \"rip\": \"%#" PRIx64 "\"}", o->rip);
		else
			fprintf(fp, ", \"rip\": null}");
	}
	fprintf(fp, "%s],\n", r->nr_top ? "\n  " : "");
}

static int json_vm(const struct kvm_events_vm *vm, void *arg)
{
	struct json_vms *list = arg;

	fprintf(list->fp, "%s\n    {\"pid\": %u, \"comm\": ", list->nr++ ? "," : "", vm->pid);
	json_string_or_null(vm->comm, list->fp);
	fputs(", \"vm\": ", list->fp);
	json_string_or_null(vm->name, list->fp);
	fputs(", \"vm_uuid\": ", list->fp);
	json_string_or_null(vm->uuid, list->fp);
	fputs(", \"vm_cgroup\": ", list->fp);
	json_string_or_null(vm->cgroup, list->fp);
	fprintf(list->fp, ", \"vm_source\": \"%s\"}", kvm_events_vm_source__name(vm->source));
	return 0;
}

/* The VMs the recording (or live, /proc) names, whether they exited or not */
static void json_vms(const struct kvm_events_display *d, FILE *fp)
{
	struct json_vms list = { .fp = fp };

	fputs("  \"vms\": [", fp);
	if (d->vms)
		kvm_events_vms__for_each(d->vms, json_vm, &list);
	fprintf(fp, "%s],\n", list.nr ? "\n  " : "");
}

void kvm_events_display__json(const struct kvm_events_display *d,
			      struct kvm_events_key **keys, size_t nr, FILE *fp)
{
	const struct kvm_events_totals *t = &d->report->totals;
	struct kvm_events_table_totals totals = { 0, 0 };
	size_t i;
	int tp;

	fprintf(fp, "{\n  \"schema_version\": %d,\n  \"input\": ",
		KVM_EVENTS_SCHEMA_VERSION);
	kvm_events_json_string(d->input, fp);
	fprintf(fp, ",\n  \"schema_minor\": %d", KVM_EVENTS_SCHEMA_MINOR);
	fprintf(fp, ",\n  \"analysis\": \"%s\",\n  \"sort\": ",
		kvm_events_analysis__name(d->report->analysis));
	kvm_events_json_string(d->view->sort_names, fp);
	fprintf(fp, ",\n  \"group_by\": \"%s\",\n  \"filters\": {",
		group_names[d->report->opts.group]);
	json_filter("vcpu", d->view->vcpus, fp);
	fprintf(fp, ", ");
	json_filter("pid", d->view->pids, fp);
	fprintf(fp, ", ");
	json_filter("vm", d->view->vms, fp);
	fprintf(fp, ", ");
	json_filter("time", d->view->time, fp);
	fprintf(fp, ", ");
	if (d->view->duration_us > 0)
		fprintf(fp, "\"duration_us\": %g", d->view->duration_us);
	else
		fprintf(fp, "\"duration_us\": null");
	fprintf(fp, "},\n");
	json_span(d, fp);
	fprintf(fp, "  \"keys\": [\n");
	for (i = 0; i < nr; i++) {
		group_totals(keys, nr, i, &totals);
		json_key(d, keys[i], &totals, fp);
		fprintf(fp, "%s\n", i + 1 < nr ? "," : "");
	}
	fprintf(fp, "  ],\n");
	json_vms(d, fp);
	if (d->report->opts.top)
		json_top(d, fp);
	fprintf(fp, "  \"totals\": {\"read\": %" PRIu64 ", \"samples\": %" PRIu64
		", \"total_ns\": %" PRIu64 ", \"no_end\": %" PRIu64 ", \"no_begin\": %" PRIu64
		", \"filtered\": %" PRIu64 ", \"paired_ends\": %" PRIu64 ", \"other\": %" PRIu64
		", \"no_memory\": %" PRIu64
		", \"lost_events\": %" PRIu64 ", \"lost_chunks\": %" PRIu64
		", \"perf_record_lost\": %" PRIu64 ", \"perf_record_lost_samples\": %" PRIu64
		", \"out_of_order\": %" PRIu64 ", \"other_events\": %" PRIu64,
		t->read, t->keyed, t->total_ns, t->no_end, t->no_begin, t->filtered,
		t->paired_end, t->unused, t->no_memory, kvm_events_totals__lost(t), t->lost_chunks,
		t->lost_events, t->lost_samples, t->out_of_order, t->other_events);
	json_totals_split(d, keys, nr, fp);
	json_totals_kernel(t, fp);
	fprintf(fp, "},\n  \"events_read\": {");
	for (tp = 0; tp < KVM_TP__NR; tp++)
		fprintf(fp, "\"%s\": %" PRIu64 "%s", kvm_tp_role__name(tp), t->by_tp[tp],
			tp + 1 < KVM_TP__NR ? ", " : "");
	fprintf(fp, "}\n}\n");
}

/*
 * CSV is one table: its first column says what a row is (key, bucket or
 * top) and which of the columns below it fills; the others are empty.
 * pid, comm and vcpu are a --per-vcpu key's (of its key and bucket rows)
 * and a top event's (pid and vcpu).
 */
#define CSV_KEY_COLUMNS		"group,key,samples,timed,samples_pct,time_pct,total_ns," \
				"min_ns,max_ns,avg_ns,stddev_ns,p50_ns,p90_ns,p99_ns,p99_9_ns,idle"
#define CSV_NR_KEY_STATS	14	/* of those, after group and key */
#define CSV_VCPU_COLUMNS	"pid,comm,vcpu"
#define CSV_NR_VCPU		3
#define CSV_BUCKET_COLUMNS	"low_ns,high_ns,count"
#define CSV_NR_BUCKET		3
#define CSV_TOP_COLUMNS		"time_ns,tid,duration_ns,rip"
#define CSV_NR_TOP		4
/* Only where switches were recorded; of a top row, its offcpu_ns only */
#define CSV_SPLIT_COLUMNS	"oncpu_ns,offcpu_ns,preempted_ns,blocked_ns,switched"
/* Last, so that the columns before keep their places: a VM's name and uuid */
#define CSV_VM_COLUMNS		"vm,vm_uuid"

static void csv_empty(int nr, FILE *fp)
{
	while (nr--)
		fputc(',', fp);
}

void kvm_events_csv_u64(u64 value, bool known, FILE *fp)
{
	if (known)
		fprintf(fp, ",%" PRIu64, value);
	else
		fputc(',', fp);
}

static void csv_group(const struct kvm_events_display *d, const struct kvm_events_key *key,
		      FILE *fp)
{
	/* An unknown vcpu: an empty cell */
	if (d->report->opts.group != KVM_EVENTS_GROUP_VCPU || key->group != KVM_EVENTS_NO_VCPU)
		fprintf(fp, "%u", key->group);
}

/* A cell of text, quoted if it must be */
static void csv_string(const char *s, FILE *fp)
{
	const char *c;

	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, fp);
		return;
	}
	fputc('"', fp);
	for (c = s; *c; c++) {
		if (*c == '"')
			fputc('"', fp);
		fputc(*c, fp);
	}
	fputc('"', fp);
}

/* A --per-vcpu key's pid, comm and vcpu id */
static void csv_vcpu(const struct kvm_events_display *d, const struct kvm_events_key *key,
		     FILE *fp)
{
	if (d->report->opts.group != KVM_EVENTS_GROUP_VCPU) {
		csv_empty(CSV_NR_VCPU, fp);
		return;
	}
	fprintf(fp, ",%u,", key->pid);
	csv_string(kvm_events_display__comm(d, key->pid) ?: "", fp);
	fputc(',', fp);
	if (key->group != KVM_EVENTS_NO_VCPU)
		fprintf(fp, "%u", key->group);
}

/* The name and uuid of VM @pid, empty where there is none */
static void csv_vm(const struct kvm_events_display *d, u32 pid, FILE *fp)
{
	const struct kvm_events_vm *vm = pid ? kvm_events_display__vm(d, pid) : NULL;
	const char *name = pid ? kvm_events_display__vm_name(d, pid) : NULL;

	fputc(',', fp);
	csv_string(name ?: "", fp);
	fputc(',', fp);
	csv_string(vm && vm->uuid ? vm->uuid : "", fp);
}

/* A key's VM, where the keys are the VMs' or their vcpus' */
static void csv_key_vm(const struct kvm_events_display *d, const struct kvm_events_key *key,
		       FILE *fp)
{
	csv_vm(d, d->report->opts.group == KVM_EVENTS_GROUP_NONE ? 0 : key->pid, fp);
}

/* A key's time on and off CPU; empty where not all was split, or no key */
static void csv_split(const struct kvm_events_display *d, const struct kvm_events_key *key,
		      FILE *fp)
{
	bool known = key && kvm_events_split__whole(key->split, key->timed);
	int part;

	if (!d->report->opts.sched)
		return;
	for (part = 0; part < KVM_EVENTS_CPU_PARTS; part++)
		kvm_events_csv_u64(known ? key->split->ns[part] : 0, known, fp);
	kvm_events_csv_u64(known ? key->split->switched : 0, known, fp);
}

static void csv_key(const struct kvm_events_display *d, struct kvm_events_key *key,
		    const struct kvm_events_table_totals *totals, FILE *fp)
{
	fprintf(fp, "key,");
	csv_group(d, key, fp);
	fprintf(fp, ",%s,%" PRIu64 ",%" PRIu64 ",%.6f,%.6f,%" PRIu64,
		key->name, key->samples, key->timed, kvm_events_samples_share(key, totals),
		kvm_events_time_share(key, totals), key->total_ns);
	if (key->timed)
		fprintf(fp, ",%" PRIu64 ",%" PRIu64 ",%.3f,%.3f", key->stats.min,
			key->stats.max, kvm_events_avg_ns(key, totals),
			kvm_events_key__stddev(key));
	else
		csv_empty(4, fp);
	if (key->timed && key->dist)
		fprintf(fp, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64,
			kvm_events_key__percentile(key, 50),
			kvm_events_key__percentile(key, 90),
			kvm_events_key__percentile(key, 99),
			kvm_events_key__percentile(key, 99.9));
	else
		csv_empty(4, fp);
	fprintf(fp, ",%d", kvm_events_report__is_idle(d->report, key->key));
	csv_vcpu(d, key, fp);
	csv_empty(CSV_NR_BUCKET + CSV_NR_TOP, fp);
	csv_split(d, key, fp);
	csv_key_vm(d, key, fp);
	fputc('\n', fp);
}

static void csv_histogram(const struct kvm_events_display *d, struct kvm_events_key *key,
			  FILE *fp)
{
	int first, last, b;
	bool bounded;
	u64 high = 0;

	if (!kvm_events_histogram_span(key, &first, &last))
		return;
	for (b = first; b <= last; b++) {
		bounded = kvm_events_log2_bucket_high(b, &high);
		fprintf(fp, "bucket,");
		csv_group(d, key, fp);
		fprintf(fp, ",%s", key->name);
		csv_empty(CSV_NR_KEY_STATS, fp);
		csv_vcpu(d, key, fp);
		fprintf(fp, ",%" PRIu64, kvm_events_log2_bucket_low(b));
		kvm_events_csv_u64(high, bounded, fp);
		fprintf(fp, ",%" PRIu64, key->log2_ns[b]);
		csv_empty(CSV_NR_TOP, fp);
		csv_split(d, NULL, fp);
		csv_key_vm(d, key, fp);
		fputc('\n', fp);
	}
}

/* A top row's time off CPU, in the offcpu_ns column */
static void csv_top_split(const struct kvm_events_display *d,
			  const struct kvm_events_outlier *o, FILE *fp)
{
	if (!d->report->opts.sched)
		return;
	fputc(',', fp);
	kvm_events_csv_u64(o->offcpu_ns, o->split, fp);
	csv_empty(KVM_EVENTS_CPU_PARTS - 1, fp);
}

static void csv_top(const struct kvm_events_display *d, FILE *fp)
{
	const struct kvm_events_report *r = d->report;
	u32 i;

	for (i = 0; i < r->nr_top; i++) {
		const struct kvm_events_outlier *o = &r->top[i];
		char name[KVM_EVENTS_NAME_LEN];

		kvm_events_report__key_name(r, o->key, name, sizeof(name));
		fprintf(fp, "top,,%s", name);
		csv_empty(CSV_NR_KEY_STATS, fp);
		fprintf(fp, ",%u,", o->pid);
		kvm_events_csv_u64(o->vcpu, o->vcpu != KVM_EVENTS_NO_VCPU, fp);
		csv_empty(CSV_NR_BUCKET, fp);
		fprintf(fp, ",%" PRIu64 ",%u", o->time, o->tid);
		kvm_events_csv_u64(o->duration, o->timed, fp);
		fputc(',', fp);
		if (o->rip)
			fprintf(fp, "%#" PRIx64, o->rip);
		csv_top_split(d, o, fp);
		csv_vm(d, o->pid, fp);
		fputc('\n', fp);
	}
}

/* The schema, filters, span and totals come first, as # comments. */
static void csv_comments(const struct kvm_events_display *d, FILE *fp)
{
	const struct kvm_events_totals *t = &d->report->totals;
	bool header = d->header_last > d->header_first;

	fprintf(fp,
		"# schema_version=%d input=%s analysis=%s sort=%s group_by=%s vcpu=%s pid=%s time=%s duration_us=%g\n",
		KVM_EVENTS_SCHEMA_VERSION, d->input,
		kvm_events_analysis__name(d->report->analysis),
		d->view->sort_names, group_names[d->report->opts.group],
		d->view->vcpus ?: "", d->view->pids ?: "", d->view->time ?: "",
		d->view->duration_us);
	fprintf(fp, "# schema_minor=%d vm=%s\n", KVM_EVENTS_SCHEMA_MINOR, d->view->vms ?: "");
	fprintf(fp, "# first_sample_ns=");
	if (t->read)
		fprintf(fp, "%" PRIu64, t->first_time);
	fprintf(fp, " last_sample_ns=");
	if (t->read)
		fprintf(fp, "%" PRIu64, t->last_time);
	fprintf(fp, " header_first_sample_ns=");
	if (header)
		fprintf(fp, "%" PRIu64, d->header_first);
	fprintf(fp, " header_last_sample_ns=");
	if (header)
		fprintf(fp, "%" PRIu64, d->header_last);
	fprintf(fp, "\n# read=%" PRIu64 " samples=%" PRIu64 " total_ns=%" PRIu64
		" no_end=%" PRIu64 " no_begin=%" PRIu64 " filtered=%" PRIu64
		" paired_ends=%" PRIu64 " other=%" PRIu64 " no_memory=%" PRIu64
		" lost_events=%" PRIu64
		" lost_chunks=%" PRIu64 " perf_record_lost=%" PRIu64
		" perf_record_lost_samples=%" PRIu64 " out_of_order=%" PRIu64 "\n",
		t->read, t->keyed, t->total_ns, t->no_end, t->no_begin, t->filtered,
		t->paired_end, t->unused, t->no_memory, kvm_events_totals__lost(t), t->lost_chunks,
		t->lost_events, t->lost_samples, t->out_of_order);
}

/* A row per key, then per --histogram bucket, then per --top event */
void kvm_events_display__csv(const struct kvm_events_display *d,
			     struct kvm_events_key **keys, size_t nr, FILE *fp)
{
	struct kvm_events_table_totals totals = { 0, 0 };
	size_t i;

	csv_comments(d, fp);
	fprintf(fp, "record," CSV_KEY_COLUMNS "," CSV_VCPU_COLUMNS "," CSV_BUCKET_COLUMNS ","
		CSV_TOP_COLUMNS);
	if (d->report->opts.sched)
		fprintf(fp, "," CSV_SPLIT_COLUMNS);
	fputs("," CSV_VM_COLUMNS, fp);
	fputc('\n', fp);
	for (i = 0; i < nr; i++) {
		group_totals(keys, nr, i, &totals);
		csv_key(d, keys[i], &totals, fp);
	}
	for (i = 0; i < nr; i++)
		csv_histogram(d, keys[i], fp);
	csv_top(d, fp);
}
