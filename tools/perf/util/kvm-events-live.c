// SPDX-License-Identifier: GPL-2.0
/*
 * perf kvm-events live: the analysis' kvm tracepoints opened in this
 * process, their ring buffers read as they fill and on a timer, every
 * sample decoded into the engine that report uses, so that the numbers
 * are report's; every -d seconds, whatever the event rate, the interval
 * just ended (labelled with its measured length) and the run so far.
 *
 * The engine pairs each vcpu's events in time order, and the per-CPU
 * ring buffers interleave them.  The samples are ordered by the queue
 * report's reader uses (kvm-events-queue.c), not by perf's ordered_events:
 * it keeps the decoded samples, not copies of the records to parse again
 * at delivery, sorts the per-CPU runs of a drain in linear time, and
 * delivers up to a given time.  The events are opened with CLOCK_MONOTONIC
 * sample times, so that time is when this process started to read the
 * buffers: whatever came before is in them, and a refresh at time T
 * holds exactly the samples before T.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>
#include <linux/compiler.h>
#include <linux/err.h>
#include <linux/kernel.h>
#include <linux/time64.h>
#include <linux/zalloc.h>
#include <perf/mmap.h>

#include "debug.h"
#include "env.h"
#include "cpumap.h"
#include "event.h"
#include "evlist.h"
#include "evsel.h"
#include "hashmap.h"
#include "intlist.h"
#include "kvm-events-browse.h"
#include "kvm-events-display.h"
#include "kvm-events-live.h"
#include "kvm-events-metrics.h"
#include "kvm-events-queue.h"
#include "kvm-events-vms.h"
#include "machine.h"
#include "mmap.h"
#include "mutex.h"
#include "record.h"
#include "sample.h"
#include "synthetic-events.h"
#include "target.h"
#include "thread_map.h"
#include "tracepoint.h"
#include "../ui/ui.h"

/* Room for the tracepoints of one analysis, of every architecture */
#define LIVE_MAX_TRACEPOINTS	64
/* perf kvm-events record's -m: 4 MB a CPU with 4 kB pages */
#define LIVE_MMAP_PAGES		1024

/* A key's counts at the last update of an interval */
struct interval_counts {
	u64	samples;
	u64	timed;
	u64	total_ns;
};

static size_t ptr_hash(long key, void *ctx __maybe_unused)
{
	return (size_t)key >> 4;
}

static bool ptr_equal(long key1, long key2, void *ctx __maybe_unused)
{
	return key1 == key2;
}

int kvm_events_interval__init(struct kvm_events_interval *iv)
{
	memset(iv, 0, sizeof(*iv));
	iv->seen = hashmap__new(ptr_hash, ptr_equal, NULL);
	if (IS_ERR(iv->seen)) {
		iv->seen = NULL;
		return -ENOMEM;
	}
	return 0;
}

void kvm_events_interval__exit(struct kvm_events_interval *iv)
{
	struct hashmap_entry *cur;
	size_t bkt;

	if (iv->seen) {
		hashmap__for_each_entry(iv->seen, cur, bkt)
			free(cur->pvalue);
		hashmap__free(iv->seen);
	}
	free(iv->rows);
	free(iv->keys);
	memset(iv, 0, sizeof(*iv));
}

static int interval__grow(struct kvm_events_interval *iv, size_t nr)
{
	void *p;

	if (nr <= iv->alloc)
		return 0;
	p = reallocarray(iv->rows, nr, sizeof(*iv->rows));
	if (!p)
		return -ENOMEM;
	iv->rows = p;
	p = reallocarray(iv->keys, nr, sizeof(*iv->keys));
	if (!p)
		return -ENOMEM;
	iv->keys = p;
	iv->alloc = nr;
	return 0;
}

/* @key's counts at the last update: zero for a key not seen before */
static struct interval_counts *interval__seen(struct kvm_events_interval *iv,
					      struct kvm_events_key *key)
{
	struct interval_counts *was = NULL;

	if (hashmap__find(iv->seen, key, &was))
		return was;
	was = zalloc(sizeof(*was));
	if (was && hashmap__add(iv->seen, key, was))
		zfree(&was);
	return was;
}

