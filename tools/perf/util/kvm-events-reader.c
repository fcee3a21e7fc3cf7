// SPDX-License-Identifier: GPL-2.0
/*
 * A reader of perf.data for perf kvm-events that goes straight through the
 * data.  perf's session code still reads the header, the attributes and
 * the tracing data; what it does per event (a perf_sample parsed in full,
 * an allocation and a list insert in ordered_events) costs more than the
 * whole analysis, and a KVM recording holds tens of millions of events.
 *
 * What it reads: every layout perf record writes for tracepoints.
 *  - The evsel of a sample is found as perf finds it: the only one, or by
 *    the id at PERF_SAMPLE_IDENTIFIER's place, or at PERF_SAMPLE_ID's
 *    place when all evsels share one sample_type (evlist->id_pos).
 *  - Any sample_type with TID, TIME and RAW: the fields before RAW are
 *    walked past by their sizes (READ and CALLCHAIN per sample), those
 *    after it (regs, stack dump, ...) are not looked at.
 *  - A file's data section, through a buffer; a pipe or a pipe-format
 *    file, whose attributes, features and tracing data go to the session
 *    code as they come.
 *  - A perf record --threads directory (kvm-events-reader-dir.c), the
 *    header file's data and each data.N file, each through a buffer of
 *    its own.
 *  - A large file in two parts at once (kvm-events-reader-parts.c).
 *
 * It keeps perf's ordering: events are queued until a FINISHED_ROUND, then
 * those no later than the end of the previous round are delivered in time
 * order, ties in read order.
 * Byte-swapped and compressed data, and AUX data, are left to
 * perf_session__process_events(); -v says which reader ran and why.
 *
 * With two threads, one reads, decodes and orders the file into batches
 * while the caller pairs them.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <linux/bitops.h>
#include <linux/err.h>
#include <linux/kernel.h>
#include <linux/zalloc.h>
#include <perf/event.h>

#include "data.h"
#include "debug.h"
#include "event.h"
#include "evlist.h"
#include "evsel.h"
#include "header.h"
#include "kvm-events.h"
#include "kvm-events-input.h"
#include "kvm-events-pipeline.h"
#include "kvm-events-queue.h"
#include "kvm-events-reader.h"
#include "kvm-events-sched.h"
#include "machine.h"
#include "sample.h"
#include "session.h"

/* The sample_type bits of a u64 each, before READ, CALLCHAIN and RAW */
#define FIXED_FIELDS (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | \
		      PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | \
		      PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD)

/* Where one evsel's samples keep what the analyses read */
struct sample_layout {
	u64				id;
	const struct kvm_events_decoder	*dec;	/* NULL: not a kvm event */
	u32				tid_off;
	u32				time_off;
	u32				var_off;	/* READ or CALLCHAIN, then RAW */
	u32				read_size;	/* 0: no READ */
	u32				read_group_entry; /* 0: not a group */
	u32				raw_off;	/* 0: after a group or a callchain */
	bool				callchain;
	bool				skip;		/* a kvm event the analysis never reads */
};

/* The size of a READ of @read_format, or of a group's entry if @entry */
static u32 read_value_size(u64 read_format, bool entry)
{
	u32 n = 1;

	if (entry || !(read_format & PERF_FORMAT_GROUP)) {
		n += !!(read_format & PERF_FORMAT_ID);
		n += !!(read_format & PERF_FORMAT_LOST);
	}
	if (!entry) {
		n += !!(read_format & PERF_FORMAT_TOTAL_TIME_ENABLED);
		n += !!(read_format & PERF_FORMAT_TOTAL_TIME_RUNNING);
	}
	return n * sizeof(u64);
}

