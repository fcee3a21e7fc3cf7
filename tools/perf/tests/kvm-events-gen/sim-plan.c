// SPDX-License-Identifier: GPL-2.0
/*
 * kvmgen: the simulator.  Each vcpu plans its next exit as a list of
 * steps (kvm_exit, the accesses inside it, kvm_entry), and the vcpus run
 * interleaved over the host cpus, in time order.
 */
#include "kvmgen.h"

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

/* The cycle's exit: the recording's last, cut off, or one at random */
static void plan_cycle_exit(struct kvmgen *g, struct vcpu *v, u32 guest_ns)
{
	unsigned int exit_pos = v->nr_steps;

	if (g->sc->cut_off && v->exits_left == 1) {
		plan_cut_off_exit(g, v, guest_ns);
		return;
	}
	plan_random_exit(g, v, guest_ns);
	plan_switches(g, v, exit_pos);
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
		if (g->nr_vcpus > g->nr_cpus && !v->halted)
			g->cpu_owner[v->cpu] = -1;
		return;
	}
	guest_ns = rng_range(&g->rng, 1000, 40000);
	if (loses_kvm_exit(g, v)) {
		struct step *s = add_step(v, TP_KVM_ENTRY, guest_ns / 2);

		s->detail = ENTRY_WITHOUT_EXIT;
		guest_ns -= guest_ns / 2;
	}
	plan_cycle_exit(g, v, guest_ns);
	v->exits_left--;
	v->exits_done++;
}

/* +switch: a step inserted before step pos, the steps after it moved on */
static struct step *insert_step(struct vcpu *v, unsigned int pos,
				enum kvm_tp tp, u32 delay_ns)
{
	struct step *s = &v->steps[pos];

	memmove(s + 1, s, (v->nr_steps - pos) * sizeof(*s));
	v->nr_steps++;
	memset(s, 0, sizeof(*s));
	s->tp = tp;
	s->delay_ns = max(delay_ns, 1U);
	return s;
}

/*
 * An off period in the gap before step pos: the thread leaves its cpu
 * inside the gap, and comes back after off ns, which the gap grows by.
 */
static void plan_off(struct kvmgen *g, struct vcpu *v, unsigned int pos,
		     u32 detail)
{
	u64 *rng = &g->sw_rng;
	u32 gap = v->steps[pos].delay_ns;
	u32 out = gap > 1 ? rng_range(rng, 1, gap - 1) : 1;
	u32 off = detail == SWITCH_PREEMPT ? rng_range(rng, 2000, 400000) :
					     rng_range(rng, 10000, 1000000);
	struct step *s;

	v->steps[pos].delay_ns = max(gap - out, 1U);
	s = insert_step(v, pos, STEP_SWITCH_OUT, out);
	s->detail = detail;
	insert_step(v, pos + 1, STEP_SWITCH_IN, off);
}

/*
 * A halt that waits: the thread blocks soon after the gap before step
 * pos begins and is back just before it ends; now and then a kworker
 * runs on the cpu it left.
 */
static void plan_halt_block(struct kvmgen *g, struct vcpu *v,
			    unsigned int pos)
{
	u64 *rng = &g->sw_rng;
	u32 gap = v->steps[pos].delay_ns;
	u32 out = min(gap / 4, rng_range(rng, 300, 3000));
	u32 back = min(gap / 4, rng_range(rng, 300, 1500));
	u32 off = gap - out - back, a, b;
	struct step *s;

	v->steps[pos].delay_ns = max(back, 1U);
	s = insert_step(v, pos, STEP_SWITCH_OUT, out);
	s->detail = SWITCH_HALT;
	s = insert_step(v, pos + 1, STEP_SWITCH_IN, off);
	if (off < 9 || rng_below(rng, 2))
		return;
	a = rng_range(rng, 1, off / 3);
	b = rng_range(rng, 1, off / 3);
	s->delay_ns = off - a - b;
	insert_step(v, pos + 1, STEP_OTHER_IN, a);
	insert_step(v, pos + 2, STEP_OTHER_OUT, b);
}

/* The step before which a halt blocks, or 0 if it does not */
static unsigned int halt_block_pos(const struct kvmgen *g,
				   const struct vcpu *v, unsigned int exit_pos)
{
	unsigned int i;

	if (!g->sc->halt_events)
		return v->nr_steps - 1;
	/* vmx-halt: a wait blocks until its kvm_vcpu_wakeup, a poll not */
	for (i = exit_pos + 1; i < v->nr_steps; i++) {
		if (v->steps[i].tp == STEP_HALT_START &&
		    !(v->steps[i].detail & HALT_WAIT))
			return 0;
		if (v->steps[i].tp == TP_VCPU_WAKEUP)
			return i;
	}
	return v->nr_steps - 1;
}

