// SPDX-License-Identifier: GPL-2.0
/*
 * A large file read in two parts at once, for the reader of perf.data
 * (kvm-events-reader.c): a second thread reads from the first round end
 * past the middle of the data to its end, into a report of its own, while
 * the first reads up to there; the reports are then joined
 * (kvm-events-join.c).
 *
 * The split point is a guess, a round end's header found in the bytes:
 * the first part checks it, and the rounds around it against perf's
 * ordering rule.  Where anything does not hold, the first part reads on
 * into the second, exactly as one reader would; -v says which, and why.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/kernel.h>
#include <perf/event.h>

#include "debug.h"
#include "kvm-events.h"
#include "kvm-events-input.h"
#include "kvm-events-queue.h"
#include "kvm-events-reader.h"

/* The CPUs this process may run on: taskset(1) may leave it one. */
static int usable_cpus(void)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set))
		return sysconf(_SC_NPROCESSORS_ONLN);
	return CPU_COUNT(&set);
}

/*
 * Why a file is read in one part whatever its size, or NULL.  --top and
 * --heatmap keep each event, in time order, in one report.  On one CPU,
 * two parts would take turns and add the cost of joining them.
 */
const char *reader__one_part(const struct kvm_events_input *input,
			     const struct kvm_events_report *report)
{
	if (input->threads)
		return input->threads == 1 ? "--threads 1" :
		       "--threads 2, a reading and a pairing thread";
	if (report->opts.top)
		return "--top";
	if (report->opts.heatmap)
		return "--heatmap";
	return usable_cpus() > 1 ? NULL : "one CPU to run on";
}

/* A file is read in two parts at once from this size of data on. */
#define SPLIT_MIN_BYTES		(64ULL << 20)
/*
 * How far past the middle a round end is looked for, a chunk at a time:
 * perf record writes one after each pass over all the ring buffers, so a
 * round holds up to what they all hold, megabytes each on a big host.
 */
#define SPLIT_SEARCH_BYTES	(64U << 20)
/*
 * Most rounds end in the first chunk.  Small enough to come from the
 * heap: a buffer of 1 MiB was mapped afresh, and its 256 page faults
 * cost 2.5 ms of a 1M-exit report on a guest, where a fault costs 10 us.
 */
#define SPLIT_CHUNK_BYTES	(64U << 10)

/* Where the first round end in @buf, read from @at, ends; 0 if none */
static u64 round_end_in(const u64 *buf, size_t n, u64 at)
{
	size_t i;

	for (i = 0; i < n / 8; i++) {
		struct perf_event_header h;

		memcpy(&h, &buf[i], sizeof(h));
		if (h.type == PERF_RECORD_FINISHED_ROUND && h.size == sizeof(h) && !h.misc)
			return at + (i + 1) * 8;
	}
	return 0;
}

/*
 * After the first round end past the middle, 0 if there is none there.
 * Records are not marked in the file, so this is a guess: the first part
 * checks it by reading up to it.
 */
static u64 reader__round_end_past_middle(struct reader *r, u64 end)
{
	u64 from = r->offset + (end - r->offset) / 2 / 8 * 8, *buf, found = 0;
	u64 stop = min_t(u64, end, from + SPLIT_SEARCH_BYTES);
	ssize_t n;

	buf = malloc(SPLIT_CHUNK_BYTES);
	if (!buf)
		return 0;
	for (; !found && from < stop; from += n) {
		n = pread(r->fd, buf, min_t(u64, SPLIT_CHUNK_BYTES, stop - from), from);
		if (n < 8)
			break;
		n &= ~7L;
		found = round_end_in(buf, n, from);
	}
	free(buf);
	return found < end ? found : 0;
}

/* Where the second part starts; 0, and -v says why, for one part */
u64 reader__split_point(struct reader *r, u64 end)
{
	const char *why = r->one_part;
	u64 split = 0;

	if (!why && end - r->offset < SPLIT_MIN_BYTES)
		why = "under 64 MiB of data";
	if (!why) {
		split = reader__round_end_past_middle(r, end);
		if (!split)
			why = "no round end within 64 MiB past the middle";
	}
	if (why)
		pr_debug("%s: read in one part: %s\n", r->path, why);
	return split;
}

/* The second part of a file, in a thread of its own */
struct reader_part {
	struct reader			r;
	struct kvm_events_report	report;
	struct record_input		in;
	int				ret;
};

static void *reader__part_thread(void *arg)
{
	struct reader_part *part = arg;

	part->ret = record_input__rewind(&part->in);
	if (!part->ret)
		part->ret = reader__read_input(&part->r, &part->in);
	/* Cut in a record: the first part's reading tells. */
	if (!part->ret && part->in.len > part->in.head)
		part->ret = -EINVAL;
	if (!part->ret)
		kvm_events_queue__flush(&part->r.queue, part->r.report, (u64)-1);
	return NULL;
}

