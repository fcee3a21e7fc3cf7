// SPDX-License-Identifier: GPL-2.0
/*
 * kvmgen: write a synthetic perf.data file like 'perf kvm stat record'
 * produces, plus the statistics a correct KVM exit analysis must find in it.
 *
 *   kvmgen OUT.data [SCENARIO[+MODIFIER...] [EXITS]]
 *
 * A test helper of perf kvm-events, built beside perf but not into it: it
 * links no perf object, only the tree's headers for the file format's
 * types and constants, so that what it writes is checked against perf's
 * reader rather than made by it.  The files of this folder, by concern:
 *   kvmgen.c          this comment, argument parsing, main()
 *   header.c          the perf.data header, attributes, features and
 *                     tracing data, and their pipe and --threads layouts
 *   records.c         the sample records and their layouts, rounds, losses
 *   formats-x86.c     the x86 tracepoint formats (6.12, 5.4, nested, halt)
 *   formats-arch.c    those of arm64, s390, powerpc, riscv and loongarch
 *   scenarios.c       the exits, accesses and VMs of each scenario
 *   sim-plan.c        the simulator: what each vcpu does next
 *   sim-emit.c        the simulator: the events of each step
 *   truth.c           the ground truth, OUT.data.truth and OUT.data.events
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
 * The file is laid out as 'perf record -R -c 1 -p PID' of the tracepoints
 * of 'perf kvm-events record --event all' (and perf kvm stat record)
 * writes it: the attributes perf record gives the tracepoints (sample_type
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
 *   names        perf kvm-events record's HEADER_KVM_VMS: the VMs' names,
 *                uuids and cgroups of vm_names[] (header.c); .truth has
 *                them as "# vm_name {JSON}" lines, the report's vms[]
 *                entries; not with pipe, where record names nothing
 *   switch       --switch-events: attr.context_switch on the tracking
 *                evsel, and the vcpu threads' context switches (see
 *                below); with system-wide, PERF_RECORD_SWITCH_CPU_WIDE
 *                records of every thread on every cpu, else
 *                PERF_RECORD_SWITCH records of the vcpu threads (not with
 *                vmx-percpu)
 *
 * Settings after them give the recording the shape of another host's:
 *   round=N      a FINISHED_ROUND every N samples, not every
 *                SAMPLES_PER_ROUND: perf record's pass over the ring
 *                buffers finds a few samples at moderate rates, many for
 *                a busy VM
 *   vcpus=N      the one VM has N vcpus (1 to 64), on N host cpus (at
 *                least 4); vcpu i from 4 up is thread pid + 11 + i
 *   cpus=pinned  each vcpu stays on its host cpu (vcpupin, taskset), where
 *                a halted one may else wake up on another
 *   events=vmexit|default  only the tracepoints perf kvm-events record
 *                --event vmexit or its default records: no kvm_msr,
 *                kvm_userspace_exit, ...; .truth and .events have the
 *                vmexit analysis only (the others time other spans
 *                without them)
 *   names=corrupt|cut  +names, with a source no perf knows in the last VM,
 *                or the section cut short in its last string: .truth has
 *                no "# vm_name" line
 *   ids=spread   the events' ids ID_SPREAD apart, not one after another:
 *                the kernel numbers the events of all tools in one
 *                sequence, and a power of two apart they share every
 *                slot of a table indexed by the ids' low bits
 *
 * All scenarios have 4 vcpus (threads 4251, 4249, 4252 and 4250 for vcpus
 * 0-3) of pid 4242, except two-vms.  The files are written in this host's
 * byte order, whatever the architecture.
 *
 * EXITS is the number of kvm_exit events (default 1000), split over the
 * vcpus.  OUT.data.truth holds '#' comment lines (samples per tracepoint,
 * other totals, the first and last sample times of the header and "# idle
 * exits: NAME...", the exits in which a vcpu waits for work), then one
 * line per analysis, vcpu and key:
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
 *   <analysis> <vcpu> <pid> <key> <time_ns> <duration_ns> <rip> <tid>
 *
 * <vcpu> is the vcpu id, <pid> its VM's, <tid> its thread's, <rip> the
 * guest rip of the vcpu's last kvm_exit, and <key> is as in .truth:
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
 * +switch: a vcpu thread runs at each of its samples, and leaves its cpu
 * only between two of them.  In 10% of the exits (SWITCH_EXIT_PCT) it is
 * preempted by a hog thread or blocks, a third of those twice; in 4% of
 * its guest runs it is preempted (counted in no event); in every halt that
 * waits (HLT and the like; vmx-halt's wait halts, not its polls) it blocks
 * and frees its cpu, where a kworker may run, and it may wake up on
 * another.  System-wide, each switch on a cpu is a switch-out of the
 * thread that ran and a switch-in of the next, 1 ns later: a hog thread
 * (pid 7070, a thread per cpu), the idle task (pid 0) or a kworker.  An
 * event timed from a begin to an end sample of a vcpu thread is then
 * split: offcpu is the time of the thread's off periods (a switch-out to
 * its next switch-in) inside the event, preempted the part whose
 * switch-out had PERF_RECORD_MISC_SWITCH_OUT_PREEMPT, blocked the rest,
 * oncpu the duration minus offcpu; halt events are not split.  .events
 * lines then end with <offcpu_ns> <preempted_ns> <blocked_ns> ('-' for an
 * event that is not split), .truth lines with <oncpu_ns> <offcpu_ns>
 * <preempted_ns> <blocked_ns> <switched> (the events with offcpu > 0;
 * all '-' for halt keys), and the .truth header has "# switch_records N".
 * System-wide, it also has "# idle_switches N", the idle task's records.
 *
 * See the account_*() functions for what is counted and timed.  All choices
 * come from a fixed-seed PRNG, so the same arguments always give the same
 * bytes.  Like 'perf record', the file is written in host byte order.
 *
 * The samples are written in time order, with a FINISHED_ROUND after every
 * SAMPLES_PER_ROUND of them, except in vmx-percpu.  There each round still
 * covers the time window of SAMPLES_PER_ROUND samples, but holds them
 * grouped by cpu (cpu 0's in time order, then cpu 1's, ...), as 'perf
 * record' drains one ring buffer after the other.  The window's last
 * samples, one in 20, are written one round late: at the head of their
 * cpu's group in the next round, as what the kernel wrote after perf record
 * read the ring buffer (so a recording of one round, below about 370
 * exits, has none late).  Each cpu's samples stay in time order across
 * the file; a vcpu that moves to a cpu drained earlier has its samples read
 * out of time order.  The late ones are no older than what was seen before
 * the previous FINISHED_ROUND, as perf's ordered events need, so the events,
 * .truth (but for its scenario name) and .events are those of vmx.
 */
