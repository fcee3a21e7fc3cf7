// SPDX-License-Identifier: GPL-2.0
/*
 * kvmgen: the ground truth, counted as the events are written: per key
 * in OUT.data.truth and per sample in OUT.data.events (formats in
 * kvmgen.c's head comment).  The tests compare reports with these files.
 */
#include "kvmgen.h"

const char * const halt_keys[NR_HALT_KEYS] = {
	[HALT_POLL]		= "poll",
	[HALT_WAIT]		= "wait",
	[HALT_POLL_INVALID]	= "poll:invalid",
	[HALT_WAIT_INVALID]	= "wait:invalid",
	[HALT_GROW]		= "grow",
	[HALT_SHRINK]		= "shrink",
};

const char * const analysis_names[NR_ANALYSES] = {
	[AN_VMEXIT]	= "vmexit",
	[AN_MMIO]	= "mmio",
	[AN_IOPORT]	= "ioport",
	[AN_MSR]	= "msr",
	[AN_HYPERCALL]	= "hypercall",
	[AN_HALT]	= "halt",
};

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

/* <analysis> <vcpu> <pid> <key> <time_ns> <duration_ns|-> <rip> <tid> */
static void events_write_line(struct events *ev, const struct event_line *l)
{
	char buf[EVENTS_LINE_MAX], *p = buf;

	if (ev->vmexit_only && l->analysis != AN_VMEXIT)
		return;
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
	*p++ = ' ';
	p = fmt_dec(p, l->v->tid);
	if (ev->split_columns && l->split) {
		*p++ = ' ';
		p = fmt_dec(p, l->offcpu);
		*p++ = ' ';
		p = fmt_dec(p, l->preempted);
		*p++ = ' ';
		p = fmt_dec(p, l->offcpu - l->preempted);
	} else if (ev->split_columns) {
		p = fmt_str(p, " - - -");
	}
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
	l->split = false;
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

static void events_close(struct kvmgen *g, u64 line, u64 duration,
			 const struct truth_cell *split)
{
	struct event_line *l = &g->events.lines[line & g->events.mask];

	if (g->events.enabled && split) {
		l->split = true;
		l->offcpu = split->offcpu_ns;
		l->preempted = split->preempted_ns;
	}
	events_end(g, line, true, duration);
}

/* The end of the recording: what is still open has no end event. */
void events_finish(struct events *ev)
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
void account_exit(struct kvmgen *g, struct vcpu *v, unsigned int idx)
{
	/* No event spans the guest's run, nor its off periods. */
	v->nr_offs = 0;
	g->truth.vmexit[v->idx][idx].samples++;
	v->in_exit = true;
	v->exit_time = v->clock;
	v->exit_idx = idx;
	v->exit_rip = v->guest_rip;
	v->exit_line = events_open(g, v, AN_VMEXIT, g->exit_keys[idx],
				   v->exit_rip);
}

/*
 * +switch: the part of [begin, end] that the vcpu thread spent off its
 * cpu, and of that the part in which it had been preempted.  Its off
 * periods lie between two of its samples, so an event's begin and end
 * never fall inside one: each is in the event whole, or not at all.
 */
static void split_span(const struct vcpu *v, u64 begin, u64 end,
		       struct truth_cell *split)
{
	unsigned int i;

	memset(split, 0, sizeof(*split));
	for (i = 0; i < v->nr_offs; i++) {
		const struct off_period *off = &v->offs[i];
		u64 from = max(off->out, begin), to = min(off->in, end);

		if (from >= to)
			continue;
		split->offcpu_ns += to - from;
		if (off->preempted)
			split->preempted_ns += to - from;
	}
}

/* A timed event of v: with +switch split, unless v is NULL (halts) */
static void account_span(struct kvmgen *g, const struct vcpu *v,
			 struct truth_cell *cell, u64 line, u64 begin, u64 end)
{
	struct truth_cell split;

	cell->paired++;
	cell->total_ns += end - begin;
	if (!g->layout.switch_events || !v) {
		events_close(g, line, end - begin, NULL);
		return;
	}
	split_span(v, begin, end, &split);
	cell->offcpu_ns += split.offcpu_ns;
	cell->preempted_ns += split.preempted_ns;
	cell->switched += split.offcpu_ns > 0;
	events_close(g, line, end - begin, &split);
}

void account_entry(struct kvmgen *g, struct vcpu *v)
{
	struct truth *t = &g->truth;

	if (!v->in_exit)
		return;

	account_span(g, v, &t->vmexit[v->idx][v->exit_idx], v->exit_line,
		     v->exit_time, v->clock);
	if (v->pending_mmio >= 0)
		account_span(g, v, &t->mmio[v->idx][v->pending_mmio],
			     v->mmio_line, v->mmio_time, v->clock);
	if (v->pending_pio >= 0)
		account_span(g, v, &t->ioport[v->idx][v->pending_pio],
			     v->pio_line, v->pio_time, v->clock);
	if (v->pending_msr >= 0)
		account_span(g, v, &t->msr[v->idx][v->pending_msr],
			     v->msr_line, v->msr_time, v->clock);
	if (v->pending_hc >= 0)
		account_span(g, v, &t->hypercall[v->idx][v->pending_hc],
			     v->hc_line, v->hc_time, v->clock);
	v->in_exit = false;
	v->pending_mmio = -1;
	v->pending_pio = -1;
	v->pending_msr = -1;
	v->pending_hc = -1;
}

void account_mmio(struct kvmgen *g, struct vcpu *v, unsigned int idx,
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
		account_span(g, v, cell, line, v->exit_time, v->clock);
	} else {
		v->pending_mmio = idx;
		v->mmio_time = v->clock;
		v->mmio_line = line;
	}
}