static int reader_part__init(struct reader_part *part, struct reader *r, u64 start, u64 size)
{
	const struct kvm_events_report *report = r->report;
	int ret;

	part->r = *r;
	part->r.report = &part->report;
	part->r.second_part = true;
	memset(part->r.skipped, 0, sizeof(part->r.skipped));
	part->r.other_events = part->r.unknown_id = part->r.lost_events = 0;
	part->r.idle_switches = 0;
	part->r.lost_chunks = part->r.lost_samples = 0;
	kvm_events_queue__init(&part->r.queue);
	ret = kvm_events_queue__keep_rounds(&part->r.queue);
	part->r.fd = open(r->path, O_RDONLY);
	if (!ret && part->r.fd < 0)
		ret = -errno;
	if (!ret)
		ret = kvm_events_report__init(&part->report, report->analysis, &report->opts);
	if (!ret)
		ret = kvm_events_report__second_part(&part->report);
	if (!ret)
		ret = record_input__init(&part->in, part->r.fd, r->path, start, size,
					 RECORD_INPUT_BUF_SIZE, false);
	part->in.quiet = true;
	return ret;
}

static void reader_part__exit(struct reader_part *part)
{
	record_input__exit(&part->in);
	kvm_events_report__exit(&part->report);
	kvm_events_queue__exit(&part->r.queue);
	close(part->r.fd);
}

/*
 * Why the parts cannot be joined as if one reader had read both, or
 * NULL: the first must have read up to the second's start, both without
 * an error, and one queue would have delivered the second's samples in
 * the order it did.
 */
static const char *reader__cannot_join(struct reader *r, struct record_input *in,
				       struct reader_part *part)
{
	if (part->ret == READER_NOT_ALONE)
		return "the second part has a COMM record";
	if (in->len > in->head)
		return "no record starts where the second part was to";
	if (part->ret)
		return "the second part cannot be read alone";
	if (!kvm_events_queue__follows(&part->r.queue, &r->queue))
		return "the samples around the parts' boundary are out of order";
	if (!kvm_events_report__can_join(&part->report))
		return "the second part holds too many samples back";
	return NULL;
}

/*
 * The first part's queue takes the samples the second held back that may
 * be due before some of its own: its first round, and what came before
 * the first part's latest sample.  The second's report is joined to it
 * once they are delivered.
 */
static int reader__join(struct reader *r, struct reader_part *part)
{
	const struct kvm_events_queue *q = &part->r.queue;
	const struct kvm_events_sample *held;
	size_t nr;
	int i, ret;

	nr = kvm_events_report__held(&part->report, &held);
	ret = kvm_events_queue__add(&r->queue, q->held, q->nr_held);
	if (!ret)
		ret = kvm_events_queue__add(&r->queue, held, nr);
	kvm_events_queue__flush(&r->queue, r->report, (u64)-1);
	if (!ret)
		ret = kvm_events_report__join(r->report, &part->report);
	for (i = 0; i < KVM_TP__NR; i++)
		r->skipped[i] += part->r.skipped[i];
	r->other_events += part->r.other_events;
	r->idle_switches += part->r.idle_switches;
	r->unknown_id += part->r.unknown_id;
	r->lost_events += part->r.lost_events;
	r->lost_chunks += part->r.lost_chunks;
	r->lost_samples += part->r.lost_samples;
	return ret;
}

/*
 * A large file in two parts, one in a thread of its own.  When they
 * cannot be joined exactly, the first part's reader reads on into the
 * second, as if there had been only one.
 */
int reader__read_parts(struct reader *r, u64 end, u64 split)
{
	struct reader_part part = { .ret = 0 };
	struct record_input in;
	const char *why;
	pthread_t thread;
	int ret;

	ret = record_input__init(&in, r->fd, r->path, r->offset, split - r->offset,
				 RECORD_INPUT_BUF_SIZE, false);
	if (ret)
		return ret;
	in.more = true;
	ret = reader_part__init(&part, r, split, end - split);
	if (!ret && pthread_create(&thread, NULL, reader__part_thread, &part))
		ret = -EAGAIN;
	if (ret) {
		pr_debug("%s: read in one part: no second reader (%s)\n", r->path,
			 strerror(-ret));
		reader_part__exit(&part);
		record_input__exit(&in);
		return reader__read_fd(r, r->offset, end - r->offset);
	}
	ret = record_input__rewind(&in);
	if (!ret)
		ret = reader__read_input(r, &in);
	pthread_join(thread, NULL);
	why = ret ? NULL : reader__cannot_join(r, &in, &part);
	if (!ret && !why) {
		pr_debug("%s: read in two parts at once, joined at byte %" PRIu64 "\n",
			 r->path, split);
		ret = reader__join(r, &part);
	} else if (!ret) {
		pr_debug("%s: read in one part: %s\n", r->path, why);
		in.more = false;
		in.limit += end - split;
		ret = reader__read_input(r, &in);
	}
	reader_part__exit(&part);
	record_input__exit(&in);
	return ret;
}
