/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_KVM_EVENTS_READER_H
#define __PERF_KVM_EVENTS_READER_H

/*
 * The reader of perf.data's own header, included only by its files, one
 * per kind of input (the rest of perf calls kvm_events_read()):
 *   kvm-events-reader.c        the walk of the records; a file, a pipe
 *   kvm-events-reader-dir.c    a perf record --threads directory
 *   kvm-events-reader-parts.c  a large file, in two parts at once
 *   kvm-events-read.c          kvm_events_read(): which of them, how
 *                              many threads; the only one that calls
 *                              the others, none calls back into it
 * They share the reader's state and the calls below, made per input or
 * per pass, never per sample: what runs per sample stays in
 * kvm-events-reader.c, where it is inlined.
 */
#include <stdbool.h>
#include <linux/types.h>
#include "kvm-events.h"
#include "kvm-events-queue.h"

struct evlist;
struct kvm_events_input;
struct kvm_events_pipeline;
struct machine;
struct perf_session;
struct record_input;
struct sample_layout;

struct reader {
	struct kvm_events_report	*report;
	struct kvm_events_input		*input;
	struct perf_session		*session;
	struct kvm_events_pipeline	*pipe;
	int				fd;
	u64				offset;
	u64				size;
	u64				skipped[KVM_TP__NR];
	u64				other_events;	/* of no decoder */
	u64				idle_switches;	/* counted, not ordered: of no vcpu */
	struct machine			*machine;
	const char			*path;
	struct sample_layout		*layouts;
	u32				nr_layouts;
	/* Open addressing over layouts by id, from slot id & id_mask; NULL: empty */
	const struct sample_layout	**by_id;
	u32				id_mask;
	u32				id_end;	/* a sample's bytes up to its id's end, 0: no id */
	bool				stale;	/* a pipe brought new evsels */
	bool				no_rounds; /* a directory: sort at the end */
	bool				stream;	/* a pipe, or a file in its format */
	const char			*one_part; /* why even a large file is, NULL: none */
	bool				second_part; /* of a file read in two */
	u64				unknown_id;
	/*
	 * A pass over a directory takes the samples from pass_first to
	 * pass_first + pass_width: a later one waits for the next pass, an
	 * earlier one finds a file out of order.
	 */
	u64				pass_first;
	u64				pass_width;
	u64				pass_first_later;	/* the earliest that waits */
	u64				lost_events;	/* PERF_RECORD_LOST */
	u64				lost_chunks;
	u64				lost_samples;	/* PERF_RECORD_LOST_SAMPLES */
	/* Of a switch record, bytes from its end to its tid and time; 0: none */
	u32				switch_tid_end;
	u32				switch_time_end;
	struct kvm_events_queue		queue;
};

/*
 * With two threads, the reading one decodes the samples into batches in
 * file order, a round's end marked by an item of this tp; the pairing one
 * orders them and pairs them.  That splits the work about in half.
 */
#define ROUND_END	KVM_TP__NR
/* Marks, for the pairing thread, where the reading starts again */
#define RESTART		(KVM_TP__NR + 1)

/* What the walk returns at a sample that waits for the next pass */
#define READER_PAUSED	1
/* ... and at one that an earlier pass should have taken */
#define READER_LATE	2
/* What a second part returns at what only the first can handle */
#define READER_NOT_ALONE	3

/*
 * Reads the records of @in to its end, a buffer at a time, or up to a
 * sample that waits for the next pass (READER_PAUSED).
 */
int reader__read_input(struct reader *r, struct record_input *in);
/* Reads one buffered input of @size bytes from @start, (u64)-1 for a stream. */
int reader__read_fd(struct reader *r, u64 start, u64 size);
/* Where the data ends: the file may have been cut short. */
u64 reader__data_end(struct reader *r);
/* Ends the round here, or marks its end for the pairing thread. */
int reader__finished_round(struct reader *r);
/* Reading starts again from the inputs' starts: forgets what was counted and paired. */
int reader__restart(struct reader *r, struct record_input *inputs, int nr);
/* The pairing side of a restart: nothing queued, nothing paired */
int reader__forget(struct reader *r);
/*
 * One layout per sample id, or a single one when samples carry no id.
 * Returns 1 with *why set for an evlist this reader does not take.
 */
int reader__init_layouts(struct reader *r, struct evlist *evlist, const char **why);
void reader__free_layouts(struct reader *r);

/* The header file's data section and each data.N file */
int reader__read_dir(struct reader *r);

/* Why a file is read in one part whatever its size, or NULL */
const char *reader__one_part(const struct kvm_events_input *input,
			     const struct kvm_events_report *report);
/* Where the second part starts; 0, and -v says why, for one part */
u64 reader__split_point(struct reader *r, u64 end);
/* The data section up to @end, the second part from @split in a thread */
int reader__read_parts(struct reader *r, u64 end, u64 split);

#endif /* __PERF_KVM_EVENTS_READER_H */
