/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_KVM_EVENTS_INPUT_H
#define __PERF_KVM_EVENTS_INPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <linux/types.h>
#include <perf/event.h>

/*
 * The records of one input (a file's data section, a data.N file of a
 * --threads directory, a pipe) read through a buffer of its own, not
 * mapped: on a guest whose hypervisor fills its shadow page tables on
 * demand (PVM), the first touch of each page of a mapping costs more than
 * copying it, and a buffer's pages stay in the TLB.  A quarter of a MiB
 * stays in a core's L2 cache with what the walk writes: a MiB, as big as
 * the L2 of the host measured, made the walk read from further away.
 */
#define RECORD_INPUT_BUF_SIZE	(1UL << 18)
/*
 * Bytes past the buffer's end that can be read: a sample's last field is
 * loaded as 8 bytes (kvm_events_field__load()), whatever its size.
 */
#define RECORD_INPUT_SLACK	8
/* No record with its payload is longer in a stream perf writes. */
#define STREAM_PAYLOAD_MAX	(1UL << 30)

struct record_input {
	int		fd;
	const char	*path;
	bool		stream;		/* payloads follow records; perf's own are unpadded */
	bool		quiet;		/* what is wrong is said by who reads it again */
	bool		more;		/* its end is not the data's: no record is cut there */
	u8		*buf;
	size_t		alloc;
	size_t		len;		/* bytes in buf */
	size_t		head;		/* the next record's place in buf */
	size_t		next_size;	/* its size with its payload, once whole */
	size_t		need;		/* that size, while it is not whole */
	u64		offset;		/* buf[0]'s place in the input */
	u64		limit;		/* bytes not read yet */
	u64		start;
	u64		size;
};

/* An input of @size bytes from @start: a file's, or a stream's, (u64)-1 */
int record_input__init(struct record_input *in, int fd, const char *path,
		       u64 start, u64 size, size_t buf_size, bool stream);
void record_input__exit(struct record_input *in);
/* Back to the first record of a file's input */
int record_input__rewind(struct record_input *in);
/* Moves what is not read yet to the buffer's start: records are read aligned. */
void record_input__compact(struct record_input *in);
/* Reads more after what is left; returns the bytes read, 0 at the end */
ssize_t record_input__refill(struct record_input *in);
/* At the input's end, warns of what is left: a record cut short */
void record_input__end(struct record_input *in);
/* Says what is wrong with the record at in->head; returns -EINVAL */
int record_input__bad(struct record_input *in, u64 size, u64 payload);

/* What follows a record in a stream: tracing data, AUX data */
static inline u64 stream_payload(const union perf_event *event)
{
	switch (event->header.type) {
	case PERF_RECORD_HEADER_TRACING_DATA:
		return event->header.size >= sizeof(event->tracing_data) ?
		       event->tracing_data.size : 0;
	case PERF_RECORD_AUXTRACE:
		return event->header.size >= sizeof(event->auxtrace) ?
		       event->auxtrace.size : 0;
	default:
		return 0;
	}
}

/*
 * Whether the record at in->head is whole in the buffer (1, and
 * in->next_size set), needs more read (0) or is bad (< 0).  Inline: the
 * reader asks it for every record.
 */
static inline int record_input__check(struct record_input *in)
{
	const union perf_event *event = (const void *)(in->buf + in->head);
	u64 avail = in->len - in->head, size, payload = 0;

	in->need = 0;
	if (avail < sizeof(event->header))
		return 0;
	size = event->header.size;
	if (size < sizeof(event->header) ||
	    (size % 8 && !(in->stream && event->header.type >= PERF_RECORD_USER_TYPE_START)))
		return record_input__bad(in, size, 0);
	if (size > avail)
		return 0;
	if (in->stream) {
		payload = stream_payload(event);
		if (payload % 8 || payload > STREAM_PAYLOAD_MAX)
			return record_input__bad(in, size, payload);
	}
	if (size + payload > avail) {
		in->need = size + payload;
		return 0;
	}
	in->next_size = size + payload;
	return 1;
}

static inline void record_input__advance(struct record_input *in)
{
	in->head += in->next_size;
}

/* The next whole record; NULL at the end, or on an error (*err) */
static inline union perf_event *record_input__next(struct record_input *in, int *err)
{
	for (;;) {
		ssize_t ret;

		/* perf pads its own records in a stream less than the kernel's */
		if (in->head % 8)
			record_input__compact(in);
		ret = record_input__check(in);
		if (ret > 0)
			return (union perf_event *)(in->buf + in->head);
		if (!ret)
			ret = record_input__refill(in);
		if (ret <= 0) {
			*err = ret;
			return NULL;
		}
	}
}

#endif /* __PERF_KVM_EVENTS_INPUT_H */
