// SPDX-License-Identifier: GPL-2.0
/*
 * The analyses of perf kvm-events: for each, which samples open and close
 * a vcpu's interval, which are samples of a key, and how keys are named.
 * Each is an entry of analyses[]; names and help texts come from there.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <linux/bits.h>
#include <linux/kernel.h>

#include "kvm-events-analysis.h"
#include "kvm-events-arch.h"

/* kvm_mmio "type" values */
#define KVM_MMIO_READ	1
#define KVM_MMIO_WRITE	2

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
	const struct kvm_events_arch *arch;

	if (s->tp != KVM_TP_EXIT)
		return false;
	arch = kvm_events_arch__find(s->isa);
	*key = vmexit_key(s->isa, arch && arch->exit_code ? arch->exit_code(s) : (u32)s->code,
			  LEVEL_L1);
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
	const struct kvm_events_arch *arch = kvm_events_arch__find(isa);

	if (s->tp == KVM_TP_NESTED_EXIT && level == LEVEL_L1)
		level = LEVEL_L2;
	else if (s->tp == KVM_TP_NESTED_INJECT)
		level = LEVEL_L2_TO_L1;
	else if (s->tp == KVM_TP_EXIT_DETAIL && arch && arch->exit_detail)
		code = arch->exit_detail(code, s);
	else if (s->tp != KVM_TP_NESTED_EXIT)
		return false;
	*key = vmexit_key(isa, code, level);
	return true;
}

static const char * const level_prefix[] = {
	[LEVEL_L1]	 = "",
	[LEVEL_L2]	 = "L2:",
	[LEVEL_L2_TO_L1] = "L2>L1:",
};

static void vmexit_key_name(u64 key, char *buf, size_t size)
{
	const struct kvm_events_arch *arch = kvm_events_arch__find((u8)(key >> KEY_ISA_SHIFT));
	enum nesting_level level = (key >> KEY_LEVEL_SHIFT) & 3;
	const char *name = arch ? arch->exit_name((u32)key) : NULL;
	const char *prefix = level <= LEVEL_L2_TO_L1 ? level_prefix[level] : "";
	int len = snprintf(buf, size, "%s", prefix);

	if (len < 0 || (size_t)len >= size)
		return;
	if (name && arch->spell_names)
		kvm_events__spell_word(name, buf + len, size - len);
	else if (name)
		snprintf(buf + len, size - len, "%s", name);
	else
		snprintf(buf + len, size - len, "0x%x", (u32)key);
}

static bool vmexit_is_idle(u64 key)
{
	const struct kvm_events_arch *arch = kvm_events_arch__find((u8)(key >> KEY_ISA_SHIFT));

	return arch && arch->exit_is_idle && arch->exit_is_idle((u32)key);
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

/* msr: from kvm_msr to kvm_entry, keyed by index and direction */
static bool msr_begin(const struct kvm_events_sample *s, u64 *key)
{
	if (s->tp != KVM_TP_MSR)
		return false;
	*key = (u64)(u32)s->code << 1 | (s->kind != 0);
	return true;
}

static void msr_key_name(u64 key, char *buf, size_t size)
{
	const char *name = kvm_events_x86_msr_name(key >> 1);
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
static const struct kvm_code_name hypercall_names[] = {
	{ 1, "VAPIC_POLL_IRQ" }, { 2, "MMU_OP" }, { 3, "FEATURES" },
	{ 4, "PPC_MAP_MAGIC_PAGE" }, { 5, "KICK_CPU" },
	{ 6, "MIPS_GET_CLOCK_FREQ" }, { 7, "MIPS_EXIT_VM" },
	{ 8, "MIPS_CONSOLE_OUTPUT" }, { 9, "CLOCK_PAIRING" }, { 10, "SEND_IPI" },
	{ 11, "SCHED_YIELD" }, { 12, "MAP_GPA_RANGE" },
};

static void hypercall_key_name(u64 key, char *buf, size_t size)
{
	u32 isa = (u8)(key >> KEY_ISA_SHIFT), nr = (u32)key;
	const struct kvm_events_arch *arch;
	const char *name = NULL;
	int len;

	/* x86's kvm_hypercall has no isa: KVM's own numbers, in decimal */
	if (!isa) {
		name = kvm_code_name__find(hypercall_names, ARRAY_SIZE(hypercall_names), key);
		if (name)
			snprintf(buf, size, "%llu/%s", (unsigned long long)key, name);
		else
			snprintf(buf, size, "%llu", (unsigned long long)key);
		return;
	}
	arch = kvm_events_arch__find(isa);
	if (arch && arch->hypercall_name)
		name = arch->hypercall_name(nr);
	len = snprintf(buf, size, "0x%x", nr);
	if (name && len > 0 && (size_t)len + 1 < size) {
		buf[len++] = '/';
		kvm_events__spell_word(name, buf + len, size - len);
	}
}

static bool hypercall_is_idle(u64 key)
{
	const struct kvm_events_arch *arch = kvm_events_arch__find((u8)(key >> KEY_ISA_SHIFT));

	return arch && arch->hypercall_is_idle && arch->hypercall_is_idle((u32)key);
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

/* "vmexit, mmio, ...": for help texts and errors */
const char *kvm_events_analysis__names(void)
{
	static char names[128];
	size_t i, len = 0;

	if (names[0])
		return names;
	for (i = 0; i < ARRAY_SIZE(analyses); i++)
		len += scnprintf(names + len, sizeof(names) - len, "%s%s",
				 i ? ", " : "", analyses[i].name);
	return names;
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
