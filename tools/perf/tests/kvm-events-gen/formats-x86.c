// SPDX-License-Identifier: GPL-2.0
/*
 * kvmgen: the tracepoint names and sample ips, and the x86 formats: 6.12,
 * the 5.4 kvm_exit and kvm_entry without vcpu_id, and the nested and halt
 * tracepoints.  The texts are those of the kernel's format files, as the
 * report parses them with libtraceevent.
 */
#include "kvmgen.h"

const char * const tp_names[NR_KVM_TPS] = {
	[TP_KVM_EXIT]		= "kvm_exit",
	[TP_KVM_ENTRY]		= "kvm_entry",
	[TP_KVM_MMIO]		= "kvm_mmio",
	[TP_KVM_PIO]		= "kvm_pio",
	[TP_KVM_USERSPACE_EXIT]	= "kvm_userspace_exit",
	[TP_KVM_MSR]		= "kvm_msr",
	[TP_KVM_HYPERCALL]	= "kvm_hypercall",
	[TP_WFX]		= "kvm_wfx_arm64",
	[TP_HCALL_EXIT]		= "kvm_hcall_exit",
	[TP_EXIT_IDLE]		= "kvm_exit_idle",
	[TP_EXIT_CACHE]		= "kvm_exit_cache",
	[TP_KVM_REENTER]	= "kvm_reenter",
	[TP_KVM_OUT]		= "kvm_out",
	[TP_NESTED_VMEXIT]	= "kvm_nested_vmexit",
	[TP_NESTED_INJECT]	= "kvm_nested_vmexit_inject",
	[TP_VCPU_WAKEUP]	= "kvm_vcpu_wakeup",
	[TP_HALT_POLL_NS]	= "kvm_halt_poll_ns",
};

/* Sample ip: where in the kvm modules each tracepoint fires */
const u64 tp_ips[NR_KVM_TPS] = {
	[TP_KVM_EXIT]		= 0xffffffffc0b2a4d1ULL,
	[TP_KVM_ENTRY]		= 0xffffffffc0b29f3eULL,
	[TP_KVM_MMIO]		= 0xffffffffc09e61a7ULL,
	[TP_KVM_PIO]		= 0xffffffffc09e58c2ULL,
	[TP_KVM_USERSPACE_EXIT]	= 0xffffffffc09c1b05ULL,
	[TP_KVM_MSR]		= 0xffffffffc09d3c4aULL,
	[TP_KVM_HYPERCALL]	= 0xffffffffc09d8e13ULL,
	[TP_NESTED_VMEXIT]	= 0xffffffffc0b31c62ULL,
	[TP_NESTED_INJECT]	= 0xffffffffc0b3205dULL,
	[TP_VCPU_WAKEUP]	= 0xffffffffc09a7f18ULL,
	[TP_HALT_POLL_NS]	= 0xffffffffc09a80b4ULL,
};

const struct tp_field common_fields[] = {
	{ "unsigned short common_type",		0, 2, false, V_COMMON_TYPE },
	{ "unsigned char common_flags",		2, 1, false, V_ZERO },
	{ "unsigned char common_preempt_count",	3, 1, false, V_ZERO },
	{ "int common_pid",			4, 4, true,  V_COMMON_PID },
	{ }
};

static const struct tp_field kvm_exit_fields[] = {
	{ "unsigned int exit_reason",	8,  4, false, V_EXIT_REASON },
	{ "unsigned long guest_rip",	16, 8, false, V_RIP },
	{ "u32 isa",			24, 4, false, V_ISA },
	{ "u64 info1",			32, 8, false, V_INFO1 },
	{ "u64 info2",			40, 8, false, V_INFO2 },
	{ "u32 intr_info",		48, 4, false, V_INTR_INFO },
	{ "u32 error_code",		52, 4, false, V_ZERO },
	{ "unsigned int vcpu_id",	56, 4, false, V_VCPU_ID },
	{ "u64 requests",		64, 8, false, V_ZERO },
	{ }
};

/* kvm_exit as on 5.4: no vcpu_id, intr_info, error_code or requests */
static const struct tp_field kvm_exit_5_4_fields[] = {
	{ "unsigned int exit_reason",	8,  4, false, V_EXIT_REASON },
	{ "unsigned long guest_rip",	16, 8, false, V_RIP },
	{ "u32 isa",			24, 4, false, V_ISA },
	{ "u64 info1",			32, 8, false, V_INFO1 },
	{ "u64 info2",			40, 8, false, V_INFO2 },
	{ }
};

