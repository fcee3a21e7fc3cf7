/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kvmgen's private header.  The generator's state (struct kvmgen) holds
 * the scenario, the vcpus, the output files and the ground truth, so
 * their types are shared by every file; the functions are grouped by the
 * file that defines them.
 */
#ifndef KVMGEN_H
#define KVMGEN_H

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <linux/align.h>
#include <linux/bits.h>
#include <linux/kernel.h>
#include <linux/perf_event.h>
#include <linux/types.h>
#include <perf/event.h>
#include "util/data.h"
#include "util/header.h"

#define MAX_VCPUS		64	/* over all VMs of a scenario, or vcpus=N */
/* The host's cpus: NR_HOST_CPUS, or with vcpus=N above it, N */
#define NR_HOST_CPUS		4
#define MAX_HOST_CPUS		MAX_VCPUS
#define DEFAULT_EXITS		1000
/* Above this many exits, no OUT.data.events: see the comment on top */
#define EVENTS_MAX_EXITS	2000000
#define EVENTS_QUEUE_MIN	4096
#define EVENTS_LINE_MAX		160
#define KEY_MAX			48
/* perf_clock() of a host that booted about 20 minutes ago */
#define FIRST_EVENT_TIME	1234567890123ULL
/* One perf event per tracepoint and cpu: id = base + tp * cpus + cpu */
#define SAMPLE_ID_BASE		1000
/* +ids=spread: the distance between two ids */
#define ID_SPREAD		(1ULL << 20)
#define SAMPLES_PER_ROUND	1024
/* vmx-percpu: room for any sample, and the samples written a round late */
#define PERCPU_RECORD_MAX	1024
#define PERCPU_LATE_PCT		5
#define OUT_BUF_SIZE		(4U << 20)
#define MAX_STEPS		24
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
	/*
	 * +switch: the vcpu thread leaves its cpu (detail: SWITCH_PREEMPT,
	 * SWITCH_BLOCK, SWITCH_HALT) and comes back; a kworker runs on the
	 * cpu a halted vcpu left (idx: that cpu) and blocks again.
	 */
	STEP_SWITCH_OUT,
	STEP_SWITCH_IN,
	STEP_OTHER_IN,
	STEP_OTHER_OUT,
};

/* STEP_SWITCH_OUT's detail */
#define SWITCH_PREEMPT		0	/* a hog thread takes the cpu */
#define SWITCH_BLOCK		1	/* the thread sleeps, the cpu idles */
#define SWITCH_HALT		2	/* the same in a halt, and the cpu is free */

/*
 * +switch: the share of exits (percent) in which the vcpu thread is
 * preempted or blocks, a third of them twice, and of guest runs in which
 * it is preempted.  A halt that waits always blocks.
 */
#define SWITCH_EXIT_PCT		10
#define SWITCH_GUEST_PCT	4
#define SWITCH_SEED		0x2545f4914f6cdd1dULL
#define MAX_OFF_PERIODS		8
/* The threads that run when a vcpu thread does not, in system-wide mode */
#define HOG_PID			7070
#define KWORKER_TID_BASE	60

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

#define KVM_MMIO_PRINT_FMT						\
	"\"mmio %s len %u gpa 0x%llx val 0x%llx\", "			\
	"__print_symbolic(REC->type, { 0, \"unsatisfied-read\" }, "	\
	"{ 1, \"read\" }, { 2, \"write\" }), REC->len, REC->gpa, REC->val"

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

/* A VM process and its vcpu threads */
struct vm_desc {
	u32 pid;
	const char *comm;
	unsigned int nr_vcpus;
	const u32 *tids;	/* by vcpu id */
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
	/* +switch: its off-cpu periods since its last kvm_exit */
	struct off_period {
		u64 out;	/* switch-out record's time */
		u64 in;		/* the next switch-in record's */
		bool preempted;
	} offs[MAX_OFF_PERIODS];
	unsigned int nr_offs;
	bool off;		/* switched out, off[nr_offs] open */
	bool wake_intr;		/* woken from a halt: kvm_entry's intr_info */
};