int kvm_events_interval__update(struct kvm_events_interval *iv,
				struct kvm_events_key **keys, size_t nr)
{
	size_t i;

	iv->nr = 0;
	if (interval__grow(iv, nr))
		return -ENOMEM;
	for (i = 0; i < nr; i++) {
		struct interval_counts *was = interval__seen(iv, keys[i]);
		struct kvm_events_key *row = &iv->rows[i];

		if (!was)
			return -ENOMEM;
		/* The name and group; no statistic but the counts is a difference. */
		*row = *keys[i];
		memset(&row->stats, 0, sizeof(row->stats));
		row->dist = NULL;
		row->log2_ns = NULL;
		row->samples -= was->samples;
		row->timed -= was->timed;
		row->total_ns -= was->total_ns;
		/*
		 * No new sample: the row is not shown, and the time of an
		 * earlier sample that ended since waits for the next one, so
		 * that the rows shown add up to the totals.
		 */
		if (!row->samples)
			continue;
		was->samples = keys[i]->samples;
		was->timed = keys[i]->timed;
		was->total_ns = keys[i]->total_ns;
		iv->keys[iv->nr++] = row;
	}
	return 0;
}

void kvm_events_interval__forget(struct kvm_events_interval *iv,
				 const struct kvm_events_key *key)
{
	struct interval_counts *was = NULL;

	if (hashmap__delete(iv->seen, key, NULL, &was))
		free(was);
}

int kvm_events_live_vms__init(struct kvm_events_live_vms *lv,
			      struct kvm_events_vm_filter *filter)
{
	memset(lv, 0, sizeof(*lv));
	lv->filter = filter;
	lv->vms = kvm_events_vms__new(true);
	lv->taken = intlist__new(NULL);
	lv->others = intlist__new(NULL);
	lv->exited = intlist__new(NULL);
	if (!lv->vms || !lv->taken || !lv->others || !lv->exited) {
		kvm_events_live_vms__exit(lv);
		return -ENOMEM;
	}
	return 0;
}

void kvm_events_live_vms__exit(struct kvm_events_live_vms *lv)
{
	kvm_events_vms__delete(lv->vms);
	intlist__delete(lv->taken);
	intlist__delete(lv->others);
	intlist__delete(lv->exited);
	memset(lv, 0, sizeof(*lv));
}

static void remove_pid(struct intlist *pids, u32 pid)
{
	struct int_node *node = intlist__find(pids, pid);

	if (node)
		intlist__remove(pids, node);
}

static int live_vms__take(const struct kvm_events_vm *vm, void *arg)
{
	struct kvm_events_live_vms *lv = arg;

	if (!kvm_events_vm_filter__takes(lv->filter, vm, vm->pid))
		return 0;
	remove_pid(lv->others, vm->pid);
	return kvm_events_pids__add(lv->taken, vm->pid);
}

/*
 * A VM that starts after live is taken when it appears, before its
 * events; a pattern that matched nothing yet may match what a process
 * not taken before is now named: those are asked again.
 */
int kvm_events_live_vms__scan(struct kvm_events_live_vms *lv, const char *procfs)
{
	int err = kvm_events_vms__scan(lv->vms, procfs);

	if (err < 0 && err != -ENOMEM)
		pr_debug("perf kvm-events live: cannot scan %s: %s\n", procfs, strerror(-err));
	if (err == -ENOMEM || !lv->filter)
		return err == -ENOMEM ? err : 0;
	intlist__delete(lv->others);
	lv->others = intlist__new(NULL);
	lv->decided = false;
	if (!lv->others)
		return -ENOMEM;
	return kvm_events_vms__for_each(lv->vms, live_vms__take, lv);
}

bool kvm_events_live_vms__takes(struct kvm_events_live_vms *lv, u32 pid)
{
	bool takes;

	if (!lv->filter)
		return true;
	if (lv->decided && pid == lv->last_pid)
		return lv->last_taken;
	if (intlist__has_entry(lv->taken, pid)) {
		takes = true;
	} else if (intlist__has_entry(lv->others, pid)) {
		takes = false;
	} else {
		takes = kvm_events_vm_filter__takes(lv->filter,
						    kvm_events_vms__find(lv->vms, pid), pid);
		/* Without memory, not kept: asked again at the next sample */
		kvm_events_pids__add(takes ? lv->taken : lv->others, pid);
	}
	lv->decided = true;
	lv->last_pid = pid;
	lv->last_taken = takes;
	return takes;
}

