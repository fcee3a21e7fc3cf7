// SPDX-License-Identifier: GPL-2.0
/*
 * kvmguest: run a tiny real-mode KVM guest that makes a known number of
 * port I/O and MMIO accesses, so tests can compare the kvm:kvm_pio and
 * kvm:kvm_mmio events recorded around it against exact expected counts.
 *
 * Usage: perf test -w kvmguest [PIO_OUT [PIO_IN [MMIO_WRITE [MMIO_READ
 *                                 [CPUID [RDMSR [WRMSR [HYPERCALL]]]]]]]]
 *        perf test -w kvmguest halt N PERIOD_US
 *        perf test -w kvmguest map
 *
 * After its port and MMIO accesses, the guest executes CPUID, RDMSR and
 * WRMSR of GUEST_MSR, and the hypercall GUEST_HYPERCALL (VMMCALL) as
 * many times as asked (none by default).  KVM handles these in the
 * kernel: each is one exit, and one kvm_cpuid, kvm_msr or kvm_hypercall,
 * that the host does not see but the recording does.
 *
 * The halt form halts N times with interrupts enabled, each halt woken by
 * a local APIC timer armed PERIOD_US microseconds before, so that KVM
 * handles each HLT in the kernel and emits kvm:kvm_vcpu_wakeup (and
 * kvm:kvm_halt_poll_ns when it resizes its halt-polling window).
 *
 * The map form prints the guest code's loops as a System.map would, for
 * a report of the exits by guest function (--key sym).
 *
 * Exit codes: 0 all counts matched, 1 failure (bad argument, KVM error,
 * unexpected exit or count mismatch), 2 skip (no usable KVM, a KVM that
 * runs no real-mode guest, no in-kernel irqchip or x2APIC for the halt
 * form, or neither x86 nor arm64).
 */
#include <stdio.h>
#include <linux/compiler.h>
#include "../tests.h"
#include "kvmguest-vm.h"

#if defined(__x86_64__) || defined(__i386__)

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <linux/kernel.h>
#include <linux/kvm.h>

/* Guest RAM: one memslot at GPA 0; anything outside it is MMIO for KVM. */
#define GUEST_CODE_GPA		0x1000UL

/* Ports KVM does not emulate in the kernel, so every access exits. */
#define GUEST_PORT_OUT		0x500
#define GUEST_PORT_IN		0x501

/* Below 1 MiB so real mode reaches them, but outside the only memslot. */
#define GUEST_MMIO_WRITE_GPA	0x80000UL
#define GUEST_MMIO_READ_GPA	0x80010UL

/*
 * IA32_UCODE_REV: an MSR that KVM intercepts on VMX and SVM and handles
 * in the kernel, whose guest writes it ignores.
 */
#define GUEST_MSR		0x8b

/* KVM_HC_VAPIC_POLL_IRQ: a hypercall that does nothing and returns 0. */
#define GUEST_HYPERCALL		1

/* Where the guest finds the counts of its CPUID, MSR and hypercall loops. */
#define GUEST_COUNTS_GPA	0x700UL

/* What the host hands back to the guest's reads. */
#define GUEST_IN_VALUE		0x5a
#define GUEST_MMIO_VALUE	0xa5

