// SPDX-License-Identifier: GPL-2.0
/*
 * kvm_events_read(): how an input is read.  By kvm-events' own reader
 * (kvm-events-reader.c) where it can, saying why not where it cannot; a
 * file's data section, a stream, or a --threads directory
 * (kvm-events-reader-dir.c); in one thread, or in a reading and a pairing
 * thread; a large file in two parts at once (kvm-events-reader-parts.c).
 * The readers below it never call back up here.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>
#include <linux/kernel.h>

#include "data.h"
#include "debug.h"
#include "evlist.h"
#include "evsel.h"
#include "header.h"
#include "kvm-events.h"
#include "kvm-events-input.h"
#include "kvm-events-pipeline.h"
#include "kvm-events-queue.h"
#include "kvm-events-reader.h"
#include "session.h"

/* A file's data section, up to where the file ends if it was cut short */
static int reader__read_section(struct reader *r)
{
	u64 end = reader__data_end(r);
	u64 split = reader__split_point(r, end);

	if (split)
		return reader__read_parts(r, end, split);
	return reader__read_fd(r, r->offset, end - r->offset);
}

/* A stream's records, after the 16 bytes of its header */
static int reader__read_stream(struct reader *r)
{
	off_t pos = lseek(r->fd, 0, SEEK_CUR);

	/* A pipe cannot tell where it is. */
	if (pos == (off_t)-1)
		pos = sizeof(struct perf_pipe_file_header);
	return reader__read_fd(r, pos, (u64)-1);
}

static int reader__read(struct reader *r)
{
	int ret;

	if (r->stream)
		ret = reader__read_stream(r);
	else if (perf_data__is_dir(r->session->data))
		ret = reader__read_dir(r);
	else
		ret = reader__read_section(r);
	/* With two threads, the pairing one flushes after the last batch. */
	if (!ret && !r->pipe)
		kvm_events_queue__flush(&r->queue, r->report, (u64)-1);
	return ret;
}

static void *reading_thread(void *arg)
{
	struct reader *r = arg;

	kvm_events_pipeline__publish(r->pipe, reader__read(r), true);
	return NULL;
}

/* The pairing thread's side of a decoded sample or round end */
static int reader__order(struct reader *r, const struct kvm_events_sample *item)
{
	struct kvm_events_sample *s;

	if (item->tp == ROUND_END) {
		kvm_events_queue__round_end(&r->queue, r->report);
		return 0;
	}
	if (item->tp == RESTART)
		return reader__forget(r);
	s = kvm_events_queue__slot(&r->queue);
	if (!s)
		return -ENOMEM;
	*s = *item;
	kvm_events_queue__push(&r->queue, s);
	return 0;
}

/* Orders and pairs what the reading thread decodes, batch by batch. */
static int reader__consume_batches(struct reader *r)
{
	int ret = 0;

	for (;;) {
		struct kvm_events_batch *b = kvm_events_pipeline__wait(r->pipe);
		bool last = b->last;
		size_t i;

		for (i = 0; !ret && i < b->nr; i++)
			ret = reader__order(r, &b->items[i]);
		if (!ret)
			ret = b->err;
		if (last && !ret)
			kvm_events_queue__flush(&r->queue, r->report, (u64)-1);
		/* On an error, the reading thread stops at its next batch. */
		kvm_events_pipeline__done(r->pipe, ret);
		if (last)
			return ret;
	}
}

static int reader__run_threaded(struct reader *r)
{
	struct kvm_events_pipeline *p = kvm_events_pipeline__new();
	pthread_t thread;
	int ret;

	if (!p)
		return -ENOMEM;
	r->pipe = p;
	ret = pthread_create(&thread, NULL, reading_thread, r);
	if (ret) {
		r->pipe = NULL;
		ret = reader__read(r);
	} else {
		ret = reader__consume_batches(r);
		pthread_join(thread, NULL);
		r->pipe = NULL;
	}
	kvm_events_pipeline__delete(p);
	return ret;
}

