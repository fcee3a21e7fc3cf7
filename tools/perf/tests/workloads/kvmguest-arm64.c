// SPDX-License-Identifier: GPL-2.0
/*
 * kvmguest on arm64: run a tiny AArch64 KVM guest, at EL1 with its MMU
 * off, that makes a known number of MMIO accesses, hypercalls and trapped
 * system register reads, so tests can compare the kvm events recorded
 * around it against exact expected counts.
 *
 * Usage: perf test -w kvmguest [MMIO_WRITE [MMIO_READ [HVC [SYSREG]]]]
 *        perf test -w kvmguest halt N PERIOD_US
 *        perf test -w kvmguest map
 *
 * MMIO_WRITE (default 4) 32-bit stores of GUEST_WRITE_VALUE to
 * GUEST_MMIO_WRITE_GPA and MMIO_READ (default 2) 32-bit loads from
 * GUEST_MMIO_READ_GPA, both outside the memslot, so each is an exit to
 * this program.  Then HVC (default 0) PSCI_VERSION calls, "hvc #0", and
 * SYSREG (default 0) reads of OSLSR_EL1, which KVM always traps (it sets
 * MDCR_EL2.TDOSA): KVM handles both in the kernel.  Last, one 64-bit
 * store to GUEST_DONE_GPA tells how many of the reads, calls and sysreg
 * reads returned what was expected; each count is at most GUEST_MAX_COUNT
 * to fit in it.
 *
 * The exits of the count form, by kvm:kvm_exit's exit type and class:
 *  - MMIO_WRITE + MMIO_READ + 1 TRAP DABT_LOW, each a KVM_EXIT_MMIO with
 *    one kvm:kvm_userspace_exit: the accesses and the final store;
 *  - HVC TRAP HVC64, each with one kvm:kvm_hvc_arm64;
 *  - SYSREG TRAP SYS64, each with one kvm:kvm_sys_access and one
 *    kvm:kvm_handle_sys_reg;
 *  - one TRAP IABT_LOW, the first instruction fetch, which maps the only
 *    page the guest touches: it reads and writes no RAM, so no other
 *    stage-2 fault comes unless the host reclaims or moves that page;
 *  - any number of IRQ exits, for host interrupts while the guest runs
 *    (their esr_ec is no exit class): under TCG, 0 to 20 in 2000 exits.
 * Each IABT_LOW and DABT_LOW has one kvm:kvm_guest_fault.  kvm:kvm_mmio
 * shows each MMIO write once, and each read twice: as unsatisfied, then
 * with its data once this program has answered.
 *
 * The map form prints the count form's loops as a System.map would, for
 * a report of the exits by guest function (--key sym).
 *
 * The halt form enables the virtual timer's PPI (27) in an in-kernel
 * GICv3 and, N times, arms the virtual timer PERIOD_US microseconds ahead
 * and executes WFI with interrupts masked in PSTATE: a pending interrupt
 * ends a WFI even so, and then needs no vector.  KVM traps each WFI
 * (HCR_EL2.TWI, unless kvm-arm.wfi_trap_policy says otherwise) and
 * handles it in the kernel, waking the vcpu when the timer expires; the
 * guest then acknowledges the interrupt, stops the timer and ends the
 * interrupt through its GIC CPU interface, which traps nothing.  Its
 * exits:
 *  - N - E TRAP WFx, each with one kvm:kvm_wfx_arm64 and one
 *    kvm:kvm_vcpu_wakeup (and kvm:kvm_halt_poll_ns when KVM resizes its
 *    polling window), where E is the number of halts whose timer expired
 *    before their WFI: such a WFI finds the interrupt pending and does
 *    not trap, and the expiry was itself an IRQ exit, the host taking the
 *    timer's interrupt while the guest ran.  So WFx <= N <= WFx + IRQ.
 *    E is 0 unless the vcpu is held off for PERIOD_US between arming the
 *    timer and its WFI, four instructions apart; under TCG, 0 to 6 of 200
 *    halts of 1000 us;
 *  - three TRAP DABT_LOW handled in the kernel, the guest's writes to the
 *    GIC's GICD_CTLR, GICR_WAKER and GICR_ISENABLER0, each with one
 *    kvm:kvm_mmio, and one DABT_LOW KVM_EXIT_MMIO, the final store to
 *    GUEST_DONE_GPA, the only kvm:kvm_userspace_exit;
 *  - one TRAP IABT_LOW and any number of IRQ exits, as in the count form.
 *
 * Exit codes: 0 all counts matched, 1 failure (bad argument, KVM error,
 * unexpected exit or count mismatch), 2 skip (no usable KVM, no PSCI 0.2,
 * or no in-kernel GICv3 for the halt form).
 */
