// SPDX-License-Identifier: GPL-2.0
/*
 * kvmgen: the scenarios, and what their guests do: the exits of each
 * architecture with their mix and durations, the MMIO, port, MSR and
 * hypercall targets, and the VM processes and their vcpu threads.
 */
#include "kvmgen.h"

static const struct exit_desc vmx_exits[] = {
	{ 1,  "EXTERNAL_INTERRUPT", 150, 500, 3000, WORK_IRQ, 0, 0, 0 },
	{ 10, "CPUID", 40, 600, 1500, WORK_NONE, 0, 0, 0 },
	{ 12, "HLT", 120, 1000000, 7000000, WORK_HALT, 0, 0, 0 },
	{ 18, "VMCALL", 45, 1000, 6000, WORK_HYPERCALL, 0, 0, 0 },
	{ 30, "IO_INSTRUCTION", 120, 5000, 200000, WORK_PIO, 0, 0, 0 },
	{ 31, "MSR_READ", 60, 600, 3000, WORK_MSR, 0, MSR_RD, 0 },
	{ 32, "MSR_WRITE", 200, 700, 4000, WORK_MSR, 0, MSR_WR, 0 },
	{ 44, "APIC_ACCESS", 90, 1500, 8000, WORK_MMIO, 100, MMIO_APIC, 0 },
	{ 48, "EPT_VIOLATION", 60, 3000, 60000, WORK_MMIO, 25, MMIO_HPET, 0 },
	{ 49, "EPT_MISCONFIG", 100, 4000, 120000, WORK_MMIO, 100, MMIO_HPET, 0 },
	{ 99, NULL, 5, 500, 2000, WORK_NONE, 0, 0, 0 },
};

static const struct exit_desc svm_exits[] = {
	{ 0x060, "interrupt", 150, 500, 3000, WORK_IRQ, 0, 0, 0 },
	{ 0x072, "cpuid", 40, 600, 1500, WORK_NONE, 0, 0, 0 },
	{ 0x078, "hlt", 120, 1000000, 7000000, WORK_HALT, 0, 0, 0 },
	{ 0x07b, "io", 120, 5000, 200000, WORK_PIO, 0, 0, 0 },
	{ 0x07c, "msr", 260, 600, 4000, WORK_MSR, 0, MSR_RD | MSR_WR, 0 },
	{ 0x081, "hypercall", 45, 1000, 6000, WORK_HYPERCALL, 0, 0, 0 },
	{ 0x400, "npf", 150, 3000, 120000, WORK_MMIO, 70,
	  MMIO_APIC | MMIO_HPET, 0 },
	{ 0x0f0, NULL, 5, 500, 2000, WORK_NONE, 0, 0, 0 },
};

/* arm64: ESR_ELx_EC_* of traps, the exception type of other exits */
static const struct exit_desc arm64_exits[] = {
	{ 0, "IRQ", 150, 500, 3000, WORK_NONE, 0, 0, ARM_EXCEPTION_IRQ },
	{ 0x01, "WFI", 120, 1000000, 7000000, WORK_WFX, 0, 0,
	  ARM_EXCEPTION_TRAP },
	{ 0x01, "WFE", 40, 500, 4000, WORK_WFX, 0, WFX_IS_WFE,
	  ARM_EXCEPTION_TRAP },
	{ 0x16, "HVC64", 60, 1000, 6000, WORK_HYPERCALL, 0, 0,
	  ARM_EXCEPTION_TRAP },
	{ 0x18, "SYS64", 150, 600, 3000, WORK_NONE, 0, 0, ARM_EXCEPTION_TRAP },
	{ 0x24, "DABT_LOW", 150, 3000, 120000, WORK_MMIO, 80,
	  MMIO_GIC | MMIO_PL011, ARM_EXCEPTION_TRAP },
	{ 0x20, "IABT_LOW", 40, 2000, 40000, WORK_NONE, 0, 0,
	  ARM_EXCEPTION_TRAP },
	{ 0x07, "FP_ASIMD", 20, 300, 1500, WORK_NONE, 0, 0,
	  ARM_EXCEPTION_TRAP },
	{ 0, "SERROR", 2, 2000, 8000, WORK_NONE, 0, 0,
	  ARM_EXCEPTION_EL1_SERROR },
	{ 0, "ILLEGAL", 1, 1000, 4000, WORK_NONE, 0, 0, ARM_EXCEPTION_IL },
};

