// SPDX-License-Identifier: GPL-2.0
/*
 * perf kvm-events record --use-bpf: the pairing of live --use-bpf runs
 * while perf record writes the file.  One program (util/bpf-kvm-events.c)
 * pairs every analysis, so that an event costs one run however many read
 * it, and each analysis has a bpf-output event, kvm_events_NAME, that
 * perf record records on every CPU.  The program writes each paired
 * event of at least --min-time there whole, and dumps its maps there
 * every DUMP_INTERVAL_MS and at the end, so that a killed recording keeps
 * the counts of its last dump.  report reads it with
 * util/kvm-events-bpf-recording.c.
 *
 * perf record reads its buffers when half of one is full: a dump would
 * wait there, and die with a killed perf record.  So after each dump,
 * the dumper pings perf record's control fd (--control), whose poll then
 * returns and whose loop reads every buffer into the file.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <internal/xyarray.h>
#include <linux/compiler.h>
#include <linux/zalloc.h>
#include <perf/cpumap.h>

#include "builtin.h"
#include "debug.h"
#include "evlist.h"
#include "evsel.h"
#include "kvm-events.h"
#include "kvm-events-analysis.h"
#include "bpf-kvm-events.h"

#define DUMP_INTERVAL_MS	10000

struct kvm_events_bpf_record {
	const struct kvm_events_analysis	*analyses[KVM_EVENTS_BPF_MAX_ANALYSES];
	struct kvm_events_bpf			*bpf;
	char					names[KVM_EVENTS_BPF_MAX_ANALYSES][64];
	char					events[KVM_EVENTS_BPF_MAX_ANALYSES][128];
	u32					nr;
	bool					by_pid;	/* -p */
	struct record_hooks			hooks;
	pthread_t				dumper;
	bool					dumping;
	int					stop[2];	/* a pipe: stop dumping */
	int					control[2];	/* perf record's --control */
	char					control_option[32];
};

static void dump_all(struct kvm_events_bpf_record *rec)
{
	u32 i;

	for (i = 0; i < rec->nr; i++) {
		if (kvm_events_bpf__dump(rec->bpf, i))
			pr_warning("perf kvm-events record: --use-bpf: cannot dump the counts of %s: %s\n",
				   rec->analyses[i]->name, strerror(errno));
	}
}

static void *dumper(void *arg)
{
	struct kvm_events_bpf_record *rec = arg;
	struct pollfd pfd = { .fd = rec->stop[0], .events = POLLIN };

	while (poll(&pfd, 1, DUMP_INTERVAL_MS) == 0) {
		dump_all(rec);
		if (write(rec->control[1], EVLIST_CTL_CMD_PING_TAG "\n",
			  sizeof(EVLIST_CTL_CMD_PING_TAG)) < 0)
			pr_debug("kvm-events: cannot ping perf record: %s\n", strerror(errno));
	}
	return NULL;
}

/* The bpf-output event of each CPU, for the analysis to write to */
static int set_outputs(struct kvm_events_bpf *bpf, u32 analysis, struct evsel *evsel)
{
	struct perf_cpu cpu;
	int idx, err;

	perf_cpu_map__for_each_cpu(cpu, idx, evsel->core.cpus) {
		err = kvm_events_bpf__set_output(bpf, analysis, cpu.cpu,
						 *(int *)xyarray__entry(evsel->core.fd, idx, 0));
		if (err)
			return err;
	}
	return 0;
}

static int opened(struct evlist *evlist, void *arg)
{
	struct kvm_events_bpf_record *rec = arg;
	struct evsel *evsel;
	int err;
	u32 i;

	for (i = 0; i < rec->nr; i++) {
		evsel = evlist__find_evsel_by_str(evlist, rec->names[i]);
		if (!evsel) {
			pr_err("perf kvm-events record: --use-bpf: perf record did not open %s\n",
			       rec->names[i]);
			return -ENOENT;
		}
		err = set_outputs(rec->bpf, i, evsel);
		if (err) {
			pr_err("perf kvm-events record: --use-bpf: cannot write into %s: %s\n",
			       rec->names[i], strerror(-err));
			return err;
		}
	}
	/* perf record's workload and its children, as its inherit takes */
	if (!rec->by_pid && evlist->workload.pid > 0)
		kvm_events_bpf__filter_children(rec->bpf, getpid());
	err = kvm_events_bpf__attach(rec->bpf);
	if (err)
		return err;
	if (pipe(rec->stop) || pthread_create(&rec->dumper, NULL, dumper, rec))
		pr_warning("perf kvm-events record: --use-bpf: counts are dumped at the end only\n");
	else
		rec->dumping = true;
	return 0;
}