/*
 * 16-bit real-mode guest. The host loads the four access counts into
 * ESI, EDI, EBP and EBX through KVM_SET_REGS, and the four others into
 * four dwords at GUEST_COUNTS_GPA; 32-bit counters (0x66 prefix) allow
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
	0x31, 0xc0,		/* 43: xor  ax, ax			*/
	0x8e, 0xd8,		/* 45: mov  ds, ax  ; DS base = 0	*/
	0x66, 0x8b, 0x36, 0x00, 0x07,	/* 47: mov esi, [0x700]		*/
	0x66, 0x85, 0xf6,	/* 4c: test esi, esi			*/
	0x74, 0x09,		/* 4f: jz   0x5a			*/
	0x66, 0x31, 0xc0,	/* 51: xor  eax, eax			*/
	0x0f, 0xa2,		/* 54: cpuid				*/
	0x66, 0x4e,		/* 56: dec  esi				*/
	0xeb, 0xf2,		/* 58: jmp  0x4c			*/
	0x66, 0x8b, 0x36, 0x04, 0x07,	/* 5a: mov esi, [0x704]		*/
	0x66, 0xb9, GUEST_MSR, 0x00, 0x00, 0x00, /* 5f: mov ecx, GUEST_MSR */
	0x66, 0x85, 0xf6,	/* 65: test esi, esi			*/
	0x74, 0x06,		/* 68: jz   0x70			*/
	0x0f, 0x32,		/* 6a: rdmsr				*/
	0x66, 0x4e,		/* 6c: dec  esi				*/
	0xeb, 0xf5,		/* 6e: jmp  0x65			*/
	0x66, 0x8b, 0x36, 0x08, 0x07,	/* 70: mov esi, [0x708]		*/
	0x66, 0x31, 0xc0,	/* 75: xor  eax, eax			*/
	0x66, 0x31, 0xd2,	/* 78: xor  edx, edx			*/
	0x66, 0x85, 0xf6,	/* 7b: test esi, esi			*/
	0x74, 0x06,		/* 7e: jz   0x86			*/
	0x0f, 0x30,		/* 80: wrmsr				*/
	0x66, 0x4e,		/* 82: dec  esi				*/
	0xeb, 0xf5,		/* 84: jmp  0x7b			*/
	0x66, 0x8b, 0x36, 0x0c, 0x07,	/* 86: mov esi, [0x70c]		*/
	0x66, 0x85, 0xf6,	/* 8b: test esi, esi			*/
	0x74, 0x0d,		/* 8e: jz   0x9d			*/
	0x66, 0xb8, GUEST_HYPERCALL, 0x00, 0x00, 0x00, /* 90: mov eax, nr */
	0x0f, 0x01, 0xd9,	/* 96: vmmcall ; KVM returns in eax	*/
	0x66, 0x4e,		/* 99: dec  esi				*/
	0xeb, 0xee,		/* 9b: jmp  0x8b			*/
	0xf4,			/* 9d: hlt				*/
};

/*
 * The loops of guest_code, as a guest System.map would name them, for
 * perf kvm-events report --key sym (perf test -w kvmguest map).  The
 * guest's rip is its offset in the code segment, which starts at
 * GUEST_CODE_GPA; "guest_code_end" ends the last loop.
 */
static const struct kvmguest_label guest_code_labels[] = {
	{ 0x00, "pio_out_loop" },
	{ 0x10, "pio_in_loop" },
	{ 0x20, "mmio_write_loop" },
	{ 0x34, "mmio_read_loop" },
	{ 0x43, "cpuid_loop" },
	{ 0x5a, "rdmsr_loop" },
	{ 0x70, "wrmsr_loop" },
	{ 0x86, "hypercall_loop" },
	{ 0x9d, "guest_halt" },
	{ sizeof(guest_code), "guest_code_end" },
};

/* The counts, in the order of the arguments */
enum guest_count {
	PIO_OUT, PIO_IN, MMIO_WRITE, MMIO_READ,
	/* The loops the host does not see, in GUEST_COUNTS_GPA's order */
	CPUID_LOOPS, RDMSR_LOOPS, WRMSR_LOOPS, HYPERCALL_LOOPS,
	NR_COUNTS
};

/*
 * kvm_pvm's KVM runs only PVM guests, which run in the CPU's user mode
 * without its virtualization extensions.  It emulates some of what a
 * real-mode guest does, not all: this guest's VMMCALL exits as an access
 * to port 0.  KVM tells no capability, VM type or CPUID leaf that sets it
 * apart, so the module that backs /dev/kvm does: kvm_intel's or kvm_amd's
 * runs this guest.
 */
static int guest_vm__can_run(struct guest_vm *vm __maybe_unused)
{
	if (!access("/sys/module/kvm_intel", F_OK) || !access("/sys/module/kvm_amd", F_OK) ||
	    access("/sys/module/kvm_pvm", F_OK))
		return KVMGUEST_OK;
	fprintf(stderr, PFX "%s\n",
		"/dev/kvm is kvm_pvm's, which runs only PVM guests, not this real-mode guest: load kvm_intel or kvm_amd, or run it in the test machine (make vm-check)");
	return KVMGUEST_SKIP;
}

