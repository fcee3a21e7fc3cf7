// SPDX-License-Identifier: GPL-2.0
/*
 * perf kvm-events: one recording read into a report (see
 * kvm-events-session.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <linux/bitops.h>
#include <linux/err.h>
#include <linux/kernel.h>
#include <linux/zalloc.h>

#include "debug.h"
#include "env.h"
#include "event.h"
#include "evlist.h"
#include "evsel.h"
#include "header.h"
#include "intlist.h"
#include "kvm-events-analysis.h"
#include "kvm-events-bpf-recording.h"
#include "kvm-events-heatmap.h"
#include "kvm-events-sched.h"
#include "kvm-events-session.h"
#include "kvm-events-vms.h"
#include "kvm-events-vms-file.h"
#include "sample.h"
#include "session.h"
#include "time-utils.h"

/* evsel->priv of an evsel that is no kvm tracepoint the analyses read */
static struct kvm_events_decoder not_kvm;
/* ...and of record --use-bpf's event of the analysis reported */
static struct kvm_events_decoder bpf_records;

static const struct kvm_events_decoder *evsel_decoder(struct kvm_events_input *input,
						      struct evsel *evsel);
static int add_bpf_sample(struct kvm_events_recording *kvm, struct evsel *evsel,
			  struct perf_sample *sample);

static int process_sample(const struct perf_tool *tool,
			  union perf_event *event __maybe_unused,
			  struct perf_sample *sample, struct evsel *evsel,
			  struct machine *machine __maybe_unused)
{
	struct kvm_events_recording *kvm = container_of(tool, struct kvm_events_recording, tool);
	const struct kvm_events_decoder *dec = evsel_decoder(&kvm->in, evsel);
	struct kvm_events_sample s;

	if (IS_ERR(dec))
		return PTR_ERR(dec);
	if (!dec) {
		kvm_events_report__skip_other(&kvm->report, 1);
		return 0;
	}
	if (dec == &bpf_records)
		return add_bpf_sample(kvm, evsel, sample);
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
	struct kvm_events_recording *kvm = container_of(tool, struct kvm_events_recording, tool);
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
	struct kvm_events_recording *kvm = container_of(tool, struct kvm_events_recording, tool);

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
	struct kvm_events_recording *kvm = container_of(tool, struct kvm_events_recording, tool);

	kvm->report.totals.lost_events += event->lost.lost;
	kvm->report.totals.lost_chunks++;
	return 0;
}

static int process_lost_samples(const struct perf_tool *tool,
				union perf_event *event,
				struct perf_sample *sample __maybe_unused,
				struct machine *machine __maybe_unused)
{
	struct kvm_events_recording *kvm = container_of(tool, struct kvm_events_recording, tool);

	kvm->report.totals.lost_samples += event->lost_samples.lost;
	return 0;
}

/*
 * record --use-bpf's events: that of the analysis reported, named
 * @analysis; in a pipe or a recording whose perf record was killed before
 * it named its events, each unnamed bpf-output event, whose dumps say its
 * analysis.
 */
static int setup_bpf_records(struct kvm_events_recording *kvm, struct evsel *evsel,
			     const char *analysis)
{
	struct kvm_events_bpf_source *src = &kvm->bpf[kvm->nr_bpf];

	if (analysis && strcmp(analysis, kvm->analysis->name)) {
		kvm->bpf_other = true;
		return 0;
	}
	if (kvm->nr_bpf == ARRAY_SIZE(kvm->bpf))
		return 0;
	src->rec = kvm_events_bpf_recording__new(kvm->input);
	if (!src->rec)
		return -ENOMEM;
	src->evsel = evsel;
	kvm->nr_bpf++;
	evsel->priv = &bpf_records;
	return 1;
}

static int add_bpf_sample(struct kvm_events_recording *kvm, struct evsel *evsel,
			  struct perf_sample *sample)
{
	u32 i;

	for (i = 0; i < kvm->nr_bpf; i++) {
		if (kvm->bpf[i].evsel == evsel)
			return kvm_events_bpf_recording__add(kvm->bpf[i].rec, &kvm->report, sample);
	}
	return 0;
}

