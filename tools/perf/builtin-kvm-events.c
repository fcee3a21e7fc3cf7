// SPDX-License-Identifier: GPL-2.0
/*
 * perf kvm-events: where do a host's VM exits go, and what do they cost.
 *
 *   perf kvm-events record [<record options>] [-- <command>]
 *   perf kvm-events report [<options>]
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <signal.h>
#include <time.h>
#include <sys/stat.h>
#include <api/fs/tracing_path.h>
#include <linux/err.h>
#include <linux/init.h>
#include <linux/kernel.h>
#include <linux/time64.h>
#include <linux/zalloc.h>
#include <subcmd/parse-options.h>

#include "builtin.h"
#include "util/bpf-kvm-events.h"
#include "util/debug.h"
#include "util/env.h"
#include "util/evlist.h"
#include "util/header.h"
#include "util/intlist.h"
#include "util/kvm-events.h"
#include "util/kvm-events-browse.h"
#include "util/kvm-events-display.h"
#include "util/kvm-events-display-json.h"
#include "util/kvm-events-session.h"
#include "util/kvm-events-heatmap.h"
#include "util/kvm-events-sched.h"
#include "util/kvm-events-sites.h"
#include "util/kvm-events-live.h"
#include "util/kvm-events-metrics.h"
#include "util/kvm-events-vms.h"
#include "util/kvm-events-vms-file.h"
#include "util/machine.h"
#include "util/session.h"
#include "util/time-utils.h"
#include "util/tracepoint.h"

/* Room for the tracepoints record asks for: those of util/kvm-events-tp.c */
#define MAX_RECORDED_TRACEPOINTS	64

/* What the command line asks for, each option parsed as it is read */
struct kvm_events_args {
	const struct kvm_events_analysis *analysis;
	struct kvm_events_options	opts;	/* the filters, the statistics */
	struct kvm_events_view		view;
	const char			*input;
	/* --guest-kallsyms, and the symbols read from it */
	const char			*guest_kallsyms;
	struct kvm_events_guest_symbols	guest_symbols;
	int				threads;
	u32				record_tps;	/* record: BIT(tp) to record */
	const char			*record_events;	/* ...its --event as given */
	bool				record_sched;	/* ...and the context switches */
	const char			*record_pids;	/* -p */
	u64				record_min_time; /* --use-bpf --min-time, ns */
	u32				delay;		/* live: seconds per refresh */
	u32				bpf_map_entries; /* live --use-bpf */
	bool				use_bpf;
	bool				stats;
	bool				force;
	bool				generic_reader;
	struct kvm_events_metrics	metrics;	/* --metrics-* */
	struct kvm_events_vm_filter	*vm_filter;	/* --vm */
	bool				tui;		/* --tui */
	bool				stdio;		/* --stdio */
};

/* The subcommand that runs, for the options' errors */
static const char *kvm_events_cmd = "report";

/* Says why no kvm tracepoint can be recorded, and how to fix it. */
static void explain_missing_tracepoints(void)
{
	char tracing[PATH_MAX], path[PATH_MAX + 16];
	const char *mount = tracing_path_mount();
	size_t len;

	if (!mount) {
		pr_err("perf kvm-events %s: tracefs is not mounted; as root run: mount -t tracefs nodev /sys/kernel/tracing\n",
		       kvm_events_cmd);
		return;
	}
	/* tracing_path_mount() ends in a slash */
	len = strlen(mount);
	if (len && mount[len - 1] == '/')
		len--;
	snprintf(tracing, sizeof(tracing), "%.*s", (int)len, mount);
	/* Where tracefs could not be mounted, perf names its usual place. */
	snprintf(path, sizeof(path), "%s/events", tracing);
	if (access(path, F_OK) && errno == ENOENT) {
		pr_err("perf kvm-events %s: tracefs is not mounted on %s; as root run: mount -t tracefs nodev %s\n",
		       kvm_events_cmd, tracing, tracing);
		return;
	}
	snprintf(path, sizeof(path), "%s/events/kvm", tracing);
	if (access(path, F_OK) && errno == EACCES)
		pr_err("perf kvm-events %s: no permission to read %s; run as root, or give this user access to tracefs\n",
		       kvm_events_cmd, tracing);
	else if (access(path, F_OK))
		pr_err("perf kvm-events %s: no kvm tracepoints in %s/events; load the kvm module: modprobe kvm_intel (or kvm_amd)\n",
		       kvm_events_cmd, tracing);
	else if (access(path, R_OK | X_OK))
		pr_err("perf kvm-events %s: no permission to read %s; run as root\n",
		       kvm_events_cmd, path);
	else
		pr_err("perf kvm-events %s: %s holds none of kvm_exit, kvm_entry, kvm_mmio, kvm_pio\n",
		       kvm_events_cmd, path);
}

/*
 * The file perf record writes, as its -o says, else perf.data; NULL for a
 * pipe, whose header is gone when the names are known.
 */
static const char *recorded_file(int argc, const char **argv)
{
	const char *path = NULL;
	struct stat st;
	int i;

	for (i = 1; i < argc && strcmp(argv[i], "--"); i++) {
		if (!strcmp(argv[i], "-o") || !strcmp(argv[i], "--output"))
			path = i + 1 < argc ? argv[++i] : NULL;
		else if (!strncmp(argv[i], "--output=", 9))
			path = argv[i] + 9;
		else if (!strncmp(argv[i], "-o", 2))
			path = argv[i] + 2;
	}
	if (!path && !fstat(STDOUT_FILENO, &st) && S_ISFIFO(st.st_mode))
		return NULL;
	path = path ?: "perf.data";
	return strcmp(path, "-") ? path : NULL;
}

/* Whether @path was written since @start: the recording, not an older file */
static bool written_since(const char *path, const struct timespec *start)
{
	struct stat st;

	return path && !stat(path, &st) &&
	       (st.st_mtim.tv_sec > start->tv_sec ||
		(st.st_mtim.tv_sec == start->tv_sec && st.st_mtim.tv_nsec >= start->tv_nsec));
}

/* What perf record saw of the VMs, to be stored in the file it writes */
struct vms_naming {
	struct kvm_events_vms_watch	*watch;
	struct timespec			start;
	const char			*path;	/* NULL: a pipe */
};

/* Before perf record, whose option parsing moves its arguments about */
static void vms_naming__start(struct vms_naming *n, int argc, const char **argv)
{
	n->path = recorded_file(argc, argv);
	clock_gettime(CLOCK_REALTIME, &n->start);
	/* A coarse clock may stamp the file a tick before now. */
	n->start.tv_sec--;
	n->watch = kvm_events_vms_watch__start("/proc");
	if (!n->watch)
		pr_debug("kvm-events: cannot watch /proc: the VMs are not named\n");
}

/*
 * After perf record (@ret), the names of the VMs it saw go into the file's
 * header; a file that perf record did not write is left alone.
 */