/* s390: SIE intercept codes */
static const struct exit_desc s390_exits[] = {
	{ 0x00, "HOST_INTERRUPTION", 100, 500, 3000, WORK_NONE, 0, 0, 0 },
	{ 0x04, "INSTRUCTION", 250, 800, 20000, WORK_HYPERCALL, 40, 0, 0 },
	{ 0x08, "PROGRAM_INTERRUPTION", 20, 1000, 8000, WORK_NONE, 0, 0, 0 },
	{ 0x0c, "INSTRUCTION_AND_PROGRAM_INTERRUPTION", 5, 1000, 8000,
	  WORK_NONE, 0, 0, 0 },
	{ 0x14, "EXTERNAL_INTERRUPTION", 80, 600, 4000, WORK_NONE, 0, 0, 0 },
	{ 0x1c, "WAIT_STATE", 120, 1000000, 7000000, WORK_HALT, 0, 0, 0 },
	{ 0x28, "STOP_REQUEST", 3, 2000, 10000, WORK_NONE, 0, 0, 0 },
	{ 0x2c, "OPERATION_EXCEPTION", 2, 1000, 5000, WORK_NONE, 0, 0, 0 },
	{ 0x38, "PARTIAL_EXECUTION", 30, 1000, 6000, WORK_NONE, 0, 0, 0 },
	{ 0x40, "I_O_INSTRUCTION", 100, 5000, 150000, WORK_VMM, 60,
	  VMM_EXIT_S390_SIEIC, 0 },
};

/* powerpc book3s HV: the interrupt vector (trap) of the exit */
static const struct exit_desc ppc_exits[] = {
	{ 0x500, "EXTERNAL", 80, 500, 3000, WORK_NONE, 0, 0, 0 },
	{ 0x980, "HV_DECREMENTER", 150, 500, 2500, WORK_NONE, 0, 0, 0 },
	{ 0xc00, "SYSCALL", 200, 1000, 8000, WORK_HYPERCALL, 0, 0, 0 },
	{ 0xe00, "H_DATA_STORAGE", 100, 3000, 60000, WORK_VMM, 30,
	  VMM_EXIT_MMIO, 0 },
	{ 0xe40, "H_EMUL_ASSIST", 20, 1000, 6000, WORK_NONE, 0, 0, 0 },
	{ 0xe80, "H_DOORBELL", 60, 500, 3000, WORK_NONE, 0, 0, 0 },
	{ 0xea0, "H_VIRT", 40, 500, 3000, WORK_NONE, 0, 0, 0 },
	{ 0xf60, "FAC_UNAVAIL", 10, 500, 2000, WORK_NONE, 0, 0, 0 },
	{ 0x1500, "HV_SOFTPATCH", 3, 1000, 4000, WORK_NONE, 0, 0, 0 },
};

/* riscv64: scause, aux 1 for an interrupt */
static const struct exit_desc riscv_exits[] = {
	{ 5, "IRQ_S_TIMER", 120, 500, 3000, WORK_NONE, 0, 0, 1 },
	{ 9, "IRQ_S_EXT", 90, 500, 4000, WORK_NONE, 0, 0, 1 },
	{ 1, "IRQ_S_SOFT", 40, 500, 2500, WORK_NONE, 0, 0, 1 },
	{ 12, "IRQ_S_GEXT", 20, 500, 2500, WORK_NONE, 0, 0, 1 },
	{ 10, "SUPERVISOR_SYSCALL", 150, 800, 6000, WORK_NONE, 0, 0, 0 },
	{ 22, "VIRTUAL_INST_FAULT", 120, 1000000, 7000000, WORK_HALT, 0, 0, 0 },
	{ 21, "LOAD_GUEST_PAGE_FAULT", 100, 3000, 120000, WORK_VMM, 50,
	  VMM_EXIT_MMIO, 0 },
	{ 23, "STORE_GUEST_PAGE_FAULT", 80, 3000, 120000, WORK_VMM, 50,
	  VMM_EXIT_MMIO, 0 },
	{ 20, "INST_GUEST_PAGE_FAULT", 20, 2000, 40000, WORK_NONE, 0, 0, 0 },
	{ 2, "INST_ILLEGAL", 5, 800, 3000, WORK_NONE, 0, 0, 0 },
};