#include "kvmgen.h"

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
	{ "switch",		0,			0 },		/* --switch-events */
	{ "names",		0,			0 },		/* kvm-events record */
};

/* What perf kvm-events record --event vmexit and its default record */
#define VMEXIT_TPS	(BIT_ULL(TP_KVM_EXIT) | BIT_ULL(TP_KVM_ENTRY) |	\
			 BIT_ULL(TP_NESTED_VMEXIT) | BIT_ULL(TP_NESTED_INJECT))
#define DEFAULT_TPS	(VMEXIT_TPS | BIT_ULL(TP_KVM_MMIO) | BIT_ULL(TP_KVM_PIO))

static int parse_number(const char *s, unsigned long min, unsigned long max,
			unsigned int *val)
{
	unsigned long n;
	char *end;

	errno = 0;
	n = strtoul(s, &end, 0);
	if (errno || end == s || *end || n < min || n > max)
		return -EINVAL;
	*val = n;
	return 0;
}

/*
 * +vcpus=N: the scenario's one VM with N vcpus, on as many host cpus
 * (at least NR_HOST_CPUS), as a host given to one big VM runs it
 */
static int resize_vm(struct kvmgen *g, const char *value)
{
	const struct vm_desc *vm = &g->sc->vms[0];
	unsigned int n, i;

	/* each vcpu makes an exit at least */
	if (g->sc->nr_vms != 1 || parse_number(value, 1, MAX_VCPUS, &n) || n > g->nr_exits)
		return -EINVAL;
	for (i = 0; i < n; i++)
		g->sized_tids[i] = i < vm->nr_vcpus ? vm->tids[i] :
				   vm->pid + 11 + i;
	g->sized_vm = *vm;
	g->sized_vm.nr_vcpus = n;
	g->sized_vm.tids = g->sized_tids;
	g->sized_sc = *g->sc;
	g->sized_sc.vms = &g->sized_vm;
	g->sc = &g->sized_sc;
	g->nr_cpus = max_t(unsigned int, n, NR_HOST_CPUS);
	return 0;
}

/* +names=corrupt|cut: a HEADER_KVM_VMS section that perf must not trust */
static int parse_names(struct kvmgen *g, const char *value)
{
	if (!strcmp(value, "corrupt"))
		g->layout.names = NAMES_CORRUPT;
	else if (!strcmp(value, "cut"))
		g->layout.names = NAMES_CUT;
	else
		return -EINVAL;
	return 0;
}

/*
 * The modifiers with a value: round=N, vcpus=N, cpus=pinned,
 * events=vmexit|default, ids=spread, names=corrupt|cut
 */
