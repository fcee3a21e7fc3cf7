// SPDX-License-Identifier: GPL-2.0
/*
 * The engine of perf kvm-events: decode kvm tracepoint samples, pair each
 * vcpu's begin and end events, and keep per-key statistics.
 *
 * Every decision is taken from the recording (tracepoint formats, the isa
 * field, the header's cpuid), never from the machine running the report.
 */
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
#include "hashmap.h"
#include "intlist.h"
#include "kvm-stat.h"
#include "sample.h"
#include "time-utils.h"

/* The exit reason tables are facts from the tree's x86 uapi headers. */
#include "../../arch/x86/include/uapi/asm/kvm.h"
#include "../../arch/x86/include/uapi/asm/vmx.h"
#include "../../arch/x86/include/uapi/asm/svm.h"

struct exit_reason_name {
	u64		code;
	const char	*name;
};

static const struct exit_reason_name vmx_exit_reasons[] = { VMX_EXIT_REASONS };
static const struct exit_reason_name svm_exit_reasons[] = { SVM_EXIT_REASONS };

/* What one kvm tracepoint is, and which of its fields the analyses read */
struct kvm_tp_desc {
	const char		*name;
	enum kvm_events_tp	tp;
	const char		*code;	/* required when set */
	const char		*kind;	/* required when set */
	const char		*vcpu;	/* optional: older kernels lack it */
	const char		*isa;	/* optional */
	const char		*rip;	/* optional */
};

static const struct kvm_tp_desc kvm_tps[] = {
	{ "kvm_exit", KVM_EVENTS_TP_EXIT, "exit_reason", NULL, "vcpu_id", "isa",
	  "guest_rip" },
	{ "kvm_entry", KVM_EVENTS_TP_ENTRY, NULL, NULL, "vcpu_id", NULL, NULL },
	{ "kvm_mmio", KVM_EVENTS_TP_MMIO, "gpa", "type", NULL, NULL, NULL },
	{ "kvm_pio", KVM_EVENTS_TP_PIO, "port", "rw", NULL, NULL, NULL },
	{ "kvm_userspace_exit", KVM_EVENTS_TP_USER_EXIT, "reason", "errno", NULL,
	  NULL, NULL },
	{ "kvm_fpu", KVM_EVENTS_TP_FPU, NULL, "load", NULL, NULL, NULL },
	{ "kvm_msr", KVM_EVENTS_TP_MSR, "ecx", "write", NULL, NULL, NULL },
	{ "kvm_hypercall", KVM_EVENTS_TP_HYPERCALL, "nr", NULL, NULL, NULL, NULL },
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
	bool		(*begin)(const struct kvm_events_sample *s, u64 *key);
	bool		(*end)(const struct kvm_events_sample *s, u64 *key);
	void		(*key_name)(u64 key, char *buf, size_t size);
	/* A vcpu waiting for work, whose time is not overhead */
	bool		(*is_idle)(u64 key);
};

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

/*
 * Returns 0 and fills @dec for a kvm tracepoint the analyses use, 1 for
 * any other tracepoint, a negative error when a needed field is missing.
 */
int kvm_events_decoder__init(struct kvm_events_decoder *dec,
			     struct tep_event *format)
{
	const struct kvm_tp_desc *desc = NULL;
	int err = 0;
	size_t i;

	if (!format || !format->system || strcmp(format->system, "kvm"))
		return 1;
	for (i = 0; i < ARRAY_SIZE(kvm_tps); i++) {
		if (!strcmp(format->name, kvm_tps[i].name))
			desc = &kvm_tps[i];
	}
	if (!desc)
		return 1;

	memset(dec, 0, sizeof(*dec));
	dec->tp = desc->tp;
	dec->code = find_field(format, desc->code, true, &err);
	dec->kind = find_field(format, desc->kind, true, &err);
	dec->vcpu = find_field(format, desc->vcpu, false, &err);
	dec->isa = find_field(format, desc->isa, false, &err);
	dec->rip = find_field(format, desc->rip, false, &err);
	fit_raw_size(dec, dec->code);
	fit_raw_size(dec, dec->kind);
	fit_raw_size(dec, dec->vcpu);
	fit_raw_size(dec, dec->isa);
	fit_raw_size(dec, dec->rip);
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
	out->isa = field_value(dec->isa, sample, needs_swap, 0);
	out->rip = field_value(dec->rip, sample, needs_swap, 0);
	return 0;
}

