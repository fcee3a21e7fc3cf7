// SPDX-License-Identifier: GPL-2.0
/*
 * perf kvm-events: where do a host's VM exits go, and what do they cost.
 *
 *   perf kvm-events record [<record options>] [-- <command>]
 *   perf kvm-events report [<options>]
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <signal.h>
#include <sys/stat.h>
#include <api/fs/tracing_path.h>
#include <linux/err.h>
#include <linux/kernel.h>
#include <linux/zalloc.h>
#include <subcmd/parse-options.h>

#include "builtin.h"
#include "util/bpf-kvm-events.h"
#include "util/data.h"
#include "util/debug.h"
#include "util/env.h"
#include "util/event.h"
#include "util/evlist.h"
#include "util/evsel.h"
#include "util/header.h"
#include "util/intlist.h"
#include "util/kvm-events.h"
#include "util/kvm-events-browse.h"
#include "util/kvm-events-display.h"
#include "util/kvm-events-display-json.h"
#include "util/kvm-events-heatmap.h"
#include "util/kvm-events-sched.h"
#include "util/kvm-events-sites.h"
#include "util/kvm-events-live.h"
#include "util/kvm-events-metrics.h"
#include "util/machine.h"
#include "util/sample.h"
#include "util/session.h"
#include "util/thread.h"
#include "util/time-utils.h"
#include "util/tool.h"
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
	bool				record_sched;	/* ...and the context switches */
	u32				delay;		/* live: seconds per refresh */
	u32				bpf_map_entries; /* live --use-bpf */
	bool				use_bpf;
	bool				stats;
	bool				force;
	bool				generic_reader;
	struct kvm_events_metrics	metrics;	/* --metrics-* */
	bool				tui;		/* --tui */
	bool				stdio;		/* --stdio */
};

/* One recording, read into a report */
struct kvm_events {
	struct perf_tool		tool;
	struct kvm_events_report	report;
	/* The args' filters, with this recording's --time ranges */
	struct kvm_events_options	opts;
	struct perf_session		*session;
	struct perf_data		data;	/* the session points to it */
	const struct kvm_events_args	*args;
	const char			*input;
	bool				generic_reader;
	struct kvm_events_input		in;
	struct kvm_events_heatmap	*heatmap;	/* --heatmap's counts */
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
 * perf record with the kvm tracepoints of the analyses in @tps (0: the
 * default ones); @output, if set, is its -o.
 */
static int kvm_events_record_to(int argc, const char **argv, u32 tps,
				const char *output)
{
	const char *tracepoints[MAX_RECORDED_TRACEPOINTS];
	int i, rec_argc = 0, found = 0, ret, nr;
	const char **rec_argv;

	if (!tps)
		tps = kvm_events_record_tps(NULL);
	/* The tracepoints of those analyses, of any architecture */
	nr = kvm_events_tracepoints(tps, tracepoints, ARRAY_SIZE(tracepoints));
	rec_argv = calloc(argc + 2 * nr + 10, sizeof(*rec_argv));
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
	if (output) {
		rec_argv[rec_argc++] = "-q";
		rec_argv[rec_argc++] = "-o";
		rec_argv[rec_argc++] = output;
	}
	for (i = 1; i < argc; i++)
		rec_argv[rec_argc++] = argv[i];

	ret = cmd_record(rec_argc, rec_argv);
	free(rec_argv);
	return ret;
}

/* evsel->priv of an evsel that is no kvm tracepoint the analyses read */
static struct kvm_events_decoder not_kvm;

static const struct kvm_events_decoder *evsel_decoder(struct kvm_events_input *input,
						      struct evsel *evsel);

static int process_sample(const struct perf_tool *tool,
			  union perf_event *event __maybe_unused,
			  struct perf_sample *sample, struct evsel *evsel,
			  struct machine *machine __maybe_unused)
{
	struct kvm_events *kvm = container_of(tool, struct kvm_events, tool);
	const struct kvm_events_decoder *dec = evsel_decoder(&kvm->in, evsel);
	struct kvm_events_sample s;

