// SPDX-License-Identifier: GPL-2.0
/*
 * perf kvm-events live --use-bpf: the analysis' events paired in the
 * kernel (util/bpf-kvm-events.c), its maps read and printed every --delay
 * seconds, the last interval and the totals so far, and once at the end,
 * with the tables of live.  Nothing per event leaves the kernel, so a
 * loaded VM pays only the programs on its tracepoints.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>
#include <linux/compiler.h>
#include <linux/kernel.h>

#include "debug.h"
#include "intlist.h"
#include "kvm-events.h"
#include "kvm-events-browse.h"
#include "kvm-events-display.h"
#include "kvm-events-live.h"
#include "kvm-events-metrics.h"
#include "bpf-kvm-events.h"

/* The longest wait for a Ctrl-C or the workload's end, in ms */
#define POLL_MS		100

static sig_atomic_t live_done;

static void live_stop(int sig __maybe_unused)
{
	WRITE_ONCE(live_done, 1);
}

/* One reading of the maps, as a report */
struct snapshot {
	struct kvm_events_report	report;
	struct kvm_events_key		**keys;	/* sorted */
	size_t				nr;
};

struct bpf_live {
	const struct kvm_events_bpf_live	*args;
	struct kvm_events_bpf			*bpf;
	/* The report's options: --vm's pids are live's, and grow */
	struct kvm_events_options		opts;
	struct kvm_events_live_vms		vms;	/* named from /proc */
	struct snapshot				last;	/* at the last refresh */
	/* --tui: the browser reads the maps on its own timer */
	struct kvm_events_browse_source		browse;
	struct snapshot				browsed;
	pid_t					workload;
	int					status;
	bool					workload_ended;
	unsigned int				nr_prints;
	bool					clear;	/* a terminal: print in place */
};

static void snapshot__exit(struct snapshot *s)
{
	free(s->keys);
	kvm_events_report__exit(&s->report);
	memset(s, 0, sizeof(*s));
}

static int snapshot__read(struct bpf_live *live, struct snapshot *s, bool final)
{
	const struct kvm_events_bpf_live *args = live->args;

	memset(s, 0, sizeof(*s));
	if (kvm_events_report__init(&s->report, args->analysis, &live->opts) ||
	    kvm_events_bpf__read(live->bpf, &s->report, final))
		return -ENOMEM;
	s->keys = kvm_events_report__sorted(&s->report, &args->view->sort, &s->nr);
	return s->keys ? 0 : -ENOMEM;
}

static struct kvm_events_display display_of(struct bpf_live *live, struct snapshot *s)
{
	return (struct kvm_events_display){
		.view	= live->args->view,
		.report	= &s->report,
		.input	= "bpf",
		.vms	= live->vms.vms,
		.vm_filter = live->args->vm_filter,
	};
}

static void drop_pid(u32 pid, void *arg)
{
	struct bpf_live *live = arg;

	kvm_events_bpf__forget_pid(live->bpf, pid);
}

/*
 * Before a reading of the maps: --vm decides on each process they hold
 * that it has not seen; at a refresh, new VMs are named and taken, and
 * those seen to exit at the last one leave the maps, their last
 * interval shown.
 */
static int bpf_live__vms(struct bpf_live *live, bool refresh)
{
	struct intlist *pids = intlist__new(NULL);
	struct int_node *node;
	int err = pids ? 0 : -ENOMEM;

	if (refresh)
		err = err ?: kvm_events_live_vms__scan(&live->vms, "/proc");
	err = err ?: kvm_events_bpf__pids(live->bpf, pids);
	if (!err) {
		intlist__for_each_entry(node, pids)
			kvm_events_live_vms__takes(&live->vms, node->i);
	}
	if (refresh)
		err = err ?: kvm_events_live_vms__exits(&live->vms, pids, drop_pid, live);
	if (err)
		pr_warning_once("perf kvm-events live: out of memory to name the VMs\n");
	intlist__delete(pids);
	return err;
}

/* --metrics-*: what the maps hold, at each refresh and at the end */
static int publish(struct bpf_live *live, struct snapshot *s)
{
	struct kvm_events_display display = display_of(live, s);

	if (live->args->metrics && kvm_events_metrics__wanted(live->args->metrics))
		kvm_events_metrics__publish(live->args->metrics, &display);
	return 0;
}

static const struct kvm_events_key *find_key(const struct snapshot *s,
					     const struct kvm_events_key *key)
{
	size_t i;

	for (i = 0; i < s->nr; i++) {
		if (s->keys[i]->key == key->key && s->keys[i]->group == key->group &&
		    s->keys[i]->pid == key->pid)
			return s->keys[i];
	}
	return NULL;
}