const char *kvm_events_tp__name(enum kvm_events_tp tp)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(kvm_tps); i++) {
		if (kvm_tps[i].tp == tp)
			return kvm_tps[i].name;
	}
	return "?";
}

/*
 * vmexit: from kvm_exit to the vcpu's next kvm_entry.  The key keeps the
 * isa beside the reason: VMX and SVM reuse the same numbers.
 */
static bool vmexit_begin(const struct kvm_events_sample *s, u64 *key)
{
	if (s->tp != KVM_EVENTS_TP_EXIT)
		return false;
	*key = (u64)s->isa << 32 | (u32)s->code;
	return true;
}

static bool entry_end(const struct kvm_events_sample *s, u64 *key)
{
	*key = KVM_EVENTS_NO_KEY;
	return s->tp == KVM_EVENTS_TP_ENTRY;
}

static const char *exit_reason_name(u32 isa, u64 code)
{
	const struct exit_reason_name *table = vmx_exit_reasons;
	size_t i, nr = ARRAY_SIZE(vmx_exit_reasons);

	if (isa == KVM_EVENTS_ISA_SVM) {
		table = svm_exit_reasons;
		nr = ARRAY_SIZE(svm_exit_reasons);
	} else if (isa != KVM_EVENTS_ISA_VMX) {
		return NULL;
	}
	for (i = 0; i < nr; i++) {
		if (table[i].code == code)
			return table[i].name;
	}
	return NULL;
}

static void vmexit_key_name(u64 key, char *buf, size_t size)
{
	const char *name = exit_reason_name(key >> 32, (u32)key);

	if (name)
		snprintf(buf, size, "%s", name);
	else
		snprintf(buf, size, "0x%x", (u32)key);
}

static bool vmexit_is_idle(u64 key)
{
	u32 isa = key >> 32, code = (u32)key;

	/* MWAIT exits are emulated as a NOP by KVM: not idle. */
	if (isa == KVM_EVENTS_ISA_VMX)
		return code == EXIT_REASON_HLT;
	if (isa == KVM_EVENTS_ISA_SVM)
		return code == SVM_EXIT_HLT;
	return false;
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
	if (s->tp == KVM_EVENTS_TP_MMIO && s->kind == KVM_MMIO_WRITE)
		*key = mmio_key(s);
	return s->tp == KVM_EVENTS_TP_EXIT || *key != KVM_EVENTS_NO_KEY;
}