static int vms_naming__end(struct vms_naming *n, int ret)
{
	if (kvm_events_vms_watch__stop(n->watch,
				       !ret && written_since(n->path, &n->start) ? n->path : NULL))
		ret = ret ?: 1;
	return ret;
}

/* perf record, the VMs it saw named in the file it wrote */
static int run_record(int argc, const char **argv, const struct record_hooks *hooks)
{
	struct vms_naming naming;
	int ret;

	vms_naming__start(&naming, argc, argv);
	if (hooks)
		ret = cmd_record_hooked(argc, argv, hooks);
	else
		ret = cmd_record(argc, argv);
	return vms_naming__end(&naming, ret);
}

/*
 * perf record with the kvm tracepoints of the analyses in @tps (0: the
 * default ones); @output, if set, is its -o.
 */
static int kvm_events_record_to(int argc, const char **argv, u32 tps,
				const char *pids, const char *output)
{
	const char *tracepoints[MAX_RECORDED_TRACEPOINTS];
	int i, rec_argc = 0, found = 0, ret, nr;
	const char **rec_argv;

	if (!tps)
		tps = kvm_events_record_tps(NULL);
	/* The tracepoints of those analyses, of any architecture */
	nr = kvm_events_tracepoints(tps, tracepoints, ARRAY_SIZE(tracepoints));
	rec_argv = calloc(argc + 2 * nr + 12, sizeof(*rec_argv));
	if (!rec_argv)
		return -ENOMEM;

	/*
	 * Raw samples of every event: pairing needs each begin and end.
	 * Not their period, always 1: 8 bytes less a sample for the guest
	 * to pay.
	 */
	rec_argv[rec_argc++] = "record";
	rec_argv[rec_argc++] = "-R";
	rec_argv[rec_argc++] = "-c";
	rec_argv[rec_argc++] = "1";
	rec_argv[rec_argc++] = "--no-period";
	rec_argv[rec_argc++] = "-m";
	rec_argv[rec_argc++] = "1024";
	for (i = 0; i < nr; i++) {
		/* The running kernel has those of its architecture. */
		if (!is_valid_tracepoint(tracepoints[i])) {
			pr_debug("kvm-events: %s is not available, not recorded\n",
				 tracepoints[i]);
			continue;
		}
		rec_argv[rec_argc++] = "-e";
		rec_argv[rec_argc++] = tracepoints[i];
		found++;
	}
	if (!found) {
		free(rec_argv);
		explain_missing_tracepoints();
		return 1;
	}
	if (pids) {
		rec_argv[rec_argc++] = "-p";
		rec_argv[rec_argc++] = pids;
	}
	if (output) {
		rec_argv[rec_argc++] = "-q";
		rec_argv[rec_argc++] = "-o";
		rec_argv[rec_argc++] = output;
	}
	for (i = 1; i < argc; i++)
		rec_argv[rec_argc++] = argv[i];

	ret = run_record(rec_argc, rec_argv, NULL);
	free(rec_argv);
	return ret;
}

#ifdef HAVE_BPF_SKEL
/* Whether the running kernel has any of the tracepoints of @tps */
static bool kernel_has_tracepoints(u32 tps)
{
	const char *tracepoints[MAX_RECORDED_TRACEPOINTS];
	int i, nr = kvm_events_tracepoints(tps, tracepoints, ARRAY_SIZE(tracepoints));

	for (i = 0; i < nr; i++) {
		if (is_valid_tracepoint(tracepoints[i]))
			return true;
	}
	return false;
}

/*
 * record --use-bpf: perf record on every CPU, of the bpf-output events
 * that the programs of util/bpf-kvm-events-record.c write into; those
 * take -p, or else perf record's workload, or else every process.
 */
static int kvm_events_record_bpf(int argc, const char **argv, const char *events,
				 u64 min_time_ns, const char *pids)
{
	struct kvm_events_bpf_record *bpf;
	int i, rec_argc = 0, ret;
	const char **rec_argv;
	u32 nr;

	if (!kernel_has_tracepoints(kvm_events_record_tps(events))) {
		explain_missing_tracepoints();
		return 1;
	}
	/* report's reader of a stream takes bpf-output events for tracepoints */
	if (!recorded_file(argc, argv)) {
		pr_err("perf kvm-events record: --use-bpf: writes a file, not a pipe (-o -), for now\n");
		return 1;
	}
	bpf = kvm_events_bpf_record__new(events, min_time_ns, pids);
	if (!bpf)
		return 1;
	nr = kvm_events_bpf_record__nr_events(bpf);
	rec_argv = calloc(argc + 2 * nr + 9, sizeof(*rec_argv));
	if (!rec_argv) {
		kvm_events_bpf_record__delete(bpf);
		return -ENOMEM;
	}
	rec_argv[rec_argc++] = "record";
	rec_argv[rec_argc++] = "-a";
	rec_argv[rec_argc++] = "-R";
	rec_argv[rec_argc++] = "-c";
	rec_argv[rec_argc++] = "1";
	rec_argv[rec_argc++] = "--no-period";
	rec_argv[rec_argc++] = kvm_events_bpf_record__control(bpf);
	for (i = 0; i < (int)nr; i++) {
		rec_argv[rec_argc++] = "-e";
		rec_argv[rec_argc++] = kvm_events_bpf_record__event(bpf, i);
	}
	for (i = 1; i < argc; i++)
		rec_argv[rec_argc++] = argv[i];
	ret = run_record(rec_argc, rec_argv, kvm_events_bpf_record__hooks(bpf));
	free(rec_argv);
	kvm_events_bpf_record__delete(bpf);
	return ret;
}
#else
static int kvm_events_record_bpf(int argc __maybe_unused, const char **argv __maybe_unused,
				 const char *events __maybe_unused,
				 u64 min_time_ns __maybe_unused, const char *pids __maybe_unused)
{
	pr_err("perf kvm-events record: --use-bpf: %s\n",
	       "this perf was built without BPF skeletons (BUILD_BPF_SKEL=1 needs clang)");
	return 1;
}
#endif

/*
 * The options.  Each is parsed into its value as it is read, and the
 * options that several subcommands take are declared once, in the parent
 * arrays below.
 */
/* What the command line asks for */
static struct kvm_events_args args = {
	.input		= "perf.data",
	.threads	= 0,
	.delay		= 1,
};

/* A count option: decimal, from @min to @max */
static int parse_u32(const char *opt, const char *arg, u32 min, u32 max,
		     u32 *val)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(arg, &end, 10);
	if (*arg < '0' || *arg > '9' || *end || errno || v < min || v > max) {
		pr_err("perf kvm-events %s: %s %s: expected a number from %u to %u\n",
		       kvm_events_cmd, opt, arg, min, max);
		return -EINVAL;
	}
	*val = v;
	return 0;
}

static int parse_top(const struct option *opt, const char *arg, int unset)
{
	u32 *top = opt->value;

	*top = 0;
	return unset ? 0 : parse_u32("--top", arg, 0, UINT32_MAX, top);
}