/* The report's from the source whose last whole dump is of its analysis */
static int finish_bpf(struct kvm_events_recording *kvm)
{
	bool dumped = false;
	const char *name;
	u32 i;

	for (i = 0; i < kvm->nr_bpf; i++) {
		name = kvm_events_bpf_recording__dumped(kvm->bpf[i].rec);
		if (name && !strcmp(name, kvm->analysis->name))
			return kvm_events_bpf_recording__finish(kvm->bpf[i].rec, &kvm->report);
		dumped |= name != NULL;
	}
	if (!dumped)
		return kvm_events_bpf_recording__finish(kvm->bpf[0].rec, &kvm->report);
	pr_err("%s: recorded with --use-bpf for other analyses than %s; record with: perf kvm-events record --use-bpf --event %s\n",
	       kvm->input, kvm->analysis->name, kvm->analysis->name);
	return -EINVAL;
}

/* Gives @evsel its decoder; returns 1 for a kvm one, 0 for another. */
static int setup_decoder(struct kvm_events_recording *kvm, struct evsel *evsel)
{
	const char *analysis;
	struct kvm_events_decoder *dec;
	bool unnamed;
	int err;

	/* A stream's tracing data may come after its attributes: ask again. */
	if (evsel->core.attr.type == PERF_TYPE_TRACEPOINT && !evsel->tp_format)
		return 0;
	evsel->priv = &not_kvm;
	/* Before evsel__name() makes one up: a pipe or a killed perf record names none */
	unnamed = evsel__is_bpf_output(evsel) && !evsel->name;
	analysis = kvm_events_bpf_recording__analysis(evsel);
	if (analysis || unnamed)
		return setup_bpf_records(kvm, evsel, analysis);
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
	kvm_events_decoder__default_isa(dec,
		kvm_events_isa_from_cpuid(perf_env__cpuid(&kvm->session->header.env)));
	evsel->priv = dec;
	return 1;
}

/* Returns how many kvm evsels there are. */
static int setup_decoders(struct kvm_events_recording *kvm, struct evlist *evlist)
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
	struct kvm_events_recording *kvm = container_of(input, struct kvm_events_recording, in);

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
		if (evsel->priv == &bpf_records)
			return true;
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
		if (evsel->priv != &not_kvm && evsel->priv != &bpf_records)
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