/* Gone, not a zombie: its pid may be another process's by the next refresh */
static bool pid_exited(u32 pid)
{
	return kill(pid, 0) && errno == ESRCH;
}

/* Its pid may come back as another process: everything about it goes. */
static void live_vms__forget(struct kvm_events_live_vms *lv, u32 pid)
{
	kvm_events_vms__forget(lv->vms, pid);
	remove_pid(lv->taken, pid);
	remove_pid(lv->others, pid);
	lv->decided = false;
}

int kvm_events_live_vms__exits(struct kvm_events_live_vms *lv, struct intlist *pids,
			       void (*drop)(u32 pid, void *arg), void *arg)
{
	struct int_node *node;

	intlist__for_each_entry(node, lv->exited) {
		drop(node->i, arg);
		live_vms__forget(lv, node->i);
	}
	intlist__delete(lv->exited);
	lv->exited = intlist__new(NULL);
	if (!lv->exited)
		return -ENOMEM;
	intlist__for_each_entry(node, pids) {
		if (node->i > 0 && pid_exited(node->i) && kvm_events_pids__add(lv->exited, node->i))
			return -ENOMEM;
	}
	return 0;
}

/* One run of live */
struct live {
	const struct kvm_events_live_args *args;
	struct kvm_events_report	report;
	struct kvm_events_queue		queue;
	struct kvm_events_interval	interval;
	struct machine			machine;	/* names --per-vm's VMs */
	/* The report's options: --vm's pids are live's, and grow */
	struct kvm_events_options	opts;
	struct kvm_events_live_vms	vms;		/* ...as their owners do */
	/* The browser's own: its thread asks it for names without the lock */
	struct kvm_events_vms		*browse_vms;
	struct evlist			*evlist;
	struct target			target;
	u64				start;		/* CLOCK_MONOTONIC ns */
	u64				last_refresh;
	unsigned int			nr_refreshes;
	u64				nr_records;	/* read, for -v */
	u64				nr_bad;		/* that perf could not parse */
	/* Samples carry CLOCK_MONOTONIC times: a refresh can cut at its time. */
	bool				monotonic;
	/* Taken to read the ring buffers, and by another thread to read the report */
	struct mutex			lock;
	/* --tui: the browser runs in a thread of its own, as perf top's. */
	struct kvm_events_browse_source	browse;
	pthread_t			browser;
	int				browser_ret;
	bool				clear;		/* a terminal: print in place */
};

/*
 * Set by SIGINT, SIGTERM and SIGCHLD: drain, refresh a last time, end.
 * Read and written once per access, as signal handlers set them.
 */
static sig_atomic_t live_done;
/* The workload could not be run: its errno */
static sig_atomic_t live_exec_errno;

static void live__stop(int sig __maybe_unused)
{
	WRITE_ONCE(live_done, 1);
}

static void live__exec_failed(int signo __maybe_unused, siginfo_t *info,
			      void *ucontext __maybe_unused)
{
	WRITE_ONCE(live_exec_errno, info->si_value.sival_int);
	WRITE_ONCE(live_done, 1);
}

static u64 monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

/*
 * Delivers the queued samples up to @limit, and remembers it: a sample
 * older than that coming later is counted out of order, as in report.
 */
static void live__deliver(struct live *live, u64 limit)
{
	if (!live->monotonic)
		limit = ~0ULL;
	kvm_events_queue__flush(&live->queue, &live->report, limit);
	if (limit > live->queue.last_flush)
		live->queue.last_flush = limit;
	live->report.totals.out_of_order = live->queue.out_of_order;
}

