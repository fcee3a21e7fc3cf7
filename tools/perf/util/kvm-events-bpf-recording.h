/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_KVM_EVENTS_BPF_RECORDING_H
#define __PERF_KVM_EVENTS_BPF_RECORDING_H

/*
 * What the BPF pairing of util/bpf_skel/kvm_events_pair.bpf.c counted,
 * made into a report: from its maps (live --use-bpf), or from what
 * record --use-bpf wrote of them into a bpf-output event of perf.data.
 * Built with or without BPF skeletons: any perf reads such a recording.
 */
#include <linux/types.h>
#include "bpf_skel/kvm_events_pair.h"

struct evsel;
struct kvm_events_analysis;
struct kvm_events_report;
struct perf_sample;

/* The stats of one key of the kernel's into its report entry */
void kvm_events_bpf__add_stats(struct kvm_events_report *report,
			       const struct kvm_events_bpf_key *key,
			       const struct kvm_events_bpf_stats *stats);
/* One bucket of a key's durations: percentiles, --histogram and stddev */
void kvm_events_bpf__add_bucket(struct kvm_events_report *report,
				const struct kvm_events_bpf_bucket *bucket, u64 count);
/* The program's own counts of @nr_slots tracepoints, @tps their roles */
void kvm_events_bpf__add_counts(struct kvm_events_report *report,
				const struct kvm_events_bpf_counts *counts,
				const __u32 *tps, u32 nr_slots);

/* The analysis whose records @evsel holds, if it is such an event */
const char *kvm_events_bpf_recording__analysis(struct evsel *evsel);

struct kvm_events_bpf_recording;

struct kvm_events_bpf_recording *kvm_events_bpf_recording__new(const char *input);
void kvm_events_bpf_recording__delete(struct kvm_events_bpf_recording *rec);
/* One sample of the bpf-output event */
int kvm_events_bpf_recording__add(struct kvm_events_bpf_recording *rec,
				  struct kvm_events_report *report,
				  const struct perf_sample *sample);
/* The analysis of its last whole dump; NULL: none */
const char *kvm_events_bpf_recording__dumped(const struct kvm_events_bpf_recording *rec);
/* The last whole dump, with the events, into @report */
int kvm_events_bpf_recording__finish(struct kvm_events_bpf_recording *rec,
				     struct kvm_events_report *report);

#endif /* __PERF_KVM_EVENTS_BPF_RECORDING_H */
