// SPDX-License-Identifier: GPL-2.0
/*
 * kvmgen: the 6.12 tracepoint formats of arm64, s390, powerpc, riscv and
 * loongarch, with the field offsets each TP_STRUCT__entry has on a 64-bit
 * host, so that the report decodes exits from the recording alone.
 */
#include "kvmgen.h"

/* Also riscv64's kvm_entry, there named pc */
static const struct tp_field arm64_entry_fields[] = {
	{ "unsigned long vcpu_pc",	8,  8, false, V_RIP },
	{ }
};

static const struct tp_field arm64_wfx_fields[] = {
	{ "unsigned long vcpu_pc",	8,  8, false, V_RIP },
	{ "bool is_wfe",		16, 1, false, V_WFE },
	{ }
};

static const struct tp_field arm64_hvc_fields[] = {
	{ "unsigned long vcpu_pc",	8,  8, false, V_RIP },
	{ "unsigned long r0",		16, 8, false, V_HC_NR },
	{ "unsigned long imm",		24, 8, false, V_HC_A0 },
	{ }
};

#define ARM64_EXIT_PRINT_FMT						\
	"\"%s: HSR_EC: 0x%04x (%s), PC: 0x%016lx\", "			\
	"__print_symbolic(REC->ret, { 0, \"IRQ\" }, { 1, \"SERROR\" }, " \
	"{ 2, \"TRAP\" }, { 3, \"ILLEGAL\" }, { 0xbadca11, \"HYP_GONE\" }), " \
	"REC->esr_ec, __print_symbolic(REC->esr_ec, "			\
	"{ 0x01, \"WFx\" }, { 0x16, \"HVC64\" }, { 0x18, \"SYS64\" }, "	\
	"{ 0x20, \"IABT_LOW\" }, { 0x24, \"DABT_LOW\" }, "		\
	"{ 0x07, \"FP_ASIMD\" }, { 0x19, \"SVE\" }), REC->vcpu_pc"

#define ARM64_ENTRY_PRINT_FMT "\"PC: 0x%016lx\", REC->vcpu_pc"

#define ARM64_HVC_PRINT_FMT						\
	"\"HVC at 0x%016lx (r0: 0x%016lx, imm: 0x%lx)\", "		\
	"REC->vcpu_pc, REC->r0, REC->imm"

#define ARM64_WFX_PRINT_FMT						\
	"\"guest executed wf%c at: 0x%016lx\", "			\
	"REC->is_wfe ? 'e' : 'i', REC->vcpu_pc"

const struct tp_format formats_arm64[NR_KVM_TPS] = {
	[TP_KVM_EXIT]	= { 1394, 24, arm64_exit_fields, ARM64_EXIT_PRINT_FMT,
			    NULL, NULL, 0xffff8000800b7e2cULL },
	[TP_KVM_ENTRY]	= { 1395, 16, arm64_entry_fields, ARM64_ENTRY_PRINT_FMT,
			    NULL, NULL, 0xffff8000800b6f10ULL },
	[TP_KVM_MMIO]	= { 1354, 32, kvm_mmio_fields, KVM_MMIO_PRINT_FMT,
			    NULL, NULL, 0xffff8000800a9b6cULL },
	[TP_KVM_USERSPACE_EXIT] = { 1358, 16, kvm_userspace_exit_fields,
				    KVM_USERSPACE_EXIT_ALL_PRINT_FMT,
				    NULL, NULL, 0xffff80008009e4d0ULL },
	[TP_KVM_HYPERCALL] = { 1410, 32, arm64_hvc_fields, ARM64_HVC_PRINT_FMT,
			       "kvm_hvc_arm64", NULL, 0xffff8000800c1d08ULL },
	[TP_WFX]	= { 1409, 24, arm64_wfx_fields, ARM64_WFX_PRINT_FMT,
			    NULL, NULL, 0xffff8000800c1a44ULL },
};

/* VCPU_FIELD_COMMON of arch/s390/kvm/trace.h, then the event's own */
static const struct tp_field s390_sie_exit_fields[] = {
	{ "int id",			8,  4, true,  V_VCPU_ID },
	{ "unsigned long pswmask",	16, 8, false, V_GUEST_MASK },
	{ "unsigned long pswaddr",	24, 8, false, V_RIP },
	{ "u8 icptcode",		32, 1, false, V_EXIT_REASON },
	{ }
};

