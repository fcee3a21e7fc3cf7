// SPDX-License-Identifier: GPL-2.0
/*
 * perf kvm-events' metrics for Prometheus: the report as counters and
 * histograms in the text exposition format (version 0.0.4, which
 * node_exporter's textfile collector and every Prometheus read), written
 * to a file atomically or served over HTTP (kvm-events-httpd.c).
 *
 * The histogram's buckets are the octaves of latency-dist and of
 * --histogram: le = 2^b - 1 ns, which counts exactly the durations (in
 * whole ns) below 2^b.  histogram_quantile() is then within its bucket,
 * a factor of two, of the report's percentile.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <linux/kernel.h>

#include "debug.h"
#include "kvm-events-display.h"
#include "kvm-events-httpd.h"
#include "kvm-events-metrics.h"
#include "kvm-events-vms.h"

/* The buckets: 2^LOW_BUCKET - 1 ns (255 ns) to 2^HIGH_BUCKET - 1 ns (68.7 s) */
#define LOW_BUCKET	8
#define HIGH_BUCKET	36

int kvm_events_metrics__set_by(struct kvm_events_metrics *m, const char *cmd,
			       const char *list)
{
	char *copy = strdup(list), *tok, *save = NULL;
	int ret = 0;

	if (!copy)
		return -ENOMEM;
	m->by = 0;
	m->by_set = true;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (!strcmp(tok, "vm")) {
			m->by |= KVM_EVENTS_METRICS_VM;
		} else if (!strcmp(tok, "vcpu")) {
			/* A vcpu id is a VM's own: its VM comes with it. */
			m->by |= KVM_EVENTS_METRICS_VM | KVM_EVENTS_METRICS_VCPU;
		} else if (strcmp(tok, "key")) {
			pr_err("perf kvm-events %s: --metrics-by %s: unknown label '%s', expected key, vm or vcpu\n",
			       cmd, list, tok);
			ret = -EINVAL;
			break;
		}
	}
	free(copy);
	return ret;
}

enum kvm_events_group kvm_events_metrics__group(const struct kvm_events_metrics *m,
						enum kvm_events_group group)
{
	if (!kvm_events_metrics__wanted(m))
		return group;
	if (m->by & KVM_EVENTS_METRICS_VCPU)
		return KVM_EVENTS_GROUP_VCPU;
	if ((m->by & KVM_EVENTS_METRICS_VM) && group != KVM_EVENTS_GROUP_VCPU)
		return KVM_EVENTS_GROUP_VM;
	return group;
}

/* The file is written as FILE.tmp beside it, then renamed over it. */
static int metrics__check_file(const struct kvm_events_metrics *m, const char *cmd)
{
	char tmp[PATH_MAX];
	int fd;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp", m->file) >= (int)sizeof(tmp)) {
		pr_err("perf kvm-events %s: --metrics-file %s: the path is too long\n",
		       cmd, m->file);
		return -ENAMETOOLONG;
	}
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		pr_err("perf kvm-events %s: --metrics-file %s: cannot write in its folder: %s\n",
		       cmd, m->file, strerror(errno));
		return -errno;
	}
	close(fd);
	unlink(tmp);
	return 0;
}

int kvm_events_metrics__open(struct kvm_events_metrics *m, const char *cmd)
{
	int ret;

	m->httpd = NULL;
	if (!m->max_series)
		m->max_series = KVM_EVENTS_METRICS_MAX_SERIES;
	if (m->web_config && !m->listen) {
		pr_err("perf kvm-events %s: --metrics-web-config: only with --metrics-listen\n",
		       cmd);
		return -EINVAL;
	}
	if (m->file) {
		ret = metrics__check_file(m, cmd);
		if (ret)
			return ret;
	}
	if (!m->listen)
		return 0;
	m->httpd = kvm_events_httpd__open(cmd, m->listen, m->web_config);
	return m->httpd ? 0 : -EINVAL;
}