/* Why the session code must read this session, or NULL */
static const char *reader__cannot_read(struct perf_session *session)
{
	struct evsel *evsel;

	if (session->header.needs_swap)
		return "its byte order is not this host's";
	if (perf_header__has_feat(&session->header, HEADER_COMPRESSED))
		return "its data is compressed";
	if (perf_header__has_feat(&session->header, HEADER_AUXTRACE))
		return "it holds AUX area data";
	if (sizeof(size_t) != sizeof(u64))
		return "this perf is a 32-bit program";
	evlist__for_each_entry(session->evlist, evsel) {
		if (evsel__is_bpf_output(evsel))
			return "it holds bpf-output events (record --use-bpf)";
	}
	return NULL;
}

static const char *input_kind(struct perf_data *data)
{
	if (perf_data__is_pipe(data))
		return "stream";
	return perf_data__is_dir(data) ? "directory" : "file";
}

/*
 * Threads: 1 (or 0, the default) reads and pairs in the caller, 2 reads
 * in a thread of its own.
 */
int kvm_events_read(struct kvm_events_input *input,
		    struct kvm_events_report *report, bool *handled)
{
	struct perf_session *session = input->session;
	struct perf_data *data = session->data;
	struct reader r = {
		.report		= report,
		.input		= input,
		.session	= session,
		.machine	= &session->machines.host,
		.path		= strcmp(data->path, "-") ? data->path : "standard input",
		.fd		= perf_data__fd(data),
		.offset		= session->header.data_offset,
		.size		= session->header.data_size,
		.no_rounds	= perf_data__is_dir(data),
		.stream		= perf_data__is_pipe(data),
		.pass_width	= UINT64_MAX,
	};
	const char *why = reader__cannot_read(session);
	int i, ret = 0;

	*handled = false;
	/* A stream's attributes come with its events. */
	if (perf_data__is_pipe(data))
		r.stale = true;
	else if (!why)
		ret = reader__init_layouts(&r, session->evlist, &why);
	if (ret < 0 || why) {
		if (why)
			pr_debug("%s: read by perf's session code: %s\n", r.path, why);
		reader__free_layouts(&r);
		return ret < 0 ? ret : 0;
	}
	*handled = true;
	pr_debug("%s: read by kvm-events' own reader, as a %s\n", r.path, input_kind(data));
	kvm_events_queue__init(&r.queue);
	r.one_part = reader__one_part(input, report);
	if (input->threads > 1)
		ret = reader__run_threaded(&r);
	else
		ret = reader__read(&r);
	report->totals.lost_events += r.lost_events;
	report->totals.lost_chunks += r.lost_chunks;
	report->totals.lost_samples += r.lost_samples;
	for (i = 0; i < KVM_TP__NR; i++)
		kvm_events_report__skip(report, i, r.skipped[i]);
	kvm_events_report__skip_other(report, r.other_events);
	report->totals.switch_records += r.idle_switches;
	report->totals.out_of_order += r.queue.out_of_order;
	if (r.queue.run_after_run || r.queue.thread_by_thread || r.queue.merged)
		pr_debug("%s: flushes of several runs: %" PRIu64 " handed over run after run, %"
			 PRIu64 " thread by thread, %" PRIu64 " through the merge\n",
			 r.path, r.queue.run_after_run, r.queue.thread_by_thread, r.queue.merged);
	if (r.idle_switches)
		pr_debug("%s: %" PRIu64 " switch records of the idle task counted, not ordered\n",
			 r.path, r.idle_switches);
	if (r.unknown_id)
		pr_warning("%s: %" PRIu64 " samples have an id of no recorded event; not read\n",
			   r.path, r.unknown_id);
	if (ret == -ENOMEM)
		pr_err("%s: out of memory while reading the events\n", r.path);
	reader__free_layouts(&r);
	kvm_events_queue__exit(&r.queue);
	return ret;
}
