// SPDX-License-Identifier: GPL-2.0
/*
 * The engine of perf kvm-events: decode kvm tracepoint samples, pair each
 * vcpu's begin and end events, and keep per-key statistics.
 *
 * Every decision is taken from the recording (tracepoint formats, the isa
 * field, the header's cpuid), never from the machine running the report.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>
#include <linux/bits.h>
#include <linux/err.h>
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/zalloc.h>

#include "debug.h"
#include "event.h"
#include "evsel.h"
#include "hashmap.h"
#include "intlist.h"
#include "kvm-events.h"
#include "sample.h"
#include "time-utils.h"

/* The exit reason tables are facts from the tree's x86 uapi headers. */
#include "../../arch/x86/include/uapi/asm/kvm.h"
#include "../../arch/x86/include/uapi/asm/vmx.h"
#include "../../arch/x86/include/uapi/asm/svm.h"
#include "../../arch/s390/include/uapi/asm/sie.h"

struct exit_reason_name {
	u64		code;
	const char	*name;
};

static const struct exit_reason_name vmx_exit_reasons[] = { VMX_EXIT_REASONS };
static const struct exit_reason_name svm_exit_reasons[] = { SVM_EXIT_REASONS };

/*
 * What one kvm tracepoint is to the analyses, and which of its fields they
 * read.  A name may have several entries, one per architecture: the first
 * whose required fields the recorded format has is the one.  Adding an
 * architecture is adding its entries here and its isa to isas[].
 */
struct kvm_tp_desc {
	const char		*system;
	const char		*name;
	enum kvm_tp_role	tp;
	u32			isa;	/* when the format has no isa field */
	const char		*code;	/* required when set */
	const char		*kind;	/* required when set */
	const char		*vcpu;	/* optional: older kernels lack it */
	const char		*isa_field;	/* optional */
	const char		*rip;	/* optional */
	const char		*flag;	/* optional */
};

#define KVM_TP(_system, _name, _tp, ...)				\
	{ .system = _system, .name = _name, .tp = KVM_TP_##_tp,	\
	  __VA_ARGS__ }

static const struct kvm_tp_desc kvm_tps[] = {
	/* x86 (VMX, SVM, PVM), all generic KVM and the x86-only ones */
	KVM_TP("kvm", "kvm_exit", EXIT, .code = "exit_reason",
	       .vcpu = "vcpu_id", .isa_field = "isa", .rip = "guest_rip"),
	KVM_TP("kvm", "kvm_entry", ENTRY, .vcpu = "vcpu_id"),
	KVM_TP("kvm", "kvm_mmio", MMIO, .code = "gpa", .kind = "type"),
	KVM_TP("kvm", "kvm_pio", PIO, .code = "port", .kind = "rw"),
	KVM_TP("kvm", "kvm_userspace_exit", USER_EXIT, .code = "reason",
	       .kind = "errno"),
	KVM_TP("kvm", "kvm_fpu", FPU, .kind = "load"),
	KVM_TP("kvm", "kvm_msr", MSR, .code = "ecx", .kind = "write"),
	KVM_TP("kvm", "kvm_hypercall", HYPERCALL, .code = "nr"),
	KVM_TP("kvm", "kvm_nested_vmexit", NESTED_EXIT, .code = "exit_reason",
	       .vcpu = "vcpu_id", .isa_field = "isa"),
	KVM_TP("kvm", "kvm_nested_vmexit_inject", NESTED_INJECT,
	       .code = "exit_code", .isa_field = "isa"),
	KVM_TP("kvm", "kvm_vcpu_wakeup", WAKEUP, .code = "ns", .kind = "waited",
	       .flag = "valid"),
	KVM_TP("kvm", "kvm_halt_poll_ns", HALT_POLL, .kind = "grow",
	       .vcpu = "vcpu_id", .code = "new"),
	/* arm64: no vcpu id, the exit class is in ret and esr_ec */
	KVM_TP("kvm", "kvm_exit", EXIT, .isa = KVM_EVENTS_ISA_ARM64,
	       .code = "esr_ec", .kind = "ret", .rip = "vcpu_pc"),
	KVM_TP("kvm", "kvm_wfx_arm64", EXIT_DETAIL, .isa = KVM_EVENTS_ISA_ARM64,
	       .kind = "is_wfe", .rip = "vcpu_pc"),
	KVM_TP("kvm", "kvm_hvc_arm64", HYPERCALL, .isa = KVM_EVENTS_ISA_ARM64,
	       .code = "r0"),
	/* riscv: no vcpu id either */
	KVM_TP("kvm", "kvm_exit", EXIT, .isa = KVM_EVENTS_ISA_RISCV,
	       .code = "scause", .rip = "sepc"),
	/* loongarch: kvm_exit_idle and kvm_exit_cache name a GSPR exit */
	KVM_TP("kvm", "kvm_exit", EXIT, .isa = KVM_EVENTS_ISA_LOONGARCH,
	       .code = "reason", .vcpu = "vcpu_id", .rip = "pc"),
	KVM_TP("kvm", "kvm_exit_idle", EXIT_DETAIL,
	       .isa = KVM_EVENTS_ISA_LOONGARCH, .code = "reason",
	       .vcpu = "vcpu_id"),
	KVM_TP("kvm", "kvm_exit_cache", EXIT_DETAIL,
	       .isa = KVM_EVENTS_ISA_LOONGARCH, .code = "reason",
	       .vcpu = "vcpu_id"),
	KVM_TP("kvm", "kvm_enter", ENTRY, .vcpu = "vcpu_id"),
	KVM_TP("kvm", "kvm_reenter", ENTRY, .vcpu = "vcpu_id"),
	/* s390: SIE exits and entries, diagnose calls */
	KVM_TP("kvm", "kvm_s390_sie_exit", EXIT, .isa = KVM_EVENTS_ISA_S390,
	       .code = "icptcode", .vcpu = "id", .rip = "pswaddr"),
	KVM_TP("kvm", "kvm_s390_sie_enter", ENTRY, .vcpu = "id"),
	KVM_TP("kvm", "kvm_s390_handle_diag", HYPERCALL,
	       .isa = KVM_EVENTS_ISA_S390, .code = "code", .vcpu = "id"),
	/* powerpc book3s HV */
	KVM_TP("kvm_hv", "kvm_guest_exit", EXIT, .isa = KVM_EVENTS_ISA_PPC_HV,
	       .code = "trap", .vcpu = "vcpu_id", .rip = "pc"),
	KVM_TP("kvm_hv", "kvm_guest_enter", ENTRY, .vcpu = "vcpu_id"),
	KVM_TP("kvm_hv", "kvm_hcall_enter", HYPERCALL,
	       .isa = KVM_EVENTS_ISA_PPC_HV, .code = "req", .vcpu = "vcpu_id"),
	KVM_TP("kvm_hv", "kvm_hcall_exit", HYPERCALL_END, .vcpu = "vcpu_id"),
};

/* kvm_mmio "type" values */
#define KVM_MMIO_READ	1
#define KVM_MMIO_WRITE	2

/*
 * One analysis: which samples open and close a vcpu's interval, and which
 * of them are samples of a key.  *key is KVM_EVENTS_NO_KEY for an event
 * that only marks time (the kvm_exit before an MMIO read, the kvm_entry).
 */
struct kvm_events_analysis {
	const char	*name;
	const char	*column;
	u32		tps;	/* BIT(tp) of each tracepoint it reads */
	/* What record asks for it, if not tps; without needs it counts nothing */
	u32		record_tps;
	u32		needs;
	bool		by_default;	/* recorded without record --event */
	bool		(*begin)(const struct kvm_events_sample *s, u64 *key);
	bool		(*end)(const struct kvm_events_sample *s, u64 *key);
	/* Optional: a sample that tells more of the open interval's key */
	bool		(*refine)(const struct kvm_events_sample *s, u64 *key);
	/*
	 * Optional: a sample that is a whole event, which the kernel timed
	 * itself (*duration, or KVM_EVENTS_NO_TIME for an event without one).
	 */
	bool		(*whole)(const struct kvm_events_sample *s, u64 *key,
				 u64 *duration);
	void		(*key_name)(u64 key, char *buf, size_t size);
	/* A vcpu waiting for work, whose time is not overhead */
	bool		(*is_idle)(u64 key);
};

#define KVM_EVENTS_NO_TIME	(~0ULL)

/*
 * Pairing state of one vcpu thread.  A sample is accounted when its
 * interval is resolved (ended, superseded or cut off), since filters such
 * as --duration need its time.
 */
struct vcpu_state {
	u32	tid;
	u32	pid;
	u32	vcpu;
	bool	open;		/* an interval has begun */
	bool	pending;	/* ...for a sample of pending_key */
	u64	begin_time;
	u64	pending_key;
	u64	rip;		/* of the last exit */
};

/* How a sample's interval was resolved */
enum resolution {
	TIMED,
	NO_END,
	NO_BEGIN,
	UNTIMED,	/* an event that has no duration by nature */
};

static struct tep_format_field *find_field(struct tep_event *format,
					   const char *name, bool required,
					   int *err)
{
	struct tep_format_field *field;

	if (!name)
		return NULL;
	field = tep_find_field(format, name);
	if (field && field->size != 1 && field->size != 2 &&
	    field->size != 4 && field->size != 8) {
		pr_err("kvm:%s: field '%s' has size %d, expected 1, 2, 4 or 8\n",
		       format->name, name, field->size);
		*err = -EINVAL;
		return NULL;
	}
	if (!field && required) {
		pr_err("kvm:%s: the tracepoint format has no field '%s'\n",
		       format->name, name);
		*err = -EINVAL;
	}
	return field;
}