static int parse_threads(const struct option *opt, const char *arg, int unset)
{
	int *threads = opt->value;
	char *end;
	long v;

	*threads = 0;
	if (unset)
		return 0;
	v = strtol(arg, &end, 10);
	if (end == arg || *end || v < 1 || v > 2) {
		pr_err("perf kvm-events %s: --threads %s: expected 1 or 2\n",
		       kvm_events_cmd, arg);
		return -EINVAL;
	}
	*threads = v;
	return 0;
}

static int parse_analysis(const struct option *opt, const char *arg, int unset)
{
	const struct kvm_events_analysis **analysis = opt->value;

	*analysis = unset ? NULL : kvm_events_analysis__find(arg);
	if (unset || *analysis)
		return 0;
	pr_err("perf kvm-events %s: --event %s: unknown, expected one of %s\n",
	       kvm_events_cmd, arg, kvm_events_analysis__names());
	return -EINVAL;
}

static int parse_sort(const struct option *opt, const char *arg, int unset)
{
	struct kvm_events_view *view = opt->value;

	view->sort.nr = 0;
	view->sort_names = NULL;
	return unset ? 0 : kvm_events_view__set_sort(view, kvm_events_cmd, arg);
}

static int parse_fields(const struct option *opt, const char *arg, int unset)
{
	struct kvm_events_view *view = opt->value;

	view->nr_columns = 0;
	return unset ? 0 : kvm_events_view__set_fields(view, kvm_events_cmd, arg);
}

/* "0,2-5": ranges of vcpu ids, each bound 0..2^32-1 */
static int vcpu_ranges(const char *p, u32 (**rangesp)[2], u32 *nrp)
{
	u32 (*ranges)[2] = NULL, nr = 0;

	while (*p) {
		unsigned long long lo, hi;
		char *end;

		if (*p < '0' || *p > '9')
			goto bad;
		lo = hi = strtoull(p, &end, 10);
		if (*end == '-') {
			if (end[1] < '0' || end[1] > '9')
				goto bad;
			hi = strtoull(end + 1, &end, 10);
		}
		/* ~0U is no vcpu id: the one of samples without one */
		if (lo > hi || hi >= KVM_EVENTS_NO_VCPU || (*end && *end != ','))
			goto bad;
		ranges = reallocarray(ranges, nr + 1, sizeof(*ranges));
		if (!ranges)
			return -ENOMEM;
		ranges[nr][0] = lo;
		ranges[nr][1] = hi;
		nr++;
		p = *end ? end + 1 : end;
		if (*end && !*p)
			goto bad;
	}
	*rangesp = ranges;
	*nrp = nr;
	return 0;
bad:
	free(ranges);
	return -EINVAL;
}

static int parse_vcpus(const struct option *opt, const char *arg, int unset)
{
	struct kvm_events_args *a = opt->value;
	int ret;

	zfree(&a->opts.vcpu_ranges);
	a->opts.nr_vcpu_ranges = 0;
	a->view.vcpus = unset ? NULL : arg;
	if (unset)
		return 0;
	ret = vcpu_ranges(arg, &a->opts.vcpu_ranges, &a->opts.nr_vcpu_ranges);
	if (ret == -EINVAL)
		pr_err("perf kvm-events %s: --vcpu %s: expected vcpu ids (up to %u) and ranges, like 0,2-5\n",
		       kvm_events_cmd, arg, KVM_EVENTS_NO_VCPU - 1);
	return ret;
}

/* -p: process ids, comma separated, none empty */
static bool valid_pid_list(const char *list)
{
	unsigned long long pid;
	char *end;

	do {
		if (*list < '0' || *list > '9')
			return false;
		errno = 0;
		pid = strtoull(list, &end, 10);
		if (errno || pid > INT_MAX || (*end && *end != ','))
			return false;
		list = *end ? end + 1 : end;
	} while (*end);
	return true;
}

static int parse_pids(const struct option *opt, const char *arg, int unset)
{
	struct kvm_events_args *a = opt->value;

	intlist__delete(a->opts.pids);
	a->opts.pids = NULL;
	a->view.pids = unset ? NULL : arg;
	if (unset)
		return 0;
	a->opts.pids = valid_pid_list(arg) ? intlist__new(arg) : NULL;
	if (a->opts.pids)
		return 0;
	pr_err("perf kvm-events %s: --pid %s: expected a list of process ids\n",
	       kvm_events_cmd, arg);
	return -EINVAL;
}

static int parse_vms(const struct option *opt, const char *arg, int unset)
{
	struct kvm_events_args *a = opt->value;

	kvm_events_vm_filter__delete(a->vm_filter);
	a->vm_filter = NULL;
	a->view.vms = unset ? NULL : arg;
	if (unset)
		return 0;
	a->vm_filter = kvm_events_vm_filter__new(kvm_events_cmd, arg);
	return a->vm_filter ? 0 : -EINVAL;
}

static int parse_duration(const struct option *opt, const char *arg, int unset)
{
	struct kvm_events_args *a = opt->value;
	double us;
	char *end;

	a->view.duration_us = 0;
	a->opts.min_duration = 0;
	if (unset)
		return 0;
	/* In ns, it must fit a u64: up to about 213 days. */
	us = strtod(arg, &end);
	if (end == arg || *end || !(us >= 0) || !(us * 1000 < (double)UINT64_MAX)) {
		pr_err("perf kvm-events %s: --duration %s: expected microseconds from 0 to %llu\n",
		       kvm_events_cmd, arg, (unsigned long long)(UINT64_MAX / 1000));
		return -EINVAL;
	}
	a->view.duration_us = us;
	a->opts.min_duration = us * 1000;
	return 0;
}

/* --per-vcpu and --per-vm: one or the other */
static int parse_group(const struct option *opt, const char *arg __maybe_unused,
		       int unset)
{
	enum kvm_events_group *group = opt->value;
	enum kvm_events_group want = !strcmp(opt->long_name, "per-vcpu") ?
				     KVM_EVENTS_GROUP_VCPU : KVM_EVENTS_GROUP_VM;

	if (unset) {
		if (*group == want)
			*group = KVM_EVENTS_GROUP_NONE;
		return 0;
	}
	if (*group != KVM_EVENTS_GROUP_NONE && *group != want) {
		pr_err("perf kvm-events %s: --per-vcpu and --per-vm: choose one\n",
		       kvm_events_cmd);
		return -EINVAL;
	}
	*group = want;
	return 0;
}

