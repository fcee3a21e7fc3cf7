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
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <signal.h>
#include <time.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
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
#include "util/hashmap.h"
#include "util/header.h"
#include "util/intlist.h"
#include "util/kvm-events.h"
#include "util/machine.h"
#include "util/sample.h"
#include "util/session.h"
#include "util/thread.h"
#include "util/time-utils.h"
#include "util/tool.h"
#include "util/tracepoint.h"

/* Room for the tracepoints record asks for: those of util/kvm-events-tp.c */
#define MAX_RECORDED_TRACEPOINTS	64

enum output_format {
	OUTPUT_TABLE,
	OUTPUT_JSON,
	OUTPUT_CSV,
};

struct kvm_events {
	struct perf_tool		tool;
	struct kvm_events_report	report;
	struct kvm_events_options	opts;
	struct perf_session		*session;
	struct perf_data		data;	/* the session points to it */
	const struct column		*columns[16];
	int				nr_columns;
	enum kvm_events_sort		sort;
	enum output_format		output;
	const char			*input;
	const char			*event;
	const char			*sort_name;
	const char			*vcpus;
	const char			*pids;
	const char			*time;
	const char			*fields;
	const char			*duration;
	double				duration_us;
	const char			*top;
	bool				stats;
	bool				split_idle;
	bool				per_vcpu;
	bool				per_vm;
	bool				json;
	bool				csv;
	bool				force;
	bool				generic_reader;
	int				threads;
	struct kvm_events_input		in;
};

/* Says why no kvm tracepoint can be recorded, and how to fix it. */
static void explain_missing_tracepoints(void)
{
	char tracing[PATH_MAX], path[PATH_MAX + 16];
	const char *mount = tracing_path_mount();
	size_t len;

	if (!mount) {
		pr_err("perf kvm-events record: tracefs is not mounted; as root run: mount -t tracefs nodev /sys/kernel/tracing\n");
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
		pr_err("perf kvm-events record: tracefs is not mounted on %s; as root run: mount -t tracefs nodev %s\n",
		       tracing, tracing);
		return;
	}
	snprintf(path, sizeof(path), "%s/events/kvm", tracing);
	if (access(path, F_OK) && errno == EACCES)
		pr_err("perf kvm-events record: no permission to read %s; run as root, or give this user access to tracefs\n",
		       tracing);
	else if (access(path, F_OK))
		pr_err("perf kvm-events record: no kvm tracepoints in %s/events; load the kvm module: modprobe kvm_intel (or kvm_amd)\n",
		       tracing);
	else if (access(path, R_OK | X_OK))
		pr_err("perf kvm-events record: no permission to read %s; run as root\n",
		       path);
	else
		pr_err("perf kvm-events record: %s holds none of kvm_exit, kvm_entry, kvm_mmio, kvm_pio\n",
		       path);
}

/*
 * record's own option, --event LIST: the analyses to record for.  It is
 * taken out of the options before they go to perf record, whose -e
 * still selects events.  Returns 1 for an option that is not it.
 */
static int take_event_option(const char **argv, int *i, const char **list)
{
	const char *arg = argv[*i];

	if (!strcmp(arg, "--event")) {
		if (!argv[*i + 1]) {
			pr_err("perf kvm-events record: --event needs a list of analyses\n");
			return -EINVAL;
		}
		*list = argv[++*i];
		return 0;
	}
	if (!strncmp(arg, "--event=", 8)) {
		*list = arg + 8;
		return 0;
	}
	return 1;
}

/*
 * perf record with the kvm tracepoints of the analyses in @list (NULL:
 * the default ones, or those of record's --event); @output, if set, is
 * its -o.
 */
static int kvm_events_record_to(int argc, const char **argv, const char *list,
				const char *output)
{
	const char *tracepoints[MAX_RECORDED_TRACEPOINTS];
	int i, rec_argc = 0, found = 0, ret, nr, after_dashes;
	const char **rec_argv;
	u32 tps;

	/* What follows -- is the workload's. */
	for (i = 1; i < argc && strcmp(argv[i], "--"); i++)
		;
	after_dashes = i;
	for (i = 1; i < after_dashes; i++) {
		ret = take_event_option(argv, &i, &list);
		if (ret < 0)
			return ret;
	}
	tps = kvm_events_record_tps(list);
	if (!tps) {
		pr_err("perf kvm-events record: --event %s: expected a comma separated list of %s, or all\n",
		       list, kvm_events_analysis__names());
		return -EINVAL;
	}
	/* The tracepoints of those analyses, of any architecture */
	nr = kvm_events_tracepoints(tps, tracepoints, ARRAY_SIZE(tracepoints));
	rec_argv = calloc(argc + 2 * nr + 10, sizeof(*rec_argv));
	if (!rec_argv)
		return -ENOMEM;

	/* Raw samples of every event: pairing needs each begin and end. */
	rec_argv[rec_argc++] = "record";
	rec_argv[rec_argc++] = "-R";
	rec_argv[rec_argc++] = "-c";
	rec_argv[rec_argc++] = "1";
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
	for (i = 1; i < argc; i++) {
		int skip = i < after_dashes ? take_event_option(argv, &i, &list) : 1;

		if (skip)
			rec_argv[rec_argc++] = argv[i];
	}

	ret = cmd_record(rec_argc, rec_argv);
	free(rec_argv);
	return ret;
}