void account_pio(struct kvmgen *g, struct vcpu *v, unsigned int idx)
{
	g->truth.ioport[v->idx][idx].samples++;
	v->pending_pio = idx;
	v->pio_time = v->clock;
	v->pio_line = events_open(g, v, AN_IOPORT, g->pio_keys[idx],
				  v->exit_rip);
}

void account_msr(struct kvmgen *g, struct vcpu *v, unsigned int idx)
{
	g->truth.msr[v->idx][idx].samples++;
	v->pending_msr = idx;
	v->msr_time = v->clock;
	v->msr_line = events_open(g, v, AN_MSR, g->msr_keys[idx],
				  v->exit_rip);
}

void account_hypercall(struct kvmgen *g, struct vcpu *v,
			      unsigned int idx)
{
	g->truth.hypercall[v->idx][idx].samples++;
	v->pending_hc = idx;
	v->hc_time = v->clock;
	v->hc_line = events_open(g, v, AN_HYPERCALL, g->hc_keys[idx],
				 v->exit_rip);
}

/* powerpc: kvm_hcall_exit ends the hypercall. */
void account_hcall_exit(struct kvmgen *g, struct vcpu *v)
{
	if (v->pending_hc < 0)
		return;
	account_span(g, v, &g->truth.hypercall[v->idx][v->pending_hc],
		     v->hc_line, v->hc_time, v->clock);
	v->pending_hc = -1;
}

/*
 * vmx-halt: a halt sample begins when the vcpu starts to halt, which is
 * the kvm_vcpu_wakeup's time minus its ns, and lasts ns.
 */
void account_halt_start(struct kvmgen *g, struct vcpu *v,
			       enum halt_key key)
{
	g->truth.halt[v->idx][key].samples++;
	v->halt_time = v->clock;
	v->halt_line = events_open(g, v, AN_HALT, g->halt_keys[key],
				   v->exit_rip);
}

void account_wakeup(struct kvmgen *g, struct vcpu *v,
			   enum halt_key key, u64 ns)
{
	struct truth_cell *cell = &g->truth.halt[v->idx][key];

	/* Whole halts: no split */
	account_span(g, NULL, cell, v->halt_line, v->clock - ns, v->clock);
}