/* Returns the reason the layout cannot be read here, or NULL. */
static const char *layout_init(struct sample_layout *layout, struct evsel *evsel)
{
	u64 type = evsel->core.attr.sample_type;
	u64 read_format = evsel->core.attr.read_format;
	u32 off = 0;

	if (!(type & PERF_SAMPLE_TIME) || !(type & PERF_SAMPLE_TID))
		return "samples without time or thread";
	if (!(type & PERF_SAMPLE_RAW) && layout->dec)
		return "tracepoint samples without raw data";
	off += type & PERF_SAMPLE_IDENTIFIER ? 8 : 0;
	off += type & PERF_SAMPLE_IP ? 8 : 0;
	layout->tid_off = off;
	off += 8;
	layout->time_off = off;
	off += 8;
	off += hweight64(type & FIXED_FIELDS & ~(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP |
						PERF_SAMPLE_TID | PERF_SAMPLE_TIME)) * 8;
	layout->var_off = off;
	if (type & PERF_SAMPLE_READ) {
		layout->read_size = read_value_size(read_format, false);
		if (read_format & PERF_FORMAT_GROUP)
			layout->read_group_entry = read_value_size(read_format, true);
	}
	layout->callchain = type & PERF_SAMPLE_CALLCHAIN;
	if (!layout->read_group_entry && !layout->callchain)
		layout->raw_off = layout->var_off + layout->read_size;
	return NULL;
}

/* The count of entries at @off (a group read's, a callchain's), if sane */
static bool read_nr(const u8 *base, u64 off, u32 size, u64 *nr)
{
	if (off + sizeof(*nr) > size)
		return false;
	memcpy(nr, base + off, sizeof(*nr));
	return *nr <= size;
}

/* Where a sample's raw data begins after a group read or a callchain, 0 if past @size */
static u32 layout__raw_off(const struct sample_layout *layout, const u8 *base, u32 size)
{
	u64 off = layout->var_off, nr;

	if (layout->read_size) {
		if (layout->read_group_entry) {
			if (!read_nr(base, off, size, &nr))
				return 0;
			off += nr * layout->read_group_entry;
		}
		off += layout->read_size;
	}
	if (layout->callchain) {
		if (!read_nr(base, off, size, &nr))
			return 0;
		off += (nr + 1) * sizeof(u64);
	}
	return off + 4 <= size ? off : 0;
}

/*
 * Every sample looks its id up, in a table twice the ids.  The kernel
 * numbers the events as they are opened, so that a recording's ids are
 * mostly one range: id & mask is a slot of its own, without a hash.
 */
static int reader__index_ids(struct reader *r)
{
	u32 size = 2, i;

	while (size < 2 * r->nr_layouts)
		size *= 2;
	r->by_id = calloc(size, sizeof(*r->by_id));
	if (!r->by_id)
		return -ENOMEM;
	r->id_mask = size - 1;
	for (i = 0; i < r->nr_layouts; i++) {
		u32 slot = r->layouts[i].id & r->id_mask;

		while (r->by_id[slot])
			slot = (slot + 1) & r->id_mask;
		r->by_id[slot] = &r->layouts[i];
	}
	return 0;
}

void reader__free_layouts(struct reader *r)
{
	zfree(&r->layouts);
	zfree(&r->by_id);
	r->nr_layouts = 0;
}

/*
 * Where the records of perf record --switch-events keep their thread and
 * time: in the sample_id_all trailer of the evsel that asked for them,
 * counted from its end (tid, time, id, stream_id, cpu, identifier).
 */
static void reader__init_switches(struct reader *r, struct evlist *evlist)
{
	struct evsel *evsel;

	r->switch_tid_end = r->switch_time_end = 0;
	evlist__for_each_entry(evlist, evsel) {
		const struct perf_event_attr *attr = &evsel->core.attr;
		u64 type = attr->sample_type;
		u32 after = hweight64(type & (PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID |
					      PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER));

		if (!kvm_events_switches_readable(attr))
			continue;
		r->switch_time_end = 8 * (after + 1);
		r->switch_tid_end = 8 * (after + 2);
		r->report->opts.sched = true;
	}
}

/*
 * One layout per sample id, or a single one when samples carry no id.
 * Returns 1 with *why set for an evlist this reader does not take.
 */