/*
 * loongarch64: the exception code.  IDLE and CACHE are GSPR exits that
 * kvm_exit_idle or kvm_exit_cache follows.
 */
static const struct exit_desc loongarch_exits[] = {
	{ 0, "INT", 150, 500, 3000, WORK_NONE, 0, 0, 0 },
	{ 22, "GSPR", 80, 800, 6000, WORK_NONE, 0, 0, 0 },
	{ 22, "IDLE", 120, 1000000, 7000000, WORK_HALT, 0, 0,
	  LOONGARCH_EXIT_IDLE },
	{ 22, "CACHE", 10, 1000, 5000, WORK_NONE, 0, 0, LOONGARCH_EXIT_CACHE },
	{ 23, "HVC", 60, 1000, 6000, WORK_NONE, 0, 0, 0 },
	{ 1, "TLBL", 60, 3000, 120000, WORK_VMM, 40, VMM_EXIT_MMIO, 0 },
	{ 2, "TLBS", 40, 3000, 120000, WORK_VMM, 40, VMM_EXIT_MMIO, 0 },
	{ 15, "FPDIS", 30, 300, 1500, WORK_NONE, 0, 0, 0 },
	{ 16, "LSXDIS", 10, 300, 1500, WORK_NONE, 0, 0, 0 },
	{ 24, "GCM", 10, 1000, 5000, WORK_NONE, 0, 0, 0 },
};

/* PVM: exception vectors and PVM_EXIT_REASON_* */
static const struct exit_desc pvm_exits[] = {
	{ 0x50000, "INTERRUPT", 150, 500, 3000, WORK_NONE, 0, 0, 0 },
	{ 0x10000, "SYSCALL", 200, 500, 2000, WORK_NONE, 0, 0, 0 },
	{ 0x30000, "ERETU", 150, 400, 1500, WORK_NONE, 0, 0, 0 },
	{ 0x40000, "ERETS", 60, 400, 1500, WORK_NONE, 0, 0, 0 },
	{ 0x20000, "HYPERCALL", 100, 1000, 6000, WORK_NONE, 0, 0, 0 },
	{ 14, "#PF", 150, 1000, 30000, WORK_NONE, 0, 0, 0 },
	{ 13, "#GP", 20, 1000, 8000, WORK_NONE, 0, 0, 0 },
	{ 7, "#NM", 20, 300, 1500, WORK_NONE, 0, 0, 0 },
	{ 6, "#UD", 5, 1000, 6000, WORK_NONE, 0, 0, 0 },
	{ 3, "#BP", 3, 1000, 6000, WORK_NONE, 0, 0, 0 },
	{ 0x60000, "INT80", 10, 500, 2000, WORK_NONE, 0, 0, 0 },
	{ 1025, "FAILED_VMENTRY", 1, 2000, 8000, WORK_NONE, 0, 0, 0 },
};