static int kvm_events_record(int argc, const char **argv)
{
	return kvm_events_record_to(argc, argv, NULL, NULL);
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
	if (!dec)
		return 0;
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
	if (dec->tp == KVM_TP_EXIT && !dec->isa && !dec->fixed_isa)
		dec->fixed_isa = kvm_events_isa_from_cpuid(perf_env__cpuid(&kvm->session->header.env));
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
	int size = 0, num = 0;

	if (!kvm->time)
		return 0;
	/* Percents are of the span the header gives: a pipe's has none. */
	if (strchr(kvm->time, '%') &&
	    kvm->session->evlist->last_sample_time <= kvm->session->evlist->first_sample_time) {
		pr_err("perf kvm-events report: --time %s: %s has no first and last sample times (recorded to a pipe, or with -B): give the range in seconds\n",
		       kvm->time, kvm->input);
		return -EINVAL;
	}
	if (perf_time__parse_for_ranges(kvm->time, kvm->session,
					&kvm->opts.time_ranges, &size, &num)) {
		pr_err("perf kvm-events report: --time %s: expected start,end in seconds or percents, as perf report takes it\n",
		       kvm->time);
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
		pr_warning("%s: cut short: the file ends at byte %" PRIu64 ", its header's sections at %" PRIu64 "; what they held past the end is missing\n",
			   kvm->input, (u64)st.st_size, end);
}

/*
 * libtraceevent 1.7.1, the one Debian ships, crashes on some print formats
 * a crafted file can hold (a division by zero, an unknown field in
 * __print_symbolic).  Before this process reads the header, a child reads
 * it with the default signal actions, so that such a file gets an error,
 * not a crash.  A pipe cannot be read twice: it goes unchecked.
 */
static int stop_at_sample(const struct perf_tool *tool __maybe_unused,
			  union perf_event *event __maybe_unused,
			  struct perf_sample *sample __maybe_unused,
			  struct evsel *evsel __maybe_unused,
			  struct machine *machine __maybe_unused)
{
	return -1;
}

static int check_header_in_child(struct kvm_events *kvm)
{
	static const int fatal[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };
	struct stat st;
	int status;
	size_t i;
	pid_t pid;

	if (stat(kvm->input, &st) || !S_ISREG(st.st_mode))
		return 0;
	pid = fork();
	if (pid < 0)
		return 0;
	if (pid == 0) {
		struct perf_session *session;
		int null = open("/dev/null", O_WRONLY);

		/* Its messages are the parent's to give. */
		if (null >= 0)
			dup2(null, STDERR_FILENO);
		for (i = 0; i < ARRAY_SIZE(fatal); i++)
			signal(fatal[i], SIG_DFL);
		session = perf_session__new(&kvm->data, &kvm->tool);
		if (IS_ERR(session))
			_exit(1);
		/*
		 * A file in pipe format keeps in its records what the header
		 * of another holds: read up to the first sample.
		 */
		if (perf_data__is_pipe(session->data) && kvm->generic_reader) {
			kvm->tool.ordered_events = false;
			kvm->tool.sample = stop_at_sample;
			perf_session__process_events(session);
		}
		_exit(0);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFSIGNALED(status))
		return 0;
	pr_err("%s: reading its header kills perf (signal %d: a bug of perf or of libtraceevent that this file sets off); not read\n",
	       kvm->input, WTERMSIG(status));
	return -EINVAL;
}

static int open_session(struct kvm_events *kvm)
{
	int ret = check_input(kvm->input);

	if (ret)
		return ret;
	kvm->data.path = kvm->input;
	kvm->data.mode = PERF_DATA_MODE_READ;
	kvm->data.force = kvm->force;
	perf_tool__init(&kvm->tool, /*ordered_events=*/true);
	kvm->tool.sample = process_sample;
	kvm->tool.lost = process_lost;
	kvm->tool.lost_samples = process_lost_samples;
	kvm->tool.comm = perf_event__process_comm;
	/* A pipe carries what a file keeps in its header. */
	kvm->tool.attr = perf_event__process_attr;
	kvm->tool.event_update = perf_event__process_event_update;
	kvm->tool.tracing_data = perf_event__process_tracing_data;
	kvm->tool.feature = process_feature;
	kvm->tool.id_index = perf_event__process_id_index;

	ret = check_header_in_child(kvm);
	if (ret)
		return ret;
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
	kvm->in.threads = kvm->threads;
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

static int read_session(struct kvm_events *kvm,
			const struct kvm_events_analysis *analysis)
{
	struct perf_session *session = kvm->session;
	bool pipe = perf_data__is_pipe(session->data);
	int ret = pipe ? 1 : setup_decoders(kvm, session->evlist);

	if (ret == 0) {
		pr_err("%s: no kvm tracepoints recorded; record with: perf kvm-events record\n",
		       kvm->input);
		ret = -EINVAL;
	}
	if (ret > 0)
		ret = parse_time_option(kvm);
	if (!ret)
		ret = kvm_events_report__init(&kvm->report, analysis, &kvm->opts);
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

struct column {
	const char	*name;		/* for --fields, json and csv */
	const char	*header;
	enum column_kind kind;
	bool		percentile;
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

static double col_p50(struct kvm_events_key *key,
		      const struct table_totals *t __maybe_unused)
{
	return kvm_events_key__percentile(key, 50);
}

static double col_p90(struct kvm_events_key *key,
		      const struct table_totals *t __maybe_unused)
{
	return kvm_events_key__percentile(key, 90);
}

static double col_p99(struct kvm_events_key *key,
		      const struct table_totals *t __maybe_unused)
{
	return kvm_events_key__percentile(key, 99);
}

static double col_p999(struct kvm_events_key *key,
		       const struct table_totals *t __maybe_unused)
{
	return kvm_events_key__percentile(key, 99.9);
}

static const struct column columns[] = {
	{ "samples", "Samples", COLUMN_COUNT, false, col_samples },
	{ "samples%", "Samples%", COLUMN_SHARE, false, col_samples_share },
	{ "time%", "Time%", COLUMN_SHARE, false, col_time_share },
	{ "total", "Total time", COLUMN_TIME, false, col_total },
	{ "min", "Min time", COLUMN_TIME, false, col_min },
	{ "max", "Max time", COLUMN_TIME, false, col_max },
	{ "avg", "Avg time", COLUMN_TIME, false, col_avg },
	{ "stddev", "Stddev", COLUMN_TIME, false, col_stddev },
	{ "p50", "p50", COLUMN_TIME, true, col_p50 },
	{ "p90", "p90", COLUMN_TIME, true, col_p90 },
	{ "p99", "p99", COLUMN_TIME, true, col_p99 },
	{ "p99.9", "p99.9", COLUMN_TIME, true, col_p999 },
};

#define DEFAULT_FIELDS	"samples,samples%,time%,avg"
#define STATS_FIELDS	"samples,samples%,time%,total,min,max,avg,stddev,p50,p90,p99,p99.9"

static const struct column *column__find(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(columns); i++) {
		if (!strcmp(columns[i].name, name))
			return &columns[i];
	}
	return NULL;
}

/* --threads: unset, 1 or 2 */
#define THREADS_DEFAULT	(-1)

/* A count option: decimal, from @min to @max */
static int parse_u32(const char *cmd, const char *opt, const char *arg,
		     u32 min, u32 max, u32 *val)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(arg, &end, 10);
	if (*arg < '0' || *arg > '9' || *end || errno || v < min || v > max) {
		pr_err("perf kvm-events %s: %s %s: expected a number from %u to %u\n",
		       cmd, opt, arg, min, max);
		return -EINVAL;
	}
	*val = v;
	return 0;
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

static int parse_fields(struct kvm_events *kvm, const char *list)
{
	char *copy = strdup(list), *tok, *save = NULL;
	int ret = 0;

	if (!copy)
		return -ENOMEM;
	kvm->nr_columns = 0;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		const struct column *col = column__find(tok);

		if (!col) {
			pr_err("perf kvm-events report: --fields %s: unknown field '%s', expected any of %s\n",
			       list, tok, STATS_FIELDS);
			ret = -EINVAL;
			break;
		}
		if (kvm->nr_columns == (int)ARRAY_SIZE(kvm->columns)) {
			pr_err("perf kvm-events report: --fields %s: more than %zu fields\n",
			       list, ARRAY_SIZE(kvm->columns));
			ret = -EINVAL;
			break;
		}
		kvm->columns[kvm->nr_columns++] = col;
		if (col->percentile)
			kvm->opts.percentiles = true;
		if (!strcmp(col->name, "stddev"))
			kvm->opts.stddev = true;
	}
	free(copy);
	if (!ret && !kvm->nr_columns) {
		pr_err("perf kvm-events report: --fields '%s': no field, expected any of %s\n",
		       list, STATS_FIELDS);
		ret = -EINVAL;
	}
	return ret;
}

/*
 * Cell widths of the original kvm-events layout: "%10llu", "%12.2f%%",
 * "%12.2fus", each after a space.
 */
static int column_width(const struct column *col)
{
	return col->kind == COLUMN_COUNT ? 10 : col->kind == COLUMN_SHARE ? 13 : 14;
}

static void print_cell(const struct column *col, struct kvm_events_key *key,
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
		fprintf(fp, " %*.2f%%", width - 1, col->value(key, totals));
	else
		fprintf(fp, " %*.2fus", width - 2, col->value(key, totals) / 1000);
}

static void print_header(struct kvm_events *kvm, FILE *fp)
{
	int i;

	fprintf(fp, "%20s", kvm_events_analysis__column(kvm->report.analysis));
	for (i = 0; i < kvm->nr_columns; i++) {
		const struct column *col = kvm->columns[i];
		int width = column_width(col);

		/* That layout's last header, "Avg time", stands out by one. */
		if (i == kvm->nr_columns - 1 && col->kind == COLUMN_TIME)
			width++;
		fprintf(fp, " %*s", width, col->header);
	}
	fprintf(fp, "\n\n");
}

static void print_row(struct kvm_events *kvm, struct kvm_events_key *key,
		      const struct table_totals *totals, FILE *fp)
{
	int i;

	fprintf(fp, "%20s", key->name);
	for (i = 0; i < kvm->nr_columns; i++)
		print_cell(kvm->columns[i], key, totals, fp);
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

static const char *comm_of(struct kvm_events *kvm, u32 pid)
{
	struct thread *thread;
	const char *comm = NULL;

	thread = machine__find_thread(&kvm->session->machines.host, pid, pid);
	if (thread) {
		comm = thread__comm_str(thread);
		thread__put(thread);
	}
	return comm ? comm : "?";
}

static void print_title(struct kvm_events *kvm, struct kvm_events_key **keys,
			size_t nr, FILE *fp)
{
	u32 group = nr ? keys[0]->group : 0;

	switch (nr ? kvm->opts.group : KVM_EVENTS_GROUP_NONE) {
	case KVM_EVENTS_GROUP_VCPU:
		if (group == KVM_EVENTS_NO_VCPU)
			fprintf(fp, "Analyze events for threads without a known VCPU id:\n\n");
		else
			fprintf(fp, "Analyze events for VCPU %u:\n\n", group);
		return;
	case KVM_EVENTS_GROUP_VM:
		fprintf(fp, "Analyze events for VM pid %u (%s):\n\n", group,
			comm_of(kvm, group));
		return;
	case KVM_EVENTS_GROUP_NONE:
	default:
		break;
	}
	if (!kvm->vcpus)
		fprintf(fp, "Analyze events for all VCPUs:\n\n");
	else if (strspn(kvm->vcpus, "0123456789") == strlen(kvm->vcpus))
		fprintf(fp, "Analyze events for VCPU %s:\n\n", kvm->vcpus);
	else
		fprintf(fp, "Analyze events for VCPUs %s:\n\n", kvm->vcpus);
}

static bool is_idle(struct kvm_events *kvm, const struct kvm_events_key *key)
{
	return kvm->split_idle &&
	       kvm_events_analysis__is_idle(kvm->report.analysis, key->key);
}

/* Prints keys[0..nr) whose idleness is @idle, as one table. */
static void print_rows(struct kvm_events *kvm, struct kvm_events_key **keys,
		       size_t nr, bool idle, FILE *fp)
{
	struct table_totals totals = { 0, 0 };
	size_t i;

	for (i = 0; i < nr; i++) {
		/* Samples% stays a share of every sample, idle or not. */
		totals.samples += keys[i]->samples;
		if (is_idle(kvm, keys[i]) == idle)
			totals.total_ns += keys[i]->total_ns;
	}
	for (i = 0; i < nr; i++) {
		if (is_idle(kvm, keys[i]) == idle)
			print_row(kvm, keys[i], &totals, fp);
	}
	if (!idle)
		fprintf(fp, "\nTotal Samples:%" PRIu64 ", Total events handled time:%.2fus.\n",
			totals.samples, (double)totals.total_ns / 1000);
}

static bool has_idle(struct kvm_events *kvm, struct kvm_events_key **keys,
		     size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++) {
		if (is_idle(kvm, keys[i]))
			return true;
	}
	return false;
}

static void print_table(struct kvm_events *kvm, struct kvm_events_key **keys,
			size_t nr, FILE *fp)
{
	size_t i;

	fprintf(fp, "\n\n");
	print_title(kvm, keys, nr, fp);
	print_header(kvm, fp);
	print_rows(kvm, keys, nr, false, fp);
	if (has_idle(kvm, keys, nr)) {
		fprintf(fp, "\nIdle: the vcpu waits for work; not in Time%% or the total above:\n\n");
		print_header(kvm, fp);
		print_rows(kvm, keys, nr, true, fp);
	}
	for (i = 0; kvm->opts.histogram && i < nr; i++)
		print_histogram(keys[i], fp);
}

static void print_no_samples(struct kvm_events *kvm, FILE *fp)
{
	const struct kvm_events_totals *t = &kvm->report.totals;
	const char *sep = "";
	int tp;

	fprintf(fp, "No %s samples; kvm events read:",
		kvm_events_analysis__name(kvm->report.analysis));
	for (tp = 0; tp < KVM_TP__NR; tp++) {
		if (!t->by_tp[tp])
			continue;
		fprintf(fp, "%s %s %" PRIu64, sep, kvm_tp_role__name(tp), t->by_tp[tp]);
		sep = ",";
	}
	fprintf(fp, "%s.\n", *sep ? "" : " none");
}

static void print_top(struct kvm_events *kvm, FILE *fp)
{
	const struct kvm_events_report *r = &kvm->report;
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

static void print_footer(struct kvm_events *kvm, FILE *fp)
{
	const struct kvm_events_totals *t = &kvm->report.totals;

	if (!t->keyed)
		print_no_samples(kvm, fp);
	if (t->no_end || t->no_begin)
		fprintf(fp, "Samples without time:%" PRIu64 " (no end event:%" PRIu64 ", no begin event:%" PRIu64 ").\n",
			t->no_end + t->no_begin, t->no_end, t->no_begin);
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
	if (verbose > 0)
		fprintf(fp, "Samples read:%" PRIu64 " = counted in a key %" PRIu64 " + ends of counted samples %" PRIu64 " + filtered %" PRIu64 " + other %" PRIu64 " + left out for lack of memory %" PRIu64 ".\n",
			t->read, t->keyed, t->paired_end, t->filtered, t->unused,
			t->no_memory);
}

static void print_tables(struct kvm_events *kvm, struct kvm_events_key **keys,
			 size_t nr, FILE *fp)
{
	size_t start = 0, end;

	/* Sorted by group first: one table per run of equal groups. */
	do {
		for (end = start; end < nr && keys[end]->group == keys[start]->group; end++)
			;
		print_table(kvm, keys + start, end - start, fp);
		start = end;
	} while (start < nr);
	if (kvm->opts.top)
		print_top(kvm, fp);
	print_footer(kvm, fp);
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
static void json_key(struct kvm_events *kvm, struct kvm_events_key *key,
		     const struct table_totals *totals, FILE *fp)
{
	/* A vcpu whose id no event recorded is no vcpu 0: null. */
	if (kvm->opts.group == KVM_EVENTS_GROUP_VCPU && key->group == KVM_EVENTS_NO_VCPU)
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
		kvm_events_analysis__is_idle(kvm->report.analysis, key->key) ?
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
static void json_top(struct kvm_events *kvm, FILE *fp)
{
	const struct kvm_events_report *r = &kvm->report;
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

static void print_json(struct kvm_events *kvm, struct kvm_events_key **keys,
		       size_t nr, FILE *fp)
{
	const struct kvm_events_totals *t = &kvm->report.totals;
	char duration[32];
	struct table_totals totals = { 0, 0 };
	size_t i;
	int tp;

	snprintf(duration, sizeof(duration), "%g", kvm->duration_us);
	fprintf(fp, "{\n  \"input\": ");
	json_string(kvm->input, fp);
	fprintf(fp, ",\n  \"analysis\": \"%s\",\n  \"sort\": ",
		kvm_events_analysis__name(kvm->report.analysis));
	json_string(kvm->sort_name, fp);
	fprintf(fp, ",\n  \"group_by\": \"%s\",\n  \"filters\": {", group_names[kvm->opts.group]);
	json_filter("vcpu", kvm->vcpus, fp);
	fprintf(fp, ", ");
	json_filter("pid", kvm->pids, fp);
	fprintf(fp, ", ");
	json_filter("time", kvm->time, fp);
	fprintf(fp, ", ");
	json_filter("duration_us", kvm->duration_us > 0 ? duration : NULL, fp);
	fprintf(fp, "},\n  \"keys\": [\n");
	for (i = 0; i < nr; i++) {
		group_totals(keys, nr, i, &totals);
		json_key(kvm, keys[i], &totals, fp);
		fprintf(fp, "%s\n", i + 1 < nr ? "," : "");
	}
	fprintf(fp, "  ],\n");
	if (kvm->opts.top)
		json_top(kvm, fp);
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
static void print_csv(struct kvm_events *kvm, struct kvm_events_key **keys,
		      size_t nr, FILE *fp)
{
	const struct kvm_events_totals *t = &kvm->report.totals;
	struct table_totals totals = { 0, 0 };
	size_t i;

	fprintf(fp, "# input=%s analysis=%s sort=%s group_by=%s vcpu=%s pid=%s time=%s duration_us=%g\n",
		kvm->input, kvm_events_analysis__name(kvm->report.analysis),
		kvm->sort_name, group_names[kvm->opts.group],
		kvm->vcpus ?: "", kvm->pids ?: "", kvm->time ?: "", kvm->duration_us);
	fprintf(fp, "# read=%" PRIu64 " samples=%" PRIu64 " total_ns=%" PRIu64
		" no_end=%" PRIu64 " no_begin=%" PRIu64 " filtered=%" PRIu64
		" paired_ends=%" PRIu64 " other=%" PRIu64 " no_memory=%" PRIu64
		" lost_events=%" PRIu64
		" lost_chunks=%" PRIu64 " perf_record_lost=%" PRIu64
		" perf_record_lost_samples=%" PRIu64 " out_of_order=%" PRIu64 "\n",
		t->read, t->keyed, t->total_ns, t->no_end, t->no_begin, t->filtered,
		t->paired_end, t->unused, t->no_memory, kvm_events_totals__lost(t), t->lost_chunks,
		t->lost_events, t->lost_samples, t->out_of_order);
	fprintf(fp, "group,key,samples,timed,samples_pct,time_pct,total_ns,min_ns,max_ns,avg_ns,stddev_ns,p50_ns,p90_ns,p99_ns,p99.9_ns,idle\n");
	for (i = 0; i < nr; i++) {
		struct kvm_events_key *key = keys[i];

		group_totals(keys, nr, i, &totals);
		/* An unknown vcpu: an empty cell */
		if (kvm->opts.group != KVM_EVENTS_GROUP_VCPU || key->group != KVM_EVENTS_NO_VCPU)
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
			kvm_events_analysis__is_idle(kvm->report.analysis, key->key));
	}
}

static int print_report(struct kvm_events *kvm)
{
	struct kvm_events_key **keys;
	size_t nr;

	keys = kvm_events_report__sorted(&kvm->report, kvm->sort, &nr);
	if (!keys)
		return -ENOMEM;
	kvm_events_report__sort_top(&kvm->report);
	if (kvm->output == OUTPUT_JSON)
		print_json(kvm, keys, nr, stdout);
	else if (kvm->output == OUTPUT_CSV)
		print_csv(kvm, keys, nr, stdout);
	else
		print_tables(kvm, keys, nr, stdout);
	free(keys);
	/* What was left out is in the output; the report is still incomplete. */
	if (kvm->report.totals.no_memory) {
		pr_err("%s: out of memory: %" PRIu64 " samples left out, the report is incomplete\n",
		       kvm->input, kvm->report.totals.no_memory);
		return -ENOMEM;
	}
	return 0;
}

static const struct {
	const char		*name;
	enum kvm_events_sort	sort;
} sort_keys[] = {
	{ "sample", KVM_EVENTS_SORT_SAMPLE },
	{ "time", KVM_EVENTS_SORT_TIME },
	{ "mean", KVM_EVENTS_SORT_MEAN },
	{ "min", KVM_EVENTS_SORT_MIN },
	{ "max", KVM_EVENTS_SORT_MAX },
	{ "p99", KVM_EVENTS_SORT_P99 },
	{ "name", KVM_EVENTS_SORT_NAME },
};

#define SORT_KEY_NAMES	"sample, time, mean, min, max, p99, name"

static int parse_sort(struct kvm_events *kvm)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(sort_keys); i++) {
		if (!strcmp(kvm->sort_name, sort_keys[i].name)) {
			kvm->sort = sort_keys[i].sort;
			if (kvm->sort == KVM_EVENTS_SORT_P99)
				kvm->opts.percentiles = true;
			return 0;
		}
	}
	pr_err("perf kvm-events report: --key %s: unknown, expected one of %s\n",
	       kvm->sort_name, SORT_KEY_NAMES);
	return -EINVAL;
}

/* "0,2-5": ranges of vcpu ids, each bound 0..2^32-1 */
static int parse_vcpus(struct kvm_events *kvm)
{
	const char *p = kvm->vcpus;
	u32 (*ranges)[2] = NULL, nr = 0;

	while (p && *p) {
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
	kvm->opts.vcpu_ranges = ranges;
	kvm->opts.nr_vcpu_ranges = nr;
	return 0;
bad:
	free(ranges);
	pr_err("perf kvm-events report: --vcpu %s: expected vcpu ids (up to %u) and ranges, like 0,2-5\n",
	       kvm->vcpus, KVM_EVENTS_NO_VCPU - 1);
	return -EINVAL;
}

static int parse_report_options(struct kvm_events *kvm,
				const struct kvm_events_analysis **analysis)
{
	*analysis = kvm_events_analysis__find(kvm->event);
	if (!*analysis) {
		pr_err("perf kvm-events report: --event %s: unknown, expected one of %s\n",
		       kvm->event, kvm_events_analysis__names());
		return -EINVAL;
	}
	if (parse_sort(kvm) || parse_vcpus(kvm))
		return -EINVAL;
	if (kvm->pids) {
		kvm->opts.pids = valid_pid_list(kvm->pids) ? intlist__new(kvm->pids) : NULL;
		if (!kvm->opts.pids) {
			pr_err("perf kvm-events report: --pid %s: expected a list of process ids\n",
			       kvm->pids);
			return -EINVAL;
		}
	}
	if (kvm->duration) {
		char *end;

		/* In ns, it must fit a u64: up to about 213 days. */
		kvm->duration_us = strtod(kvm->duration, &end);
		if (end == kvm->duration || *end || !(kvm->duration_us >= 0) ||
		    !(kvm->duration_us * 1000 < (double)UINT64_MAX)) {
			pr_err("perf kvm-events report: --duration %s: expected microseconds from 0 to %" PRIu64 "\n",
			       kvm->duration, UINT64_MAX / 1000);
			return -EINVAL;
		}
	}
	kvm->opts.min_duration = kvm->duration_us * 1000;
	if (kvm->threads != THREADS_DEFAULT && (kvm->threads < 1 || kvm->threads > 2)) {
		pr_err("perf kvm-events report: --threads %d: expected 1 or 2\n", kvm->threads);
		return -EINVAL;
	}
	/* The second thread takes half the work, where there is a CPU for it. */
	if (kvm->threads == THREADS_DEFAULT)
		kvm->threads = sysconf(_SC_NPROCESSORS_ONLN) > 1 ? 2 : 1;
	if (kvm->top && parse_u32("report", "--top", kvm->top, 0, UINT32_MAX, &kvm->opts.top))
		return -EINVAL;
	if (kvm->per_vcpu && kvm->per_vm) {
		pr_err("perf kvm-events report: --per-vcpu and --per-vm: choose one\n");
		return -EINVAL;
	}
	kvm->opts.group = kvm->per_vcpu ? KVM_EVENTS_GROUP_VCPU :
			  kvm->per_vm ? KVM_EVENTS_GROUP_VM : KVM_EVENTS_GROUP_NONE;
	if (kvm->json && kvm->csv) {
		pr_err("perf kvm-events report: --json and --csv: choose one\n");
		return -EINVAL;
	}
	kvm->output = kvm->json ? OUTPUT_JSON : kvm->csv ? OUTPUT_CSV : OUTPUT_TABLE;
	if (kvm->output != OUTPUT_TABLE)
		kvm->opts.percentiles = kvm->opts.stddev = true;
	return parse_fields(kvm, kvm->fields ? kvm->fields :
			    kvm->stats ? STATS_FIELDS : DEFAULT_FIELDS);
}

/* Options, then the recording: a report ready to print */
static int kvm_events__load(struct kvm_events *kvm)
{
	const struct kvm_events_analysis *analysis;
	int ret = parse_report_options(kvm, &analysis);

	if (!ret)
		ret = open_session(kvm);
	if (!ret)
		ret = read_session(kvm, analysis);
	if (!ret)
		kvm_events_report__finish(&kvm->report);
	return ret;
}

static void kvm_events__exit(struct kvm_events *kvm)
{
	kvm_events_report__exit(&kvm->report);
	if (kvm->session)
		perf_session__delete(kvm->session);
	intlist__delete(kvm->opts.pids);
	free(kvm->opts.vcpu_ranges);
	free(kvm->opts.time_ranges);
}

static int kvm_events_report(int argc, const char **argv)
{
	struct kvm_events kvm = {
		.input		= "perf.data",
		.threads	= THREADS_DEFAULT,
		.event		= "vmexit",
		.sort_name	= "sample",
	};
	const struct option options[] = {
	OPT_STRING('i', "input", &kvm.input, "file", "input file name"),
	OPT_STRING(0, "event", &kvm.event, "event",
		   "what to analyse: vmexit (default), mmio, ioport, userspace, msr, hypercall, halt"),
	OPT_STRING(0, "vcpu", &kvm.vcpus, "vcpus",
		   "only these vcpu ids, e.g. 1 or 0,2-5"),
	OPT_STRING('k', "key", &kvm.sort_name, "sort-key",
		   "sort by: " SORT_KEY_NAMES " (default: sample)"),
	OPT_STRING('p', "pid", &kvm.pids, "pid[,pid...]",
		   "only these VM processes"),
	OPT_STRING(0, "time", &kvm.time, "str",
		   "only samples in these time windows: start,end in seconds or percent, as in perf report"),
	OPT_STRING(0, "duration", &kvm.duration, "us",
		   "only events that took at least this many microseconds"),
	OPT_BOOLEAN(0, "stats", &kvm.stats,
		    "show every statistic: " STATS_FIELDS),
	OPT_STRING(0, "fields", &kvm.fields, "fields",
		   "columns to show, any of: " STATS_FIELDS),
	OPT_BOOLEAN(0, "histogram", &kvm.opts.histogram,
		    "draw a log2 latency histogram of each key"),
	OPT_BOOLEAN(0, "per-vcpu", &kvm.per_vcpu, "one table per vcpu"),
	OPT_BOOLEAN(0, "per-vm", &kvm.per_vm, "one table per VM process"),
	OPT_STRING(0, "top", &kvm.top, "n", "list the N slowest events"),
	OPT_BOOLEAN(0, "split-idle", &kvm.split_idle,
		    "set idle exits (HLT) apart, out of Time%"),
	OPT_BOOLEAN(0, "json", &kvm.json, "print every statistic as JSON"),
	OPT_BOOLEAN(0, "csv", &kvm.csv, "print every statistic as CSV"),
	OPT_BOOLEAN('f', "force", &kvm.force, "don't complain, do it"),
	OPT_INTEGER(0, "threads", &kvm.threads,
		    "1: read and pair in one thread, 2 (default on SMP): read in a second one"),
	OPT_BOOLEAN(0, "generic-reader", &kvm.generic_reader,
		    "read through perf's session code, not the faster reader of the data section"),
	OPT_INCR('v', "verbose", &verbose, "be more verbose"),
	OPT_END()
	};
	const char * const usage[] = {
		"perf kvm-events report [<options>]",
		NULL
	};
	int ret;

	argc = parse_options(argc, argv, options, usage, 0);
	if (argc)
		usage_with_options(usage, options);

	ret = kvm_events__load(&kvm);
	if (!ret)
		ret = print_report(&kvm);
	kvm_events__exit(&kvm);
	return ret ? 1 : 0;
}

static void free_map_ptrs(struct hashmap *map)
{
	struct hashmap_entry *cur;
	size_t bkt;

	if (IS_ERR_OR_NULL(map))
		return;
	hashmap__for_each_entry(map, cur, bkt)
		free(cur->pvalue);
	hashmap__free(map);
}

/* The seconds between the first and the last sample of the recording */
/*
 * From the header's first and last sample times, or where it has none
 * (a pipe, perf record -B), from those of the kvm samples read.
 */
static double recording_seconds(struct kvm_events *kvm)
{
	struct evlist *evlist = kvm->session->evlist;
	u64 first = evlist->first_sample_time, last = evlist->last_sample_time;

	if (last <= first) {
		first = kvm->report.totals.first_time;
		last = kvm->report.totals.last_time;
	}
	return last > first ? (last - first) / 1e9 : 0;
}

struct diff_row {
	const char		*name;
	struct kvm_events_key	*old, *new;
	double			change;	/* of the time spent per second */
};

static double time_per_second(const struct kvm_events_key *key, double seconds)
{
	return key && seconds > 0 ? key->total_ns / seconds : 0;
}

static int compare_diff_rows(const void *a, const void *b)
{
	const struct diff_row *x = a, *y = b;

	if (fabs(x->change) != fabs(y->change))
		return fabs(x->change) < fabs(y->change) ? 1 : -1;
	return strcmp(x->name, y->name);
}

static void print_change(double old, double new, bool has_old, bool has_new)
{
	if (!has_old && !has_new)
		printf(" %9s", "-");
	else if (!has_old)
		printf(" %9s", "new");
	else if (!has_new)
		printf(" %9s", "gone");
	else if (old == 0)
		printf(" %9s", new == 0 ? "0.00%" : "-");
	else
		printf(" %+8.2f%%", (new - old) * 100 / old);
}

static void print_value(double value, bool has, const char *unit)
{
	if (has)
		printf(" %11.2f%s", value, unit);
	else
		printf(" %*s", 11 + (int)strlen(unit), "-");
}

static void print_diff_row(const struct diff_row *row, double old_s, double new_s)
{
	const struct kvm_events_key *o = row->old, *n = row->new;
	bool o_timed = o && o->timed, n_timed = n && n->timed;
	double o_rate = o && old_s > 0 ? o->samples / old_s : 0;
	double n_rate = n && new_s > 0 ? n->samples / new_s : 0;
	double o_mean = o_timed ? (double)o->total_ns / o->timed / 1000 : 0;
	double n_mean = n_timed ? (double)n->total_ns / n->timed / 1000 : 0;
	double o_p99 = o_timed ? kvm_events_key__percentile(o, 99) / 1000.0 : 0;
	double n_p99 = n_timed ? kvm_events_key__percentile(n, 99) / 1000.0 : 0;

	printf("%20s", row->name);
	print_value(o_rate, o && old_s > 0, "");
	print_value(n_rate, n && new_s > 0, "");
	print_change(o_rate, n_rate, o && old_s > 0, n && new_s > 0);
	print_value(o_mean, o_timed, "us");
	print_value(n_mean, n_timed, "us");
	print_change(o_mean, n_mean, o_timed, n_timed);
	print_value(o_p99, o_timed, "us");
	print_value(n_p99, n_timed, "us");
	print_change(o_p99, n_p99, o_timed, n_timed);
	printf("\n");
}

/* Both recordings' keys, joined by name, the largest change first */
static int print_diff(struct kvm_events *old, struct kvm_events *new)
{
	double old_s = recording_seconds(old), new_s = recording_seconds(new);
	struct kvm_events_key **o, **n;
	size_t nr_o, nr_n, nr = 0, i;
	struct diff_row *rows;

	o = kvm_events_report__sorted(&old->report, KVM_EVENTS_SORT_NAME, &nr_o);
	n = kvm_events_report__sorted(&new->report, KVM_EVENTS_SORT_NAME, &nr_n);
	rows = calloc(nr_o + nr_n + 1, sizeof(*rows));
	if (!o || !n || !rows) {
		free(o);
		free(n);
		free(rows);
		return -ENOMEM;
	}
	for (i = 0; i < nr_o; i++)
		rows[nr++] = (struct diff_row){ .name = o[i]->name, .old = o[i] };
	for (i = 0; i < nr_n; i++) {
		size_t j;

		for (j = 0; j < nr_o && strcmp(rows[j].name, n[i]->name); j++)
			;
		if (j == nr_o) {
			j = nr++;
			rows[j].name = n[i]->name;
		}
		rows[j].new = n[i];
	}
	for (i = 0; i < nr; i++)
		rows[i].change = time_per_second(rows[i].new, new_s) -
				 time_per_second(rows[i].old, old_s);
	qsort(rows, nr, sizeof(*rows), compare_diff_rows);

	printf("\n\nCompare %s (%.6fs) with %s (%.6fs):\n\n", old->input, old_s,
	       new->input, new_s);
	printf("%20s %11s %11s %9s %13s %13s %9s %13s %13s %9s\n\n",
	       kvm_events_analysis__column(old->report.analysis),
	       "Samples/s", "Samples/s", "Change", "Avg time", "Avg time", "Change",
	       "p99", "p99", "Change");
	for (i = 0; i < nr; i++)
		print_diff_row(&rows[i], old_s, new_s);
	printf("\nSorted by the change of the time spent per second of recording.\n");
	free(o);
	free(n);
	free(rows);
	return 0;
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

static int kvm_events_diff(int argc, const char **argv)
{
	struct kvm_events old = {
		.event = "vmexit", .sort_name = "sample", .threads = THREADS_DEFAULT,
	};
	struct kvm_events new;
	const struct option options[] = {
	OPT_STRING(0, "event", &old.event, "event",
		   "what to compare: vmexit (default), mmio, ioport, userspace, msr, hypercall, halt"),
	OPT_STRING(0, "vcpu", &old.vcpus, "vcpus",
		   "only these vcpu ids, e.g. 1 or 0,2-5"),
	OPT_STRING('p', "pid", &old.pids, "pid[,pid...]",
		   "only these VM processes"),
	OPT_BOOLEAN('f', "force", &old.force, "don't complain, do it"),
	OPT_INCR('v', "verbose", &verbose, "be more verbose"),
	OPT_END()
	};
	const char * const usage[] = {
		"perf kvm-events diff [<options>] <old file> <new file>",
		NULL
	};
	int ret;

	argc = parse_options(argc, argv, options, usage, 0);
	if (argc != 2)
		usage_with_options(usage, options);
	new = old;
	old.input = argv[0];
	new.input = argv[1];
	old.opts.percentiles = new.opts.percentiles = true;

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
 * live: perf kvm-events record writes to a pipe in a child, this process
 * reads it as a report does and prints, every --delay seconds, the last
 * interval and the totals so far.
 */
struct live {
	struct kvm_events	kvm;
	struct hashmap		*seen;		/* key -> its counts at the last print */
	u64			next_print;	/* CLOCK_MONOTONIC ns */
	u64			interval_ns;
	unsigned int		nr_prints;
	bool			clear;		/* a terminal: print in place */
};

struct key_counts {
	u64	samples;
	u64	timed;
	u64	total_ns;
};

static pid_t live_recorder;

/* Ctrl-C, or a SIGINT/SIGTERM to this process alone, stops the recorder. */
static void stop_recorder(int sig __maybe_unused)
{
	if (live_recorder > 0)
		kill(live_recorder, SIGINT);
}

/*
 * perf record ends by the SIGINT of a Ctrl-C, or the one stop_recorder()
 * sent: that is a clean stop.
 */
/* Does perf record get an -o, before the workload's -- ? */
static bool has_output_option(int argc, const char **argv)
{
	int i;

	for (i = 1; i < argc && strcmp(argv[i], "--"); i++) {
		if (!strncmp(argv[i], "-o", 2) || !strncmp(argv[i], "--output", 8))
			return true;
	}
	return false;
}

/* live__read(): the recorder ended before it wrote anything */
#define LIVE_RECORDER_FAILED	1

/* The exit status of live: perf record's, which is its workload's */
static int recorder_status(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return WIFSIGNALED(status) && WTERMSIG(status) == SIGINT ? 0 : 1;
}

static u64 monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static size_t ptr_hash(long key, void *ctx __maybe_unused)
{
	return (size_t)key >> 4;
}

static bool ptr_equal(long key1, long key2, void *ctx __maybe_unused)
{
	return key1 == key2;
}

/* What each key gained since the last print, as a table of its own */
static void print_interval(struct live *live, struct kvm_events_key **keys,
			   size_t nr)
{
	struct kvm_events_key *delta = calloc(nr ? nr : 1, sizeof(*delta));
	struct kvm_events_key **rows = calloc(nr ? nr : 1, sizeof(*rows));
	struct table_totals totals = { 0, 0 };
	struct kvm_events *kvm = &live->kvm;
	size_t i, nr_rows = 0;

	if (!delta || !rows)
		goto out;
	for (i = 0; i < nr; i++) {
		struct key_counts *was = NULL;

		hashmap__find(live->seen, keys[i], &was);
		delta[i] = *keys[i];
		delta[i].dist = NULL;
		delta[i].samples -= was ? was->samples : 0;
		delta[i].timed -= was ? was->timed : 0;
		delta[i].total_ns -= was ? was->total_ns : 0;
		if (!was) {
			was = zalloc(sizeof(*was));
			if (!was || hashmap__add(live->seen, keys[i], was)) {
				free(was);
				continue;
			}
		}
		was->samples = keys[i]->samples;
		was->timed = keys[i]->timed;
		was->total_ns = keys[i]->total_ns;
		if (delta[i].samples) {
			rows[nr_rows++] = &delta[i];
			totals.samples += delta[i].samples;
			totals.total_ns += delta[i].total_ns;
		}
	}
	printf("Last %.1fs:\n\n%20s %10s %13s %13s %15s\n\n", live->interval_ns / 1e9,
	       kvm_events_analysis__column(kvm->report.analysis), "Samples",
	       "Samples%", "Time%", "Avg time");
	for (i = 0; i < nr_rows; i++) {
		printf("%20s %10" PRIu64 " %12.2f%%", rows[i]->name, rows[i]->samples,
		       col_samples_share(rows[i], &totals));
		if (rows[i]->timed)
			printf(" %12.2f%% %12.2fus\n", col_time_share(rows[i], &totals),
			       col_avg(rows[i], &totals) / 1000);
		else
			printf(" %13s %14s\n", "-", "-");
	}
	printf("\nSamples:%" PRIu64 " in the last interval.\n", totals.samples);
out:
	free(delta);
	free(rows);
}

static void live__print(struct live *live)
{
	struct kvm_events *kvm = &live->kvm;
	struct kvm_events_key **keys;
	size_t nr;

	keys = kvm_events_report__sorted(&kvm->report, kvm->sort, &nr);
	if (!keys)
		return;
	if (live->clear)
		printf("\033[H\033[2J");
	printf("perf kvm-events live, refresh %u:\n\n", ++live->nr_prints);
	print_interval(live, keys, nr);
	printf("\nSince the start:");
	print_tables(kvm, keys, nr, stdout);
	fflush(stdout);
	free(keys);
}

static void live__tick(struct live *live)
{
	u64 now = monotonic_ns();

	if (now < live->next_print)
		return;
	live->next_print = now + live->interval_ns;
	live__print(live);
}

static int live_sample(const struct perf_tool *tool, union perf_event *event,
		       struct perf_sample *sample, struct evsel *evsel,
		       struct machine *machine)
{
	struct live *live = container_of(tool, struct live, kvm.tool);
	int ret = process_sample(tool, event, sample, evsel, machine);

	live__tick(live);
	return ret;
}

/* perf record flushes at least every round: refresh when events are few. */
static int live_round(const struct perf_tool *tool, union perf_event *event,
		      struct ordered_events *oe)
{
	struct live *live = container_of(tool, struct live, kvm.tool);
	int ret = perf_event__process_finished_round(tool, event, oe);

	live__tick(live);
	return ret;
}

/*
 * Waits for the recorder's first bytes: false if it ended without any.
 * Then it failed to start, and said why itself.
 */
static bool recorder_started(void)
{
	struct pollfd pfd = { .fd = STDIN_FILENO, .events = POLLIN };
	int avail = 0;

	while (poll(&pfd, 1, -1) < 0 && errno == EINTR)
		;
	return ioctl(STDIN_FILENO, FIONREAD, &avail) || avail > 0 ||
	       !(pfd.revents & POLLHUP);
}

static int live__read(struct live *live)
{
	struct kvm_events *kvm = &live->kvm;
	const struct kvm_events_analysis *analysis;
	int ret = parse_report_options(kvm, &analysis);

	if (!ret)
		ret = kvm_events_report__init(&kvm->report, analysis, &kvm->opts);
	if (!ret && !recorder_started())
		return LIVE_RECORDER_FAILED;
	if (!ret)
		ret = open_session(kvm);
	if (ret)
		return ret;
	kvm->tool.sample = live_sample;
	kvm->tool.finished_round = live_round;
	kvm->generic_reader = true;
	ret = read_events(kvm);
	free_decoders(kvm->session->evlist);
	if (!ret && !has_kvm_tracepoints(kvm->session->evlist)) {
		pr_err("perf kvm-events live: the recording holds no kvm tracepoint\n");
		ret = -EINVAL;
	}
	if (!ret) {
		kvm_events_report__finish(&kvm->report);
		live__print(live);
	}
	return ret;
}

static int kvm_events_live(int argc, const char **argv)
{
	struct live live = {
		.kvm = {
			.input		= "-",
			.threads	= THREADS_DEFAULT,
			.event		= "vmexit",
			.sort_name	= "sample",
		},
	};
	struct kvm_events *kvm = &live.kvm;
	const char *delay_arg = NULL;
	u32 delay = 1;
	const struct option options[] = {
	OPT_STRING('d', "delay", &delay_arg, "secs", "seconds between refreshes (default: 1)"),
	OPT_STRING(0, "event", &kvm->event, "event",
		   "what to analyse: vmexit (default), mmio, ioport, userspace, msr, hypercall, halt"),
	OPT_STRING(0, "vcpu", &kvm->vcpus, "vcpus",
		   "only these vcpu ids, e.g. 1 or 0,2-5"),
	OPT_STRING('k', "key", &kvm->sort_name, "sort-key",
		   "sort by: " SORT_KEY_NAMES " (default: sample)"),
	OPT_STRING(0, "duration", &kvm->duration, "us",
		   "only events that took at least this many microseconds"),
	OPT_STRING(0, "fields", &kvm->fields, "fields",
		   "columns of the totals, any of: " STATS_FIELDS),
	OPT_BOOLEAN(0, "split-idle", &kvm->split_idle,
		    "set idle exits (HLT) apart, out of Time%"),
	OPT_END()
	};
	const char * const usage[] = {
		"perf kvm-events live [<options>] [<record options>] [-- <command>]",
		NULL
	};
	int pipefd[2], status, ret;
	pid_t child;

	argc = parse_options(argc, argv, options, usage,
			     PARSE_OPT_KEEP_UNKNOWN | PARSE_OPT_KEEP_DASHDASH |
			     PARSE_OPT_KEEP_ARGV0);
	if (delay_arg && parse_u32("live", "--delay", delay_arg, 1, 86400, &delay))
		return 1;
	if (has_output_option(argc, argv)) {
		pr_err("perf kvm-events live: -o: live records into a pipe of its own; to keep a recording, use perf kvm-events record -o\n");
		return 1;
	}
	live.interval_ns = delay * 1000000000ULL;
	live.next_print = monotonic_ns() + live.interval_ns;
	live.clear = isatty(STDOUT_FILENO);
	live.seen = hashmap__new(ptr_hash, ptr_equal, NULL);
	if (IS_ERR(live.seen) || pipe(pipefd))
		return 1;

	fflush(stdout);
	child = fork();
	if (child < 0)
		return 1;
	if (!child) {
		/* The recorder: its perf.data goes down the pipe. */
		dup2(pipefd[1], STDOUT_FILENO);
		close(pipefd[0]);
		close(pipefd[1]);
		argv[0] = "record";
		ret = kvm_events_record_to(argc, argv, kvm->event, "-");
		exit(ret < 0 ? 1 : ret);
	}
	/* The recorder's end of stream ends this: print until then. */
	live_recorder = child;
	signal(SIGINT, stop_recorder);
	signal(SIGTERM, stop_recorder);
	dup2(pipefd[0], STDIN_FILENO);
	close(pipefd[0]);
	close(pipefd[1]);

	ret = live__read(&live);
	kvm_events__exit(kvm);
	free_map_ptrs(live.seen);
	waitpid(child, &status, 0);
	if (ret && ret != LIVE_RECORDER_FAILED)
		return 1;
	return recorder_status(status) ?: ret;
}

int cmd_kvm_events(int argc, const char **argv)
{
	const char * const usage[] = {
		"perf kvm-events record [<record options>] [-- <command>]",
		"perf kvm-events report [<options>]",
		"perf kvm-events diff [<options>] <old file> <new file>",
		"perf kvm-events live [<options>] [<record options>] [-- <command>]",
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
	if (!strcmp(argv[0], "diff"))
		return kvm_events_diff(argc, argv);
	if (!strcmp(argv[0], "live"))
		return kvm_events_live(argc, argv);

	pr_err("perf kvm-events: unknown command '%s'\n", argv[0]);
	usage_with_options(usage, options);
	return 1;
}