int reader__init_layouts(struct reader *r, struct evlist *evlist, const char **why)
{
	struct evsel *evsel;
	u32 nr = 0, i;

	reader__free_layouts(r);
	reader__init_switches(r, evlist);
	/* As evlist__event2evsel() finds the evsel of a sample */
	r->id_end = 0;
	if (evlist->core.nr_entries > 1 && evlist->id_pos >= 0)
		r->id_end = sizeof(struct perf_event_header) + (evlist->id_pos + 1) * sizeof(u64);
	evlist__for_each_entry(evlist, evsel) {
		if (r->id_end && evsel->id_pos != evlist->id_pos) {
			*why = "the evsels' sample ids are at different places";
			return 1;
		}
		nr += evsel->core.ids ? evsel->core.ids : 1;
	}
	if (evlist->core.nr_entries > 1 && !r->id_end) {
		*why = "several evsels, and samples without an id";
		return 1;
	}
	r->layouts = calloc(nr, sizeof(*r->layouts));
	if (!r->layouts)
		return -ENOMEM;
	evlist__for_each_entry(evlist, evsel) {
		struct sample_layout layout = { 0 };

		layout.dec = r->input->decoder(r->input, evsel);
		if (IS_ERR(layout.dec))
			return PTR_ERR(layout.dec);
		layout.skip = layout.dec && !kvm_events_report__reads(r->report, layout.dec->tp);
		*why = layout_init(&layout, evsel);
		if (*why)
			return 1;
		for (i = 0; i < (evsel->core.ids ? evsel->core.ids : 1); i++) {
			layout.id = evsel->core.ids ? evsel->core.id[i] : 0;
			r->layouts[r->nr_layouts++] = layout;
		}
	}
	r->stale = false;
	return reader__index_ids(r);
}

static const struct sample_layout *reader__layout(struct reader *r,
						  const union perf_event *event)
{
	const struct sample_layout *layout;
	u32 slot;
	u64 id;

	if (!r->id_end)
		return r->nr_layouts ? &r->layouts[0] : NULL;
	if (r->id_end > event->header.size)
		return NULL;
	memcpy(&id, (const u8 *)event + r->id_end - sizeof(id), sizeof(id));
	for (slot = id & r->id_mask; (layout = r->by_id[slot]); slot = (slot + 1) & r->id_mask) {
		if (layout->id == id)
			return layout;
	}
	/* perf gives a synthesized sample's id 0 to the first evsel. */
	return id ? NULL : &r->layouts[0];
}

/*
 * Where the next decoded sample goes: the ordering queue, or, @piped, a
 * batch.  @piped is r->pipe != NULL, a constant in each copy of the walk:
 * testing r->pipe twice a sample cost 2.5% of the report's instructions.
 */
static __always_inline struct kvm_events_sample *reader__next(struct reader *r, bool piped)
{
	if (!piped)
		return kvm_events_queue__slot(&r->queue);
	return kvm_events_pipeline__slot(r->pipe);
}

static __always_inline int reader__push(struct reader *r, struct kvm_events_sample *s,
					bool piped)
{
	if (!piped) {
		kvm_events_queue__push(&r->queue, s);
		return 0;
	}
	return kvm_events_pipeline__push(r->pipe);
}

static int reader__decode(struct reader *r, const union perf_event *event,
			  const struct sample_layout *layout, bool piped);

static int reader__outside_pass(struct reader *r, u64 time)
{
	if (time < r->pass_first)
		return READER_LATE;
	r->pass_first_later = min_t(u64, r->pass_first_later, time);
	return READER_PAUSED;
}

/* A stream's new evsels, before the records of theirs */
static noinline int reader__refresh(struct reader *r)
{
	const char *why = NULL;
	int ret = reader__init_layouts(r, r->session->evlist, &why);

	if (ret > 0)
		pr_err("%s: cannot read the samples: %s\n", r->path, why);
	return ret > 0 ? -EINVAL : ret;
}

/* Inline, as what it calls: each call costs its frame, and its canary. */
static __always_inline int reader__sample(struct reader *r, const union perf_event *event,
					  bool piped)
{
	const struct sample_layout *layout = reader__layout(r, event);

	if (r->stale) {
		int ret = reader__refresh(r);

		if (ret)
			return ret;
		layout = reader__layout(r, event);
	}
	if (!layout) {
		r->unknown_id++;
		return 0;
	}
	/* Counted, not decoded nor ordered: no analysis looks at it. */
	if (!layout->dec) {
		r->other_events++;
		return 0;
	}
	/* Counted, not decoded nor ordered: the analysis never looks at it. */
	if (layout->skip) {
		r->skipped[layout->dec->tp]++;
		return 0;
	}
	return reader__decode(r, event, layout, piped);
}