/* A field past what a sample can hold makes every sample too short. */
static void fit_raw_size(struct kvm_events_decoder *dec,
			 const struct tep_format_field *field)
{
	u64 end;

	if (!field)
		return;
	end = field->offset < 0 ? UINT32_MAX : (u64)field->offset + field->size;
	if (end > dec->min_raw_size)
		dec->min_raw_size = min_t(u64, end, UINT32_MAX);
}

static bool has_fields(struct tep_event *format, const struct kvm_tp_desc *desc)
{
	return (!desc->code || tep_find_field(format, desc->code)) &&
	       (!desc->kind || tep_find_field(format, desc->kind));
}

/* The entry for @format: one whose required fields it has, else any. */
static const struct kvm_tp_desc *find_desc(struct tep_event *format)
{
	const struct kvm_tp_desc *named = NULL;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(kvm_tps); i++) {
		if (strcmp(format->system, kvm_tps[i].system) ||
		    strcmp(format->name, kvm_tps[i].name))
			continue;
		if (has_fields(format, &kvm_tps[i]))
			return &kvm_tps[i];
		if (!named)
			named = &kvm_tps[i];
	}
	/* Its missing fields make kvm_events_decoder__init() say why. */
	return named;
}

/*
 * Returns 0 and fills @dec for a kvm tracepoint the analyses use, 1 for
 * any other tracepoint, a negative error when a needed field is missing.
 */
int kvm_events_decoder__init(struct kvm_events_decoder *dec,
			     struct tep_event *format)
{
	const struct kvm_tp_desc *desc;
	int err = 0;

	if (!format || !format->system || !format->name)
		return 1;
	desc = find_desc(format);
	if (!desc)
		return 1;

	memset(dec, 0, sizeof(*dec));
	dec->tp = desc->tp;
	dec->fixed_isa = desc->isa;
	dec->code = find_field(format, desc->code, true, &err);
	dec->kind = find_field(format, desc->kind, true, &err);
	dec->vcpu = find_field(format, desc->vcpu, false, &err);
	dec->isa = find_field(format, desc->isa_field, false, &err);
	dec->rip = find_field(format, desc->rip, false, &err);
	dec->flag = find_field(format, desc->flag, false, &err);
	fit_raw_size(dec, dec->code);
	fit_raw_size(dec, dec->kind);
	fit_raw_size(dec, dec->vcpu);
	fit_raw_size(dec, dec->isa);
	fit_raw_size(dec, dec->rip);
	fit_raw_size(dec, dec->flag);
	return err;
}

/*
 * format_field__intval() without its byte swapping, inlined: every sample
 * reads five fields, and the calls cost more than the rest of decoding.
 */
static inline u64 field_value(struct tep_format_field *field,
			      struct perf_sample *sample, bool needs_swap,
			      u64 none)
{
	const u8 *ptr;
	u32 v32;
	u16 v16;
	u64 v;

	if (!field)
		return none;
	if (needs_swap)
		return format_field__intval(field, sample, needs_swap);
	ptr = (const u8 *)sample->raw_data + field->offset;
	switch (field->size) {
	case 1:
		return *ptr;
	case 2:
		memcpy(&v16, ptr, 2);
		return v16;
	case 4:
		memcpy(&v32, ptr, 4);
		return v32;
	default:
		memcpy(&v, ptr, 8);
		return v;
	}
}

int kvm_events_decoder__decode(const struct kvm_events_decoder *dec,
			       struct perf_sample *sample, bool needs_swap,
			       struct kvm_events_sample *out)
{
	if (sample->raw_size < dec->min_raw_size)
		return -EINVAL;

	out->tp = dec->tp;
	out->time = sample->time;
	out->pid = sample->pid;
	out->tid = sample->tid;
	out->code = field_value(dec->code, sample, needs_swap, 0);
	out->kind = field_value(dec->kind, sample, needs_swap, 0);
	out->vcpu = field_value(dec->vcpu, sample, needs_swap, KVM_EVENTS_NO_VCPU);
	out->isa = field_value(dec->isa, sample, needs_swap, dec->fixed_isa);
	out->flag = field_value(dec->flag, sample, needs_swap, 0);
	out->rip = field_value(dec->rip, sample, needs_swap, 0);
	return 0;
}

const char *kvm_tp_role__name(enum kvm_tp_role tp)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(kvm_tps); i++) {
		if (kvm_tps[i].tp == tp)
			return kvm_tps[i].name;
	}
	return "?";
}

size_t kvm_events_tracepoints(u32 tps, const char **names, size_t max)
{
	static char full[ARRAY_SIZE(kvm_tps)][64];
	size_t i, j, nr = 0;

	for (i = 0; i < ARRAY_SIZE(kvm_tps) && nr < max; i++) {
		if (!(tps & BIT(kvm_tps[i].tp)))
			continue;
		snprintf(full[i], sizeof(full[i]), "%s:%s", kvm_tps[i].system,
			 kvm_tps[i].name);
		for (j = 0; j < nr && strcmp(names[j], full[i]); j++)
			;
		if (j == nr)
			names[nr++] = full[i];
	}
	return nr;
}

/*
 * Exit reasons of the other architectures, by the names of their kernel
 * headers (facts: the codes are the hardware's or KVM's ABI).
 */
static const struct exit_reason_name pvm_exit_reasons[] = {
	{ 0, "#DE" }, { 1, "#DB" }, { 2, "NMI" }, { 3, "#BP" }, { 4, "#OF" },
	{ 5, "#BR" }, { 6, "#UD" }, { 7, "#NM" }, { 8, "#DF" }, { 10, "#TS" },
	{ 11, "#NP" }, { 12, "#SS" }, { 13, "#GP" }, { 14, "#PF" },
	{ 16, "#MF" }, { 17, "#AC" }, { 18, "#MC" }, { 19, "#XM" },
	{ 20, "#VE" }, { 1025, "FAILED_VMENTRY" }, { 0x10000, "SYSCALL" },
	{ 0x20000, "HYPERCALL" }, { 0x30000, "ERETU" }, { 0x40000, "ERETS" },
	{ 0x50000, "INTERRUPT" }, { 0x60000, "INT80" },
};

/*
 * arm64: a trap is keyed by its exception class, anything else by the
 * exception type with bit 31 set.  kvm_wfx_arm64 tells WFI from WFE.
 */
#define ARM64_EXCEPTION_TRAP	2
#define ARM64_NOT_TRAP		BIT(31)
#define ARM64_EC_WFX		0x01
#define ARM64_WFI		0x100
#define ARM64_WFE		0x101

static const struct exit_reason_name arm64_exit_reasons[] = {
	{ 0x00, "UNKNOWN" }, { 0x01, "WFx" }, { 0x03, "CP15_32" },
	{ 0x04, "CP15_64" }, { 0x05, "CP14_MR" }, { 0x06, "CP14_LS" },
	{ 0x07, "FP_ASIMD" }, { 0x08, "CP10_ID" }, { 0x09, "PAC" },
	{ 0x0c, "CP14_64" }, { 0x0d, "BTI" }, { 0x0e, "ILL" },
	{ 0x11, "SVC32" }, { 0x12, "HVC32" }, { 0x13, "SMC32" },
	{ 0x15, "SVC64" }, { 0x16, "HVC64" }, { 0x17, "SMC64" },
	{ 0x18, "SYS64" }, { 0x19, "SVE" }, { 0x1a, "ERET" }, { 0x1c, "FPAC" },
	{ 0x1d, "SME" }, { 0x1f, "IMP_DEF" }, { 0x20, "IABT_LOW" },
	{ 0x21, "IABT_CUR" }, { 0x22, "PC_ALIGN" }, { 0x24, "DABT_LOW" },
	{ 0x25, "DABT_CUR" }, { 0x26, "SP_ALIGN" }, { 0x27, "MOPS" },
	{ 0x28, "FP_EXC32" }, { 0x2c, "FP_EXC64" }, { 0x2f, "SERROR" },
	{ 0x30, "BREAKPT_LOW" }, { 0x31, "BREAKPT_CUR" },
	{ 0x32, "SOFTSTP_LOW" }, { 0x33, "SOFTSTP_CUR" },
	{ 0x34, "WATCHPT_LOW" }, { 0x35, "WATCHPT_CUR" }, { 0x38, "BKPT32" },
	{ 0x3a, "VECTOR32" }, { 0x3c, "BRK64" },
	{ ARM64_WFI, "WFI" }, { ARM64_WFE, "WFE" },
	{ ARM64_NOT_TRAP | 0, "IRQ" }, { ARM64_NOT_TRAP | 1, "SERROR" },
	{ ARM64_NOT_TRAP | 3, "IL" }, { ARM64_NOT_TRAP | 0xbadca11, "HYP_GONE" },
};

static const struct exit_reason_name s390_exit_reasons[] = { sie_intercept_code };