/* A thread as a switch record names it */
struct sw_task {
	u32 pid;
	u32 tid;
	bool vcpu;		/* a vcpu thread: in per-thread recordings */
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
	/* +switch: the timed events' split, and how many were off cpu */
	u64 offcpu_ns;
	u64 preempted_ns;
	u64 switched;
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
	u64 switch_records;	/* +switch: PERF_RECORD_SWITCH(_CPU_WIDE)s */
	u64 idle_switches;	/* ...of them, the idle task's (system-wide) */
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

/* A line of OUT.data.events, queued until all lines before it are done */
struct event_line {
	const struct vcpu *v;
	const char *key;
	u64 time;
	u64 duration;
	u64 rip;
	enum analysis analysis;
	bool timed;		/* the sample has its end event */
	bool split;		/* +switch: timed and split on and off cpu */
	bool done;		/* nothing more will be known */
	u64 offcpu;
	u64 preempted;
};

/* Lines are numbered from 0; line n is at lines[n & mask]. */
struct events {
	bool enabled;
	bool no_vcpu_id;	/* vcpus written '?' */
	bool split_columns;	/* +switch: offcpu, preempted, blocked */
	bool vmexit_only;	/* +events=: the other analyses' are left out */
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
};

/* What +names writes in HEADER_KVM_VMS */
enum vm_names {
	NAMES_NONE,		/* no section, as perf record and upstream write */
	NAMES_OK,		/* +names: every VM named, see vm_names[] */
	NAMES_CORRUPT,		/* +names=corrupt: a VM's source is unknown */
	NAMES_CUT,		/* +names=cut: the section ends inside a string */
};

/* A VM's name, uuid and cgroup, as perf kvm-events record finds them */
struct vm_name {
	u32 source;		/* 1: qemu's -name, 3: libvirt's scope */
	const char *name;
	const char *uuid;	/* NULL: none */
	const char *cgroup;
};

/* By VM index: the names of the scenarios' VMs with +names */
extern const struct vm_name vm_names[];

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
	bool switch_events;	/* +switch: --switch-events */
	/* +round=N: samples per FINISHED_ROUND, as perf record's passes give */
	unsigned int round_size;
	/* +events=vmexit|default: record --event's tracepoints only, or 0: all */
	u64 tp_mask;
	bool pinned;		/* +cpus=pinned: no vcpu moves to another cpu */
	/* +ids=spread: the ids' distance, 1: perf record's own, one after another */
	u64 id_stride;
	enum vm_names names;	/* +names, +names=corrupt|cut: HEADER_KVM_VMS */
};

struct kvmgen {
	const struct scenario *sc;
	struct layout layout;
	/* +threads: OUT/data.N, cpu N's samples */
	struct out_file cpu_out[MAX_HOST_CPUS];
	unsigned int nr_exits;
	unsigned int nr_vcpus;
	unsigned int nr_cpus;
	/* +vcpus=N: the scenario, with its one VM of N vcpus */
	struct scenario sized_sc;
	struct vm_desc sized_vm;
	u32 sized_tids[MAX_VCPUS];
	u64 rng;
	struct out_file out;
	struct vcpu vcpus[MAX_VCPUS];
	int cpu_owner[MAX_HOST_CPUS];	/* running vcpu idx, or -1 */
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
	/* +switch: its own PRNG, and the thread on each cpu */
	u64 sw_rng;
	struct sw_task cpu_curr[MAX_HOST_CPUS];
};

/* kvmgen.c */

/* header.c */
int write_perf_data(struct kvmgen *g);
void vcpu_label(const struct kvmgen *g, const struct vcpu *v,
		       char *buf, size_t size);

/* records.c */
u64 rng_next(u64 *state);
u32 rng_below(u64 *state, u32 n);
u32 rng_range(u64 *state, u32 lo, u32 hi);
void out_flush(struct out_file *o);
u64 out_tell(const struct out_file *o);
u8 *out_reserve(struct out_file *o, size_t size);
void out_write(struct out_file *o, const void *buf, size_t size);
void out_zeros(struct out_file *o, size_t size);
void out_u8(struct out_file *o, u8 val);
void out_u32(struct out_file *o, u32 val);
void out_u64(struct out_file *o, u64 val);
void out_header_string(struct out_file *o, const char *str);
u8 *put_u32(u8 *p, u32 val);
u64 sample_id(const struct kvmgen *g, enum kvm_tp tp, u32 cpu);
/* The id of system-wide's dummy:u event on @cpu */
u64 dummy_id(const struct kvmgen *g, u32 cpu);
const struct arch_desc *arch_of(const struct scenario *sc);
const char *tp_name(const struct kvmgen *g, enum kvm_tp tp);
const char *tp_system(const struct kvmgen *g, enum kvm_tp tp);
void init_tps(struct kvmgen *g);
void percpu_write_round(struct kvmgen *g, bool last);
void write_finished_round(struct kvmgen *g);
void write_lost_samples(struct kvmgen *g);
void write_tp_sample(struct kvmgen *g, const struct vcpu *v,
			    enum kvm_tp tp, u64 *values);
void write_switch(struct kvmgen *g, u32 cpu, u64 time,
		  const struct sw_task *task, const struct sw_task *next_prev,
		  u16 misc);
char *fmt_str(char *p, const char *str);