	if (IS_ERR(dec))
		return PTR_ERR(dec);
	if (!dec) {
		kvm_events_report__skip_other(&kvm->report, 1);
		return 0;
	}
	/* As the data section reader does: counted, not decoded. */
	if (!kvm_events_report__reads(&kvm->report, dec->tp)) {
		kvm_events_report__skip(&kvm->report, dec->tp, 1);
		return 0;
	}
	if (kvm_events_decoder__decode(dec, sample, evsel->needs_swap, &s)) {
		pr_err("%s: %s sample at %llu: raw data of %u bytes, its format needs %u\n",
		       kvm->input, evsel__name(evsel),
		       (unsigned long long)sample->time, sample->raw_size,
		       dec->min_raw_size);
		return -EINVAL;
	}
	kvm_events_report__add(&kvm->report, &s);
	return 0;
}

/* perf's session code orders the switch records among the samples. */
static int process_switch(const struct perf_tool *tool, union perf_event *event,
			  struct perf_sample *sample, struct machine *machine __maybe_unused)
{
	struct kvm_events *kvm = container_of(tool, struct kvm_events, tool);
	struct kvm_events_sample s;

	if (!kvm->report.opts.sched)
		return 0;
	kvm_events_switch__init(&s, event, sample->pid, sample->tid);
	s.time = sample->time;
	kvm_events_report__add(&kvm->report, &s);
	return 0;
}

/* A pipe's attributes come before its samples: so do its switches. */
static int process_attr(const struct perf_tool *tool, union perf_event *event,
			struct evlist **pevlist)
{
	struct kvm_events *kvm = container_of(tool, struct kvm_events, tool);

	if (kvm_events_switches_readable(&event->attr.attr))
		kvm->report.opts.sched = true;
	return perf_event__process_attr(tool, event, pevlist);
}

/* Whether the switches of some evsel can split the events' time */
static bool switches_recorded(struct evlist *evlist)
{
	struct evsel *evsel;

	evlist__for_each_entry(evlist, evsel) {
		if (kvm_events_switches_readable(&evsel->core.attr))
			return true;
	}
	return false;
}

static int process_lost(const struct perf_tool *tool, union perf_event *event,
			struct perf_sample *sample __maybe_unused,
			struct machine *machine __maybe_unused)
{
	struct kvm_events *kvm = container_of(tool, struct kvm_events, tool);

	kvm->report.totals.lost_events += event->lost.lost;
	kvm->report.totals.lost_chunks++;
	return 0;
}

static int process_lost_samples(const struct perf_tool *tool,
				union perf_event *event,
				struct perf_sample *sample __maybe_unused,
				struct machine *machine __maybe_unused)
{
	struct kvm_events *kvm = container_of(tool, struct kvm_events, tool);

	kvm->report.totals.lost_samples += event->lost_samples.lost;
	return 0;
}

/* Gives @evsel its decoder; returns 1 for a kvm one, 0 for another. */
static int setup_decoder(struct kvm_events *kvm, struct evsel *evsel)
{
	struct kvm_events_decoder *dec;
	int err;

	/* A stream's tracing data may come after its attributes: ask again. */
	if (evsel->core.attr.type == PERF_TYPE_TRACEPOINT && !evsel->tp_format)
		return 0;
	evsel->priv = &not_kvm;
	if (evsel->core.attr.type != PERF_TYPE_TRACEPOINT)
		return 0;
	dec = zalloc(sizeof(*dec));
	if (!dec)
		return -ENOMEM;
	err = kvm_events_decoder__init(dec, evsel->tp_format);
	if (err) {
		free(dec);
		if (err < 0)
			pr_err("%s: cannot decode %s\n", kvm->input, evsel__name(evsel));
		return err < 0 ? err : 0;
	}
	/* A kvm_exit without an isa field: the recording host's CPU vendor says */
	if (dec->tp == KVM_TP_EXIT && !dec->isa_at.size && !dec->fixed_isa) {
		const char *cpuid = perf_env__cpuid(&kvm->session->header.env);

		dec->fixed_isa = kvm_events_isa_from_cpuid(cpuid);
	}
	evsel->priv = dec;
	return 1;
}

/* Returns how many kvm evsels there are. */
static int setup_decoders(struct kvm_events *kvm, struct evlist *evlist)
{
	struct evsel *evsel;
	int nr = 0, ret;

	evlist__for_each_entry(evlist, evsel) {
		ret = setup_decoder(kvm, evsel);
		if (ret < 0)
			return ret;
		nr += ret;
	}
	return nr;
}

/* kvm_events_input.decoder: NULL for an evsel no analysis reads */
static const struct kvm_events_decoder *evsel_decoder(struct kvm_events_input *input,
						      struct evsel *evsel)
{
	struct kvm_events *kvm = container_of(input, struct kvm_events, in);