/* What each key gained since the last refresh, as live's interval table */
static void print_interval(struct bpf_live *live, struct snapshot *now)
{
	struct kvm_events_key *delta = calloc(now->nr ?: 1, sizeof(*delta));
	struct kvm_events_key **rows = calloc(now->nr ?: 1, sizeof(*rows));
	struct kvm_events_display display = display_of(live, now);
	size_t i, nr_rows = 0;

	if (!delta || !rows)
		goto out;
	for (i = 0; i < now->nr; i++) {
		const struct kvm_events_key *was = find_key(&live->last, now->keys[i]);

		delta[i] = *now->keys[i];
		delta[i].dist = NULL;
		delta[i].log2_ns = NULL;
		delta[i].samples -= was ? was->samples : 0;
		delta[i].timed -= was ? was->timed : 0;
		delta[i].total_ns -= was ? was->total_ns : 0;
		if (delta[i].samples)
			rows[nr_rows++] = &delta[i];
	}
	kvm_events_display__interval(&display, rows, nr_rows, live->args->delay, stdout);
out:
	free(delta);
	free(rows);
}

/* Said after the tables: what the maps had no room for is never silent. */
static void print_full(struct bpf_live *live)
{
	struct kvm_events_bpf_counts c;

	kvm_events_bpf__counts(live->bpf, 0, &c);
	if (!c.full_threads && !c.full_keys && !c.full_buckets)
		return;
	printf("BPF maps full (--bpf-map-entries %u): left out %llu events of threads,",
	       live->args->map_entries, (unsigned long long)c.full_threads);
	printf(" %llu samples of keys, %llu durations of the percentiles.\n",
	       (unsigned long long)c.full_keys, (unsigned long long)c.full_buckets);
}

static void print_tables(struct bpf_live *live, struct snapshot *s)
{
	struct kvm_events_display display = display_of(live, s);

	kvm_events_display__tables(&display, s->keys, s->nr, stdout);
	print_full(live);
}

static int live__refresh(struct bpf_live *live)
{
	struct snapshot now;

	bpf_live__vms(live, true);
	if (snapshot__read(live, &now, false)) {
		snapshot__exit(&now);
		return -ENOMEM;
	}
	publish(live, &now);
	if (live->clear)
		printf("\033[H\033[2J");
	printf("perf kvm-events live --use-bpf, refresh %u:\n\n", ++live->nr_prints);
	print_interval(live, &now);
	printf("\nSince the start:");
	print_tables(live, &now);
	fflush(stdout);
	snapshot__exit(&live->last);
	live->last = now;
	return 0;
}

static int print_final(struct bpf_live *live)
{
	struct snapshot end;
	int err;

	bpf_live__vms(live, false);
	err = snapshot__read(live, &end, true);

	err = err ?: publish(live, &end);
	if (!err && !live->args->tui) {
		printf("\nperf kvm-events live --use-bpf, at the end:");
		print_tables(live, &end);
		fflush(stdout);
	}
	snapshot__exit(&end);
	return err;
}

static u64 monotonic_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000ULL + ts.tv_nsec / 1000000;
}

/* -p's list into the program's filter */
/*
 * The workload, forked now, run once the program is attached: it waits
 * for a byte on *go; a closed pipe, without it, ends it unrun.
 */