static void stop_dumper(struct kvm_events_bpf_record *rec)
{
	if (!rec->dumping)
		return;
	if (write(rec->stop[1], "", 1) != 1)
		pr_debug("kvm-events: cannot stop the dumps: %s\n", strerror(errno));
	pthread_join(rec->dumper, NULL);
	rec->dumping = false;
}

/* Detached first, so that the last dump counts every event written. */
static void stopping(void *arg)
{
	struct kvm_events_bpf_record *rec = arg;

	stop_dumper(rec);
	kvm_events_bpf__detach(rec->bpf);
	dump_all(rec);
}

static int add_analysis(struct kvm_events_bpf_record *rec,
			const struct kvm_events_analysis *analysis)
{
	rec->analyses[rec->nr] = analysis;
	snprintf(rec->names[rec->nr], sizeof(rec->names[0]), "%s%s",
		 KVM_EVENTS_BPF_EVENT_PREFIX, analysis->name);
	/* One sample per write, on each CPU: no child of its own */
	snprintf(rec->events[rec->nr], sizeof(rec->events[0]),
		 "bpf-output/no-inherit=1,name=%s%s/", KVM_EVENTS_BPF_EVENT_PREFIX,
		 analysis->name);
	rec->nr++;
	return kvm_events_bpf__add_analysis(rec->bpf, analysis);
}

struct kvm_events_bpf_record *kvm_events_bpf_record__new(const char *events,
							 u64 min_time_ns,
							 const char *pids)
{
	struct kvm_events_bpf_record *rec = zalloc(sizeof(*rec));
	const struct kvm_events_analysis *analyses[KVM_EVENTS_BPF_MAX_ANALYSES];
	int err = rec ? 0 : -ENOMEM;
	size_t i, nr;

	if (err)
		return NULL;
	rec->bpf = kvm_events_bpf__new(KVM_EVENTS_BPF_MAP_ENTRIES);
	if (!rec->bpf) {
		free(rec);
		return NULL;
	}
	kvm_events_bpf__set_records(rec->bpf, min_time_ns);
	nr = kvm_events_analyses_of(events, analyses, ARRAY_SIZE(analyses));
	for (i = 0; i < nr && !err; i++) {
		/* As record leaves out the tracepoints this kernel lacks */
		if (kvm_events_bpf__kernel_has(analyses[i]))
			err = add_analysis(rec, analyses[i]);
		else if (events)
			pr_warning("perf kvm-events record: --use-bpf: this kernel lacks the tracepoints of --event %s: not recorded\n",
				   analyses[i]->name);
	}
	if (!err && !rec->nr) {
		pr_err("perf kvm-events record: --use-bpf: this kernel has the tracepoints of none of the analyses asked for\n");
		err = -ENOENT;
	}
	if (!err && pids) {
		err = kvm_events_bpf__add_pids(rec->bpf, pids);
		rec->by_pid = true;
	}
	if (!err && pipe(rec->control))
		err = -errno;
	else if (!err)
		snprintf(rec->control_option, sizeof(rec->control_option), "--control=fd:%d",
			 rec->control[0]);
	if (!err)
		err = kvm_events_bpf__load(rec->bpf);
	if (err) {
		kvm_events_bpf_record__delete(rec);
		return NULL;
	}
	rec->hooks = (struct record_hooks){ .opened = opened, .stopping = stopping, .arg = rec };
	return rec;
}

void kvm_events_bpf_record__delete(struct kvm_events_bpf_record *rec)
{
	if (!rec)
		return;
	stop_dumper(rec);
	kvm_events_bpf__delete(rec->bpf);
	if (rec->stop[0] > 0) {
		close(rec->stop[0]);
		close(rec->stop[1]);
	}
	if (rec->control[0] > 0) {
		close(rec->control[0]);
		close(rec->control[1]);
	}
	free(rec);
}

u32 kvm_events_bpf_record__nr_events(const struct kvm_events_bpf_record *rec)
{
	return rec->nr;
}

const char *kvm_events_bpf_record__event(const struct kvm_events_bpf_record *rec, u32 i)
{
	return rec->events[i];
}

const char *kvm_events_bpf_record__control(const struct kvm_events_bpf_record *rec)
{
	return rec->control_option;
}

const struct record_hooks *kvm_events_bpf_record__hooks(const struct kvm_events_bpf_record *rec)
{
	return &rec->hooks;
}