#include "kvmguest-vm.h"

#if defined(__aarch64__)

/* The vectors and the code share the memslot's first 4 KiB, so one stage-2 fault maps them. */
#define GUEST_MEM_GPA		0x40000000UL
#define GUEST_VECTORS_OFFSET	0x0UL	/* VBAR_EL1 needs 2 KiB alignment */
#define GUEST_VECTOR_SIZE	0x80UL
#define GUEST_NR_VECTORS	16
#define GUEST_CODE_OFFSET	0x800UL
/* Outside the memslot, so every access is an MMIO exit to userspace. */
#define GUEST_MMIO_WRITE_GPA	0x20000000UL
#define GUEST_MMIO_READ_GPA	0x20000010UL
#define GUEST_DONE_GPA		0x20000020UL
#define GUEST_FAULT_GPA		0x20000030UL	/* ESR_EL1, then ELR_EL1 */
/* The in-kernel GICv3's frames; the redistributor is two 64 KiB frames. */
#define GUEST_GICD_GPA		0x08000000UL
#define GUEST_GICR_GPA		0x080a0000UL
#define GUEST_WRITE_VALUE	0x5a
#define GUEST_READ_VALUE	0xa5
/* The done value packs three counts of GUEST_COUNT_BITS bits each. */
#define GUEST_COUNT_BITS	21
#define GUEST_MAX_COUNT		((1UL << GUEST_COUNT_BITS) - 1)

/*
 * Each of the 16 vectors: report the exception to the host and stop.  The
 * host loads x28 with GUEST_FAULT_GPA.  ELR_EL1 goes first, so that the
 * host has both when the write of ESR_EL1 ends the run.
 */
static const uint32_t guest_vector[] = {
	/* mrs x0, elr_el1; str x0, [x28, #8]; mrs x0, esr_el1; str x0, [x28]; b . */
	0xd5384020, 0xf9000780, 0xd5385200, 0xf9000380, 0x14000000,
};

/*
 * The count form.  The host loads the counts into x19 to x22, the PSCI
 * version that KVM reports into w23, and the addresses the guest uses
 * into x24 to x28.  Testing each count before its access allows 0.  The
 * guest counts the reads, calls and sysreg reads that return what is
 * expected in x9, x10 and x11, and stores them packed at GUEST_DONE_GPA.
 */
static const uint32_t guest_code[] = {
	/* 00: the vectors: msr vbar_el1, x27; isb; mov w1, #GUEST_WRITE_VALUE */
	0xd518c01b, 0xd5033fdf, 0x52800b41,
	/* 0c: MMIO writes: cbz x19, 0x1c; str w1, [x24]; sub x19, x19, #1; b 0x0c */
	0xb4000093, 0xb9000301, 0xd1000673, 0x17fffffd,
	/* 1c: MMIO reads: mov x9, #0; cbz x20, 0x38; ldr w2, [x25]; cmp w2, #GUEST_READ_VALUE */
	0xd2800009, 0xb40000d4, 0xb9400322, 0x7102945f,
	/* 2c: cinc x9, x9, eq (a good read); sub x20, x20, #1; b 0x20 */
	0x9a891529, 0xd1000694, 0x17fffffb,
	/* 38: HVCs: mov x10, #0; cbz x21, 0x58; mov w0, #0x84000000 (PSCI_VERSION); hvc #0 */
	0xd280000a, 0xb40000f5, 0x52b08000, 0xd4000002,
	/* 48: cmp w0, w23; cinc x10, x10, eq (a good call); sub x21, x21, #1; b 0x3c */
	0x6b17001f, 0x9a8a154a, 0xd10006b5, 0x17fffffa,
	/* 58: sysreg reads: mov x11, #0; cbz x22, 0x74; mrs x3, oslsr_el1; tst x3, #8 (OSLM) */
	0xd280000b, 0xb40000d6, 0xd5301183, 0xf27d007f,
	/* 68: cinc x11, x11, ne (the OS lock exists); sub x22, x22, #1; b 0x5c */
	0x9a8b056b, 0xd10006d6, 0x17fffffb,
	/* 74: done: orr x0, x9, x10, lsl #21; orr x0, x0, x11, lsl #42; str x0, [x26]; b . */
	0xaa0a5520, 0xaa0ba800, 0xf9000340, 0x14000000,
};