/* --json and --csv: one or the other */
static int parse_format(const struct option *opt, const char *arg __maybe_unused,
			int unset)
{
	enum kvm_events_format *format = opt->value;
	enum kvm_events_format want = !strcmp(opt->long_name, "json") ?
				      KVM_EVENTS_FORMAT_JSON : KVM_EVENTS_FORMAT_CSV;

	if (unset) {
		if (*format == want)
			*format = KVM_EVENTS_FORMAT_TABLE;
		return 0;
	}
	if (*format != KVM_EVENTS_FORMAT_TABLE && *format != want) {
		pr_err("perf kvm-events %s: --json and --csv: choose one\n",
		       kvm_events_cmd);
		return -EINVAL;
	}
	*format = want;
	return 0;
}

/* --guest-kallsyms, which --key sym needs to know the functions */
static int args__guest_symbols(struct kvm_events_args *a)
{
	if (a->view.site == KVM_EVENTS_SITE_SYM && !a->guest_kallsyms) {
		pr_err("perf kvm-events %s: --key sym: needs --guest-kallsyms FILE, the guest's /proc/kallsyms or System.map\n",
		       kvm_events_cmd);
		return -EINVAL;
	}
	if (!a->guest_kallsyms)
		return 0;
	if (kvm_events_guest_symbols__load(&a->guest_symbols, a->guest_kallsyms))
		return -EINVAL;
	a->opts.guest_symbols = &a->guest_symbols;
	return 0;
}

/* What is left to set once every option is read; @sort without --key */
static int args__finish(struct kvm_events_args *a, const char *sort)
{
	int ret = 0;

	if (!a->view.sort.nr)
		ret = kvm_events_view__set_sort(&a->view, kvm_events_cmd, sort);
	ret = ret ?: args__guest_symbols(a);

	if (!a->analysis)
		a->analysis = kvm_events_analysis__find("vmexit");
	if (!ret && !a->view.nr_columns)
		ret = kvm_events_view__set_fields(&a->view, kvm_events_cmd,
						  a->stats ? KVM_EVENTS_STATS_FIELDS :
						  KVM_EVENTS_DEFAULT_FIELDS);
	kvm_events_view__needs(&a->view, &a->opts);
	return ret;
}

/*
 * The browser, or the tables: --tui or --stdio where given, else the
 * browser for live on a terminal, as perf top chooses; report prints its
 * tables unless asked, as scripts and pipes expect.  -1: a bad choice.
 */
static int args__tui(struct kvm_events_args *a, bool by_default)
{
	if (a->tui && a->stdio) {
		pr_err("perf kvm-events %s: --tui and --stdio: choose one\n", kvm_events_cmd);
		return -1;
	}
	if (a->tui && !KVM_EVENTS_HAVE_TUI) {
		pr_err("perf kvm-events %s: --tui: this perf was built without libslang; install libslang2-dev and build it again, or use --stdio\n",
		       kvm_events_cmd);
		return -1;
	}
	if (a->tui && !isatty(STDOUT_FILENO)) {
		pr_err("perf kvm-events %s: --tui: the standard output is not a terminal\n",
		       kvm_events_cmd);
		return -1;
	}
	if (a->tui && (a->view.format != KVM_EVENTS_FORMAT_TABLE || a->opts.group ||
		       a->opts.top)) {
		pr_err("perf kvm-events %s: --tui: not with --json, --csv, --per-vcpu, --per-vm or --top; the browser filters VMs and vcpus with p and v\n",
		       kvm_events_cmd);
		return -1;
	}
	if (a->tui)
		return 1;
	return !a->stdio && by_default && KVM_EVENTS_HAVE_TUI &&
	       a->view.format == KVM_EVENTS_FORMAT_TABLE && isatty(STDOUT_FILENO);
}

static int parse_metrics_by(const struct option *opt, const char *arg, int unset)
{
	struct kvm_events_metrics *m = opt->value;

	return kvm_events_metrics__set_by(m, kvm_events_cmd, unset ? "key" : arg);
}

static int parse_max_series(const struct option *opt, const char *arg, int unset)
{
	u32 *max = opt->value;

	*max = 0;
	return unset ? 0 : parse_u32("--metrics-max-series", arg, 1, 1U << 24, max);
}

/*
 * The metrics' labels need the report's keys per VM or vcpu (the tables
 * are then per VM or vcpu too), and their histogram.
 */
static void args__metrics(struct kvm_events_args *a)
{
	if (!kvm_events_metrics__wanted(&a->metrics))
		return;
	if (!a->metrics.by_set)
		kvm_events_metrics__set_by(&a->metrics, kvm_events_cmd, KVM_EVENTS_METRICS_BY);
	a->opts.group = kvm_events_metrics__group(&a->metrics, a->opts.group);
	a->opts.histogram = true;
}

/* The browser's source keeps each vcpu's events, with every statistic. */
static void args__for_tui(struct kvm_events_args *a)
{
	a->opts.group = KVM_EVENTS_GROUP_VCPU;
	a->opts.percentiles = a->opts.stddev = a->opts.histogram = true;
}

static void args__exit(struct kvm_events_args *a)
{
	kvm_events_metrics__stop(&a->metrics);
	kvm_events_guest_symbols__exit(&a->guest_symbols);
	intlist__delete(a->opts.pids);
	kvm_events_vm_filter__delete(a->vm_filter);
	free(a->opts.vcpu_ranges);
}

/* Taken by report, live and diff */
static const struct option analysis_options[] = {
	OPT_CALLBACK(0, "event", &args.analysis, "event",
		     "what to analyse: vmexit (default), mmio, ioport, userspace, msr, hypercall, halt",
		     parse_analysis),
	OPT_CALLBACK(0, "vcpu", &args, "vcpus",
		     "only these vcpu ids, e.g. 1 or 0,2-5", parse_vcpus),
	OPT_CALLBACK(0, "vm", &args, "name|uuid|pid[,...]",
		     "only these VMs: names (shell globs), uuids or pids", parse_vms),
	OPT_END()
};

/* Taken by report, live and diff: which keys, and in what order */
static const struct option sort_options[] = {
	OPT_CALLBACK('k', "key", &args.view, "key[,key...]",
		     "rip or sym: key by the guest code that exits; "
		     "sort by these, in turn, then by name: " KVM_EVENTS_SORT_NAMES,
		     parse_sort),
	OPT_STRING(0, "guest-kallsyms", &args.guest_kallsyms, "file",
		   "the guest's /proc/kallsyms or System.map, to name --key rip and sym"),
	OPT_CALLBACK(0, "duration", &args, "us",
		     "only events that took at least this many microseconds",
		     parse_duration),
	OPT_BOOLEAN(0, "split-idle", &args.view.split_idle,
		    "set idle exits (HLT) apart, out of Time%"),
	OPT_PARENT(analysis_options),
};

/* Taken by report and diff: what to read of a recording */
static const struct option read_options[] = {
	OPT_STRING(0, "time", &args.view.time, "str",
		   "only samples in these time windows: start,end in seconds or percent"),
	OPT_CALLBACK('p', "pid", &args, "pid[,pid...]",
		     "only these VM processes", parse_pids),
	OPT_BOOLEAN('f', "force", &args.force, "don't complain, do it"),
	OPT_INCR('v', "verbose", &verbose, "be more verbose"),
	OPT_PARENT(sort_options),
};