/* Decodes a sample the analysis reads, and queues it. */
static __always_inline int reader__decode(struct reader *r, const union perf_event *event,
					  const struct sample_layout *layout, bool piped)
{
	const u8 *base = (const u8 *)event->sample.array;
	u32 size = event->header.size - sizeof(event->header);
	struct kvm_events_sample *s;
	u32 raw_off, raw_size, pid_tid[2];

	raw_off = layout->raw_off;
	if (!raw_off)
		raw_off = layout__raw_off(layout, base, size);
	if (!raw_off || raw_off + 4 > size)
		goto bad;
	memcpy(&raw_size, base + raw_off, 4);
	if (raw_size > size - raw_off - 4 || raw_size < layout->dec->min_raw_size)
		goto bad;
	s = reader__next(r, piped);
	if (!s)
		return -ENOMEM;
	memcpy(pid_tid, base + layout->tid_off, sizeof(pid_tid));
	memcpy(&s->time, base + layout->time_off, sizeof(s->time));
	if (unlikely(s->time - r->pass_first > r->pass_width))
		return reader__outside_pass(r, s->time);
	s->tp = layout->dec->tp;
	s->pid = pid_tid[0];
	s->tid = pid_tid[1];
	kvm_events_decoder__load_raw(layout->dec, base + raw_off + 4, s);
	return reader__push(r, s, piped);
bad:
	/* The first part reads it again and says what is wrong. */
	if (r->second_part)
		return -EINVAL;
	pr_err("%s: a %s sample of %u bytes is shorter than its format\n",
	       r->path, kvm_tp_role__name(layout->dec->tp), size);
	return -EINVAL;
}

/* Ends the round here, or marks its end for the pairing thread. */
int reader__finished_round(struct reader *r)
{
	struct kvm_events_sample *mark;

	if (!r->pipe) {
		kvm_events_queue__round_end(&r->queue, r->report);
		return 0;
	}
	mark = reader__next(r, true);
	mark->tp = ROUND_END;
	return reader__push(r, mark, true);
}

static int reader__comm(struct reader *r, union perf_event *event)
{
	struct perf_sample sample = { 0 };

	/* The threads are the first part's: it reads the file on from there. */
	if (r->second_part)
		return READER_NOT_ALONE;

	/* For the names of --per-vm; when it came does not matter. */
	return machine__process_comm_event(r->machine, event, &sample);
}

/* A context switch, ordered among the samples as they are */
static __always_inline int reader__switch(struct reader *r, const union perf_event *event,
					  bool piped)
{
	const u8 *end = (const u8 *)event + event->header.size;
	u32 body = event->header.type == PERF_RECORD_SWITCH_CPU_WIDE ? 8 : 0;
	struct kvm_events_sample *s;
	u32 pid_tid[2];
	u64 time;

	if (r->stale && reader__refresh(r))
		return -EINVAL;
	if (!r->switch_tid_end)
		return 0;	/* of no evsel that says where its thread is */
	if (event->header.size < sizeof(event->header) + body + r->switch_tid_end) {
		pr_err("%s: a %s record of %u bytes is shorter than its sample id\n",
		       r->path, perf_event__name(event->header.type), event->header.size);
		return -EINVAL;
	}
	memcpy(&time, end - r->switch_time_end, sizeof(time));
	if (unlikely(time - r->pass_first > r->pass_width))
		return reader__outside_pass(r, time);
	memcpy(pid_tid, end - r->switch_tid_end, sizeof(pid_tid));
	/*
	 * The idle task's, a third of a system wide recording's where vcpus
	 * halt: counted, but no vcpu's state is touched by them.
	 */
	if (!pid_tid[1]) {
		r->idle_switches++;
		return 0;
	}
	s = reader__next(r, piped);
	if (!s)
		return -ENOMEM;
	s->time = time;
	kvm_events_switch__init(s, event, pid_tid[0], pid_tid[1]);
	return reader__push(r, s, piped);
}