	if (!evsel->priv) {
		int err = setup_decoder(kvm, evsel);

		if (err < 0)
			return ERR_PTR(err);
	}
	return evsel->priv == &not_kvm ? NULL : evsel->priv;
}

/* In a pipe decoders come with samples: were kvm tracepoints recorded? */
static bool has_kvm_tracepoints(struct evlist *evlist)
{
	struct kvm_events_decoder dec;
	struct evsel *evsel;

	evlist__for_each_entry(evlist, evsel) {
		if (evsel->core.attr.type == PERF_TYPE_TRACEPOINT &&
		    !kvm_events_decoder__init(&dec, evsel->tp_format))
			return true;
	}
	return false;
}

static void free_decoders(struct evlist *evlist)
{
	struct evsel *evsel;

	evlist__for_each_entry(evlist, evsel) {
		if (evsel->priv != &not_kvm)
			free(evsel->priv);
		evsel->priv = NULL;
	}
}

/* A pipe ends its features with one numbered HEADER_LAST_FEATURE. */
static int process_feature(struct perf_session *session, union perf_event *event)
{
	if (event->feat.feat_id >= HEADER_LAST_FEATURE)
		return 0;
	return perf_event__process_feature(session, event);
}

/* perf's own messages on these do not name the file. */
static int check_input(const char *path)
{
	struct stat st;

	if (!strcmp(path, "-"))
		return 0;
	if (stat(path, &st)) {
		pr_err("%s: %s\n", path, strerror(errno));
		return -errno;
	}
	if (S_ISREG(st.st_mode) && st.st_size == 0) {
		pr_err("%s: empty file, nothing was recorded\n", path);
		return -EINVAL;
	}
	return 0;
}

static int parse_time_option(struct kvm_events *kvm)
{
	const char *ranges = kvm->args->view.time;
	int size = 0, num = 0;

	if (!ranges)
		return 0;
	/* Percents are of the span the header gives: a pipe's has none. */
	if (strchr(ranges, '%') &&
	    kvm->session->evlist->last_sample_time <= kvm->session->evlist->first_sample_time) {
		pr_err("perf kvm-events %s: --time %s: %s has no first and last sample times (recorded to a pipe, or with -B): give the range in seconds\n",
		       kvm_events_cmd, ranges, kvm->input);
		return -EINVAL;
	}
	if (perf_time__parse_for_ranges(ranges, kvm->session,
					&kvm->opts.time_ranges, &size, &num)) {
		pr_err("perf kvm-events %s: --time %s: expected start,end in seconds or percents, as perf report takes it\n",
		       kvm_events_cmd, ranges);
		return -EINVAL;
	}
	kvm->opts.nr_time_ranges = num;
	return 0;
}

/* The end of the header's sections, for warn_if_cut_short() */
static int section_end(struct perf_file_section *section,
		       struct perf_header *ph __maybe_unused,
		       int feat __maybe_unused, int fd __maybe_unused, void *data)
{
	u64 *end = data;

	*end = max(*end, section->offset + section->size);
	return 0;
}

/*
 * perf reads a feature section cut by the end of the file as missing,
 * without a word: say that the file was cut short (a full disk, a copy
 * that stopped), since what it lost (the sample times, the event names)
 * may be what the user looks for.
 */
static void warn_if_cut_short(struct kvm_events *kvm)
{
	struct perf_header *header = &kvm->session->header;
	int fd = perf_data__fd(kvm->session->data);
	u64 end = 0;
	struct stat st;

	if (perf_data__is_pipe(kvm->session->data) || fstat(fd, &st) ||
	    perf_header__process_sections(header, fd, &end, section_end))
		return;
	if (end > (u64)st.st_size)
		pr_warning("%s: cut short: the file ends at byte %llu, its header's sections at %llu; what they held past the end is missing\n",
			   kvm->input, (unsigned long long)st.st_size, (unsigned long long)end);
}

static int open_session(struct kvm_events *kvm)
{
	int ret = check_input(kvm->input);

	if (ret)
		return ret;
	kvm->data.path = kvm->input;
	kvm->data.mode = PERF_DATA_MODE_READ;
	kvm->data.force = kvm->args->force;
	perf_tool__init(&kvm->tool, /*ordered_events=*/true);
	kvm->tool.sample = process_sample;
	kvm->tool.lost = process_lost;
	kvm->tool.lost_samples = process_lost_samples;
	kvm->tool.comm = perf_event__process_comm;
	kvm->tool.context_switch = process_switch;
	/* A pipe carries what a file keeps in its header. */
	kvm->tool.attr = perf_event__process_attr;
	kvm->tool.event_update = perf_event__process_event_update;
	kvm->tool.tracing_data = perf_event__process_tracing_data;
	kvm->tool.feature = process_feature;
	kvm->tool.id_index = perf_event__process_id_index;

	kvm->session = perf_session__new(&kvm->data, &kvm->tool);
	if (IS_ERR(kvm->session)) {
		ret = PTR_ERR(kvm->session);
		kvm->session = NULL;
		pr_err("%s: not a perf.data file perf can read\n", kvm->input);
		return ret;
	}
	warn_if_cut_short(kvm);
	return 0;
}

/* The fast reader where it can, perf's session code where it cannot */
static int read_events(struct kvm_events *kvm)
{
	bool handled = false;
	int ret = 0;

	kvm->in.session = kvm->session;
	kvm->in.threads = kvm->args->threads;
	kvm->in.decoder = evsel_decoder;
	if (!kvm->generic_reader)
		ret = kvm_events_read(&kvm->in, &kvm->report, &handled);
	else
		pr_debug("%s: read by perf's session code: --generic-reader\n", kvm->input);
	if (!ret && !handled) {
		ret = perf_session__process_events(kvm->session);
		kvm->report.totals.out_of_order +=
			kvm->session->ordered_events.nr_unordered_events;
	}
	/* The reader names what it could not read; perf's code does not. */
	if (ret && !handled)
		pr_err("%s: cannot read the events (%d)\n", kvm->input, ret);
	return ret;
}

/* BIT(tp) of each kvm tracepoint recorded */
static u32 recorded_tps(struct kvm_events *kvm)
{
	const struct kvm_events_decoder *dec;
	struct evsel *evsel;
	u32 tps = 0;

	evlist__for_each_entry(kvm->session->evlist, evsel) {
		dec = evsel_decoder(&kvm->in, evsel);
		if (!IS_ERR_OR_NULL(dec))
			tps |= BIT(dec->tp);
	}
	return tps;
}

/* An empty table should say why: the recording lacks the events. */
static void warn_missing_tracepoints(struct kvm_events *kvm,
				    const struct kvm_events_analysis *analysis)
{
	u32 missing = kvm_events_analysis__needs(analysis) & ~recorded_tps(kvm);
	const char *name = kvm_events_analysis__name(analysis);
	char names[256];
	size_t len = 0;
	int tp;

	if (!missing)
		return;
	for (tp = 0; tp < KVM_TP__NR; tp++) {
		if (missing & BIT(tp))
			len += scnprintf(names + len, sizeof(names) - len, "%s%s",
					 len ? ", " : "", kvm_tp_role__name(tp));
	}
	pr_warning("%s: recorded without %s, which --event %s reads; where the host has them, record with: perf kvm-events record --event %s\n",
		   kvm->input, names, name, name);
}

/*
 * --heatmap: the counts kept as the events are paired, since a pipe is
 * read once; its columns divide the span the header gives.
 */
static int observe_heatmap(struct kvm_events *kvm)
{
	struct evlist *evlist = kvm->session->evlist;

	kvm->heatmap = kvm_events_heatmap__new(evlist->first_sample_time,
					       evlist->last_sample_time);
	if (!kvm->heatmap)
		return -ENOMEM;
	kvm->report.observer = &kvm->heatmap->observer;
	return 0;
}

static int read_session(struct kvm_events *kvm,
			const struct kvm_events_analysis *analysis)
{
	struct perf_session *session = kvm->session;
	bool pipe = perf_data__is_pipe(session->data);
	int ret = pipe ? 1 : setup_decoders(kvm, session->evlist);

	kvm->opts.sched = switches_recorded(session->evlist);
	/* A pipe's evsels come with its events: the switches' one too. */
	if (pipe)
		kvm->tool.attr = process_attr;
	if (ret == 0) {
		pr_err("%s: no kvm tracepoints recorded; record with: perf kvm-events record\n",
		       kvm->input);
		ret = -EINVAL;
	}
	if (ret > 0)
		ret = parse_time_option(kvm);
	if (!ret)
		ret = kvm_events_report__init(&kvm->report, analysis, &kvm->opts);
	if (!ret && kvm->opts.heatmap)
		ret = observe_heatmap(kvm);
	if (!ret)
		ret = read_events(kvm);
	if (!ret && pipe && !has_kvm_tracepoints(session->evlist)) {
		pr_err("%s: no kvm tracepoints recorded; record with: perf kvm-events record\n",
		       kvm->input);
		ret = -EINVAL;
	}
	if (!ret)
		warn_missing_tracepoints(kvm, analysis);
	free_decoders(session->evlist);
	return ret;
}

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
	free(a->opts.vcpu_ranges);
}