/* vmx-nested: L1 exits, L2 exits L0 handles, L2 exits forwarded to L1 */
static const struct exit_desc vmx_nested_exits[] = {
	{ 1,  "EXTERNAL_INTERRUPT", 80, 500, 3000, WORK_IRQ, 0, 0, 0 },
	{ 12, "HLT", 60, 1000000, 7000000, WORK_HALT, 0, 0, 0 },
	{ 24, "VMRESUME", 120, 2000, 8000, WORK_NONE, 0, 0, 0 },
	{ 23, "VMREAD", 30, 500, 1500, WORK_NONE, 0, 0, 0 },
	{ 25, "VMWRITE", 30, 500, 1500, WORK_NONE, 0, 0, 0 },
	{ 48, "EPT_VIOLATION", 40, 3000, 60000, WORK_NONE, 0, 0, 0 },
	{ 1,  "L2:EXTERNAL_INTERRUPT", 120, 500, 3000, WORK_IRQ, 0, 0,
	  NESTED_L2 },
	{ 48, "L2:EPT_VIOLATION", 80, 3000, 60000, WORK_NONE, 0, 0,
	  NESTED_L2 },
	{ 49, "L2:EPT_MISCONFIG", 30, 4000, 80000, WORK_NONE, 0, 0,
	  NESTED_L2 },
	{ 52, "L2:PREEMPTION_TIMER", 40, 500, 2500, WORK_NONE, 0, 0,
	  NESTED_L2 },
	{ 10, "L2>L1:CPUID", 60, 2000, 8000, WORK_NONE, 0, 0,
	  NESTED_L2_TO_L1 },
	{ 30, "L2>L1:IO_INSTRUCTION", 60, 2000, 10000, WORK_NONE, 0, 0,
	  NESTED_L2_TO_L1 },
	{ 12, "L2>L1:HLT", 40, 2000, 8000, WORK_NONE, 0, 0, NESTED_L2_TO_L1 },
	{ 32, "L2>L1:MSR_WRITE", 60, 2000, 8000, WORK_NONE, 0, 0,
	  NESTED_L2_TO_L1 },
	{ 18, "L2>L1:VMCALL", 20, 2000, 8000, WORK_NONE, 0, 0,
	  NESTED_L2_TO_L1 },
};

const struct mmio_target mmio_targets[NR_MMIO_TARGETS] = {
	/* send an IPI */
	[MMIO_ICR_LOW_W]	= { 0xfee00300, KVM_TRACE_MMIO_WRITE,
				    MMIO_APIC, 30, 0x000000fd },
	/* poll the IPI delivery status */
	[MMIO_ICR_LOW_R]	= { 0xfee00300, KVM_TRACE_MMIO_READ,
				    MMIO_APIC, 15, 0x000000fd },
	/* arm the APIC timer */
	[MMIO_TIMER_COUNT_W]	= { 0xfee00380, KVM_TRACE_MMIO_WRITE,
				    MMIO_APIC, 20, 0x0003d090 },
	/* IPI destination */
	[MMIO_ICR_HIGH_W]	= { 0xfee00310, KVM_TRACE_MMIO_WRITE,
				    MMIO_APIC, 25, 0x01000000 },
	/* HPET capabilities and id */
	[MMIO_HPET_CAP_R]	= { 0xfed00000, KVM_TRACE_MMIO_READ,
				    MMIO_HPET, 10, 0x8086a201 },
	/* arm64 virt machine: enable an interrupt at the GIC distributor */
	[MMIO_GICD_ISENABLER_W]	= { 0x08000100, KVM_TRACE_MMIO_WRITE,
				    MMIO_GIC, 30, 0x08000000 },
	/* the GIC's number of interrupt lines */
	[MMIO_GICD_TYPER_R]	= { 0x08000004, KVM_TRACE_MMIO_READ,
				    MMIO_GIC, 10, 0x0078000b },
	/* console output and the UART's flags */
	[MMIO_PL011_DR_W]	= { 0x09000000, KVM_TRACE_MMIO_WRITE,
				    MMIO_PL011, 35, 0x6b },
	[MMIO_PL011_FR_R]	= { 0x09000018, KVM_TRACE_MMIO_READ,
				    MMIO_PL011, 25, 0x90 },
};

const struct pio_target pio_targets[NR_PIO_TARGETS] = {
	[PIO_COM1_DATA_OUT]	= { 0x3f8, KVM_PIO_OUT, 40 },
	[PIO_COM1_LSR_IN]	= { 0x3fd, KVM_PIO_IN, 30 },
	[PIO_RTC_INDEX_OUT]	= { 0x70, KVM_PIO_OUT, 15 },
	[PIO_RTC_DATA_IN]	= { 0x71, KVM_PIO_IN, 15 },
};

