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
 * With KVMGUEST_LINGER=SECONDS, the process of the count form stays that
 * long after its guest ended (see linger()).
 *
 * Exit codes: 0 all counts matched, 1 failure (bad argument, KVM error,
 * unexpected exit or count mismatch), 2 skip (no usable KVM, a KVM that
 * runs no real-mode guest, no in-kernel irqchip or x2APIC for the halt
 * form, or neither x86 nor arm64).
 */
#include <linux/compiler.h>
#include "../tests.h"
#include "kvmguest-vm.h"

#if defined(__x86_64__) || defined(__i386__)

/* Guest RAM: one memslot at GPA 0; anything outside it is MMIO for KVM. */
#define GUEST_CODE_GPA		0x1000UL
/* Ports KVM does not emulate in the kernel, so every access exits. */
#define GUEST_PORT_OUT		0x500
#define GUEST_PORT_IN		0x501
/* Below 1 MiB so real mode reaches them, but outside the only memslot. */
#define GUEST_MMIO_WRITE_GPA	0x80000UL
#define GUEST_MMIO_READ_GPA	0x80010UL
/* IA32_UCODE_REV: KVM intercepts it on VMX and SVM, handles it in the kernel, ignores writes */
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
 * Each loop: test its counter, jz past the loop, access, dec, jmp to the test.
 */
static const unsigned char guest_code[] = {
	/* 00: port writes: mov dx, 0x500; mov ecx, esi; 06: the loop of out dx, al */
	0xba, 0x00, 0x05, 0x66, 0x89, 0xf1,
	0x66, 0x85, 0xc9, 0x74, 0x05, 0xee, 0x66, 0x49, 0xeb, 0xf6,
	/* 10: port reads: mov dx, 0x501; mov ecx, edi; 16: the loop of in al, dx */
	0xba, 0x01, 0x05, 0x66, 0x89, 0xf9,
	0x66, 0x85, 0xc9, 0x74, 0x05, 0xec, 0x66, 0x49, 0xeb, 0xf6,
	/* 20: MMIO writes: mov ax, 0x8000; mov ds, ax (DS base 0x80000); mov ecx, ebp */
	0xb8, 0x00, 0x80, 0x8e, 0xd8, 0x66, 0x89, 0xe9,
	/* 28: the loop of mov [0x0000], al: GPA 0x80000 */
	0x66, 0x85, 0xc9, 0x74, 0x07, 0xa2, 0x00, 0x00, 0x66, 0x49, 0xeb, 0xf4,
	/* 34: MMIO reads: mov ecx, ebx; 37: the loop of mov al, [0x0010]: GPA 0x80010 */
	0x66, 0x89, 0xd9,
	0x66, 0x85, 0xc9, 0x74, 0x07, 0xa0, 0x10, 0x00, 0x66, 0x49, 0xeb, 0xf4,
	/* 43: CPUIDs: xor ax, ax; mov ds, ax (DS base 0); mov esi, [0x700] */
	0x31, 0xc0, 0x8e, 0xd8, 0x66, 0x8b, 0x36, 0x00, 0x07,
	/* 4c: the loop of xor eax, eax; cpuid */
	0x66, 0x85, 0xf6, 0x74, 0x09, 0x66, 0x31, 0xc0, 0x0f, 0xa2, 0x66, 0x4e, 0xeb, 0xf2,
	/* 5a: RDMSRs: mov esi, [0x704]; mov ecx, GUEST_MSR; 65: the loop of rdmsr */
	0x66, 0x8b, 0x36, 0x04, 0x07, 0x66, 0xb9, GUEST_MSR, 0x00, 0x00, 0x00,
	0x66, 0x85, 0xf6, 0x74, 0x06, 0x0f, 0x32, 0x66, 0x4e, 0xeb, 0xf5,
	/* 70: WRMSRs: mov esi, [0x708]; xor eax, eax; xor edx, edx; 7b: the loop of wrmsr */
	0x66, 0x8b, 0x36, 0x08, 0x07, 0x66, 0x31, 0xc0, 0x66, 0x31, 0xd2,
	0x66, 0x85, 0xf6, 0x74, 0x06, 0x0f, 0x30, 0x66, 0x4e, 0xeb, 0xf5,
	/* 86: hypercalls: mov esi, [0x70c]; 8b: the loop of mov eax, nr; vmmcall (sets eax) */
	0x66, 0x8b, 0x36, 0x0c, 0x07,
	0x66, 0x85, 0xf6, 0x74, 0x0d, 0x66, 0xb8, GUEST_HYPERCALL, 0x00, 0x00, 0x00,
	0x0f, 0x01, 0xd9, 0x66, 0x4e, 0xeb, 0xee,
	0xf4,	/* 9d: hlt */
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
	return kvmguest_err(KVMGUEST_SKIP, "%s\n",
		"/dev/kvm is kvm_pvm's, which runs only PVM guests, not this real-mode guest: load kvm_intel or kvm_amd, or run it in the test machine (make vm-check)");
}

