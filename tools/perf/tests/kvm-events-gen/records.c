// SPDX-License-Identifier: GPL-2.0
/*
 * kvmgen: the PRNG, the buffered writer and the sample records, laid out
 * as perf record lays them out for each modifier: rounds, per-cpu rounds,
 * sample ids, callchains, lost records.
 */
#include "kvmgen.h"

/* xorshift64*: small, fast and the same everywhere */
u64 rng_next(u64 *state)
{
	u64 x = *state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * 0x2545f4914f6cdd1dULL;
}

u32 rng_below(u64 *state, u32 n)
{
	return (rng_next(state) >> 32) % n;
}

u32 rng_range(u64 *state, u32 lo, u32 hi)
{
	return lo + rng_below(state, hi - lo + 1);
}

/* Buffered output: no syscall and no allocation per event. */
void out_flush(struct out_file *o)
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

u64 out_tell(const struct out_file *o)
{
	return o->flushed + o->used;
}

/* Room for one record; size must be well below OUT_BUF_SIZE. */
u8 *out_reserve(struct out_file *o, size_t size)
{
	u8 *p;

	if (o->used + size > OUT_BUF_SIZE)
		out_flush(o);
	p = o->buf + o->used;
	o->used += size;
	return p;
}

void out_write(struct out_file *o, const void *buf, size_t size)
{
	const u8 *data = buf;

	while (size) {
		size_t chunk = min_t(size_t, size, OUT_BUF_SIZE / 2);

		memcpy(out_reserve(o, chunk), data, chunk);
		data += chunk;
		size -= chunk;
	}
}

void out_zeros(struct out_file *o, size_t size)
{
	memset(out_reserve(o, size), 0, size);
}

void out_u8(struct out_file *o, u8 val)
{
	out_write(o, &val, sizeof(val));
}

void out_u32(struct out_file *o, u32 val)
{
	out_write(o, &val, sizeof(val));
}

void out_u64(struct out_file *o, u64 val)
{
	out_write(o, &val, sizeof(val));
}

/* The header's perf_header_string: length, then NUL padded text */
void out_header_string(struct out_file *o, const char *str)
{
	size_t len = strlen(str) + 1;
	u32 padded = ALIGN(len, FEATURE_STRING_ALIGN);

	out_u32(o, padded);
	out_write(o, str, len);
	out_zeros(o, padded - len);
}

u8 *put_u32(u8 *p, u32 val)
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

u64 sample_id(const struct kvmgen *g, enum kvm_tp tp, u32 cpu)
{
	return SAMPLE_ID_BASE + (g->tp_slot[tp] * g->nr_cpus + cpu) * g->layout.id_stride;
}

u64 dummy_id(const struct kvmgen *g, u32 cpu)
{
	return DUMMY_SAMPLE_ID_BASE + cpu * g->layout.id_stride;
}

const struct arch_desc *arch_of(const struct scenario *sc)
{
	return sc->desc ? sc->desc : &x86_desc;
}

const char *tp_name(const struct kvmgen *g, enum kvm_tp tp)
{
	const char *name = g->sc->formats[tp].name;

	return name ? name : tp_names[tp];
}

const char *tp_system(const struct kvmgen *g, enum kvm_tp tp)
{
	const char *system = g->sc->formats[tp].system;

	return system ? system : "kvm";
}

/* +events=: whether record's --event takes tp */
static bool tp_recorded(const struct kvmgen *g, enum kvm_tp tp)
{
	return !g->layout.tp_mask || (g->layout.tp_mask & BIT_ULL(tp));
}

/* The tracepoints of the scenario: those with a format, if recorded */
void init_tps(struct kvmgen *g)
{
	int tp;

	for (tp = 0; tp < NR_KVM_TPS; tp++) {
		if (!g->sc->formats[tp].fields || !tp_recorded(g, tp))
			continue;
		g->tp_slot[tp] = g->nr_tps;
		g->tps[g->nr_tps++] = tp;
	}
}

/*
 * vmx-percpu: write_tp_sample() stages the samples of a round's window.
 * At the end of the window, each cpu's group is written: first its late
 * samples of the previous window, then its samples of this window that are
 * not late, all in time order.  The late ones are the window's last few,
 * on every cpu: perf record reads each ring buffer up to where the kernel
 * had written, and what comes after waits for its next pass, so each
 * cpu's samples stay in time order from round to round.  The last round,
 * at the end of the recording, keeps none back.
 */
static u8 *percpu_stage(struct kvmgen *g, const struct vcpu *v, u32 size)
{
	struct percpu_rounds *pc = g->percpu;
	struct staged_sample *s = &pc->cur[pc->nr_cur];

	s->cpu = v->cpu;
	s->size = size;
	s->late = (u64)g->samples_in_round * 100 >=
		  (u64)g->layout.round_size * (100 - PERCPU_LATE_PCT);
	pc->nr_cur++;
	return s->record;
}

