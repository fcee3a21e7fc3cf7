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
 * On an exception the guest's vectors write ELR_EL1 and ESR_EL1 to
 * GUEST_FAULT_GPA, and the run fails with them.
 *
 * Exit codes: 0 all counts matched, 1 failure (bad argument, KVM error,
 * unexpected exit or count mismatch), 2 skip (no usable KVM, no PSCI 0.2,
 * or no in-kernel GICv3 for the halt form).
 */
#include <stdio.h>
#include "kvmguest.h"

#if defined(__aarch64__)

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <linux/kernel.h>
#include <linux/kvm.h>

#define KVMGUEST_OK	0
#define KVMGUEST_FAIL	1
#define KVMGUEST_SKIP	2

#define PFX		"kvmguest: "

/*
 * Guest RAM: one memslot, a multiple of any host page size.  The vectors
 * and the code share its first 4 KiB, so one stage-2 fault maps them.
 */
#define GUEST_MEM_GPA		0x40000000UL
#define GUEST_MEM_SIZE		0x10000UL
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

/* The largest timer period, as for the x86 guest's timer. */
#define GUEST_MAX_PERIOD_US	1000000UL

/*
 * Each of the 16 vectors: report the exception to the host and stop.  The
 * host loads x28 with GUEST_FAULT_GPA.  ELR_EL1 goes first, so that the
 * host has both when the write of ESR_EL1 ends the run.
 */
static const uint32_t guest_vector[] = {
	0xd5384020,	/* 00: mrs  x0, elr_el1				*/
	0xf9000780,	/* 04: str  x0, [x28, #8]			*/
	0xd5385200,	/* 08: mrs  x0, esr_el1				*/
	0xf9000380,	/* 0c: str  x0, [x28]				*/
	0x14000000,	/* 10: b    .					*/
};

/*
 * The count form.  The host loads the counts into x19 to x22, the PSCI
 * version that KVM reports into w23, and the addresses the guest uses
 * into x24 to x28.  Testing each count before its access allows 0.  The
 * guest counts the reads, calls and sysreg reads that return what is
 * expected in x9, x10 and x11, and stores them packed at GUEST_DONE_GPA.
 */