static const struct exit_reason_name ppc_hv_exit_reasons[] = {
	{ 0x100, "SYSTEM_RESET" }, { 0x200, "MACHINE_CHECK" },
	{ 0x300, "DATA_STORAGE" }, { 0x380, "DATA_SEGMENT" },
	{ 0x400, "INST_STORAGE" }, { 0x480, "INST_SEGMENT" },
	{ 0x500, "EXTERNAL" }, { 0x502, "EXTERNAL_HV" },
	{ 0x600, "ALIGNMENT" }, { 0x700, "PROGRAM" }, { 0x800, "FP_UNAVAIL" },
	{ 0x900, "DECREMENTER" }, { 0x980, "HV_DECREMENTER" },
	{ 0x1980, "NESTED_HV_DECREMENTER" }, { 0xa00, "DOORBELL" },
	{ 0xc00, "SYSCALL" }, { 0xd00, "TRACE" }, { 0xe00, "H_DATA_STORAGE" },
	{ 0xe20, "H_INST_STORAGE" }, { 0xe40, "H_EMUL_ASSIST" },
	{ 0xe60, "HMI" }, { 0xe80, "H_DOORBELL" }, { 0xea0, "H_VIRT" },
	{ 0xf00, "PERFMON" }, { 0xf20, "ALTIVEC" }, { 0xf40, "VSX" },
	{ 0xf60, "FAC_UNAVAIL" }, { 0xf80, "H_FAC_UNAVAIL" },
	{ 0x1500, "HV_SOFTPATCH" }, { 0x5555, "HV_RM_HARD" },
};

/* riscv: scause, its interrupt bit (the top one) moved to bit 31 */
#define RISCV_INTERRUPT		BIT(31)

static const struct exit_reason_name riscv_exit_reasons[] = {
	{ 0, "INST_MISALIGNED" }, { 1, "INST_ACCESS" }, { 2, "INST_ILLEGAL" },
	{ 3, "BREAKPOINT" }, { 4, "LOAD_MISALIGNED" }, { 5, "LOAD_ACCESS" },
	{ 6, "STORE_MISALIGNED" }, { 7, "STORE_ACCESS" }, { 8, "SYSCALL" },
	{ 9, "HYPERVISOR_SYSCALL" }, { 10, "SUPERVISOR_SYSCALL" },
	{ 12, "INST_PAGE_FAULT" }, { 13, "LOAD_PAGE_FAULT" },
	{ 15, "STORE_PAGE_FAULT" }, { 20, "INST_GUEST_PAGE_FAULT" },
	{ 21, "LOAD_GUEST_PAGE_FAULT" }, { 22, "VIRTUAL_INST_FAULT" },
	{ 23, "STORE_GUEST_PAGE_FAULT" },
	{ RISCV_INTERRUPT | 1, "IRQ_S_SOFT" }, { RISCV_INTERRUPT | 2, "IRQ_VS_SOFT" },
	{ RISCV_INTERRUPT | 3, "IRQ_M_SOFT" }, { RISCV_INTERRUPT | 5, "IRQ_S_TIMER" },
	{ RISCV_INTERRUPT | 6, "IRQ_VS_TIMER" }, { RISCV_INTERRUPT | 7, "IRQ_M_TIMER" },
	{ RISCV_INTERRUPT | 9, "IRQ_S_EXT" }, { RISCV_INTERRUPT | 10, "IRQ_VS_EXT" },
	{ RISCV_INTERRUPT | 11, "IRQ_M_EXT" }, { RISCV_INTERRUPT | 12, "IRQ_S_GEXT" },
	{ RISCV_INTERRUPT | 13, "IRQ_PMU_OVF" },
};

/* loongarch: the exception code; 64 and 65 are KVM's own, for GSPR */
#define LOONGARCH_EXIT_IDLE	64

static const struct exit_reason_name loongarch_exit_reasons[] = {
	{ 0, "INT" }, { 1, "TLBL" }, { 2, "TLBS" }, { 3, "TLBI" }, { 4, "TLBM" },
	{ 5, "TLBNR" }, { 6, "TLBNX" }, { 7, "TLBPE" }, { 8, "ADE" },
	{ 9, "ALE" }, { 10, "BCE" }, { 11, "SYS" }, { 12, "BP" }, { 13, "INE" },
	{ 14, "IPE" }, { 15, "FPDIS" }, { 16, "LSXDIS" }, { 17, "LASXDIS" },
	{ 18, "FPE" }, { 19, "WATCH" }, { 20, "BTDIS" }, { 21, "BTE" },
	{ 22, "GSPR" }, { 23, "HVC" }, { 24, "GCM" }, { 25, "SE" },
	{ LOONGARCH_EXIT_IDLE, "IDLE" }, { 65, "CACHE" },
};

static u32 plain_code(const struct kvm_events_sample *s)
{
	return (u32)s->code;
}

static u32 arm64_code(const struct kvm_events_sample *s)
{
	if (s->kind == ARM64_EXCEPTION_TRAP)
		return (u32)s->code;
	return ARM64_NOT_TRAP | s->kind;
}

static u32 riscv_code(const struct kvm_events_sample *s)
{
	return (u32)s->code | (u32)(s->code >> 63) << 31;
}

static u32 arm64_detail(u32 code, const struct kvm_events_sample *s)
{
	if (code != ARM64_EC_WFX)
		return code;
	return s->kind ? ARM64_WFE : ARM64_WFI;
}

static u32 loongarch_detail(u32 code __maybe_unused,
			    const struct kvm_events_sample *s)
{
	return (u32)s->code;
}

/*
 * How each architecture's exits read: the key code from the exit sample,
 * what its detail tracepoint makes of it, the names, and the exit that
 * means the vcpu waits for work (none where it cannot be told).
 */
struct isa_desc {
	u32				isa;
	const struct exit_reason_name	*reasons;
	size_t				nr_reasons;
	u32				(*code)(const struct kvm_events_sample *s);
	u32				(*detail)(u32 code, const struct kvm_events_sample *s);
	bool				spell;	/* names are text: make them words */
	bool				has_idle;
	u32				idle;
	u32				idle2;	/* a second one, or the same */
};

#define ISA(_isa, _reasons, _code, ...)					\
	{ .isa = _isa, .reasons = _reasons, .nr_reasons = ARRAY_SIZE(_reasons), \
	  .code = _code, __VA_ARGS__ }

static const struct isa_desc isas[] = {
	/* MWAIT exits are emulated as a NOP by KVM: not idle. */
	ISA(KVM_EVENTS_ISA_VMX, vmx_exit_reasons, plain_code,
	    .has_idle = true, .idle = EXIT_REASON_HLT, .idle2 = EXIT_REASON_HLT),
	ISA(KVM_EVENTS_ISA_SVM, svm_exit_reasons, plain_code,
	    .has_idle = true, .idle = SVM_EXIT_HLT, .idle2 = SVM_EXIT_HLT),
	/* A PVM guest halts through a hypercall or an emulated #GP. */
	ISA(KVM_EVENTS_ISA_PVM, pvm_exit_reasons, plain_code),
	/* WFE waits for an event, often a spinning lock: only WFI idles. */
	ISA(KVM_EVENTS_ISA_ARM64, arm64_exit_reasons, arm64_code,
	    .detail = arm64_detail, .has_idle = true, .idle = ARM64_WFI,
	    .idle2 = ARM64_EC_WFX),
	ISA(KVM_EVENTS_ISA_S390, s390_exit_reasons, plain_code, .spell = true,
	    .has_idle = true, .idle = 0x1c, .idle2 = 0x1c),
	/* H_CEDE is a hypercall: --event hypercall shows it. */
	ISA(KVM_EVENTS_ISA_PPC_HV, ppc_hv_exit_reasons, plain_code),
	/* WFI traps as a virtual instruction fault, like others. */
	ISA(KVM_EVENTS_ISA_RISCV, riscv_exit_reasons, riscv_code),
	ISA(KVM_EVENTS_ISA_LOONGARCH, loongarch_exit_reasons, plain_code,
	    .detail = loongarch_detail, .has_idle = true,
	    .idle = LOONGARCH_EXIT_IDLE, .idle2 = LOONGARCH_EXIT_IDLE),
};

static const struct isa_desc *isa_desc(u32 isa)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(isas); i++) {
		if (isas[i].isa == isa)
			return &isas[i];
	}
	return NULL;
}

/*
 * vmexit: from kvm_exit to the vcpu's next kvm_entry.  A key holds the
 * exit code in bits 0-31, the isa in 32-39 (VMX and SVM reuse numbers)
 * and the nesting level in 40-41.
 */
#define KEY_ISA_SHIFT	32
#define KEY_LEVEL_SHIFT	40

enum nesting_level {
	LEVEL_L1,		/* or not nested */
	LEVEL_L2,		/* an L2 exit that L0 handled */
	LEVEL_L2_TO_L1,		/* an L2 exit forwarded to L1 */
};

static u64 vmexit_key(u32 isa, u32 code, enum nesting_level level)
{
	return (u64)level << KEY_LEVEL_SHIFT | (u64)(u8)isa << KEY_ISA_SHIFT | code;
}

static bool vmexit_begin(const struct kvm_events_sample *s, u64 *key)
{
	const struct isa_desc *desc;

	if (s->tp != KVM_TP_EXIT)
		return false;
	desc = isa_desc(s->isa);
	*key = vmexit_key(s->isa, desc ? desc->code(s) : (u32)s->code, LEVEL_L1);
	return true;
}