/*
 * The loops of guest_code, as a guest System.map would name them, for
 * perf kvm-events report --key sym (perf test -w kvmguest map): its MMU
 * is off, so its pc is the code's physical address.  An HVC exit's pc is
 * the instruction after the hvc, still in its loop.
 */
static const struct kvmguest_label guest_code_labels[] = {
	{ 0x00, "guest_setup" },
	{ 0x0c, "mmio_write_loop" },
	{ 0x1c, "mmio_read_loop" },
	{ 0x38, "hvc_loop" },
	{ 0x58, "sysreg_loop" },
	{ 0x74, "guest_done" },
	{ sizeof(guest_code), "guest_code_end" },
};

/*
 * The halt form.  The host loads N into x19, the timer's period in ticks
 * into x20 and the addresses into x24 to x28.  Until N timer interrupts
 * are acknowledged (x9), it arms the timer and waits; a WFI that ends with
 * no timer interrupt pending is repeated, and x10 counts them all.  The
 * timer stays disabled between rounds: its interrupt is level-triggered,
 * so one that expired early is still pending at the WFI, never lost.
 */
static const uint32_t halt_code[] = {
	/* 00: the vectors: msr vbar_el1, x27; isb */
	0xd518c01b, 0xd5033fdf,
	/* 08: mov w1, #0x12; str w1, [x24] (GICD_CTLR = ARE_NS | EnableGrp1NS); */
	/* str wzr, [x25, #0x14] (GICR_WAKER: wake the redistributor) */
	0x52800241, 0xb9000301, 0xb900173f,
	/* 14: add x2, x25, #0x10000 (SGI_base); mov w1, #(1 << 27) (the vtimer's PPI); */
	/* str w1, [x2, #0x100] (GICR_ISENABLER0) */
	0x91404322, 0x52a10001, 0xb9010041,
	/* 20: mov x1, #7; msr icc_sre_el1, x1 (SRE | DFB | DIB); isb */
	0xd28000e1, 0xd518cca1, 0xd5033fdf,
	/* 2c: mov x1, #0xff; msr icc_pmr_el1, x1 (unmask all priorities); */
	/* mov x1, #1; msr icc_igrpen1_el1, x1; isb */
	0xd2801fe1, 0xd5184601, 0xd2800021, 0xd518cce1, 0xd5033fdf,
	/* 40: the rounds: mov x9, #0; mov x10, #0; 48: cmp x9, x19; b.hs 0x88 */
	0xd2800009, 0xd280000a, 0xeb13013f, 0x540001e2,
	/* 50: msr cntv_tval_el0, x20; mov x1, #1 (ENABLE, not IMASK); msr cntv_ctl_el0, x1; isb */
	0xd51be314, 0xd2800021, 0xd51be321, 0xd5033fdf,
	/* 60: wfi; add x10, x10, #1; mrs x3, icc_iar1_el1; cmp w3, #27; b.ne 0x60 (spurious) */
	0xd503207f, 0x9100054a, 0xd538cc03, 0x71006c7f, 0x54ffff81,
	/* 74: msr cntv_ctl_el0, xzr (drop the level); isb; msr icc_eoir1_el1, x3; */
	/* add x9, x9, #1; b 0x48 */
	0xd51be33f, 0xd5033fdf, 0xd518cc23, 0x91000529, 0x17fffff1,
	/* 88: done: orr x0, x9, x10, lsl #32; str x0, [x26]; b . */
	0xaa0a8120, 0xf9000340, 0x14000000,
};