static const struct tp_field s390_sie_enter_fields[] = {
	{ "int id",			8,  4, true,  V_VCPU_ID },
	{ "unsigned long pswmask",	16, 8, false, V_GUEST_MASK },
	{ "unsigned long pswaddr",	24, 8, false, V_RIP },
	{ "int cpuflags",		32, 4, true,  V_CPUFLAGS },
	{ }
};

static const struct tp_field s390_diag_fields[] = {
	{ "int id",			8,  4, true,  V_VCPU_ID },
	{ "unsigned long pswmask",	16, 8, false, V_GUEST_MASK },
	{ "unsigned long pswaddr",	24, 8, false, V_RIP },
	{ "__u16 code",			32, 2, false, V_HC_NR },
	{ }
};

#define S390_VCPU_PRINT_FMT(str, args)					\
	"\"%02d[%016lx-%016lx]: " str "\", REC->id, REC->pswmask, "	\
	"REC->pswaddr, " args

#define S390_SIE_EXIT_PRINT_FMT						\
	S390_VCPU_PRINT_FMT("exit sie icptcode %d (%s)",		\
	"REC->icptcode, __print_symbolic(REC->icptcode, "		\
	"{ 0x00, \"Host interruption\" }, "				\
	"{ 0x04, \"Instruction\" }, "					\
	"{ 0x14, \"External interruption\" }, "				\
	"{ 0x1c, \"Wait state\" }, { 0x40, \"I/O instruction\" })")

#define S390_SIE_ENTER_PRINT_FMT					\
	S390_VCPU_PRINT_FMT("entering sie flags %x", "REC->cpuflags")

#define S390_DIAG_PRINT_FMT						\
	S390_VCPU_PRINT_FMT("handle diagnose call %04x (%s)",		\
	"REC->code, __print_symbolic(REC->code, "			\
	"{ 0x044, \"DIAG (0x44) time slice end\" }, "			\
	"{ 0x09c, \"DIAG (0x9c) time slice end directed\" }, "		\
	"{ 0x500, \"DIAG (0x500) KVM virtio functions\" })")

const struct tp_format formats_s390[NR_KVM_TPS] = {
	[TP_KVM_EXIT]	= { 1187, 40, s390_sie_exit_fields,
			    S390_SIE_EXIT_PRINT_FMT, "kvm_s390_sie_exit",
			    NULL, 0x000003ff803b9a6eULL },
	[TP_KVM_ENTRY]	= { 1185, 40, s390_sie_enter_fields,
			    S390_SIE_ENTER_PRINT_FMT, "kvm_s390_sie_enter",
			    NULL, 0x000003ff803b98d2ULL },
	[TP_KVM_USERSPACE_EXIT] = { 1160, 16, kvm_userspace_exit_fields,
				    KVM_USERSPACE_EXIT_ALL_PRINT_FMT,
				    NULL, NULL, 0x000003ff8039c2a4ULL },
	[TP_KVM_HYPERCALL] = { 1196, 40, s390_diag_fields,
			       S390_DIAG_PRINT_FMT, "kvm_s390_handle_diag",
			       NULL, 0x000003ff803d41f0ULL },
};

/* arch/powerpc/kvm/trace_hv.h: system kvm_hv */
static const struct tp_field ppc_guest_exit_fields[] = {
	{ "int vcpu_id",		8,  4, true,  V_VCPU_ID },
	{ "int trap",			12, 4, true,  V_EXIT_REASON },
	{ "unsigned long pc",		16, 8, false, V_RIP },
	{ "unsigned long msr",		24, 8, false, V_GUEST_MASK },
	{ "u8 ceded",			32, 1, false, V_ZERO },
	{ }
};

static const struct tp_field ppc_guest_enter_fields[] = {
	{ "int vcpu_id",		8,  4, true,  V_VCPU_ID },
	{ "unsigned long pc",		16, 8, false, V_RIP },
	{ "unsigned long pending_exceptions", 24, 8, false, V_ZERO },
	{ "u8 ceded",			32, 1, false, V_ZERO },
	{ }
};

static const struct tp_field ppc_hcall_enter_fields[] = {
	{ "int vcpu_id",		8,  4, true,  V_VCPU_ID },
	{ "unsigned long req",		16, 8, false, V_HC_NR },
	{ "unsigned long gpr4",		24, 8, false, V_HC_A0 },
	{ "unsigned long gpr5",		32, 8, false, V_HC_A1 },
	{ "unsigned long gpr6",		40, 8, false, V_HC_A2 },
	{ "unsigned long gpr7",		48, 8, false, V_HC_A3 },
	{ }
};

