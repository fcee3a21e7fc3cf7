// SPDX-License-Identifier: GPL-2.0
/*
 * perf kvm-events: where do a host's VM exits go, and what do they cost.
 *
 *   perf kvm-events record [<record options>] [-- <command>]
 *   perf kvm-events report [<options>]
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <api/fs/tracing_path.h>
#include <linux/err.h>
#include <linux/kernel.h>
#include <linux/zalloc.h>
#include <subcmd/parse-options.h>

#include "builtin.h"
#include "util/data.h"
#include "util/debug.h"
#include "util/env.h"
#include "util/event.h"
#include "util/evlist.h"
#include "util/evsel.h"
#include "util/intlist.h"
#include "util/kvm-stat.h"
#include "util/sample.h"
#include "util/session.h"
#include "util/tool.h"
#include "util/tracepoint.h"

/*
 * What record asks for: every tracepoint an analysis reads.  Those the
 * running kernel lacks are left out, as long as one of them exists.
 */
static const char * const recorded_tracepoints[] = {
	"kvm:kvm_exit",
	"kvm:kvm_entry",
	"kvm:kvm_mmio",
	"kvm:kvm_pio",
	"kvm:kvm_userspace_exit",
};

struct kvm_events {
	struct perf_tool		tool;
	struct kvm_events_report	report;
	const char			*input;
	const char			*event;
	const char			*sort;
	const char			*pids;
	int				vcpu;
	bool				force;
};

static int tracepoints_missing_reason(void)
{
	char path[PATH_MAX];
	const char *tracing = tracing_path_mount();

	if (!tracing) {
		pr_err("perf kvm-events: tracefs is not mounted; as root run: mount -t tracefs nodev /sys/kernel/tracing\n");
		return -ENOENT;
	}
	snprintf(path, sizeof(path), "%s/events/kvm", tracing);
	if (access(path, F_OK)) {
		if (errno == EACCES) {
			pr_err("perf kvm-events: no permission to read %s; run as root, or give this user access to tracefs\n",
			       tracing);
			return -EACCES;
		}
		pr_err("perf kvm-events: no kvm tracepoints in %s/events; load the kvm module: modprobe kvm_intel (or kvm_amd)\n",
		       tracing);
		return -ENOENT;
	}
	if (access(path, R_OK | X_OK)) {
		pr_err("perf kvm-events: no permission to read %s; run as root\n",
		       path);
		return -EACCES;
	}
	pr_err("perf kvm-events: %s holds none of kvm_exit, kvm_entry, kvm_mmio, kvm_pio\n",
	       path);
	return -ENOENT;
}

static int kvm_events_record(int argc, const char **argv)
{
	const char **rec_argv;
	int i, rec_argc = 0, found = 0, ret;

	rec_argv = calloc(argc + 2 * ARRAY_SIZE(recorded_tracepoints) + 8,
			  sizeof(*rec_argv));
	if (!rec_argv)
		return -ENOMEM;

	/* Raw samples of every event: pairing needs each begin and end. */
	rec_argv[rec_argc++] = "record";
	rec_argv[rec_argc++] = "-R";
	rec_argv[rec_argc++] = "-c";
	rec_argv[rec_argc++] = "1";
	rec_argv[rec_argc++] = "-m";
	rec_argv[rec_argc++] = "1024";
	for (i = 0; i < (int)ARRAY_SIZE(recorded_tracepoints); i++) {
		if (!is_valid_tracepoint(recorded_tracepoints[i])) {
			pr_debug("kvm-events: %s is not available, not recorded\n",
				 recorded_tracepoints[i]);
			continue;
		}
		rec_argv[rec_argc++] = "-e";
		rec_argv[rec_argc++] = recorded_tracepoints[i];
		found++;
	}
	if (!found) {
		free(rec_argv);
		return tracepoints_missing_reason();
	}
	for (i = 1; i < argc; i++)
		rec_argv[rec_argc++] = argv[i];

	ret = cmd_record(rec_argc, rec_argv);
	free(rec_argv);
	return ret;
}

static int process_sample(const struct perf_tool *tool,
			  union perf_event *event __maybe_unused,
			  struct perf_sample *sample, struct evsel *evsel,
			  struct machine *machine __maybe_unused)
{
	struct kvm_events *kvm = container_of(tool, struct kvm_events, tool);
	struct kvm_events_decoder *dec = evsel->priv;
	struct kvm_events_sample s;

	if (!dec)
		return 0;
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

static int process_lost(const struct perf_tool *tool, union perf_event *event,
			struct perf_sample *sample __maybe_unused,
			struct machine *machine __maybe_unused)
{
	struct kvm_events *kvm = container_of(tool, struct kvm_events, tool);

