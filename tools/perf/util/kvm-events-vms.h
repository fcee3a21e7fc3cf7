/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_KVM_EVENTS_VMS_H
#define __PERF_KVM_EVENTS_VMS_H

/*
 * perf kvm-events: VMs by the names their owners gave them.
 *
 * A VM is a process: its events carry its pid, and perf knows its comm,
 * the same "qemu-system-x86" for every qemu.  Its owner knows it by the
 * name and uuid the VMM was started with, as libvirt and others pass
 * them (qemu's -name and -uuid, firecracker's --id), or by the cgroup its
 * threads run in (libvirt's machine scope, a Kubernetes pod's).  This
 * finds those in /proc, keeps them in a table by pid, carries the table
 * in a recording (the HEADER_KVM_VMS feature, encoded here) and matches
 * --vm's patterns against it.
 */
#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

/* Where a VM's name came from */
enum kvm_events_vm_source {
	KVM_EVENTS_VM_SOURCE_NONE,	/* no name: shown by pid and comm */
	KVM_EVENTS_VM_SOURCE_QEMU,	/* qemu's -name [guest=]NAME */
	KVM_EVENTS_VM_SOURCE_FIRECRACKER, /* firecracker's --id NAME */
	KVM_EVENTS_VM_SOURCE_LIBVIRT,	/* libvirt's machine-qemu\x2dN\x2dNAME.scope */
	KVM_EVENTS_VM_SOURCE_MAX,
};

/* One VM process: its strings are the VM's own, each NULL when unknown. */
struct kvm_events_vm {
	u32				pid;
	enum kvm_events_vm_source	source;
	char				*name;
	char				*uuid;
	char				*cgroup;	/* the cgroup v2 path, or v1's first */
	char				*comm;
};

struct intlist;
struct kvm_events_vms;

/*
 * A table of VMs by pid.  With @from_proc (live: the VMs run now),
 * kvm_events_vms__find() asks /proc for a pid it has not seen, once.
 */
struct kvm_events_vms *kvm_events_vms__new(bool from_proc);
void kvm_events_vms__delete(struct kvm_events_vms *vms);

/* The VM of @pid, or NULL: not a VM the table knows or /proc names */
const struct kvm_events_vm *kvm_events_vms__find(struct kvm_events_vms *vms, u32 pid);
/* The comm of @pid, a VM or, from /proc, any process; NULL when unknown */
const char *kvm_events_vms__comm(struct kvm_events_vms *vms, u32 pid);
/* Adds a copy of @vm (replacing @vm->pid's); 0 or -ENOMEM */
int kvm_events_vms__add(struct kvm_events_vms *vms, const struct kvm_events_vm *vm);
/* Forgets @pid: it exited, and a new process may take its number */
void kvm_events_vms__forget(struct kvm_events_vms *vms, u32 pid);
size_t kvm_events_vms__nr(const struct kvm_events_vms *vms);
/* The table's VMs, by pid, for each of which @fn is called; stops at its non-zero */
int kvm_events_vms__for_each(const struct kvm_events_vms *vms,
			     int (*fn)(const struct kvm_events_vm *vm, void *arg), void *arg);

/*
 * /proc/@pid as a VM: 0 with @vm filled (name, uuid, cgroup, comm, as
 * found; source NONE when none names it), -ENOENT when it has exited, 1
 * when it is no VMM's process.  @procfs is "/proc" but in tests.
 */
int kvm_events_vm__from_proc(struct kvm_events_vm *vm, const char *procfs, u32 pid);
/* The pieces of it, for tests: argv as /proc/PID/cmdline gives it (NULs) */
int kvm_events_vm__parse_cmdline(struct kvm_events_vm *vm, const char *cmdline, size_t len);
/* ...and /proc/PID/cgroup's text */
int kvm_events_vm__parse_cgroup(struct kvm_events_vm *vm, const char *text);
void kvm_events_vm__exit(struct kvm_events_vm *vm);

/* Adds every VMM process of @procfs that the table does not have; returns how many */
int kvm_events_vms__scan(struct kvm_events_vms *vms, const char *procfs);

/*
 * The HEADER_KVM_VMS feature's bytes: a version, then each VM's pid,
 * source and strings.  decode() of bytes that are truncated or corrupt
 * keeps the VMs before the bad one and returns -EINVAL.
 */
int kvm_events_vms__encode(const struct kvm_events_vms *vms, void **buf, size_t *size);
int kvm_events_vms__decode(struct kvm_events_vms *vms, const void *buf, size_t size,
			   bool needs_swap);

/* What shows a VM: its name, else its comm, else "" */
const char *kvm_events_vm__label(const struct kvm_events_vm *vm);
const char *kvm_events_vm_source__name(enum kvm_events_vm_source source);

/*
 * --vm NAME|UUID|PID[,...]: a name may be a shell glob (fnmatch), a uuid
 * matches case-blind, a number is a pid.  Each pattern remembers whether
 * it matched, so that one that matched nothing is said.
 */
struct kvm_events_vm_filter;

/* NULL and a one-line error naming @cmd and the pattern on a bad list */
struct kvm_events_vm_filter *kvm_events_vm_filter__new(const char *cmd, const char *list);
void kvm_events_vm_filter__delete(struct kvm_events_vm_filter *f);
/* Whether @vm (or, with @vm NULL, the unnamed process @pid) is one --vm takes */
bool kvm_events_vm_filter__takes(struct kvm_events_vm_filter *f,
				 const struct kvm_events_vm *vm, u32 pid);
/* The patterns that took nothing yet, ", " separated, or NULL */
char *kvm_events_vm_filter__unmatched(const struct kvm_events_vm_filter *f);
/* Adds the pid of each of its pid patterns to @pids; 0 or -ENOMEM */
int kvm_events_vm_filter__add_pids(struct kvm_events_vm_filter *f, struct intlist *pids);

#endif /* __PERF_KVM_EVENTS_VMS_H */
