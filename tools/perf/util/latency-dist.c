// SPDX-License-Identifier: GPL-2.0
/*
 * Latency distributions with percentiles of bounded error, in bounded
 * memory.  Written for perf kvm-events, usable by any tool that times
 * events (kwork, sched, lock).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <linux/zalloc.h>

#include "latency-dist.h"

/*
 * The first EXACT_MAX durations are kept as they are, so that small
 * distributions get exact percentiles; past that they go into a
 * log-linear histogram: values
 * below 2^SUB_BITS ns exactly, above it 2^SUB_BITS buckets per power of
 * two, allocated one power of two at a time.  A bucket is reported by its
 * middle, at most half a bucket, 1/2^(SUB_BITS+1) = 0.4%, from any value
 * in it.
 */
#define EXACT_MAX	1024
#define SUB_BITS	7
#define SUB_COUNT	(1U << SUB_BITS)
#define NR_OCTAVES	(64 - SUB_BITS + 1)

struct latency_dist {
	u64	n;
	u64	*exact;			/* n <= EXACT_MAX */
	u32	exact_alloc;
	bool	exact_sorted;
	u64	*octave[NR_OCTAVES];	/* [0]: 0..SUB_COUNT-1 exactly */
};

static void octave_of(u64 v, u32 *octave, u32 *sub)
{
	u32 bits;

	if (v < SUB_COUNT) {
		*octave = 0;
		*sub = v;
		return;
	}
	/* Not ilog2(): the tools' fls64() is a chain of C shifts and tests. */
	bits = 63 - __builtin_clzll(v);
	*octave = bits - SUB_BITS + 1;
	*sub = (v >> (bits - SUB_BITS)) & (SUB_COUNT - 1);
}

/* The middle of a bucket, and its bounds */
static u64 bucket_value(u32 octave, u32 sub)
{
	u32 shift;
	u64 low;

	if (octave == 0)
		return sub;
	shift = octave - 1;
	low = (u64)(SUB_COUNT + sub) << shift;
	return low + ((1ULL << shift) >> 1);
}

static int latency_dist__hist_add(struct latency_dist *dist, u64 v)
{
	u32 octave, sub;

	octave_of(v, &octave, &sub);
	if (!dist->octave[octave]) {
		dist->octave[octave] = calloc(SUB_COUNT, sizeof(u64));
		if (!dist->octave[octave])
			return -ENOMEM;
	}
	dist->octave[octave][sub]++;
	return 0;
}

static int latency_dist__to_hist(struct latency_dist *dist)
{
	u64 i;

	for (i = 0; i < dist->n; i++) {
		if (latency_dist__hist_add(dist, dist->exact[i]))
			return -ENOMEM;
	}
	zfree(&dist->exact);
	return 0;
}

int latency_dist__add(struct latency_dist *dist, u64 v)
{
	u64 *grown;

	if (dist->n == EXACT_MAX && latency_dist__to_hist(dist))
		return -ENOMEM;
	if (dist->n >= EXACT_MAX) {
		dist->n++;
		return latency_dist__hist_add(dist, v);
	}
	if (dist->n == dist->exact_alloc) {
		u32 alloc = dist->exact_alloc ? dist->exact_alloc * 2 : 8;

		grown = realloc(dist->exact, alloc * sizeof(u64));
		if (!grown)
			return -ENOMEM;
		dist->exact = grown;
		dist->exact_alloc = alloc;
	}
	dist->exact[dist->n++] = v;
	dist->exact_sorted = false;
	return 0;
}

int latency_dist__join(struct latency_dist *dist, const struct latency_dist *from)
{
	u32 octave, sub;
	u64 i;

	if (from->exact) {
		for (i = 0; i < from->n; i++) {
			if (latency_dist__add(dist, from->exact[i]))
				return -ENOMEM;
		}
		return 0;
	}
	for (octave = 0; octave < NR_OCTAVES; octave++) {
		for (sub = 0; from->octave[octave] && sub < SUB_COUNT; sub++) {
			u64 count = from->octave[octave][sub];
			u32 bucket = octave << SUB_BITS | sub;

			if (count && latency_dist__add_bucket(dist, bucket, count))
				return -ENOMEM;
		}
	}
	return 0;
}

void latency_dist__delete(struct latency_dist *dist)
{
	u32 i;

	if (!dist)
		return;
	free(dist->exact);
	for (i = 0; i < NR_OCTAVES; i++)
		free(dist->octave[i]);
	free(dist);
}

u32 latency_dist__bucket(u64 ns)
{
	u32 octave, sub;

	octave_of(ns, &octave, &sub);
	return octave << SUB_BITS | sub;
}

u64 latency_dist__bucket_value(u32 bucket)
{
	return bucket_value(bucket >> SUB_BITS, bucket & (SUB_COUNT - 1));
}

/*
 * Counts in buckets are no values: the distribution becomes a histogram.
 * It takes either values or bucket counts, not both.
 */
int latency_dist__add_bucket(struct latency_dist *dist, u32 bucket, u64 count)
{
	u32 octave = bucket >> SUB_BITS;

	if (octave >= NR_OCTAVES)
		return -EINVAL;
	if (dist->exact && latency_dist__to_hist(dist))
		return -ENOMEM;
	if (!dist->octave[octave]) {
		dist->octave[octave] = calloc(SUB_COUNT, sizeof(u64));
		if (!dist->octave[octave])
			return -ENOMEM;
	}
	dist->octave[octave][bucket & (SUB_COUNT - 1)] += count;
	dist->n += count;
	return 0;
}

static int compare_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

struct latency_dist *latency_dist__new(void)
{
	return zalloc(sizeof(struct latency_dist));
}

u64 latency_dist__count(const struct latency_dist *dist)
{
	return dist->n;
}

/* Whether percentiles are of the values themselves, not of buckets */
bool latency_dist__exact(const struct latency_dist *dist)
{
	return dist->exact;
}

/* Nearest rank: the smallest value with at least pct% of values <= it. */
u64 latency_dist__percentile(struct latency_dist *dist, double pct)
{
	double exact_rank = ceil(pct / 100 * dist->n);
	u64 rank = exact_rank, seen = 0;
	u32 octave, sub;

	if (rank < 1)
		rank = 1;
	if (rank > dist->n)
		rank = dist->n;
	if (dist->exact) {
		if (!dist->exact_sorted)
			qsort(dist->exact, dist->n, sizeof(u64), compare_u64);
		dist->exact_sorted = true;
		return dist->exact[rank - 1];
	}
	for (octave = 0; octave < NR_OCTAVES; octave++) {
		if (!dist->octave[octave])
			continue;
		for (sub = 0; sub < SUB_COUNT; sub++) {
			seen += dist->octave[octave][sub];
			if (seen >= rank)
				return bucket_value(octave, sub);
		}
	}
	return 0;
}

