// SPDX-License-Identifier: GPL-2.0
/*
 * kvmgen: the events of each simulated step, as the tracepoints of the
 * scenario's format, each accounted in the ground truth as it is written.
 */
#include "kvmgen.h"

static void wake_up_on_free_cpu(struct kvmgen *g, struct vcpu *v)
{
	u32 others[MAX_HOST_CPUS], nr_others = 0, cpu;
	bool own_free = g->cpu_owner[v->cpu] < 0, move;

	for (cpu = 0; cpu < g->nr_cpus; cpu++) {
		if (cpu != v->cpu && g->cpu_owner[cpu] < 0)
			others[nr_others++] = cpu;
	}
	move = !own_free || (nr_others && !rng_below(&g->rng, 4));
	/* +cpus=pinned: the same draws, so the same events, on their own cpus */
	if (own_free && g->layout.pinned)
		move = false;
	if (move) {
		/* next_vcpu() waits for a free cpu, so nr_others > 0 */
		v->cpu = others[rng_below(&g->rng, nr_others)];
		if (v->started)
			g->truth.migrations++;
	}
	g->cpu_owner[v->cpu] = v->idx;
	v->halted = false;
	v->started = true;
}

bool any_cpu_free(const struct kvmgen *g)
{
	u32 cpu;

	for (cpu = 0; cpu < g->nr_cpus; cpu++) {
		if (g->cpu_owner[cpu] < 0)
			return true;
	}
	return false;
}

void emit_kvm_exit(struct kvmgen *g, struct vcpu *v,
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
	/* +switch: when the thread blocks (emit_switch_out()) */
	if (exit_halts(desc) && !g->layout.switch_events)
		release_cpu(g, v);
}

/* Exits in which the vcpu may sleep, and give its cpu away */
bool exit_halts(const struct exit_desc *desc)
{
	return desc->work == WORK_HALT ||
	       (desc->work == WORK_WFX && !(desc->kinds & WFX_IS_WFE));
}

/*
 * What follows a kvm_exit and tells more about it: kvm_wfx_arm64 (detail
 * is is_wfe), kvm_exit_idle or kvm_exit_cache (detail is the reason),
 * kvm_nested_vmexit and kvm_nested_vmexit_inject (the exit's reason and
 * information), kvm_out.
 */
