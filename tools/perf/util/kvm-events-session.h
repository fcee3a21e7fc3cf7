/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_KVM_EVENTS_SESSION_H
#define __PERF_KVM_EVENTS_SESSION_H

/*
 * One recording read into a report: opened with perf's session code,
 * its kvm tracepoints given their decoders, and its events read by the
 * fast reader (kvm-events-reader.c) where it can, by perf's session code
 * where it cannot.  report and diff read recordings through it.
 */
#include <stdbool.h>
#include "data.h"
#include "kvm-events.h"
#include "tool.h"

struct perf_session;
struct kvm_events_heatmap;
struct evsel;
struct kvm_events_bpf_recording;
struct kvm_events_vm_filter;
struct kvm_events_vms;

struct kvm_events_recording {
	/* Set by the caller */
	const char			*cmd;	/* the subcommand, for errors */
	const char			*input;
	const char			*time;	/* --time as given, or NULL */
	int				threads;
	bool				force;
	bool				generic_reader;
	struct kvm_events_vm_filter	*vm_filter;	/* --vm, or NULL */
	/* The filters; its --time ranges, and --vm's pids, are this recording's own */
	struct kvm_events_options	opts;
	/* Made by kvm_events_recording__load() */
	struct perf_tool		tool;
	struct kvm_events_report	report;
	struct perf_session		*session;
	struct perf_data		data;	/* the session points to it */
	struct kvm_events_input		in;
	const struct kvm_events_analysis *analysis;
	struct kvm_events_heatmap	*heatmap;	/* --heatmap's counts */
	/* record --use-bpf's events of the analysis, and whether of others */
	struct kvm_events_bpf_source {
		struct evsel			*evsel;
		struct kvm_events_bpf_recording	*rec;
	}				bpf[KVM_EVENTS_MAX_ANALYSES];
	u32				nr_bpf;
	bool				bpf_other;
	struct kvm_events_vms		*vms;		/* the header's names, or NULL */
	struct intlist			*vm_pids;	/* --vm's, in opts.pids */
};

/* @rec's input, read into a report of @analysis ready to print */
int kvm_events_recording__load(struct kvm_events_recording *rec,
			       const struct kvm_events_analysis *analysis);
void kvm_events_recording__exit(struct kvm_events_recording *rec);

#endif /* __PERF_KVM_EVENTS_SESSION_H */