/*
 * Starts the vcpu at the guest code with @regs, whose other registers the
 * caller set; interrupts stay off until the guest's own sti, if any.  The
 * vcpu starts at the reset vector (CS base 0xffff0000); point CS at GPA 0
 * instead so RIP is the code's physical address.
 */
static int guest_vm__start_at_code(struct guest_vm *vm, struct kvm_regs *regs)
{
	struct kvm_sregs sregs;

	if (KVMGUEST_IOCTL(vm->vcpu_fd, KVM_GET_SREGS, &sregs))
		return KVMGUEST_FAIL;
	sregs.cs.base = 0;
	sregs.cs.selector = 0;
	regs->rip = GUEST_CODE_GPA;
	regs->rflags = 0x2;	/* bit 1 is reserved and must be set */
	return KVMGUEST_IOCTL(vm->vcpu_fd, KVM_SET_SREGS, &sregs) ?:
	       KVMGUEST_IOCTL(vm->vcpu_fd, KVM_SET_REGS, regs);
}

static int guest_vm__set_entry(struct guest_vm *vm)
{
	uint32_t *counts = (uint32_t *)((char *)vm->mem + GUEST_COUNTS_GPA);
	struct kvm_regs regs = {
		.rsi = vm->want[PIO_OUT],
		.rdi = vm->want[PIO_IN],
		.rbp = vm->want[MMIO_WRITE],
		.rbx = vm->want[MMIO_READ],
	};
	int i;

	for (i = CPUID_LOOPS; i < NR_COUNTS; i++)
		counts[i - CPUID_LOOPS] = vm->want[i];
	return guest_vm__start_at_code(vm, &regs);
}

static int handle_io(struct kvm_run *run, unsigned long *seen)
{
	bool out = run->io.direction == KVM_EXIT_IO_OUT;

	/* The guest only does single-byte, non-string accesses. */
	if (run->io.size == 1 && run->io.count == 1 &&
	    run->io.port == (out ? GUEST_PORT_OUT : GUEST_PORT_IN)) {
		if (!out)
			*((unsigned char *)run + run->io.data_offset) = GUEST_IN_VALUE;
		seen[out ? PIO_OUT : PIO_IN]++;
		return 0;
	}
	fprintf(stderr, PFX "unexpected %s port %#x size %u count %u\n", out ? "out" : "in",
		run->io.port, run->io.size, run->io.count);
	return -1;
}

static int handle_mmio(struct kvm_run *run, unsigned long *seen)
{
	bool write = run->mmio.is_write;

	if (run->mmio.len == 1 &&
	    run->mmio.phys_addr == (write ? GUEST_MMIO_WRITE_GPA : GUEST_MMIO_READ_GPA)) {
		if (!write)
			run->mmio.data[0] = GUEST_MMIO_VALUE;
		seen[write ? MMIO_WRITE : MMIO_READ]++;
		return 0;
	}
	fprintf(stderr, PFX "unexpected MMIO %s at %#llx len %u\n", write ? "write" : "read",
		(unsigned long long)run->mmio.phys_addr, run->mmio.len);
	return -1;
}

/* Until the guest's final hlt, each access is serviced. */
static int guest_vm__handle_exit(struct guest_vm *vm)
{
	switch (vm->run->exit_reason) {
	case KVM_EXIT_IO:
		return handle_io(vm->run, vm->seen);
	case KVM_EXIT_MMIO:
		return handle_mmio(vm->run, vm->seen);
	case KVM_EXIT_HLT:
		return 1;
	default:
		guest_vm__report_exit(vm->run);
		return -1;
	}
}

static int check_counts(struct guest_vm *vm)
{
	static const char * const names[] = { "pio out", "pio in", "mmio write", "mmio read" };
	int i, err = 0;

	/* Check all four so one run reports every mismatch. */
	for (i = 0; i < (int)ARRAY_SIZE(names); i++)
		err |= kvmguest_check_count(names[i], vm->want[i], vm->seen[i]);
	return err;
}