/*
 * Starts the vcpu at the guest code with @regs and interrupts off: CS based
 * at GPA 0, not at the reset vector's 0xffff0000, makes RIP the code's GPA.
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
	return kvmguest_err(-1, "unexpected %s port %#x size %u count %u\n", out ? "out" : "in",
			    run->io.port, run->io.size, run->io.count);
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
	return kvmguest_err(-1, "unexpected MMIO %s at %#llx len %u\n", write ? "write" : "read",
			    (unsigned long long)run->mmio.phys_addr, run->mmio.len);
}

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
		return guest_vm__report_exit(vm->run);
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
	/* 00: x2APIC mode: mov ecx, 0x1b (APIC_BASE); rdmsr; or ax, 0xc00 (EN | EXTD); wrmsr */
	0x66, 0xb9, 0x1b, 0x00, 0x00, 0x00, 0x0f, 0x32, 0x0d, 0x00, 0x0c, 0x0f, 0x30,
	/* 0d: xor edx, edx; enable: mov cx, 0x80f (SVR); mov eax, 0x1ff; wrmsr */
	0x66, 0x31, 0xd2, 0xb9, 0x0f, 0x08, 0x66, 0xb8, 0xff, 0x01, 0x00, 0x00, 0x0f, 0x30,
	/* 1b: divide by 1: mov cx, 0x83e (TDCR); mov eax, 0xb; wrmsr */
	0xb9, 0x3e, 0x08, 0x66, 0xb8, 0x0b, 0x00, 0x00, 0x00, 0x0f, 0x30,
	/* 26: periodic, vector 0x20: mov cx, 0x832 (LVTT); mov eax, 0x20020; wrmsr */
	0xb9, 0x32, 0x08, 0x66, 0xb8, 0x20, 0x00, 0x02, 0x00, 0x0f, 0x30,
	/* 31: mov cx, 0x838 (TMICT); mov ebp, esi; 37: test ebp, ebp; jz 0x48 */
	0xb9, 0x38, 0x08, 0x66, 0x89, 0xf5, 0x66, 0x85, 0xed, 0x74, 0x0c,
	/* 3c: mov eax, edi; wrmsr (arm the timer); sti; hlt; cli; dec ebp; jmp 0x37 */
	0x66, 0x89, 0xf8, 0x0f, 0x30, 0xfb, 0xf4, 0xfa, 0x66, 0x4d, 0xeb, 0xef,
	/* 48: xor eax, eax; wrmsr (stop the timer); mov dx, 0x502; out dx, al; hlt (not reached) */
	0x66, 0x31, 0xc0, 0x0f, 0x30, 0xba, 0x02, 0x05, 0xee, 0xf4,
	/* 52: the timer's handler, IVT entry GUEST_TIMER_VECTOR: push eax; push ecx; push edx */
	0x66, 0x50, 0x66, 0x51, 0x66, 0x52,
	/* 58: inc dword [0x600]; EOI: mov ecx, 0x80b; xor eax, eax; xor edx, edx; wrmsr */
	0x66, 0xff, 0x06, 0x00, 0x06, 0x66, 0xb9, 0x0b, 0x08, 0x00, 0x00,
	0x66, 0x31, 0xc0, 0x66, 0x31, 0xd2, 0x0f, 0x30,
	/* 6b: pop edx; pop ecx; pop eax; iret */
	0x66, 0x5a, 0x66, 0x59, 0x66, 0x58, 0xcf,
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
	if (ioctl(vm->vm_fd, KVM_CHECK_EXTENSION, KVM_CAP_IRQCHIP) <= 0)
		return kvmguest_err(KVMGUEST_SKIP, "no in-kernel irqchip on this host\n");
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
	return kvmguest_err(NULL, "KVM_GET_SUPPORTED_CPUID: %s\n", strerror(errno));
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
	ret = ret ? kvmguest_err(ret, "KVM offers no x2APIC to guests\n") :
		    KVMGUEST_IOCTL(vm->vcpu_fd, KVM_SET_CPUID2, cpuid);
	free(cpuid);
	return ret;
}