/* Report and live print the tables of the --fields columns. */
/* report's and live's: Prometheus metrics */
#define OPT_METRICS_FILE						\
	OPT_STRING(0, "metrics-file", &args.metrics.file, "path",	\
		   "write Prometheus metrics to this file, atomically")
#define OPT_METRICS_LISTEN						\
	OPT_STRING(0, "metrics-listen", &args.metrics.listen, "[addr:]port", \
		   "serve Prometheus metrics on /metrics (address: 127.0.0.1; IPv6: [addr]:port)")
#define OPT_METRICS_WEB_CONFIG						\
	OPT_STRING(0, "metrics-web-config", &args.metrics.web_config, "file", \
		   "TLS and basic auth of --metrics-listen, as exporter-toolkit's web config")
#define OPT_METRICS_BY							\
	OPT_CALLBACK(0, "metrics-by", &args.metrics, "labels",		\
		     "the metrics' labels besides the key: vm (default), vcpu, or key alone", \
		     parse_metrics_by)
#define OPT_METRICS_MAX_SERIES						\
	OPT_CALLBACK(0, "metrics-max-series", &args.metrics.max_series, "n", \
		     "write at most n keys' series, the busiest (default: 10000)", \
		     parse_max_series)

#define OPT_FIELDS							\
	OPT_CALLBACK(0, "fields", &args.view, "fields",			\
		     "columns to show, any of: " KVM_EVENTS_STATS_FIELDS,	\
		     parse_fields)

static int parse_record_event(const struct option *opt, const char *arg,
			      int unset)
{
	u32 *tps = opt->value;

	*tps = unset ? 0 : kvm_events_record_tps(arg);
	args.record_events = unset ? NULL : arg;
	if (unset || *tps)
		return 0;
	pr_err("perf kvm-events record: --event %s: expected a comma separated list of %s, or all\n",
	       arg, kvm_events_analysis__names());
	return -EINVAL;
}

/* A duration: a number with ns, us, ms or s, microseconds without */
static int parse_min_time(const struct option *opt, const char *arg, int unset)
{
	static const struct { const char *unit; u64 ns; } units[] = {
		{ "", NSEC_PER_USEC }, { "ns", 1 }, { "us", NSEC_PER_USEC },
		{ "ms", NSEC_PER_MSEC }, { "s", NSEC_PER_SEC },
	};
	u64 *ns = opt->value;
	char *end;
	size_t i;
	u64 v;

	*ns = 0;
	if (unset)
		return 0;
	errno = 0;
	v = strtoull(arg, &end, 10);
	for (i = 0; !errno && isdigit(*arg) && i < ARRAY_SIZE(units); i++) {
		if (!strcmp(end, units[i].unit) && v <= ULLONG_MAX / units[i].ns) {
			*ns = v * units[i].ns;
			return 0;
		}
	}
	pr_err("perf kvm-events record: --min-time %s: expected a whole number of ns, us, ms or s\n",
	       arg);
	return -EINVAL;
}

static const struct option record_options[] = {
	OPT_CALLBACK(0, "event", &args.record_tps, "analyses",
		     "record for these analyses, comma separated: vmexit (default), mmio, ioport, userspace, msr, hypercall, halt, or all",
		     parse_record_event),
	OPT_BOOLEAN(0, "sched", &args.record_sched,
		    "also record the context switches: split each event's time, on and off CPU"),
	OPT_STRING('p', "pid", &args.record_pids, "pid",
		   "record on existing process ids (comma separated list)"),
	OPT_BOOLEAN('b', "use-bpf", &args.use_bpf,
		    "pair in the kernel: count every event, write whole those of --min-time"),
	OPT_CALLBACK(0, "min-time", &args.record_min_time, "time",
		     "--use-bpf: record whole only the events of at least this long (10us, 1ms; default 0: all)",
		     parse_min_time),
	OPT_END()
};

static const char * const record_usage[] = {
	"perf kvm-events record [<options>] [<perf record options>] [-- <command>]",
	"",
	"Any other option goes to perf record: see perf record -h.",
	NULL
};

/*
 * --sched: perf record's --switch-events, which records the switches of
 * each recorded thread both ways, or every task's with -a.
 */
static int kvm_events_record_sched(int argc, const char **argv)
{
	const char **with = calloc(argc + 2, sizeof(*with));
	int ret;

	if (!with)
		return -ENOMEM;
	with[0] = argv[0];
	with[1] = "--switch-events";
	memcpy(with + 2, argv + 1, (argc - 1) * sizeof(*with));
	ret = kvm_events_record_to(argc + 1, with, args.record_tps, args.record_pids, NULL);
	free(with);
	return ret;
}

static int kvm_events_record(int argc, const char **argv)
{
	argc = parse_options(argc, argv, record_options, record_usage,
			     PARSE_OPT_KEEP_UNKNOWN | PARSE_OPT_KEEP_DASHDASH |
			     PARSE_OPT_KEEP_ARGV0);
	if (args.record_min_time && !args.use_bpf) {
		pr_err("perf kvm-events record: --min-time: only with --use-bpf\n");
		return 1;
	}
	if (args.use_bpf && args.record_sched) {
		pr_err("perf kvm-events record: --sched: not yet with --use-bpf, whose program splits no time\n");
		return 1;
	}
	if (args.use_bpf)
		return kvm_events_record_bpf(argc, argv, args.record_events,
					     args.record_min_time, args.record_pids);
	if (args.record_sched)
		return kvm_events_record_sched(argc, argv);
	return kvm_events_record_to(argc, argv, args.record_tps, args.record_pids, NULL);
}

/* Sets up @kvm to read @input as the options ask. */
static void kvm_events__init(struct kvm_events_recording *kvm, const char *input)
{
	memset(kvm, 0, sizeof(*kvm));
	kvm->cmd = kvm_events_cmd;
	kvm->opts = args.opts;
	kvm->input = input;
	kvm->time = args.view.time;
	kvm->threads = args.threads;
	kvm->force = args.force;
	kvm->generic_reader = args.generic_reader;
	kvm->vm_filter = args.vm_filter;
}


static struct kvm_events_display kvm_events__display(struct kvm_events_recording *kvm)
{
	return (struct kvm_events_display){
		.view		= &args.view,
		.report		= &kvm->report,
		.input		= kvm->input,
		.machine	= &kvm->session->machines.host,
		.vms		= kvm->vms,
		.vm_filter	= args.vm_filter,
		.header_first	= kvm->session->evlist->first_sample_time,
		.header_last	= kvm->session->evlist->last_sample_time,
	};
}