const struct msr_target msr_targets[NR_MSR_TARGETS] = {
	/* send an IPI */
	[MSR_ICR_W]		= { MSR_X2APIC_ICR, MSR_WR, 45, 0 },
	/* arm the timer */
	[MSR_TSC_DEADLINE_W]	= { MSR_IA32_TSC_DEADLINE, MSR_WR, 35, 0 },
	/* a reserved bit now and then: #GP */
	[MSR_SPEC_CTRL_W]	= { MSR_IA32_SPEC_CTRL, MSR_WR, 15, 10 },
	/* kvm-clock setup */
	[MSR_WALL_CLOCK_W]	= { MSR_KVM_WALL_CLOCK_NEW, MSR_WR, 5, 0 },
	[MSR_TSC_R]		= { MSR_IA32_TSC, MSR_RD, 45, 0 },
	[MSR_EFER_R]		= { MSR_EFER, MSR_RD, 30, 0 },
	[MSR_SPEC_CTRL_R]	= { MSR_IA32_SPEC_CTRL, MSR_RD, 25, 0 },
};

static const struct hc_target hc_targets[NR_HC_TARGETS] = {
	[HC_KICK_CPU]		= { 5, 25 },
	[HC_SEND_IPI]		= { 10, 40 },
	[HC_SCHED_YIELD]	= { 11, 20 },
	/* goes on to the VMM: KVM_EXIT_HYPERCALL */
	[HC_MAP_GPA_RANGE]	= { 12, 10, NULL, true, HC_VMM_EXIT_MIN_NS,
				    HC_VMM_EXIT_MAX_NS },
	/* -KVM_ENOSYS */
	[HC_UNKNOWN]		= { 0x77, 5 },
};

/* arm64: PSCI and SMCCC function ids in r0, a KVM vendor call, an unknown */
static const struct hc_target arm64_hcs[] = {
	{ 0x84000000, 2, "PSCI_VERSION", false, 0, 0 },
	{ 0xc4000001, 30, "CPU_SUSPEND", false, 0, 0 },
	{ 0xc4000003, 5, "CPU_ON", false, 0, 0 },
	{ 0x80000000, 3, "SMCCC_VERSION", false, 0, 0 },
	{ 0x80000001, 10, "SMCCC_ARCH_FEATURES", false, 0, 0 },
	/* ARM_SMCCC_VENDOR_HYP_KVM_PTP_FUNC_ID */
	{ 0x86000001, 20, NULL, false, 0, 0 },
	/* forwarded to the VMM by an SMCCC filter */
	{ 0xc6000010, 5, NULL, true, HC_VMM_EXIT_MIN_NS, HC_VMM_EXIT_MAX_NS },
};

/* powerpc PAPR hcalls: H_CEDE waits for an interrupt */
static const struct hc_target ppc_hcs[] = {
	{ 0xe0, 40, "H_CEDE", false, 100000, 3000000 },
	{ 0x6c, 30, "H_IPI", false, 0, 0 },
	{ 0x64, 40, "H_EOI", false, 0, 0 },
	{ 0x20, 20, "H_PUT_TCE", false, 0, 0 },
	/* the console is QEMU's: KVM_EXIT_PAPR_HCALL */
	{ 0x58, 10, "H_PUT_TERM_CHAR", true, HC_VMM_EXIT_MIN_NS,
	  HC_VMM_EXIT_MAX_NS },
};

/* s390 DIAGNOSE codes */
static const struct hc_target s390_hcs[] = {
	{ 0x44, 40, "TIME_SLICE_END", false, 0, 0 },
	{ 0x9c, 20, "TIME_SLICE_END_DIRECTED", false, 0, 0 },
	{ 0x500, 40, "KVM_VIRTIO_FUNCTIONS", false, 0, 0 },
};

/* vcpu threads of the VMs, deliberately not in vcpu id order */
static const u32 vm_4242_tids[] = { 4251, 4249, 4252, 4250 };
static const u32 vm_5353_tids[] = { 5358, 5356 };

static const struct vm_desc one_vm[] = {
	{ 4242, "qemu-system-x86", ARRAY_SIZE(vm_4242_tids), vm_4242_tids },
};

/* Other architectures' QEMU, its comm cut to 15 characters */
static const struct vm_desc arm64_vm[] = {
	{ 4242, "qemu-system-aar", ARRAY_SIZE(vm_4242_tids), vm_4242_tids },
};

static const struct vm_desc s390_vm[] = {
	{ 4242, "qemu-system-s39", ARRAY_SIZE(vm_4242_tids), vm_4242_tids },
};

static const struct vm_desc ppc_vm[] = {
	{ 4242, "qemu-system-ppc", ARRAY_SIZE(vm_4242_tids), vm_4242_tids },
};

