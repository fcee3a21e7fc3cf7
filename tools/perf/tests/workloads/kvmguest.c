// SPDX-License-Identifier: GPL-2.0
/*
 * kvmguest: run a tiny real-mode KVM guest that makes a known number of
 * port I/O and MMIO accesses, so tests can compare the kvm:kvm_pio and
 * kvm:kvm_mmio events recorded around it against exact expected counts.
 *
 * Usage: perf test -w kvmguest [PIO_OUT [PIO_IN [MMIO_WRITE [MMIO_READ]]]]
 *
 * Exit codes: 0 all counts matched, 1 failure (bad argument, KVM error,
 * unexpected exit or count mismatch), 2 skip (no usable KVM or not x86).
 */
#include <stdio.h>
#include <linux/compiler.h>
#include "../tests.h"

/* Returned when the host cannot run the guest at all, so tests can skip. */
#define KVMGUEST_SKIP	2

/* All diagnostics go to stderr, leaving stdout silent. */
#define PFX		"kvmguest: "

#if defined(__x86_64__) || defined(__i386__)

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <linux/kvm.h>

#define KVMGUEST_OK	0
#define KVMGUEST_FAIL	1

/* Guest RAM: one memslot at GPA 0; anything outside it is MMIO for KVM. */
#define GUEST_MEM_SIZE		0x10000UL
#define GUEST_CODE_GPA		0x1000UL

/* Ports KVM does not emulate in the kernel, so every access exits. */
#define GUEST_PORT_OUT		0x500
#define GUEST_PORT_IN		0x501

/* Below 1 MiB so real mode reaches them, but outside the only memslot. */
#define GUEST_MMIO_WRITE_GPA	0x80000UL
#define GUEST_MMIO_READ_GPA	0x80010UL

/* What the host hands back to the guest's reads. */
#define GUEST_IN_VALUE		0x5a
#define GUEST_MMIO_VALUE	0xa5

/*
 * 16-bit real-mode guest. The host loads the four counts into ESI, EDI,
 * EBP and EBX through KVM_SET_REGS; 32-bit counters (0x66 prefix) allow
 * counts above 65535, and testing before each access allows a count of 0.
 */
static const unsigned char guest_code[] = {
	0xba, 0x00, 0x05,	/* 00: mov  dx, 0x500			*/
	0x66, 0x89, 0xf1,	/* 03: mov  ecx, esi			*/
	0x66, 0x85, 0xc9,	/* 06: test ecx, ecx			*/
	0x74, 0x05,		/* 09: jz   0x10			*/
	0xee,			/* 0b: out  dx, al			*/
	0x66, 0x49,		/* 0c: dec  ecx				*/
	0xeb, 0xf6,		/* 0e: jmp  0x06			*/
	0xba, 0x01, 0x05,	/* 10: mov  dx, 0x501			*/
	0x66, 0x89, 0xf9,	/* 13: mov  ecx, edi			*/
	0x66, 0x85, 0xc9,	/* 16: test ecx, ecx			*/
	0x74, 0x05,		/* 19: jz   0x20			*/
	0xec,			/* 1b: in   al, dx			*/
	0x66, 0x49,		/* 1c: dec  ecx				*/
	0xeb, 0xf6,		/* 1e: jmp  0x16			*/
	0xb8, 0x00, 0x80,	/* 20: mov  ax, 0x8000			*/
	0x8e, 0xd8,		/* 23: mov  ds, ax  ; DS base = 0x80000	*/
	0x66, 0x89, 0xe9,	/* 25: mov  ecx, ebp			*/
	0x66, 0x85, 0xc9,	/* 28: test ecx, ecx			*/
	0x74, 0x07,		/* 2b: jz   0x34			*/
	0xa2, 0x00, 0x00,	/* 2d: mov  [0x0000], al ; GPA 0x80000	*/
	0x66, 0x49,		/* 30: dec  ecx				*/
	0xeb, 0xf4,		/* 32: jmp  0x28			*/
	0x66, 0x89, 0xd9,	/* 34: mov  ecx, ebx			*/
	0x66, 0x85, 0xc9,	/* 37: test ecx, ecx			*/
	0x74, 0x07,		/* 3a: jz   0x43			*/
	0xa0, 0x10, 0x00,	/* 3c: mov  al, [0x0010] ; GPA 0x80010	*/
	0x66, 0x49,		/* 3f: dec  ecx				*/
	0xeb, 0xf4,		/* 41: jmp  0x37			*/
	0xf4,			/* 43: hlt				*/
};

