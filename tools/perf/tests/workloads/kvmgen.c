// SPDX-License-Identifier: GPL-2.0
/*
 * kvmgen: write a synthetic perf.data file like 'perf kvm stat record'
 * produces, plus the statistics a correct KVM exit analysis must find in it.
 *
 *   perf test -w kvmgen OUT.data [SCENARIO[+MODIFIER...] [EXITS]]
 *
 * SCENARIO is one of:
 *   vmx       6.12 tracepoint formats, Intel host (the default)
 *   svm       6.12 tracepoint formats, AMD host
 *   vmx-old   5.4 era kvm_exit/kvm_entry formats: only kvm_entry has vcpu_id
 *   unpaired  like vmx, but each vcpu's recording stops inside an exit (one
 *             after a kvm_pio, one after a kvm_mmio, one after a kvm_msr),
 *             and one vcpu has kvm_entry events without a kvm_exit before
 *             them
 *   two-vms   like vmx, but two VM processes share the 4 cpus: pid 4242
 *             (qemu-system-x86, vcpus 0-3) and pid 5353 (qemu-kvm, vcpus 0
 *             and 1: the same vcpu ids as the first VM's, on purpose)
 *   vmx-percpu  the events of vmx, with the data section in the order
 *             'perf record' writes it (see the percpu_*() functions)
 *   vmx-nested  6.12 VMX formats with nested virtualization: an L2 exit's
 *             kvm_exit is followed by kvm_nested_vmexit (kvm_exit's
 *             fields) and, if it is forwarded to L1, by
 *             kvm_nested_vmexit_inject, then kvm_entry
 *   vmx-halt  like vmx, plus kvm_vcpu_wakeup inside every HLT exit and
 *             now and then kvm_halt_poll_ns after it
 *   pvm       the 6.12 x86 formats of this host, with kvm_exit isa 3 (PVM)
 *             and PVM's exit reasons: exception vectors, FAILED_VMENTRY
 *             (1025) and the PVM_EXIT_REASON_* above 0xffff
 *
 * and, with the real 6.12 formats of each architecture (field offsets as
 * its TP_STRUCT__entry lays them out on a 64-bit host), its HEADER_ARCH
 * and HEADER_CPUID, and kernel addresses of its own as sample ips:
 *   arm64     kvm:kvm_exit {ret, esr_ec, vcpu_pc} -> kvm:kvm_entry
 *             {vcpu_pc}; every WFx trap has a kvm_wfx_arm64, every HVC64
 *             trap a kvm_hvc_arm64; most DABT_LOW traps a kvm_mmio, and
 *             those to the PL011 UART a kvm_userspace_exit
 *   s390      kvm:kvm_s390_sie_exit {id, pswmask, pswaddr, icptcode} ->
 *             kvm:kvm_s390_sie_enter; some INSTRUCTION intercepts have a
 *             kvm_s390_handle_diag (0x44, 0x9c, 0x500), some
 *             I_O_INSTRUCTION ones go to the VMM
 *   ppc64le   kvm_hv:kvm_guest_exit {vcpu_id, trap, pc, msr, ceded} ->
 *             kvm_hv:kvm_guest_enter; every SYSCALL exit has
 *             kvm_hv:kvm_hcall_enter then kvm_hv:kvm_hcall_exit (H_CEDE
 *             lasts long, H_PUT_TERM_CHAR goes to the VMM after it)
 *   riscv64   kvm:kvm_exit {sepc, scause, stval, htval, htinst} ->
 *             kvm:kvm_entry {pc}; scause has bit 63 for an interrupt
 *   loongarch64  kvm:kvm_exit {vcpu_id, pc, reason} -> kvm:kvm_reenter,
 *             or kvm_out, kvm_userspace_exit and then kvm:kvm_enter when
 *             the exit went to the VMM; GSPR exits may be followed by
 *             kvm_exit_idle (reason 64) or kvm_exit_cache (reason 65)
 *
 * The file is laid out as 'perf kvm-events record -p PID' writes it: the
 * attributes perf record gives the tracepoints (sample_type
 * IP|TID|TIME|ID|CPU|PERIOD|RAW, read_format ID|LOST, the side-band bits
 * on the first), the sample id at PERF_SAMPLE_ID's place.  Modifiers after
 * the scenario's name, SCENARIO+MODIFIER..., give the layouts of other
 * perf record options (see layout_modifiers):
 *   system-wide  -a: perf's dummy:u tracking event, PERF_SAMPLE_IDENTIFIER
 *   callchain    -g: a kernel callchain before the raw data
 *   dwarf        --call-graph dwarf,512: callchain, user regs and stack
 *   data         -d: ADDR before the raw data, DATA_SRC after it
 *   read         a group read ({...}:S) before the raw data
 *   single       -e kvm:kvm_exit alone: no sample id (only the first
 *                tracepoint's samples are written; .truth and .events
 *                still describe them all)
 *   pipe         -o -: the pipe format, attributes, features and tracing
 *                data as records
 *   threads      --threads: OUT is a directory, OUT/data the header and
 *                side-band records, OUT/data.N cpu N's samples, no rounds
 *   lost         -m 1 on a busy host: a PERF_RECORD_LOST at each round's
 *                end, and the same losses again as perf record ends, in
 *                PERF_RECORD_LOST_SAMPLES; .truth says how many ('lost')
 *
 * All scenarios have 4 vcpus (threads 4251, 4249, 4252 and 4250 for vcpus
 * 0-3) of pid 4242, except two-vms.  The files are written in this host's
 * byte order, whatever the architecture.
 *
 * EXITS is the number of kvm_exit events (default 1000), split over the
 * vcpus.  OUT.data.truth holds '#' comment lines (samples per tracepoint
 * and other totals), then one line per analysis, vcpu and key:
 *
 *   <analysis> <vcpu> <key> <samples> <paired> <total_ns>
 *
 * With two VMs, <vcpu> is written <pid>/<vcpu id>, e.g. 4242/1.  On arm64
 * and riscv64, where no event has the vcpu id, it is written '?' (in
 * .events too), and .truth has one line per analysis and key, summed over
 * the vcpus; the thread tells the vcpus apart.
 *
 * OUT.data.events holds one line per sample of each analysis, in the time
 * order of the samples (over all analyses and vcpus):
 *
 *   <analysis> <vcpu> <pid> <key> <time_ns> <duration_ns> <rip>
 *
 * <vcpu> is the vcpu id, <pid> its VM's and <key> is as in .truth:
 *   vmexit  a kvm_exit: time is its timestamp, duration lasts until the
 *           vcpu's next kvm_entry, rip is its guest_rip field
 *   mmio    a kvm_mmio read (key <gpa>:R) or write (<gpa>:W): time is its
 *           timestamp; a read lasts from the vcpu's kvm_exit before it, a
 *           write until its next kvm_entry
 *   ioport  a kvm_pio (key <port>:PIN or <port>:POUT): time is its
 *           timestamp, duration lasts until the vcpu's next kvm_entry
 *   msr     a kvm_msr (key <index>:R or <index>:W, as its write field is 0
 *           or 1): time is its timestamp, duration lasts until the vcpu's
 *           next kvm_entry
 *   hypercall  a kvm_hypercall (key <nr>, in decimal): time is its
 *           timestamp, duration lasts until the vcpu's next kvm_entry.
 *           Elsewhere the key is 0x<nr in hex>/<NAME>, or 0x<nr> for a
 *           call without a name: on arm64 a kvm_hvc_arm64 (nr is r0) until
 *           the next kvm_entry, on s390 a kvm_s390_handle_diag (nr is the
 *           DIAGNOSE code) until the next kvm_s390_sie_enter, on powerpc a
 *           kvm_hcall_enter (nr is req) until the kvm_hcall_exit
 *   halt    vmx-halt: a kvm_vcpu_wakeup is key poll (waited 0) or wait
 *           (waited 1), with ':invalid' appended when valid is 0; its time
 *           is its timestamp minus its ns, and it lasts ns.  A
 *           kvm_halt_poll_ns is key grow or shrink, has no duration ('-')
 *           and is not an unpaired sample: paired is 0 in .truth
 *
 * The vmexit keys are the names of the reports: VMX and SVM exit names, and
 * elsewhere: arm64 the ESR EC name of a trap (ret 2), but WFI or WFE after
 * kvm_wfx_arm64's is_wfe, or else IRQ, SERROR, ILLEGAL (ret 0, 1, 3); s390 the
 * sie.h text of the intercept code, uppercased, each run of other
 * characters than letters and digits one '_' (I_O_INSTRUCTION); powerpc
 * the trap's name (SYSCALL for 0xc00); riscv64 the scause name, IRQ_ ones
 * for interrupts; loongarch64 the exception code's name (GSPR), IDLE or
 * CACHE after kvm_exit_idle or kvm_exit_cache; pvm #PF style names for
 * the vectors; vmx-nested NAME for L1's exits, L2:NAME for L2's exits
 * that L0 handles, L2>L1:NAME for those forwarded to L1.
 *
 * Every MSR exit (VMX MSR_READ and MSR_WRITE, SVM msr) has one kvm_msr
 * between its kvm_exit and kvm_entry, and every hypercall exit (VMX VMCALL,
 * SVM hypercall) one kvm_hypercall; a KVM_HC_MAP_GPA_RANGE hypercall also
 * goes to the VMM (kvm_userspace_exit KVM_EXIT_HYPERCALL).
 *
 * The duration is '-' when the end event was not recorded.  Each kvm_exit
 * has its own guest_rip, a 16 byte aligned kernel text address that the
 * PRNG draws at the kvm_entry before it.  The rip of an mmio or ioport
 * sample is the guest_rip of the vcpu's last kvm_exit (0x0 if there was
 * none); the same goes for msr and hypercall samples.  Rips, like the
 * MSR indexes of msr keys, are 0x-prefixed lowercase hex.  Summed per
 * analysis, vcpu and key, the lines give the samples, paired and total_ns
 * of .truth.
 * With more than 2000000 exits (EVENTS_MAX_EXITS; benchmarks generate 10M)
 * the file would take about 900 MB and seconds to write, so it is not written
 * (a stale one is removed), and a '# events not written' line of the .truth
 * header says so.
 *
 * See the account_*() functions for what is counted and timed.  All choices
 * come from a fixed-seed PRNG, so the same arguments always give the same
 * bytes.  Like 'perf record', the file is written in host byte order.
 *
 * The samples are written in time order, with a FINISHED_ROUND after every
 * SAMPLES_PER_ROUND of them, except in vmx-percpu.  There each round still
 * covers the time window of SAMPLES_PER_ROUND samples, but holds them
 * grouped by cpu (cpu 0's in time order, then cpu 1's, ...), as 'perf
 * record' drains one ring buffer after the other.  About one sample in 20,
 * and the kvm_exit of each HLT after which the vcpu wakes up on another cpu,
 * are written one round late: at the head of their cpu's group in the next
 * round (so a recording of one round, below about 370 exits, has none
 * late).  That is as late as perf's ordered events allow (a sample may not
 * be older than what was seen before the previous FINISHED_ROUND), so the
 * events, .truth (but for its scenario name) and .events are those of vmx.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <linux/align.h>
#include <linux/bitops.h>
#include <linux/bits.h>
#include <linux/kernel.h>
#include <linux/perf_event.h>
#include <linux/types.h>
#include <perf/event.h>
#include "../tests.h"
#include "util/data.h"
#include "util/header.h"

#define MAX_VCPUS		6	/* over all VMs of a scenario */
#define NR_HOST_CPUS		4
#define DEFAULT_EXITS		1000
/* Above this many exits, no OUT.data.events: see the comment on top */
#define EVENTS_MAX_EXITS	2000000
#define EVENTS_QUEUE_MIN	4096
#define EVENTS_LINE_MAX		128
#define KEY_MAX			48
/* perf_clock() of a host that booted about 20 minutes ago */
#define FIRST_EVENT_TIME	1234567890123ULL
/* One perf event per tracepoint and cpu: id = base + tp * cpus + cpu */
#define SAMPLE_ID_BASE		1000
#define SAMPLES_PER_ROUND	1024
/* vmx-percpu: room for any sample, and the samples written a round late */
#define PERCPU_RECORD_MAX	1024
#define PERCPU_LATE_PCT		5
#define PERCPU_LATE_SEED	0x94d049bb133111ebULL
#define OUT_BUF_SIZE		(4U << 20)
#define MAX_STEPS		10
#define MAX_EXIT_REASONS	32
#define TRACE_PAGE_SIZE		4096
#define FEATURE_STRING_ALIGN	64
#define FORMAT_TEXT_MAX		8192
/* The vcpu that loses kvm_exit events in the "unpaired" scenario */
#define ORPHAN_ENTRY_VCPU	3
#define ORPHAN_ENTRY_PERIOD	64

/* "PERFILE2" read as a native u64 */
#define PERF_FILE_MAGIC		0x32454c4946524550ULL

/*
 * What 'perf kvm-events record -p PID' gives every kvm tracepoint: one
 * sample_type for all, so the id is PERF_SAMPLE_ID's, and read_format
 * ID|LOST.  With -a, perf adds a dummy:u tracking event with another
 * sample_type, and so PERF_SAMPLE_IDENTIFIER for all.
 */
#define KVM_SAMPLE_TYPE	(PERF_SAMPLE_IP | PERF_SAMPLE_TID |		\
			 PERF_SAMPLE_TIME | PERF_SAMPLE_ID |		\
			 PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |		\
			 PERF_SAMPLE_RAW)
#define KVM_READ_FORMAT	(PERF_FORMAT_ID | PERF_FORMAT_LOST)
#define DUMMY_SAMPLE_TYPE (PERF_SAMPLE_IP | PERF_SAMPLE_TID |		\
			   PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |		\
			   PERF_SAMPLE_IDENTIFIER)
#define DUMMY_SAMPLE_ID_BASE	900
/* The u64 fields of a sample before READ, CALLCHAIN and RAW */
#define FIXED_SAMPLE_FIELDS (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP |	\
			     PERF_SAMPLE_TID | PERF_SAMPLE_TIME |	\
			     PERF_SAMPLE_ADDR | PERF_SAMPLE_ID |	\
			     PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU |	\
			     PERF_SAMPLE_PERIOD)
/* sample_id_all trailer of other records: pid+tid, time, id, cpu+res */
#define SAMPLE_ID_TRAILER_SIZE	(4 * sizeof(u64))
/* perf record -g: the kernel context marker and these ips */
#define CALLCHAIN_DEPTH		3
/* perf record --call-graph dwarf,512 on x86: the registers perf asks for */
#define DWARF_REGS_MASK		0xff0fffULL
#define DWARF_STACK_SIZE	512
#define PERF_REGS_ABI_64	2

/* Tracepoint argument values, arch/x86/kvm/trace.h and trace/events/kvm.h */
#define KVM_ISA_VMX			1
#define KVM_ISA_SVM			2
#define KVM_TRACE_MMIO_READ_UNSATISFIED	0
#define KVM_TRACE_MMIO_READ		1
#define KVM_TRACE_MMIO_WRITE		2
#define KVM_PIO_IN			0
#define KVM_PIO_OUT			1
/* struct kvm_run exit_reason values seen in kvm_userspace_exit */
#define VMM_EXIT_IO			2
#define VMM_EXIT_HYPERCALL		3
#define VMM_EXIT_MMIO			6
/* Valid external interrupt, vector 0xec (the Linux local timer) */
#define TIMER_INTR_INFO			0x800000ecU
/* PVM's exit "isa" (VMX is 1, SVM 2) */
#define KVM_ISA_PVM			3
/* arm64 kvm_exit ret: ARM_EXCEPTION_* of asm/kvm_asm.h */
#define ARM_EXCEPTION_IRQ		0
#define ARM_EXCEPTION_EL1_SERROR	1
#define ARM_EXCEPTION_TRAP		2
#define ARM_EXCEPTION_IL		3
#define ARM_EXCEPTION_HYP_GONE		0xbadca11
/* arm64 wfx exit: kvm_wfx_arm64's is_wfe */
#define WFX_IS_WFE			BIT(0)
/* riscv64 scause: the interrupt bit */
#define RISCV_SCAUSE_IRQ		BIT_ULL(63)
/* loongarch64: the reason of kvm_exit_idle and kvm_exit_cache */
#define LOONGARCH_EXIT_IDLE		64
#define LOONGARCH_EXIT_CACHE		65
/* vmx-nested: where an exit comes from, exit_desc.aux */
#define NESTED_L2			1	/* L2 exit handled by L0 */
#define NESTED_L2_TO_L1			2	/* L2 exit forwarded to L1 */
/* struct kvm_run exit_reason values of other architectures */
#define VMM_EXIT_S390_SIEIC		13
/* s390 sie_enter: CPUSTAT_ZARCH | CPUSTAT_GED2 ... as a 6.12 host has */
#define S390_CPUFLAGS			0x10000800
#define VMM_EXIT_PAPR_HCALL		19
/* powerpc kvm_hcall_exit ret: RESUME_GUEST, RESUME_HOST */
#define PPC_RESUME_GUEST		0
#define PPC_RESUME_HOST			2