static int parse_time_option(struct kvm_events_recording *kvm)
{
	const char *ranges = kvm->time;
	int size = 0, num = 0;

	if (!ranges)
		return 0;
	/* Percents are of the span the header gives: a pipe's has none. */
	if (strchr(ranges, '%') &&
	    kvm->session->evlist->last_sample_time <= kvm->session->evlist->first_sample_time) {
		pr_err("perf kvm-events %s: --time %s: %s has no first and last sample times (recorded to a pipe, or with -B): give the range in seconds\n",
		       kvm->cmd, ranges, kvm->input);
		return -EINVAL;
	}
	if (perf_time__parse_for_ranges(ranges, kvm->session,
					&kvm->opts.time_ranges, &size, &num)) {
		pr_err("perf kvm-events %s: --time %s: expected start,end in seconds or percents, as perf report takes it\n",
		       kvm->cmd, ranges);
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
static void warn_if_cut_short(struct kvm_events_recording *kvm)
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

static int recording__open(struct kvm_events_recording *kvm)
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
static int read_events(struct kvm_events_recording *kvm)
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
static u32 recorded_tps(struct kvm_events_recording *kvm)
{
	const struct kvm_events_decoder *dec;
	struct evsel *evsel;
	u32 tps = 0;

	evlist__for_each_entry(kvm->session->evlist, evsel) {
		dec = evsel_decoder(&kvm->in, evsel);
		if (!IS_ERR_OR_NULL(dec) && dec != &bpf_records)
			tps |= BIT(dec->tp);
	}
	return tps;
}

/* An empty table should say why: the recording lacks the events. */
static void warn_missing_tracepoints(struct kvm_events_recording *kvm,
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
static int observe_heatmap(struct kvm_events_recording *kvm)
{
	struct evlist *evlist = kvm->session->evlist;

	kvm->heatmap = kvm_events_heatmap__new(evlist->first_sample_time,
					       evlist->last_sample_time);
	if (!kvm->heatmap)
		return -ENOMEM;
	kvm->report.observer = &kvm->heatmap->observer;
	return 0;
}

static int add_taken_vm(const struct kvm_events_vm *vm, void *arg)
{
	struct kvm_events_recording *kvm = arg;

	if (!kvm_events_vm_filter__takes(kvm->vm_filter, vm, vm->pid))
		return 0;
	return kvm_events_pids__add(kvm->vm_pids, vm->pid);
}

/*
 * --vm: the pids of the VMs it takes, as the header names them, and those
 * it gives; a pid -p leaves out stays out.
 */
static int select_vms(struct kvm_events_recording *kvm)
{
	struct int_node *node, *next;
	int err;

	if (!kvm->vm_filter)
		return 0;
	kvm->vm_pids = intlist__new(NULL);
	if (!kvm->vm_pids)
		return -ENOMEM;
	err = kvm_events_vm_filter__add_pids(kvm->vm_filter, kvm->vm_pids);
	if (!err && kvm->vms)
		err = kvm_events_vms__for_each(kvm->vms, add_taken_vm, kvm);
	if (err)
		return err;
	for (node = intlist__first(kvm->vm_pids); node; node = next) {
		next = intlist__next(node);
		if (kvm->opts.pids && !intlist__has_entry(kvm->opts.pids, node->i))
			intlist__remove(kvm->vm_pids, node);
	}
	kvm->opts.pids = kvm->vm_pids;
	return 0;
}

/* The kernel counted the whole recording, and kept no time of each event. */
static int check_bpf_options(struct kvm_events_recording *kvm)
{
	const char *option = kvm->time ? "--time" : kvm->opts.heatmap ? "--heatmap" :
			     kvm->opts.site ? "--key rip and sym" : NULL;

	if (!option)
		return 1;
	pr_err("%s: %s: not for a recording made with --use-bpf, which holds the kernel's counts of its whole span\n",
	       kvm->input, option);
	return -EINVAL;
}

static int recording__read(struct kvm_events_recording *kvm,
			   const struct kvm_events_analysis *analysis)
{
	struct perf_session *session = kvm->session;
	bool pipe = perf_data__is_pipe(session->data);
	int ret;

	kvm->analysis = analysis;
	ret = pipe ? 1 : setup_decoders(kvm, session->evlist);
	kvm->opts.sched = switches_recorded(session->evlist);
	/* A pipe's evsels come with its events: the switches' one too. */
	if (pipe)
		kvm->tool.attr = process_attr;
	if (ret == 0 && kvm->bpf_other) {
		pr_err("%s: recorded with --use-bpf for other analyses than %s; record with: perf kvm-events record --use-bpf --event %s\n",
		       kvm->input, analysis->name, analysis->name);
		ret = -EINVAL;
	} else if (ret == 0) {
		pr_err("%s: no kvm tracepoints recorded; record with: perf kvm-events record\n",
		       kvm->input);
		ret = -EINVAL;
	}
	if (ret > 0 && kvm->nr_bpf)
		ret = check_bpf_options(kvm);
	if (ret > 0)
		ret = parse_time_option(kvm);
	if (!ret) {
		kvm->vms = kvm_events_vms__from_header(session, kvm->input);
		ret = select_vms(kvm);
	}
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
	if (!ret && kvm->nr_bpf)
		ret = finish_bpf(kvm);
	else if (!ret)
		warn_missing_tracepoints(kvm, analysis);
	free_decoders(session->evlist);
	return ret;
}

int kvm_events_recording__load(struct kvm_events_recording *rec,
			       const struct kvm_events_analysis *analysis)
{
	int ret = recording__open(rec);

	if (!ret)
		ret = recording__read(rec, analysis);
	if (!ret)
		kvm_events_report__finish(&rec->report);
	return ret;
}

void kvm_events_recording__exit(struct kvm_events_recording *rec)
{
	u32 i;

	kvm_events_report__exit(&rec->report);
	kvm_events_heatmap__delete(rec->heatmap);
	for (i = 0; i < rec->nr_bpf; i++)
		kvm_events_bpf_recording__delete(rec->bpf[i].rec);
	kvm_events_vms__delete(rec->vms);
	intlist__delete(rec->vm_pids);
	if (rec->session)
		perf_session__delete(rec->session);
	free(rec->opts.time_ranges);
}