static const struct tp_field kvm_entry_fields[] = {
	{ "unsigned int vcpu_id",	8,  4, false, V_VCPU_ID },
	{ "unsigned long rip",		16, 8, false, V_RIP },
	{ "bool immediate_exit",	24, 1, false, V_ZERO },
	{ "u32 intr_info",		28, 4, false, V_INTR_INFO },
	{ "u32 error_code",		32, 4, false, V_ZERO },
	{ }
};

static const struct tp_field kvm_entry_5_4_fields[] = {
	{ "unsigned int vcpu_id",	8,  4, false, V_VCPU_ID },
	{ }
};

const struct tp_field kvm_mmio_fields[] = {
	{ "u32 type",	8,  4, false, V_MMIO_TYPE },
	{ "u32 len",	12, 4, false, V_LEN },
	{ "u64 gpa",	16, 8, false, V_GPA },
	{ "u64 val",	24, 8, false, V_VAL },
	{ }
};

static const struct tp_field kvm_pio_fields[] = {
	{ "unsigned int rw",	8,  4, false, V_PIO_RW },
	{ "unsigned int port",	12, 4, false, V_PORT },
	{ "unsigned int size",	16, 4, false, V_SIZE },
	{ "unsigned int count",	20, 4, false, V_COUNT },
	{ "unsigned int val",	24, 4, false, V_VAL },
	{ }
};

const struct tp_field kvm_userspace_exit_fields[] = {
	{ "__u32 reason",	8,  4, false, V_VMM_EXIT_REASON },
	{ "int errno",		12, 4, true,  V_ZERO },
	{ }
};

/* The same on 5.4 and 6.12 */
static const struct tp_field kvm_msr_fields[] = {
	{ "unsigned write",	8,  4, false, V_MSR_WRITE },
	{ "u32 ecx",		12, 4, false, V_MSR_INDEX },
	{ "u64 data",		16, 8, false, V_MSR_DATA },
	{ "u8 exception",	24, 1, false, V_MSR_EXCEPTION },
	{ }
};

static const struct tp_field kvm_hypercall_fields[] = {
	{ "unsigned long nr",	8,  8, false, V_HC_NR },
	{ "unsigned long a0",	16, 8, false, V_HC_A0 },
	{ "unsigned long a1",	24, 8, false, V_HC_A1 },
	{ "unsigned long a2",	32, 8, false, V_HC_A2 },
	{ "unsigned long a3",	40, 8, false, V_HC_A3 },
	{ }
};

/* The print fmt lines are the kernel's, with shortened symbol tables. */
#define VMX_EXIT_SYMBOLS						\
	"{ 0, \"EXCEPTION_NMI\" }, { 1, \"EXTERNAL_INTERRUPT\" }, "	\
	"{ 7, \"INTERRUPT_WINDOW\" }, { 10, \"CPUID\" }, "		\
	"{ 12, \"HLT\" }, { 18, \"VMCALL\" }, { 28, \"CR_ACCESS\" }, "	\
	"{ 30, \"IO_INSTRUCTION\" }, { 31, \"MSR_READ\" }, "		\
	"{ 32, \"MSR_WRITE\" }, { 40, \"PAUSE_INSTRUCTION\" }, "	\
	"{ 44, \"APIC_ACCESS\" }, { 48, \"EPT_VIOLATION\" }, "		\
	"{ 49, \"EPT_MISCONFIG\" }, { 52, \"PREEMPTION_TIMER\" }, "	\
	"{ 56, \"APIC_WRITE\" }"

#define SVM_EXIT_SYMBOLS						\
	"{ 0x060, \"interrupt\" }, { 0x061, \"nmi\" }, "		\
	"{ 0x064, \"vintr\" }, { 0x072, \"cpuid\" }, "			\
	"{ 0x077, \"pause\" }, { 0x078, \"hlt\" }, { 0x07b, \"io\" }, "	\
	"{ 0x07c, \"msr\" }, { 0x081, \"hypercall\" }, "		\
	"{ 0x400, \"npf\" }, { 0x401, \"avic_incomplete_ipi\" }, "	\
	"{ 0x402, \"avic_unaccelerated_access\" }"