static bool entry_end(const struct kvm_events_sample *s, u64 *key)
{
	*key = KVM_EVENTS_NO_KEY;
	return s->tp == KVM_TP_ENTRY;
}

/* Nested exits and the arm64/loongarch detail events name the exit. */
static bool vmexit_refine(const struct kvm_events_sample *s, u64 *key)
{
	u32 isa = (u8)(*key >> KEY_ISA_SHIFT), code = (u32)*key;
	enum nesting_level level = *key >> KEY_LEVEL_SHIFT;
	const struct isa_desc *desc = isa_desc(isa);

	if (s->tp == KVM_TP_NESTED_EXIT && level == LEVEL_L1)
		level = LEVEL_L2;
	else if (s->tp == KVM_TP_NESTED_INJECT)
		level = LEVEL_L2_TO_L1;
	else if (s->tp == KVM_TP_EXIT_DETAIL && desc && desc->detail)
		code = desc->detail(code, s);
	else if (s->tp != KVM_TP_NESTED_EXIT)
		return false;
	*key = vmexit_key(isa, code, level);
	return true;
}

static const char *exit_reason_name(const struct isa_desc *desc, u32 code)
{
	size_t i;

	for (i = 0; desc && i < desc->nr_reasons; i++) {
		if (desc->reasons[i].code == code)
			return desc->reasons[i].name;
	}
	return NULL;
}

/* "I/O request" -> "I_O_REQUEST": names are one word in tables and CSV */
static void spell_word(const char *text, char *buf, size_t size)
{
	size_t len = 0;
	bool gap = false;

	for (; *text && len + 1 < size; text++) {
		if (isalnum((unsigned char)*text)) {
			if (gap && len)
				buf[len++] = '_';
			if (len + 1 < size)
				buf[len++] = toupper((unsigned char)*text);
			gap = false;
		} else {
			gap = true;
		}
	}
	buf[len] = '\0';
}

static const char * const level_prefix[] = {
	[LEVEL_L1]	 = "",
	[LEVEL_L2]	 = "L2:",
	[LEVEL_L2_TO_L1] = "L2>L1:",
};

static void vmexit_key_name(u64 key, char *buf, size_t size)
{
	const struct isa_desc *desc = isa_desc((u8)(key >> KEY_ISA_SHIFT));
	enum nesting_level level = (key >> KEY_LEVEL_SHIFT) & 3;
	const char *name = exit_reason_name(desc, (u32)key);
	const char *prefix = level <= LEVEL_L2_TO_L1 ? level_prefix[level] : "";
	int len = snprintf(buf, size, "%s", prefix);

	if (len < 0 || (size_t)len >= size)
		return;
	if (name && desc->spell)
		spell_word(name, buf + len, size - len);
	else if (name)
		snprintf(buf + len, size - len, "%s", name);
	else
		snprintf(buf + len, size - len, "0x%x", (u32)key);
}

static bool vmexit_is_idle(u64 key)
{
	const struct isa_desc *desc = isa_desc((u8)(key >> KEY_ISA_SHIFT));
	u32 code = (u32)key;

	return desc && desc->has_idle && (code == desc->idle || code == desc->idle2);
}

static bool never_idle(u64 key __maybe_unused)
{
	return false;
}

/*
 * mmio: a write runs from kvm_mmio(write) to kvm_entry; a read from the
 * kvm_exit that led to it to kvm_mmio(read), where the value is known.
 */
static u64 mmio_key(const struct kvm_events_sample *s)
{
	return s->code << 1 | (s->kind == KVM_MMIO_WRITE);
}

static bool mmio_begin(const struct kvm_events_sample *s, u64 *key)
{
	*key = KVM_EVENTS_NO_KEY;
	if (s->tp == KVM_TP_MMIO && s->kind == KVM_MMIO_WRITE)
		*key = mmio_key(s);
	return s->tp == KVM_TP_EXIT || *key != KVM_EVENTS_NO_KEY;
}

static bool mmio_end(const struct kvm_events_sample *s, u64 *key)
{
	*key = KVM_EVENTS_NO_KEY;
	if (s->tp == KVM_TP_MMIO && s->kind == KVM_MMIO_READ)
		*key = mmio_key(s);
	return s->tp == KVM_TP_ENTRY || *key != KVM_EVENTS_NO_KEY;
}

static void mmio_key_name(u64 key, char *buf, size_t size)
{
	snprintf(buf, size, "%#llx:%c", (unsigned long long)(key >> 1),
		 key & 1 ? 'W' : 'R');
}

/*
 * userspace: from kvm_userspace_exit, where KVM_RUN returns to the VMM, to
 * the vcpu thread's next kvm event: back in KVM_RUN.  That is kvm_fpu(load)
 * where it is recorded, kvm_entry on hosts that emit it, or whatever the
 * backend traces first.  KVM_RUN failing (negative errno) is a key too.
 */
static bool userspace_begin(const struct kvm_events_sample *s, u64 *key)
{
	if (s->tp != KVM_TP_USER_EXIT)
		return false;
	if ((int)s->kind < 0)
		*key = 1ULL << 32 | (u32)-(int)s->kind;
	else
		*key = (u32)s->code;
	return true;
}

static bool any_end(const struct kvm_events_sample *s, u64 *key)
{
	*key = KVM_EVENTS_NO_KEY;
	return s->tp != KVM_TP_USER_EXIT;
}

/* KVM_EXIT_* of the kernel's uapi linux/kvm.h, by number */
static const char * const kvm_exit_names[] = {
	"UNKNOWN", "EXCEPTION", "IO", "HYPERCALL", "DEBUG", "HLT", "MMIO",
	"IRQ_WINDOW_OPEN", "SHUTDOWN", "FAIL_ENTRY", "INTR", "SET_TPR",
	"TPR_ACCESS", "S390_SIEIC", "S390_RESET", "DCR", "NMI",
	"INTERNAL_ERROR", "OSI", "PAPR_HCALL", "S390_UCONTROL", "WATCHDOG",
	"S390_TSCH", "EPR", "SYSTEM_EVENT", "S390_STSI", "IOAPIC_EOI",
	"HYPERV", "ARM_NISV", "X86_RDMSR", "X86_WRMSR", "DIRTY_RING_FULL",
	"AP_RESET_HOLD", "X86_BUS_LOCK", "XEN", "RISCV_SBI", "RISCV_CSR",
	"NOTIFY", "LOONGARCH_IOCSR", "MEMORY_FAULT",
};

static void userspace_key_name(u64 key, char *buf, size_t size)
{
	u32 code = (u32)key;

	if (key >> 32)
		snprintf(buf, size, "%s(%u)", code == EINTR ? "restart" : "error", code);
	else if (code < ARRAY_SIZE(kvm_exit_names))
		snprintf(buf, size, "%s", kvm_exit_names[code]);
	else
		snprintf(buf, size, "0x%x", code);
}

struct code_name {
	u64		code;
	const char	*name;
};

static const char *code_name(const struct code_name *table, size_t nr, u64 code)
{
	size_t i;

	for (i = 0; i < nr; i++) {
		if (table[i].code == code)
			return table[i].name;
	}
	return NULL;
}

/* msr: from kvm_msr to kvm_entry, keyed by index and direction */
static bool msr_begin(const struct kvm_events_sample *s, u64 *key)
{
	if (s->tp != KVM_TP_MSR)
		return false;
	*key = (u64)(u32)s->code << 1 | (s->kind != 0);
	return true;
}

/* The MSRs guests exit on most, by the names of the kernel's msr-index.h */
static const struct code_name msr_names[] = {
	{ 0x10, "TSC" }, { 0x1b, "APIC_BASE" }, { 0x3a, "FEATURE_CONTROL" },
	{ 0x48, "SPEC_CTRL" }, { 0x49, "PRED_CMD" }, { 0x6e0, "TSC_DEADLINE" },
	{ 0x80b, "X2APIC_EOI" }, { 0x830, "X2APIC_ICR" },
	{ 0x838, "X2APIC_TMICT" }, { 0x83f, "X2APIC_SELF_IPI" },
	{ 0xc0000080, "EFER" }, { 0xc0000081, "STAR" }, { 0xc0000082, "LSTAR" },
	{ 0xc0000100, "FS_BASE" }, { 0xc0000101, "GS_BASE" },
	{ 0xc0000102, "KERNEL_GS_BASE" }, { 0xc0000103, "TSC_AUX" },
	{ 0x4b564d00, "KVM_WALL_CLOCK_NEW" }, { 0x4b564d01, "KVM_SYSTEM_TIME_NEW" },
	{ 0x4b564d02, "KVM_ASYNC_PF_EN" }, { 0x4b564d03, "KVM_STEAL_TIME" },
	{ 0x4b564d04, "KVM_PV_EOI_EN" },
};

static void msr_key_name(u64 key, char *buf, size_t size)
{
	const char *name = code_name(msr_names, ARRAY_SIZE(msr_names), key >> 1);
	int len = snprintf(buf, size, "%#llx:%c", (unsigned long long)(key >> 1),
			   key & 1 ? 'W' : 'R');

	if (name && len > 0 && (size_t)len < size)
		snprintf(buf + len, size - len, "/%s", name);
}

/*
 * hypercall: from kvm_hypercall (x86), kvm_hvc_arm64, kvm_hcall_enter
 * (powerpc) or kvm_s390_handle_diag to kvm_entry, or to kvm_hcall_exit
 * where there is one.  The key is the number, and the isa beside it for
 * other architectures than x86: each numbers its own.
 */