/* The interval that ends at @now, then the run so far */
static void live__print(struct live *live, u64 now)
{
	struct kvm_events_display display = {
		.view		= live->args->view,
		.report		= &live->report,
		.input		= "live",
		.machine	= &live->machine,
		.vms		= live->vms.vms,
		.vm_filter	= live->args->vm_filter,
	};
	struct kvm_events_key **keys;
	size_t nr;

	/* --metrics-*: the counts so far, at each refresh and at the end */
	if (live->args->metrics && kvm_events_metrics__wanted(live->args->metrics))
		kvm_events_metrics__publish(live->args->metrics, &display);
	/* The browser shows the report itself, on its own timer. */
	if (live->args->tui)
		return;
	keys = kvm_events_report__sorted(&live->report, &live->args->view->sort, &nr);
	if (!keys || kvm_events_interval__update(&live->interval, keys, nr)) {
		pr_err("perf kvm-events live: out of memory for refresh %u\n",
		       live->nr_refreshes + 1);
		free(keys);
		return;
	}
	if (live->clear)
		printf("\033[H\033[2J");
	else if (live->nr_refreshes)
		printf("\n");
	printf("perf kvm-events live, refresh %u:\n\n", ++live->nr_refreshes);
	kvm_events_display__interval(&display, live->interval.keys, live->interval.nr,
				     (now - live->last_refresh) / 1e9, stdout);
	printf("\nSince the start:");
	kvm_events_display__tables(&display, keys, nr, stdout);
	fflush(stdout);
	free(keys);
	live->last_refresh = now;
}

static void live__forget_key(struct kvm_events_key *key, void *arg)
{
	struct live *live = arg;

	kvm_events_interval__forget(&live->interval, key);
}

static void live__drop_pid(u32 pid, void *arg)
{
	struct live *live = arg;

	kvm_events_report__drop_pid(&live->report, pid, live__forget_key, live);
}

/*
 * The VMs at a refresh: the new ones named, and taken if --vm says so;
 * those that exited before the last refresh, whose last interval it
 * showed, leave the tables and the metrics.
 */
static void live__vms(struct live *live)
{
	struct intlist *pids = intlist__new(NULL);
	int err = pids ? 0 : -ENOMEM;

	err = err ?: kvm_events_live_vms__scan(&live->vms, "/proc");
	err = err ?: kvm_events_report__pids(&live->report, pids);
	err = err ?: kvm_events_live_vms__exits(&live->vms, pids, live__drop_pid, live);
	if (err)
		pr_warning_once("perf kvm-events live: out of memory to name the VMs\n");
	intlist__delete(pids);
}

/* What a refresh at @now shows: every sample before it, none after */
static void live__refresh(struct live *live, u64 now)
{
	live__deliver(live, now);
	live__vms(live);
	live__print(live, now);
}

static void live__sample(struct live *live, union perf_event *event)
{
	struct kvm_events_sample *s;
	struct perf_sample sample;
	const struct kvm_events_decoder *dec;
	struct evsel *evsel;

	if (evlist__parse_sample(live->evlist, event, &sample)) {
		live->nr_bad++;
		return;
	}
	evsel = evlist__id2evsel(live->evlist, sample.id);
	dec = evsel ? evsel->priv : NULL;
	if (!dec) {
		kvm_events_report__skip_other(&live->report, 1);
		return;
	}
	if (!kvm_events_report__reads(&live->report, dec->tp)) {
		kvm_events_report__skip(&live->report, dec->tp, 1);
		return;
	}
	s = kvm_events_queue__slot(&live->queue);
	if (!s) {
		live->report.totals.no_memory++;
		return;
	}
	/* The kernel wrote it with the format this evsel was opened with. */
	if (kvm_events_decoder__decode(dec, &sample, false, s)) {
		pr_warning_once("perf kvm-events live: a %s sample of %u bytes, shorter than its format\n",
				evsel__name(evsel), sample.raw_size);
		return;
	}
	/* --vm: a VM started since the last refresh is taken at its first sample. */
	kvm_events_live_vms__takes(&live->vms, s->pid);
	kvm_events_queue__push(&live->queue, s);
}

/* The processes' names, for --per-vm's titles */
static void live__comm(struct live *live, union perf_event *event)
{
	struct perf_sample sample;

	if (!evlist__parse_sample(live->evlist, event, &sample))
		machine__process_event(&live->machine, event, &sample);
}