#define KVM_EXIT_PRINT_FMT						\
	"\"vcpu %u reason %s%s%s rip 0x%lx info1 0x%016llx "		\
	"info2 0x%016llx intr_info 0x%08x error_code 0x%08x "		\
	"requests 0x%016llx\", REC->vcpu_id, (REC->isa == 1) ? "	\
	"__print_symbolic(REC->exit_reason & 0xffff, "			\
	VMX_EXIT_SYMBOLS ") : "						\
	"__print_symbolic(REC->exit_reason, " SVM_EXIT_SYMBOLS "), "	\
	"(REC->isa == 1 && REC->exit_reason & ~0xffff) ? \" \" : \"\", " \
	"(REC->isa == 1) ? __print_flags(REC->exit_reason & ~0xffff, "	\
	"\" \", { 0x80000000, \"FAILED_VMENTRY\" }) : \"\", "		\
	"REC->guest_rip, REC->info1, REC->info2, REC->intr_info, "	\
	"REC->error_code, REC->requests"

#define KVM_EXIT_5_4_PRINT_FMT						\
	"\"reason %s rip 0x%lx info %llx %llx\", (REC->isa == 1) ? "	\
	"__print_symbolic(REC->exit_reason, " VMX_EXIT_SYMBOLS ") : "	\
	"__print_symbolic(REC->exit_reason, " SVM_EXIT_SYMBOLS "), "	\
	"REC->guest_rip, REC->info1, REC->info2"

#define KVM_ENTRY_PRINT_FMT						\
	"\"vcpu %u, rip 0x%lx intr_info 0x%08x error_code 0x%08x%s\", " \
	"REC->vcpu_id, REC->rip, REC->intr_info, REC->error_code, "	\
	"REC->immediate_exit ? \"[immediate exit]\" : \"\""

#define KVM_ENTRY_5_4_PRINT_FMT "\"vcpu %u\", REC->vcpu_id"

#define KVM_PIO_PRINT_FMT						\
	"\"pio_%s at 0x%x size %d count %d val 0x%x %s\", "		\
	"REC->rw ? \"write\" : \"read\", REC->port, REC->size, "	\
	"REC->count, REC->val, REC->count > 1 ? \"(...)\" : \"\""

#define KVM_USERSPACE_EXIT_PRINT_FMT					\
	"\"reason %s (%d)\", REC->errno < 0 ? (REC->errno == -4 ? "	\
	"\"restart\" : \"error\") : __print_symbolic(REC->reason, "	\
	"{ 2, \"KVM_EXIT_IO\" }, { 3, \"KVM_EXIT_HYPERCALL\" }, "	\
	"{ 5, \"KVM_EXIT_HLT\" }, "					\
	"{ 6, \"KVM_EXIT_MMIO\" }, { 10, \"KVM_EXIT_INTR\" }, "		\
	"{ 24, \"KVM_EXIT_SYSTEM_EVENT\" }), "				\
	"REC->errno < 0 ? -REC->errno : REC->reason"

#define KVM_MSR_PRINT_FMT						\
	"\"msr_%s %x = 0x%llx%s\", REC->write ? \"write\" : \"read\", "	\
	"REC->ecx, REC->data, REC->exception ? \" (#GP)\" : \"\""

#define KVM_HYPERCALL_PRINT_FMT						\
	"\"nr 0x%lx a0 0x%lx a1 0x%lx a2 0x%lx a3 0x%lx\", REC->nr, "	\
	"REC->a0, REC->a1, REC->a2, REC->a3"

/* The 6.12 x86 formats; vmx-nested and vmx-halt add to them */
#define FORMATS_6_12_X86						\
	[TP_KVM_EXIT]	= { 103, 72, kvm_exit_fields, KVM_EXIT_PRINT_FMT }, \
	[TP_KVM_ENTRY]	= { 115, 40, kvm_entry_fields, KVM_ENTRY_PRINT_FMT }, \
	[TP_KVM_MMIO]	= { 38, 32, kvm_mmio_fields, KVM_MMIO_PRINT_FMT }, \
	[TP_KVM_PIO]	= { 110, 28, kvm_pio_fields, KVM_PIO_PRINT_FMT }, \
	[TP_KVM_USERSPACE_EXIT] = { 42, 16, kvm_userspace_exit_fields,	\
				    KVM_USERSPACE_EXIT_PRINT_FMT },	\
	[TP_KVM_MSR]	= { 99, 32, kvm_msr_fields, KVM_MSR_PRINT_FMT }, \
	[TP_KVM_HYPERCALL] = { 114, 48, kvm_hypercall_fields,		\
			       KVM_HYPERCALL_PRINT_FMT }

/* Formats and ids as a 6.12 x86_64 host shows them in tracefs */
const struct tp_format formats_6_12[NR_KVM_TPS] = {
	FORMATS_6_12_X86,
};