/* Taken by report, live and diff */
static const struct option analysis_options[] = {
	OPT_CALLBACK(0, "event", &args.analysis, "event",
		     "what to analyse: vmexit (default), mmio, ioport, userspace, msr, hypercall, halt",
		     parse_analysis),
	OPT_CALLBACK(0, "vcpu", &args, "vcpus",
		     "only these vcpu ids, e.g. 1 or 0,2-5", parse_vcpus),
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
		   "serve Prometheus metrics on /metrics (address: 127.0.0.1)")
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
	if (unset || *tps)
		return 0;
	pr_err("perf kvm-events record: --event %s: expected a comma separated list of %s, or all\n",
	       arg, kvm_events_analysis__names());
	return -EINVAL;
}

static const struct option record_options[] = {
	OPT_CALLBACK(0, "event", &args.record_tps, "analyses",
		     "record for these analyses, comma separated: vmexit (default), mmio, ioport, userspace, msr, hypercall, halt, or all",
		     parse_record_event),
	OPT_BOOLEAN(0, "sched", &args.record_sched,
		    "also record the context switches: split each event's time, on and off CPU"),
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
	ret = kvm_events_record_to(argc + 1, with, args.record_tps, NULL);
	free(with);
	return ret;
}

static int kvm_events_record(int argc, const char **argv)
{
	argc = parse_options(argc, argv, record_options, record_usage,
			     PARSE_OPT_KEEP_UNKNOWN | PARSE_OPT_KEEP_DASHDASH |
			     PARSE_OPT_KEEP_ARGV0);
	if (args.record_sched)
		return kvm_events_record_sched(argc, argv);
	return kvm_events_record_to(argc, argv, args.record_tps, NULL);
}