static int reader__event(struct reader *r, union perf_event *event)
{
	switch (event->header.type) {
	case PERF_RECORD_SAMPLE:
		return reader__sample(r, event, r->pipe);
	case PERF_RECORD_FINISHED_ROUND:
		return r->no_rounds ? 0 : reader__finished_round(r);
	case PERF_RECORD_LOST:
		r->lost_events += event->lost.lost;
		r->lost_chunks++;
		return 0;
	case PERF_RECORD_LOST_SAMPLES:
		r->lost_samples += event->lost_samples.lost;
		return 0;
	case PERF_RECORD_COMM:
		return reader__comm(r, event);
	case PERF_RECORD_SWITCH:
	case PERF_RECORD_SWITCH_CPU_WIDE:
		return reader__switch(r, event, r->pipe);
	default:
		return 0;
	}
}

/* Where the data ends: the file may have been cut short. */
u64 reader__data_end(struct reader *r)
{
	u64 end = r->offset + r->size;
	struct stat st;

	if (fstat(r->fd, &st) || (u64)st.st_size >= end)
		return end;
	pr_warning("%s: cut short: the data section ends at byte %llu, the file at %llu\n",
		   r->path, (unsigned long long)end, (unsigned long long)st.st_size);
	return max_t(u64, st.st_size, r->offset);
}

/*
 * In a stream, the tracing data follows its record.  perf's
 * perf_event__process_tracing_data() reads it from the session's file
 * descriptor: it is given a memfd holding what this reader has already
 * read.
 */
static int reader__tracing_data(struct reader *r, union perf_event *event,
				const u8 *payload)
{
	struct perf_data *data = r->session->data;
	int fd = data->file.fd, memfd, ret = -EINVAL;

	memfd = memfd_create("kvm-events-tracing-data", 0);
	if (memfd < 0)
		return -errno;
	if (write(memfd, payload, event->tracing_data.size) != event->tracing_data.size)
		goto out;
	data->file.fd = memfd;
	lseek(memfd, 0, SEEK_SET);
	ret = perf_session__deliver_synth_event(r->session, event, NULL);
	if (ret < 0)
		pr_err("%s: cannot read the tracing data\n", r->path);
	r->stale = true;
out:
	data->file.fd = fd;
	close(memfd);
	return ret < 0 ? ret : 0;
}

/*
 * A record: the kernel's, or one that perf record wrote.  Those of a
 * stream carry what a file keeps in its header, for the session code.
 */
static int reader__record(struct reader *r, union perf_event *event,
			  const u8 *payload, u64 offset)
{
	int ret;

	if (!r->stream || event->header.type < PERF_RECORD_USER_TYPE_START ||
	    event->header.type == PERF_RECORD_FINISHED_ROUND)
		return reader__event(r, event);
	/* perf's tables of record types end there. */
	if (event->header.type >= PERF_RECORD_HEADER_MAX) {
		pr_err("%s: record of unknown type %u at offset %#" PRIx64 "\n",
		       r->path, event->header.type, offset);
		return -EINVAL;
	}
	switch (event->header.type) {
	case PERF_RECORD_HEADER_TRACING_DATA:
		return reader__tracing_data(r, event, payload);
	case PERF_RECORD_AUXTRACE:
		return 0;	/* AUX area data: no kvm events there */
	case PERF_RECORD_COMPRESSED:
		pr_err("%s: compressed records (perf record -z) at offset %#llx: this perf was built without zstd\n",
		       r->path, (unsigned long long)offset);
		return -EINVAL;
	case PERF_RECORD_HEADER_ATTR:
		r->stale = true;
		break;
	default:
		break;
	}
	ret = perf_session__deliver_synth_event(r->session, event, NULL);
	if (ret < 0)
		pr_err("%s: cannot read the %s record at offset %#" PRIx64 "\n",
		       r->path, perf_event__name(event->header.type), offset);
	return ret < 0 ? ret : 0;
}

/*
 * Takes the records of the fast path in a row from in->head: whole and
 * padded, of the types nearly all a file holds.  The head stays in a
 * register.  It stops at a record it does not take, for the slow path,
 * or before one whose handler returned non-zero.
 */
