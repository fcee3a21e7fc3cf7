// SPDX-License-Identifier: GPL-2.0
/*
 * A perf record --threads directory, for the reader of perf.data
 * (kvm-events-reader.c): the header file's data section and each data.N
 * file, each through a buffer of its own.
 *
 * A directory has no rounds, but each of its files is in time order when
 * each thread of perf record read one CPU's buffer: they are read in
 * passes over spans of time, which merges them.  When a file is found not
 * to be, all are read again, and their events delivered in time order
 * once all are read, as perf does.
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <linux/kernel.h>

#include "data.h"
#include "debug.h"
#include "kvm-events-input.h"
#include "kvm-events-reader.h"
#include "session.h"

/*
 * perf record --threads numbers its data files from 0: a gap is a file
 * lost, and the events of its thread with it.
 */
static void reader__missing_files(struct reader *r)
{
	struct perf_data *data = r->session->data;
	unsigned long n, max = 0;
	bool *seen;
	int i;

	for (i = 0; i < data->dir.nr; i++) {
		const char *name = strrchr(data->dir.files[i].path, '/');

		n = strtoul(name ? name + sizeof("/data.") - 1 : "0", NULL, 10);
		max = max(max, n);
	}
	if (!data->dir.nr || max < (unsigned long)data->dir.nr || max > INT_MAX)
		return;
	seen = calloc(max + 1, sizeof(*seen));
	if (!seen)
		return;
	for (i = 0; i < data->dir.nr; i++) {
		const char *name = strrchr(data->dir.files[i].path, '/');

		seen[strtoul(name ? name + sizeof("/data.") - 1 : "0", NULL, 10)] = true;
	}
	for (n = 0; n <= max; n++) {
		if (!seen[n])
			pr_warning("%s/data.%lu: missing: the events of its thread are not in the report\n",
				   data->path, n);
	}
	free(seen);
}

/* A directory's files share four files' buffers, each of at least 64 KiB. */
#define DIR_BUF_SIZE(nr)	clamp(4 * RECORD_INPUT_BUF_SIZE / (nr), 64UL << 10, \
				      RECORD_INPUT_BUF_SIZE)

/*
 * Bytes of records in a pass over a directory's inputs, about: few enough
 * that the queue stays in the caches (at 1M exits, passes of 8K samples,
 * about 1.3 MB, took 132 ms, of 64K 147 ms).
 */
#define PASS_BYTES	(1UL << 20)

/* No pass spans more, in ns: a sum with a time stays in a u64. */
#define PASS_SPAN_MAX	(1ULL << 60)

/*
 * The span of time of the next pass: of about PASS_BYTES, from the last
 * pass's @span and the @bytes it read, within a factor of 4
 */
static u64 pass_span(u64 span, u64 bytes)
{
	if (bytes <= PASS_BYTES / 4)
		return min_t(u64, span * 4, PASS_SPAN_MAX);
	if (bytes >= PASS_BYTES * 4)
		return max_t(u64, span / 4, 1);
	return span / bytes * PASS_BYTES + span % bytes * PASS_BYTES / bytes;
}

/* Where the inputs are, in bytes read and walked in all */
static u64 inputs_walked(const struct record_input *inputs, int nr)
{
	u64 walked = 0;
	int i;

	for (i = 0; i < nr; i++)
		walked += inputs[i].offset + inputs[i].head;
	return walked;
}

/* The next pass: from after the last one to @span after the earliest sample that waits */
static void reader__next_pass(struct reader *r, u64 span)
{
	u64 first = r->pass_first + r->pass_width + 1;
	u64 last = r->pass_first_later > UINT64_MAX - span ? UINT64_MAX :
		   r->pass_first_later + span - 1;

	r->pass_first = first;
	r->pass_width = last - first;
	r->pass_first_later = UINT64_MAX;
}

/* Takes all samples again: a single input, or all of a directory's held */
static void reader__no_passes(struct reader *r)
{
	r->pass_first = 0;
	r->pass_width = UINT64_MAX;
}

/*
 * Each input in time order: they are read in passes over spans of time.
 * In a pass, each input, in perf's order, gives its samples up to the
 * span's end, as a run of the queue.  A pass's samples are all later than
 * the last one's, so the queue delivers what a merge of the inputs by
 * time would, ties to the input perf lists first, and holds one pass, not
 * the directory.  Merging the inputs sample by sample, through a heap,
 * took 205 ms where this takes 132, at 1M exits.
 *
 * A sample earlier than its pass is in an input out of order: *@unsorted
 * is set to the input, and the passes stop.
 */
static int reader__passes(struct reader *r, struct record_input *inputs, int nr,
			  const char **unsorted)
{
	u64 span = 1000000;	/* 1 ms, at first */
	bool *done = calloc(nr, sizeof(*done));
	int i, left = nr, ret = 0;

	if (!done)
		return -ENOMEM;
	/* The first pass, of time 0, finds where the samples begin. */
	r->pass_first = r->pass_width = 0;
	r->pass_first_later = UINT64_MAX;
	while (!ret && left) {
		u64 walked = inputs_walked(inputs, nr);

		for (i = 0; !ret && i < nr; i++) {
			if (done[i])
				continue;
			ret = reader__read_input(r, &inputs[i]);
			if (ret == READER_LATE)
				*unsorted = inputs[i].path;
			if (ret == READER_PAUSED) {
				ret = 0;
			} else if (!ret) {
				done[i] = true;
				left--;
			}
		}
		/* The second end of a round hands on all of the pass. */
		if (!ret)
			ret = reader__finished_round(r);
		if (!ret)
			ret = reader__finished_round(r);
		if (r->pass_first)
			span = pass_span(span, inputs_walked(inputs, nr) - walked);
		reader__next_pass(r, span);
	}
	reader__no_passes(r);
	free(done);
	return ret == READER_LATE ? 0 : ret;
}

/*
 * The header file's data section and each data.N file: read in passes
 * while each is in time order.  When one is found not to be, all are read
 * again, and their events ordered at the end, as perf does.
 */
int reader__read_dir(struct reader *r)
{
	struct perf_data *data = r->session->data;
	int nr = data->dir.nr + 1, i, ret;
	struct record_input *inputs = calloc(nr, sizeof(*inputs));
	const char *unsorted = NULL;

	if (!inputs)
		return -ENOMEM;
	reader__missing_files(r);
	ret = record_input__init(&inputs[0], r->fd, r->path, r->offset,
				 reader__data_end(r) - r->offset, DIR_BUF_SIZE(nr), false);
	for (i = 1; !ret && i < nr; i++) {
		struct perf_data_file *file = &data->dir.files[i - 1];

		ret = record_input__init(&inputs[i], file->fd, file->path, 0, file->size,
					 DIR_BUF_SIZE(nr), false);
	}
	for (i = 0; !ret && i < nr; i++)
		ret = record_input__rewind(&inputs[i]);
	if (!ret)
		ret = reader__passes(r, inputs, nr, &unsorted);
	if (!ret && !unsorted) {
		pr_debug("%s: its %d files merged in time order\n", r->path, nr);
	} else if (!ret) {
		pr_debug("%s: %s is not in time order: all its events are held and sorted\n",
			 r->path, unsorted);
		ret = reader__restart(r, inputs, nr);
		for (i = 0; !ret && i < nr; i++)
			ret = reader__read_input(r, &inputs[i]);
	}
	for (i = 0; i < nr; i++)
		record_input__exit(&inputs[i]);
	free(inputs);
	return ret;
}