/* The report's keys in the view's format and order, to stdout */
static int print_keys(const struct kvm_events_display *d)
{
	size_t nr;
	struct kvm_events_key **keys = kvm_events_report__sorted(d->report, &d->view->sort, &nr);

	if (!keys)
		return -ENOMEM;
	kvm_events_report__sort_top(d->report);
	if (d->view->format == KVM_EVENTS_FORMAT_TABLE)
		kvm_events_display__tables(d, keys, nr, stdout);
	else if (d->view->format == KVM_EVENTS_FORMAT_JSON)
		kvm_events_display__json(d, keys, nr, stdout);
	else
		kvm_events_display__csv(d, keys, nr, stdout);
	free(keys);
	return 0;
}

static int print_report(struct kvm_events_recording *kvm)
{
	struct kvm_events_display display = kvm_events__display(kvm);
	int ret;

	kvm_events_view__fit(&args.view, &kvm->report, kvm->input);
	ret = print_keys(&display);

	if (!ret && kvm->heatmap)
		ret = kvm_events_heatmap__write(kvm->heatmap, &display, kvm->opts.heatmap);
	/* What was left out is in the output; the report is still incomplete. */
	if (!ret && kvm->report.totals.no_memory) {
		pr_err("%s: out of memory: %llu samples left out, the report is incomplete\n",
		       kvm->input, (unsigned long long)kvm->report.totals.no_memory);
		ret = -ENOMEM;
	}
	return ret;
}

/* The metrics' labels, file and port, checked before the recording is read */
static int report_open_metrics(void)
{
	if (!kvm_events_metrics__wanted(&args.metrics))
		return 0;
	args__metrics(&args);
	return kvm_events_metrics__open(&args.metrics, "report");
}

/*
 * --metrics-file: the recording's metrics, written once; --metrics-listen:
 * served by a thread of its own until SIGINT or SIGTERM.
 */
static int report_metrics(struct kvm_events_recording *kvm)
{
	struct kvm_events_display display = kvm_events__display(kvm);
	sigset_t stop;
	int sig;

	if (!kvm_events_metrics__wanted(&args.metrics))
		return 0;
	/* Blocked before the server's thread starts, so that it has them blocked too */
	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	if (args.metrics.listen)
		pthread_sigmask(SIG_BLOCK, &stop, NULL);
	if (kvm_events_metrics__serve(&args.metrics, "report") ||
	    kvm_events_metrics__publish(&args.metrics, &display))
		return -1;
	if (!args.metrics.listen)
		return 0;
	pr_info("perf kvm-events report: serving %s's metrics on %s until SIGINT or SIGTERM\n",
		kvm->input, args.metrics.listen);
	sigwait(&stop, &sig);
	kvm_events_metrics__stop(&args.metrics);
	return 0;
}

static const struct option report_options[] = {
	OPT_STRING('i', "input", &args.input, "file", "input file name"),
	/* The recording's metrics, once */
	OPT_METRICS_FILE,
	OPT_METRICS_LISTEN,
	OPT_METRICS_WEB_CONFIG,
	OPT_METRICS_BY,
	OPT_METRICS_MAX_SERIES,
	/* Browse, or print */
	OPT_BOOLEAN(0, "tui", &args.tui, "browse the report in the terminal"),
	OPT_BOOLEAN(0, "stdio", &args.stdio, "print the report's tables (the default)"),
	OPT_FIELDS,
	OPT_BOOLEAN(0, "stats", &args.stats,
		    "show every statistic: " KVM_EVENTS_STATS_FIELDS),
	OPT_BOOLEAN(0, "histogram", &args.view.histogram,
		    "draw a log2 latency histogram of each key"),
	OPT_STRING(0, "heatmap", &args.opts.heatmap, "file.svg",
		   "draw the busiest keys' latencies over time into an SVG"),
	OPT_CALLBACK_NOOPT(0, "per-vcpu", &args.opts.group, NULL,
			   "one table per vcpu", parse_group),
	OPT_CALLBACK_NOOPT(0, "per-vm", &args.opts.group, NULL,
			   "one table per VM process", parse_group),
	OPT_CALLBACK(0, "top", &args.opts.top, "n",
		     "list the N slowest events", parse_top),
	OPT_CALLBACK_NOOPT(0, "json", &args.view.format, NULL,
			   "print every statistic as JSON", parse_format),
	OPT_CALLBACK_NOOPT(0, "csv", &args.view.format, NULL,
			   "print every statistic as CSV", parse_format),
	OPT_CALLBACK(0, "threads", &args.threads, "n",
		     "1: read and pair in one thread, 2: read in a second one; default: a large file in two parts at once",
		     parse_threads),
	/* For the tests: they compare the two readers. */
	OPT_BOOLEAN_FLAG(0, "generic-reader", &args.generic_reader,
			 "read through perf's session code, not the faster reader of the data section",
			 PARSE_OPT_HIDDEN),
	OPT_PARENT(read_options),
};

static const char * const report_usage[] = {
	"perf kvm-events report [<options>]",
	NULL
};

/* report --tui: the browser over the recording, read again for another analysis */
struct report_browse {
	struct kvm_events_browse_source	src;
	struct kvm_events_recording		kvm;
};

static struct kvm_events_report *report_browse__get(struct kvm_events_browse_source *src,
						    struct machine **machine)
{
	struct report_browse *rb = container_of(src, struct report_browse, src);

	if (machine)
		*machine = &rb->kvm.session->machines.host;
	return &rb->kvm.report;
}

static void report_browse__put(struct kvm_events_browse_source *src __maybe_unused)
{
}

static int report_browse__load(struct report_browse *rb,
			       const struct kvm_events_analysis *analysis)
{
	int ret;

	kvm_events_recording__exit(&rb->kvm);
	args.analysis = analysis;
	kvm_events__init(&rb->kvm, args.input);
	ret = kvm_events_recording__load(&rb->kvm, args.analysis);
	rb->src.vms = rb->kvm.vms;
	return ret;
}

static int report_browse__analysis(struct kvm_events_browse_source *src,
				   const struct kvm_events_analysis *analysis)
{
	struct report_browse *rb = container_of(src, struct report_browse, src);
	const struct kvm_events_analysis *was = args.analysis;
	int ret = report_browse__load(rb, analysis);

	/* The browser needs a report: the one it had, read again */
	if (ret && report_browse__load(rb, was))
		return ret;
	return ret;
}

/* --heatmap's SVG, from the report without the browser's grouping */
static int report_heatmap(void)
{
	struct kvm_events_recording whole;
	int ret;

	kvm_events__init(&whole, args.input);
	ret = kvm_events_recording__load(&whole, args.analysis);
	if (!ret) {
		struct kvm_events_display display = kvm_events__display(&whole);

		ret = kvm_events_heatmap__write(whole.heatmap, &display, whole.opts.heatmap);
	}
	kvm_events_recording__exit(&whole);
	return ret;
}