static __always_inline int reader__walk_fast(struct reader *r, struct record_input *in,
					     bool piped)
{
	const u8 *buf = in->buf;
	size_t head = in->head, len = in->len;
	int ret = 0;

	while (len - head >= sizeof(struct perf_event_header)) {
		const union perf_event *event = (const union perf_event *)(buf + head);
		u16 size = event->header.size;

		if (size > len - head || size < sizeof(event->header) || size % 8)
			break;
		if (event->header.type == PERF_RECORD_SAMPLE)
			ret = reader__sample(r, event, piped);
		/* ...and, where they were recorded, many a switch */
		else if (event->header.type == PERF_RECORD_SWITCH ||
			 event->header.type == PERF_RECORD_SWITCH_CPU_WIDE)
			ret = reader__switch(r, event, piped);
		else
			break;
		if (ret)
			break;
		head += size;
	}
	in->head = head;
	return ret;
}

/* Handles the whole records in the buffer, while they are aligned. */
static int reader__walk(struct reader *r, struct record_input *in)
{
	while (!(in->head % 8)) {
		union perf_event *event;
		int ret = r->pipe ? reader__walk_fast(r, in, true) :
				    reader__walk_fast(r, in, false);

		if (ret)
			return ret;
		ret = record_input__check(in);
		if (ret <= 0)
			return ret;
		event = (union perf_event *)(in->buf + in->head);
		ret = reader__record(r, event, in->buf + in->head + event->header.size,
				     in->offset + in->head);
		if (ret)
			return ret;
		record_input__advance(in);
	}
	return 0;
}

/* The pairing side of a restart: nothing queued, nothing paired */
int reader__forget(struct reader *r)
{
	const struct kvm_events_analysis *analysis = r->report->analysis;
	struct kvm_events_observer *observer = r->report->observer;
	struct kvm_events_options opts = r->report->opts;
	int ret;

	kvm_events_queue__exit(&r->queue);
	kvm_events_queue__init(&r->queue);
	kvm_events_report__exit(r->report);
	ret = kvm_events_report__init(r->report, analysis, &opts);
	if (observer)
		observer->forget(observer);
	r->report->observer = observer;
	return ret;
}

/* Reading starts again from the inputs' starts: forgets what was counted and paired. */
int reader__restart(struct reader *r, struct record_input *inputs, int nr)
{
	struct kvm_events_sample *mark;
	int i, ret = 0;

	memset(r->skipped, 0, sizeof(r->skipped));
	r->other_events = 0;
	r->idle_switches = 0;
	r->unknown_id = r->lost_events = r->lost_chunks = r->lost_samples = 0;
	for (i = 0; !ret && i < nr; i++)
		ret = record_input__rewind(&inputs[i]);
	if (ret || !r->pipe)
		return ret ?: reader__forget(r);
	mark = reader__next(r, true);
	if (!mark)
		return -ENOMEM;
	mark->tp = RESTART;
	return reader__push(r, mark, true);
}

/*
 * Reads the records of @in to its end, a buffer at a time, or up to a
 * sample that waits for the next pass (READER_PAUSED): what is buffered is
 * walked first, so that the next call goes on from there.
 */
int reader__read_input(struct reader *r, struct record_input *in)
{
	for (;;) {
		bool walked;
		ssize_t n;
		int ret;

		do {
			ret = reader__walk(r, in);
			if (ret)
				return ret;
			walked = in->head;
			record_input__compact(in);
		} while (walked && in->len);
		n = record_input__refill(in);
		if (n <= 0) {
			if (!n)
				record_input__end(in);
			return n;
		}
	}
}

/* Reads one buffered input of @size bytes from @start, (u64)-1 for a stream. */
int reader__read_fd(struct reader *r, u64 start, u64 size)
{
	struct record_input in;
	int ret = record_input__init(&in, r->fd, r->path, start, size,
				     RECORD_INPUT_BUF_SIZE, r->stream);

	if (!ret && size != (u64)-1)
		ret = record_input__rewind(&in);
	if (!ret)
		ret = reader__read_input(r, &in);
	record_input__exit(&in);
	return ret;
}
