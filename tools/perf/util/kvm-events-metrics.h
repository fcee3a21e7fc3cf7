/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_KVM_EVENTS_METRICS_H
#define __PERF_KVM_EVENTS_METRICS_H

/*
 * perf kvm-events' metrics, in Prometheus' text exposition format: the
 * counts, times and latency histograms of each key, per VM and vcpu as
 * --metrics-by says, cumulative since the start.  Written to a file that
 * node_exporter's textfile collector reads (--metrics-file, rewritten
 * atomically), and served over HTTP (--metrics-listen, with TLS and
 * basic auth as --metrics-web-config says) by threads of their own, so
 * that a slow scraper never holds up the events.
 */
#include <stdbool.h>
#include <stdio.h>
#include <linux/types.h>
#include "kvm-events.h"

struct kvm_events_display;
struct kvm_events_httpd;

/*
 * --metrics-by: the labels besides analysis and key.  A VM is vm (and
 * vm_uuid) where its owner named it, else pid and comm.
 */
#define KVM_EVENTS_METRICS_VM		(1U << 0)	/* vm, or pid and comm */
#define KVM_EVENTS_METRICS_VCPU		(1U << 1)	/* and vcpu */
#define KVM_EVENTS_METRICS_BY		"key,vm"
/* --metrics-max-series: keys (label sets) written at most */
#define KVM_EVENTS_METRICS_MAX_SERIES	10000

struct kvm_events_metrics {
	const char		*file;		/* --metrics-file */
	const char		*listen;	/* --metrics-listen */
	const char		*web_config;	/* --metrics-web-config */
	u32			by;		/* KVM_EVENTS_METRICS_* */
	bool			by_set;		/* by --metrics-by */
	u32			max_series;
	struct kvm_events_httpd	*httpd;		/* serving the last page made */
};

static inline bool kvm_events_metrics__wanted(const struct kvm_events_metrics *m)
{
	return m->file || m->listen || m->web_config;
}

/* --metrics-by LIST into m->by; @cmd names the subcommand in errors */
int kvm_events_metrics__set_by(struct kvm_events_metrics *m, const char *cmd,
			       const char *list);
/* The report's grouping that the labels need, at least */
enum kvm_events_group kvm_events_metrics__group(const struct kvm_events_metrics *m,
						enum kvm_events_group group);
/*
 * Before any event: the file's folder is writable, the address is bound,
 * the web config is read.  Errors are said, naming the option and what is
 * wrong.
 */
int kvm_events_metrics__open(struct kvm_events_metrics *m, const char *cmd);
/* The server's threads, on the bound address: after any fork */
int kvm_events_metrics__serve(struct kvm_events_metrics *m, const char *cmd);
/*
 * The families of @d's report, in the exposition format; @d->vms names
 * the VMs (live's from /proc, a recording's from its header)
 */
int kvm_events_metrics__write(struct kvm_events_metrics *m,
			      const struct kvm_events_display *d, FILE *fp);
/* @d's report, to the file and to the server's next scrapes */
int kvm_events_metrics__publish(struct kvm_events_metrics *m,
				const struct kvm_events_display *d);
/* Stops the server; the file stays */
void kvm_events_metrics__stop(struct kvm_events_metrics *m);

#endif /* __PERF_KVM_EVENTS_METRICS_H */