static const struct tp_field ppc_hcall_exit_fields[] = {
	{ "int vcpu_id",		8,  4, true,  V_VCPU_ID },
	{ "unsigned long ret",		16, 8, false, V_HC_RET },
	{ "unsigned long hcall_rc",	24, 8, false, V_ZERO },
	{ }
};

#define PPC_GUEST_EXIT_PRINT_FMT					\
	"\"VCPU %d: trap=%s pc=0x%lx msr=0x%lx, ceded=%d\", "		\
	"REC->vcpu_id, __print_symbolic(REC->trap, "			\
	"{ 0x500, \"EXTERNAL\" }, { 0x900, \"DECREMENTER\" }, "		\
	"{ 0x980, \"HV_DECREMENTER\" }, { 0xc00, \"SYSCALL\" }, "	\
	"{ 0xe00, \"H_DATA_STORAGE\" }, { 0xe80, \"H_DOORBELL\" }), "	\
	"REC->pc, REC->msr, REC->ceded"

#define PPC_GUEST_ENTER_PRINT_FMT					\
	"\"VCPU %d: pc=0x%lx pexcp=0x%lx ceded=%d\", REC->vcpu_id, "	\
	"REC->pc, REC->pending_exceptions, REC->ceded"

#define PPC_HCALL_ENTER_PRINT_FMT					\
	"\"VCPU %d: hcall=%s GPR4-7=0x%lx,0x%lx,0x%lx,0x%lx\", "	\
	"REC->vcpu_id, __print_symbolic(REC->req, "			\
	"{ 0x20, \"H_PUT_TCE\" }, { 0x58, \"H_PUT_TERM_CHAR\" }, "	\
	"{ 0x64, \"H_EOI\" }, { 0x6c, \"H_IPI\" }, { 0xe0, \"H_CEDE\" }), " \
	"REC->gpr4, REC->gpr5, REC->gpr6, REC->gpr7"

#define PPC_HCALL_EXIT_PRINT_FMT					\
	"\"VCPU %d: ret=%s hcall_rc=%s\", REC->vcpu_id, "		\
	"__print_symbolic(REC->ret, { 0, \"RESUME_GUEST\" }, "		\
	"{ 2, \"RESUME_HOST\" }), "					\
	"__print_symbolic(REC->ret & 2 ? 9999 : REC->hcall_rc, "	\
	"{ 0, \"H_SUCCESS\" }, { 9999, \"H_TOO_HARD\" })"

const struct tp_format formats_ppc[NR_KVM_TPS] = {
	[TP_KVM_EXIT]	= { 1562, 40, ppc_guest_exit_fields,
			    PPC_GUEST_EXIT_PRINT_FMT, "kvm_guest_exit",
			    "kvm_hv", 0xc0080000104f3c8cULL },
	[TP_KVM_ENTRY]	= { 1561, 40, ppc_guest_enter_fields,
			    PPC_GUEST_ENTER_PRINT_FMT, "kvm_guest_enter",
			    "kvm_hv", 0xc0080000104f2e50ULL },
	[TP_KVM_USERSPACE_EXIT] = { 1520, 16, kvm_userspace_exit_fields,
				    KVM_USERSPACE_EXIT_ALL_PRINT_FMT,
				    NULL, NULL, 0xc008000010262f1cULL },
	[TP_KVM_HYPERCALL] = { 1566, 56, ppc_hcall_enter_fields,
			       PPC_HCALL_ENTER_PRINT_FMT, "kvm_hcall_enter",
			       "kvm_hv", 0xc0080000104e7a14ULL },
	[TP_HCALL_EXIT]	= { 1567, 32, ppc_hcall_exit_fields,
			    PPC_HCALL_EXIT_PRINT_FMT, "kvm_hcall_exit",
			    "kvm_hv", 0xc0080000104e7c38ULL },
};

static const struct tp_field riscv_exit_fields[] = {
	{ "unsigned long sepc",		8,  8, false, V_RIP },
	{ "unsigned long scause",	16, 8, false, V_EXIT_REASON },
	{ "unsigned long stval",	24, 8, false, V_INFO1 },
	{ "unsigned long htval",	32, 8, false, V_INFO2 },
	{ "unsigned long htinst",	40, 8, false, V_ZERO },
	{ }
};

static const struct tp_field riscv_entry_fields[] = {
	{ "unsigned long pc",		8,  8, false, V_RIP },
	{ }
};

