/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kvmguest workload's VM, the same for each of its guests: one vcpu
 * and one memslot of RAM, which guest_vm__run_form() opens, sets up, runs
 * until the guest is done, checks and tears down.  Each form of a guest
 * brings its code, its registers and what it does at each exit.
 */
#ifndef __PERF_TESTS_WORKLOADS_KVMGUEST_VM_H
#define __PERF_TESTS_WORKLOADS_KVMGUEST_VM_H

#include <stddef.h>
#include <stdio.h>

/* Exit codes: SKIP when the host cannot run the guest, so tests can skip. */
#define KVMGUEST_OK	0
#define KVMGUEST_FAIL	1
#define KVMGUEST_SKIP	2

/* All diagnostics go to stderr, leaving stdout silent. */
#define PFX		"kvmguest: "
/* Says why on stderr, and is @ret: return kvmguest_err(KVMGUEST_SKIP, "...\n") */
#define kvmguest_err(ret, fmt, ...)	(fprintf(stderr, PFX fmt, ##__VA_ARGS__), (ret))

/* Guest RAM: one memslot, a multiple of any host page size. */
#define GUEST_MEM_SIZE	0x10000UL

/* The architectures with a guest, where kvmguest-vm.c builds */
#if defined(__x86_64__) || defined(__i386__)
#define KVMGUEST_VM	1
#elif defined(__aarch64__)
#define KVMGUEST_VM	1
#endif

#ifdef KVMGUEST_VM
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <linux/kernel.h>
#include <linux/kvm.h>
#endif

/* A place in a guest's code, as a guest System.map names it (--key sym) */
struct kvmguest_label {
	unsigned long	offset;
	const char	*name;
};

/* perf test -w kvmguest map: @nr labels of the code at @base, the last its end */
int kvmguest_print_map(unsigned long base, const struct kvmguest_label *labels, size_t nr);

/* The kvmguest workload's arm64 guest, in kvmguest-arm64.c */
int kvmguest_arm64(int argc, const char **argv);

/* The most counts a guest takes: the x86 guest's eight */
#define KVMGUEST_MAX_COUNTS	8

struct guest_vm {
	int		kvm_fd;
	int		vm_fd;
	int		vcpu_fd;
	int		dev_fd;		/* an in-kernel device's: arm64's GICv3 */
	void		*mem;		/* the memslot's GUEST_MEM_SIZE bytes */
	struct kvm_run	*run;
	size_t		run_size;
	/* What the guest is asked to do, and what the host saw it do */
	unsigned long	want[KVMGUEST_MAX_COUNTS];
	unsigned long	seen[KVMGUEST_MAX_COUNTS];
	unsigned long	halts;		/* the halt form's N and PERIOD_US */
	unsigned long	period_us;
	/* What the guest last stored for the host to read */
	unsigned long long report;
};

/*
 * A form of a guest: its code, at @code_offset in its memslot at @gpa, and
 * its steps in guest_vm__run_form().  Each returns KVMGUEST_OK, or the
 * code to exit with once it has said why; but handle_exit() returns 0 to
 * run on, 1 once the guest is done, -1 on failure.
 */
struct guest_form {
	unsigned long	gpa;
	unsigned long	code_offset;
	const void	*code;
	size_t		size;
	/* With the VM: can this KVM run the guest; the devices before the vcpu */
	int		(*setup_vm)(struct guest_vm *vm);
	/* With the vcpu: its registers, and what the guest finds in memory */
	int		(*set_entry)(struct guest_vm *vm);
	int		(*handle_exit)(struct guest_vm *vm);
	/* Once the guest is done: did it do what was asked */
	int		(*check)(struct guest_vm *vm);
};

int guest_vm__run_form(struct guest_vm *vm, const struct guest_form *form);

/* An exit that no form expects: says what KVM says of it, returns -1 */
int guest_vm__report_exit(const struct kvm_run *run);

/* ioctl(@fd, @req, @arg), which says which failed if it did */
int kvmguest_ioctl(int fd, unsigned long req, void *arg, const char *name);
#define KVMGUEST_IOCTL(fd, req, arg)	kvmguest_ioctl(fd, req, arg, #req)

/* The count form's arguments, each at most @max, over the defaults */
int kvmguest_parse_counts(int argc, const char **argv, unsigned long *counts, int nr,
			  unsigned long max, const char *usage);

/*
 * The halt form's: N and PERIOD_US, at most 1 s, well within the x86
 * guest's timer, whose 32-bit initial count counts APIC bus cycles, of
 * 1 ns by default in KVM.
 */
#define GUEST_MAX_PERIOD_US	1000000UL
int kvmguest_parse_halt_args(int argc, const char **argv, struct guest_vm *vm);

int kvmguest_check_count(const char *what, unsigned long want, unsigned long seen);

#endif /* __PERF_TESTS_WORKLOADS_KVMGUEST_VM_H */