static bool hypercall_begin(const struct kvm_events_sample *s, u64 *key)
{
	if (s->tp != KVM_TP_HYPERCALL)
		return false;
	*key = s->isa ? (u64)(u8)s->isa << KEY_ISA_SHIFT | (u32)s->code : s->code;
	return true;
}

static bool hypercall_end(const struct kvm_events_sample *s, u64 *key)
{
	*key = KVM_EVENTS_NO_KEY;
	return s->tp == KVM_TP_ENTRY || s->tp == KVM_TP_HYPERCALL_END;
}

/* KVM_HC_* of the kernel's uapi linux/kvm_para.h */
static const struct code_name hypercall_names[] = {
	{ 1, "VAPIC_POLL_IRQ" }, { 2, "MMU_OP" }, { 3, "FEATURES" },
	{ 4, "PPC_MAP_MAGIC_PAGE" }, { 5, "KICK_CPU" },
	{ 6, "MIPS_GET_CLOCK_FREQ" }, { 7, "MIPS_EXIT_VM" },
	{ 8, "MIPS_CONSOLE_OUTPUT" }, { 9, "CLOCK_PAIRING" }, { 10, "SEND_IPI" },
	{ 11, "SCHED_YIELD" }, { 12, "MAP_GPA_RANGE" },
};

/* SMCCC function ids of the PSCI and SMCCC calls guests make */
static const struct code_name arm64_hypercall_names[] = {
	{ 0x80000000, "SMCCC_VERSION" }, { 0x80000001, "SMCCC_ARCH_FEATURES" },
	{ 0x84000000, "PSCI_VERSION" }, { 0x84000001, "CPU_SUSPEND" },
	{ 0xc4000001, "CPU_SUSPEND" }, { 0x84000002, "CPU_OFF" },
	{ 0x84000003, "CPU_ON" }, { 0xc4000003, "CPU_ON" },
	{ 0x84000008, "SYSTEM_OFF" }, { 0x84000009, "SYSTEM_RESET" },
};

/* PAPR hcalls, by the names of powerpc's hvcall.h */
static const struct code_name ppc_hypercall_names[] = {
	{ 0x04, "H_REMOVE" }, { 0x08, "H_ENTER" }, { 0x0c, "H_READ" },
	{ 0x18, "H_PROTECT" }, { 0x20, "H_PUT_TCE" },
	{ 0x54, "H_GET_TERM_CHAR" }, { 0x58, "H_PUT_TERM_CHAR" },
	{ 0x64, "H_EOI" }, { 0x68, "H_CPPR" }, { 0x6c, "H_IPI" },
	{ 0x74, "H_XIRR" }, { 0xdc, "H_REGISTER_VPA" }, { 0xe0, "H_CEDE" },
	{ 0xe4, "H_CONFER" }, { 0xe8, "H_PROD" }, { 0x124, "H_BULK_REMOVE" },
	{ 0x300, "H_RANDOM" }, { 0x31c, "H_SET_MODE" }, { 0xf000, "H_RTAS" },
};

#define PPC_H_CEDE	0xe0

static const struct exit_reason_name s390_diagnose_names[] = { diagnose_codes };

/* "DIAG (0x500) KVM virtio functions" -> "KVM_VIRTIO_FUNCTIONS" */
static const char *s390_diagnose_name(u32 code)
{
	const char *text = NULL, *end;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(s390_diagnose_names); i++) {
		if (s390_diagnose_names[i].code == code)
			text = s390_diagnose_names[i].name;
	}
	end = text ? strchr(text, ')') : NULL;
	return end ? end + 1 : text;
}

static void hypercall_key_name(u64 key, char *buf, size_t size)
{
	u32 isa = (u8)(key >> KEY_ISA_SHIFT), nr = (u32)key;
	const char *name = NULL;
	int len;

	switch (isa) {
	case 0:
		name = code_name(hypercall_names, ARRAY_SIZE(hypercall_names), key);
		if (name)
			snprintf(buf, size, "%llu/%s", (unsigned long long)key, name);
		else
			snprintf(buf, size, "%llu", (unsigned long long)key);
		return;
	case KVM_EVENTS_ISA_ARM64:
		name = code_name(arm64_hypercall_names,
				 ARRAY_SIZE(arm64_hypercall_names), nr);
		break;
	case KVM_EVENTS_ISA_PPC_HV:
		name = code_name(ppc_hypercall_names,
				 ARRAY_SIZE(ppc_hypercall_names), nr);
		break;
	case KVM_EVENTS_ISA_S390:
		name = s390_diagnose_name(nr);
		break;
	default:
		break;
	}
	len = snprintf(buf, size, "0x%x", nr);
	if (name && len > 0 && (size_t)len + 1 < size) {
		buf[len++] = '/';
		spell_word(name, buf + len, size - len);
	}
}

static bool hypercall_is_idle(u64 key)
{
	return key == ((u64)KVM_EVENTS_ISA_PPC_HV << KEY_ISA_SHIFT | PPC_H_CEDE);
}

/*
 * halt: each kvm_vcpu_wakeup is a halt that ended while KVM polled
 * ("poll") or after the vcpu slept ("wait"), timed by the kernel itself;
 * each kvm_halt_poll_ns is a change of the polling window, without time.
 */
#define HALT_WAITED	BIT(0)
#define HALT_INVALID	BIT(1)
#define HALT_GROW	BIT(2)
#define HALT_SHRINK	BIT(3)

static bool halt_whole(const struct kvm_events_sample *s, u64 *key,
		       u64 *duration)
{
	if (s->tp == KVM_TP_WAKEUP) {
		*key = (s->kind ? HALT_WAITED : 0) | (s->flag ? 0 : HALT_INVALID);
		*duration = s->code;
		return true;
	}
	if (s->tp == KVM_TP_HALT_POLL) {
		*key = s->kind ? HALT_GROW : HALT_SHRINK;
		*duration = KVM_EVENTS_NO_TIME;
		return true;
	}
	return false;
}

static bool no_interval(const struct kvm_events_sample *s __maybe_unused,
			u64 *key __maybe_unused)
{
	return false;
}

static void halt_key_name(u64 key, char *buf, size_t size)
{
	if (key & HALT_GROW)
		snprintf(buf, size, "grow");
	else if (key & HALT_SHRINK)
		snprintf(buf, size, "shrink");
	else
		snprintf(buf, size, "%s%s", key & HALT_WAITED ? "wait" : "poll",
			 key & HALT_INVALID ? ":invalid" : "");
}

/* ioport: from kvm_pio to kvm_entry */
static bool ioport_begin(const struct kvm_events_sample *s, u64 *key)
{
	if (s->tp != KVM_TP_PIO)
		return false;
	*key = (u64)(u32)s->code << 1 | (s->kind != 0);
	return true;
}

static void ioport_key_name(u64 key, char *buf, size_t size)
{
	snprintf(buf, size, "%#llx:%s", (unsigned long long)(key >> 1),
		 key & 1 ? "POUT" : "PIN");
}

#define TP(tp)	BIT(KVM_TP_##tp)

/* What --top allocates first: most ask for a few */
#define TOP_MIN_ALLOC	64

#define VMEXIT_TPS	(TP(EXIT) | TP(ENTRY))

/*
 * record takes by default what every analysis but userspace reads: those
 * events fire once per exit of their kind.  userspace needs
 * kvm_userspace_exit and kvm_fpu, which fire on every return to the VMM,
 * kvm_fpu twice: record --event userspace (or all) adds them.
 */
static const struct kvm_events_analysis analyses[] = {
	{ .name = "vmexit", .column = "VM-EXIT",
	  .tps = VMEXIT_TPS | TP(EXIT_DETAIL) | TP(NESTED_EXIT) | TP(NESTED_INJECT),
	  .needs = VMEXIT_TPS, .by_default = true,
	  .begin = vmexit_begin, .end = entry_end, .refine = vmexit_refine,
	  .key_name = vmexit_key_name, .is_idle = vmexit_is_idle },
	{ .name = "mmio", .column = "MMIO Access", .tps = VMEXIT_TPS | TP(MMIO),
	  .needs = TP(MMIO), .by_default = true,
	  .begin = mmio_begin, .end = mmio_end,
	  .key_name = mmio_key_name, .is_idle = never_idle },
	/* kvm_exit gives the --top rip of the port accesses */
	{ .name = "ioport", .column = "IO Port Access", .tps = VMEXIT_TPS | TP(PIO),
	  .needs = TP(PIO), .by_default = true,
	  .begin = ioport_begin, .end = entry_end,
	  .key_name = ioport_key_name, .is_idle = never_idle },
	/* Any event of the vcpu thread ends its time in the VMM. */
	{ .name = "userspace", .column = "Userspace Exit",
	  .tps = GENMASK(KVM_TP__NR - 1, 0),
	  .record_tps = VMEXIT_TPS | TP(USER_EXIT) | TP(FPU),
	  .needs = TP(USER_EXIT),
	  .begin = userspace_begin, .end = any_end,
	  .key_name = userspace_key_name, .is_idle = never_idle },
	{ .name = "msr", .column = "MSR Access", .tps = VMEXIT_TPS | TP(MSR),
	  .needs = TP(MSR), .by_default = true,
	  .begin = msr_begin, .end = entry_end,
	  .key_name = msr_key_name, .is_idle = never_idle },
	{ .name = "hypercall", .column = "Hypercall",
	  .tps = VMEXIT_TPS | TP(HYPERCALL) | TP(HYPERCALL_END),
	  .needs = TP(HYPERCALL), .by_default = true,
	  .begin = hypercall_begin, .end = hypercall_end,
	  .key_name = hypercall_key_name, .is_idle = hypercall_is_idle },
	/* kvm_vcpu_wakeup has no vcpu id: the exits around it tell it */
	{ .name = "halt", .column = "Halt",
	  .tps = VMEXIT_TPS | TP(WAKEUP) | TP(HALT_POLL),
	  .needs = TP(WAKEUP), .by_default = true,
	  .begin = no_interval, .end = no_interval, .whole = halt_whole,
	  .key_name = halt_key_name, .is_idle = never_idle },
};