static const uint32_t guest_code[] = {
	0xd518c01b,	/* 00: msr  vbar_el1, x27			*/
	0xd5033fdf,	/* 04: isb					*/
	0x52800b41,	/* 08: mov  w1, #GUEST_WRITE_VALUE		*/
	0xb4000093,	/* 0c: cbz  x19, 0x1c				*/
	0xb9000301,	/* 10: str  w1, [x24] ; GUEST_MMIO_WRITE_GPA	*/
	0xd1000673,	/* 14: sub  x19, x19, #1			*/
	0x17fffffd,	/* 18: b    0x0c				*/
	0xd2800009,	/* 1c: mov  x9, #0				*/
	0xb40000d4,	/* 20: cbz  x20, 0x38				*/
	0xb9400322,	/* 24: ldr  w2, [x25] ; GUEST_MMIO_READ_GPA	*/
	0x7102945f,	/* 28: cmp  w2, #GUEST_READ_VALUE		*/
	0x9a891529,	/* 2c: cinc x9, x9, eq				*/
	0xd1000694,	/* 30: sub  x20, x20, #1			*/
	0x17fffffb,	/* 34: b    0x20				*/
	0xd280000a,	/* 38: mov  x10, #0				*/
	0xb40000f5,	/* 3c: cbz  x21, 0x58				*/
	0x52b08000,	/* 40: mov  w0, #0x84000000 ; PSCI_VERSION	*/
	0xd4000002,	/* 44: hvc  #0					*/
	0x6b17001f,	/* 48: cmp  w0, w23				*/
	0x9a8a154a,	/* 4c: cinc x10, x10, eq			*/
	0xd10006b5,	/* 50: sub  x21, x21, #1			*/
	0x17fffffa,	/* 54: b    0x3c				*/
	0xd280000b,	/* 58: mov  x11, #0				*/
	0xb40000d6,	/* 5c: cbz  x22, 0x74				*/
	0xd5301183,	/* 60: mrs  x3, oslsr_el1			*/
	0xf27d007f,	/* 64: tst  x3, #8 ; OSLM: the OS lock exists	*/
	0x9a8b056b,	/* 68: cinc x11, x11, ne			*/
	0xd10006d6,	/* 6c: sub  x22, x22, #1			*/
	0x17fffffb,	/* 70: b    0x5c				*/
	0xaa0a5520,	/* 74: orr  x0, x9, x10, lsl #21		*/
	0xaa0ba800,	/* 78: orr  x0, x0, x11, lsl #42		*/
	0xf9000340,	/* 7c: str  x0, [x26] ; GUEST_DONE_GPA		*/
	0x14000000,	/* 80: b    .					*/
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
	0xd518c01b,	/* 00: msr  vbar_el1, x27			*/
	0xd5033fdf,	/* 04: isb					*/
	0x52800241,	/* 08: mov  w1, #0x12 ; ARE_NS | EnableGrp1NS	*/
	0xb9000301,	/* 0c: str  w1, [x24] ; GICD_CTLR		*/
	0xb900173f,	/* 10: str  wzr, [x25, #0x14] ; GICR_WAKER	*/
	0x91404322,	/* 14: add  x2, x25, #0x10000 ; SGI_base	*/
	0x52a10001,	/* 18: mov  w1, #(1 << 27) ; the vtimer's PPI	*/
	0xb9010041,	/* 1c: str  w1, [x2, #0x100] ; GICR_ISENABLER0	*/
	0xd28000e1,	/* 20: mov  x1, #7 ; SRE | DFB | DIB		*/
	0xd518cca1,	/* 24: msr  icc_sre_el1, x1			*/
	0xd5033fdf,	/* 28: isb					*/
	0xd2801fe1,	/* 2c: mov  x1, #0xff ; unmask all priorities	*/
	0xd5184601,	/* 30: msr  icc_pmr_el1, x1			*/
	0xd2800021,	/* 34: mov  x1, #1				*/
	0xd518cce1,	/* 38: msr  icc_igrpen1_el1, x1			*/
	0xd5033fdf,	/* 3c: isb					*/
	0xd2800009,	/* 40: mov  x9, #0				*/
	0xd280000a,	/* 44: mov  x10, #0				*/
	0xeb13013f,	/* 48: cmp  x9, x19				*/
	0x540001e2,	/* 4c: b.hs 0x88				*/
	0xd51be314,	/* 50: msr  cntv_tval_el0, x20			*/
	0xd2800021,	/* 54: mov  x1, #1 ; ENABLE, not IMASK		*/
	0xd51be321,	/* 58: msr  cntv_ctl_el0, x1			*/
	0xd5033fdf,	/* 5c: isb					*/
	0xd503207f,	/* 60: wfi					*/
	0x9100054a,	/* 64: add  x10, x10, #1			*/
	0xd538cc03,	/* 68: mrs  x3, icc_iar1_el1			*/
	0x71006c7f,	/* 6c: cmp  w3, #27				*/
	0x54ffff81,	/* 70: b.ne 0x60 ; spurious (1023)		*/
	0xd51be33f,	/* 74: msr  cntv_ctl_el0, xzr ; drop the level	*/
	0xd5033fdf,	/* 78: isb					*/
	0xd518cc23,	/* 7c: msr  icc_eoir1_el1, x3			*/
	0x91000529,	/* 80: add  x9, x9, #1				*/
	0x17fffff1,	/* 84: b    0x48				*/
	0xaa0a8120,	/* 88: orr  x0, x9, x10, lsl #32		*/
	0xf9000340,	/* 8c: str  x0, [x26] ; GUEST_DONE_GPA		*/
	0x14000000,	/* 90: b    .					*/
};

struct guest_counts {
	unsigned long mmio_write;
	unsigned long mmio_read;
	/* The loops the host does not see, reported in the done value */
	unsigned long hvc;
	unsigned long sysreg;
};