static const struct guest_form count_form = {
	.code_offset = GUEST_CODE_GPA, .code = guest_code, .size = sizeof(guest_code),
	.setup_vm = guest_vm__can_run, .set_entry = guest_vm__set_entry,
	.handle_exit = guest_vm__handle_exit, .check = check_counts,
};

/*
 * The halt form.  KVM handles a HLT in the kernel, and traces
 * kvm_vcpu_wakeup, only when the local APIC is in the kernel; with the
 * APIC in userspace the HLT exits to the VMM instead.  The wake-up source
 * is the local APIC timer: its hrtimer makes the halted vcpu runnable
 * from interrupt context.  The PIT would do too, but it injects from a
 * kthread of its own, which on the vcpu's CPU ends halt-polling early, so
 * that a test pinned to one CPU would see few or no polled wakeups.
 *
 * In real mode the APIC's MMIO page (0xfee00000) is out of reach, so the
 * guest switches the APIC to x2APIC mode and programs it through MSRs.
 */
#define GUEST_PORT_DONE		0x502	/* the guest's last access: exits */
#define GUEST_IRQ_COUNT_GPA	0x600	/* the handler's 32-bit counter */
#define GUEST_STACK_TOP		0x8000
#define GUEST_TIMER_VECTOR	0x20
#define GUEST_IRQ_HANDLER	0x52	/* the handler's offset in halt_code */
#define CPUID_1_ECX_X2APIC	(1U << 21)

/*
 * The host loads N into ESI and the timer's initial count into EDI.
 * Each round arms the timer, then halts with interrupts enabled: sti
 * holds interrupts off for one more instruction, so the interrupt is
 * taken in the hlt, not before it.  KVM traces no wakeup only if the
 * timer expires before it handles the HLT, i.e. if the vcpu thread is
 * held off for longer than the period.  The handler counts the
 * interrupts at GUEST_IRQ_COUNT_GPA: at least N.
 *
 * The timer is periodic, though each round restarts it: on qemu's
 * emulated SVM CPU, about one run of 200 one-shot halts in 15 lost a
 * timer interrupt, and the guest halted for ever.  A periodic timer wakes
 * such a halt one period later, and a round that outlasts the period
 * finds an interrupt pending, which is why there may be more than N.
 */