/* A kvm_halt_poll_ns is a sample without a time, and not unpaired. */
void account_halt_poll_ns(struct kvmgen *g, struct vcpu *v,
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
void release_cpu(struct kvmgen *g, struct vcpu *v)
{
	g->cpu_owner[v->cpu] = -1;
	v->halted = true;
}

static void json_string(const char *s, FILE *fp)
{
	if (!s) {
		fputs("null", fp);
		return;
	}
	fputc('"', fp);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(fp, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(fp, "\\u%04x", *s);
		else
			fputc(*s, fp);
	}
	fputc('"', fp);
}

/* +names: each VM as the report's JSON must list it in vms[] */
static void write_vm_names(const struct kvmgen *g, FILE *fp)
{
	const struct scenario *sc = g->sc;
	unsigned int i;

	if (g->layout.names != NAMES_OK)
		return;
	for (i = 0; i < sc->nr_vms; i++) {
		fprintf(fp, "# vm_name {\"pid\": %u, \"comm\": ", sc->vms[i].pid);
		json_string(sc->vms[i].comm, fp);
		fputs(", \"vm\": ", fp);
		json_string(vm_names[i].name, fp);
		fputs(", \"vm_uuid\": ", fp);
		json_string(vm_names[i].uuid, fp);
		fputs(", \"vm_cgroup\": ", fp);
		json_string(vm_names[i].cgroup, fp);
		fprintf(fp, ", \"vm_source\": \"%s\"}\n",
			vm_names[i].source == 1 ? "qemu" : "libvirt");
	}
}

static void write_truth_header(const struct kvmgen *g, FILE *fp)
{
	const struct scenario *sc = g->sc;
	const struct truth *t = &g->truth;
	char label[32];
	u64 total = 0;
	unsigned int i;

	if (sc->nr_vms == 1) {
		fprintf(fp, "# kvmgen scenario %s exits %u pid %u vcpus %u cpus %u\n",
			sc->name, g->nr_exits, sc->vms[0].pid, g->nr_vcpus,
			g->nr_cpus);
	} else {
		fprintf(fp, "# kvmgen scenario %s exits %u vms %u vcpus %u cpus %u\n",
			sc->name, g->nr_exits, sc->nr_vms, g->nr_vcpus,
			g->nr_cpus);
	}
	/* Every VM's comm, which the reports name it by */
	for (i = 0; i < sc->nr_vms; i++)
		fprintf(fp, "# vm pid %u comm %s vcpus %u\n",
			sc->vms[i].pid, sc->vms[i].comm, sc->vms[i].nr_vcpus);
	write_vm_names(g, fp);
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
	if (g->layout.switch_events)
		fprintf(fp, "# switch_records %llu %s\n",
			(unsigned long long)t->switch_records,
			g->layout.system_wide ? "cpu-wide" : "per-thread");
	if (g->layout.switch_events && g->layout.system_wide)
		fprintf(fp, "# idle_switches %llu\n",
			(unsigned long long)t->idle_switches);
	/* What the header's HEADER_SAMPLE_TIME says, when it has one */
	fprintf(fp, "# sample_time header_first %llu header_last %llu\n",
		(unsigned long long)g->first_sample_time,
		(unsigned long long)g->last_time);
	/* The exits in which the vcpu waits for work: --split-idle's */
	fprintf(fp, "# idle exits:");
	for (i = 0; i < sc->nr_exits; i++) {
		if (sc->exits[i].work == WORK_HALT && sc->exits[i].name)
			fprintf(fp, " %s", sc->exits[i].name);
	}
	fprintf(fp, "\n");
	if (g->nr_exits > EVENTS_MAX_EXITS)
		fprintf(fp, "# events not written: exits %u > %d\n",
			g->nr_exits, EVENTS_MAX_EXITS);
	else
		fprintf(fp,
			"# events in <data>.events: analysis vcpu pid key time_ns duration_ns rip tid\n");
	fprintf(fp, "# analysis vcpu key samples paired total_ns%s\n",
		g->layout.switch_events ?
		" oncpu_ns offcpu_ns preempted_ns blocked_ns switched" : "");
}

/* +switch: the split of the key's timed events, '-' for halt keys */
static void write_truth_cell(const struct kvmgen *g, FILE *fp,
			     enum analysis an, const char *vcpu,
			     const char *key, const struct truth_cell *cell)
{
	if (!cell->samples)
		return;
	fprintf(fp, "%s %s %s %llu %llu %llu", analysis_names[an], vcpu, key,
		(unsigned long long)cell->samples,
		(unsigned long long)cell->paired,
		(unsigned long long)cell->total_ns);
	if (g->layout.switch_events && an == AN_HALT)
		fprintf(fp, " - - - - -");
	else if (g->layout.switch_events)
		fprintf(fp, " %llu %llu %llu %llu %llu",
			(unsigned long long)(cell->total_ns - cell->offcpu_ns),
			(unsigned long long)cell->offcpu_ns,
			(unsigned long long)cell->preempted_ns,
			(unsigned long long)(cell->offcpu_ns - cell->preempted_ns),
			(unsigned long long)cell->switched);
	fprintf(fp, "\n");
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
				sum.offcpu_ns += c->offcpu_ns;
				sum.preempted_ns += c->preempted_ns;
				sum.switched += c->switched;
			}
			write_truth_cell(g, fp, an, "?", keys[i], &sum);
		}
		return;
	}
	for (vcpu = 0; vcpu < g->nr_vcpus; vcpu++) {
		vcpu_label(g, &g->vcpus[vcpu], label, sizeof(label));
		for (i = 0; i < nr_keys; i++)
			write_truth_cell(g, fp, an, label, keys[i],
					 &cells[vcpu * stride + i]);
	}
}

static void write_truth_cells(const struct kvmgen *g, FILE *fp)
{
	const struct truth *t = &g->truth;

	write_truth_table(g, fp, AN_VMEXIT, &t->vmexit[0][0],
			  MAX_EXIT_REASONS, g->sc->nr_exits, g->exit_keys);
	/* Without their other events, the analyses time other spans. */
	if (g->layout.tp_mask)
		return;
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

void init_keys(struct kvmgen *g)
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

int write_truth(const struct kvmgen *g, const char *data_path)
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
int open_events(struct kvmgen *g, const char *data_path)
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
	ev->split_columns = g->layout.switch_events;
	ev->vmexit_only = g->layout.tp_mask;
	return 0;
}

int close_events(struct kvmgen *g)
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