static void live__event(struct live *live, union perf_event *event)
{
	struct kvm_events_totals *t = &live->report.totals;

	live->nr_records++;
	switch (event->header.type) {
	case PERF_RECORD_SAMPLE:
		live__sample(live, event);
		break;
	case PERF_RECORD_LOST:
		/* The ring buffer was full: shown in every refresh's footer */
		t->lost_events += event->lost.lost;
		t->lost_chunks++;
		break;
	case PERF_RECORD_LOST_SAMPLES:
		t->lost_samples += event->lost_samples.lost;
		break;
	case PERF_RECORD_COMM:
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		live__comm(live, event);
		break;
	default:
		break;
	}
}

/* Reads every ring buffer empty, then delivers what came before @start. */
static void live__drain(struct live *live)
{
	u64 start = monotonic_ns();
	union perf_event *event;
	int i;

	mutex_lock(&live->lock);
	for (i = 0; i < live->evlist->core.nr_mmaps; i++) {
		struct mmap *md = &live->evlist->mmap[i];

		if (perf_mmap__read_init(&md->core) < 0)
			continue;
		while ((event = perf_mmap__read_event(&md->core)) != NULL) {
			live__event(live, event);
			perf_mmap__consume(&md->core);
		}
		perf_mmap__read_done(&md->core);
	}
	live__deliver(live, start);
	mutex_unlock(&live->lock);
}

static void free_decoders(struct evlist *evlist)
{
	struct evsel *evsel;

	evlist__for_each_entry(evlist, evsel)
		zfree(&evsel->priv);
}

/* The analysis' tracepoints this host has, each with its decoder */
static int live__add_tracepoints(struct live *live)
{
	const char *names[LIVE_MAX_TRACEPOINTS];
	u32 tps = kvm_events_record_tps(kvm_events_analysis__name(live->args->analysis));
	size_t nr, i;
	u32 isa = kvm_events_isa_from_cpuid(perf_env__cpuid(&perf_env));
	const struct kvm_events_analysis *a = NULL;

	/* The browser switches analyses: it reads the tracepoints of all. */
	while (live->args->tui && (a = kvm_events_analysis__next(a)))
		tps |= kvm_events_record_tps(kvm_events_analysis__name(a));
	nr = kvm_events_tracepoints(tps, names, ARRAY_SIZE(names));

	for (i = 0; i < nr; i++) {
		struct kvm_events_decoder *dec;
		char sys[64], *name;
		struct evsel *evsel;

		if (!is_valid_tracepoint(names[i]))
			continue;
		snprintf(sys, sizeof(sys), "%s", names[i]);
		name = strchr(sys, ':');
		if (!name)
			continue;
		*name++ = '\0';
		evsel = evsel__newtp(sys, name);
		dec = zalloc(sizeof(*dec));
		if (IS_ERR(evsel) || !dec ||
		    kvm_events_decoder__init(dec, evsel->tp_format)) {
			free(dec);
			if (!IS_ERR(evsel))
				evsel__delete(evsel);
			continue;
		}
		/* A kvm_exit without an isa field: this host's CPU vendor says */
		kvm_events_decoder__default_isa(dec, isa);
		evsel->priv = dec;
		evlist__add(live->evlist, evsel);
	}
	return live->evlist->core.nr_entries ? 0 : KVM_EVENTS_LIVE_NO_TRACEPOINT;
}

/* One line on why the events cannot be opened, and how to fix it */
static void live__open_error(struct live *live, int err)
{
	struct evsel *evsel = evlist__first(live->evlist);
	char msg[BUFSIZ];

	switch (err) {
	case EACCES:
	case EPERM:
		pr_err("perf kvm-events live: no permission to open %s (kernel.perf_event_paranoid is %d); run as root, or as root: sysctl -w kernel.perf_event_paranoid=-1\n",
		       evsel__name(evsel), perf_event_paranoid());
		break;
	case ESRCH:
		pr_err("perf kvm-events live: %s %s: no such process\n",
		       live->target.pid ? "-p" : "-t",
		       live->target.pid ?: live->target.tid);
		break;
	default:
		evsel__open_strerror(evsel, &live->target, err, msg, sizeof(msg));
		pr_err("perf kvm-events live: cannot open %s: %s\n", evsel__name(evsel), msg);
		break;
	}
}