static const struct vm_desc riscv_vm[] = {
	{ 4242, "qemu-system-ris", ARRAY_SIZE(vm_4242_tids), vm_4242_tids },
};

static const struct vm_desc loongarch_vm[] = {
	{ 4242, "qemu-system-loo", ARRAY_SIZE(vm_4242_tids), vm_4242_tids },
};

static const struct vm_desc two_vms[] = {
	{ 4242, "qemu-system-x86", ARRAY_SIZE(vm_4242_tids), vm_4242_tids },
	{ 5353, "qemu-kvm", ARRAY_SIZE(vm_5353_tids), vm_5353_tids },
};

const struct arch_desc x86_desc = {
	"x86_64", false, 0xffffffff81000000ULL, 0, hc_targets, NR_HC_TARGETS,
};

static const struct arch_desc arm64_desc = {
	"aarch64", true, 0xffff800080010000ULL, 0, arm64_hcs,
	ARRAY_SIZE(arm64_hcs),
};

/* 64-bit mode, DAT, I/O and external interrupts and machine checks on */
static const struct arch_desc s390_desc = {
	"s390x", false, 0x0000000000100000ULL, 0x0704c00180000000ULL,
	s390_hcs, ARRAY_SIZE(s390_hcs),
};

/* SF, HV off, EE, PR off, ME, IR, DR, RI, LE */
static const struct arch_desc ppc_desc = {
	"ppc64le", false, 0xc000000000010000ULL, 0x8000000000009033ULL,
	ppc_hcs, ARRAY_SIZE(ppc_hcs),
};

static const struct arch_desc riscv_desc = {
	"riscv64", true, 0xffffffff80002000ULL, 0, NULL, 0,
};

static const struct arch_desc loongarch_desc = {
	"loongarch64", false, 0x9000000000200000ULL, 0, NULL, 0,
};