#define RISCV_EXIT_PRINT_FMT						\
	"\"SEPC:0x%lx, SCAUSE:0x%lx, STVAL:0x%lx, HTVAL:0x%lx, "	\
	"HTINST:0x%lx\", REC->sepc, REC->scause, REC->stval, "		\
	"REC->htval, REC->htinst"

/* sic: the kernel's format has "0x016%lx" */
#define RISCV_ENTRY_PRINT_FMT "\"PC: 0x016%lx\", REC->pc"

const struct tp_format formats_riscv[NR_KVM_TPS] = {
	[TP_KVM_EXIT]	= { 712, 48, riscv_exit_fields, RISCV_EXIT_PRINT_FMT,
			    NULL, NULL, 0xffffffff0153a2c6ULL },
	[TP_KVM_ENTRY]	= { 711, 16, riscv_entry_fields, RISCV_ENTRY_PRINT_FMT,
			    NULL, NULL, 0xffffffff01539e1aULL },
	[TP_KVM_USERSPACE_EXIT] = { 686, 16, kvm_userspace_exit_fields,
				    KVM_USERSPACE_EXIT_ALL_PRINT_FMT,
				    NULL, NULL, 0xffffffff0152b40cULL },
};

/* The kvm_exit and kvm_transition classes of arch/loongarch/kvm/trace.h */
static const struct tp_field loongarch_exit_fields[] = {
	{ "unsigned int vcpu_id",	8,  4, false, V_VCPU_ID },
	{ "unsigned long pc",		16, 8, false, V_RIP },
	{ "unsigned int reason",	24, 4, false, V_EXIT_REASON },
	{ }
};

static const struct tp_field loongarch_transition_fields[] = {
	{ "unsigned int vcpu_id",	8,  4, false, V_VCPU_ID },
	{ "unsigned long pc",		16, 8, false, V_RIP },
	{ }
};

#define LOONGARCH_EXIT_PRINT_FMT					\
	"\"vcpu %u [%s] PC: 0x%08lx\", REC->vcpu_id, "			\
	"__print_symbolic(REC->reason, { 64, \"IDLE\" }, "		\
	"{ 65, \"CACHE\" }), REC->pc"

#define LOONGARCH_TRANSITION_PRINT_FMT					\
	"\"vcpu %u PC: 0x%08lx\", REC->vcpu_id, REC->pc"

const struct tp_format formats_loongarch[NR_KVM_TPS] = {
	[TP_KVM_EXIT]	= { 1045, 32, loongarch_exit_fields,
			    LOONGARCH_EXIT_PRINT_FMT,
			    NULL, NULL, 0xffff800002a4c1f8ULL },
	[TP_KVM_ENTRY]	= { 1040, 24, loongarch_transition_fields,
			    LOONGARCH_TRANSITION_PRINT_FMT, "kvm_enter",
			    NULL, 0xffff800002a51e30ULL },
	[TP_KVM_USERSPACE_EXIT] = { 1006, 16, kvm_userspace_exit_fields,
				    KVM_USERSPACE_EXIT_ALL_PRINT_FMT,
				    NULL, NULL, 0xffff800002a3b56cULL },
	[TP_EXIT_IDLE]	= { 1043, 32, loongarch_exit_fields,
			    LOONGARCH_EXIT_PRINT_FMT,
			    NULL, NULL, 0xffff800002a4d9a4ULL },
	[TP_EXIT_CACHE]	= { 1044, 32, loongarch_exit_fields,
			    LOONGARCH_EXIT_PRINT_FMT,
			    NULL, NULL, 0xffff800002a4dc10ULL },
	[TP_KVM_REENTER] = { 1041, 24, loongarch_transition_fields,
			     LOONGARCH_TRANSITION_PRINT_FMT,
			     NULL, NULL, 0xffff800002a520c4ULL },
	[TP_KVM_OUT]	= { 1042, 24, loongarch_transition_fields,
			    LOONGARCH_TRANSITION_PRINT_FMT,
			    NULL, NULL, 0xffff800002a52248ULL },
};

/* x86: this host's kvm_nested_vmexit has kvm_exit's fields */
const struct tp_field kvm_nested_inject_fields[] = {
	{ "__u32 exit_code",		8,  4, false, V_EXIT_REASON },
	{ "__u64 exit_info1",		16, 8, false, V_INFO1 },
	{ "__u64 exit_info2",		24, 8, false, V_INFO2 },
	{ "__u32 exit_int_info",	32, 4, false, V_INTR_INFO },
	{ "__u32 exit_int_info_err",	36, 4, false, V_ZERO },
	{ "__u32 isa",			40, 4, false, V_ISA },
	{ }
};