/* The counts, in the order of the arguments */
enum guest_count {
	MMIO_WRITE, MMIO_READ,
	/* The loops the host does not see, reported in the done value */
	HVC, SYSREG,
	NR_COUNTS
};

static int guest_vm__can_run(struct guest_vm *vm)
{
	if (ioctl(vm->kvm_fd, KVM_CHECK_EXTENSION, KVM_CAP_ARM_PSCI_0_2) > 0)
		return KVMGUEST_OK;
	return kvmguest_err(KVMGUEST_SKIP, "KVM offers no PSCI 0.2 to guests\n");
}

static int guest_vm__set_reg(struct guest_vm *vm, size_t offset, uint64_t val, const char *name)
{
	struct kvm_one_reg reg = {
		.id = KVM_REG_ARM64 | KVM_REG_SIZE_U64 | KVM_REG_ARM_CORE |
		      (offset / sizeof(__u32)),
		.addr = (uintptr_t)&val,
	};

	return kvmguest_ioctl(vm->vcpu_fd, KVM_SET_ONE_REG, &reg, name);
}

/*
 * Starts the vcpu at the code, MMU off, in EL1h with DAIF masked whatever
 * its reset state: x19 to x26 from @x, x27 at its vectors (each a copy of
 * guest_vector), x28 at GUEST_FAULT_GPA.
 */
static int guest_vm__start(struct guest_vm *vm, uint64_t x[29])
{
	uint64_t pstate = PSR_MODE_EL1h | PSR_D_BIT | PSR_A_BIT | PSR_I_BIT | PSR_F_BIT;
	int i;

	for (i = 0; i < GUEST_NR_VECTORS; i++) {
		memcpy((char *)vm->mem + GUEST_VECTORS_OFFSET + i * GUEST_VECTOR_SIZE,
		       guest_vector, sizeof(guest_vector));
	}
	x[27] = GUEST_MEM_GPA + GUEST_VECTORS_OFFSET;
	x[28] = GUEST_FAULT_GPA;
	for (i = 19; i <= 28; i++) {
		if (guest_vm__set_reg(vm, offsetof(struct kvm_regs, regs.regs) + i * sizeof(__u64),
				      x[i], "KVM_SET_ONE_REG x register"))
			return KVMGUEST_FAIL;
	}
	return guest_vm__set_reg(vm, offsetof(struct kvm_regs, regs.pstate), pstate,
				 "KVM_SET_ONE_REG pstate") ?:
	       guest_vm__set_reg(vm, offsetof(struct kvm_regs, regs.pc),
				 GUEST_MEM_GPA + GUEST_CODE_OFFSET, "KVM_SET_ONE_REG pc");
}

static int guest_vm__init_vcpu(struct guest_vm *vm)
{
	struct kvm_vcpu_init init = { 0 };

	if (KVMGUEST_IOCTL(vm->vm_fd, KVM_ARM_PREFERRED_TARGET, &init))
		return KVMGUEST_FAIL;
	/* Without PSCI 0.2, KVM would answer the guest's hvc with an UNDEF. */
	init.features[0] |= 1U << KVM_ARM_VCPU_PSCI_0_2;
	return KVMGUEST_IOCTL(vm->vcpu_fd, KVM_ARM_VCPU_INIT, &init);
}

static int guest_vm__set_entry(struct guest_vm *vm)
{
	uint64_t x[29] = {
		[19] = vm->want[MMIO_WRITE], vm->want[MMIO_READ], vm->want[HVC], vm->want[SYSREG],
		[24] = GUEST_MMIO_WRITE_GPA, GUEST_MMIO_READ_GPA, GUEST_DONE_GPA,
	};
	/* w23: what PSCI_VERSION returns, the latest KVM has or what userspace set */
	struct kvm_one_reg reg = { .id = KVM_REG_ARM_PSCI_VERSION, .addr = (uintptr_t)&x[23] };

	return guest_vm__init_vcpu(vm) ?:
	       kvmguest_ioctl(vm->vcpu_fd, KVM_GET_ONE_REG, &reg, "KVM_GET_ONE_REG PSCI version") ?:
	       guest_vm__start(vm, x);
}