struct guest_counts {
	unsigned long pio_out;
	unsigned long pio_in;
	unsigned long mmio_write;
	unsigned long mmio_read;
};

struct guest_vm {
	int kvm_fd;
	int vm_fd;
	int vcpu_fd;
	void *mem;
	struct kvm_run *run;
	size_t run_size;
};

static int parse_count(const char *arg, unsigned long *count)
{
	char *end;

	errno = 0;
	*count = strtoul(arg, &end, 0);
	/* The guest counts in 32-bit registers; reject what would not fit. */
	if (errno || end == arg || *end || arg[0] == '-' || *count > UINT32_MAX) {
		fprintf(stderr, PFX "bad count '%s'\n", arg);
		return -1;
	}
	return 0;
}

static int parse_counts(int argc, const char **argv, struct guest_counts *want)
{
	unsigned long *fields[] = {
		&want->pio_out, &want->pio_in, &want->mmio_write, &want->mmio_read,
	};
	int i;

	/* Distinct defaults so a test can tell the four kinds apart. */
	want->pio_out = 5;
	want->pio_in = 3;
	want->mmio_write = 4;
	want->mmio_read = 2;

	if (argc > 4) {
		fprintf(stderr,
			"usage: perf test -w kvmguest [PIO_OUT [PIO_IN [MMIO_WRITE [MMIO_READ]]]]\n");
		return -1;
	}
	for (i = 0; i < argc; i++) {
		if (parse_count(argv[i], fields[i]))
			return -1;
	}
	return 0;
}

static void guest_vm__init(struct guest_vm *vm)
{
	vm->kvm_fd = -1;
	vm->vm_fd = -1;
	vm->vcpu_fd = -1;
	vm->mem = MAP_FAILED;
	vm->run = MAP_FAILED;
	vm->run_size = 0;
}

static void guest_vm__exit(struct guest_vm *vm)
{
	if (vm->run != MAP_FAILED)
		munmap(vm->run, vm->run_size);
	if (vm->mem != MAP_FAILED)
		munmap(vm->mem, GUEST_MEM_SIZE);
	if (vm->vcpu_fd >= 0)
		close(vm->vcpu_fd);
	if (vm->vm_fd >= 0)
		close(vm->vm_fd);
	if (vm->kvm_fd >= 0)
		close(vm->kvm_fd);
}

/* Missing or unusable KVM is the host's limitation, not a test failure. */
static int guest_vm__open(struct guest_vm *vm)
{
	vm->kvm_fd = open("/dev/kvm", O_RDWR | O_CLOEXEC);
	if (vm->kvm_fd < 0) {
		fprintf(stderr, PFX "cannot open /dev/kvm: %s\n", strerror(errno));
		return KVMGUEST_SKIP;
	}
	if (ioctl(vm->kvm_fd, KVM_GET_API_VERSION, 0) != KVM_API_VERSION) {
		fprintf(stderr, PFX "unsupported KVM API version\n");
		return KVMGUEST_SKIP;
	}
	vm->vm_fd = ioctl(vm->kvm_fd, KVM_CREATE_VM, 0);
	if (vm->vm_fd < 0) {
		fprintf(stderr, PFX "cannot create a VM: %s\n", strerror(errno));
		return KVMGUEST_SKIP;
	}
	return KVMGUEST_OK;
}