	kvm->report.totals.lost_events += event->lost.lost;
	kvm->report.totals.lost_chunks++;
	return 0;
}

/* Gives each kvm evsel its decoder; returns how many there are. */
static int setup_decoders(struct kvm_events *kvm, struct evlist *evlist)
{
	struct evsel *evsel;
	int nr = 0, err;

	evlist__for_each_entry(evlist, evsel) {
		struct kvm_events_decoder *dec;

		if (evsel->core.attr.type != PERF_TYPE_TRACEPOINT)
			continue;
		dec = zalloc(sizeof(*dec));
		if (!dec)
			return -ENOMEM;
		err = kvm_events_decoder__init(dec, evsel->tp_format);
		if (err) {
			free(dec);
			if (err < 0) {
				pr_err("%s: cannot decode %s\n", kvm->input,
				       evsel__name(evsel));
				return err;
			}
			continue;
		}
		evsel->priv = dec;
		nr++;
	}
	return nr;
}

static void free_decoders(struct evlist *evlist)
{
	struct evsel *evsel;

	evlist__for_each_entry(evlist, evsel)
		zfree(&evsel->priv);
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

static int read_session(struct kvm_events *kvm)
{
	struct perf_data data = {
		.path  = kvm->input,
		.mode  = PERF_DATA_MODE_READ,
		.force = kvm->force,
	};
	struct perf_session *session;
	int ret = check_input(kvm->input);

	if (ret)
		return ret;
	perf_tool__init(&kvm->tool, /*ordered_events=*/true);
	kvm->tool.sample = process_sample;
	kvm->tool.lost = process_lost;

	session = perf_session__new(&data, &kvm->tool);
	if (IS_ERR(session)) {
		pr_err("%s: not a perf.data file perf can read\n", kvm->input);
		return PTR_ERR(session);
	}

	ret = setup_decoders(kvm, session->evlist);
	if (ret == 0) {
		pr_err("%s: no kvm tracepoints recorded; record with: perf kvm-events record\n",
		       kvm->input);
		ret = -EINVAL;
	}
	if (ret > 0) {
		kvm->report.default_isa =
			kvm_events_isa_from_cpuid(perf_env__cpuid(&session->header.env));
		ret = perf_session__process_events(session);
		if (ret)
			pr_err("%s: cannot read the events (%d)\n", kvm->input, ret);
	}
	free_decoders(session->evlist);
	perf_session__delete(session);
	return ret;
}

static int parse_report_options(struct kvm_events *kvm, enum kvm_events_sort *sort)
{
	const struct kvm_events_analysis *analysis;

	analysis = kvm_events_analysis__find(kvm->event);
	if (!analysis) {
		pr_err("perf kvm-events report: --event %s: unknown, expected one of %s\n",
		       kvm->event, kvm_events_analysis__names());
		return -EINVAL;
	}
	if (!strcmp(kvm->sort, "sample")) {
		*sort = KVM_EVENTS_SORT_SAMPLE;
	} else if (!strcmp(kvm->sort, "time")) {
		*sort = KVM_EVENTS_SORT_TIME;
	} else {
		pr_err("perf kvm-events report: --key %s: unknown, expected sample or time\n",
		       kvm->sort);
		return -EINVAL;
	}
	if (kvm->vcpu < -1) {
		pr_err("perf kvm-events report: --vcpu %d: expected a vcpu id >= 0\n",
		       kvm->vcpu);
		return -EINVAL;
	}
	if (kvm_events_report__init(&kvm->report, analysis))
		return -ENOMEM;
	if (kvm->vcpu >= 0)
		kvm->report.vcpu_filter = kvm->vcpu;
	if (kvm->pids) {
		kvm->report.pid_filter = intlist__new(kvm->pids);
		if (!kvm->report.pid_filter) {
			pr_err("perf kvm-events report: --pid %s: expected a list of process ids\n",
			       kvm->pids);
			return -EINVAL;
		}
	}
	return 0;
}

static int kvm_events_report(int argc, const char **argv)
{
	struct kvm_events kvm = {
		.input	= "perf.data",
		.event	= "vmexit",
		.sort	= "sample",
		.vcpu	= -1,
	};
	const struct option options[] = {
	OPT_STRING('i', "input", &kvm.input, "file", "input file name"),
	OPT_STRING(0, "event", &kvm.event, "event",
		   "what to analyse: vmexit (default), mmio, ioport"),
	OPT_INTEGER(0, "vcpu", &kvm.vcpu, "only this vcpu id"),
	OPT_STRING('k', "key", &kvm.sort, "sort-key",
		   "sort by: sample (default, the number of samples), time (the total time)"),
	OPT_STRING('p', "pid", &kvm.pids, "pid[,pid...]",
		   "only these VM processes"),
	OPT_BOOLEAN('f', "force", &kvm.force, "don't complain, do it"),
	OPT_INCR('v', "verbose", &verbose, "be more verbose"),
	OPT_END()
	};
	const char * const usage[] = {
		"perf kvm-events report [<options>]",
		NULL
	};
	enum kvm_events_sort sort;
	int ret;

	argc = parse_options(argc, argv, options, usage, 0);
	if (argc)
		usage_with_options(usage, options);

	ret = parse_report_options(&kvm, &sort);
	if (!ret)
		ret = read_session(&kvm);
	if (!ret) {
		kvm_events_report__finish(&kvm.report);
		ret = kvm_events_report__print(&kvm.report, sort, stdout);
	}
	intlist__delete(kvm.report.pid_filter);
	kvm_events_report__exit(&kvm.report);
	return ret ? 1 : 0;
}

int cmd_kvm_events(int argc, const char **argv)
{
	const char * const usage[] = {
		"perf kvm-events record [<record options>] [-- <command>]",
		"perf kvm-events report [<options>]",
		NULL
	};
	const struct option options[] = {
	OPT_INCR('v', "verbose", &verbose, "be more verbose"),
	OPT_END()
	};

	argc = parse_options(argc, argv, options, usage,
			     PARSE_OPT_STOP_AT_NON_OPTION);
	if (!argc)
		usage_with_options(usage, options);

	if (!strcmp(argv[0], "record"))
		return kvm_events_record(argc, argv);
	if (!strcmp(argv[0], "report"))
		return kvm_events_report(argc, argv);

	pr_err("perf kvm-events: unknown command '%s'\n", argv[0]);
	usage_with_options(usage, options);
	return 1;
}