/*
 * The first CPU of -C that is not online, or -1: the kernel's error for
 * it would be taken for a missing feature (perf retries without some).
 */
static int live__offline_cpu(struct live *live)
{
	struct perf_cpu_map *online = cpu_map__online();
	struct perf_cpu cpu;
	int idx;

	perf_cpu_map__for_each_cpu(cpu, idx, live->evlist->core.user_requested_cpus) {
		if (cpu.cpu >= 0 && online && !perf_cpu_map__has(online, cpu))
			return cpu.cpu;
	}
	return -1;
}

/* The target's maps */
static int live__target(struct live *live)
{
	const struct kvm_events_live_args *args = live->args;
	char msg[BUFSIZ];
	int err;

	live->target = (struct target){
		.pid		= args->pid,
		.tid		= args->tid,
		.cpu_list	= args->cpu_list,
		.system_wide	= args->system_wide,
		.uid		= UINT_MAX,	/* no --uid */
		.uses_mmap	= true,
		.default_per_cpu = true,
	};
	/* As perf record: no target and no workload watch the whole host. */
	if (target__none(&live->target) && !args->argc)
		live->target.system_wide = true;
	err = target__validate(&live->target);
	if (err) {
		target__strerror(&live->target, err, msg, sizeof(msg));
		pr_err("perf kvm-events live: %s\n", msg);
		return -EINVAL;
	}
	if (evlist__create_maps(live->evlist, &live->target) < 0 ||
	    live__offline_cpu(live) >= 0) {
		if (live->target.pid || live->target.tid)
			pr_err("perf kvm-events live: %s %s: no such process\n",
			       live->target.pid ? "-p" : "-t",
			       live->target.pid ?: live->target.tid);
		else
			pr_err("perf kvm-events live: -C %s: not CPUs online on this host\n",
			       live->target.cpu_list);
		return -EINVAL;
	}
	return 0;
}

static void live__config(struct live *live)
{
	struct record_opts opts = {
		.target		= live->target,
		.user_freq	= UINT_MAX,
		.user_interval	= ULLONG_MAX,
		.raw_samples	= true,
		.sample_time	= true,
		.use_clockid	= true,
		.clockid	= CLOCK_MONOTONIC,
	};

	evlist__config(live->evlist, &opts, NULL);
}

/* The events opened, mapped and running, the workload started */
static int live__open(struct live *live)
{
	const struct kvm_events_live_args *args = live->args;
	struct evsel *evsel;
	int err;

	live__config(live);
	if (args->argc &&
	    evlist__prepare_workload(live->evlist, &live->target, args->argv, false,
				     live__exec_failed) < 0) {
		pr_err("perf kvm-events live: cannot start %s: %s\n", args->argv[0],
		       strerror(errno));
		return -errno;
	}
	err = evlist__open(live->evlist);
	if (err < 0) {
		live__open_error(live, -err);
		return err;
	}
	if (evlist__mmap(live->evlist, args->mmap_pages ?: LIVE_MMAP_PAGES) < 0) {
		pr_err("perf kvm-events live: cannot map the ring buffers of %u pages (%s); try a smaller -m, or raise kernel.perf_event_mlock_kb\n",
		       args->mmap_pages ?: LIVE_MMAP_PAGES, strerror(errno));
		return -errno;
	}
	/* An older kernel may not take the clock: then cut at each drain. */
	live->monotonic = true;
	evlist__for_each_entry(live->evlist, evsel)
		live->monotonic &= evsel->core.attr.use_clockid;
	/* Who is who, for --per-vm: the processes there already */
	machine__synthesize_threads(&live->machine, &live->target, live->evlist->core.threads,
				    false, false, 1);
	/* A command alone: its events start at its exec (enable_on_exec). */
	if (!target__none(&live->target))
		evlist__enable(live->evlist);
	live->start = live->last_refresh = monotonic_ns();
	if (args->argc)
		evlist__start_workload(live->evlist);
	return 0;
}