/* MMIO data is in the guest's byte order, little-endian at reset. */
static uint64_t mmio_data(const struct kvm_run *run)
{
	uint64_t val = 0;
	int i;

	for (i = run->mmio.len - 1; i >= 0; i--)
		val = val << 8 | run->mmio.data[i];
	return val;
}

static void mmio_answer(struct kvm_run *run, uint64_t val)
{
	unsigned int i;

	for (i = 0; i < run->mmio.len; i++, val >>= 8)
		run->mmio.data[i] = val & 0xff;
}

/*
 * Each exit is an MMIO one: the guest's vectors write ELR_EL1, kept in
 * @vm->report, then ESR_EL1; its last store, to GUEST_DONE_GPA, is kept
 * there too; the count form's accesses (it has no PERIOD_US) come before.
 */
static int guest_vm__handle_exit(struct guest_vm *vm)
{
	struct kvm_run *run = vm->run;
	bool write, count = !vm->period_us;

	if (run->exit_reason != KVM_EXIT_MMIO)
		return guest_vm__report_exit(run);
	write = run->mmio.is_write;
	if (write && run->mmio.len == 8) {
		switch (run->mmio.phys_addr) {
		case GUEST_FAULT_GPA + 8:
			vm->report = mmio_data(run);
			return 0;
		case GUEST_FAULT_GPA:
			return kvmguest_err(-1, "guest exception: ESR_EL1 %#llx at ELR_EL1 %#llx\n",
					    (unsigned long long)mmio_data(run), vm->report);
		case GUEST_DONE_GPA:
			vm->report = mmio_data(run);
			return 1;
		default:
			break;
		}
	}
	if (count && run->mmio.len == 4 &&
	    run->mmio.phys_addr == (write ? GUEST_MMIO_WRITE_GPA : GUEST_MMIO_READ_GPA) &&
	    (!write || mmio_data(run) == GUEST_WRITE_VALUE)) {
		if (!write)
			mmio_answer(run, GUEST_READ_VALUE);
		vm->seen[write ? MMIO_WRITE : MMIO_READ]++;
		return 0;
	}
	return kvmguest_err(-1, "unexpected MMIO %s at %#llx len %u\n", write ? "write" : "read",
			    (unsigned long long)run->mmio.phys_addr, run->mmio.len);
}

static unsigned long done_field(uint64_t done, int i)
{
	return (done >> (i * GUEST_COUNT_BITS)) & GUEST_MAX_COUNT;
}

static int check_counts(struct guest_vm *vm)
{
	const unsigned long *want = vm->want, *seen = vm->seen;
	int err = 0;

	/* Check them all so one run reports every mismatch. */
	err |= kvmguest_check_count("mmio write", want[MMIO_WRITE], seen[MMIO_WRITE]);
	err |= kvmguest_check_count("mmio read", want[MMIO_READ], seen[MMIO_READ]);
	err |= kvmguest_check_count("guest's good mmio reads", want[MMIO_READ],
				    done_field(vm->report, 0));
	err |= kvmguest_check_count("guest's good hvc calls", want[HVC],
				    done_field(vm->report, 1));
	err |= kvmguest_check_count("guest's good sysreg reads", want[SYSREG],
				    done_field(vm->report, 2));
	return err;
}

static const struct guest_form count_form = {
	.gpa = GUEST_MEM_GPA, .code_offset = GUEST_CODE_OFFSET,
	.code = guest_code, .size = sizeof(guest_code),
	.setup_vm = guest_vm__can_run, .set_entry = guest_vm__set_entry,
	.handle_exit = guest_vm__handle_exit, .check = check_counts,
};

static int set_gic_attr(int gic_fd, uint32_t group, uint64_t attr, uint64_t *val, const char *name)
{
	struct kvm_device_attr dattr = { .group = group, .attr = attr, .addr = (uintptr_t)val };

	return kvmguest_ioctl(gic_fd, KVM_SET_DEVICE_ATTR, &dattr, name);
}

/*
 * The vgic goes in after the vcpu, so that its redistributor is sized
 * for it, and before the first run, which it must be initialized for.
 */