void percpu_write_round(struct kvmgen *g, bool last)
{
	struct percpu_rounds *pc = g->percpu;
	unsigned int cpu, i, nr_late = 0;

	for (cpu = 0; cpu < g->nr_cpus; cpu++) {
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

void write_finished_round(struct kvmgen *g)
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

	size += __builtin_popcountll(type & FIXED_SAMPLE_FIELDS) * sizeof(u64);
	/* a group of one: nr, then value, id and lost */
	if (type & PERF_SAMPLE_READ)
		size += 4 * sizeof(u64);
	if (type & PERF_SAMPLE_CALLCHAIN)
		size += (2 + CALLCHAIN_DEPTH) * sizeof(u64);
	if (type & PERF_SAMPLE_REGS_USER)
		size += (1 + __builtin_popcountll(DWARF_REGS_MASK)) * sizeof(u64);
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
		for (i = 0; i < __builtin_popcountll(DWARF_REGS_MASK); i++)
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
void write_lost_samples(struct kvmgen *g)
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
void write_tp_sample(struct kvmgen *g, const struct vcpu *v,
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

	if (!tp_recorded(g, tp))
		return;
	if (g->layout.single && tp != g->tps[0])
		goto counted;
	if (g->layout.threads)
		p = out_reserve(&g->cpu_out[v->cpu], hdr.size);
	else if (g->percpu)
		p = percpu_stage(g, v, hdr.size);
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
	if (++g->samples_in_round == g->layout.round_size) {
		if (g->layout.lost)
			write_lost(g, v->cpu);
		if (g->percpu)
			percpu_write_round(g, false);
		write_finished_round(g);
	}
}

/*
 * +switch: a PERF_RECORD_SWITCH (per thread, -p or a command) or
 * PERF_RECORD_SWITCH_CPU_WIDE (-a, with the pid and tid of the thread
 * switched to or from), as the kernel writes it for the evsel that has
 * attr.context_switch: the tracking one, whose sample_id_all trailer it
 * ends with.  The trailer's pid and tid are those of the thread that
 * runs: the outgoing one in a switch-out, the incoming one in a switch-in.
 * A per-thread recording has the vcpu threads' switches only.
 */
void write_switch(struct kvmgen *g, u32 cpu, u64 time,
		  const struct sw_task *task, const struct sw_task *next_prev,
		  u16 misc)
{
	bool wide = g->layout.system_wide;
	u64 type = wide ? DUMMY_SAMPLE_TYPE : g->layout.sample_type;
	u64 id = wide ? dummy_id(g, cpu) : sample_id(g, g->tps[0], cpu);
	struct perf_event_header hdr = {
		.type = wide ? PERF_RECORD_SWITCH_CPU_WIDE : PERF_RECORD_SWITCH,
		.misc = misc,
		.size = sizeof(hdr),
	};
	u8 *p;

	if (!wide && !task->vcpu)
		return;
	if (wide)
		hdr.size += 2 * sizeof(u32);
	hdr.size += __builtin_popcountll(type & (PERF_SAMPLE_TID |
						 PERF_SAMPLE_TIME |
						 PERF_SAMPLE_ID |
						 PERF_SAMPLE_STREAM_ID |
						 PERF_SAMPLE_CPU |
						 PERF_SAMPLE_IDENTIFIER)) * sizeof(u64);
	if (g->layout.threads)
		p = out_reserve(&g->cpu_out[cpu], hdr.size);
	else
		p = out_reserve(&g->out, hdr.size);
	memcpy(p, &hdr, sizeof(hdr));
	p += sizeof(hdr);
	if (wide) {
		p = put_u32(p, next_prev->pid);
		p = put_u32(p, next_prev->tid);
	}
	/* sample_id_all, in perf_event__output_id_sample()'s order */
	if (type & PERF_SAMPLE_TID) {
		p = put_u32(p, task->pid);
		p = put_u32(p, task->tid);
	}
	if (type & PERF_SAMPLE_TIME)
		p = put_u64(p, time);
	if (type & PERF_SAMPLE_ID)
		p = put_u64(p, id);
	if (type & PERF_SAMPLE_STREAM_ID)
		p = put_u64(p, id);
	if (type & PERF_SAMPLE_CPU) {
		p = put_u32(p, cpu);
		p = put_u32(p, 0);
	}
	if (type & PERF_SAMPLE_IDENTIFIER)
		put_u64(p, id);
	g->truth.switch_records++;
	g->truth.idle_switches += !task->tid;
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
char *fmt_str(char *p, const char *str)
{
	size_t len = strlen(str);

	memcpy(p, str, len);
	return p + len;
}