/* A 5.4 host: other ids, vcpu_id only in kvm_entry */
const struct tp_format formats_5_4[NR_KVM_TPS] = {
	[TP_KVM_EXIT]	= { 1086, 48, kvm_exit_5_4_fields,
			    KVM_EXIT_5_4_PRINT_FMT },
	[TP_KVM_ENTRY]	= { 1087, 12, kvm_entry_5_4_fields,
			    KVM_ENTRY_5_4_PRINT_FMT },
	[TP_KVM_MMIO]	= { 1055, 32, kvm_mmio_fields, KVM_MMIO_PRINT_FMT },
	[TP_KVM_PIO]	= { 1071, 28, kvm_pio_fields, KVM_PIO_PRINT_FMT },
	[TP_KVM_USERSPACE_EXIT] = { 1052, 16, kvm_userspace_exit_fields,
				    KVM_USERSPACE_EXIT_PRINT_FMT },
	[TP_KVM_MSR]	= { 1090, 32, kvm_msr_fields, KVM_MSR_PRINT_FMT },
	[TP_KVM_HYPERCALL] = { 1079, 48, kvm_hypercall_fields,
			       KVM_HYPERCALL_PRINT_FMT },
};

/*
 * Other architectures' 6.12 formats, from their TP_STRUCT__entry: after
 * the 8 byte common header, each field at its natural alignment, and the
 * entry as large as the struct, a multiple of its largest alignment.
 */
const struct tp_field arm64_exit_fields[] = {
	{ "int ret",			8,  4, true,  V_EXC_TYPE },
	{ "unsigned int esr_ec",	12, 4, false, V_EXIT_REASON },
	{ "unsigned long vcpu_pc",	16, 8, false, V_RIP },
	{ }
};

static const struct tp_field kvm_vcpu_wakeup_fields[] = {
	{ "__u64 ns",			8,  8, false, V_WAKE_NS },
	{ "bool waited",		16, 1, false, V_WAITED },
	{ "bool valid",			17, 1, false, V_VALID },
	{ }
};

static const struct tp_field kvm_halt_poll_ns_fields[] = {
	{ "bool grow",			8,  1, false, V_GROW },
	{ "unsigned int vcpu_id",	12, 4, false, V_VCPU_ID },
	{ "unsigned int new",		16, 4, false, V_POLL_NEW },
	{ "unsigned int old",		20, 4, false, V_POLL_OLD },
	{ }
};

#define KVM_NESTED_INJECT_PRINT_FMT					\
	"\"reason: %s ext_inf1: 0x%016llx ext_inf2: 0x%016llx "	\
	"ext_int: 0x%08x ext_int_err: 0x%08x\", (REC->isa == 1) ? "	\
	"__print_symbolic(REC->exit_code & 0xffff, "			\
	VMX_EXIT_SYMBOLS ") : "						\
	"__print_symbolic(REC->exit_code, " SVM_EXIT_SYMBOLS "), "	\
	"REC->exit_info1, REC->exit_info2, REC->exit_int_info, "	\
	"REC->exit_int_info_err"

const struct tp_format formats_6_12_nested[NR_KVM_TPS] = {
	FORMATS_6_12_X86,
	[TP_NESTED_VMEXIT] = { 90, 72, kvm_exit_fields, KVM_EXIT_PRINT_FMT },
	[TP_NESTED_INJECT] = { 89, 48, kvm_nested_inject_fields,
			       KVM_NESTED_INJECT_PRINT_FMT },
};

#define KVM_VCPU_WAKEUP_PRINT_FMT					\
	"\"%s time %lld ns, polling %s\", REC->waited ? \"wait\" : "	\
	"\"poll\", REC->ns, REC->valid ? \"valid\" : \"invalid\""

#define KVM_HALT_POLL_NS_PRINT_FMT					\
	"\"vcpu %u: halt_poll_ns %u (%s %u)\", REC->vcpu_id, REC->new, " \
	"REC->grow ? \"grow\" : \"shrink\", REC->old"

const struct tp_format formats_6_12_halt[NR_KVM_TPS] = {
	FORMATS_6_12_X86,
	[TP_VCPU_WAKEUP] = { 41, 24, kvm_vcpu_wakeup_fields,
			     KVM_VCPU_WAKEUP_PRINT_FMT },
	[TP_HALT_POLL_NS] = { 31, 24, kvm_halt_poll_ns_fields,
			      KVM_HALT_POLL_NS_PRINT_FMT },
};
