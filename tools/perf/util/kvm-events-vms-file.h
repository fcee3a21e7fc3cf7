/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_KVM_EVENTS_VMS_FILE_H
#define __PERF_KVM_EVENTS_VMS_FILE_H

/*
 * perf kvm-events: the VMs' names in a recording (kvm-events-vms.h).
 *
 * record watches /proc while perf record runs, so that a VM that starts
 * while it records is named too, and stores the names it saw in the
 * recording's header, the HEADER_KVM_VMS feature: the recording carries
 * them to another machine, and a later day, with no file beside it.
 */
#include <stdbool.h>

struct kvm_events_vms;
struct kvm_events_vms_watch;
struct perf_session;

/* Looks at /proc now and every 100 ms, until stop; NULL on ENOMEM */
struct kvm_events_vms_watch *kvm_events_vms_watch__start(const char *procfs);
/*
 * Stops watching and, with @path (a recording's file or folder), stores
 * the VMs seen into its header.  Returns 0, or an error it printed.
 */
int kvm_events_vms_watch__stop(struct kvm_events_vms_watch *watch, const char *path);

/*
 * The VMs @session's header names, or NULL: none named, or a section that
 * is cut short or corrupt, which it says once, naming @input.
 */
struct kvm_events_vms *kvm_events_vms__from_header(struct perf_session *session,
						   const char *input);

#endif /* __PERF_KVM_EVENTS_VMS_FILE_H */