static int parse_setting(struct kvmgen *g, char *name)
{
	char *value = strchr(name, '=');

	*value++ = '\0';
	if (!strcmp(name, "round"))
		return parse_number(value, 1, 1000000, &g->layout.round_size);
	if (!strcmp(name, "vcpus"))
		return resize_vm(g, value);
	if (!strcmp(name, "cpus") && !strcmp(value, "pinned")) {
		g->layout.pinned = true;
		return 0;
	}
	if (!strcmp(name, "names"))
		return parse_names(g, value);
	if (!strcmp(name, "ids") && !strcmp(value, "spread")) {
		g->layout.id_stride = ID_SPREAD;
		return 0;
	}
	if (strcmp(name, "events") || g->sc->arch != ARCH_X86)
		return -EINVAL;
	if (!strcmp(value, "vmexit"))
		g->layout.tp_mask = VMEXIT_TPS;
	else if (!strcmp(value, "default"))
		g->layout.tp_mask = DEFAULT_TPS;
	else
		return -EINVAL;
	return 0;
}

static int parse_layout(struct kvmgen *g, char *modifiers)
{
	char *name;
	unsigned int i;

	g->layout.sample_type = KVM_SAMPLE_TYPE;
	g->layout.read_format = KVM_READ_FORMAT;
	g->layout.round_size = SAMPLES_PER_ROUND;
	g->layout.id_stride = 1;
	g->nr_cpus = NR_HOST_CPUS;
	while ((name = strsep(&modifiers, "+")) != NULL) {
		if (strchr(name, '=')) {
			if (parse_setting(g, name))
				return -EINVAL;
			continue;
		}
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
		g->layout.switch_events |= !strcmp(name, "switch");
		if (!strcmp(name, "names"))
			g->layout.names = NAMES_OK;
	}
	/* perf kvm-events record names no VM in a pipe */
	if (g->layout.names && g->layout.pipe)
		return -EINVAL;
	/* with only some tracepoints, the truth is vmexit's only */
	if (g->layout.tp_mask && (g->layout.single || g->sc->cut_off))
		return -EINVAL;
	if (g->layout.threads && (g->layout.pipe || g->sc->percpu))
		return -EINVAL;
	/* vmx-percpu's rounds hold samples only */
	if (g->layout.switch_events && g->sc->percpu)
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
		"usage: kvmgen OUT.data [SCENARIO[+MODIFIER...] [EXITS]]\n"
		"scenarios:");
	for (i = 0; i < nr_scenarios; i++)
		fprintf(stderr, " %s", scenarios[i].name);
	fprintf(stderr, "\nmodifiers:");
	for (i = 0; i < ARRAY_SIZE(layout_modifiers); i++)
		fprintf(stderr, " %s", layout_modifiers[i].name);
	fprintf(stderr, "\n");
	fprintf(stderr,
		"settings: round=SAMPLES vcpus=1..%d events=vmexit|default names=corrupt|cut\n",
		MAX_VCPUS);
	return 2;
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
	for (cpu = 0; cpu < g->nr_cpus; cpu++) {
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

	for (cpu = 0; cpu < g->nr_cpus; cpu++) {
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
	pc->cur = calloc(g->layout.round_size, sizeof(*pc->cur));
	pc->late = calloc(g->layout.round_size, sizeof(*pc->late));
	if (!pc->cur || !pc->late)
		return -ENOMEM;
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

int main(int argc, char **argv)
{
	char name[64], *modifiers;
	const struct scenario *sc;
	unsigned long exits = DEFAULT_EXITS;
	const char *path;
	struct kvmgen *g;
	char *end;
	int err;

	if (argc < 2 || argc > 4)
		return kvmgen_usage();
	path = argv[1];
	snprintf(name, sizeof(name), "%s", argc > 2 ? argv[2] : "vmx");
	modifiers = strchr(name, '+');
	if (modifiers)
		*modifiers++ = '\0';
	sc = find_scenario(name);
	if (!sc)
		return kvmgen_usage();
	if (argc > 3) {
		errno = 0;
		exits = strtoul(argv[3], &end, 0);
		if (errno || *end || exits < count_vcpus(sc) ||
		    exits > UINT_MAX)
			return kvmgen_usage();
	}

	g = calloc(1, sizeof(*g));
	if (!g)
		return 1;
	g->out.buf = malloc(OUT_BUF_SIZE);
	if (!g->out.buf) {
		free(g);
		return 1;
	}
	g->sc = sc;
	g->nr_exits = exits;
	if (parse_layout(g, modifiers)) {
		free(g->out.buf);
		free(g);
		return kvmgen_usage();
	}
	g->nr_vcpus = count_vcpus(g->sc);
	g->events.out.fd = -1;
	g->rng = sc->seed;
	g->sw_rng = sc->seed ^ SWITCH_SEED;

	err = sc->percpu ? alloc_percpu(g) : 0;
	if (!err)
		err = generate(g, path);
	if (err)
		fprintf(stderr, "kvmgen: writing %s: %s\n", path, strerror(-err));
	free_percpu(g);
	free(g->out.buf);
	free(g);
	return err ? 1 : 0;
}