static int guest_vm__add_gic(struct guest_vm *vm)
{
	struct kvm_create_device dev = { .type = KVM_DEV_TYPE_ARM_VGIC_V3 };
	uint64_t dist = GUEST_GICD_GPA, redist = GUEST_GICR_GPA;

	if (ioctl(vm->vm_fd, KVM_CREATE_DEVICE, &dev) < 0)
		return kvmguest_err(KVMGUEST_SKIP, "no in-kernel GICv3 on this host: %s\n",
				    strerror(errno));
	vm->dev_fd = dev.fd;
	return set_gic_attr(vm->dev_fd, KVM_DEV_ARM_VGIC_GRP_ADDR, KVM_VGIC_V3_ADDR_TYPE_DIST,
			    &dist, "KVM_SET_DEVICE_ATTR distributor") ?:
	       set_gic_attr(vm->dev_fd, KVM_DEV_ARM_VGIC_GRP_ADDR, KVM_VGIC_V3_ADDR_TYPE_REDIST,
			    &redist, "KVM_SET_DEVICE_ATTR redistributor") ?:
	       set_gic_attr(vm->dev_fd, KVM_DEV_ARM_VGIC_GRP_CTRL, KVM_DEV_ARM_VGIC_CTRL_INIT,
			    NULL, "KVM_SET_DEVICE_ATTR init");
}

/*
 * The guest's counter runs at the host's frequency.  The guest writes the
 * period to CNTV_TVAL_EL0, a signed 32-bit count of ticks.
 */
static int period_ticks(unsigned long period_us, uint64_t *ticks)
{
	uint64_t freq;

	asm volatile("mrs %0, cntfrq_el0" : "=r" (freq));
	*ticks = freq * period_us / 1000000;
	if (!*ticks || *ticks > INT32_MAX)
		return kvmguest_err(-1, "%lu us is %llu ticks at %llu Hz\n", period_us,
				    (unsigned long long)*ticks, (unsigned long long)freq);
	return 0;
}

static int guest_vm__set_halt_entry(struct guest_vm *vm)
{
	uint64_t x[29] = {
		[19] = vm->halts,
		[24] = GUEST_GICD_GPA, GUEST_GICR_GPA, GUEST_DONE_GPA,
	};

	if (period_ticks(vm->period_us, &x[20]) || guest_vm__init_vcpu(vm))
		return KVMGUEST_FAIL;
	return guest_vm__add_gic(vm) ?: guest_vm__start(vm, x);
}

static int check_halts(struct guest_vm *vm)
{
	unsigned long long done = vm->report;

	/*
	 * The guest stops at N interrupts; a WFI more means one ended with
	 * none pending, and then it trapped twice for its halt.
	 */
	if ((done & UINT32_MAX) == vm->halts && (done >> 32) == vm->halts)
		return KVMGUEST_OK;
	return kvmguest_err(KVMGUEST_FAIL, "%llu WFIs for %llu timer interrupts, %lu asked\n",
			    done >> 32, done & UINT32_MAX, vm->halts);
}

static const struct guest_form halt_form = {
	.gpa = GUEST_MEM_GPA, .code_offset = GUEST_CODE_OFFSET,
	.code = halt_code, .size = sizeof(halt_code),
	.setup_vm = guest_vm__can_run, .set_entry = guest_vm__set_halt_entry,
	.handle_exit = guest_vm__handle_exit, .check = check_halts,
};

int kvmguest_arm64(int argc, const char **argv)
{
	struct guest_vm vm = {
		/* Distinct defaults so a test can tell the two kinds apart. */
		.want = { [MMIO_WRITE] = 4, [MMIO_READ] = 2 },
	};

	if (argc > 0 && !strcmp(argv[0], "halt"))
		return kvmguest_parse_halt_args(argc - 1, argv + 1, &vm) ?:
		       guest_vm__run_form(&vm, &halt_form);
	if (argc == 1 && !strcmp(argv[0], "map"))
		return kvmguest_print_map(GUEST_MEM_GPA + GUEST_CODE_OFFSET, guest_code_labels,
					  ARRAY_SIZE(guest_code_labels));
	return kvmguest_parse_counts(argc, argv, vm.want, NR_COUNTS, GUEST_MAX_COUNT,
				     "[MMIO_WRITE [MMIO_READ [HVC [SYSREG]]]]") ?:
	       guest_vm__run_form(&vm, &count_form);
}

#endif /* __aarch64__ */
