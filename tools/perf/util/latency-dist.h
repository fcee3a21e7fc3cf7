/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_LATENCY_DIST_H
#define __PERF_LATENCY_DIST_H

#include <stdbool.h>
#include <linux/types.h>

/*
 * The durations of one kind of event, in ns: exact percentiles for the
 * first 1024, then within 0.4% (a log-linear histogram).
 */
struct latency_dist;

struct latency_dist *latency_dist__new(void);
void latency_dist__delete(struct latency_dist *dist);
int latency_dist__add(struct latency_dist *dist, u64 ns);
/* Adds @from's durations, as if each had been added to @dist */
int latency_dist__join(struct latency_dist *dist, const struct latency_dist *from);
u64 latency_dist__count(const struct latency_dist *dist);
/* The nearest-rank percentile, 0 < @pct <= 100; the dist must not be empty */
u64 latency_dist__percentile(struct latency_dist *dist, double pct);
bool latency_dist__exact(const struct latency_dist *dist);

/*
 * The histogram's buckets, for counts made elsewhere (in a BPF map):
 * @ns's bucket, a bucket's middle, and @count durations of @bucket.  A
 * distribution takes either values or bucket counts, not both.
 */
u32 latency_dist__bucket(u64 ns);
u64 latency_dist__bucket_value(u32 bucket);
int latency_dist__add_bucket(struct latency_dist *dist, u32 bucket, u64 count);

#endif /* __PERF_LATENCY_DIST_H */