struct guest_vm {
	int kvm_fd;
	int vm_fd;
	int vcpu_fd;
	int gic_fd;
	void *mem;
	struct kvm_run *run;
	size_t run_size;
	/* What the guest's vectors reported, if it took an exception */
	uint64_t fault_elr;
};

static int parse_count(const char *arg, unsigned long max, unsigned long *count)
{
	char *end;

	errno = 0;
	*count = strtoul(arg, &end, 0);
	if (errno || end == arg || *end || arg[0] == '-' || *count > max) {
		fprintf(stderr, PFX "bad count '%s' (at most %lu)\n", arg, max);
		return -1;
	}
	return 0;
}

static int parse_counts(int argc, const char **argv, struct guest_counts *want)
{
	unsigned long *fields[] = {
		&want->mmio_write, &want->mmio_read, &want->hvc, &want->sysreg,
	};
	int i;

	/* Distinct defaults so a test can tell the two kinds apart. */
	memset(want, 0, sizeof(*want));
	want->mmio_write = 4;
	want->mmio_read = 2;

	if (argc > (int)ARRAY_SIZE(fields)) {
		fprintf(stderr,
			"usage: perf test -w kvmguest [MMIO_WRITE [MMIO_READ [HVC [SYSREG]]]]\n");
		return -1;
	}
	for (i = 0; i < argc; i++) {
		if (parse_count(argv[i], GUEST_MAX_COUNT, fields[i]))
			return -1;
	}
	return 0;
}

static void guest_vm__init(struct guest_vm *vm)
{
	vm->kvm_fd = -1;
	vm->vm_fd = -1;
	vm->vcpu_fd = -1;
	vm->gic_fd = -1;
	vm->mem = MAP_FAILED;
	vm->run = MAP_FAILED;
	vm->run_size = 0;
	vm->fault_elr = 0;
}

static void guest_vm__exit(struct guest_vm *vm)
{
	if (vm->run != MAP_FAILED)
		munmap(vm->run, vm->run_size);
	if (vm->mem != MAP_FAILED)
		munmap(vm->mem, GUEST_MEM_SIZE);
	if (vm->gic_fd >= 0)
		close(vm->gic_fd);
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
	if (ioctl(vm->kvm_fd, KVM_CHECK_EXTENSION, KVM_CAP_ARM_PSCI_0_2) <= 0) {
		fprintf(stderr, PFX "KVM offers no PSCI 0.2 to guests\n");
		return KVMGUEST_SKIP;
	}
	vm->vm_fd = ioctl(vm->kvm_fd, KVM_CREATE_VM, 0);
	if (vm->vm_fd < 0) {
		fprintf(stderr, PFX "cannot create a VM: %s\n", strerror(errno));
		return KVMGUEST_SKIP;
	}
	return KVMGUEST_OK;
}