/* formats-x86.c */
extern const char * const tp_names[NR_KVM_TPS];
extern const u64 tp_ips[NR_KVM_TPS];
extern const struct tp_field common_fields[];
extern const struct tp_field kvm_mmio_fields[];
extern const struct tp_field kvm_userspace_exit_fields[];
extern const struct tp_format formats_6_12[NR_KVM_TPS];
extern const struct tp_format formats_5_4[NR_KVM_TPS];
extern const struct tp_field arm64_exit_fields[];
extern const struct tp_format formats_6_12_nested[NR_KVM_TPS];
extern const struct tp_format formats_6_12_halt[NR_KVM_TPS];

/* formats-arch.c */
extern const struct tp_format formats_arm64[NR_KVM_TPS];
extern const struct tp_format formats_s390[NR_KVM_TPS];
extern const struct tp_format formats_ppc[NR_KVM_TPS];
extern const struct tp_format formats_riscv[NR_KVM_TPS];
extern const struct tp_format formats_loongarch[NR_KVM_TPS];
extern const struct tp_field kvm_nested_inject_fields[];

/* scenarios.c */
extern const struct mmio_target mmio_targets[NR_MMIO_TARGETS];
extern const struct pio_target pio_targets[NR_PIO_TARGETS];
extern const struct msr_target msr_targets[NR_MSR_TARGETS];
extern const struct arch_desc x86_desc;
extern const struct scenario scenarios[];
extern const unsigned int nr_scenarios;
const struct scenario *find_scenario(const char *name);

/* sim-plan.c */
unsigned int count_vcpus(const struct scenario *sc);
void init_vcpus(struct kvmgen *g);
struct vcpu *next_vcpu(struct kvmgen *g);
void run_step(struct kvmgen *g, struct vcpu *v);
void write_comm(struct kvmgen *g, u32 pid, u32 tid, const char *comm);
void plan_switches(struct kvmgen *g, struct vcpu *v, unsigned int exit_pos);

/* sim-emit.c */
bool any_cpu_free(const struct kvmgen *g);
bool exit_halts(const struct exit_desc *desc);
void emit_kvm_exit(struct kvmgen *g, struct vcpu *v,
			  const struct step *s);
void emit_exit_detail(struct kvmgen *g, struct vcpu *v,
			     const struct step *s);
void emit_hcall_exit(struct kvmgen *g, struct vcpu *v,
			    const struct step *s);
void emit_vcpu_wakeup(struct kvmgen *g, struct vcpu *v,
			     const struct step *s);
void emit_halt_poll_ns(struct kvmgen *g, struct vcpu *v,
			      const struct step *s);
void emit_kvm_entry(struct kvmgen *g, struct vcpu *v,
			   const struct step *s);
void emit_kvm_mmio(struct kvmgen *g, struct vcpu *v,
			  const struct step *s);
void emit_kvm_pio(struct kvmgen *g, struct vcpu *v,
			 const struct step *s);
void emit_kvm_userspace_exit(struct kvmgen *g, struct vcpu *v,
				    const struct step *s);
void emit_kvm_msr(struct kvmgen *g, struct vcpu *v,
			 const struct step *s);
void emit_kvm_hypercall(struct kvmgen *g, struct vcpu *v,
			       const struct step *s);
struct step *add_step(struct vcpu *v, enum kvm_tp tp, u32 delay_ns);
void init_switches(struct kvmgen *g);
void emit_switch_out(struct kvmgen *g, struct vcpu *v, const struct step *s);
void emit_switch_in(struct kvmgen *g, struct vcpu *v);
void emit_other(struct kvmgen *g, struct vcpu *v, const struct step *s);

/* truth.c */
extern const char * const halt_keys[NR_HALT_KEYS];
extern const char * const analysis_names[NR_ANALYSES];
void events_finish(struct events *ev);
void account_exit(struct kvmgen *g, struct vcpu *v, unsigned int idx);
void account_entry(struct kvmgen *g, struct vcpu *v);
void account_mmio(struct kvmgen *g, struct vcpu *v, unsigned int idx,
			 u32 type);
void account_pio(struct kvmgen *g, struct vcpu *v, unsigned int idx);
void account_msr(struct kvmgen *g, struct vcpu *v, unsigned int idx);
void account_hypercall(struct kvmgen *g, struct vcpu *v,
			      unsigned int idx);
void account_hcall_exit(struct kvmgen *g, struct vcpu *v);
void account_halt_start(struct kvmgen *g, struct vcpu *v,
			       enum halt_key key);
void account_wakeup(struct kvmgen *g, struct vcpu *v,
			   enum halt_key key, u64 ns);
void account_halt_poll_ns(struct kvmgen *g, struct vcpu *v,
				 enum halt_key key);
void release_cpu(struct kvmgen *g, struct vcpu *v);
void init_keys(struct kvmgen *g);
int write_truth(const struct kvmgen *g, const char *data_path);
int open_events(struct kvmgen *g, const char *data_path);
int close_events(struct kvmgen *g);

#endif /* KVMGEN_H */