int kvm_events_metrics__serve(struct kvm_events_metrics *m, const char *cmd)
{
	int ret;

	if (!m->httpd)
		return 0;
	ret = kvm_events_httpd__start(m->httpd, cmd);
	if (ret) {
		kvm_events_httpd__close(m->httpd);
		m->httpd = NULL;
	}
	return ret;
}

void kvm_events_metrics__stop(struct kvm_events_metrics *m)
{
	kvm_events_httpd__close(m->httpd);
	m->httpd = NULL;
}

/* A label's value, escaped as the format says: backslash, quote, newline */
static void label_value(const char *v, FILE *fp)
{
	fputc('"', fp);
	for (; *v; v++) {
		if (*v == '\\' || *v == '"')
			fprintf(fp, "\\%c", *v);
		else if (*v == '\n')
			fputs("\\n", fp);
		else
			fputc(*v, fp);
	}
	fputc('"', fp);
}

/* A VM's comm: the recording's or live's, else what the VMs' table knows */
static const char *vm_comm(const struct kvm_events_display *d, u32 pid)
{
	const char *comm = kvm_events_display__comm(d, pid);

	/* A thread live has seen no COMM of has an empty one */
	if ((!comm || !*comm) && d->vms)
		comm = kvm_events_vms__comm(d->vms, pid);
	return comm ?: "";
}

/*
 * The labels that tell VM @pid's series apart, with --metrics-by vm.  One
 * its owner named is that name, and its uuid, not its process: restarted
 * under the same name, its series go on, as counters that were reset.
 * Another is its pid and comm.
 */
static void vm_labels(const struct kvm_events_metrics *m, const struct kvm_events_display *d,
		      u32 pid, FILE *fp)
{
	const struct kvm_events_vm *vm = kvm_events_display__vm(d, pid);

	if (!(m->by & KVM_EVENTS_METRICS_VM))
		return;
	if (vm && vm->name) {
		fputs(",vm=", fp);
		label_value(vm->name, fp);
		if (vm->uuid) {
			fputs(",vm_uuid=", fp);
			label_value(vm->uuid, fp);
		}
		return;
	}
	fprintf(fp, ",pid=\"%u\",comm=", pid);
	label_value(vm_comm(d, pid), fp);
}

/* The labels of one series, then the histogram's le if any */
static void series_labels(struct kvm_events_metrics *m, const struct kvm_events_display *d,
			  const struct kvm_events_key *key, FILE *fp)
{
	fputs("{analysis=", fp);
	label_value(kvm_events_analysis__name(d->report->analysis), fp);
	fputs(",key=", fp);
	label_value(key->name, fp);
	vm_labels(m, d, key->pid, fp);
	if (m->by & KVM_EVENTS_METRICS_VCPU) {
		if (key->group == KVM_EVENTS_NO_VCPU)
			fputs(",vcpu=\"\"", fp);
		else
			fprintf(fp, ",vcpu=\"%u\"", key->group);
	}
}