static int report_tui(void)
{
	struct report_browse rb = {
		.src = {
			.title		= args.input ?: "perf.data",
			.view		= &args.view,
			.get		= report_browse__get,
			.put		= report_browse__put,
			.set_analysis	= report_browse__analysis,
		},
	};
	int ret;

	/* One page for the metrics, one screen for the browser: not both */
	if (kvm_events_metrics__wanted(&args.metrics)) {
		pr_err("perf kvm-events report: --tui: not with --metrics-file or --metrics-listen\n");
		return -EINVAL;
	}
	ret = args.opts.heatmap ? report_heatmap() : 0;
	if (ret)
		return ret;
	args.opts.heatmap = NULL;
	args__for_tui(&args);
	kvm_events__init(&rb.kvm, args.input);
	ret = kvm_events_recording__load(&rb.kvm, args.analysis);
	rb.src.vms = rb.kvm.vms;
	if (!ret) {
		kvm_events_view__fit(&args.view, &rb.kvm.report, rb.kvm.input);
		ret = kvm_events_browse__run(&rb.src, args.analysis);
	}
	kvm_events_recording__exit(&rb.kvm);
	return ret;
}

static int kvm_events_report(int argc, const char **argv)
{
	struct kvm_events_recording kvm;
	int ret;

	argc = parse_options(argc, argv, report_options, report_usage, 0);
	if (argc)
		usage_with_options_msg(report_usage, report_options,
				       "perf kvm-events report: unexpected argument '%s'; the recording is read with -i",
				       argv[0]);
	if (args__finish(&args, "sample"))
		return 1;
	ret = args__tui(&args, false);
	if (ret)
		return ret < 0 || report_tui() ? 1 : 0;
	if (report_open_metrics())
		return 1;

	kvm_events__init(&kvm, args.input);
	ret = kvm_events_recording__load(&kvm, args.analysis);
	if (!ret)
		ret = print_report(&kvm);
	ret = ret ?: report_metrics(&kvm);
	kvm_events_recording__exit(&kvm);
	return ret ? 1 : 0;
}

/*
 * diff: two recordings read as report reads them, key by key, in events
 * and time per second of each recording.
 */
/* How much of [@first, @last] the --time ranges take */
static u64 selected_ns(const struct kvm_events_options *opts, u64 first, u64 last)
{
	u64 sum = 0;
	int i;

	if (!opts->nr_time_ranges)
		return last - first;
	for (i = 0; i < opts->nr_time_ranges; i++) {
		const struct perf_time_interval *r = &opts->time_ranges[i];
		u64 start = max(r->start, first);
		u64 end = r->end ? min(r->end, last) : last;

		if (end > start)
			sum += end - start;
	}
	return sum;
}

/* The span the rates are per: the recording's, or what --time keeps of it */
static double recording_seconds(struct kvm_events_recording *kvm)
{
	struct evlist *evlist = kvm->session->evlist;
	u64 first = evlist->first_sample_time, last = evlist->last_sample_time;

	if (last <= first) {
		first = kvm->report.totals.first_time;
		last = kvm->report.totals.last_time;
	}
	return last > first ? selected_ns(&kvm->opts, first, last) / 1e9 : 0;
}

/* Exit reasons of two architectures share no keys. */
static int same_arch(struct kvm_events_recording *old, struct kvm_events_recording *new)
{
	const char *a = perf_env__arch(&old->session->header.env);
	const char *b = perf_env__arch(&new->session->header.env);

	if (!strcmp(a, b))
		return 0;
	pr_err("perf kvm-events diff: %s was recorded on %s, %s on %s: their exits cannot be compared\n",
	       old->input, a, new->input, b);
	return -EINVAL;
}

static int print_diff(struct kvm_events_recording *old, struct kvm_events_recording *new)
{
	struct kvm_events_display o = kvm_events__display(old);
	struct kvm_events_display n = kvm_events__display(new);

	return kvm_events_display__diff(&o, recording_seconds(old),
					&n, recording_seconds(new), stdout);
}

static const struct option diff_options[] = {
	OPT_CALLBACK_NOOPT(0, "json", &args.view.format, NULL,
			   "print the comparison as JSON", parse_format),
	OPT_CALLBACK_NOOPT(0, "csv", &args.view.format, NULL,
			   "print the comparison as CSV", parse_format),
	OPT_PARENT(read_options),
};

static const char * const diff_usage[] = {
	"perf kvm-events diff [<options>] <old file> <new file>",
	NULL
};

static int kvm_events_diff(int argc, const char **argv)
{
	struct kvm_events_recording old, new;
	int ret;

	argc = parse_options(argc, argv, diff_options, diff_usage, 0);
	if (argc != 2)
		usage_with_options_msg(diff_usage, diff_options,
				       "perf kvm-events diff: expected two recordings, <old file> <new file>; got %d argument%s",
				       argc, argc == 1 ? "" : "s");
	/* The change of p99 is one of diff's columns. */
	args.opts.percentiles = true;
	/* By default, the largest change of the time spent per second first */
	if (args__finish(&args, "time"))
		return 1;

	if (!kvm_events_display__diff_sorts(&args.view))
		return 1;

	kvm_events__init(&old, argv[0]);
	kvm_events__init(&new, argv[1]);
	ret = kvm_events_recording__load(&old, args.analysis);
	if (!ret)
		ret = kvm_events_recording__load(&new, args.analysis);
	if (!ret)
		ret = same_arch(&old, &new);
	if (!ret)
		ret = print_diff(&old, &new);
	kvm_events_recording__exit(&old);
	kvm_events_recording__exit(&new);
	return ret ? 1 : 0;
}

/*
 * live: the kvm tracepoints read in this process as they come
 * (util/kvm-events-live.c); every --delay seconds, the last interval and
 * the totals so far.
 */
static struct kvm_events_live_args live_args;

static int parse_delay(const struct option *opt, const char *arg, int unset)
{
	u32 *delay = opt->value;

	*delay = 1;
	return unset ? 0 : parse_u32("--delay", arg, 1, 86400, delay);
}

static int parse_map_entries(const struct option *opt, const char *arg, int unset)
{
	u32 *entries = opt->value;

	*entries = 0;
	/* The buckets' map gets 16 entries per key: keep it in a u32. */
	return unset ? 0 : parse_u32("--bpf-map-entries", arg, 1, 1U << 24, entries);
}