enum kvm_tp {
	TP_KVM_EXIT,
	TP_KVM_ENTRY,
	TP_KVM_MMIO,
	TP_KVM_PIO,
	TP_KVM_USERSPACE_EXIT,
	TP_KVM_MSR,
	TP_KVM_HYPERCALL,
	/* other architectures' and newer scenarios' tracepoints */
	TP_WFX,			/* arm64 kvm_wfx_arm64 */
	TP_HCALL_EXIT,		/* powerpc kvm_hv:kvm_hcall_exit */
	TP_EXIT_IDLE,		/* loongarch kvm_exit_idle */
	TP_EXIT_CACHE,		/* loongarch kvm_exit_cache */
	TP_KVM_REENTER,		/* loongarch: back to the guest directly */
	TP_KVM_OUT,		/* loongarch: out to the VMM */
	TP_NESTED_VMEXIT,
	TP_NESTED_INJECT,
	TP_VCPU_WAKEUP,
	TP_HALT_POLL_NS,
	NR_KVM_TPS,
	/* A planning step that emits nothing: a vcpu starts to halt. */
	STEP_HALT_START = NR_KVM_TPS,
};

static const char * const tp_names[NR_KVM_TPS] = {
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
static const u64 tp_ips[NR_KVM_TPS] = {
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

/*
 * The value each tracepoint field is filled from.  An event is described by
 * an array of these values; encode_fields() puts each one where the format
 * of the scenario wants it, so old and new formats share the emit code.
 */
enum tp_value {
	V_ZERO,
	V_COMMON_TYPE,
	V_COMMON_PID,
	V_VCPU_ID,
	V_EXIT_REASON,
	V_RIP,
	V_ISA,
	V_INFO1,
	V_INFO2,
	V_INTR_INFO,
	V_MMIO_TYPE,
	V_LEN,
	V_GPA,
	V_VAL,
	V_PIO_RW,
	V_PORT,
	V_SIZE,
	V_COUNT,
	V_VMM_EXIT_REASON,
	V_MSR_WRITE,
	V_MSR_INDEX,
	V_MSR_DATA,
	V_MSR_EXCEPTION,
	V_HC_NR,
	V_HC_A0,
	V_HC_A1,
	V_HC_A2,
	V_HC_A3,
	V_EXC_TYPE,		/* arm64 kvm_exit ret */
	V_GUEST_MASK,		/* s390 PSW mask, powerpc MSR */
	V_CPUFLAGS,		/* s390 sie_enter */
	V_WFE,
	V_HC_RET,		/* powerpc kvm_hcall_exit ret */
	V_WAKE_NS,
	V_WAITED,
	V_VALID,
	V_GROW,
	V_POLL_NEW,
	V_POLL_OLD,
	NR_TP_VALUES,
};

struct tp_field {
	const char *decl;	/* C declaration, as in the format file */
	u8 offset;
	u8 size;
	bool is_signed;
	enum tp_value value;
};

/*
 * A scenario's tracepoint: one with no fields is not in its recording.
 * name, system and ip default to tp_names[], "kvm" and tp_ips[].
 */
struct tp_format {
	u32 id;			/* "ID:" of the format text, attr.config */
	u32 entry_size;		/* sizeof the kernel's trace entry struct */
	const struct tp_field *fields;	/* ends with an empty entry */
	const char *print_fmt;
	const char *name;
	const char *system;
	u64 ip;			/* sample ip: where in the kernel it fires */
};

static const struct tp_field common_fields[] = {
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

static const struct tp_field kvm_mmio_fields[] = {
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

static const struct tp_field kvm_userspace_exit_fields[] = {
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

#define KVM_MMIO_PRINT_FMT						\
	"\"mmio %s len %u gpa 0x%llx val 0x%llx\", "			\
	"__print_symbolic(REC->type, { 0, \"unsatisfied-read\" }, "	\
	"{ 1, \"read\" }, { 2, \"write\" }), REC->len, REC->gpa, REC->val"

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

/* The same with the exit reasons of other architectures */
#define KVM_USERSPACE_EXIT_ALL_PRINT_FMT				\
	"\"reason %s (%d)\", REC->errno < 0 ? (REC->errno == -4 ? "	\
	"\"restart\" : \"error\") : __print_symbolic(REC->reason, "	\
	"{ 2, \"KVM_EXIT_IO\" }, { 3, \"KVM_EXIT_HYPERCALL\" }, "	\
	"{ 5, \"KVM_EXIT_HLT\" }, { 6, \"KVM_EXIT_MMIO\" }, "		\
	"{ 10, \"KVM_EXIT_INTR\" }, { 13, \"KVM_EXIT_S390_SIEIC\" }, "	\
	"{ 19, \"KVM_EXIT_PAPR_HCALL\" }, "				\
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
static const struct tp_format formats_6_12[NR_KVM_TPS] = {
	FORMATS_6_12_X86,
};

/* A 5.4 host: other ids, vcpu_id only in kvm_entry */
static const struct tp_format formats_5_4[NR_KVM_TPS] = {
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
static const struct tp_field arm64_exit_fields[] = {
	{ "int ret",			8,  4, true,  V_EXC_TYPE },
	{ "unsigned int esr_ec",	12, 4, false, V_EXIT_REASON },
	{ "unsigned long vcpu_pc",	16, 8, false, V_RIP },
	{ }
};

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

static const struct tp_format formats_arm64[NR_KVM_TPS] = {
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

static const struct tp_format formats_s390[NR_KVM_TPS] = {
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

static const struct tp_format formats_ppc[NR_KVM_TPS] = {
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

static const struct tp_format formats_riscv[NR_KVM_TPS] = {
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

static const struct tp_format formats_loongarch[NR_KVM_TPS] = {
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
static const struct tp_field kvm_nested_inject_fields[] = {
	{ "__u32 exit_code",		8,  4, false, V_EXIT_REASON },
	{ "__u64 exit_info1",		16, 8, false, V_INFO1 },
	{ "__u64 exit_info2",		24, 8, false, V_INFO2 },
	{ "__u32 exit_int_info",	32, 4, false, V_INTR_INFO },
	{ "__u32 exit_int_info_err",	36, 4, false, V_ZERO },
	{ "__u32 isa",			40, 4, false, V_ISA },
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

static const struct tp_format formats_6_12_nested[NR_KVM_TPS] = {
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

static const struct tp_format formats_6_12_halt[NR_KVM_TPS] = {
	FORMATS_6_12_X86,
	[TP_VCPU_WAKEUP] = { 41, 24, kvm_vcpu_wakeup_fields,
			     KVM_VCPU_WAKEUP_PRINT_FMT },
	[TP_HALT_POLL_NS] = { 31, 24, kvm_halt_poll_ns_fields,
			      KVM_HALT_POLL_NS_PRINT_FMT },
};

/* What happens between a kvm_exit and the next kvm_entry */
enum exit_work {
	WORK_NONE,	/* handled in the kernel, no further tracepoint */
	WORK_IRQ,	/* host interrupt: intr_info has the vector */
	WORK_HALT,	/* vcpu sleeps, long; may wake up on another cpu */
	WORK_PIO,	/* port I/O emulated by the VMM: kvm_pio */
	WORK_MMIO,	/* maybe an emulated MMIO access: kvm_mmio */
	WORK_MSR,	/* RDMSR or WRMSR emulated in the kernel: kvm_msr */
	WORK_HYPERCALL,	/* VMCALL or VMMCALL: kvm_hypercall */
	WORK_WFX,	/* arm64 WFI or WFE: kvm_wfx_arm64 */
	WORK_VMM,	/* maybe handed to the VMM: kvm_userspace_exit */
};

/* Kinds of MMIO targets, see mmio_targets[] */
#define MMIO_APIC	BIT(0)	/* local APIC, emulated in the kernel */
#define MMIO_HPET	BIT(1)	/* HPET, emulated by the VMM */
#define MMIO_GIC	BIT(2)	/* arm64 GIC distributor, in the kernel */
#define MMIO_PL011	BIT(3)	/* arm64 PL011 UART, emulated by the VMM */
#define MMIO_KERNEL	(MMIO_APIC | MMIO_GIC)
#define APIC_EXIT_MIN_NS	1500
#define APIC_EXIT_MAX_NS	8000
/* MSR exits: which accesses, see msr_targets[] */
#define MSR_RD		BIT(0)
#define MSR_WR		BIT(1)
/* A hypercall the VMM handles takes longer. */
#define HC_VMM_EXIT_MIN_NS	15000
#define HC_VMM_EXIT_MAX_NS	60000

struct exit_desc {
	u32 code;
	const char *name;	/* as in the uapi vmx.h/svm.h tables, or NULL */
	unsigned int weight;	/* relative frequency */
	u32 min_ns;		/* kvm_exit -> kvm_entry duration range */
	u32 max_ns;
	enum exit_work work;
	/*
	 * How many of them do the work: access MMIO (WORK_MMIO), make a
	 * hypercall (WORK_HYPERCALL, all of them if 0), go to the VMM
	 * (WORK_VMM)
	 */
	unsigned int pct;
	/*
	 * WORK_MMIO: MMIO_*, WORK_MSR: MSR_RD/WR, WORK_WFX: WFX_IS_WFE,
	 * WORK_VMM: the kvm_run exit reason
	 */
	unsigned int kinds;
	/*
	 * arm64: the exception type (kvm_exit ret); riscv64: 1 for an
	 * interrupt; loongarch64: the reason of the kvm_exit_idle or
	 * kvm_exit_cache that follows; vmx-nested: NESTED_*
	 */
	u32 aux;
};

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

enum mmio_target_idx {
	MMIO_ICR_LOW_W,
	MMIO_ICR_LOW_R,
	MMIO_TIMER_COUNT_W,
	MMIO_ICR_HIGH_W,
	MMIO_HPET_CAP_R,
	MMIO_GICD_ISENABLER_W,
	MMIO_GICD_TYPER_R,
	MMIO_PL011_DR_W,
	MMIO_PL011_FR_R,
	NR_MMIO_TARGETS,
};

struct mmio_target {
	u64 gpa;
	u32 type;		/* KVM_TRACE_MMIO_WRITE or KVM_TRACE_MMIO_READ */
	unsigned int kind;	/* MMIO_APIC or MMIO_HPET */
	unsigned int weight;
	u64 val;
};

static const struct mmio_target mmio_targets[NR_MMIO_TARGETS] = {
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

enum pio_target_idx {
	PIO_COM1_DATA_OUT,
	PIO_COM1_LSR_IN,
	PIO_RTC_INDEX_OUT,
	PIO_RTC_DATA_IN,
	NR_PIO_TARGETS,
};

struct pio_target {
	u16 port;
	u32 rw;			/* KVM_PIO_OUT or KVM_PIO_IN */
	unsigned int weight;
};

static const struct pio_target pio_targets[NR_PIO_TARGETS] = {
	[PIO_COM1_DATA_OUT]	= { 0x3f8, KVM_PIO_OUT, 40 },
	[PIO_COM1_LSR_IN]	= { 0x3fd, KVM_PIO_IN, 30 },
	[PIO_RTC_INDEX_OUT]	= { 0x70, KVM_PIO_OUT, 15 },
	[PIO_RTC_DATA_IN]	= { 0x71, KVM_PIO_IN, 15 },
};

/* MSR indexes, arch/x86/include/asm/msr-index.h and kvm_para.h */
#define MSR_IA32_TSC			0x10
#define MSR_IA32_SPEC_CTRL		0x48
#define MSR_IA32_TSC_DEADLINE		0x6e0
#define MSR_X2APIC_ICR			0x830
#define MSR_KVM_WALL_CLOCK_NEW		0x4b564d00
#define MSR_EFER			0xc0000080
/* Guest TSC: 2.1 GHz, as the Xeon's */
#define GUEST_TSC_PER_10NS		21
#define SPEC_CTRL_SSBD			BIT(2)
#define SPEC_CTRL_RESERVED		BIT(7)
/* LME, LMA, NXE, SCE */
#define GUEST_EFER			0xd01
#define KVM_WALL_CLOCK_GPA		0x1e43000
/* IPI vectors of a Linux guest */
#define RESCHEDULE_VECTOR		0xfd
#define CALL_FUNCTION_VECTOR		0xfb

enum msr_target_idx {
	MSR_ICR_W,
	MSR_TSC_DEADLINE_W,
	MSR_SPEC_CTRL_W,
	MSR_WALL_CLOCK_W,
	MSR_TSC_R,
	MSR_EFER_R,
	MSR_SPEC_CTRL_R,
	NR_MSR_TARGETS,
};

struct msr_target {
	u32 index;
	unsigned int dir;	/* MSR_RD or MSR_WR */
	unsigned int weight;
	unsigned int gp_pct;	/* how many of them get a #GP */
};

static const struct msr_target msr_targets[NR_MSR_TARGETS] = {
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

/* KVM_HC_* of include/uapi/linux/kvm_para.h */
enum hc_target_idx {
	HC_KICK_CPU,
	HC_SEND_IPI,
	HC_SCHED_YIELD,
	HC_MAP_GPA_RANGE,
	HC_UNKNOWN,
	NR_HC_TARGETS,
};

/* The largest table of hypercalls below */
#define MAX_HC_TARGETS	8

struct hc_target {
	u64 nr;
	unsigned int weight;
	const char *name;	/* other than x86: the key's name part */
	bool vmm;		/* goes on to the VMM */
	u32 min_ns;		/* the exit's duration, if not the exit's */
	u32 max_ns;
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

/* A VM process and its vcpu threads */
struct vm_desc {
	u32 pid;
	const char *comm;
	unsigned int nr_vcpus;
	const u32 *tids;	/* by vcpu id */
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

enum kvm_arch {
	ARCH_X86,
	ARCH_ARM64,
	ARCH_S390,
	ARCH_PPC,
	ARCH_RISCV,
	ARCH_LOONGARCH,
};

/* What the recording of a host of another architecture has */
struct arch_desc {
	const char *machine;		/* uname -m, HEADER_ARCH */
	bool no_vcpu_id;		/* no event has the vcpu id */
	u64 guest_text;			/* where the guest kernel's code is */
	u64 guest_mask;			/* s390 PSW mask, powerpc MSR */
	const struct hc_target *hcs;	/* its hypercalls, or NULL */
	unsigned int nr_hcs;
};

static const struct arch_desc x86_desc = {
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

struct scenario {
	const char *name;
	const char *cpuid;
	const char *cpudesc;
	const char *osrelease;
	u32 isa;
	const struct exit_desc *exits;
	unsigned int nr_exits;
	const struct tp_format *formats;
	bool cut_off;		/* end inside exits, lose some kvm_exit events */
	u64 seed;
	const struct vm_desc *vms;
	unsigned int nr_vms;
	bool percpu;		/* samples grouped by cpu, some a round late */
	/* Other architectures, and x86 scenarios with more tracepoints */
	enum kvm_arch arch;
	const struct arch_desc *desc;	/* NULL: x86_64 */
	bool halt_events;	/* kvm_vcpu_wakeup, kvm_halt_poll_ns */
};

static const struct scenario scenarios[] = {
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

/* One planned event of a vcpu */
struct step {
	enum kvm_tp tp;
	u32 delay_ns;		/* after the vcpu's previous event */
	u32 idx;		/* exit_desc, mmio_targets or pio_targets index */
	u32 detail;		/* mmio type, VMM exit reason, orphan entry */
	u64 info1;		/* kvm_exit info1, info2 and intr_info */
	u64 info2;
	u32 intr_info;
};

#define ENTRY_WITHOUT_EXIT	1	/* step.detail of an orphan kvm_entry */

struct vcpu {
	u32 idx;		/* over all VMs: truth and cpu_owner index */
	u32 id;			/* vcpu id in its VM */
	u32 tid;
	const struct vm_desc *vm;
	u32 cpu;
	u64 guest_rip;
	u64 clock;		/* time of this vcpu's last event */
	struct step steps[MAX_STEPS];
	unsigned int nr_steps;
	unsigned int next_step;
	unsigned int exits_left;
	unsigned int exits_done;
	bool finished;
	bool started;		/* has had a cpu */
	bool halted;		/* in a HLT exit or not started: no cpu */
	/* ground truth bookkeeping */
	bool in_exit;
	u64 exit_time;
	unsigned int exit_idx;
	u64 exit_rip;		/* guest_rip of the last kvm_exit, or 0 */
	u64 exit_line;		/* its line in the events queue */
	int pending_mmio;	/* mmio write waiting for kvm_entry, or -1 */
	u64 mmio_time;
	u64 mmio_line;
	int pending_pio;	/* pio waiting for kvm_entry, or -1 */
	u64 pio_time;
	u64 pio_line;
	int pending_msr;	/* msr access waiting for kvm_entry, or -1 */
	u64 msr_time;
	u64 msr_line;
	int pending_hc;		/* hypercall waiting for kvm_entry, or -1 */
	u64 hc_time;
	u64 hc_line;
	u64 halt_time;		/* vmx-halt: when the vcpu began to halt */
	u64 halt_line;
	u32 halt_poll_ns;	/* vmx-halt: its halt_poll_ns */
};

/* vmx-halt: kvm_vcpu_wakeup's waited, and 2 if not valid; then the rest */
enum halt_key {
	HALT_POLL,
	HALT_WAIT,
	HALT_POLL_INVALID,
	HALT_WAIT_INVALID,
	HALT_GROW,
	HALT_SHRINK,
	NR_HALT_KEYS,
};

static const char * const halt_keys[NR_HALT_KEYS] = {
	[HALT_POLL]		= "poll",
	[HALT_WAIT]		= "wait",
	[HALT_POLL_INVALID]	= "poll:invalid",
	[HALT_WAIT_INVALID]	= "wait:invalid",
	[HALT_GROW]		= "grow",
	[HALT_SHRINK]		= "shrink",
};

/* halt_poll_ns: grown from 10 us, doubled up to 200 us, halved */
#define HALT_POLL_NS_START	10000
#define HALT_POLL_NS_MAX	200000
#define HALT_POLL_MIN_NS	5000
#define HALT_POLL_MAX_NS	150000
#define HALT_INVALID_PCT	10

struct truth_cell {
	u64 samples;
	u64 paired;
	u64 total_ns;
};

struct truth {
	struct truth_cell vmexit[MAX_VCPUS][MAX_EXIT_REASONS];
	struct truth_cell mmio[MAX_VCPUS][NR_MMIO_TARGETS];
	struct truth_cell ioport[MAX_VCPUS][NR_PIO_TARGETS];
	struct truth_cell msr[MAX_VCPUS][NR_MSR_TARGETS];
	struct truth_cell hypercall[MAX_VCPUS][MAX_HC_TARGETS];
	struct truth_cell halt[MAX_VCPUS][NR_HALT_KEYS];
	u64 tp_samples[NR_KVM_TPS];
	u64 orphan_entries;
	u64 migrations;
	u64 lost;		/* +lost: what the LOST records say was lost */
};

struct out_file {
	int fd;
	u8 *buf;
	size_t used;
	u64 flushed;		/* file offset of buf[0] */
	int error;
};

enum analysis {
	AN_VMEXIT,
	AN_MMIO,
	AN_IOPORT,
	AN_MSR,
	AN_HYPERCALL,
	AN_HALT,
	NR_ANALYSES,
};

static const char * const analysis_names[NR_ANALYSES] = {
	[AN_VMEXIT]	= "vmexit",
	[AN_MMIO]	= "mmio",
	[AN_IOPORT]	= "ioport",
	[AN_MSR]	= "msr",
	[AN_HYPERCALL]	= "hypercall",
	[AN_HALT]	= "halt",
};

/* A line of OUT.data.events, queued until all lines before it are done */
struct event_line {
	const struct vcpu *v;
	const char *key;
	u64 time;
	u64 duration;
	u64 rip;
	enum analysis analysis;
	bool timed;		/* the sample has its end event */
	bool done;		/* nothing more will be known */
};

/* Lines are numbered from 0; line n is at lines[n & mask]. */
struct events {
	bool enabled;
	bool no_vcpu_id;	/* vcpus written '?' */
	struct out_file out;
	struct event_line *lines;
	u64 mask;
	u64 head;		/* first line not written yet */
	u64 tail;		/* next line number */
	int error;
};

/* A sample of vmx-percpu, held until its round is written */
struct staged_sample {
	u32 cpu;
	u32 size;
	bool late;		/* goes into the next round */
	u8 record[PERCPU_RECORD_MAX];
};

struct percpu_rounds {
	struct staged_sample *cur;	/* this round's window, in time order */
	struct staged_sample *late;	/* the previous window's late ones */
	unsigned int nr_cur;
	unsigned int nr_late;
	u64 round;
	u64 rng;		/* its own: g->rng draws the events of vmx */
	/* each vcpu's last kvm_exit: round + 1 (0: none) and index in cur */
	u64 exit_round[MAX_VCPUS];
	unsigned int exit_slot[MAX_VCPUS];
	bool entry_late;	/* make the next sample late */
};

/*
 * The options of perf record that change the layout of the file, from
 * the modifiers after a scenario's name (vmx+callchain+pipe)
 */
struct layout {
	u64 sample_type;
	u64 read_format;
	bool system_wide;	/* +system-wide: -a, and its dummy:u event */
	bool single;		/* +single: kvm_exit alone, so no sample id */
	bool pipe;		/* +pipe: -o -, the pipe format */
	bool threads;		/* +threads: --threads, a directory */
	bool lost;		/* +lost: a ring buffer overflowed */
};

struct kvmgen {
	const struct scenario *sc;
	struct layout layout;
	/* +threads: OUT/data.N, cpu N's samples */
	struct out_file cpu_out[NR_HOST_CPUS];
	unsigned int nr_exits;
	unsigned int nr_vcpus;
	u64 rng;
	struct out_file out;
	struct vcpu vcpus[MAX_VCPUS];
	int cpu_owner[NR_HOST_CPUS];	/* running vcpu idx, or -1 */
	u64 last_time;
	u64 first_sample_time;
	unsigned int samples_in_round;
	struct truth truth;
	struct events events;
	struct percpu_rounds *percpu;	/* vmx-percpu only */
	/* keys as the reports and .truth show them */
	char exit_keys[MAX_EXIT_REASONS][KEY_MAX];
	char mmio_keys[NR_MMIO_TARGETS][KEY_MAX];
	char pio_keys[NR_PIO_TARGETS][KEY_MAX];
	char msr_keys[NR_MSR_TARGETS][KEY_MAX];
	char hc_keys[MAX_HC_TARGETS][KEY_MAX];
	char halt_keys[NR_HALT_KEYS][KEY_MAX];
	/* the scenario's tracepoints, in enum order, and their index */
	enum kvm_tp tps[NR_KVM_TPS];
	unsigned int nr_tps;
	unsigned int tp_slot[NR_KVM_TPS];
};

/* xorshift64*: small, fast and the same everywhere */
static u64 rng_next(u64 *state)
{
	u64 x = *state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * 0x2545f4914f6cdd1dULL;
}

static u32 rng_below(u64 *state, u32 n)
{
	return (rng_next(state) >> 32) % n;
}

static u32 rng_range(u64 *state, u32 lo, u32 hi)
{
	return lo + rng_below(state, hi - lo + 1);
}

/* Buffered output: no syscall and no allocation per event. */
static void out_flush(struct out_file *o)
{
	size_t done = 0;

	while (done < o->used && !o->error) {
		ssize_t n = write(o->fd, o->buf + done, o->used - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			o->error = n < 0 ? errno : EIO;
		else
			done += n;
	}
	o->flushed += o->used;
	o->used = 0;
}

static u64 out_tell(const struct out_file *o)
{
	return o->flushed + o->used;
}

/* Room for one record; size must be well below OUT_BUF_SIZE. */
static u8 *out_reserve(struct out_file *o, size_t size)
{
	u8 *p;

	if (o->used + size > OUT_BUF_SIZE)
		out_flush(o);
	p = o->buf + o->used;
	o->used += size;
	return p;
}

static void out_write(struct out_file *o, const void *buf, size_t size)
{
	const u8 *data = buf;

	while (size) {
		size_t chunk = min_t(size_t, size, OUT_BUF_SIZE / 2);

		memcpy(out_reserve(o, chunk), data, chunk);
		data += chunk;
		size -= chunk;
	}
}

static void out_zeros(struct out_file *o, size_t size)
{
	memset(out_reserve(o, size), 0, size);
}

static void out_u8(struct out_file *o, u8 val)
{
	out_write(o, &val, sizeof(val));
}

static void out_u32(struct out_file *o, u32 val)
{
	out_write(o, &val, sizeof(val));
}

static void out_u64(struct out_file *o, u64 val)
{
	out_write(o, &val, sizeof(val));
}

/* The header's perf_header_string: length, then NUL padded text */
static void out_header_string(struct out_file *o, const char *str)
{
	size_t len = strlen(str) + 1;
	u32 padded = ALIGN(len, FEATURE_STRING_ALIGN);

	out_u32(o, padded);
	out_write(o, str, len);
	out_zeros(o, padded - len);
}

static u8 *put_u32(u8 *p, u32 val)
{
	memcpy(p, &val, sizeof(val));
	return p + sizeof(val);
}

static u8 *put_u64(u8 *p, u64 val)
{
	memcpy(p, &val, sizeof(val));
	return p + sizeof(val);
}

static void store_uint(u8 *p, unsigned int size, u64 val)
{
	u8 v8 = val;
	u16 v16 = val;
	u32 v32 = val;

	switch (size) {
	case 1:
		memcpy(p, &v8, 1);
		break;
	case 2:
		memcpy(p, &v16, 2);
		break;
	case 4:
		memcpy(p, &v32, 4);
		break;
	default:
		memcpy(p, &val, 8);
		break;
	}
}

static void encode_fields(u8 *raw, const struct tp_field *field,
			  const u64 *values)
{
	for (; field->decl; field++)
		store_uint(raw + field->offset, field->size,
			   values[field->value]);
}

/*
 * perf_trace_buf_alloc() pads the entry so that the u32 size plus the raw
 * data end on a u64 boundary.
 */
static u32 raw_data_size(const struct tp_format *fmt)
{
	return ALIGN(fmt->entry_size + sizeof(u32), sizeof(u64)) - sizeof(u32);
}

static u64 sample_id(const struct kvmgen *g, enum kvm_tp tp, u32 cpu)
{
	return SAMPLE_ID_BASE + g->tp_slot[tp] * NR_HOST_CPUS + cpu;
}

static const struct arch_desc *arch_of(const struct scenario *sc)
{
	return sc->desc ? sc->desc : &x86_desc;
}

static const char *tp_name(const struct kvmgen *g, enum kvm_tp tp)
{
	const char *name = g->sc->formats[tp].name;

	return name ? name : tp_names[tp];
}

static const char *tp_system(const struct kvmgen *g, enum kvm_tp tp)
{
	const char *system = g->sc->formats[tp].system;

	return system ? system : "kvm";
}

/* The tracepoints of the scenario: those with a format */
static void init_tps(struct kvmgen *g)
{
	int tp;

	for (tp = 0; tp < NR_KVM_TPS; tp++) {
		if (!g->sc->formats[tp].fields)
			continue;
		g->tp_slot[tp] = g->nr_tps;
		g->tps[g->nr_tps++] = tp;
	}
}

/*
 * vmx-percpu: write_tp_sample() stages the samples of a round's window.
 * At the end of the window, each cpu's group is written: first its late
 * samples of the previous window, then its samples of this window that are
 * not late, all in time order.  The late ones wait for the next round;
 * the last round, at the end of the recording, keeps none back.
 */
static u8 *percpu_stage(struct kvmgen *g, const struct vcpu *v,
			enum kvm_tp tp, u32 size)
{
	struct percpu_rounds *pc = g->percpu;
	struct staged_sample *s = &pc->cur[pc->nr_cur];

	s->cpu = v->cpu;
	s->size = size;
	s->late = rng_below(&pc->rng, 100) < PERCPU_LATE_PCT;
	if (pc->entry_late) {
		s->late = true;
		pc->entry_late = false;
	}
	if (tp == TP_KVM_EXIT) {
		pc->exit_round[v->idx] = pc->round + 1;
		pc->exit_slot[v->idx] = pc->nr_cur;
	}
	pc->nr_cur++;
	return s->record;
}

/*
 * A halted vcpu wakes up on another cpu: its kvm_exit goes late, so that
 * the file has the kvm_entry first; if that kvm_exit is already written,
 * the kvm_entry goes late.
 */
static void percpu_migrated(struct kvmgen *g, const struct vcpu *v)
{
	struct percpu_rounds *pc = g->percpu;

	if (!pc)
		return;
	if (pc->exit_round[v->idx] == pc->round + 1)
		pc->cur[pc->exit_slot[v->idx]].late = true;
	else
		pc->entry_late = true;
}

static void percpu_write_round(struct kvmgen *g, bool last)
{
	struct percpu_rounds *pc = g->percpu;
	unsigned int cpu, i, nr_late = 0;

	for (cpu = 0; cpu < NR_HOST_CPUS; cpu++) {
		for (i = 0; i < pc->nr_late; i++) {
			if (pc->late[i].cpu == cpu)
				out_write(&g->out, pc->late[i].record,
					  pc->late[i].size);
		}
		for (i = 0; i < pc->nr_cur; i++) {
			const struct staged_sample *s = &pc->cur[i];

			if (s->cpu == cpu && (last || !s->late))
				out_write(&g->out, s->record, s->size);
		}
	}
	for (i = 0; i < pc->nr_cur; i++) {
		if (!last && pc->cur[i].late)
			pc->late[nr_late++] = pc->cur[i];
	}
	pc->nr_late = nr_late;
	pc->nr_cur = 0;
	pc->round++;
}

static void write_finished_round(struct kvmgen *g)
{
	struct perf_event_header hdr = {
		.type = PERF_RECORD_FINISHED_ROUND,
		.size = sizeof(hdr),
	};

	/* perf record --threads writes no rounds. */
	if (!g->layout.threads)
		out_write(&g->out, &hdr, sizeof(hdr));
	g->samples_in_round = 0;
}

static u32 sample_size(const struct kvmgen *g, u32 raw_size)
{
	u64 type = g->layout.sample_type;
	u32 size = sizeof(struct perf_event_header) + sizeof(u32) + raw_size;

	size += hweight64(type & FIXED_SAMPLE_FIELDS) * sizeof(u64);
	/* a group of one: nr, then value, id and lost */
	if (type & PERF_SAMPLE_READ)
		size += 4 * sizeof(u64);
	if (type & PERF_SAMPLE_CALLCHAIN)
		size += (2 + CALLCHAIN_DEPTH) * sizeof(u64);
	if (type & PERF_SAMPLE_REGS_USER)
		size += (1 + hweight64(DWARF_REGS_MASK)) * sizeof(u64);
	if (type & PERF_SAMPLE_STACK_USER)
		size += 2 * sizeof(u64) + DWARF_STACK_SIZE;
	if (type & PERF_SAMPLE_DATA_SRC)
		size += sizeof(u64);
	return size;
}

/* The fields of a sample before its raw data, in perf's order */
static u8 *put_sample_head(struct kvmgen *g, u8 *p, const struct vcpu *v,
			   enum kvm_tp tp, u64 ip)
{
	u64 type = g->layout.sample_type, id = sample_id(g, tp, v->cpu);
	unsigned int i;

	if (type & PERF_SAMPLE_IDENTIFIER)
		p = put_u64(p, id);
	p = put_u64(p, ip);
	p = put_u32(p, v->vm->pid);
	p = put_u32(p, v->tid);
	p = put_u64(p, v->clock);
	if (type & PERF_SAMPLE_ADDR)
		p = put_u64(p, 0);
	if (type & PERF_SAMPLE_ID)
		p = put_u64(p, id);
	p = put_u32(p, v->cpu);
	p = put_u32(p, 0);
	p = put_u64(p, 1);
	if (type & PERF_SAMPLE_READ) {
		p = put_u64(p, 1);
		p = put_u64(p, g->truth.tp_samples[tp] + 1);
		p = put_u64(p, id);
		p = put_u64(p, 0);
	}
	if (type & PERF_SAMPLE_CALLCHAIN) {
		p = put_u64(p, 1 + CALLCHAIN_DEPTH);
		p = put_u64(p, (u64)PERF_CONTEXT_KERNEL);
		for (i = 0; i < CALLCHAIN_DEPTH; i++)
			p = put_u64(p, ip + 0x1000 * i);
	}
	return p;
}

/* The fields after the raw data: -d's data_src, dwarf's regs and stack */
static void put_sample_tail(struct kvmgen *g, u8 *p, const struct vcpu *v)
{
	u64 type = g->layout.sample_type;
	unsigned int i;

	if (type & PERF_SAMPLE_REGS_USER) {
		p = put_u64(p, PERF_REGS_ABI_64);
		for (i = 0; i < hweight64(DWARF_REGS_MASK); i++)
			p = put_u64(p, v->guest_rip + i);
	}
	if (type & PERF_SAMPLE_STACK_USER) {
		p = put_u64(p, DWARF_STACK_SIZE);
		memset(p, 0x5a, DWARF_STACK_SIZE);
		p = put_u64(p + DWARF_STACK_SIZE, DWARF_STACK_SIZE / 2);
	}
	if (type & PERF_SAMPLE_DATA_SRC)
		put_u64(p, 0);
}

/*
 * +lost: at the end of each round, a PERF_RECORD_LOST of LOST_PER_ROUND
 * events on the cpu of the last sample, as the kernel writes when a ring
 * buffer is full.  perf record then reports the same events again at its
 * end, with a PERF_RECORD_LOST_SAMPLES per event (write_lost_samples()).
 */
#define LOST_PER_ROUND	7

static void write_lost(struct kvmgen *g, u32 cpu)
{
	struct perf_event_header hdr = {
		.type = PERF_RECORD_LOST,
		.size = sizeof(hdr) + 2 * sizeof(u64) + SAMPLE_ID_TRAILER_SIZE,
	};
	u8 *p = out_reserve(&g->out, hdr.size);

	memset(p, 0, hdr.size);
	memcpy(p, &hdr, sizeof(hdr));
	p = put_u64(p + sizeof(hdr), sample_id(g, g->tps[0], cpu));
	put_u64(p, LOST_PER_ROUND);
	g->truth.lost += LOST_PER_ROUND;
}

/* The lost events split over the kvm evsels, the rest on the first */
static void write_lost_samples(struct kvmgen *g)
{
	struct perf_event_header hdr = {
		.type = PERF_RECORD_LOST_SAMPLES,
		.size = sizeof(hdr) + sizeof(u64) + SAMPLE_ID_TRAILER_SIZE,
	};
	unsigned int i, nr = g->layout.single ? 1 : g->nr_tps;

	for (i = 0; i < nr; i++) {
		u8 *p = out_reserve(&g->out, hdr.size);
		u64 lost = g->truth.lost / nr + (i ? 0 : g->truth.lost % nr);

		memset(p, 0, hdr.size);
		memcpy(p, &hdr, sizeof(hdr));
		put_u64(p + sizeof(hdr), lost);
	}
}

/* One PERF_RECORD_SAMPLE of tracepoint tp, raw data encoded from values */
static void write_tp_sample(struct kvmgen *g, const struct vcpu *v,
			    enum kvm_tp tp, u64 *values)
{
	const struct tp_format *fmt = &g->sc->formats[tp];
	u32 raw_size = raw_data_size(fmt);
	struct perf_event_header hdr = {
		.type = PERF_RECORD_SAMPLE,
		.misc = PERF_RECORD_MISC_KERNEL,
		.size = sample_size(g, raw_size),
	};
	u8 *p;

	if (g->layout.single && tp != g->tps[0])
		goto counted;
	if (g->layout.threads)
		p = out_reserve(&g->cpu_out[v->cpu], hdr.size);
	else if (g->percpu)
		p = percpu_stage(g, v, tp, hdr.size);
	else
		p = out_reserve(&g->out, hdr.size);
	memcpy(p, &hdr, sizeof(hdr));
	p = put_sample_head(g, p + sizeof(hdr), v, tp, fmt->ip ? fmt->ip : tp_ips[tp]);
	p = put_u32(p, raw_size);

	values[V_COMMON_TYPE] = fmt->id;
	values[V_COMMON_PID] = v->tid;
	/* what every event of the vcpu may have */
	values[V_VCPU_ID] = v->id;
	values[V_RIP] = v->guest_rip;
	values[V_GUEST_MASK] = arch_of(g->sc)->guest_mask;
	values[V_CPUFLAGS] = S390_CPUFLAGS;
	memset(p, 0, raw_size);
	encode_fields(p, common_fields, values);
	encode_fields(p, fmt->fields, values);
	put_sample_tail(g, p + raw_size, v);
counted:
	if (!g->first_sample_time)
		g->first_sample_time = v->clock;
	g->truth.tp_samples[tp]++;
	if (++g->samples_in_round == SAMPLES_PER_ROUND) {
		if (g->layout.lost)
			write_lost(g, v->cpu);
		if (g->percpu)
			percpu_write_round(g, false);
		write_finished_round(g);
	}
}

/*
 * OUT.data.events: a sample's line is queued when its begin event is
 * written, so the queue is in time order; it is completed when the end
 * event comes, and written when the lines before it are written.  A few
 * hundred lines wait behind a long HLT exit; only in "unpaired" do the
 * lines after a vcpu's cut-off exit wait until the end (some 12000 with
 * 2000000 exits).  Numbers are formatted by hand, without printf, as a
 * large file has millions of lines.
 */
static char *fmt_str(char *p, const char *str)
{
	size_t len = strlen(str);

	memcpy(p, str, len);
	return p + len;
}

static char *fmt_dec(char *p, u64 val)
{
	char tmp[20];
	int n = 0;

	do {
		tmp[n++] = '0' + val % 10;
		val /= 10;
	} while (val);
	while (n)
		*p++ = tmp[--n];
	return p;
}

static char *fmt_hex(char *p, u64 val)
{
	static const char digits[] = "0123456789abcdef";
	char tmp[16];
	int n = 0;

	*p++ = '0';
	*p++ = 'x';
	do {
		tmp[n++] = digits[val & 0xf];
		val >>= 4;
	} while (val);
	while (n)
		*p++ = tmp[--n];
	return p;
}

/* <analysis> <vcpu> <pid> <key> <time_ns> <duration_ns|-> <rip> */
static void events_write_line(struct events *ev, const struct event_line *l)
{
	char buf[EVENTS_LINE_MAX], *p = buf;

	p = fmt_str(p, analysis_names[l->analysis]);
	*p++ = ' ';
	if (ev->no_vcpu_id)
		*p++ = '?';
	else
		p = fmt_dec(p, l->v->id);
	*p++ = ' ';
	p = fmt_dec(p, l->v->vm->pid);
	*p++ = ' ';
	p = fmt_str(p, l->key);
	*p++ = ' ';
	p = fmt_dec(p, l->time);
	*p++ = ' ';
	if (l->timed)
		p = fmt_dec(p, l->duration);
	else
		*p++ = '-';
	*p++ = ' ';
	p = fmt_hex(p, l->rip);
	*p++ = '\n';
	out_write(&ev->out, buf, p - buf);
}

static int events_grow(struct events *ev)
{
	u64 size = ev->lines ? (ev->mask + 1) * 2 : EVENTS_QUEUE_MIN;
	struct event_line *lines = calloc(size, sizeof(*lines));
	u64 n;

	if (!lines)
		return -ENOMEM;
	for (n = ev->head; n < ev->tail; n++)
		lines[n & (size - 1)] = ev->lines[n & ev->mask];
	free(ev->lines);
	ev->lines = lines;
	ev->mask = size - 1;
	return 0;
}

/* Queue the line of a sample that begins now; returns its number. */
static u64 events_open(struct kvmgen *g, const struct vcpu *v,
		       enum analysis analysis, const char *key, u64 rip)
{
	struct events *ev = &g->events;
	struct event_line *l;

	if (!ev->enabled)
		return 0;
	if (ev->tail - ev->head > ev->mask && events_grow(ev)) {
		ev->error = ENOMEM;
		ev->enabled = false;
		return 0;
	}
	l = &ev->lines[ev->tail & ev->mask];
	l->v = v;
	l->key = key;
	l->time = v->clock;
	l->duration = 0;
	l->rip = rip;
	l->analysis = analysis;
	l->timed = false;
	l->done = false;
	return ev->tail++;
}

/* Line done: timed with its duration, or a sample that has no time */
static void events_end(struct kvmgen *g, u64 line, bool timed, u64 duration)
{
	struct events *ev = &g->events;
	struct event_line *l;

	if (!ev->enabled)
		return;
	l = &ev->lines[line & ev->mask];
	l->duration = duration;
	l->timed = timed;
	l->done = true;
	while (ev->head < ev->tail) {
		l = &ev->lines[ev->head & ev->mask];
		if (!l->done)
			break;
		events_write_line(ev, l);
		ev->head++;
	}
}

static void events_close(struct kvmgen *g, u64 line, u64 duration)
{
	events_end(g, line, true, duration);
}

/* The end of the recording: what is still open has no end event. */
static void events_finish(struct events *ev)
{
	if (!ev->enabled)
		return;
	for (; ev->head < ev->tail; ev->head++)
		events_write_line(ev, &ev->lines[ev->head & ev->mask]);
	out_flush(&ev->out);
}

/*
 * Ground truth, with the begin and end events of 'perf kvm stat':
 *  vmexit: kvm_exit -> the vcpu's next kvm_entry
 *  mmio:   write: kvm_mmio(write) -> next kvm_entry,
 *          read:  the vcpu's kvm_exit -> kvm_mmio(read)
 *  ioport: kvm_pio -> next kvm_entry
 *  msr:    kvm_msr -> next kvm_entry
 *  hypercall: kvm_hypercall -> next kvm_entry
 * Each sample counted here also gets its line in OUT.data.events, and each
 * span timed here is that line's duration, so the two files agree.
 */
static void account_exit(struct kvmgen *g, struct vcpu *v, unsigned int idx)
{
	g->truth.vmexit[v->idx][idx].samples++;
	v->in_exit = true;
	v->exit_time = v->clock;
	v->exit_idx = idx;
	v->exit_rip = v->guest_rip;
	v->exit_line = events_open(g, v, AN_VMEXIT, g->exit_keys[idx],
				   v->exit_rip);
}

static void account_span(struct kvmgen *g, struct truth_cell *cell,
			 u64 line, u64 begin, u64 end)
{
	cell->paired++;
	cell->total_ns += end - begin;
	events_close(g, line, end - begin);
}

static void account_entry(struct kvmgen *g, struct vcpu *v)
{
	struct truth *t = &g->truth;

	if (!v->in_exit)
		return;

	account_span(g, &t->vmexit[v->idx][v->exit_idx], v->exit_line,
		     v->exit_time, v->clock);
	if (v->pending_mmio >= 0)
		account_span(g, &t->mmio[v->idx][v->pending_mmio],
			     v->mmio_line, v->mmio_time, v->clock);
	if (v->pending_pio >= 0)
		account_span(g, &t->ioport[v->idx][v->pending_pio],
			     v->pio_line, v->pio_time, v->clock);
	if (v->pending_msr >= 0)
		account_span(g, &t->msr[v->idx][v->pending_msr],
			     v->msr_line, v->msr_time, v->clock);
	if (v->pending_hc >= 0)
		account_span(g, &t->hypercall[v->idx][v->pending_hc],
			     v->hc_line, v->hc_time, v->clock);
	v->in_exit = false;
	v->pending_mmio = -1;
	v->pending_pio = -1;
	v->pending_msr = -1;
	v->pending_hc = -1;
}

static void account_mmio(struct kvmgen *g, struct vcpu *v, unsigned int idx,
			 u32 type)
{
	struct truth_cell *cell = &g->truth.mmio[v->idx][idx];
	u64 line;

	/* An unsatisfied read is the VMM's turn, not an access yet. */
	if (type == KVM_TRACE_MMIO_READ_UNSATISFIED)
		return;

	cell->samples++;
	line = events_open(g, v, AN_MMIO, g->mmio_keys[idx], v->exit_rip);
	if (type == KVM_TRACE_MMIO_READ) {
		account_span(g, cell, line, v->exit_time, v->clock);
	} else {
		v->pending_mmio = idx;
		v->mmio_time = v->clock;
		v->mmio_line = line;
	}
}

static void account_pio(struct kvmgen *g, struct vcpu *v, unsigned int idx)
{
	g->truth.ioport[v->idx][idx].samples++;
	v->pending_pio = idx;
	v->pio_time = v->clock;
	v->pio_line = events_open(g, v, AN_IOPORT, g->pio_keys[idx],
				  v->exit_rip);
}

static void account_msr(struct kvmgen *g, struct vcpu *v, unsigned int idx)
{
	g->truth.msr[v->idx][idx].samples++;
	v->pending_msr = idx;
	v->msr_time = v->clock;
	v->msr_line = events_open(g, v, AN_MSR, g->msr_keys[idx],
				  v->exit_rip);
}

static void account_hypercall(struct kvmgen *g, struct vcpu *v,
			      unsigned int idx)
{
	g->truth.hypercall[v->idx][idx].samples++;
	v->pending_hc = idx;
	v->hc_time = v->clock;
	v->hc_line = events_open(g, v, AN_HYPERCALL, g->hc_keys[idx],
				 v->exit_rip);
}

/* powerpc: kvm_hcall_exit ends the hypercall. */
static void account_hcall_exit(struct kvmgen *g, struct vcpu *v)
{
	if (v->pending_hc < 0)
		return;
	account_span(g, &g->truth.hypercall[v->idx][v->pending_hc],
		     v->hc_line, v->hc_time, v->clock);
	v->pending_hc = -1;
}

/*
 * vmx-halt: a halt sample begins when the vcpu starts to halt, which is
 * the kvm_vcpu_wakeup's time minus its ns, and lasts ns.
 */
static void account_halt_start(struct kvmgen *g, struct vcpu *v,
			       enum halt_key key)
{
	g->truth.halt[v->idx][key].samples++;
	v->halt_time = v->clock;
	v->halt_line = events_open(g, v, AN_HALT, g->halt_keys[key],
				   v->exit_rip);
}

static void account_wakeup(struct kvmgen *g, struct vcpu *v,
			   enum halt_key key, u64 ns)
{
	struct truth_cell *cell = &g->truth.halt[v->idx][key];

	account_span(g, cell, v->halt_line, v->clock - ns, v->clock);
}

/* A kvm_halt_poll_ns is a sample without a time, and not unpaired. */
static void account_halt_poll_ns(struct kvmgen *g, struct vcpu *v,
				 enum halt_key key)
{
	u64 line;

	g->truth.halt[v->idx][key].samples++;
	line = events_open(g, v, AN_HALT, g->halt_keys[key], v->exit_rip);
	events_end(g, line, false, 0);
}

/*
 * A halted vcpu gives its cpu away.  On wake up it takes a free cpu: its
 * own if still free (most of the time), or one a halted sibling left.
 * With more vcpus than cpus (two-vms), a vcpu may have to wait for a free
 * cpu (see next_vcpu()), and a vcpu starts without one.
 */
static void release_cpu(struct kvmgen *g, struct vcpu *v)
{
	g->cpu_owner[v->cpu] = -1;
	v->halted = true;
}

static void wake_up_on_free_cpu(struct kvmgen *g, struct vcpu *v)
{
	u32 others[NR_HOST_CPUS], nr_others = 0, cpu;
	bool own_free = g->cpu_owner[v->cpu] < 0;

	for (cpu = 0; cpu < NR_HOST_CPUS; cpu++) {
		if (cpu != v->cpu && g->cpu_owner[cpu] < 0)
			others[nr_others++] = cpu;
	}
	if (!own_free || (nr_others && !rng_below(&g->rng, 4))) {
		/* next_vcpu() waits for a free cpu, so nr_others > 0 */
		v->cpu = others[rng_below(&g->rng, nr_others)];
		if (v->started)
			g->truth.migrations++;
	}
	g->cpu_owner[v->cpu] = v->idx;
	v->halted = false;
	v->started = true;
}

static bool any_cpu_free(const struct kvmgen *g)
{
	u32 cpu;

	for (cpu = 0; cpu < NR_HOST_CPUS; cpu++) {
		if (g->cpu_owner[cpu] < 0)
			return true;
	}
	return false;
}

static void emit_kvm_exit(struct kvmgen *g, struct vcpu *v,
			  const struct step *s)
{
	const struct exit_desc *desc = &g->sc->exits[s->idx];
	u64 values[NR_TP_VALUES] = { 0 };

	values[V_EXIT_REASON] = desc->code;
	if (g->sc->arch == ARCH_RISCV && desc->aux)
		values[V_EXIT_REASON] |= RISCV_SCAUSE_IRQ;
	values[V_EXC_TYPE] = desc->aux;
	values[V_RIP] = v->guest_rip;
	values[V_ISA] = g->sc->isa;
	values[V_INFO1] = s->info1;
	values[V_INFO2] = s->info2;
	values[V_INTR_INFO] = s->intr_info;
	values[V_VCPU_ID] = v->id;
	write_tp_sample(g, v, TP_KVM_EXIT, values);
	account_exit(g, v, s->idx);
	if (desc->work == WORK_HALT ||
	    (desc->work == WORK_WFX && !(desc->kinds & WFX_IS_WFE)))
		release_cpu(g, v);
}

/*
 * What follows a kvm_exit and tells more about it: kvm_wfx_arm64 (detail
 * is is_wfe), kvm_exit_idle or kvm_exit_cache (detail is the reason),
 * kvm_nested_vmexit and kvm_nested_vmexit_inject (the exit's reason and
 * information), kvm_out.
 */
static void emit_exit_detail(struct kvmgen *g, struct vcpu *v,
			     const struct step *s)
{
	u64 values[NR_TP_VALUES] = { 0 };

	values[V_WFE] = s->detail;
	values[V_EXIT_REASON] = s->detail;
	values[V_ISA] = g->sc->isa;
	values[V_INFO1] = s->info1;
	values[V_INFO2] = s->info2;
	values[V_INTR_INFO] = s->intr_info;
	write_tp_sample(g, v, s->tp, values);
}

static void emit_hcall_exit(struct kvmgen *g, struct vcpu *v,
			    const struct step *s)
{
	u64 values[NR_TP_VALUES] = { 0 };

	values[V_HC_RET] = s->detail;
	write_tp_sample(g, v, TP_HCALL_EXIT, values);
	account_hcall_exit(g, v);
}

/* vmx-halt: detail is the halt_key; the halt began at the halt start */
static void emit_vcpu_wakeup(struct kvmgen *g, struct vcpu *v,
			     const struct step *s)
{
	u64 values[NR_TP_VALUES] = { 0 };
	u64 ns = v->clock - v->halt_time;

	values[V_WAKE_NS] = ns;
	values[V_WAITED] = s->detail & HALT_WAIT;
	values[V_VALID] = !(s->detail & HALT_POLL_INVALID);
	write_tp_sample(g, v, TP_VCPU_WAKEUP, values);
	account_wakeup(g, v, s->detail, ns);
}

/* detail is HALT_GROW or HALT_SHRINK, info1 the old value, info2 the new */
static void emit_halt_poll_ns(struct kvmgen *g, struct vcpu *v,
			      const struct step *s)
{
	u64 values[NR_TP_VALUES] = { 0 };

	values[V_GROW] = s->detail == HALT_GROW;
	values[V_POLL_OLD] = s->info1;
	values[V_POLL_NEW] = s->info2;
	write_tp_sample(g, v, TP_HALT_POLL_NS, values);
	account_halt_poll_ns(g, v, s->detail);
}

static void emit_kvm_entry(struct kvmgen *g, struct vcpu *v,
			   const struct step *s)
{
	u64 values[NR_TP_VALUES] = { 0 };

	if (v->halted) {
		u32 cpu = v->cpu;
		bool started = v->started;

		/* woken up to take the timer interrupt */
		if (started)
			values[V_INTR_INFO] = TIMER_INTR_INFO;
		wake_up_on_free_cpu(g, v);
		if (started && v->cpu != cpu)
			percpu_migrated(g, v);
	}
	if (s->detail == ENTRY_WITHOUT_EXIT)
		g->truth.orphan_entries++;

	values[V_VCPU_ID] = v->id;
	values[V_RIP] = v->guest_rip;
	write_tp_sample(g, v, s->tp, values);
	account_entry(g, v);
	v->guest_rip = arch_of(g->sc)->guest_text +
		       (rng_below(&g->rng, 0x800000) & ~0xfULL);
}

static void emit_kvm_mmio(struct kvmgen *g, struct vcpu *v,
			  const struct step *s)
{
	const struct mmio_target *t = &mmio_targets[s->idx];
	u64 values[NR_TP_VALUES] = { 0 };

	values[V_MMIO_TYPE] = s->detail;
	values[V_LEN] = 4;
	values[V_GPA] = t->gpa;
	if (s->detail != KVM_TRACE_MMIO_READ_UNSATISFIED)
		values[V_VAL] = t->val;
	write_tp_sample(g, v, TP_KVM_MMIO, values);
	account_mmio(g, v, s->idx, s->detail);
}

static u32 pio_value(struct kvmgen *g, enum pio_target_idx idx)
{
	static const char console_text[] = "kvmgen: hello from the guest\n";

	switch (idx) {
	case PIO_COM1_DATA_OUT:
		return console_text[rng_below(&g->rng,
					      sizeof(console_text) - 1)];
	case PIO_COM1_LSR_IN:
		return 0x60;	/* transmitter empty */
	case PIO_RTC_INDEX_OUT:
		return rng_below(&g->rng, 10);	/* a CMOS clock register */
	case PIO_RTC_DATA_IN:
		return rng_below(&g->rng, 0x60);
	case NR_PIO_TARGETS:
	default:
		return 0;
	}
}

static void emit_kvm_pio(struct kvmgen *g, struct vcpu *v,
			 const struct step *s)
{
	const struct pio_target *t = &pio_targets[s->idx];
	u64 values[NR_TP_VALUES] = { 0 };

	values[V_PIO_RW] = t->rw;
	values[V_PORT] = t->port;
	values[V_SIZE] = 1;
	values[V_COUNT] = 1;
	values[V_VAL] = pio_value(g, s->idx);
	write_tp_sample(g, v, TP_KVM_PIO, values);
	account_pio(g, v, s->idx);
}

static void emit_kvm_userspace_exit(struct kvmgen *g, struct vcpu *v,
				    const struct step *s)
{
	u64 values[NR_TP_VALUES] = { 0 };

	values[V_VMM_EXIT_REASON] = s->detail;
	write_tp_sample(g, v, TP_KVM_USERSPACE_EXIT, values);
}

/* Another vcpu of the VM, by its APIC id (= vcpu id), for an IPI */
static u32 other_vcpu(struct kvmgen *g, const struct vcpu *v)
{
	u32 n = v->vm->nr_vcpus;

	if (n < 2)
		return v->id;
	return (v->id + 1 + rng_below(&g->rng, n - 1)) % n;
}

/* What the guest writes, or reads back */
static u64 msr_value(struct kvmgen *g, const struct vcpu *v,
		     enum msr_target_idx idx, bool gp)
{
	u64 tsc = v->clock / 10 * GUEST_TSC_PER_10NS;

	switch (idx) {
	case MSR_ICR_W:
		/* fixed delivery, physical destination */
		return (u64)other_vcpu(g, v) << 32 |
		       (rng_below(&g->rng, 2) ? RESCHEDULE_VECTOR :
						CALL_FUNCTION_VECTOR);
	case MSR_TSC_DEADLINE_W:
		return tsc + rng_range(&g->rng, 20000, 8000000);
	case MSR_SPEC_CTRL_W:
		return SPEC_CTRL_SSBD | (gp ? SPEC_CTRL_RESERVED : 0);
	case MSR_WALL_CLOCK_W:
		return KVM_WALL_CLOCK_GPA;
	case MSR_TSC_R:
		return tsc;
	case MSR_EFER_R:
		return GUEST_EFER;
	case MSR_SPEC_CTRL_R:
		return SPEC_CTRL_SSBD;
	case NR_MSR_TARGETS:
	default:
		return 0;
	}
}

static void emit_kvm_msr(struct kvmgen *g, struct vcpu *v,
			 const struct step *s)
{
	const struct msr_target *t = &msr_targets[s->idx];
	u64 values[NR_TP_VALUES] = { 0 };
	bool gp = t->gp_pct && rng_below(&g->rng, 100) < t->gp_pct;

	values[V_MSR_WRITE] = t->dir == MSR_WR;
	values[V_MSR_INDEX] = t->index;
	values[V_MSR_DATA] = msr_value(g, v, s->idx, gp);
	values[V_MSR_EXCEPTION] = gp;
	write_tp_sample(g, v, TP_KVM_MSR, values);
	account_msr(g, v, s->idx);
}

/* The arguments of a Linux guest's hypercalls */
static void hypercall_args(struct kvmgen *g, const struct vcpu *v,
			   enum hc_target_idx idx, u64 *values)
{
	u64 others = GENMASK_ULL(v->vm->nr_vcpus - 1, 0) & ~BIT_ULL(v->id);

	switch (idx) {
	case HC_KICK_CPU:
		/* flags, APIC id of the vcpu to wake up */
		values[V_HC_A1] = other_vcpu(g, v);
		break;
	case HC_SEND_IPI:
		/* bitmap (low and high), lowest APIC id, ICR */
		if (rng_below(&g->rng, 4))
			values[V_HC_A0] = BIT_ULL(other_vcpu(g, v));
		else
			values[V_HC_A0] = others;
		values[V_HC_A3] = rng_below(&g->rng, 2) ? RESCHEDULE_VECTOR :
							  CALL_FUNCTION_VECTOR;
		break;
	case HC_SCHED_YIELD:
		/* APIC id of the preempted vcpu the IPI waits for */
		values[V_HC_A0] = other_vcpu(g, v);
		break;
	case HC_MAP_GPA_RANGE:
		/* gpa, pages, 4K pages made shared or private */
		values[V_HC_A0] = 0x100000000ULL +
				  ((u64)rng_below(&g->rng, 0x40000) << 12);
		values[V_HC_A1] = rng_range(&g->rng, 1, 512);
		values[V_HC_A2] = rng_below(&g->rng, 2) ? BIT(4) : 0;
		break;
	case HC_UNKNOWN:
		values[V_HC_A0] = rng_next(&g->rng) >> 32;
		break;
	case NR_HC_TARGETS:
	default:
		break;
	}
}

/* PAPR: the arguments in r4..r7 */
static void ppc_hcall_args(struct kvmgen *g, const struct vcpu *v,
			   u64 *values)
{
	switch (values[V_HC_NR]) {
	case 0x6c:
		/* H_IPI: server, MFRR of the IPI priority */
		values[V_HC_A0] = other_vcpu(g, v);
		values[V_HC_A1] = 0x05;
		break;
	case 0x64:
		/* H_EOI: XIRR of the IPI just taken */
		values[V_HC_A0] = 0x05000002;
		break;
	case 0x20:
		/* H_PUT_TCE: LIOBN, I/O address, TCE */
		values[V_HC_A0] = 0x80000000;
		values[V_HC_A1] = (u64)rng_below(&g->rng, 0x4000) << 12;
		values[V_HC_A2] = 0x200000003ULL +
				  ((u64)rng_below(&g->rng, 0x4000) << 12);
		break;
	case 0x58:
		/* H_PUT_TERM_CHAR: terminal 0, 1 byte */
		values[V_HC_A1] = 1;
		values[V_HC_A2] = 0x6b00000000000000ULL;
		break;
	default:
		break;
	}
}

static void emit_kvm_hypercall(struct kvmgen *g, struct vcpu *v,
			       const struct step *s)
{
	u64 values[NR_TP_VALUES] = { 0 };

	values[V_HC_NR] = arch_of(g->sc)->hcs[s->idx].nr;
	if (g->sc->arch == ARCH_X86)
		hypercall_args(g, v, s->idx, values);
	else if (g->sc->arch == ARCH_PPC)
		ppc_hcall_args(g, v, values);
	write_tp_sample(g, v, TP_KVM_HYPERCALL, values);
	account_hypercall(g, v, s->idx);
}

/* Planning: a vcpu's next events, as steps with delays */
static struct step *add_step(struct vcpu *v, enum kvm_tp tp, u32 delay_ns)
{
	struct step *s = &v->steps[v->nr_steps++];

	memset(s, 0, sizeof(*s));
	s->tp = tp;
	s->delay_ns = max(delay_ns, 1U);
	return s;
}

/* The events of one exit must fit into its chosen duration. */
struct exit_plan {
	struct kvmgen *g;
	struct vcpu *v;
	u32 duration;		/* kvm_exit -> kvm_entry */
	u32 elapsed;		/* taken by the steps planned so far */
	bool to_vmm;		/* has a kvm_out and kvm_userspace_exit */
};

static struct step *plan_after_exit(struct exit_plan *p, enum kvm_tp tp,
				    u32 delay_ns)
{
	p->elapsed += delay_ns;
	return add_step(p->v, tp, delay_ns);
}

static u32 plan_time_left(struct exit_plan *p, u32 min_tail, u32 max_tail)
{
	return p->duration - p->elapsed -
	       rng_range(&p->g->rng, min_tail, max_tail);
}

/*
 * KVM traces an OUT before handing it to the VMM, and an IN when the VMM
 * has provided the data.
 */
static void plan_pio(struct exit_plan *p, enum pio_target_idx idx)
{
	u64 *rng = &p->g->rng;
	struct step *s;

	if (pio_targets[idx].rw == KVM_PIO_OUT) {
		s = plan_after_exit(p, TP_KVM_PIO, rng_range(rng, 150, 400));
		s->idx = idx;
		s = plan_after_exit(p, TP_KVM_USERSPACE_EXIT,
				    rng_range(rng, 200, 600));
		s->detail = VMM_EXIT_IO;
	} else {
		s = plan_after_exit(p, TP_KVM_USERSPACE_EXIT,
				    rng_range(rng, 300, 800));
		s->detail = VMM_EXIT_IO;
		s = plan_after_exit(p, TP_KVM_PIO, plan_time_left(p, 300, 900));
		s->idx = idx;
	}
}

/*
 * Writes are traced when the access is emulated, and go on to the VMM if
 * it emulates the device.  A read the kernel can't
 * satisfy is traced as unsatisfied, goes to the VMM and is traced again
 * as a read when the VMM has the data.
 */
static void plan_mmio(struct exit_plan *p, enum mmio_target_idx idx)
{
	const struct mmio_target *t = &mmio_targets[idx];
	u64 *rng = &p->g->rng;
	struct step *s;

	if (t->type == KVM_TRACE_MMIO_WRITE) {
		s = plan_after_exit(p, TP_KVM_MMIO,
				    rng_range(rng, 300, p->duration / 2));
		if (t->kind & MMIO_PL011) {
			struct step *u;

			u = plan_after_exit(p, TP_KVM_USERSPACE_EXIT,
					    rng_range(rng, 200, 600));
			u->detail = VMM_EXIT_MMIO;
		}
	} else if (t->kind & (MMIO_HPET | MMIO_PL011)) {
		s = plan_after_exit(p, TP_KVM_MMIO, rng_range(rng, 300, 800));
		s->idx = idx;
		s->detail = KVM_TRACE_MMIO_READ_UNSATISFIED;
		s = plan_after_exit(p, TP_KVM_USERSPACE_EXIT,
				    rng_range(rng, 200, 500));
		s->detail = VMM_EXIT_MMIO;
		s = plan_after_exit(p, TP_KVM_MMIO, plan_time_left(p, 300, 900));
	} else {
		s = plan_after_exit(p, TP_KVM_MMIO,
				    rng_range(rng, p->duration / 2,
					      p->duration - 200));
	}
	s->idx = idx;
	s->detail = t->type;
}

/*
 * KVM traces an RDMSR or WRMSR when it has emulated it, a #GP included,
 * and then goes back to the guest.
 */
static void plan_msr(struct exit_plan *p, enum msr_target_idx idx)
{
	struct step *s;

	s = plan_after_exit(p, TP_KVM_MSR,
			    rng_range(&p->g->rng, p->duration / 2,
				      p->duration - 150));
	s->idx = idx;
}

/*
 * powerpc: kvm_hcall_exit when the kernel has handled the hcall, or when
 * it hands it on to the VMM.
 */
static void plan_hcall_exit(struct exit_plan *p, bool vmm)
{
	u64 *rng = &p->g->rng;
	struct step *s;

	if (vmm) {
		s = plan_after_exit(p, TP_HCALL_EXIT, rng_range(rng, 100, 300));
		s->detail = PPC_RESUME_HOST;
	} else {
		s = plan_after_exit(p, TP_HCALL_EXIT,
				    plan_time_left(p, 150, 400));
		s->detail = PPC_RESUME_GUEST;
	}
}

/*
 * KVM traces a hypercall before it handles it.  Some, like x86's
 * KVM_HC_MAP_GPA_RANGE, are handed on to the VMM.
 */
static void plan_hypercall(struct exit_plan *p, unsigned int idx)
{
	const struct hc_target *hc = &arch_of(p->g->sc)->hcs[idx];
	bool ppc = p->g->sc->arch == ARCH_PPC;
	u64 *rng = &p->g->rng;
	struct step *s;

	s = plan_after_exit(p, TP_KVM_HYPERCALL, rng_range(rng, 150, 500));
	s->idx = idx;
	if (ppc)
		plan_hcall_exit(p, hc->vmm);
	if (hc->vmm) {
		s = plan_after_exit(p, TP_KVM_USERSPACE_EXIT,
				    rng_range(rng, 200, 600));
		s->detail = ppc ? VMM_EXIT_PAPR_HCALL : VMM_EXIT_HYPERCALL;
	}
}

/* Out to the VMM; loongarch64 traces kvm_out first. */
static void plan_vmm(struct exit_plan *p, u32 reason)
{
	u64 *rng = &p->g->rng;
	struct step *s;

	if (p->g->sc->arch == ARCH_LOONGARCH)
		plan_after_exit(p, TP_KVM_OUT, rng_range(rng, 200, 800));
	s = plan_after_exit(p, TP_KVM_USERSPACE_EXIT, rng_range(rng, 300, 1000));
	s->detail = reason;
	p->to_vmm = true;
}

/* What the kernel traces next about the exit, if anything */
static void plan_exit_detail(struct exit_plan *p, const struct step *ex)
{
	const struct exit_desc *desc = &p->g->sc->exits[ex->idx];
	u64 *rng = &p->g->rng;
	struct step *s;

	if (desc->work == WORK_WFX) {
		s = plan_after_exit(p, TP_WFX, rng_range(rng, 100, 300));
		s->detail = desc->kinds & WFX_IS_WFE;
	} else if (p->g->sc->arch == ARCH_LOONGARCH && desc->aux) {
		s = plan_after_exit(p, desc->aux == LOONGARCH_EXIT_IDLE ?
				    TP_EXIT_IDLE : TP_EXIT_CACHE,
				    rng_range(rng, 150, 400));
		s->detail = desc->aux;
	} else if (p->g->sc->arch == ARCH_X86 && desc->aux) {
		/* kvm_nested_vmexit, kvm_nested_vmexit_inject */
		s = plan_after_exit(p, TP_NESTED_VMEXIT,
				    rng_range(rng, 100, 300));
		s->idx = ex->idx;
		s->detail = desc->code;
		s->info1 = ex->info1;
		s->info2 = ex->info2;
		s->intr_info = ex->intr_info;
		if (desc->aux == NESTED_L2_TO_L1) {
			struct step *inj;
			u32 delay = rng_range(rng, 300, 1000);

			inj = plan_after_exit(p, TP_NESTED_INJECT, delay);
			*inj = *s;
			inj->tp = TP_NESTED_INJECT;
			inj->delay_ns = delay;
		}
	}
}

/*
 * vmx-halt: the vcpu halts (polls, then waits unless the poll found
 * work), kvm_vcpu_wakeup when it is woken up, now and then a new
 * halt_poll_ns: grown after a poll that found work, shrunk after a wait.
 */
static void plan_halt(struct exit_plan *p, enum halt_key key)
{
	struct vcpu *v = p->v;
	u64 *rng = &p->g->rng;
	u32 old = v->halt_poll_ns;
	struct step *s;

	s = plan_after_exit(p, STEP_HALT_START, rng_range(rng, 300, 1500));
	s->detail = key;
	s = plan_after_exit(p, TP_VCPU_WAKEUP, plan_time_left(p, 300, 900));
	s->detail = key;
	if (!(key & HALT_WAIT) && old < HALT_POLL_NS_MAX) {
		s = plan_after_exit(p, TP_HALT_POLL_NS, rng_range(rng, 50, 150));
		s->detail = HALT_GROW;
		v->halt_poll_ns = old ? min_t(u32, old * 2, HALT_POLL_NS_MAX) :
					HALT_POLL_NS_START;
	} else if ((key & HALT_WAIT) && old && !rng_below(rng, 3)) {
		s = plan_after_exit(p, TP_HALT_POLL_NS, rng_range(rng, 50, 150));
		s->detail = HALT_SHRINK;
		v->halt_poll_ns = old / 2;
	} else {
		return;
	}
	s->info1 = old;
	s->info2 = v->halt_poll_ns;
}

/* What an exit accesses: an index into a *_targets[] table, or -1 */
struct exit_access {
	int pio;
	int mmio;
	int msr;
	int hc;
	int halt;	/* vmx-halt: the halt_key */
	bool vmm;	/* WORK_VMM: goes to the VMM */
};

static void no_access(struct exit_access *a)
{
	a->pio = -1;
	a->mmio = -1;
	a->msr = -1;
	a->hc = -1;
	a->halt = -1;
	a->vmm = false;
}

/* VMX exit qualification / SVM exit_info_1,2 for the chosen access */
static void set_exit_info(const struct scenario *sc, struct step *s,
			  const struct exit_desc *desc,
			  const struct exit_access *a)
{
	if (sc->arch != ARCH_X86)
		return;
	if (desc->work == WORK_IRQ && sc->isa == KVM_ISA_VMX)
		s->intr_info = TIMER_INTR_INFO;

	if (a->pio >= 0) {
		const struct pio_target *t = &pio_targets[a->pio];
		bool in = t->rw == KVM_PIO_IN;

		if (sc->isa == KVM_ISA_VMX)
			s->info1 = (u64)t->port << 16 | (in ? BIT(3) : 0);
		else
			s->info1 = (u64)t->port << 16 | BIT(4) | in;
	}
	if (a->mmio >= 0) {
		const struct mmio_target *t = &mmio_targets[a->mmio];
		bool write = t->type == KVM_TRACE_MMIO_WRITE;

		if (sc->isa == KVM_ISA_SVM) {
			s->info1 = BIT_ULL(32) | (write ? 0x6 : 0x4);
			s->info2 = t->gpa;
		} else if (t->kind == MMIO_APIC) {
			s->info1 = (t->gpa & 0xfff) | (write ? BIT(12) : 0);
		}
	}
	/* SVM: 1 for WRMSR; VMX: the exit reason says it, no qualification */
	if (a->msr >= 0 && sc->isa == KVM_ISA_SVM)
		s->info1 = msr_targets[a->msr].dir == MSR_WR;
}

static u32 exit_duration(struct kvmgen *g, const struct exit_desc *desc,
			 const struct exit_access *a)
{
	/* The kernel's APIC emulation is quick, whatever exit led to it. */
	const struct hc_target *hc = &arch_of(g->sc)->hcs[max(a->hc, 0)];

	if (a->mmio >= 0 && mmio_targets[a->mmio].kind & MMIO_KERNEL)
		return rng_range(&g->rng, APIC_EXIT_MIN_NS, APIC_EXIT_MAX_NS);
	if (a->hc >= 0 && hc->max_ns)
		return rng_range(&g->rng, hc->min_ns, hc->max_ns);
	if (a->halt >= 0 && !(a->halt & HALT_WAIT))
		return rng_range(&g->rng, HALT_POLL_MIN_NS, HALT_POLL_MAX_NS);
	return rng_range(&g->rng, desc->min_ns, desc->max_ns);
}

static void plan_exit(struct kvmgen *g, struct vcpu *v, unsigned int idx,
		      u32 guest_ns, const struct exit_access *a)
{
	const struct exit_desc *desc = &g->sc->exits[idx];
	struct exit_plan p = {
		.g = g,
		.v = v,
		.duration = exit_duration(g, desc, a),
	};
	struct step *s = add_step(v, TP_KVM_EXIT, guest_ns);

	s->idx = idx;
	set_exit_info(g->sc, s, desc, a);
	plan_exit_detail(&p, s);
	if (a->pio >= 0)
		plan_pio(&p, a->pio);
	if (a->mmio >= 0)
		plan_mmio(&p, a->mmio);
	if (a->msr >= 0)
		plan_msr(&p, a->msr);
	if (a->hc >= 0)
		plan_hypercall(&p, a->hc);
	if (a->vmm)
		plan_vmm(&p, desc->kinds);
	if (a->halt >= 0)
		plan_halt(&p, a->halt);
	/* loongarch64: kvm_reenter, or kvm_enter after the VMM */
	if (g->sc->arch == ARCH_LOONGARCH && !p.to_vmm)
		add_step(v, TP_KVM_REENTER, p.duration - p.elapsed);
	else
		add_step(v, TP_KVM_ENTRY, p.duration - p.elapsed);
}

static unsigned int pick_exit(struct kvmgen *g)
{
	const struct scenario *sc = g->sc;
	unsigned int i, total = 0, r;

	for (i = 0; i < sc->nr_exits; i++)
		total += sc->exits[i].weight;
	r = rng_below(&g->rng, total);
	for (i = 0; i < sc->nr_exits - 1; i++) {
		if (r < sc->exits[i].weight)
			break;
		r -= sc->exits[i].weight;
	}
	return i;
}

static int pick_pio_target(struct kvmgen *g)
{
	unsigned int i, total = 0, r;

	for (i = 0; i < NR_PIO_TARGETS; i++)
		total += pio_targets[i].weight;
	r = rng_below(&g->rng, total);
	for (i = 0; i < NR_PIO_TARGETS - 1; i++) {
		if (r < pio_targets[i].weight)
			break;
		r -= pio_targets[i].weight;
	}
	return i;
}

static int pick_mmio_target(struct kvmgen *g, unsigned int kinds)
{
	unsigned int i, total = 0, r;

	for (i = 0; i < NR_MMIO_TARGETS; i++) {
		if (mmio_targets[i].kind & kinds)
			total += mmio_targets[i].weight;
	}
	r = rng_below(&g->rng, total);
	for (i = 0; i < NR_MMIO_TARGETS; i++) {
		if (!(mmio_targets[i].kind & kinds))
			continue;
		if (r < mmio_targets[i].weight)
			return i;
		r -= mmio_targets[i].weight;
	}
	return -1;
}

/* An MSR access in one of the directions dirs (MSR_RD, MSR_WR) */
static int pick_msr_target(struct kvmgen *g, unsigned int dirs)
{
	unsigned int i, total = 0, r;

	for (i = 0; i < NR_MSR_TARGETS; i++) {
		if (msr_targets[i].dir & dirs)
			total += msr_targets[i].weight;
	}
	r = rng_below(&g->rng, total);
	for (i = 0; i < NR_MSR_TARGETS; i++) {
		if (!(msr_targets[i].dir & dirs))
			continue;
		if (r < msr_targets[i].weight)
			return i;
		r -= msr_targets[i].weight;
	}
	return -1;
}

static int pick_hc_target(struct kvmgen *g)
{
	unsigned int i, total = 0, r;

	const struct arch_desc *ad = arch_of(g->sc);

	for (i = 0; i < ad->nr_hcs; i++)
		total += ad->hcs[i].weight;
	r = rng_below(&g->rng, total);
	for (i = 0; i < ad->nr_hcs - 1; i++) {
		if (r < ad->hcs[i].weight)
			break;
		r -= ad->hcs[i].weight;
	}
	return i;
}

/* vmx-halt: a quarter of the halts end while polling */
static int pick_halt(struct kvmgen *g)
{
	int key = rng_below(&g->rng, 4) ? HALT_WAIT : HALT_POLL;

	if (rng_below(&g->rng, 100) < HALT_INVALID_PCT)
		key |= HALT_POLL_INVALID;
	return key;
}

static void plan_random_exit(struct kvmgen *g, struct vcpu *v, u32 guest_ns)
{
	unsigned int idx = pick_exit(g);
	const struct exit_desc *desc = &g->sc->exits[idx];
	struct exit_access a;

	no_access(&a);
	if (desc->work == WORK_PIO)
		a.pio = pick_pio_target(g);
	else if (desc->work == WORK_MMIO &&
		 rng_below(&g->rng, 100) < desc->pct)
		a.mmio = pick_mmio_target(g, desc->kinds);
	else if (desc->work == WORK_MSR)
		a.msr = pick_msr_target(g, desc->kinds);
	else if (desc->work == WORK_HYPERCALL &&
		 (!desc->pct || rng_below(&g->rng, 100) < desc->pct))
		a.hc = pick_hc_target(g);
	else if (desc->work == WORK_VMM &&
		 rng_below(&g->rng, 100) < desc->pct)
		a.vmm = true;
	else if (desc->work == WORK_HALT && g->sc->halt_events)
		a.halt = pick_halt(g);
	plan_exit(g, v, idx, guest_ns, &a);
}

static unsigned int find_exit_by_work(const struct scenario *sc,
				      enum exit_work work, unsigned int kinds)
{
	unsigned int i;

	for (i = 0; i < sc->nr_exits; i++) {
		if (sc->exits[i].work == work &&
		    (!kinds || sc->exits[i].kinds & kinds))
			return i;
	}
	return 0;
}

/*
 * The recording stops while the vcpu is inside its last exit: vcpu 0 has
 * already traced an OUT, vcpu 1 an MMIO write, vcpu 2 an MSR write, the
 * others only kvm_exit.
 */
static void plan_cut_off_exit(struct kvmgen *g, struct vcpu *v, u32 guest_ns)
{
	const struct scenario *sc = g->sc;
	unsigned int first = v->nr_steps;
	struct exit_access a;

	no_access(&a);
	switch (v->id) {
	case 0:
		a.pio = PIO_COM1_DATA_OUT;
		plan_exit(g, v, find_exit_by_work(sc, WORK_PIO, 0), guest_ns,
			  &a);
		v->nr_steps = first + 2;
		break;
	case 1:
		a.mmio = MMIO_TIMER_COUNT_W;
		plan_exit(g, v, find_exit_by_work(sc, WORK_MMIO, MMIO_APIC),
			  guest_ns, &a);
		v->nr_steps = first + 2;
		break;
	case 2:
		a.msr = MSR_TSC_DEADLINE_W;
		plan_exit(g, v, find_exit_by_work(sc, WORK_MSR, MSR_WR),
			  guest_ns, &a);
		v->nr_steps = first + 2;
		break;
	default:
		plan_random_exit(g, v, guest_ns);
		v->nr_steps = first + 1;
		break;
	}
}

static bool loses_kvm_exit(const struct kvmgen *g, const struct vcpu *v)
{
	return g->sc->cut_off && v->id == ORPHAN_ENTRY_VCPU &&
	       v->exits_done % ORPHAN_ENTRY_PERIOD == 8;
}

/* Guest runs for a while, then the next exit and what it brings. */
static void plan_next_cycle(struct kvmgen *g, struct vcpu *v)
{
	u32 guest_ns;

	v->nr_steps = 0;
	v->next_step = 0;
	if (!v->exits_left) {
		v->finished = true;
		/* Only with more vcpus than cpus can a vcpu wait for it. */
		if (g->nr_vcpus > NR_HOST_CPUS && !v->halted)
			g->cpu_owner[v->cpu] = -1;
		return;
	}
	guest_ns = rng_range(&g->rng, 1000, 40000);
	if (loses_kvm_exit(g, v)) {
		struct step *s = add_step(v, TP_KVM_ENTRY, guest_ns / 2);

		s->detail = ENTRY_WITHOUT_EXIT;
		guest_ns -= guest_ns / 2;
	}
	if (g->sc->cut_off && v->exits_left == 1)
		plan_cut_off_exit(g, v, guest_ns);
	else
		plan_random_exit(g, v, guest_ns);
	v->exits_left--;
	v->exits_done++;
}

static unsigned int count_vcpus(const struct scenario *sc)
{
	unsigned int i, n = 0;

	for (i = 0; i < sc->nr_vms; i++)
		n += sc->vms[i].nr_vcpus;
	return n;
}

/* vcpu i over all VMs: the first NR_HOST_CPUS start on a cpu each. */
static void init_vcpu(struct kvmgen *g, unsigned int i,
		      const struct vm_desc *vm, unsigned int id)
{
	struct vcpu *v = &g->vcpus[i];

	v->idx = i;
	v->id = id;
	v->vm = vm;
	v->tid = vm->tids[id];
	v->cpu = i % NR_HOST_CPUS;
	if (i < NR_HOST_CPUS) {
		g->cpu_owner[i] = i;
		v->started = true;
	} else {
		v->halted = true;	/* until a cpu is free */
	}
	v->clock = FIRST_EVENT_TIME;
	v->guest_rip = arch_of(g->sc)->guest_text + 0x1000 * i;
	v->exits_left = g->nr_exits / g->nr_vcpus +
			(i < g->nr_exits % g->nr_vcpus);
	v->pending_mmio = -1;
	v->pending_pio = -1;
	v->pending_msr = -1;
	v->pending_hc = -1;
	/* Tools learn the vcpu id from kvm_entry: start with one. */
	add_step(v, TP_KVM_ENTRY, rng_range(&g->rng, 1, 5000));
}

static void init_vcpus(struct kvmgen *g)
{
	const struct scenario *sc = g->sc;
	unsigned int i = 0, vm, id;

	for (id = 0; id < NR_HOST_CPUS; id++)
		g->cpu_owner[id] = -1;
	for (vm = 0; vm < sc->nr_vms; vm++) {
		for (id = 0; id < sc->vms[vm].nr_vcpus; id++)
			init_vcpu(g, i++, &sc->vms[vm], id);
	}
}

static struct vcpu *next_vcpu(struct kvmgen *g)
{
	bool cpu_free = any_cpu_free(g);
	struct vcpu *best = NULL;
	u64 best_time = 0;
	unsigned int i;

	for (i = 0; i < g->nr_vcpus; i++) {
		struct vcpu *v = &g->vcpus[i];
		u64 when;

		if (v->finished)
			continue;
		/* Without a cpu, a vcpu can't enter the guest. */
		if (v->halted && !cpu_free &&
		    v->steps[v->next_step].tp == TP_KVM_ENTRY)
			continue;
		when = v->clock + v->steps[v->next_step].delay_ns;
		if (!best || when < best_time) {
			best = v;
			best_time = when;
		}
	}
	return best;
}

static void run_step(struct kvmgen *g, struct vcpu *v)
{
	const struct step *s = &v->steps[v->next_step++];
	u64 when = v->clock + s->delay_ns;

	/* Timestamps are strictly increasing over all vcpus. */
	if (when <= g->last_time)
		when = g->last_time + 1;
	v->clock = when;
	g->last_time = when;

	switch (s->tp) {
	case TP_KVM_EXIT:
		emit_kvm_exit(g, v, s);
		break;
	case TP_KVM_ENTRY:
	case TP_KVM_REENTER:
		emit_kvm_entry(g, v, s);
		break;
	case TP_KVM_MMIO:
		emit_kvm_mmio(g, v, s);
		break;
	case TP_KVM_PIO:
		emit_kvm_pio(g, v, s);
		break;
	case TP_KVM_USERSPACE_EXIT:
		emit_kvm_userspace_exit(g, v, s);
		break;
	case TP_KVM_MSR:
		emit_kvm_msr(g, v, s);
		break;
	case TP_KVM_HYPERCALL:
		emit_kvm_hypercall(g, v, s);
		break;
	case TP_WFX:
	case TP_EXIT_IDLE:
	case TP_EXIT_CACHE:
	case TP_KVM_OUT:
	case TP_NESTED_VMEXIT:
	case TP_NESTED_INJECT:
		emit_exit_detail(g, v, s);
		break;
	case TP_HCALL_EXIT:
		emit_hcall_exit(g, v, s);
		break;
	case STEP_HALT_START:
		account_halt_start(g, v, s->detail);
		break;
	case TP_VCPU_WAKEUP:
		emit_vcpu_wakeup(g, v, s);
		break;
	case TP_HALT_POLL_NS:
		emit_halt_poll_ns(g, v, s);
		break;
	default:
		break;
	}
	if (v->next_step == v->nr_steps)
		plan_next_cycle(g, v);
}

/* Like the COMM events 'perf record' synthesizes: sample id all zero */
static void write_comm(struct kvmgen *g, u32 pid, u32 tid, const char *comm)
{
	size_t comm_size = ALIGN(strlen(comm) + 1, sizeof(u64));
	struct perf_event_header hdr = {
		.type = PERF_RECORD_COMM,
		.size = sizeof(hdr) + 2 * sizeof(u32) + comm_size +
			SAMPLE_ID_TRAILER_SIZE,
	};
	u8 *p = out_reserve(&g->out, hdr.size);

	memset(p, 0, hdr.size);
	memcpy(p, &hdr, sizeof(hdr));
	p = put_u32(p + sizeof(hdr), pid);
	p = put_u32(p, tid);
	memcpy(p, comm, strlen(comm));
}

static void vcpu_comm(char *buf, size_t size, unsigned int vcpu)
{
	snprintf(buf, size, "CPU %u/KVM", vcpu);
}

static void write_comms(struct kvmgen *g)
{
	char comm[20];	/* "CPU %u/KVM" with any u32 */
	unsigned int vm, i;

	for (vm = 0; vm < g->sc->nr_vms; vm++) {
		const struct vm_desc *d = &g->sc->vms[vm];

		write_comm(g, d->pid, d->pid, d->comm);
		for (i = 0; i < d->nr_vcpus; i++) {
			vcpu_comm(comm, sizeof(comm), i);
			write_comm(g, d->pid, d->tids[i], comm);
		}
	}
}

static void write_events(struct kvmgen *g)
{
	struct vcpu *v;

	write_comms(g);
	init_vcpus(g);
	while ((v = next_vcpu(g)) != NULL)
		run_step(g, v);
	if (g->percpu)
		percpu_write_round(g, true);
	write_finished_round(g);
	if (g->layout.lost)
		write_lost_samples(g);
	events_finish(&g->events);
}

/* The kvm tracepoints' evsels, then with -a perf's dummy:u */
static unsigned int nr_evsels(const struct kvmgen *g)
{
	return (g->layout.single ? 1 : g->nr_tps) + g->layout.system_wide;
}

static bool is_dummy(const struct kvmgen *g, unsigned int i)
{
	return g->layout.system_wide && i == nr_evsels(g) - 1;
}

static u64 evsel_id(const struct kvmgen *g, unsigned int i, u32 cpu)
{
	return is_dummy(g, i) ? DUMMY_SAMPLE_ID_BASE + cpu : sample_id(g, g->tps[i], cpu);
}

/* The evsel that gets the side-band records perf record asks for */
static void set_tracking(struct perf_event_attr *attr)
{
	attr->mmap = 1;
	attr->comm = 1;
	attr->task = 1;
	attr->mmap2 = 1;
	attr->comm_exec = 1;
	attr->ksymbol = 1;
	attr->bpf_event = 1;
}

/* Evsel i's attr, as perf record sets it */
static void init_evsel_attr(const struct kvmgen *g, unsigned int i,
			    struct perf_event_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->sample_period = 1;
	attr->read_format = g->layout.read_format;
	attr->inherit = 1;
	attr->sample_id_all = 1;
	attr->exclude_guest = 1;
	if (is_dummy(g, i)) {
		attr->type = PERF_TYPE_SOFTWARE;
		attr->config = PERF_COUNT_SW_DUMMY;
		attr->sample_type = DUMMY_SAMPLE_TYPE;
		attr->exclude_kernel = 1;
		attr->exclude_hv = 1;
		set_tracking(attr);
		return;
	}
	attr->type = PERF_TYPE_TRACEPOINT;
	attr->config = g->sc->formats[g->tps[i]].id;
	attr->sample_type = g->layout.sample_type;
	attr->disabled = 1;
	if (i == 0 && !g->layout.system_wide)
		set_tracking(attr);
	if (attr->sample_type & PERF_SAMPLE_REGS_USER) {
		attr->sample_regs_user = DWARF_REGS_MASK;
		attr->sample_stack_user = DWARF_STACK_SIZE;
		attr->exclude_callchain_user = 1;
	}
}

static void evsel_name(const struct kvmgen *g, unsigned int i, char *buf,
		       size_t size)
{
	if (is_dummy(g, i))
		snprintf(buf, size, "dummy:u");
	else
		snprintf(buf, size, "%s:%s", tp_system(g, g->tps[i]),
			 tp_name(g, g->tps[i]));
}

static void write_evsel_ids(struct kvmgen *g, unsigned int i)
{
	u32 cpu;

	for (cpu = 0; cpu < NR_HOST_CPUS; cpu++)
		out_u64(&g->out, evsel_id(g, i, cpu));
}

/* The attrs section: each attr followed by the location of its ids */
static void write_attrs(struct kvmgen *g, u64 ids_offset)
{
	struct perf_event_attr attr;
	struct perf_file_section ids;
	unsigned int i;

	for (i = 0; i < nr_evsels(g); i++) {
		init_evsel_attr(g, i, &attr);
		ids.offset = ids_offset + i * NR_HOST_CPUS * sizeof(u64);
		ids.size = NR_HOST_CPUS * sizeof(u64);
		out_write(&g->out, &attr, sizeof(attr));
		out_write(&g->out, &ids, sizeof(ids));
	}
}

/* A pipe's PERF_RECORD_HEADER_ATTRs: each attr followed by its ids */
static void write_attr_records(struct kvmgen *g)
{
	struct perf_event_header hdr = {
		.type = PERF_RECORD_HEADER_ATTR,
		.size = sizeof(hdr) + sizeof(struct perf_event_attr) +
			NR_HOST_CPUS * sizeof(u64),
	};
	struct perf_event_attr attr;
	unsigned int i;

	for (i = 0; i < nr_evsels(g); i++) {
		init_evsel_attr(g, i, &attr);
		out_write(&g->out, &hdr, sizeof(hdr));
		out_write(&g->out, &attr, sizeof(attr));
		write_evsel_ids(g, i);
	}
}

/* Feature sections, see perf.data-file-format.txt */
static const char header_page_text[] =
	"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
	"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
	"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
	"\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n";

static const char header_event_text[] =
	"# compressed entry header\n"
	"\ttype_len    :    5 bits\n"
	"\ttime_delta  :   27 bits\n"
	"\tarray       :   32 bits\n"
	"\n"
	"\tpadding     : type == 29\n"
	"\ttime_extend : type == 30\n"
	"\ttime_stamp : type == 31\n"
	"\tdata max type_len  == 28\n";

static size_t format_fields(char *buf, size_t size,
			    const struct tp_field *field)
{
	size_t len = 0;

	for (; field->decl; field++)
		len += scnprintf(buf + len, size - len,
				 "\tfield:%s;\toffset:%u;\tsize:%u;\tsigned:%d;\n",
				 field->decl, field->offset, field->size,
				 field->is_signed);
	return len;
}

/* The text of events/<system>/<name>/format */
static size_t format_tp_text(const struct kvmgen *g, char *buf, size_t size,
			     enum kvm_tp tp)
{
	const struct tp_format *fmt = &g->sc->formats[tp];
	size_t len;

	len = scnprintf(buf, size, "name: %s\nID: %u\nformat:\n",
			tp_name(g, tp), fmt->id);
	len += format_fields(buf + len, size - len, common_fields);
	len += scnprintf(buf + len, size - len, "\n");
	len += format_fields(buf + len, size - len, fmt->fields);
	len += scnprintf(buf + len, size - len, "\nprint fmt: %s\n",
			 fmt->print_fmt);
	return len;
}

static void write_tracing_header(struct out_file *o)
{
	/* 23, 8, 68 and "tracing", then the version string */
	static const char magic[] = "\027\010Dtracing0.6";

	out_write(o, magic, sizeof(magic));
	out_u8(o, __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);
	out_u8(o, sizeof(u64));		/* long of a 64-bit kernel */
	out_u32(o, TRACE_PAGE_SIZE);

	out_write(o, "header_page", sizeof("header_page"));
	out_u64(o, sizeof(header_page_text) - 1);
	out_write(o, header_page_text, sizeof(header_page_text) - 1);
	out_write(o, "header_event", sizeof("header_event"));
	out_u64(o, sizeof(header_event_text) - 1);
	out_write(o, header_event_text, sizeof(header_event_text) - 1);
}

/* Is tracepoint i the first of its system? */
static bool first_of_system(const struct kvmgen *g, unsigned int i)
{
	const char *system = tp_system(g, g->tps[i]);
	unsigned int j;

	for (j = 0; j < i; j++) {
		if (!strcmp(tp_system(g, g->tps[j]), system))
			return false;
	}
	return true;
}

/* The formats of one system: kvm, and kvm_hv on powerpc */
static void write_system_formats(struct kvmgen *g, const char *system)
{
	static char text[FORMAT_TEXT_MAX];
	unsigned int i, n = 0;

	for (i = 0; i < g->nr_tps; i++)
		n += !strcmp(tp_system(g, g->tps[i]), system);
	out_write(&g->out, system, strlen(system) + 1);
	out_u32(&g->out, n);
	for (i = 0; i < g->nr_tps; i++) {
		size_t len;

		if (strcmp(tp_system(g, g->tps[i]), system))
			continue;
		len = format_tp_text(g, text, sizeof(text), g->tps[i]);
		out_u64(&g->out, len);
		out_write(&g->out, text, len);
	}
}

static void write_kvm_formats(struct kvmgen *g)
{
	unsigned int i, nr_systems = 0;

	for (i = 0; i < g->nr_tps; i++)
		nr_systems += first_of_system(g, i);
	out_u32(&g->out, nr_systems);
	for (i = 0; i < g->nr_tps; i++) {
		if (first_of_system(g, i))
			write_system_formats(g, tp_system(g, g->tps[i]));
	}
}

/* saved_cmdlines: "pid comm" lines for the VMs' threads */
static void write_saved_cmdlines(struct kvmgen *g)
{
	char text[512], comm[20];
	size_t len = 0;
	unsigned int vm, i;

	for (vm = 0; vm < g->sc->nr_vms; vm++) {
		const struct vm_desc *d = &g->sc->vms[vm];

		len += scnprintf(text + len, sizeof(text) - len, "%u %s\n",
				 d->pid, d->comm);
		for (i = 0; i < d->nr_vcpus; i++) {
			vcpu_comm(comm, sizeof(comm), i);
			len += scnprintf(text + len, sizeof(text) - len,
					 "%u %s\n", d->tids[i], comm);
		}
	}
	out_u64(&g->out, len);
	out_write(&g->out, text, len);
}

static void write_tracing_data(struct kvmgen *g)
{
	write_tracing_header(&g->out);
	out_u32(&g->out, 0);		/* no ftrace event formats */
	write_kvm_formats(g);
	out_u32(&g->out, 0);		/* empty kallsyms */
	out_u32(&g->out, 0);		/* empty printk formats */
	write_saved_cmdlines(g);
}

static void write_hostname(struct kvmgen *g)
{
	out_header_string(&g->out, "kvmgen");
}

static void write_osrelease(struct kvmgen *g)
{
	out_header_string(&g->out, g->sc->osrelease);
}

static void write_version(struct kvmgen *g)
{
	out_header_string(&g->out, "6.12.0");
}

static void write_arch(struct kvmgen *g)
{
	out_header_string(&g->out, arch_of(g->sc)->machine);
}

static void write_nrcpus(struct kvmgen *g)
{
	out_u32(&g->out, NR_HOST_CPUS);	/* available */
	out_u32(&g->out, NR_HOST_CPUS);	/* online */
}

static void write_cpudesc(struct kvmgen *g)
{
	out_header_string(&g->out, g->sc->cpudesc);
}

static void write_cpuid(struct kvmgen *g)
{
	out_header_string(&g->out, g->sc->cpuid);
}

static void write_event_desc(struct kvmgen *g)
{
	struct perf_event_attr attr;
	char name[64];
	unsigned int i;

	out_u32(&g->out, nr_evsels(g));
	out_u32(&g->out, sizeof(attr));
	for (i = 0; i < nr_evsels(g); i++) {
		init_evsel_attr(g, i, &attr);
		out_write(&g->out, &attr, sizeof(attr));
		out_u32(&g->out, NR_HOST_CPUS);
		evsel_name(g, i, name, sizeof(name));
		out_header_string(&g->out, name);
		write_evsel_ids(g, i);
	}
}

static void write_dir_format(struct kvmgen *g)
{
	out_u64(&g->out, PERF_DIR_VERSION);
}

static void write_sample_time(struct kvmgen *g)
{
	out_u64(&g->out, g->first_sample_time);
	out_u64(&g->out, g->last_time);
}

struct feature_writer {
	int feat;
	void (*write)(struct kvmgen *g);
};

/* In feature bit order, as the reader expects the sections */
static const struct feature_writer feature_writers[] = {
	{ HEADER_TRACING_DATA,	write_tracing_data },
	{ HEADER_HOSTNAME,	write_hostname },
	{ HEADER_OSRELEASE,	write_osrelease },
	{ HEADER_VERSION,	write_version },
	{ HEADER_ARCH,		write_arch },
	{ HEADER_NRCPUS,	write_nrcpus },
	{ HEADER_CPUDESC,	write_cpudesc },
	{ HEADER_CPUID,		write_cpuid },
	{ HEADER_EVENT_DESC,	write_event_desc },
	{ HEADER_SAMPLE_TIME,	write_sample_time },
	{ HEADER_DIR_FORMAT,	write_dir_format },
};

static int pwrite_all(int fd, const void *buf, size_t size, u64 offset)
{
	const u8 *data = buf;

	while (size) {
		ssize_t n = pwrite(fd, data, size, offset);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		data += n;
		size -= n;
		offset += n;
	}
	return 0;
}

/* The section table follows the data, the sections follow the table. */
static int write_features(struct kvmgen *g, struct perf_file_header *hdr)
{
	struct perf_file_section secs[ARRAY_SIZE(feature_writers)];
	u64 table_offset = out_tell(&g->out);
	unsigned int i;

	out_zeros(&g->out, sizeof(secs));
	for (i = 0; i < ARRAY_SIZE(feature_writers); i++) {
		/* Only a directory has a format. */
		if (feature_writers[i].feat == HEADER_DIR_FORMAT && !g->layout.threads) {
			secs[i].offset = 0;
			secs[i].size = 0;
			continue;
		}
		secs[i].offset = out_tell(&g->out);
		feature_writers[i].write(g);
		secs[i].size = out_tell(&g->out) - secs[i].offset;
		__set_bit(feature_writers[i].feat, hdr->adds_features);
	}
	out_flush(&g->out);
	if (g->out.error)
		return -g->out.error;
	return pwrite_all(g->out.fd, secs, sizeof(secs), table_offset);
}

/* Writes a record's header at @offset, once its size is known */
static int patch_header(struct kvmgen *g, u64 offset, const void *hdr,
			size_t size)
{
	out_flush(&g->out);
	if (g->out.error)
		return -g->out.error;
	return pwrite_all(g->out.fd, hdr, size, offset);
}

/*
 * A pipe carries its features as PERF_RECORD_HEADER_FEATUREs, those perf
 * synthesizes for a pipe: not the tracing data, event desc or sample time.
 */
static int write_feature_records(struct kvmgen *g)
{
	struct perf_record_header_feature fe = {
		.header.type = PERF_RECORD_HEADER_FEATURE,
		.header.size = sizeof(fe),
		.feat_id = HEADER_LAST_FEATURE,
	};
	unsigned int i;
	int err;

	for (i = 0; i < ARRAY_SIZE(feature_writers); i++) {
		u64 offset = out_tell(&g->out);

		if (feature_writers[i].feat == HEADER_TRACING_DATA ||
		    feature_writers[i].feat == HEADER_EVENT_DESC ||
		    feature_writers[i].feat == HEADER_DIR_FORMAT ||
		    feature_writers[i].feat == HEADER_SAMPLE_TIME)
			continue;
		out_zeros(&g->out, sizeof(fe));
		feature_writers[i].write(g);
		fe.header.size = out_tell(&g->out) - offset;
		fe.feat_id = feature_writers[i].feat;
		err = patch_header(g, offset, &fe, sizeof(fe));
		if (err)
			return err;
	}
	/* The end of the features */
	fe.header.size = sizeof(fe);
	fe.feat_id = HEADER_LAST_FEATURE;
	out_write(&g->out, &fe, sizeof(fe));
	return 0;
}

/* PERF_RECORD_HEADER_TRACING_DATA, the tracing data after it */
static int write_tracing_data_record(struct kvmgen *g)
{
	struct perf_record_header_tracing_data td = {
		.header.type = PERF_RECORD_HEADER_TRACING_DATA,
		.header.size = sizeof(td),
	};
	u64 offset = out_tell(&g->out);

	out_zeros(&g->out, sizeof(td));
	write_tracing_data(g);
	out_zeros(&g->out, ALIGN(out_tell(&g->out), sizeof(u64)) - out_tell(&g->out));
	td.size = out_tell(&g->out) - offset - sizeof(td);
	return patch_header(g, offset, &td, sizeof(td));
}

/* +pipe: what perf record -o - writes, in the order it writes it */
static int write_pipe_data(struct kvmgen *g)
{
	struct perf_pipe_file_header hdr = {
		.magic = PERF_FILE_MAGIC,
		.size = sizeof(hdr),
	};
	int err;

	out_write(&g->out, &hdr, sizeof(hdr));
	write_attr_records(g);
	err = write_feature_records(g);
	if (!err)
		err = write_tracing_data_record(g);
	if (err)
		return err;
	write_events(g);
	out_flush(&g->out);
	return g->out.error ? -g->out.error : 0;
}

/*
 * Layout: header, sample ids, attrs, data, feature section table, feature
 * sections.  The header goes in last, when all offsets are known.
 */
static int write_perf_data(struct kvmgen *g)
{
	struct perf_file_header hdr;
	u64 ids_offset = sizeof(hdr);
	unsigned int i;
	int err;

	if (g->layout.pipe)
		return write_pipe_data(g);
	memset(&hdr, 0, sizeof(hdr));
	hdr.magic = PERF_FILE_MAGIC;
	hdr.size = sizeof(hdr);
	hdr.attr_size = sizeof(struct perf_event_attr) +
			sizeof(struct perf_file_section);

	out_zeros(&g->out, sizeof(hdr));
	for (i = 0; i < nr_evsels(g); i++)
		write_evsel_ids(g, i);

	hdr.attrs.offset = out_tell(&g->out);
	write_attrs(g, ids_offset);
	hdr.attrs.size = out_tell(&g->out) - hdr.attrs.offset;

	hdr.data.offset = out_tell(&g->out);
	write_events(g);
	hdr.data.size = out_tell(&g->out) - hdr.data.offset;

	err = write_features(g, &hdr);
	if (err)
		return err;
	return pwrite_all(g->out.fd, &hdr, sizeof(hdr), 0);
}

/*
 * A vcpu as .truth names it: its id, or pid/id when there are two VMs, or
 * '?' where the events do not have it (then its tid says which it is).
 */
static void vcpu_label(const struct kvmgen *g, const struct vcpu *v,
		       char *buf, size_t size)
{
	if (arch_of(g->sc)->no_vcpu_id)
		snprintf(buf, size, "?");
	else if (g->sc->nr_vms > 1)
		snprintf(buf, size, "%u/%u", v->vm->pid, v->id);
	else
		snprintf(buf, size, "%u", v->id);
}

static void write_truth_header(const struct kvmgen *g, FILE *fp)
{
	const struct scenario *sc = g->sc;
	const struct truth *t = &g->truth;
	char label[32];
	u64 total = 0;
	unsigned int i;

	if (sc->nr_vms == 1) {
		fprintf(fp, "# kvmgen scenario %s exits %u pid %u vcpus %u cpus %d\n",
			sc->name, g->nr_exits, sc->vms[0].pid, g->nr_vcpus,
			NR_HOST_CPUS);
	} else {
		fprintf(fp, "# kvmgen scenario %s exits %u vms %u vcpus %u cpus %d\n",
			sc->name, g->nr_exits, sc->nr_vms, g->nr_vcpus,
			NR_HOST_CPUS);
		for (i = 0; i < sc->nr_vms; i++)
			fprintf(fp, "# vm pid %u comm %s vcpus %u\n",
				sc->vms[i].pid, sc->vms[i].comm,
				sc->vms[i].nr_vcpus);
	}
	for (i = 0; i < g->nr_vcpus; i++) {
		vcpu_label(g, &g->vcpus[i], label, sizeof(label));
		fprintf(fp, "# vcpu %s tid %u\n", label, g->vcpus[i].tid);
	}
	for (i = 0; i < g->nr_tps; i++)
		total += t->tp_samples[g->tps[i]];
	fprintf(fp, "# samples total %llu", (unsigned long long)total);
	for (i = 0; i < g->nr_tps; i++)
		fprintf(fp, " %s:%s %llu", tp_system(g, g->tps[i]),
			tp_name(g, g->tps[i]),
			(unsigned long long)t->tp_samples[g->tps[i]]);
	fprintf(fp, "\n# orphan_entries %llu migrations %llu lost %llu\n",
		(unsigned long long)t->orphan_entries,
		(unsigned long long)t->migrations,
		(unsigned long long)t->lost);
	if (g->nr_exits > EVENTS_MAX_EXITS)
		fprintf(fp, "# events not written: exits %u > %d\n",
			g->nr_exits, EVENTS_MAX_EXITS);
	else
		fprintf(fp, "# events in <data>.events: analysis vcpu pid key time_ns duration_ns rip\n");
	fprintf(fp, "# analysis vcpu key samples paired total_ns\n");
}

static void write_truth_cell(FILE *fp, const char *analysis, const char *vcpu,
			     const char *key, const struct truth_cell *cell)
{
	if (!cell->samples)
		return;
	fprintf(fp, "%s %s %s %llu %llu %llu\n", analysis, vcpu, key,
		(unsigned long long)cell->samples,
		(unsigned long long)cell->paired,
		(unsigned long long)cell->total_ns);
}

/*
 * One analysis' lines: cells[vcpu * stride + key].  Without vcpu ids, one
 * line per key, summed over the vcpus.
 */
static void write_truth_table(const struct kvmgen *g, FILE *fp,
			      enum analysis an, const struct truth_cell *cells,
			      size_t stride, unsigned int nr_keys,
			      const char (*keys)[KEY_MAX])
{
	unsigned int vcpu, i;
	char label[32];

	if (arch_of(g->sc)->no_vcpu_id) {
		for (i = 0; i < nr_keys; i++) {
			struct truth_cell sum = { 0 };

			for (vcpu = 0; vcpu < g->nr_vcpus; vcpu++) {
				const struct truth_cell *c;

				c = &cells[vcpu * stride + i];
				sum.samples += c->samples;
				sum.paired += c->paired;
				sum.total_ns += c->total_ns;
			}
			write_truth_cell(fp, analysis_names[an], "?", keys[i],
					 &sum);
		}
		return;
	}
	for (vcpu = 0; vcpu < g->nr_vcpus; vcpu++) {
		vcpu_label(g, &g->vcpus[vcpu], label, sizeof(label));
		for (i = 0; i < nr_keys; i++)
			write_truth_cell(fp, analysis_names[an], label, keys[i],
					 &cells[vcpu * stride + i]);
	}
}

static void write_truth_cells(const struct kvmgen *g, FILE *fp)
{
	const struct truth *t = &g->truth;

	write_truth_table(g, fp, AN_VMEXIT, &t->vmexit[0][0],
			  MAX_EXIT_REASONS, g->sc->nr_exits, g->exit_keys);
	write_truth_table(g, fp, AN_MMIO, &t->mmio[0][0], NR_MMIO_TARGETS,
			  NR_MMIO_TARGETS, g->mmio_keys);
	write_truth_table(g, fp, AN_IOPORT, &t->ioport[0][0], NR_PIO_TARGETS,
			  NR_PIO_TARGETS, g->pio_keys);
	write_truth_table(g, fp, AN_MSR, &t->msr[0][0], NR_MSR_TARGETS,
			  NR_MSR_TARGETS, g->msr_keys);
	write_truth_table(g, fp, AN_HYPERCALL, &t->hypercall[0][0],
			  MAX_HC_TARGETS, arch_of(g->sc)->nr_hcs, g->hc_keys);
	write_truth_table(g, fp, AN_HALT, &t->halt[0][0], NR_HALT_KEYS,
			  NR_HALT_KEYS, g->halt_keys);
}

/* x86: the number in decimal; others: in hex, and the name if known */
static void hc_key(struct kvmgen *g, unsigned int i)
{
	const struct hc_target *hc = &arch_of(g->sc)->hcs[i];
	unsigned long long nr = hc->nr;

	if (g->sc->arch == ARCH_X86)
		snprintf(g->hc_keys[i], KEY_MAX, "%llu", nr);
	else if (hc->name)
		snprintf(g->hc_keys[i], KEY_MAX, "%#llx/%s", nr, hc->name);
	else
		snprintf(g->hc_keys[i], KEY_MAX, "%#llx", nr);
}

static void init_keys(struct kvmgen *g)
{
	unsigned int i;

	for (i = 0; i < g->sc->nr_exits; i++) {
		const struct exit_desc *desc = &g->sc->exits[i];

		if (desc->name)
			snprintf(g->exit_keys[i], KEY_MAX, "%s", desc->name);
		else
			snprintf(g->exit_keys[i], KEY_MAX, "%#x", desc->code);
	}
	for (i = 0; i < NR_MMIO_TARGETS; i++) {
		const struct mmio_target *m = &mmio_targets[i];

		snprintf(g->mmio_keys[i], KEY_MAX, "%#llx:%s",
			 (unsigned long long)m->gpa,
			 m->type == KVM_TRACE_MMIO_WRITE ? "W" : "R");
	}
	for (i = 0; i < NR_PIO_TARGETS; i++) {
		const struct pio_target *p = &pio_targets[i];

		snprintf(g->pio_keys[i], KEY_MAX, "%#x:%s", p->port,
			 p->rw == KVM_PIO_OUT ? "POUT" : "PIN");
	}
	for (i = 0; i < NR_MSR_TARGETS; i++) {
		const struct msr_target *m = &msr_targets[i];

		snprintf(g->msr_keys[i], KEY_MAX, "%#x:%s", m->index,
			 m->dir == MSR_WR ? "W" : "R");
	}
	for (i = 0; i < arch_of(g->sc)->nr_hcs; i++)
		hc_key(g, i);
	for (i = 0; i < NR_HALT_KEYS; i++)
		snprintf(g->halt_keys[i], KEY_MAX, "%s", halt_keys[i]);
}

static int write_truth(const struct kvmgen *g, const char *data_path)
{
	char path[PATH_MAX];
	FILE *fp;
	int err = 0;

	if (snprintf(path, sizeof(path), "%s.truth", data_path) >=
	    (int)sizeof(path))
		return -ENAMETOOLONG;
	fp = fopen(path, "w");
	if (!fp)
		return -errno;
	write_truth_header(g, fp);
	write_truth_cells(g, fp);
	if (ferror(fp))
		err = -EIO;
	if (fclose(fp) && !err)
		err = -errno;
	return err;
}

/*
 * OUT.data.events is opened before the data is written, and filled while
 * it is.  Above EVENTS_MAX_EXITS, an old one is removed instead: it would
 * not match the new data.
 */
static int open_events(struct kvmgen *g, const char *data_path)
{
	struct events *ev = &g->events;
	char path[PATH_MAX];

	if (snprintf(path, sizeof(path), "%s.events", data_path) >=
	    (int)sizeof(path))
		return -ENAMETOOLONG;
	if (g->nr_exits > EVENTS_MAX_EXITS) {
		if (unlink(path) && errno != ENOENT)
			return -errno;
		return 0;
	}
	ev->out.buf = malloc(OUT_BUF_SIZE);
	if (!ev->out.buf || events_grow(ev))
		return -ENOMEM;
	ev->out.fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (ev->out.fd < 0)
		return -errno;
	ev->enabled = true;
	ev->no_vcpu_id = arch_of(g->sc)->no_vcpu_id;
	return 0;
}

static int close_events(struct kvmgen *g)
{
	struct events *ev = &g->events;
	int err = -ev->error;

	if (!err)
		err = -ev->out.error;
	if (ev->out.fd >= 0 && close(ev->out.fd) && !err)
		err = -errno;
	free(ev->out.buf);
	free(ev->lines);
	return err;
}

static const struct scenario *find_scenario(const char *name)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(scenarios); i++) {
		if (!strcmp(scenarios[i].name, name))
			return &scenarios[i];
	}
	return NULL;
}

/* perf record options that change the layout, as SCENARIO+MODIFIER... */
static const struct {
	const char *name;
	u64 sample_type;	/* added */
	u64 read_format;	/* added */
} layout_modifiers[] = {
	{ "system-wide",	PERF_SAMPLE_IDENTIFIER,	0 },		/* -a */
	{ "callchain",		PERF_SAMPLE_CALLCHAIN,	0 },		/* -g */
	{ "dwarf",		PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER |
				PERF_SAMPLE_STACK_USER,	0 },	/* --call-graph dwarf,512 */
	{ "data",		PERF_SAMPLE_ADDR | PERF_SAMPLE_DATA_SRC, 0 },	/* -d */
	{ "read",		PERF_SAMPLE_READ,	PERF_FORMAT_GROUP },	/* '{...}:S' */
	{ "single",		0,			0 },		/* -e kvm:kvm_exit */
	{ "pipe",		0,			0 },		/* -o - */
	{ "threads",		0,			0 },		/* --threads */
	{ "lost",		0,			0 },		/* -m 1 */
};

static int parse_layout(struct kvmgen *g, char *modifiers)
{
	char *name;
	unsigned int i;

	g->layout.sample_type = KVM_SAMPLE_TYPE;
	g->layout.read_format = KVM_READ_FORMAT;
	while ((name = strsep(&modifiers, "+")) != NULL) {
		for (i = 0; i < ARRAY_SIZE(layout_modifiers); i++) {
			if (!strcmp(name, layout_modifiers[i].name))
				break;
		}
		if (i == ARRAY_SIZE(layout_modifiers))
			return -EINVAL;
		g->layout.sample_type |= layout_modifiers[i].sample_type;
		g->layout.read_format |= layout_modifiers[i].read_format;
		g->layout.system_wide |= !strcmp(name, "system-wide");
		g->layout.single |= !strcmp(name, "single");
		g->layout.pipe |= !strcmp(name, "pipe");
		g->layout.threads |= !strcmp(name, "threads");
		g->layout.lost |= !strcmp(name, "lost");
	}
	if (g->layout.threads && (g->layout.pipe || g->sc->percpu))
		return -EINVAL;
	/* perf samples an id only with several events, ... */
	if (g->layout.single)
		g->layout.sample_type &= ~PERF_SAMPLE_ID;
	/* ... and as IDENTIFIER when their sample_types differ. */
	if (g->layout.system_wide)
		g->layout.sample_type &= ~PERF_SAMPLE_ID;
	return 0;
}

static int kvmgen_usage(void)
{
	unsigned int i;

	fprintf(stderr,
		"usage: perf test -w kvmgen OUT.data [SCENARIO[+MODIFIER...] [EXITS]]\n"
		"scenarios:");
	for (i = 0; i < ARRAY_SIZE(scenarios); i++)
		fprintf(stderr, " %s", scenarios[i].name);
	fprintf(stderr, "\nmodifiers:");
	for (i = 0; i < ARRAY_SIZE(layout_modifiers); i++)
		fprintf(stderr, " %s", layout_modifiers[i].name);
	fprintf(stderr, "\n");
	return -1;
}

/*
 * +threads: PATH/data holds the header and the side-band records, and
 * PATH/data.N cpu N's samples, as perf record --threads writes them with
 * one thread per cpu.  Returns PATH/data's fd.
 */
static int open_dir(struct kvmgen *g, const char *path)
{
	char name[PATH_MAX];
	unsigned int cpu;

	if (mkdir(path, 0755) && errno != EEXIST)
		return -1;
	for (cpu = 0; cpu < NR_HOST_CPUS; cpu++) {
		snprintf(name, sizeof(name), "%s/data.%u", path, cpu);
		g->cpu_out[cpu].fd = open(name, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		g->cpu_out[cpu].buf = malloc(OUT_BUF_SIZE);
		if (g->cpu_out[cpu].fd < 0 || !g->cpu_out[cpu].buf)
			return -1;
	}
	snprintf(name, sizeof(name), "%s/data", path);
	return open(name, O_WRONLY | O_CREAT | O_TRUNC, 0644);
}

static int close_dir(struct kvmgen *g)
{
	unsigned int cpu;
	int err = 0;

	for (cpu = 0; cpu < NR_HOST_CPUS; cpu++) {
		struct out_file *o = &g->cpu_out[cpu];

		if (o->buf)
			out_flush(o);
		if (o->error && !err)
			err = -o->error;
		if (o->fd >= 0 && close(o->fd) && !err)
			err = -errno;
		free(o->buf);
	}
	return err;
}

static int generate(struct kvmgen *g, const char *path)
{
	int err, err2;

	init_tps(g);
	init_keys(g);
	g->out.fd = g->layout.threads ? open_dir(g, path) :
		    open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (g->out.fd < 0)
		return -errno;
	err = open_events(g, path);
	if (!err)
		err = write_perf_data(g);
	if (close(g->out.fd) && !err)
		err = -errno;
	if (g->layout.threads) {
		err2 = close_dir(g);
		if (!err)
			err = err2;
	}
	err2 = close_events(g);
	if (!err)
		err = err2;
	if (!err)
		err = write_truth(g, path);
	return err;
}

static int alloc_percpu(struct kvmgen *g)
{
	struct percpu_rounds *pc = calloc(1, sizeof(*pc));

	if (!pc)
		return -ENOMEM;
	g->percpu = pc;
	pc->cur = calloc(SAMPLES_PER_ROUND, sizeof(*pc->cur));
	pc->late = calloc(SAMPLES_PER_ROUND, sizeof(*pc->late));
	if (!pc->cur || !pc->late)
		return -ENOMEM;
	pc->rng = PERCPU_LATE_SEED;
	return 0;
}

static void free_percpu(struct kvmgen *g)
{
	if (!g->percpu)
		return;
	free(g->percpu->cur);
	free(g->percpu->late);
	free(g->percpu);
}

static int kvmgen(int argc, const char **argv)
{
	char name[64], *modifiers;
	const struct scenario *sc;
	unsigned long exits = DEFAULT_EXITS;
	struct kvmgen *g;
	char *end;
	int err;

	snprintf(name, sizeof(name), "%s", argc > 1 ? argv[1] : "vmx");
	modifiers = strchr(name, '+');
	if (modifiers)
		*modifiers++ = '\0';
	sc = find_scenario(name);
	if (argc < 1 || !sc)
		return kvmgen_usage();
	if (argc > 2) {
		errno = 0;
		exits = strtoul(argv[2], &end, 0);
		if (errno || *end || exits < count_vcpus(sc) ||
		    exits > UINT_MAX)
			return kvmgen_usage();
	}

	g = calloc(1, sizeof(*g));
	if (!g)
		return -1;
	g->out.buf = malloc(OUT_BUF_SIZE);
	if (!g->out.buf) {
		free(g);
		return -1;
	}
	g->sc = sc;
	if (parse_layout(g, modifiers)) {
		free(g->out.buf);
		free(g);
		return kvmgen_usage();
	}
	g->nr_exits = exits;
	g->nr_vcpus = count_vcpus(sc);
	g->events.out.fd = -1;
	g->rng = sc->seed;

	err = sc->percpu ? alloc_percpu(g) : 0;
	if (!err)
		err = generate(g, argv[0]);
	if (err)
		fprintf(stderr, "%s: writing %s: %s\n", __func__, argv[0],
			strerror(-err));
	free_percpu(g);
	free(g->out.buf);
	free(g);
	return err ? -1 : 0;
}

DEFINE_WORKLOAD(kvmgen);
