/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_KVM_EVENTS_PIPELINE_H
#define __PERF_KVM_EVENTS_PIPELINE_H

#include <stdbool.h>
#include <stddef.h>
#include "kvm-events.h"
#include "mutex.h"

/*
 * Decoded samples handed in batches from the thread that reads a
 * recording to the one that pairs them, so that the two halves of the
 * work run at once.
 */
#define KVM_EVENTS_NR_BATCHES		4
#define KVM_EVENTS_BATCH_SAMPLES	32768

struct kvm_events_batch {
	struct kvm_events_sample	*items;
	size_t				nr;
	int				err;	/* the reading thread's */
	bool				last;
};

struct kvm_events_pipeline {
	struct mutex			lock;
	struct cond			cond;
	struct kvm_events_batch		batches[KVM_EVENTS_NR_BATCHES];
	/*
	 * Each thread writes one counter, under the lock, and reads its own
	 * without it: the reading thread produced, the pairing one consumed.
	 */
	unsigned int			produced;
	unsigned int			consumed;
	bool				stop;
};

struct kvm_events_pipeline *kvm_events_pipeline__new(void);
void kvm_events_pipeline__delete(struct kvm_events_pipeline *p);

/* The reading thread: where the next sample is decoded, then counted */
struct kvm_events_sample *kvm_events_pipeline__slot(struct kvm_events_pipeline *p);
int kvm_events_pipeline__push(struct kvm_events_pipeline *p);
/* Hands the batch over; -ECANCELED once the pairing thread has failed */
int kvm_events_pipeline__publish(struct kvm_events_pipeline *p, int err, bool last);

/* The pairing thread: the next batch, then done with it */
struct kvm_events_batch *kvm_events_pipeline__wait(struct kvm_events_pipeline *p);
void kvm_events_pipeline__done(struct kvm_events_pipeline *p, bool stop);

#endif /* __PERF_KVM_EVENTS_PIPELINE_H */