/*
 * The tracepoints record takes for @list, a comma separated list of
 * analyses or "all", or by default for NULL; 0 if a name is unknown.
 */
u32 kvm_events_record_tps(const char *list)
{
	char name[32];
	u32 tps = 0;
	size_t i, len;

	if (!list) {
		for (i = 0; i < ARRAY_SIZE(analyses); i++)
			tps |= analyses[i].by_default ? analyses[i].tps : 0;
		return tps;
	}
	for (; *list; list += len + !!list[len]) {
		const struct kvm_events_analysis *analysis;

		len = strcspn(list, ",");
		if (len >= sizeof(name))
			return 0;
		memcpy(name, list, len);
		name[len] = '\0';
		if (!strcmp(name, "all"))
			return GENMASK(KVM_TP__NR - 1, 0);
		analysis = kvm_events_analysis__find(name);
		if (!analysis)
			return 0;
		tps |= analysis->record_tps ?: analysis->tps;
	}
	return tps;
}

/* The tracepoints without which @analysis counts nothing */
u32 kvm_events_analysis__needs(const struct kvm_events_analysis *analysis)
{
	return analysis->needs;
}

const struct kvm_events_analysis *kvm_events_analysis__find(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(analyses); i++) {
		if (!strcmp(analyses[i].name, name))
			return &analyses[i];
	}
	return NULL;
}

const char *kvm_events_analysis__names(void)
{
	return "vmexit, mmio, ioport, userspace, msr, hypercall, halt";
}

const char *kvm_events_analysis__name(const struct kvm_events_analysis *analysis)
{
	return analysis->name;
}

const char *kvm_events_analysis__column(const struct kvm_events_analysis *analysis)
{
	return analysis->column;
}

void kvm_events_analysis__key_name(const struct kvm_events_analysis *analysis,
				   u64 key, char *buf, size_t size)
{
	analysis->key_name(key, buf, size);
}

bool kvm_events_analysis__is_idle(const struct kvm_events_analysis *analysis,
				  u64 key)
{
	return analysis->is_idle(key);
}

/* For recordings whose kvm_exit has no isa field */
u32 kvm_events_isa_from_cpuid(const char *cpuid)
{
	if (!cpuid)
		return 0;
	if (strstr(cpuid, "GenuineIntel"))
		return KVM_EVENTS_ISA_VMX;
	if (strstr(cpuid, "AuthenticAMD") || strstr(cpuid, "HygonGenuine"))
		return KVM_EVENTS_ISA_SVM;
	return 0;
}

/*
 * Latency distribution of one key, for percentiles.  The first
 * EXACT_MAX durations are kept as they are, so small keys get exact
 * percentiles; past that they go into a log-linear histogram: values
 * below 2^SUB_BITS ns exactly, above it 2^SUB_BITS buckets per power of
 * two, allocated one power of two at a time.  A bucket is reported by its
 * middle, at most half a bucket, 1/2^(SUB_BITS+1) = 0.4%, from any value
 * in it.
 */
#define EXACT_MAX	1024
#define SUB_BITS	7
#define SUB_COUNT	(1U << SUB_BITS)
#define NR_OCTAVES	(64 - SUB_BITS + 1)

struct latency_dist {
	u64	n;
	u64	*exact;			/* n <= EXACT_MAX */
	u32	exact_alloc;
	bool	exact_sorted;
	u64	*octave[NR_OCTAVES];	/* [0]: 0..SUB_COUNT-1 exactly */
};

static void octave_of(u64 v, u32 *octave, u32 *sub)
{
	u32 bits;

	if (v < SUB_COUNT) {
		*octave = 0;
		*sub = v;
		return;
	}
	bits = ilog2(v);
	*octave = bits - SUB_BITS + 1;
	*sub = (v >> (bits - SUB_BITS)) & (SUB_COUNT - 1);
}

/* The middle of a bucket, and its bounds */
static u64 bucket_value(u32 octave, u32 sub)
{
	u32 shift;
	u64 low;

	if (octave == 0)
		return sub;
	shift = octave - 1;
	low = (u64)(SUB_COUNT + sub) << shift;
	return low + ((1ULL << shift) >> 1);
}

static int dist__hist_add(struct latency_dist *dist, u64 v)
{
	u32 octave, sub;

	octave_of(v, &octave, &sub);
	if (!dist->octave[octave]) {
		dist->octave[octave] = calloc(SUB_COUNT, sizeof(u64));
		if (!dist->octave[octave])
			return -ENOMEM;
	}
	dist->octave[octave][sub]++;
	return 0;
}

static int dist__to_hist(struct latency_dist *dist)
{
	u64 i;

	for (i = 0; i < dist->n; i++) {
		if (dist__hist_add(dist, dist->exact[i]))
			return -ENOMEM;
	}
	zfree(&dist->exact);
	return 0;
}

static int dist__add(struct latency_dist *dist, u64 v)
{
	u64 *grown;

	if (dist->n == EXACT_MAX && dist__to_hist(dist))
		return -ENOMEM;
	if (dist->n >= EXACT_MAX) {
		dist->n++;
		return dist__hist_add(dist, v);
	}
	if (dist->n == dist->exact_alloc) {
		u32 alloc = dist->exact_alloc ? dist->exact_alloc * 2 : 8;

		grown = realloc(dist->exact, alloc * sizeof(u64));
		if (!grown)
			return -ENOMEM;
		dist->exact = grown;
		dist->exact_alloc = alloc;
	}
	dist->exact[dist->n++] = v;
	dist->exact_sorted = false;
	return 0;
}

static void dist__free(struct latency_dist *dist)
{
	u32 i;

	if (!dist)
		return;
	free(dist->exact);
	for (i = 0; i < NR_OCTAVES; i++)
		free(dist->octave[i]);
	free(dist);
}

static int compare_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/* Nearest rank: the smallest value with at least pct% of values <= it. */
static u64 dist__percentile(struct latency_dist *dist, double pct)
{
	double exact_rank = ceil(pct / 100 * dist->n);
	u64 rank = exact_rank, seen = 0;
	u32 octave, sub;

	if (rank < 1)
		rank = 1;
	if (rank > dist->n)
		rank = dist->n;
	if (dist->exact) {
		if (!dist->exact_sorted)
			qsort(dist->exact, dist->n, sizeof(u64), compare_u64);
		dist->exact_sorted = true;
		return dist->exact[rank - 1];
	}
	for (octave = 0; octave < NR_OCTAVES; octave++) {
		if (!dist->octave[octave])
			continue;
		for (sub = 0; sub < SUB_COUNT; sub++) {
			seen += dist->octave[octave][sub];
			if (seen >= rank)
				return bucket_value(octave, sub);
		}
	}
	return 0;
}

u64 kvm_events_key__percentile(const struct kvm_events_key *key, double pct)
{
	u64 v;

	if (!key->dist || !key->dist->n)
		return 0;
	v = dist__percentile(key->dist, pct);
	/* The middle of a bucket may lie past what was seen. */
	if (v < key->stats.min)
		v = key->stats.min;
	if (v > key->stats.max)
		v = key->stats.max;
	return v;
}

bool kvm_events_key__percentile_exact(const struct kvm_events_key *key)
{
	return key->dist && key->dist->exact;
}

/* Sample standard deviation of the timed durations, in ns */
double kvm_events_key__stddev(const struct kvm_events_key *key)
{
	if (key->stats.n < 2)
		return 0;
	return sqrt(key->stats.M2 / (key->stats.n - 1));
}

/* Keys are u64 on every host, so the map holds pointers to them. */
static size_t key_hash(long key, void *ctx __maybe_unused)
{
	const struct kvm_events_key *k = (const void *)key;
	u64 h = k->key ^ ((u64)k->group << 47);

	return (size_t)((h ^ (h >> 29)) * 0x9e3779b97f4a7c15ULL);
}

static bool key_equal(long key1, long key2, void *ctx __maybe_unused)
{
	const struct kvm_events_key *a = (const void *)key1;
	const struct kvm_events_key *b = (const void *)key2;

	return a->key == b->key && a->group == b->group;
}

static size_t tid_hash(long key, void *ctx __maybe_unused)
{
	return key;
}

static bool tid_equal(long key1, long key2, void *ctx __maybe_unused)
{
	return key1 == key2;
}