/* The vectors, each a copy of guest_vector, then the code after them. */
static int guest_vm__add_memory(struct guest_vm *vm, const uint32_t *code, size_t size)
{
	struct kvm_userspace_memory_region region = {
		.slot = 0,
		.guest_phys_addr = GUEST_MEM_GPA,
		.memory_size = GUEST_MEM_SIZE,
	};
	char *mem;
	int i;

	vm->mem = mmap(NULL, GUEST_MEM_SIZE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (vm->mem == MAP_FAILED) {
		fprintf(stderr, PFX "cannot map guest memory: %s\n", strerror(errno));
		return -1;
	}
	mem = vm->mem;
	for (i = 0; i < GUEST_NR_VECTORS; i++) {
		memcpy(mem + GUEST_VECTORS_OFFSET + i * GUEST_VECTOR_SIZE,
		       guest_vector, sizeof(guest_vector));
	}
	memcpy(mem + GUEST_CODE_OFFSET, code, size);

	region.userspace_addr = (uintptr_t)vm->mem;
	if (ioctl(vm->vm_fd, KVM_SET_USER_MEMORY_REGION, &region) < 0) {
		fprintf(stderr, PFX "KVM_SET_USER_MEMORY_REGION: %s\n", strerror(errno));
		return -1;
	}
	return 0;
}

/* The vcpu resets to EL1h with DAIF masked and its MMU off. */
static int guest_vm__add_vcpu(struct guest_vm *vm)
{
	struct kvm_vcpu_init init;
	int size;

	vm->vcpu_fd = ioctl(vm->vm_fd, KVM_CREATE_VCPU, 0);
	if (vm->vcpu_fd < 0) {
		fprintf(stderr, PFX "KVM_CREATE_VCPU: %s\n", strerror(errno));
		return -1;
	}
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

	memset(&init, 0, sizeof(init));
	if (ioctl(vm->vm_fd, KVM_ARM_PREFERRED_TARGET, &init) < 0) {
		fprintf(stderr, PFX "KVM_ARM_PREFERRED_TARGET: %s\n", strerror(errno));
		return -1;
	}
	/* Without PSCI 0.2, KVM would answer the guest's hvc with an UNDEF. */
	init.features[0] |= 1U << KVM_ARM_VCPU_PSCI_0_2;
	if (ioctl(vm->vcpu_fd, KVM_ARM_VCPU_INIT, &init) < 0) {
		fprintf(stderr, PFX "KVM_ARM_VCPU_INIT: %s\n", strerror(errno));
		return -1;
	}
	return 0;
}

static int guest_vm__set_reg(struct guest_vm *vm, uint64_t id, uint64_t val,
			     const char *name)
{
	struct kvm_one_reg reg = { .id = id, .addr = (uintptr_t)&val };

	if (ioctl(vm->vcpu_fd, KVM_SET_ONE_REG, &reg) < 0) {
		fprintf(stderr, PFX "KVM_SET_ONE_REG %s: %s\n", name, strerror(errno));
		return -1;
	}
	return 0;
}

#define CORE_REG_ID(offset)	(KVM_REG_ARM64 | KVM_REG_SIZE_U64 | KVM_REG_ARM_CORE | \
				 ((offset) / sizeof(__u32)))

static int guest_vm__set_xreg(struct guest_vm *vm, int n, uint64_t val)
{
	size_t offset = offsetof(struct kvm_regs, regs.regs) + n * sizeof(__u64);

	return guest_vm__set_reg(vm, CORE_REG_ID(offset), val, "x register");
}

/* The guests' arguments, in x19 to x23 */
#define GUEST_NR_ARGS	5

/* The addresses both forms' guests find in x24 to x28. */
struct guest_addrs {
	uint64_t x24;
	uint64_t x25;
	uint64_t x26;
};

/*
 * Starts the vcpu at the code, in EL1h with DAIF masked whatever the
 * reset state, with x19 to x23 from @args and x24 to x28 set.
 */
static int guest_vm__set_entry(struct guest_vm *vm, const uint64_t args[GUEST_NR_ARGS],
			       const struct guest_addrs *addrs)
{
	uint64_t pstate = PSR_MODE_EL1h | PSR_D_BIT | PSR_A_BIT | PSR_I_BIT | PSR_F_BIT;
	int i;

	for (i = 0; i < GUEST_NR_ARGS; i++) {
		if (guest_vm__set_xreg(vm, 19 + i, args[i]))
			return -1;
	}
	if (guest_vm__set_xreg(vm, 24, addrs->x24) ||
	    guest_vm__set_xreg(vm, 25, addrs->x25) ||
	    guest_vm__set_xreg(vm, 26, addrs->x26) ||
	    guest_vm__set_xreg(vm, 27, GUEST_MEM_GPA + GUEST_VECTORS_OFFSET) ||
	    guest_vm__set_xreg(vm, 28, GUEST_FAULT_GPA))
		return -1;
	if (guest_vm__set_reg(vm, CORE_REG_ID(offsetof(struct kvm_regs, regs.pstate)),
			      pstate, "pstate") ||
	    guest_vm__set_reg(vm, CORE_REG_ID(offsetof(struct kvm_regs, regs.pc)),
			      GUEST_MEM_GPA + GUEST_CODE_OFFSET, "pc"))
		return -1;
	return 0;
}