static pid_t workload__fork(const char **argv, int *go)
{
	int fds[2];
	pid_t pid;
	char c;

	if (pipe2(fds, O_CLOEXEC))
		return -1;
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		close(fds[1]);
		if (read(fds[0], &c, 1) != 1)
			_exit(127);
		execvp(argv[0], (char **)argv);
		fprintf(stderr, "perf kvm-events live: %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(fds[0]);
	*go = fds[1];
	return pid;
}

/* The exit status of live: the workload's; a stop by a signal is clean. */
static int workload_status(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return WIFSIGNALED(status) && (WTERMSIG(status) == SIGINT ||
				       WTERMSIG(status) == SIGTERM) ? 0 : 1;
}

static struct kvm_events_report *browse__get(struct kvm_events_browse_source *src,
					     struct machine **machine)
{
	struct bpf_live *live = container_of(src, struct bpf_live, browse);

	if (machine)
		*machine = NULL;
	/* Once the workload ended, the screen is the last: nothing leaves it. */
	bpf_live__vms(live, !live->workload_ended);
	if (snapshot__read(live, &live->browsed, false)) {
		snapshot__exit(&live->browsed);
		return NULL;
	}
	publish(live, &live->browsed);
	return &live->browsed.report;
}

static void browse__put(struct kvm_events_browse_source *src)
{
	struct bpf_live *live = container_of(src, struct bpf_live, browse);

	snapshot__exit(&live->browsed);
}

/* The workload reaped once it ends; the last screen stays up until q */
static bool browse__ended(struct kvm_events_browse_source *src)
{
	struct bpf_live *live = container_of(src, struct bpf_live, browse);

	if (live->workload > 0 && !live->workload_ended &&
	    waitpid(live->workload, &live->status, WNOHANG) == live->workload)
		live->workload_ended = true;
	return live->workload_ended;
}

/* The browser in this thread: the kernel pairs the events, nothing to read */
static int browse(struct bpf_live *live, pid_t workload, int *status)
{
	int err;

	live->browse = (struct kvm_events_browse_source){
		.title	= "live --use-bpf",
		.view	= live->args->view,
		.delay	= live->args->delay,
		.get	= browse__get,
		.put	= browse__put,
		.ended	= browse__ended,
		.vms	= live->vms.vms,
	};
	live->workload = workload;
	err = kvm_events_browse__run(&live->browse, live->args->analysis);
	*status = live->status;
	if (err)
		return -1;
	return live->workload_ended;
}

/* Refreshes every --delay seconds until Ctrl-C or the workload's end */
static int run(struct bpf_live *live, pid_t workload, int *status)
{
	u64 delay = live->args->delay * 1000ULL, next = monotonic_ms() + delay;

	/* The browser refreshes on its own timer. */
	if (live->args->tui)
		return browse(live, workload, status);
	while (!READ_ONCE(live_done)) {
		u64 now;

		if (workload > 0 && waitpid(workload, status, WNOHANG) == workload)
			return 1;
		now = monotonic_ms();
		if (now >= next) {
			if (live__refresh(live))
				return -ENOMEM;
			next += delay;
			continue;
		}
		poll(NULL, 0, min_t(u64, next - now, POLL_MS));
	}
	return 0;
}

static int setup(struct bpf_live *live, const char *pids, pid_t workload)
{
	const struct kvm_events_bpf_live *args = live->args;

	live->bpf = kvm_events_bpf__new(args->map_entries);
	if (!live->bpf || kvm_events_live_vms__init(&live->vms, args->vm_filter))
		return -ENOMEM;
	live->opts = *args->opts;
	if (args->vm_filter)
		live->opts.pids = live->vms.taken;
	if (kvm_events_live_vms__scan(&live->vms, "/proc"))
		return -ENOMEM;
	if (kvm_events_bpf__add_analysis(live->bpf, args->analysis) ||
	    (pids && kvm_events_bpf__add_pids(live->bpf, pids)) ||
	    (workload > 0 && kvm_events_bpf__add_pid(live->bpf, workload)) ||
	    kvm_events_bpf__start(live->bpf))
		return -EINVAL;
	return snapshot__read(live, &live->last, false);
}

static int check_args(const struct kvm_events_bpf_live *args, int argc, bool all,
		      const char *pids)
{
	if (all + !!pids + (argc > 0) > 1) {
		pr_err("perf kvm-events live: --use-bpf: -a, -p and a command exclude each other\n");
		return -EINVAL;
	}
	/* The kernel keeps histograms, not events: nothing to leave out. */
	if (args->opts->min_duration) {
		pr_err("perf kvm-events live: --duration: not with --use-bpf, whose durations are in histograms\n");
		return -EINVAL;
	}
	return 0;
}

int kvm_events_bpf__live(const struct kvm_events_bpf_live *args)
{
	struct bpf_live live = { .args = args, .clear = isatty(STDOUT_FILENO) };
	int go = -1, status = 0, err, ended;
	pid_t workload = 0;

	if (check_args(args, args->argc, args->all, args->pids))
		return 1;
	if (args->argc > 0) {
		workload = workload__fork(args->argv, &go);
		if (workload < 0) {
			pr_err("perf kvm-events live: cannot start %s: %s\n",
			       args->argv[0], strerror(errno));
			return 1;
		}
	}
	err = setup(&live, args->pids, workload);
	signal(SIGINT, live_stop);
	signal(SIGTERM, live_stop);
	if (!err && go >= 0 && write(go, "", 1) != 1)
		err = -errno;
	if (go >= 0)
		close(go);
	ended = err ? 0 : run(&live, workload, &status);
	if (ended >= 0 && !err)
		err = print_final(&live);
	if (workload > 0 && ended <= 0) {
		/* Stopped first: the workload goes with it. */
		kill(workload, SIGTERM);
		waitpid(workload, &status, 0);
	}
	snapshot__exit(&live.last);
	kvm_events_bpf__delete(live.bpf);
	kvm_events_live_vms__exit(&live.vms);
	if (err || ended < 0)
		return 1;
	return workload > 0 ? workload_status(status) : 0;
}