int kvm_events_report__init(struct kvm_events_report *report,
			    const struct kvm_events_analysis *analysis,
			    const struct kvm_events_options *opts)
{
	memset(report, 0, sizeof(*report));
	report->analysis = analysis;
	report->tps = analysis->tps;
	if (opts)
		report->opts = *opts;
	report->filtering = report->opts.nr_vcpu_ranges || report->opts.pids ||
			    report->opts.nr_time_ranges || report->opts.min_duration;
	report->keys = hashmap__new(key_hash, key_equal, NULL);
	report->vcpus = hashmap__new(tid_hash, tid_equal, NULL);
	if (IS_ERR(report->keys) || IS_ERR(report->vcpus)) {
		report->keys = report->vcpus = NULL;
		return -ENOMEM;
	}
	/* --top N: the heap grows as events come, up to N */
	if (report->opts.top) {
		report->alloc_top = min_t(u32, report->opts.top, TOP_MIN_ALLOC);
		report->top = calloc(report->alloc_top, sizeof(*report->top));
		if (!report->top)
			return -ENOMEM;
	}
	return 0;
}

void kvm_events_report__exit(struct kvm_events_report *report)
{
	struct hashmap_entry *cur;
	size_t bkt;

	if (report->keys) {
		hashmap__for_each_entry(report->keys, cur, bkt) {
			struct kvm_events_key *key = cur->pvalue;

			dist__free(key->dist);
			free(key->log2_us);
			free(key);
		}
		hashmap__free(report->keys);
	}
	if (report->vcpus) {
		hashmap__for_each_entry(report->vcpus, cur, bkt)
			free(cur->pvalue);
		hashmap__free(report->vcpus);
	}
	zfree(&report->top);
	report->keys = report->vcpus = NULL;
}

static struct vcpu_state *vcpu_state__get(struct kvm_events_report *report,
					  const struct kvm_events_sample *s)
{
	struct vcpu_state **cached = &report->vcpu_cache[s->tid % KVM_EVENTS_CACHE];
	struct vcpu_state *vcpu = *cached;

	/* Every sample looks its vcpu up: the map only on a cache miss. */
	if (vcpu && vcpu->tid == s->tid)
		return vcpu;
	if (hashmap__find(report->vcpus, s->tid, &vcpu)) {
		*cached = vcpu;
		return vcpu;
	}
	vcpu = zalloc(sizeof(*vcpu));
	if (!vcpu)
		return NULL;
	vcpu->tid = s->tid;
	vcpu->pid = s->pid;
	vcpu->vcpu = KVM_EVENTS_NO_VCPU;
	if (hashmap__add(report->vcpus, s->tid, vcpu)) {
		free(vcpu);
		return NULL;
	}
	*cached = vcpu;
	return vcpu;
}

static u32 group_of(const struct kvm_events_report *report,
		    const struct vcpu_state *vcpu)
{
	switch (report->opts.group) {
	case KVM_EVENTS_GROUP_VCPU:
		return vcpu->vcpu;
	case KVM_EVENTS_GROUP_VM:
		return vcpu->pid;
	case KVM_EVENTS_GROUP_NONE:
	default:
		return 0;
	}
}

static struct kvm_events_key *key__new(struct kvm_events_report *report,
				       u64 key, u32 group)
{
	struct kvm_events_key *entry = zalloc(sizeof(*entry));

	if (!entry)
		return NULL;
	entry->key = key;
	entry->group = group;
	init_stats(&entry->stats);
	report->analysis->key_name(key, entry->name, sizeof(entry->name));
	if (report->opts.percentiles)
		entry->dist = zalloc(sizeof(*entry->dist));
	if (report->opts.histogram)
		entry->log2_us = calloc(KVM_EVENTS_LOG2_BUCKETS, sizeof(u64));
	if ((report->opts.percentiles && !entry->dist) ||
	    (report->opts.histogram && !entry->log2_us) ||
	    hashmap__add(report->keys, entry, entry)) {
		free(entry->dist);
		free(entry->log2_us);
		free(entry);
		return NULL;
	}
	return entry;
}

static struct kvm_events_key *key__get(struct kvm_events_report *report,
				       u64 key, u32 group)
{
	struct kvm_events_key lookup = { .key = key, .group = group };
	struct kvm_events_key **cached, *entry;

	cached = &report->key_cache[(key ^ key >> 7 ^ group) % KVM_EVENTS_CACHE];
	entry = *cached;
	if (entry && entry->key == key && entry->group == group)
		return entry;
	if (!hashmap__find(report->keys, &lookup, &entry))
		entry = key__new(report, key, group);
	if (entry)
		*cached = entry;
	return entry;
}

static bool vcpu_selected(const struct kvm_events_options *opts, u32 vcpu)
{
	u32 i;

	if (!opts->nr_vcpu_ranges)
		return true;
	for (i = 0; i < opts->nr_vcpu_ranges; i++) {
		if (vcpu >= opts->vcpu_ranges[i][0] && vcpu <= opts->vcpu_ranges[i][1])
			return true;
	}
	return false;
}

static bool is_filtered(const struct kvm_events_report *report,
			const struct vcpu_state *vcpu, u64 time,
			enum resolution how, u64 duration)
{
	const struct kvm_events_options *opts = &report->opts;

	if (!vcpu_selected(opts, vcpu->vcpu))
		return true;
	if (opts->pids && !intlist__has_entry(opts->pids, vcpu->pid))
		return true;
	if (opts->nr_time_ranges &&
	    perf_time__ranges_skip_sample(opts->time_ranges,
					  opts->nr_time_ranges, time))
		return true;
	return opts->min_duration && (how != TIMED || duration < opts->min_duration);
}

static void log2_us_add(u64 *log2_us, u64 duration)
{
	u64 us = duration / 1000;
	u32 bucket = us ? ilog2(us) + 1 : 0;

	if (bucket >= KVM_EVENTS_LOG2_BUCKETS)
		bucket = KVM_EVENTS_LOG2_BUCKETS - 1;
	log2_us[bucket]++;
}

/* Keeps the opts.top slowest: a min-heap, its root the fastest kept. */
static void top_sift_down(struct kvm_events_outlier *heap, u32 nr, u32 i)
{
	for (;;) {
		u32 l = 2 * i + 1, r = l + 1, min = i;
		struct kvm_events_outlier tmp;

		if (l < nr && heap[l].duration < heap[min].duration)
			min = l;
		if (r < nr && heap[r].duration < heap[min].duration)
			min = r;
		if (min == i)
			return;
		tmp = heap[i];
		heap[i] = heap[min];
		heap[min] = tmp;
		i = min;
	}
}

/* Room for one more in the heap; false if there is no memory for it */
static bool top_grow(struct kvm_events_report *report)
{
	u32 alloc = report->alloc_top;
	void *top;

	if (report->nr_top < alloc)
		return true;
	alloc = alloc > report->opts.top / 2 ? report->opts.top : alloc * 2;
	top = reallocarray(report->top, alloc, sizeof(*report->top));
	if (!top)
		return false;
	report->top = top;
	report->alloc_top = alloc;
	return true;
}

static void top_add(struct kvm_events_report *report,
		    const struct kvm_events_outlier *o)
{
	struct kvm_events_outlier *heap;
	u32 i;

	/* Without memory for more, the slowest of those kept stay. */
	if (report->nr_top < report->opts.top && !top_grow(report)) {
		pr_warning_once("kvm-events: out of memory, --top keeps the slowest of %u events\n",
				report->nr_top);
		report->opts.top = report->nr_top;
	}
	heap = report->top;
	if (report->nr_top == report->opts.top) {
		if (o->duration <= heap[0].duration)
			return;
		heap[0] = *o;
		top_sift_down(heap, report->nr_top, 0);
		return;
	}
	i = report->nr_top++;
	heap[i] = *o;
	while (i && heap[(i - 1) / 2].duration > heap[i].duration) {
		struct kvm_events_outlier tmp = heap[i];

		heap[i] = heap[(i - 1) / 2];
		heap[(i - 1) / 2] = tmp;
		i = (i - 1) / 2;
	}
}

static int compare_outliers(const void *a, const void *b)
{
	const struct kvm_events_outlier *x = a, *y = b;

	if (x->duration != y->duration)
		return x->duration < y->duration ? 1 : -1;
	return x->time < y->time ? -1 : x->time > y->time;
}

/* Slowest first; the heap is no heap after this. */
void kvm_events_report__sort_top(struct kvm_events_report *report)
{
	if (!report->nr_top)
		return;
	qsort(report->top, report->nr_top, sizeof(*report->top),
	      compare_outliers);
}

static void add_time(struct kvm_events_report *report,
		     struct kvm_events_key *entry,
		     const struct vcpu_state *vcpu, u64 time, u64 duration)
{
	entry->timed++;
	entry->total_ns += duration;
	if (report->opts.stddev) {
		update_stats(&entry->stats, duration);
	} else {
		/* update_stats() without the mean and M2 nothing will print */
		entry->stats.n++;
		entry->stats.min = min(entry->stats.min, duration);
		entry->stats.max = max(entry->stats.max, duration);
	}
	report->totals.total_ns += duration;
	if (entry->dist && dist__add(entry->dist, duration))
		pr_warning_once("kvm-events: out of memory, percentiles are incomplete\n");
	if (entry->log2_us)
		log2_us_add(entry->log2_us, duration);
	if (report->top) {
		struct kvm_events_outlier o = {
			.duration = duration, .time = time, .key = entry->key,
			.rip = vcpu->rip, .vcpu = vcpu->vcpu, .pid = vcpu->pid,
		};

		top_add(report, &o);
	}
}

