// SPDX-License-Identifier: GPL-2.0
/*
 * The records of one input through a buffer of its own: what the reader
 * of perf kvm-events walks, one input for a file or a pipe, one per file
 * for a --threads directory, whose files it merges.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/kernel.h>
#include <linux/zalloc.h>

#include "debug.h"
#include "kvm-events-input.h"

int record_input__init(struct record_input *in, int fd, const char *path,
		       u64 start, u64 size, size_t buf_size, bool stream)
{
	*in = (struct record_input){
		.fd	= fd,
		.path	= path,
		.stream	= stream,
		.alloc	= buf_size,
		.offset	= start,
		.limit	= size,
		.start	= start,
		.size	= size,
	};
	in->buf = malloc(buf_size + RECORD_INPUT_SLACK);
	return in->buf ? 0 : -ENOMEM;
}

void record_input__exit(struct record_input *in)
{
	zfree(&in->buf);
}

int record_input__rewind(struct record_input *in)
{
	in->len = in->head = in->need = 0;
	in->offset = in->start;
	in->limit = in->size;
	if (lseek(in->fd, in->start, SEEK_SET) == (off_t)-1) {
		int err = errno;

		pr_err("%s: cannot seek to the data at %#" PRIx64 ": %s\n",
		       in->path, in->start, strerror(err));
		return -err;
	}
	return 0;
}

void record_input__compact(struct record_input *in)
{
	memmove(in->buf, in->buf + in->head, in->len - in->head);
	in->offset += in->head;
	in->len -= in->head;
	in->head = 0;
}

ssize_t record_input__refill(struct record_input *in)
{
	ssize_t n;

	record_input__compact(in);
	if (in->need > in->alloc) {
		u8 *bigger = realloc(in->buf, in->need + RECORD_INPUT_SLACK);

		if (!bigger)
			return -ENOMEM;
		in->buf = bigger;
		in->alloc = in->need;
	}
	if (!in->limit)
		return 0;
	do {
		n = read(in->fd, in->buf + in->len, min_t(u64, in->alloc - in->len, in->limit));
	} while (n < 0 && errno == EINTR);
	if (n < 0) {
		int err = errno;

		if (!in->quiet)
			pr_err("%s: cannot read: %s\n", in->path, strerror(err));
		return -err;
	}
	in->len += n;
	in->limit -= n;
	return n;
}

void record_input__end(struct record_input *in)
{
	if (in->len > in->head && !in->quiet && !in->more)
		pr_warning("%s: the data ends in a record cut after %zu bytes\n",
			   in->path, in->len - in->head);
}

int record_input__bad(struct record_input *in, u64 size, u64 payload)
{
	unsigned long long offset = in->offset + in->head;

	if (in->quiet)
		return -EINVAL;
	if (payload)
		pr_err("%s: record at offset %#llx says %llu bytes follow it\n",
		       in->path, offset, (unsigned long long)payload);
	else
		pr_err("%s: record at offset %#llx has size %llu, not a multiple of 8 of at least its header\n",
		       in->path, offset, (unsigned long long)size);
	return -EINVAL;
}