/*
 * The timer's handler goes in its real-mode IVT entry: offset then
 * segment, at 4 bytes per vector.
 */
static int guest_vm__set_halt_entry(struct guest_vm *vm)
{
	uint16_t *ivt = (uint16_t *)vm->mem + GUEST_TIMER_VECTOR * 2;
	struct kvm_regs regs = {
		.rsp = GUEST_STACK_TOP,
		.rsi = vm->halts,
		.rdi = vm->period_us * 1000,
	};
	int ret = guest_vm__set_cpuid(vm);

	if (ret)
		return ret;
	ivt[0] = GUEST_CODE_GPA + GUEST_IRQ_HANDLER;
	ivt[1] = 0;
	return guest_vm__start_at_code(vm, &regs);
}

/*
 * The halts and interrupts stay in the kernel: the only exit to
 * userspace is the guest's final write to GUEST_PORT_DONE.
 */
static int guest_vm__handle_halt_exit(struct guest_vm *vm)
{
	struct kvm_run *run = vm->run;

	if (run->exit_reason != KVM_EXIT_IO)
		return guest_vm__report_exit(run);
	if (run->io.direction == KVM_EXIT_IO_OUT && run->io.port == GUEST_PORT_DONE)
		return 1;
	return kvmguest_err(-1, "unexpected access to port %#x\n", run->io.port);
}

static int check_halts(struct guest_vm *vm)
{
	uint32_t irqs = *(uint32_t *)((char *)vm->mem + GUEST_IRQ_COUNT_GPA);

	if (irqs >= vm->halts)
		return KVMGUEST_OK;
	return kvmguest_err(KVMGUEST_FAIL, "timer interrupts: %u for %lu halts\n", irqs, vm->halts);
}

static const struct guest_form halt_form = {
	.code_offset = GUEST_CODE_GPA, .code = halt_code, .size = sizeof(halt_code),
	.setup_vm = guest_vm__add_irqchip, .set_entry = guest_vm__set_halt_entry,
	.handle_exit = guest_vm__handle_halt_exit, .check = check_halts,
};

/*
 * KVMGUEST_LINGER=SECONDS: after a guest that ran as asked, the process
 * stays that long, saying so first on stdout, as a VM that idles: live
 * forgets a VM process that exited, and a test that reads live's metrics
 * reads them while the guest's process is still there.
 */
static int linger(int ret)
{
	const char *seconds = getenv("KVMGUEST_LINGER");

	if (ret || !seconds)
		return ret;
	printf("kvmguest: the guest ended; lingering %s s\n", seconds);
	fflush(stdout);
	sleep(strtoul(seconds, NULL, 10));
	return 0;
}

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
	       linger(guest_vm__run_form(&vm, &count_form));
}

#elif defined(__aarch64__)

static int kvmguest(int argc, const char **argv)
{
	return kvmguest_arm64(argc, argv);
}

#else

static int kvmguest(int argc __maybe_unused, const char **argv __maybe_unused)
{
	return kvmguest_err(KVMGUEST_SKIP, "the guest code is for x86 and arm64 only\n");
}

#endif

DEFINE_WORKLOAD(kvmguest);