static const struct option live_options[] = {
	OPT_BOOLEAN(0, "tui", &args.tui, "browse the table in the terminal, the default on one"),
	OPT_BOOLEAN(0, "stdio", &args.stdio, "print the tables at each refresh"),
	/* The metrics, at each refresh */
	OPT_METRICS_FILE,
	OPT_METRICS_LISTEN,
	OPT_METRICS_WEB_CONFIG,
	OPT_METRICS_BY,
	OPT_METRICS_MAX_SERIES,
	/* How and what it watches */
	OPT_CALLBACK('d', "delay", &args.delay, "secs",
		     "seconds between refreshes (default: 1)", parse_delay),
	OPT_BOOLEAN('b', "use-bpf", &args.use_bpf,
		    "pair the events in the kernel with BPF, without recording them"),
	OPT_CALLBACK(0, "bpf-map-entries", &args.bpf_map_entries, "n",
		     "--use-bpf: room for this many keys and threads (default: 4096)",
		     parse_map_entries),
	OPT_FIELDS,
	OPT_BOOLEAN('a', "all-cpus", &live_args.system_wide,
		    "watch the whole host, all CPUs"),
	OPT_STRING('p', "pid", &live_args.pid, "pid[,pid...]",
		   "watch these processes: a VM's pid"),
	OPT_STRING('t', "tid", &live_args.tid, "tid[,tid...]",
		   "watch these threads: a VM's vcpu threads"),
	OPT_STRING('C', "cpu", &live_args.cpu_list, "cpus",
		   "watch these CPUs, e.g. 0-3,6"),
	OPT_CALLBACK('m', "mmap-pages", &live_args.mmap_pages, "pages",
		     "ring buffer pages per CPU (default: 1024), or a size with B/K/M/G",
		     evlist__parse_mmap_pages),
	OPT_PARENT(sort_options),
};

static const char * const live_usage[] = {
	"perf kvm-events live [<options>] [-a | -p PID | -t TID | -C CPUS] [[--] <command>]",
	NULL
};

/* live --use-bpf: util/bpf-kvm-events-live.c */
static int live_bpf(int argc, const char **argv)
{
	struct kvm_events_bpf_live bpf_args = {
		.analysis = args.analysis, .opts = &args.opts, .view = &args.view,
		.delay = args.delay, .map_entries = args.bpf_map_entries,
		.pids = live_args.pid, .all = live_args.system_wide,
		.argc = argc, .argv = argv, .tui = live_args.tui,
		.metrics = &args.metrics, .vm_filter = args.vm_filter,
	};

	if (live_args.tid || live_args.cpu_list || live_args.mmap_pages) {
		pr_err("perf kvm-events live: -t, -C and -m: not with --use-bpf, which watches processes\n");
		return 1;
	}
	if (!bpf_args.map_entries)
		bpf_args.map_entries = KVM_EVENTS_BPF_MAP_ENTRIES;
	return kvm_events_bpf__live(&bpf_args);
}

/* Before any event: a bad folder or a port in use is said at once. */
static int live_open_metrics(void)
{
	if (!kvm_events_metrics__wanted(&args.metrics))
		return 0;
	args__metrics(&args);
	live_args.metrics = &args.metrics;
	return kvm_events_metrics__open(&args.metrics, "live") ?:
	       kvm_events_metrics__serve(&args.metrics, "live");
}

static int kvm_events_live(int argc, const char **argv)
{
	int ret;

	argc = parse_options(argc, argv, live_options, live_usage,
			     PARSE_OPT_STOP_AT_NON_OPTION);
	if (args__finish(&args, "sample"))
		return 1;
	ret = args__tui(&args, true);
	if (ret < 0)
		return 1;
	live_args.tui = ret;
	if (ret)
		args__for_tui(&args);
	if (live_open_metrics())
		return 1;
	if (args.bpf_map_entries && !args.use_bpf) {
		pr_err("perf kvm-events live: --bpf-map-entries: only with --use-bpf\n");
		return 1;
	}
	if (args.use_bpf && args.view.site) {
		pr_err("perf kvm-events live: --key rip and sym: not with --use-bpf, whose program keeps no guest rip\n");
		return 1;
	}
	if (args.use_bpf)
		return live_bpf(argc, argv);
	live_args.analysis = args.analysis;
	live_args.opts = &args.opts;
	live_args.view = &args.view;
	live_args.delay = args.delay;
	live_args.vm_filter = args.vm_filter;
	live_args.argc = argc;
	live_args.argv = argv;
	ret = kvm_events_live__run(&live_args);
	if (ret == KVM_EVENTS_LIVE_NO_TRACEPOINT)
		explain_missing_tracepoints();
	return ret < 0 ? 1 : ret;
}

static const char * const kvm_events_subcommands[] = {
	"record",
	"report",
	"live",
	"diff",
	NULL
};

/* In the order of kvm_events_subcommands[] */
static int (* const kvm_events_subcommand_fn[])(int argc, const char **argv) = {
	kvm_events_record,
	kvm_events_report,
	kvm_events_live,
	kvm_events_diff,
};

/*
 * The commit of perf kvm-events this binary was built from, for
 * --version.  The build leaves it empty, so that a new commit rebuilds
 * nothing; make install writes it into the installed copy, in this
 * section of its own (objcopy --update-section, the same size).  Not
 * static: gcc may not take its contents for the empty initializer's.
 */
#define KVM_EVENTS_COMMIT_SIZE 64
char kvm_events_commit[KVM_EVENTS_COMMIT_SIZE] __section(".kvm_events_commit") = "";
static bool kvm_events_version;

static const struct option kvm_events_options[] = {
	OPT_INCR('v', "verbose", &verbose, "be more verbose"),
	OPT_BOOLEAN(0, "version", &kvm_events_version,
		    "print the perf version and the commit of perf kvm-events"),
	OPT_END()
};

static int kvm_events_print_version(void)
{
	int len = strnlen(kvm_events_commit, sizeof(kvm_events_commit));

	printf("perf kvm-events version %s, commit ", perf_version_string);
	if (len)
		printf("%.*s\n", len, kvm_events_commit);
	else
		printf("unknown (not installed)\n");
	return 0;
}

int cmd_kvm_events(int argc, const char **argv)
{
	/*
	 * The first line is given, so parse_options_subcommand() leaves the
	 * array alone: it writes only a first line that is NULL.
	 */
	static const char * const usage[] = {
		"perf kvm-events [<options>] {record|report|live|diff}",
		"perf kvm-events record [<options>] [<perf record options>] [-- <command>]",
		"perf kvm-events report [<options>]",
		"perf kvm-events live [<options>] [-a | -p PID | -t TID | -C CPUS] [[--] <command>]",
		"perf kvm-events diff [<options>] <old file> <new file>",
		NULL
	};
	size_t i;
	int ret;

	argc = parse_options_subcommand(argc, argv, kvm_events_options,
					kvm_events_subcommands, (const char **)usage,
					PARSE_OPT_STOP_AT_NON_OPTION);
	if (kvm_events_version)
		return kvm_events_print_version();
	if (!argc)
		usage_with_options(usage, kvm_events_options);

	for (i = 0; i < ARRAY_SIZE(kvm_events_subcommand_fn); i++) {
		if (strcmp(argv[0], kvm_events_subcommands[i]))
			continue;
		kvm_events_cmd = kvm_events_subcommands[i];
		ret = kvm_events_subcommand_fn[i](argc, argv);
		args__exit(&args);
		return ret;
	}
	pr_err("perf kvm-events: unknown command '%s'\n", argv[0]);
	usage_with_options(usage, kvm_events_options);
	return 1;
}