/*
 * The longest wait for events, in ms: a stop that another thread asks
 * for is seen that soon.
 */
#define LIVE_POLL_MS	100

/*
 * The browser's source: the report so far, the ring buffers not read
 * meanwhile.
 */
static struct kvm_events_report *live__browse_get(struct kvm_events_browse_source *src,
						  struct machine **machine)
{
	struct live *live = container_of(src, struct live, browse);

	mutex_lock(&live->lock);
	if (machine)
		*machine = &live->machine;
	return &live->report;
}

static void live__browse_put(struct kvm_events_browse_source *src)
{
	struct live *live = container_of(src, struct live, browse);

	mutex_unlock(&live->lock);
}

/*
 * Counts start over: what is queued goes to the analysis it was decoded
 * for, and an event open across the switch is counted in neither.
 */
static int live__browse_analysis(struct kvm_events_browse_source *src,
				 const struct kvm_events_analysis *analysis)
{
	struct live *live = container_of(src, struct live, browse);
	int ret;

	mutex_lock(&live->lock);
	live__deliver(live, ~0ULL);
	kvm_events_report__exit(&live->report);
	ret = kvm_events_report__init(&live->report, analysis, &live->opts);
	mutex_unlock(&live->lock);
	return ret;
}

static bool live__browse_ended(struct kvm_events_browse_source *src __maybe_unused)
{
	return READ_ONCE(live_done);
}

/* The browser's thread: when the user quits, live ends. */
static void *live__browser(void *arg)
{
	struct live *live = arg;

	live->browser_ret = kvm_events_browse__run(&live->browse, live->args->analysis);
	WRITE_ONCE(live_done, 1);
	return NULL;
}

static int live__start_browser(struct live *live)
{
	if (!live->args->tui)
		return 0;
	live->browse = (struct kvm_events_browse_source){
		.title		= "live",
		.view		= live->args->view,
		.delay		= live->args->delay,
		.get		= live__browse_get,
		.put		= live__browse_put,
		.set_analysis	= live__browse_analysis,
		.ended		= live__browse_ended,
		.vms		= live->browse_vms,
	};
	/* A resize is the browser's: its thread unblocks SIGWINCH. */
	pthread__block_sigwinch();
	if (pthread_create(&live->browser, NULL, live__browser, live)) {
		pr_err("perf kvm-events live: cannot start the browser's thread\n");
		return -errno;
	}
	return 0;
}

/* The workload's end leaves the last screen up until q: live's status then */
static int live__join_browser(struct live *live, int ret)
{
	if (!live->args->tui)
		return ret;
	pthread_join(live->browser, NULL);
	return live->browser_ret ?: ret;
}

/*
 * Until the end: waits for data or the next refresh, and refreshes on
 * time whether events came or not.
 */
static void live__loop(struct live *live)
{
	u64 period = live->args->delay * NSEC_PER_SEC;
	u64 next = live->start + period, now;

	while (!READ_ONCE(live_done)) {
		now = monotonic_ns();
		if (now >= next) {
			live__drain(live);
			mutex_lock(&live->lock);
			live__refresh(live, now);
			mutex_unlock(&live->lock);
			/* A late refresh (a stopped process) moves the next one. */
			next = max(next + period, now + period / 2);
			continue;
		}
		/* Up to the next refresh, rounded up to whole milliseconds */
		if (evlist__poll(live->evlist, min_t(u64, DIV_ROUND_UP(next - now, NSEC_PER_MSEC),
						     LIVE_POLL_MS)) <= 0)
			continue;
		live__drain(live);
		/* Every process watched (-p) has ended. */
		if (evlist__filter_pollfd(live->evlist, POLLERR | POLLHUP | POLLNVAL) == 0)
			break;
	}
	evlist__disable(live->evlist);
	/* The workload never ran: its error says so, no table. */
	if (READ_ONCE(live_exec_errno))
		return;
	live__drain(live);
	now = monotonic_ns();
	mutex_lock(&live->lock);
	/* All that was read came before the end; then what never ended is cut. */
	live__deliver(live, ~0ULL);
	kvm_events_report__finish(&live->report);
	live__print(live, now);
	mutex_unlock(&live->lock);
}