static const unsigned char halt_code[] = {
	0x66, 0xb9, 0x1b, 0x00, 0x00, 0x00,	/* 00: mov  ecx, 0x1b ; APIC_BASE */
	0x0f, 0x32,				/* 06: rdmsr			*/
	0x0d, 0x00, 0x0c,			/* 08: or   ax, 0xc00 ; EN|EXTD	*/
	0x0f, 0x30,				/* 0b: wrmsr			*/
	0x66, 0x31, 0xd2,			/* 0d: xor  edx, edx		*/
	0xb9, 0x0f, 0x08,			/* 10: mov  cx, 0x80f ; SVR	*/
	0x66, 0xb8, 0xff, 0x01, 0x00, 0x00,	/* 13: mov  eax, 0x1ff ; enable	*/
	0x0f, 0x30,				/* 19: wrmsr			*/
	0xb9, 0x3e, 0x08,			/* 1b: mov  cx, 0x83e ; TDCR	*/
	0x66, 0xb8, 0x0b, 0x00, 0x00, 0x00,	/* 1e: mov  eax, 0xb ; divide by 1 */
	0x0f, 0x30,				/* 24: wrmsr			*/
	0xb9, 0x32, 0x08,			/* 26: mov  cx, 0x832 ; LVTT	*/
	0x66, 0xb8, 0x20, 0x00, 0x02, 0x00,	/* 29: mov  eax, 0x20020 ; periodic */
	0x0f, 0x30,				/* 2f: wrmsr			*/
	0xb9, 0x38, 0x08,			/* 31: mov  cx, 0x838 ; TMICT	*/
	0x66, 0x89, 0xf5,			/* 34: mov  ebp, esi		*/
	0x66, 0x85, 0xed,			/* 37: test ebp, ebp		*/
	0x74, 0x0c,				/* 3a: jz   0x48		*/
	0x66, 0x89, 0xf8,			/* 3c: mov  eax, edi		*/
	0x0f, 0x30,				/* 3f: wrmsr ; arm the timer	*/
	0xfb,					/* 41: sti			*/
	0xf4,					/* 42: hlt			*/
	0xfa,					/* 43: cli			*/
	0x66, 0x4d,				/* 44: dec  ebp			*/
	0xeb, 0xef,				/* 46: jmp  0x37		*/
	0x66, 0x31, 0xc0,			/* 48: xor  eax, eax		*/
	0x0f, 0x30,				/* 4b: wrmsr ; stop the timer	*/
	0xba, 0x02, 0x05,			/* 4d: mov  dx, 0x502		*/
	0xee,					/* 50: out  dx, al		*/
	0xf4,					/* 51: hlt ; not reached	*/
	/* 52: the timer's handler, through IVT entry GUEST_TIMER_VECTOR */
	0x66, 0x50,				/* 52: push eax			*/
	0x66, 0x51,				/* 54: push ecx			*/
	0x66, 0x52,				/* 56: push edx			*/
	0x66, 0xff, 0x06, 0x00, 0x06,		/* 58: inc  dword [0x600]	*/
	0x66, 0xb9, 0x0b, 0x08, 0x00, 0x00,	/* 5d: mov  ecx, 0x80b ; EOI	*/
	0x66, 0x31, 0xc0,			/* 63: xor  eax, eax		*/
	0x66, 0x31, 0xd2,			/* 66: xor  edx, edx		*/
	0x0f, 0x30,				/* 69: wrmsr			*/
	0x66, 0x5a,				/* 6b: pop  edx			*/
	0x66, 0x59,				/* 6d: pop  ecx			*/
	0x66, 0x58,				/* 6f: pop  eax			*/
	0xcf,					/* 71: iret			*/
};

/*
 * On a host that can run the guest, the irqchip, before the vcpu, which
 * then gets its local APIC in the kernel.  Without one, tests skip.
 */
static int guest_vm__add_irqchip(struct guest_vm *vm)
{
	int ret = guest_vm__can_run(vm);

	if (ret)
		return ret;
	if (ioctl(vm->vm_fd, KVM_CHECK_EXTENSION, KVM_CAP_IRQCHIP) <= 0) {
		fprintf(stderr, PFX "no in-kernel irqchip on this host\n");
		return KVMGUEST_SKIP;
	}
	return KVMGUEST_IOCTL(vm->vm_fd, KVM_CREATE_IRQCHIP, NULL) ? KVMGUEST_SKIP : KVMGUEST_OK;
}

static struct kvm_cpuid2 *get_supported_cpuid(int kvm_fd)
{
	struct kvm_cpuid2 *cpuid;
	int nent;

	/* The ioctl fails with E2BIG until the buffer holds every leaf. */
	for (nent = 64; nent <= 4096; nent *= 2) {
		cpuid = calloc(1, sizeof(*cpuid) + nent * sizeof(cpuid->entries[0]));
		if (!cpuid)
			return NULL;
		cpuid->nent = nent;
		if (!ioctl(kvm_fd, KVM_GET_SUPPORTED_CPUID, cpuid))
			return cpuid;
		free(cpuid);
		if (errno != E2BIG)
			break;
	}
	fprintf(stderr, PFX "KVM_GET_SUPPORTED_CPUID: %s\n", strerror(errno));
	return NULL;
}

/* KVM lets the guest enable x2APIC mode only if its CPUID has it. */
static int guest_vm__set_cpuid(struct guest_vm *vm)
{
	struct kvm_cpuid2 *cpuid = get_supported_cpuid(vm->kvm_fd);
	int ret = KVMGUEST_SKIP;
	unsigned int i;

	if (!cpuid)
		return KVMGUEST_FAIL;
	for (i = 0; i < cpuid->nent; i++) {
		if (cpuid->entries[i].function == 1 &&
		    (cpuid->entries[i].ecx & CPUID_1_ECX_X2APIC))
			ret = KVMGUEST_OK;
	}
	if (ret == KVMGUEST_SKIP)
		fprintf(stderr, PFX "KVM offers no x2APIC to guests\n");
	else
		ret = KVMGUEST_IOCTL(vm->vcpu_fd, KVM_SET_CPUID2, cpuid);
	free(cpuid);
	return ret;
}