/* Sets up @kvm to read @input as the options ask. */
static void kvm_events__init(struct kvm_events *kvm, const char *input)
{
	memset(kvm, 0, sizeof(*kvm));
	kvm->args = &args;
	kvm->opts = args.opts;
	kvm->input = input;
	kvm->generic_reader = args.generic_reader;
}

/* The recording, read into a report ready to print */
static int kvm_events__load(struct kvm_events *kvm)
{
	int ret = open_session(kvm);

	if (!ret)
		ret = read_session(kvm, kvm->args->analysis);
	if (!ret)
		kvm_events_report__finish(&kvm->report);
	return ret;
}

static void kvm_events__exit(struct kvm_events *kvm)
{
	kvm_events_report__exit(&kvm->report);
	kvm_events_heatmap__delete(kvm->heatmap);
	if (kvm->session)
		perf_session__delete(kvm->session);
	free(kvm->opts.time_ranges);
}

static struct kvm_events_display kvm_events__display(struct kvm_events *kvm)
{
	return (struct kvm_events_display){
		.view		= &kvm->args->view,
		.report		= &kvm->report,
		.input		= kvm->input,
		.machine	= &kvm->session->machines.host,
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

static int print_report(struct kvm_events *kvm)
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
static int report_metrics(struct kvm_events *kvm)
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
	struct kvm_events		kvm;
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
	kvm_events__exit(&rb->kvm);
	args.analysis = analysis;
	kvm_events__init(&rb->kvm, args.input);
	return kvm_events__load(&rb->kvm);
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
	struct kvm_events whole;
	int ret;

	kvm_events__init(&whole, args.input);
	ret = kvm_events__load(&whole);
	if (!ret) {
		struct kvm_events_display display = kvm_events__display(&whole);

		ret = kvm_events_heatmap__write(whole.heatmap, &display, whole.opts.heatmap);
	}
	kvm_events__exit(&whole);
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
	ret = kvm_events__load(&rb.kvm);
	if (!ret) {
		kvm_events_view__fit(&args.view, &rb.kvm.report, rb.kvm.input);
		ret = kvm_events_browse__run(&rb.src, args.analysis);
	}
	kvm_events__exit(&rb.kvm);
	return ret;
}

static int kvm_events_report(int argc, const char **argv)
{
	struct kvm_events kvm;
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
	ret = kvm_events__load(&kvm);
	if (!ret)
		ret = print_report(&kvm);
	ret = ret ?: report_metrics(&kvm);
	kvm_events__exit(&kvm);
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
static double recording_seconds(struct kvm_events *kvm)
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
static int same_arch(struct kvm_events *old, struct kvm_events *new)
{
	const char *a = perf_env__arch(&old->session->header.env);
	const char *b = perf_env__arch(&new->session->header.env);

	if (!strcmp(a, b))
		return 0;
	pr_err("perf kvm-events diff: %s was recorded on %s, %s on %s: their exits cannot be compared\n",
	       old->input, a, new->input, b);
	return -EINVAL;
}

static int print_diff(struct kvm_events *old, struct kvm_events *new)
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
	struct kvm_events old, new;
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
	ret = kvm_events__load(&old);
	if (!ret)
		ret = kvm_events__load(&new);
	if (!ret)
		ret = same_arch(&old, &new);
	if (!ret)
		ret = print_diff(&old, &new);
	kvm_events__exit(&old);
	kvm_events__exit(&new);
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
		.metrics = &args.metrics,
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
	args.metrics.live = true;
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

static const struct option kvm_events_options[] = {
	OPT_INCR('v', "verbose", &verbose, "be more verbose"),
	OPT_END()
};

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