/*
 * The exit status: the workload's, as perf record gives it; killed by
 * the SIGINT of a Ctrl-C or the SIGTERM live sends at the end, 0.
 */
static int live__workload_status(struct live *live)
{
	pid_t pid = live->evlist->workload.pid;
	int status;

	if (!live->args->argc || pid <= 0)
		return 0;
	if (waitpid(pid, &status, WNOHANG) == 0) {
		kill(pid, SIGTERM);
		if (waitpid(pid, &status, 0) != pid)
			return 0;
	}
	if (READ_ONCE(live_exec_errno)) {
		pr_err("perf kvm-events live: cannot run %s: %s\n", live->args->argv[0],
		       strerror(READ_ONCE(live_exec_errno)));
		return 127;
	}
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WTERMSIG(status) == SIGINT || WTERMSIG(status) == SIGTERM)
		return 0;
	return 128 + WTERMSIG(status);
}

/*
 * The tracepoint path: perf's evlist on the kvm tracepoints.  A BPF path
 * would sit beside it, feeding the same report and refreshes.
 */
static int live__run_tracepoints(struct live *live)
{
	int ret;

	live->evlist = evlist__new();
	if (!live->evlist)
		return -ENOMEM;
	ret = live__add_tracepoints(live);
	if (!ret)
		ret = live__target(live);
	if (!ret)
		ret = live__open(live);
	ret = ret ?: live__start_browser(live);
	if (!ret) {
		live__loop(live);
		ret = live__workload_status(live);
		ret = live__join_browser(live, ret);
		/* After the browser: to stderr, not to a helpline about to go */
		pr_debug("perf kvm-events live: %llu records read, %llu samples perf could not parse\n",
			 (unsigned long long)live->nr_records, (unsigned long long)live->nr_bad);
	} else if (live->evlist->workload.pid > 0) {
		/* Forked, never started: it waits on a pipe closed with the evlist */
		kill(live->evlist->workload.pid, SIGTERM);
		waitpid(live->evlist->workload.pid, NULL, 0);
	}
	free_decoders(live->evlist);
	evlist__delete(live->evlist);
	return ret;
}

static void live__signals(void)
{
	signal(SIGINT, live__stop);
	signal(SIGTERM, live__stop);
	/* The workload ended: so does live. */
	signal(SIGCHLD, live__stop);
}

/*
 * The VMs' names from /proc, read now for the first refresh's titles;
 * --vm's pids, the report's filter, grow as VMs appear.
 */
static int live__init_vms(struct live *live)
{
	int err = kvm_events_live_vms__init(&live->vms, live->args->vm_filter);

	live->opts = *live->args->opts;
	if (!err && live->args->vm_filter)
		live->opts.pids = live->vms.taken;
	if (!err && live->args->tui) {
		live->browse_vms = kvm_events_vms__new(true);
		err = live->browse_vms ? 0 : -ENOMEM;
	}
	return err ?: kvm_events_live_vms__scan(&live->vms, "/proc");
}

int kvm_events_live__run(const struct kvm_events_live_args *args)
{
	struct live live = {
		.args	= args,
		.clear	= isatty(STDOUT_FILENO),
	};
	int ret;

	/* The host's processes, without its kernel maps: only names are asked. */
	ret = machine__init(&live.machine, "", HOST_KERNEL_ID);
	if (!ret)
		ret = live__init_vms(&live);
	if (!ret)
		ret = kvm_events_report__init(&live.report, args->analysis, &live.opts);
	if (!ret)
		ret = kvm_events_interval__init(&live.interval);
	if (ret) {
		pr_err("perf kvm-events live: out of memory\n");
	} else {
		mutex_init(&live.lock);
		live__signals();
		ret = live__run_tracepoints(&live);
		mutex_destroy(&live.lock);
	}
	kvm_events_interval__exit(&live.interval);
	kvm_events_queue__exit(&live.queue);
	kvm_events_report__exit(&live.report);
	kvm_events_live_vms__exit(&live.vms);
	kvm_events_vms__delete(live.browse_vms);
	machine__exit(&live.machine);
	return ret;
}