/* What PSCI_VERSION returns: the latest KVM has, or what userspace set. */
static int guest_vm__psci_version(struct guest_vm *vm, uint64_t *version)
{
	struct kvm_one_reg reg = {
		.id = KVM_REG_ARM_PSCI_VERSION,
		.addr = (uintptr_t)version,
	};

	if (ioctl(vm->vcpu_fd, KVM_GET_ONE_REG, &reg) < 0) {
		fprintf(stderr, PFX "KVM_GET_ONE_REG PSCI version: %s\n", strerror(errno));
		return -1;
	}
	return 0;
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

static void report_mmio(const struct kvm_run *run, const char *what)
{
	fprintf(stderr, PFX "%s MMIO %s at %#llx len %u\n", what,
		run->mmio.is_write ? "write" : "read",
		(unsigned long long)run->mmio.phys_addr, run->mmio.len);
}

/*
 * The guest's vectors write here: returns 1 to go on after ELR_EL1, -1
 * once ESR_EL1 is in, 0 if the access is not theirs.
 */
static int handle_fault(struct guest_vm *vm)
{
	struct kvm_run *run = vm->run;

	if (!run->mmio.is_write || run->mmio.len != 8)
		return 0;
	if (run->mmio.phys_addr == GUEST_FAULT_GPA + 8) {
		vm->fault_elr = mmio_data(run);
		return 1;
	}
	if (run->mmio.phys_addr != GUEST_FAULT_GPA)
		return 0;
	fprintf(stderr, PFX "guest exception: ESR_EL1 %#llx at ELR_EL1 %#llx\n",
		(unsigned long long)mmio_data(run), (unsigned long long)vm->fault_elr);
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
	case KVM_EXIT_SYSTEM_EVENT:
		fprintf(stderr, PFX "guest system event %u\n", run->system_event.type);
		break;
	default:
		fprintf(stderr, PFX "unexpected exit reason %u\n", run->exit_reason);
		break;
	}
}

/* Runs the vcpu until its next exit to here. */
static int guest_vm__enter(struct guest_vm *vm)
{
	/* A signal only interrupts the run; the guest resumes. */
	while (ioctl(vm->vcpu_fd, KVM_RUN, 0) < 0) {
		if (errno != EINTR) {
			fprintf(stderr, PFX "KVM_RUN: %s\n", strerror(errno));
			return -1;
		}
	}
	return 0;
}

/*
 * Runs the vcpu until the guest's store to GUEST_DONE_GPA, whose value
 * goes in @done, passing every other MMIO exit to @handle.
 */
static int guest_vm__run(struct guest_vm *vm, uint64_t *done,
			 int (*handle)(struct kvm_run *run, struct guest_counts *seen),
			 struct guest_counts *seen)
{
	struct kvm_run *run = vm->run;
	int ret;

	for (;;) {
		if (guest_vm__enter(vm))
			return -1;
		if (run->exit_reason != KVM_EXIT_MMIO) {
			report_exit(run);
			return -1;
		}
		ret = handle_fault(vm);
		if (ret < 0)
			return -1;
		if (ret > 0)
			continue;
		if (run->mmio.is_write && run->mmio.len == 8 &&
		    run->mmio.phys_addr == GUEST_DONE_GPA) {
			*done = mmio_data(run);
			return 0;
		}
		if (!handle || handle(run, seen)) {
			report_mmio(run, "unexpected");
			return -1;
		}
	}
}

static int handle_access(struct kvm_run *run, struct guest_counts *seen)
{
	if (run->mmio.len != 4)
		return -1;

	if (run->mmio.is_write && run->mmio.phys_addr == GUEST_MMIO_WRITE_GPA &&
	    mmio_data(run) == GUEST_WRITE_VALUE) {
		seen->mmio_write++;
		return 0;
	}
	if (!run->mmio.is_write && run->mmio.phys_addr == GUEST_MMIO_READ_GPA) {
		mmio_answer(run, GUEST_READ_VALUE);
		seen->mmio_read++;
		return 0;
	}
	return -1;
}