/*
 * +switch: the vcpu thread's off periods around the exit just planned,
 * from the exit's kvm_exit at exit_pos to its kvm_entry, the last step.
 * Its own PRNG: the events are those of the recording without +switch,
 * their times moved on by the off periods.
 */
void plan_switches(struct kvmgen *g, struct vcpu *v, unsigned int exit_pos)
{
	const struct exit_desc *desc = &g->sc->exits[v->steps[exit_pos].idx];
	unsigned int entry_pos = v->nr_steps - 1, pos[2], n, i;
	u64 *rng = &g->sw_rng;

	if (!g->layout.switch_events)
		return;
	if (exit_halts(desc)) {
		pos[0] = halt_block_pos(g, v, exit_pos);
		if (pos[0])
			plan_halt_block(g, v, pos[0]);
	} else if (rng_below(rng, 100) < SWITCH_EXIT_PCT) {
		n = rng_below(rng, 3) ? 1 : 2;
		for (i = 0; i < n; i++)
			pos[i] = rng_range(rng, exit_pos + 1, entry_pos);
		/* the later gap first, so that the earlier stays where it is */
		if (n == 2 && pos[0] < pos[1]) {
			i = pos[0];
			pos[0] = pos[1];
			pos[1] = i;
		}
		for (i = 0; i < n; i++)
			plan_off(g, v, pos[i], rng_below(rng, 2) ?
				 SWITCH_BLOCK : SWITCH_PREEMPT);
	}
	/* preempted while in the guest: in no event */
	if (rng_below(rng, 100) < SWITCH_GUEST_PCT)
		plan_off(g, v, exit_pos, SWITCH_PREEMPT);
}

unsigned int count_vcpus(const struct scenario *sc)
{
	unsigned int i, n = 0;

	for (i = 0; i < sc->nr_vms; i++)
		n += sc->vms[i].nr_vcpus;
	return n;
}

/* vcpu i over all VMs: the first nr_cpus start on a cpu each. */
static void init_vcpu(struct kvmgen *g, unsigned int i,
		      const struct vm_desc *vm, unsigned int id)
{
	struct vcpu *v = &g->vcpus[i];

	v->idx = i;
	v->id = id;
	v->vm = vm;
	v->tid = vm->tids[id];
	v->cpu = i % g->nr_cpus;
	if (i < g->nr_cpus) {
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
	/* +switch: a vcpu that waits for a cpu is switched in first. */
	if (g->layout.switch_events && !v->started) {
		v->steps[0].tp = STEP_SWITCH_IN;
		add_step(v, TP_KVM_ENTRY, rng_range(&g->sw_rng, 300, 1500));
	}
}

void init_vcpus(struct kvmgen *g)
{
	const struct scenario *sc = g->sc;
	unsigned int i = 0, vm, id;

	for (id = 0; id < g->nr_cpus; id++)
		g->cpu_owner[id] = -1;
	for (vm = 0; vm < sc->nr_vms; vm++) {
		for (id = 0; id < sc->vms[vm].nr_vcpus; id++)
			init_vcpu(g, i++, &sc->vms[vm], id);
	}
}

struct vcpu *next_vcpu(struct kvmgen *g)
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
		    (v->steps[v->next_step].tp == TP_KVM_ENTRY ||
		     v->steps[v->next_step].tp == STEP_SWITCH_IN))
			continue;
		when = v->clock + v->steps[v->next_step].delay_ns;
		if (!best || when < best_time) {
			best = v;
			best_time = when;
		}
	}
	return best;
}

void run_step(struct kvmgen *g, struct vcpu *v)
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
	case STEP_SWITCH_OUT:
		emit_switch_out(g, v, s);
		break;
	case STEP_SWITCH_IN:
		emit_switch_in(g, v);
		break;
	case STEP_OTHER_IN:
	case STEP_OTHER_OUT:
		emit_other(g, v, s);
		break;
	default:
		break;
	}
	if (v->next_step == v->nr_steps)
		plan_next_cycle(g, v);
}

/* Like the COMM events 'perf record' synthesizes: sample id all zero */
void write_comm(struct kvmgen *g, u32 pid, u32 tid, const char *comm)
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