/*
 * The timer's handler goes in its real-mode IVT entry: offset then
 * segment, at 4 bytes per vector.
 */
static int guest_vm__set_halt_entry(struct guest_vm *vm)
{
	unsigned char *ivt = (unsigned char *)vm->mem + GUEST_TIMER_VECTOR * 4;
	unsigned int offset = GUEST_CODE_GPA + GUEST_IRQ_HANDLER;
	struct kvm_regs regs = {
		.rsp = GUEST_STACK_TOP,
		.rsi = vm->halts,
		.rdi = vm->period_us * 1000,
	};
	int ret = guest_vm__set_cpuid(vm);

	if (ret)
		return ret;
	ivt[0] = offset & 0xff;
	ivt[1] = offset >> 8;
	ivt[2] = 0;
	ivt[3] = 0;
	return guest_vm__start_at_code(vm, &regs);
}

/*
 * The halts and interrupts stay in the kernel: the only exit to
 * userspace is the guest's final write to GUEST_PORT_DONE.
 */
static int guest_vm__handle_halt_exit(struct guest_vm *vm)
{
	struct kvm_run *run = vm->run;

	if (run->exit_reason != KVM_EXIT_IO) {
		guest_vm__report_exit(run);
		return -1;
	}
	if (run->io.direction == KVM_EXIT_IO_OUT && run->io.port == GUEST_PORT_DONE)
		return 1;
	fprintf(stderr, PFX "unexpected access to port %#x\n", run->io.port);
	return -1;
}

static int check_halts(struct guest_vm *vm)
{
	uint32_t irqs = *(uint32_t *)((char *)vm->mem + GUEST_IRQ_COUNT_GPA);

	if (irqs >= vm->halts)
		return KVMGUEST_OK;
	fprintf(stderr, PFX "timer interrupts: %u for %lu halts\n", irqs, vm->halts);
	return KVMGUEST_FAIL;
}

static const struct guest_form halt_form = {
	.code_offset = GUEST_CODE_GPA, .code = halt_code, .size = sizeof(halt_code),
	.setup_vm = guest_vm__add_irqchip, .set_entry = guest_vm__set_halt_entry,
	.handle_exit = guest_vm__handle_halt_exit, .check = check_halts,
};

static int kvmguest(int argc, const char **argv)
{
	static const char usage[] =
		"[PIO_OUT [PIO_IN [MMIO_WRITE [MMIO_READ [CPUID [RDMSR [WRMSR [HYPERCALL]]]]]]]]";
	struct guest_vm vm = {
		/* Distinct defaults so a test can tell the four kinds apart. */
		.want = { [PIO_OUT] = 5, [PIO_IN] = 3, [MMIO_WRITE] = 4, [MMIO_READ] = 2 },
	};

	if (argc > 0 && !strcmp(argv[0], "halt"))
		return kvmguest_parse_halt_args(argc - 1, argv + 1, &vm) ?:
		       guest_vm__run_form(&vm, &halt_form);
	if (argc == 1 && !strcmp(argv[0], "map"))
		return kvmguest_print_map(GUEST_CODE_GPA, guest_code_labels,
					  ARRAY_SIZE(guest_code_labels));
	return kvmguest_parse_counts(argc, argv, vm.want, NR_COUNTS, UINT32_MAX, usage) ?:
	       guest_vm__run_form(&vm, &count_form);
}

#elif defined(__aarch64__)

/* The guest of kvmguest-arm64.c: the same two forms, its own accesses */
static int kvmguest(int argc, const char **argv)
{
	return kvmguest_arm64(argc, argv);
}

#else

static int kvmguest(int argc __maybe_unused, const char **argv __maybe_unused)
{
	fprintf(stderr, PFX "the guest code is for x86 and arm64 only\n");
	return KVMGUEST_SKIP;
}

#endif

DEFINE_WORKLOAD(kvmguest);