const struct scenario scenarios[] = {
	{ "vmx", "GenuineIntel,6,85,7",
	  "Intel(R) Xeon(R) Gold 6230 CPU @ 2.10GHz", "6.12.0-kvmgen",
	  KVM_ISA_VMX, vmx_exits, ARRAY_SIZE(vmx_exits), formats_6_12,
	  false, 0x9e3779b97f4a7c15ULL, one_vm, ARRAY_SIZE(one_vm), false,
	  ARCH_X86, NULL, false },
	{ "svm", "AuthenticAMD,25,1,1",
	  "AMD EPYC 7763 64-Core Processor", "6.12.0-kvmgen",
	  KVM_ISA_SVM, svm_exits, ARRAY_SIZE(svm_exits), formats_6_12,
	  false, 0xc2b2ae3d27d4eb4fULL, one_vm, ARRAY_SIZE(one_vm), false,
	  ARCH_X86, NULL, false },
	{ "vmx-old", "GenuineIntel,6,85,7",
	  "Intel(R) Xeon(R) Gold 6230 CPU @ 2.10GHz", "5.4.0-kvmgen",
	  KVM_ISA_VMX, vmx_exits, ARRAY_SIZE(vmx_exits), formats_5_4,
	  false, 0x165667b19e3779f9ULL, one_vm, ARRAY_SIZE(one_vm), false,
	  ARCH_X86, NULL, false },
	{ "unpaired", "GenuineIntel,6,85,7",
	  "Intel(R) Xeon(R) Gold 6230 CPU @ 2.10GHz", "6.12.0-kvmgen",
	  KVM_ISA_VMX, vmx_exits, ARRAY_SIZE(vmx_exits), formats_6_12,
	  true, 0x27d4eb2f165667c5ULL, one_vm, ARRAY_SIZE(one_vm), false,
	  ARCH_X86, NULL, false },
	{ "two-vms", "GenuineIntel,6,85,7",
	  "Intel(R) Xeon(R) Gold 6230 CPU @ 2.10GHz", "6.12.0-kvmgen",
	  KVM_ISA_VMX, vmx_exits, ARRAY_SIZE(vmx_exits), formats_6_12,
	  false, 0x85ebca6b94d049bbULL, two_vms, ARRAY_SIZE(two_vms), false,
	  ARCH_X86, NULL, false },
	/* vmx's seed: the same events, in another file order */
	{ "vmx-percpu", "GenuineIntel,6,85,7",
	  "Intel(R) Xeon(R) Gold 6230 CPU @ 2.10GHz", "6.12.0-kvmgen",
	  KVM_ISA_VMX, vmx_exits, ARRAY_SIZE(vmx_exits), formats_6_12,
	  false, 0x9e3779b97f4a7c15ULL, one_vm, ARRAY_SIZE(one_vm), true,
	  ARCH_X86, NULL, false },
	{ "arm64", "0x00000000413fd0c1", "Neoverse-N1", "6.12.0-kvmgen",
	  0, arm64_exits, ARRAY_SIZE(arm64_exits), formats_arm64,
	  false, 0xd6e8feb86659fd93ULL, arm64_vm, ARRAY_SIZE(arm64_vm), false,
	  ARCH_ARM64, &arm64_desc, false },
	{ "s390", "IBM,8561,703,T01,3.6,002f", "IBM/S390", "6.12.0-kvmgen",
	  0, s390_exits, ARRAY_SIZE(s390_exits), formats_s390,
	  false, 0xa0761d6478bd642fULL, s390_vm, ARRAY_SIZE(s390_vm), false,
	  ARCH_S390, &s390_desc, false },
	{ "ppc64le", "78,4610", "POWER9 (architected), altivec supported",
	  "6.12.0-kvmgen", 0, ppc_exits, ARRAY_SIZE(ppc_exits), formats_ppc,
	  false, 0xe7037ed1a0b428dbULL, ppc_vm, ARRAY_SIZE(ppc_vm), false,
	  ARCH_PPC, &ppc_desc, false },
	{ "riscv64", "0x489-0x8000000000000007-0x4210427", "sifive,u74-mc",
	  "6.12.0-kvmgen", 0, riscv_exits, ARRAY_SIZE(riscv_exits),
	  formats_riscv, false, 0x8ebc6af09c88c6e3ULL, riscv_vm,
	  ARRAY_SIZE(riscv_vm), false, ARCH_RISCV, &riscv_desc, false },
	{ "loongarch64", "Loongson-3C5000", "Loongson-3C5000",
	  "6.12.0-kvmgen", 0, loongarch_exits, ARRAY_SIZE(loongarch_exits),
	  formats_loongarch, false, 0x589965cc75374cc3ULL, loongarch_vm,
	  ARRAY_SIZE(loongarch_vm), false, ARCH_LOONGARCH, &loongarch_desc, false },
	{ "pvm", "GenuineIntel,6,85,7",
	  "Intel(R) Xeon(R) Gold 6230 CPU @ 2.10GHz", "6.12.0-kvmgen",
	  KVM_ISA_PVM, pvm_exits, ARRAY_SIZE(pvm_exits), formats_6_12,
	  false, 0x1d8e4e27c47d124fULL, one_vm, ARRAY_SIZE(one_vm), false,
	  ARCH_X86, NULL, false },
	{ "vmx-nested", "GenuineIntel,6,85,7",
	  "Intel(R) Xeon(R) Gold 6230 CPU @ 2.10GHz", "6.12.0-kvmgen",
	  KVM_ISA_VMX, vmx_nested_exits, ARRAY_SIZE(vmx_nested_exits),
	  formats_6_12_nested, false, 0x9fb21c651e98df25ULL, one_vm,
	  ARRAY_SIZE(one_vm), false,
	  ARCH_X86, NULL, false },
	{ "vmx-halt", "GenuineIntel,6,85,7",
	  "Intel(R) Xeon(R) Gold 6230 CPU @ 2.10GHz", "6.12.0-kvmgen",
	  KVM_ISA_VMX, vmx_exits, ARRAY_SIZE(vmx_exits), formats_6_12_halt,
	  false, 0xbf58476d1ce4e5b9ULL, one_vm, ARRAY_SIZE(one_vm), false,
	  ARCH_X86, NULL, true },
};

const unsigned int nr_scenarios = ARRAY_SIZE(scenarios);

const struct scenario *find_scenario(const char *name)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(scenarios); i++) {
		if (!strcmp(scenarios[i].name, name))
			return &scenarios[i];
	}
	return NULL;
}