/*
 * Accounts one sample of @key, seen at @time, once its interval is
 * resolved: timed with @duration, or why not.
 */
static void account(struct kvm_events_report *report,
		    const struct vcpu_state *vcpu, u64 key, u64 time,
		    enum resolution how, u64 duration)
{
	struct kvm_events_key *entry;

	if (report->filtering && is_filtered(report, vcpu, time, how, duration)) {
		report->totals.filtered++;
		return;
	}
	entry = key__get(report, key, group_of(report, vcpu));
	if (!entry) {
		/* Out of memory: say so in the buckets rather than crash. */
		report->totals.no_memory++;
		return;
	}
	entry->samples++;
	report->totals.keyed++;
	if (how == TIMED)
		add_time(report, entry, vcpu, time, duration);
	else if (how == NO_END)
		report->totals.no_end++;
	else if (how == NO_BEGIN)
		report->totals.no_begin++;
}

/* The pending sample's end will never come. */
static void vcpu_state__cut(struct kvm_events_report *report,
			    struct vcpu_state *vcpu)
{
	if (vcpu->pending)
		account(report, vcpu, vcpu->pending_key, vcpu->begin_time,
			NO_END, 0);
	vcpu->pending = false;
	vcpu->open = false;
}

static void vcpu_state__begin(struct kvm_events_report *report,
			      struct vcpu_state *vcpu,
			      const struct kvm_events_sample *s, u64 key)
{
	bool keyed = key != KVM_EVENTS_NO_KEY;

	vcpu_state__cut(report, vcpu);
	vcpu->open = true;
	vcpu->begin_time = s->time;
	vcpu->pending = keyed;
	vcpu->pending_key = key;
	if (!keyed)
		report->totals.unused++;
}

static void vcpu_state__end(struct kvm_events_report *report,
			    struct vcpu_state *vcpu,
			    const struct kvm_events_sample *s, u64 key)
{
	u64 begin = vcpu->begin_time;
	bool open = vcpu->open;

	if (key == KVM_EVENTS_NO_KEY) {
		/* An end that only closes an interval is part of its pair. */
		if (vcpu->pending) {
			report->totals.paired_end++;
			account(report, vcpu, vcpu->pending_key, begin,
				s->time < begin ? NO_BEGIN : TIMED,
				s->time - begin);
		} else {
			report->totals.unused++;
		}
		vcpu->pending = false;
		vcpu->open = false;
		return;
	}

	/*
	 * An end that names its key (an MMIO read) is timed from a begin
	 * that named none; an interval opened by another counted sample
	 * is that sample's, and it will never get its end.
	 */
	if (vcpu->pending) {
		vcpu_state__cut(report, vcpu);
		open = false;
	}
	if (open && s->time >= begin)
		account(report, vcpu, key, s->time, TIMED, s->time - begin);
	else
		account(report, vcpu, key, s->time, NO_BEGIN, 0);
	vcpu->open = false;
}

/* Accounts @nr samples of a tracepoint the analysis does not read. */
void kvm_events_report__skip(struct kvm_events_report *report,
			     enum kvm_tp_role tp, u64 nr)
{
	report->totals.read += nr;
	report->totals.by_tp[tp] += nr;
	report->totals.unused += nr;
}

/*
 * PERF_RECORD_LOST says what a ring buffer dropped as it happens;
 * PERF_RECORD_LOST_SAMPLES, written by perf record as it ends from each
 * event's lost count, says the same drops again.  Either alone is the
 * number lost: a recording may have only one of them.
 */
u64 kvm_events_totals__lost(const struct kvm_events_totals *totals)
{
	return max(totals->lost_events, totals->lost_samples);
}

/*
 * The thread id now runs in another process: a new VM reused it after the
 * old one ended.  Nothing the old vcpu began can end in the new one.
 */
static void vcpu_state__reused(struct kvm_events_report *report,
			       struct vcpu_state *vcpu, u32 pid)
{
	vcpu_state__cut(report, vcpu);
	vcpu->pid = pid;
	vcpu->vcpu = KVM_EVENTS_NO_VCPU;
	vcpu->rip = 0;
}

/* A sample that is a whole event: no interval to open or close. */
static void add_whole(struct kvm_events_report *report,
		      const struct vcpu_state *vcpu,
		      const struct kvm_events_sample *s, u64 key, u64 duration)
{
	if (duration == KVM_EVENTS_NO_TIME)
		account(report, vcpu, key, s->time, UNTIMED, 0);
	else
		account(report, vcpu, key, s->time - min(duration, s->time),
			TIMED, duration);
}

void kvm_events_report__add(struct kvm_events_report *report,
			    const struct kvm_events_sample *s)
{
	const struct kvm_events_analysis *analysis = report->analysis;
	struct vcpu_state *vcpu;
	u64 key, duration;

	if (!kvm_events_report__reads(report, s->tp)) {
		kvm_events_report__skip(report, s->tp, 1);
		return;
	}
	report->totals.read++;
	report->totals.by_tp[s->tp]++;
	/* They come in time order. */
	if (!report->totals.first_time)
		report->totals.first_time = s->time;
	report->totals.last_time = s->time;
	vcpu = vcpu_state__get(report, s);
	if (!vcpu) {
		report->totals.no_memory++;
		return;
	}
	if (vcpu->pid != s->pid)
		vcpu_state__reused(report, vcpu, s->pid);
	if (s->vcpu != KVM_EVENTS_NO_VCPU)
		vcpu->vcpu = s->vcpu;
	if (s->tp == KVM_TP_EXIT)
		vcpu->rip = s->rip;

	if (analysis->begin(s, &key))
		vcpu_state__begin(report, vcpu, s, key);
	else if (analysis->end(s, &key))
		vcpu_state__end(report, vcpu, s, key);
	else if (analysis->whole && analysis->whole(s, &key, &duration))
		add_whole(report, vcpu, s, key, duration);
	else if (analysis->refine && vcpu->pending &&
		 analysis->refine(s, &vcpu->pending_key))
		report->totals.paired_end++;
	else
		report->totals.unused++;
}

/* Whatever is still open when the recording stops never got its end. */
void kvm_events_report__finish(struct kvm_events_report *report)
{
	struct hashmap_entry *cur;
	size_t bkt;

	hashmap__for_each_entry(report->vcpus, cur, bkt)
		vcpu_state__cut(report, cur->pvalue);
}

struct kvm_events_key *kvm_events_report__key(struct kvm_events_report *report,
					      const char *name)
{
	struct hashmap_entry *cur;
	size_t bkt;

	hashmap__for_each_entry(report->keys, cur, bkt) {
		struct kvm_events_key *entry = cur->pvalue;

		if (!strcmp(entry->name, name))
			return entry;
	}
	return NULL;
}

static int compare_u64_desc(u64 a, u64 b)
{
	return a == b ? 0 : a < b ? 1 : -1;
}

/* Groups ascending, then the sort key descending, then names ascending */
static int compare_keys(const struct kvm_events_key *a,
			const struct kvm_events_key *b,
			enum kvm_events_sort sort)
{
	int ret = 0;

	if (a->group != b->group)
		return a->group < b->group ? -1 : 1;
	switch (sort) {
	case KVM_EVENTS_SORT_TIME:
		ret = compare_u64_desc(a->total_ns, b->total_ns);
		break;
	case KVM_EVENTS_SORT_MEAN:
		ret = compare_u64_desc(a->timed ? a->total_ns / a->timed : 0,
				       b->timed ? b->total_ns / b->timed : 0);
		break;
	case KVM_EVENTS_SORT_MIN:
		ret = compare_u64_desc(a->timed ? a->stats.min : 0,
				       b->timed ? b->stats.min : 0);
		break;
	case KVM_EVENTS_SORT_MAX:
		ret = compare_u64_desc(a->stats.max, b->stats.max);
		break;
	case KVM_EVENTS_SORT_P99:
		ret = compare_u64_desc(kvm_events_key__percentile(a, 99),
				       kvm_events_key__percentile(b, 99));
		break;
	case KVM_EVENTS_SORT_NAME:
		return strcmp(a->name, b->name);
	case KVM_EVENTS_SORT_SAMPLE:
	default:
		break;
	}
	if (!ret)
		ret = compare_u64_desc(a->samples, b->samples);
	return ret ? ret : strcmp(a->name, b->name);
}

static enum kvm_events_sort key_sort;

static int compare_key_ptrs(const void *a, const void *b)
{
	return compare_keys(*(struct kvm_events_key * const *)a,
			    *(struct kvm_events_key * const *)b, key_sort);
}

/* All keys in output order; the caller frees the array. */
struct kvm_events_key **kvm_events_report__sorted(struct kvm_events_report *report,
						  enum kvm_events_sort sort,
						  size_t *nr)
{
	struct kvm_events_key **keys;
	struct hashmap_entry *cur;
	size_t bkt, i = 0;

	*nr = hashmap__size(report->keys);
	keys = calloc(*nr ? *nr : 1, sizeof(*keys));
	if (!keys)
		return NULL;
	hashmap__for_each_entry(report->keys, cur, bkt)
		keys[i++] = cur->pvalue;
	key_sort = sort;
	qsort(keys, *nr, sizeof(*keys), compare_key_ptrs);
	return keys;
}