static int check_count(const char *what, unsigned long want, unsigned long seen)
{
	if (want == seen)
		return 0;
	fprintf(stderr, PFX "%s: expected %lu, saw %lu\n", what, want, seen);
	return -1;
}

static unsigned long done_field(uint64_t done, int i)
{
	return (done >> (i * GUEST_COUNT_BITS)) & GUEST_MAX_COUNT;
}

static int check_counts(const struct guest_counts *want, const struct guest_counts *seen,
			uint64_t done)
{
	int err = 0;

	/* Check them all so one run reports every mismatch. */
	err |= check_count("mmio write", want->mmio_write, seen->mmio_write);
	err |= check_count("mmio read", want->mmio_read, seen->mmio_read);
	err |= check_count("guest's good mmio reads", want->mmio_read, done_field(done, 0));
	err |= check_count("guest's good hvc calls", want->hvc, done_field(done, 1));
	err |= check_count("guest's good sysreg reads", want->sysreg, done_field(done, 2));
	return err;
}

static int guest_vm__setup(struct guest_vm *vm, const struct guest_counts *want)
{
	struct guest_addrs addrs = {
		.x24 = GUEST_MMIO_WRITE_GPA,
		.x25 = GUEST_MMIO_READ_GPA,
		.x26 = GUEST_DONE_GPA,
	};
	uint64_t args[GUEST_NR_ARGS] = {
		want->mmio_write, want->mmio_read, want->hvc, want->sysreg
	};
	int ret = guest_vm__open(vm);

	if (ret)
		return ret;
	if (guest_vm__add_memory(vm, guest_code, sizeof(guest_code)) ||
	    guest_vm__add_vcpu(vm) || guest_vm__psci_version(vm, &args[4]) ||
	    guest_vm__set_entry(vm, args, &addrs))
		return KVMGUEST_FAIL;
	return KVMGUEST_OK;
}

struct halt_args {
	unsigned long halts;
	unsigned long period_us;
};

static int parse_halt_args(int argc, const char **argv, struct halt_args *args)
{
	if (argc != 2) {
		fprintf(stderr, "usage: perf test -w kvmguest halt N PERIOD_US\n");
		return -1;
	}
	/* The guest counts halts and WFIs in 32 bits each of its done value. */
	if (parse_count(argv[0], UINT32_MAX, &args->halts) ||
	    parse_count(argv[1], GUEST_MAX_PERIOD_US, &args->period_us))
		return -1;
	if (!args->period_us) {
		fprintf(stderr, PFX "PERIOD_US must be 1 to %lu\n", GUEST_MAX_PERIOD_US);
		return -1;
	}
	return 0;
}