static void family(const char *name, const char *type, const char *help, FILE *fp)
{
	fprintf(fp, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void histogram(struct kvm_events_metrics *m, const struct kvm_events_display *d,
		      const struct kvm_events_key *key, FILE *fp)
{
	u64 below = 0;
	int b;

	for (b = 0; b < LOW_BUCKET && key->log2_ns; b++)
		below += key->log2_ns[b];
	for (b = LOW_BUCKET; b <= HIGH_BUCKET; b++) {
		below += key->log2_ns ? key->log2_ns[b] : 0;
		fputs("kvm_events_exit_duration_seconds_bucket", fp);
		series_labels(m, d, key, fp);
		fprintf(fp, ",le=\"%.9g\"} %" PRIu64 "\n", ((1ULL << b) - 1) / 1e9, below);
	}
	fputs("kvm_events_exit_duration_seconds_bucket", fp);
	series_labels(m, d, key, fp);
	fprintf(fp, ",le=\"+Inf\"} %" PRIu64 "\n", key->timed);
	fputs("kvm_events_exit_duration_seconds_sum", fp);
	series_labels(m, d, key, fp);
	fprintf(fp, "} %.9f\n", key->total_ns / 1e9);
	fputs("kvm_events_exit_duration_seconds_count", fp);
	series_labels(m, d, key, fp);
	fprintf(fp, "} %" PRIu64 "\n", key->timed);
}

/* The named VMs met in a page, each with the pid their series are merged under */
struct named_vms {
	const struct kvm_events_vm	**vms;
	size_t				nr;
	u32				last_pid, last_series;	/* the last asked */
	bool				asked;
};

static bool same_name(const struct kvm_events_vm *a, const struct kvm_events_vm *b)
{
	if (strcmp(a->name, b->name))
		return false;
	return a->uuid && b->uuid ? !strcmp(a->uuid, b->uuid) : a->uuid == b->uuid;
}

/*
 * The pid that VM @pid's keys are merged under: the first one met of the
 * same name and uuid, so that a label set is one series, whatever pids
 * (a VM restarted within an interval) had that name.
 */
static int series_pid(const struct kvm_events_display *d, struct named_vms *named,
		      u32 pid, u32 *series)
{
	const struct kvm_events_vm *vm;
	void *p;
	size_t i;

	if (named->asked && pid == named->last_pid) {
		*series = named->last_series;
		return 0;
	}
	*series = pid;
	vm = kvm_events_display__vm(d, pid);
	for (i = 0; vm && vm->name && i < named->nr; i++) {
		if (same_name(named->vms[i], vm)) {
			*series = named->vms[i]->pid;
			break;
		}
	}
	if (vm && vm->name && i == named->nr) {
		p = reallocarray(named->vms, named->nr + 1, sizeof(*named->vms));
		if (!p)
			return -ENOMEM;
		named->vms = p;
		named->vms[named->nr++] = vm;
	}
	named->asked = true;
	named->last_pid = pid;
	named->last_series = *series;
	return 0;
}

/* The report's keys, merged into the labels' grouping, busiest first */
static int metrics__keys(const struct kvm_events_metrics *m, const struct kvm_events_display *d,
			 struct kvm_events_report *merged, struct kvm_events_key ***keys,
			 size_t *nr)
{
	static const struct kvm_events_sort_keys by_samples = { 1, { KVM_EVENTS_SORT_SAMPLE } };
	const struct kvm_events_report *source = d->report;
	struct kvm_events_options opts = source->opts;
	struct named_vms named = {};
	struct kvm_events_key **from;
	size_t i, n;
	int err = 0;

	opts.group = m->by & KVM_EVENTS_METRICS_VCPU ? KVM_EVENTS_GROUP_VCPU :
		     m->by & KVM_EVENTS_METRICS_VM ? KVM_EVENTS_GROUP_VM : KVM_EVENTS_GROUP_NONE;
	opts.percentiles = opts.stddev = false;
	opts.histogram = true;
	if (kvm_events_report__init(merged, source->analysis, &opts))
		return -ENOMEM;
	from = kvm_events_report__sorted((struct kvm_events_report *)source, &by_samples, &n);
	for (i = 0; from && i < n && !err; i++) {
		u32 vcpu = source->opts.group == KVM_EVENTS_GROUP_VCPU ? from[i]->group :
			   KVM_EVENTS_NO_VCPU;
		struct kvm_events_key *to;
		u32 pid = from[i]->pid;

		if (m->by & KVM_EVENTS_METRICS_VM)
			err = series_pid(d, &named, from[i]->pid, &pid);
		to = err ? NULL : kvm_events_report__entry(merged, from[i]->key, pid, vcpu);
		if (!to || kvm_events_key__join(to, from[i]))
			err = -ENOMEM;
	}
	free(named.vms);
	free(from);
	if (err)
		return err;
	*keys = kvm_events_report__sorted(merged, &by_samples, nr);
	return *keys ? 0 : -ENOMEM;
}

static void write_counts(struct kvm_events_metrics *m, const struct kvm_events_display *d,
			 struct kvm_events_key **keys, size_t nr, FILE *fp)
{
	size_t i;

	family("kvm_events_exits_total", "counter",
	       "Events of each key since the start (a VM exit, an MMIO access...)", fp);
	for (i = 0; i < nr; i++) {
		fputs("kvm_events_exits_total", fp);
		series_labels(m, d, keys[i], fp);
		fprintf(fp, "} %" PRIu64 "\n", keys[i]->samples);
	}
	family("kvm_events_exit_seconds_total", "counter",
	       "Time in the events of each key that have a begin and an end", fp);
	for (i = 0; i < nr; i++) {
		fputs("kvm_events_exit_seconds_total", fp);
		series_labels(m, d, keys[i], fp);
		fprintf(fp, "} %.9f\n", keys[i]->total_ns / 1e9);
	}
	family("kvm_events_exit_duration_seconds", "histogram",
	       "Durations of each key's timed events; le is 2^b - 1 ns", fp);
	for (i = 0; i < nr; i++)
		histogram(m, d, keys[i], fp);
}

static void write_totals(const struct kvm_events_display *d, size_t dropped, FILE *fp)
{
	const struct kvm_events_totals *t = &d->report->totals;
	const char *analysis = kvm_events_analysis__name(d->report->analysis);

	family("kvm_events_unpaired_total", "counter",
	       "Events counted without a time: their end, or their begin, was not seen", fp);
	fprintf(fp, "kvm_events_unpaired_total{analysis=\"%s\",missing=\"end\"} %" PRIu64 "\n",
		analysis, t->no_end);
	fprintf(fp, "kvm_events_unpaired_total{analysis=\"%s\",missing=\"begin\"} %" PRIu64 "\n",
		analysis, t->no_begin);
	family("kvm_events_lost_total", "counter",
	       "Events the ring buffers lost before they were read", fp);
	fprintf(fp, "kvm_events_lost_total{analysis=\"%s\"} %" PRIu64 "\n", analysis,
		kvm_events_totals__lost(t));
	family("kvm_events_dropped_series", "gauge",
	       "Keys left out of this page by --metrics-max-series, the least busy", fp);
	fprintf(fp, "kvm_events_dropped_series{analysis=\"%s\"} %zu\n", analysis, dropped);
}

int kvm_events_metrics__write(struct kvm_events_metrics *m,
			      const struct kvm_events_display *d, FILE *fp)
{
	struct kvm_events_report merged;
	struct kvm_events_key **keys = NULL;
	size_t nr = 0, shown;
	int ret = metrics__keys(m, d, &merged, &keys, &nr);

	if (!ret) {
		shown = min_t(size_t, nr, m->max_series);
		write_counts(m, d, keys, shown, fp);
		write_totals(d, nr - shown, fp);
	}
	free(keys);
	kvm_events_report__exit(&merged);
	return ret;
}

/* Written beside the file, then renamed over it: a reader sees one or the other */
static int metrics__write_file(const struct kvm_events_metrics *m, const char *page, size_t len)
{
	char tmp[PATH_MAX];
	FILE *fp;

	snprintf(tmp, sizeof(tmp), "%s.tmp", m->file);
	fp = fopen(tmp, "w");
	if (!fp)
		return -errno;
	if (fwrite(page, 1, len, fp) != len || fclose(fp)) {
		unlink(tmp);
		return -EIO;
	}
	if (rename(tmp, m->file)) {
		unlink(tmp);
		return -errno;
	}
	return 0;
}

int kvm_events_metrics__publish(struct kvm_events_metrics *m,
				const struct kvm_events_display *d)
{
	char *page = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&page, &len);
	int ret;

	if (!fp)
		return -ENOMEM;
	ret = kvm_events_metrics__write(m, d, fp);
	if (fclose(fp) && !ret)
		ret = -ENOMEM;
	if (!ret && m->file) {
		ret = metrics__write_file(m, page, len);
		if (ret)
			pr_warning_once("--metrics-file %s: cannot write it: %s\n", m->file,
					strerror(-ret));
	}
	if (m->httpd && !ret)
		kvm_events_httpd__publish(m->httpd, page, len);
	else
		free(page);
	return ret;
}