static int guest_vm__add_memory(struct guest_vm *vm)
{
	struct kvm_userspace_memory_region region = {
		.slot = 0,
		.guest_phys_addr = 0,
		.memory_size = GUEST_MEM_SIZE,
	};

	vm->mem = mmap(NULL, GUEST_MEM_SIZE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (vm->mem == MAP_FAILED) {
		fprintf(stderr, PFX "cannot map guest memory: %s\n", strerror(errno));
		return -1;
	}
	memcpy((char *)vm->mem + GUEST_CODE_GPA, guest_code, sizeof(guest_code));

	region.userspace_addr = (uintptr_t)vm->mem;
	if (ioctl(vm->vm_fd, KVM_SET_USER_MEMORY_REGION, &region) < 0) {
		fprintf(stderr, PFX "KVM_SET_USER_MEMORY_REGION: %s\n", strerror(errno));
		return -1;
	}
	return 0;
}

static int guest_vm__add_vcpu(struct guest_vm *vm)
{
	int size;

	vm->vcpu_fd = ioctl(vm->vm_fd, KVM_CREATE_VCPU, 0);
	if (vm->vcpu_fd < 0) {
		fprintf(stderr, PFX "KVM_CREATE_VCPU: %s\n", strerror(errno));
		return -1;
	}
	/* kvm_run is followed by the PIO data page, so map the full size. */
	size = ioctl(vm->kvm_fd, KVM_GET_VCPU_MMAP_SIZE, 0);
	if (size < (int)sizeof(struct kvm_run)) {
		fprintf(stderr, PFX "bad vcpu mmap size %d\n", size);
		return -1;
	}
	vm->run_size = size;
	vm->run = mmap(NULL, vm->run_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		       vm->vcpu_fd, 0);
	if (vm->run == MAP_FAILED) {
		fprintf(stderr, PFX "cannot map kvm_run: %s\n", strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * The vcpu starts at the reset vector (CS base 0xffff0000); point CS at
 * GPA 0 instead so RIP is the code's physical address.
 */
static int guest_vm__set_entry(struct guest_vm *vm, const struct guest_counts *want)
{
	struct kvm_sregs sregs;
	struct kvm_regs regs;

	if (ioctl(vm->vcpu_fd, KVM_GET_SREGS, &sregs) < 0) {
		fprintf(stderr, PFX "KVM_GET_SREGS: %s\n", strerror(errno));
		return -1;
	}
	sregs.cs.base = 0;
	sregs.cs.selector = 0;
	if (ioctl(vm->vcpu_fd, KVM_SET_SREGS, &sregs) < 0) {
		fprintf(stderr, PFX "KVM_SET_SREGS: %s\n", strerror(errno));
		return -1;
	}

	memset(&regs, 0, sizeof(regs));
	regs.rip = GUEST_CODE_GPA;
	regs.rflags = 0x2;	/* bit 1 is reserved and must be set */
	regs.rsi = want->pio_out;
	regs.rdi = want->pio_in;
	regs.rbp = want->mmio_write;
	regs.rbx = want->mmio_read;
	if (ioctl(vm->vcpu_fd, KVM_SET_REGS, &regs) < 0) {
		fprintf(stderr, PFX "KVM_SET_REGS: %s\n", strerror(errno));
		return -1;
	}
	return 0;
}

static int handle_io(struct kvm_run *run, struct guest_counts *seen)
{
	unsigned char *data = (unsigned char *)run + run->io.data_offset;

	/* The guest only does single-byte, non-string accesses. */
	if (run->io.size != 1 || run->io.count != 1)
		goto unexpected;

	if (run->io.direction == KVM_EXIT_IO_OUT && run->io.port == GUEST_PORT_OUT) {
		seen->pio_out++;
		return 0;
	}
	if (run->io.direction == KVM_EXIT_IO_IN && run->io.port == GUEST_PORT_IN) {
		*data = GUEST_IN_VALUE;
		seen->pio_in++;
		return 0;
	}
unexpected:
	fprintf(stderr, PFX "unexpected %s port %#x size %u count %u\n",
		run->io.direction == KVM_EXIT_IO_OUT ? "out" : "in",
		run->io.port, run->io.size, run->io.count);
	return -1;
}

static int handle_mmio(struct kvm_run *run, struct guest_counts *seen)
{
	if (run->mmio.len != 1)
		goto unexpected;

	if (run->mmio.is_write && run->mmio.phys_addr == GUEST_MMIO_WRITE_GPA) {
		seen->mmio_write++;
		return 0;
	}
	if (!run->mmio.is_write && run->mmio.phys_addr == GUEST_MMIO_READ_GPA) {
		run->mmio.data[0] = GUEST_MMIO_VALUE;
		seen->mmio_read++;
		return 0;
	}
unexpected:
	fprintf(stderr, PFX "unexpected MMIO %s at %#llx len %u\n",
		run->mmio.is_write ? "write" : "read",
		(unsigned long long)run->mmio.phys_addr, run->mmio.len);
	return -1;
}

static void report_exit(const struct kvm_run *run)
{
	switch (run->exit_reason) {
	case KVM_EXIT_FAIL_ENTRY:
		fprintf(stderr, PFX "entry failed, hardware reason %#llx\n",
			(unsigned long long)run->fail_entry.hardware_entry_failure_reason);
		break;
	case KVM_EXIT_INTERNAL_ERROR:
		fprintf(stderr, PFX "KVM internal error, suberror %u\n",
			run->internal.suberror);
		break;
	case KVM_EXIT_SHUTDOWN:
		fprintf(stderr, PFX "guest shut down (triple fault)\n");
		break;
	default:
		fprintf(stderr, PFX "unexpected exit reason %u\n", run->exit_reason);
		break;
	}
}

/* Run the vcpu until the guest's final hlt, servicing each access. */
static int guest_vm__run(struct guest_vm *vm, struct guest_counts *seen)
{
	struct kvm_run *run = vm->run;

	for (;;) {
		if (ioctl(vm->vcpu_fd, KVM_RUN, 0) < 0) {
			/* A signal only interrupts the run; the guest resumes. */
			if (errno == EINTR)
				continue;
			fprintf(stderr, PFX "KVM_RUN: %s\n", strerror(errno));
			return -1;
		}

		switch (run->exit_reason) {
		case KVM_EXIT_IO:
			if (handle_io(run, seen))
				return -1;
			break;
		case KVM_EXIT_MMIO:
			if (handle_mmio(run, seen))
				return -1;
			break;
		case KVM_EXIT_HLT:
			return 0;
		default:
			report_exit(run);
			return -1;
		}
	}
}

static int check_count(const char *what, unsigned long want, unsigned long seen)
{
	if (want == seen)
		return 0;
	fprintf(stderr, PFX "%s: expected %lu, saw %lu\n", what, want, seen);
	return -1;
}

static int check_counts(const struct guest_counts *want, const struct guest_counts *seen)
{
	int err = 0;

	/* Check all four so one run reports every mismatch. */
	err |= check_count("pio out", want->pio_out, seen->pio_out);
	err |= check_count("pio in", want->pio_in, seen->pio_in);
	err |= check_count("mmio write", want->mmio_write, seen->mmio_write);
	err |= check_count("mmio read", want->mmio_read, seen->mmio_read);
	return err;
}

static int guest_vm__setup(struct guest_vm *vm, const struct guest_counts *want)
{
	int ret = guest_vm__open(vm);

	if (ret)
		return ret;
	if (guest_vm__add_memory(vm) || guest_vm__add_vcpu(vm) ||
	    guest_vm__set_entry(vm, want))
		return KVMGUEST_FAIL;
	return KVMGUEST_OK;
}

static int kvmguest(int argc, const char **argv)
{
	struct guest_counts want, seen = { 0 };
	struct guest_vm vm;
	int ret;

	if (parse_counts(argc, argv, &want))
		return KVMGUEST_FAIL;

	guest_vm__init(&vm);
	ret = guest_vm__setup(&vm, &want);
	if (!ret) {
		if (guest_vm__run(&vm, &seen) || check_counts(&want, &seen))
			ret = KVMGUEST_FAIL;
	}
	guest_vm__exit(&vm);
	return ret;
}

#else /* !x86 */

static int kvmguest(int argc __maybe_unused, const char **argv __maybe_unused)
{
	fprintf(stderr, PFX "the guest code is x86-only\n");
	return KVMGUEST_SKIP;
}

#endif

DEFINE_WORKLOAD(kvmguest);