void emit_exit_detail(struct kvmgen *g, struct vcpu *v,
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

void emit_hcall_exit(struct kvmgen *g, struct vcpu *v,
			    const struct step *s)
{
	u64 values[NR_TP_VALUES] = { 0 };

	values[V_HC_RET] = s->detail;
	write_tp_sample(g, v, TP_HCALL_EXIT, values);
	account_hcall_exit(g, v);
}

/* vmx-halt: detail is the halt_key; the halt began at the halt start */
void emit_vcpu_wakeup(struct kvmgen *g, struct vcpu *v,
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
void emit_halt_poll_ns(struct kvmgen *g, struct vcpu *v,
			      const struct step *s)
{
	u64 values[NR_TP_VALUES] = { 0 };

	values[V_GROW] = s->detail == HALT_GROW;
	values[V_POLL_OLD] = s->info1;
	values[V_POLL_NEW] = s->info2;
	write_tp_sample(g, v, TP_HALT_POLL_NS, values);
	account_halt_poll_ns(g, v, s->detail);
}

void emit_kvm_entry(struct kvmgen *g, struct vcpu *v,
			   const struct step *s)
{
	u64 values[NR_TP_VALUES] = { 0 };

	if (v->halted) {
		/* woken up to take the timer interrupt */
		if (v->started)
			values[V_INTR_INFO] = TIMER_INTR_INFO;
		wake_up_on_free_cpu(g, v);
	} else if (v->wake_intr) {
		/* +switch: woken up by emit_switch_in() */
		values[V_INTR_INFO] = TIMER_INTR_INFO;
	}
	v->wake_intr = false;
	if (s->detail == ENTRY_WITHOUT_EXIT)
		g->truth.orphan_entries++;

	values[V_VCPU_ID] = v->id;
	values[V_RIP] = v->guest_rip;
	write_tp_sample(g, v, s->tp, values);
	account_entry(g, v);
	v->guest_rip = arch_of(g->sc)->guest_text +
		       (rng_below(&g->rng, 0x800000) & ~0xfULL);
}

void emit_kvm_mmio(struct kvmgen *g, struct vcpu *v,
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

void emit_kvm_pio(struct kvmgen *g, struct vcpu *v,
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

void emit_kvm_userspace_exit(struct kvmgen *g, struct vcpu *v,
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

void emit_kvm_msr(struct kvmgen *g, struct vcpu *v,
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

void emit_kvm_hypercall(struct kvmgen *g, struct vcpu *v,
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

/*
 * +switch: the threads of the switch records.  The idle task is pid 0;
 * a hog thread per cpu preempts vcpu threads; a kworker per cpu runs now
 * and then on a cpu a halted vcpu left.
 */
static const struct sw_task idle_task;

static struct sw_task vcpu_task(const struct vcpu *v)
{
	return (struct sw_task){ v->vm->pid, v->tid, true };
}

static struct sw_task hog_task(u32 cpu)
{
	return (struct sw_task){ HOG_PID, HOG_PID + 1 + cpu, false };
}

static struct sw_task kworker_task(u32 cpu)
{
	return (struct sw_task){ KWORKER_TID_BASE + cpu,
				 KWORKER_TID_BASE + cpu, false };
}

/* The vcpus that start on a cpu run there; the other cpus idle. */
void init_switches(struct kvmgen *g)
{
	unsigned int i;

	for (i = 0; i < g->nr_vcpus; i++) {
		const struct vcpu *v = &g->vcpus[i];

		if (v->started)
			g->cpu_curr[v->cpu] = vcpu_task(v);
	}
}

/*
 * next takes the cpu from the thread on it: the switch-out of that one
 * now, the switch-in of next 1 ns later.  Returns the switch-in's time.
 */
static u64 switch_cpu(struct kvmgen *g, u32 cpu, const struct sw_task *next,
		      bool preempted)
{
	struct sw_task prev = g->cpu_curr[cpu];
	u16 misc = PERF_RECORD_MISC_SWITCH_OUT;

	if (preempted)
		misc |= PERF_RECORD_MISC_SWITCH_OUT_PREEMPT;
	write_switch(g, cpu, g->last_time, &prev, next, misc);
	g->last_time++;
	write_switch(g, cpu, g->last_time, next, &prev, 0);
	g->cpu_curr[cpu] = *next;
	return g->last_time;
}

/* The vcpu thread is preempted by the hog, or sleeps. */
void emit_switch_out(struct kvmgen *g, struct vcpu *v, const struct step *s)
{
	bool preempted = s->detail == SWITCH_PREEMPT;
	struct sw_task next = preempted ? hog_task(v->cpu) : idle_task;
	struct off_period *off = &v->offs[v->nr_offs];

	if (v->nr_offs < MAX_OFF_PERIODS) {
		off->out = v->clock;
		off->preempted = preempted;
		v->off = true;
	}
	v->clock = switch_cpu(g, v->cpu, &next, preempted);
	if (s->detail == SWITCH_HALT)
		release_cpu(g, v);
}

/*
 * The vcpu thread runs again: on its cpu, or from a halt on a free one,
 * which the thread there (idle or a kworker) gives up.
 */
void emit_switch_in(struct kvmgen *g, struct vcpu *v)
{
	struct sw_task me = vcpu_task(v), prev;

	if (v->halted) {
		v->wake_intr = v->started;
		wake_up_on_free_cpu(g, v);
	}
	prev = g->cpu_curr[v->cpu];
	/* a hog or kworker is still runnable; idle and an ended vcpu not */
	v->clock = switch_cpu(g, v->cpu, &me, !prev.vcpu && prev.tid);
	if (v->off) {
		v->offs[v->nr_offs++].in = v->clock;
		v->off = false;
	}
}

/* A kworker on the cpu the halted vcpu left, if that is still idle */
void emit_other(struct kvmgen *g, struct vcpu *v, const struct step *s)
{
	struct sw_task kworker = kworker_task(v->cpu);
	const struct sw_task *curr = &g->cpu_curr[v->cpu];

	if (s->tp == STEP_OTHER_IN && g->cpu_owner[v->cpu] < 0 &&
	    !curr->tid)
		switch_cpu(g, v->cpu, &kworker, false);
	else if (s->tp == STEP_OTHER_OUT && curr->tid == kworker.tid)
		switch_cpu(g, v->cpu, &idle_task, false);
}

/* Planning: a vcpu's next events, as steps with delays */
struct step *add_step(struct vcpu *v, enum kvm_tp tp, u32 delay_ns)
{
	struct step *s = &v->steps[v->nr_steps++];

	memset(s, 0, sizeof(*s));
	s->tp = tp;
	s->delay_ns = max(delay_ns, 1U);
	return s;
}