static bool mmio_end(const struct kvm_events_sample *s, u64 *key)
{
	*key = KVM_EVENTS_NO_KEY;
	if (s->tp == KVM_EVENTS_TP_MMIO && s->kind == KVM_MMIO_READ)
		*key = mmio_key(s);
	return s->tp == KVM_EVENTS_TP_ENTRY || *key != KVM_EVENTS_NO_KEY;
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
	if (s->tp != KVM_EVENTS_TP_USER_EXIT)
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
	return s->tp != KVM_EVENTS_TP_USER_EXIT;
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
	if (s->tp != KVM_EVENTS_TP_MSR)
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

/* hypercall: from kvm_hypercall to kvm_entry, keyed by number */
static bool hypercall_begin(const struct kvm_events_sample *s, u64 *key)
{
	if (s->tp != KVM_EVENTS_TP_HYPERCALL)
		return false;
	*key = s->code;
	return true;
}

/* KVM_HC_* of the kernel's uapi linux/kvm_para.h */
static const struct code_name hypercall_names[] = {
	{ 1, "VAPIC_POLL_IRQ" }, { 2, "MMU_OP" }, { 3, "FEATURES" },
	{ 4, "PPC_MAP_MAGIC_PAGE" }, { 5, "KICK_CPU" },
	{ 6, "MIPS_GET_CLOCK_FREQ" }, { 7, "MIPS_EXIT_VM" },
	{ 8, "MIPS_CONSOLE_OUTPUT" }, { 9, "CLOCK_PAIRING" }, { 10, "SEND_IPI" },
	{ 11, "SCHED_YIELD" }, { 12, "MAP_GPA_RANGE" },
};

static void hypercall_key_name(u64 key, char *buf, size_t size)
{
	const char *name = code_name(hypercall_names, ARRAY_SIZE(hypercall_names), key);

	if (name)
		snprintf(buf, size, "%llu/%s", (unsigned long long)key, name);
	else
		snprintf(buf, size, "%llu", (unsigned long long)key);
}

/* ioport: from kvm_pio to kvm_entry */
static bool ioport_begin(const struct kvm_events_sample *s, u64 *key)
{
	if (s->tp != KVM_EVENTS_TP_PIO)
		return false;
	*key = (u64)(u32)s->code << 1 | (s->kind != 0);
	return true;
}

static void ioport_key_name(u64 key, char *buf, size_t size)
{
	snprintf(buf, size, "%#llx:%s", (unsigned long long)(key >> 1),
		 key & 1 ? "POUT" : "PIN");
}

#define TP(tp)	BIT(KVM_EVENTS_TP_##tp)

static const struct kvm_events_analysis analyses[] = {
	{ "vmexit", "VM-EXIT", TP(EXIT) | TP(ENTRY),
	  vmexit_begin, entry_end, vmexit_key_name, vmexit_is_idle },
	{ "mmio", "MMIO Access", TP(EXIT) | TP(ENTRY) | TP(MMIO),
	  mmio_begin, mmio_end, mmio_key_name, never_idle },
	/* kvm_exit gives the --top rip of the port accesses */
	{ "ioport", "IO Port Access", TP(EXIT) | TP(ENTRY) | TP(PIO),
	  ioport_begin, entry_end, ioport_key_name, never_idle },
	{ "userspace", "Userspace Exit", GENMASK(KVM_EVENTS_TP__NR - 1, 0),
	  userspace_begin, any_end, userspace_key_name, never_idle },
	{ "msr", "MSR Access", TP(EXIT) | TP(ENTRY) | TP(MSR),
	  msr_begin, entry_end, msr_key_name, never_idle },
	{ "hypercall", "Hypercall", TP(EXIT) | TP(ENTRY) | TP(HYPERCALL),
	  hypercall_begin, entry_end, hypercall_key_name, never_idle },
};

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
	return "vmexit, mmio, ioport, userspace, msr, hypercall";
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
	if (report->opts.top) {
		report->top = calloc(report->opts.top, sizeof(*report->top));
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

static void top_add(struct kvm_events_report *report,
		    const struct kvm_events_outlier *o)
{
	struct kvm_events_outlier *heap = report->top;
	u32 i;

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
	update_stats(&entry->stats, duration);
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
		pr_warning_once("kvm-events: out of memory, samples are left out\n");
		report->totals.unused++;
		return;
	}
	entry->samples++;
	report->totals.keyed++;
	if (how == TIMED)
		add_time(report, entry, vcpu, time, duration);
	else if (how == NO_END)
		report->totals.no_end++;
	else
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
			     enum kvm_events_tp tp, u64 nr)
{
	report->totals.read += nr;
	report->totals.by_tp[tp] += nr;
	report->totals.unused += nr;
}

void kvm_events_report__add(struct kvm_events_report *report,
			    const struct kvm_events_sample *s)
{
	const struct kvm_events_analysis *analysis = report->analysis;
	struct vcpu_state *vcpu;
	u64 key;

	if (!kvm_events_report__reads(report, s->tp)) {
		kvm_events_report__skip(report, s->tp, 1);
		return;
	}
	report->totals.read++;
	report->totals.by_tp[s->tp]++;
	vcpu = vcpu_state__get(report, s);
	if (!vcpu) {
		report->totals.unused++;
		return;
	}
	if (s->vcpu != KVM_EVENTS_NO_VCPU)
		vcpu->vcpu = s->vcpu;
	if (s->tp == KVM_EVENTS_TP_EXIT)
		vcpu->rip = s->rip;

	if (analysis->begin(s, &key))
		vcpu_state__begin(report, vcpu, s, key);
	else if (analysis->end(s, &key))
		vcpu_state__end(report, vcpu, s, key);
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