static int set_gic_attr(int gic_fd, uint32_t group, uint64_t attr, uint64_t *val,
			const char *name)
{
	struct kvm_device_attr dattr = {
		.group = group,
		.attr = attr,
		.addr = (uintptr_t)val,
	};

	if (ioctl(gic_fd, KVM_SET_DEVICE_ATTR, &dattr) < 0) {
		fprintf(stderr, PFX "KVM_SET_DEVICE_ATTR %s: %s\n", name, strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * The vgic goes in after the vcpu, so that its redistributor is sized
 * for it, and before the first run, which it must be initialized for.
 */
static int guest_vm__add_gic(struct guest_vm *vm)
{
	struct kvm_create_device dev = { .type = KVM_DEV_TYPE_ARM_VGIC_V3 };
	uint64_t dist = GUEST_GICD_GPA, redist = GUEST_GICR_GPA;

	if (ioctl(vm->vm_fd, KVM_CREATE_DEVICE, &dev) < 0) {
		fprintf(stderr, PFX "no in-kernel GICv3 on this host: %s\n", strerror(errno));
		return KVMGUEST_SKIP;
	}
	vm->gic_fd = dev.fd;
	if (set_gic_attr(vm->gic_fd, KVM_DEV_ARM_VGIC_GRP_ADDR,
			 KVM_VGIC_V3_ADDR_TYPE_DIST, &dist, "distributor") ||
	    set_gic_attr(vm->gic_fd, KVM_DEV_ARM_VGIC_GRP_ADDR,
			 KVM_VGIC_V3_ADDR_TYPE_REDIST, &redist, "redistributor") ||
	    set_gic_attr(vm->gic_fd, KVM_DEV_ARM_VGIC_GRP_CTRL,
			 KVM_DEV_ARM_VGIC_CTRL_INIT, NULL, "init"))
		return KVMGUEST_FAIL;
	return KVMGUEST_OK;
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
	if (!*ticks || *ticks > INT32_MAX) {
		fprintf(stderr, PFX "%lu us is %llu ticks at %llu Hz\n", period_us,
			(unsigned long long)*ticks, (unsigned long long)freq);
		return -1;
	}
	return 0;
}

static int guest_vm__setup_halt(struct guest_vm *vm, const struct halt_args *args)
{
	struct guest_addrs addrs = {
		.x24 = GUEST_GICD_GPA,
		.x25 = GUEST_GICR_GPA,
		.x26 = GUEST_DONE_GPA,
	};
	uint64_t regs[GUEST_NR_ARGS] = { args->halts };
	int ret = guest_vm__open(vm);

	if (ret)
		return ret;
	if (period_ticks(args->period_us, &regs[1]) ||
	    guest_vm__add_memory(vm, halt_code, sizeof(halt_code)) ||
	    guest_vm__add_vcpu(vm))
		return KVMGUEST_FAIL;
	ret = guest_vm__add_gic(vm);
	if (ret)
		return ret;
	if (guest_vm__set_entry(vm, regs, &addrs))
		return KVMGUEST_FAIL;
	return KVMGUEST_OK;
}

static int kvmguest_halt(int argc, const char **argv)
{
	struct halt_args args;
	struct guest_vm vm;
	uint64_t done;
	int ret;

	if (parse_halt_args(argc, argv, &args))
		return KVMGUEST_FAIL;

	guest_vm__init(&vm);
	ret = guest_vm__setup_halt(&vm, &args);
	if (!ret && guest_vm__run(&vm, &done, NULL, NULL))
		ret = KVMGUEST_FAIL;
	/*
	 * The guest stops at N interrupts; a WFI more means one ended with
	 * none pending, and then it trapped twice for its halt.
	 */
	if (!ret && ((done & UINT32_MAX) != args.halts || (done >> 32) != args.halts)) {
		fprintf(stderr, PFX "%llu WFIs for %llu timer interrupts, %lu asked\n",
			(unsigned long long)(done >> 32),
			(unsigned long long)(done & UINT32_MAX), args.halts);
		ret = KVMGUEST_FAIL;
	}
	guest_vm__exit(&vm);
	return ret;
}

int kvmguest_arm64(int argc, const char **argv)
{
	struct guest_counts want, seen = { 0 };
	struct guest_vm vm;
	uint64_t done;
	int ret;

	if (argc > 0 && !strcmp(argv[0], "halt"))
		return kvmguest_halt(argc - 1, argv + 1);
	if (argc == 1 && !strcmp(argv[0], "map"))
		return kvmguest_print_map(GUEST_MEM_GPA + GUEST_CODE_OFFSET, guest_code_labels,
					  ARRAY_SIZE(guest_code_labels));
	if (parse_counts(argc, argv, &want))
		return KVMGUEST_FAIL;

	guest_vm__init(&vm);
	ret = guest_vm__setup(&vm, &want);
	if (!ret) {
		if (guest_vm__run(&vm, &done, handle_access, &seen) ||
		    check_counts(&want, &seen, done))
			ret = KVMGUEST_FAIL;
	}
	guest_vm__exit(&vm);
	return ret;
}

#endif /* __aarch64__ */
