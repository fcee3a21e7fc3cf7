// SPDX-License-Identifier: GPL-2.0
/*
 * The hand-over of decoded samples between perf kvm-events' two reading
 * threads: a ring of KVM_EVENTS_NR_BATCHES batches, each filled by the
 * reading thread while the pairing thread empties another.
 */
#include <errno.h>
#include <stdlib.h>
#include <linux/zalloc.h>

#include "kvm-events-pipeline.h"

struct kvm_events_pipeline *kvm_events_pipeline__new(void)
{
	struct kvm_events_pipeline *p = zalloc(sizeof(*p));
	int i;

	if (!p)
		return NULL;
	for (i = 0; i < KVM_EVENTS_NR_BATCHES; i++) {
		p->batches[i].items = calloc(KVM_EVENTS_BATCH_SAMPLES,
					     sizeof(*p->batches[i].items));
		if (!p->batches[i].items) {
			kvm_events_pipeline__delete(p);
			return NULL;
		}
	}
	mutex_init(&p->lock);
	cond_init(&p->cond);
	return p;
}

void kvm_events_pipeline__delete(struct kvm_events_pipeline *p)
{
	int i;

	if (!p)
		return;
	/* Both exist once the last batch is allocated. */
	if (p->batches[KVM_EVENTS_NR_BATCHES - 1].items) {
		cond_destroy(&p->cond);
		mutex_destroy(&p->lock);
	}
	for (i = 0; i < KVM_EVENTS_NR_BATCHES; i++)
		free(p->batches[i].items);
	free(p);
}

static struct kvm_events_batch *filling(struct kvm_events_pipeline *p)
{
	return &p->batches[p->produced % KVM_EVENTS_NR_BATCHES];
}

struct kvm_events_sample *kvm_events_pipeline__slot(struct kvm_events_pipeline *p)
{
	struct kvm_events_batch *b = filling(p);

	return &b->items[b->nr];
}

int kvm_events_pipeline__push(struct kvm_events_pipeline *p)
{
	struct kvm_events_batch *b = filling(p);

	b->nr++;
	return b->nr == KVM_EVENTS_BATCH_SAMPLES ?
	       kvm_events_pipeline__publish(p, 0, false) : 0;
}

int kvm_events_pipeline__publish(struct kvm_events_pipeline *p, int err, bool last)
{
	struct kvm_events_batch *b = filling(p);
	int ret = 0;

	mutex_lock(&p->lock);
	b->err = err;
	b->last = last;
	p->produced++;
	cond_broadcast(&p->cond);
	while (!last && p->produced - p->consumed == KVM_EVENTS_NR_BATCHES)
		cond_wait(&p->cond, &p->lock);
	if (p->stop)
		ret = -ECANCELED;
	mutex_unlock(&p->lock);
	/* After the last one, that slot may be a batch not yet paired. */
	if (!last)
		filling(p)->nr = 0;
	return ret;
}

struct kvm_events_batch *kvm_events_pipeline__wait(struct kvm_events_pipeline *p)
{
	mutex_lock(&p->lock);
	while (p->consumed == p->produced)
		cond_wait(&p->cond, &p->lock);
	mutex_unlock(&p->lock);
	return &p->batches[p->consumed % KVM_EVENTS_NR_BATCHES];
}

void kvm_events_pipeline__done(struct kvm_events_pipeline *p, bool stop)
{
	mutex_lock(&p->lock);
	p->consumed++;
	p->stop = p->stop || stop;
	cond_broadcast(&p->cond);
	mutex_unlock(&p->lock);
}
