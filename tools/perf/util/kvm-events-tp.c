// SPDX-License-Identifier: GPL-2.0
/*
 * perf kvm-events: the kvm tracepoints the analyses read, and their
 * decoders.  A decoder is resolved once per evsel from the recorded
 * tracepoint format, so that a recording of any architecture or kernel
 * decodes on any host, and a sample is then read at fixed offsets.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <traceevent/event-parse.h>
#include <linux/bits.h>
#include <linux/kernel.h>

#include "debug.h"
#include "evsel.h"
#include "kvm-events-arch.h"
#include "sample.h"

/* The tracepoints of generic KVM code, whatever the architecture */
static const struct kvm_events_tp_desc generic_tps[] = {
	KVM_EVENTS_TP("kvm", "kvm_mmio", MMIO, .code = "gpa", .kind = "type"),
	KVM_EVENTS_TP("kvm", "kvm_pio", PIO, .code = "port", .kind = "rw"),
	KVM_EVENTS_TP("kvm", "kvm_userspace_exit", USER_EXIT, .code = "reason",
		      .kind = "errno"),
	KVM_EVENTS_TP("kvm", "kvm_fpu", FPU, .kind = "load"),
	KVM_EVENTS_TP("kvm", "kvm_vcpu_wakeup", WAKEUP, .code = "ns",
		      .kind = "waited", .flag = "valid"),
	KVM_EVENTS_TP("kvm", "kvm_halt_poll_ns", HALT_POLL, .kind = "grow",
		      .vcpu = "vcpu_id", .code = "new"),
};

/*
 * Adding an architecture is adding its file and its entry here.  Where
 * several describe a tracepoint of the same name (kvm_exit), the first
 * one whose fields the recorded format has is taken.
 */
static const struct kvm_events_arch *const kvm_events_arches[] = {
	&kvm_events_arch_vmx,
	&kvm_events_arch_svm,
	&kvm_events_arch_pvm,
	&kvm_events_arch_arm64,
	&kvm_events_arch_s390,
	&kvm_events_arch_ppc_hv,
	&kvm_events_arch_riscv,
	&kvm_events_arch_loongarch,
};

const struct kvm_events_arch *kvm_events_arch__find(u32 isa)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(kvm_events_arches); i++) {
		if (kvm_events_arches[i]->isa == isa)
			return kvm_events_arches[i];
	}
	return NULL;
}

void kvm_events__spell_word(const char *text, char *buf, size_t size)
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

/*
 * Each description in turn: each architecture's, then the generic ones
 * (record asks for the tracepoints in this order, kvm_exit first).  *pos
 * starts at 0; returns NULL after the last.
 */
static const struct kvm_events_tp_desc *next_desc(size_t *pos)
{
	size_t i = (*pos)++, a;

	for (a = 0; a < ARRAY_SIZE(kvm_events_arches); a++) {
		if (i < kvm_events_arches[a]->nr_tps)
			return &kvm_events_arches[a]->tps[i];
		i -= kvm_events_arches[a]->nr_tps;
	}
	return i < ARRAY_SIZE(generic_tps) ? &generic_tps[i] : NULL;
}

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

/*
 * Keeps @field's place in @at, or @none as its value when the format has
 * no such field.  A field past what a sample can hold makes every sample
 * too short.
 */
static void place_field(struct kvm_events_decoder *dec, struct kvm_events_field_at *at,
			const struct tep_format_field *field, u64 none)
{
	u64 end;

	*at = (struct kvm_events_field_at){ .none = none };
	if (!field)
		return;
	end = field->offset < 0 ? UINT32_MAX : (u64)field->offset + field->size;
	if (end > dec->min_raw_size)
		dec->min_raw_size = min_t(u64, end, UINT32_MAX);
	at->offset = max(field->offset, 0);
	at->size = field->size;
	at->mask = field->size == 8 ? ~0ULL : BIT_ULL(8 * field->size) - 1;
	at->none = 0;
}

static bool has_fields(struct tep_event *format,
		       const struct kvm_events_tp_desc *desc)
{
	return (!desc->code || tep_find_field(format, desc->code)) &&
	       (!desc->kind || tep_find_field(format, desc->kind));
}

/* The description of @format: one whose required fields it has, else any. */
static const struct kvm_events_tp_desc *find_desc(struct tep_event *format)
{
	const struct kvm_events_tp_desc *desc, *named = NULL;
	size_t pos = 0;

	while ((desc = next_desc(&pos))) {
		if (strcmp(format->system, desc->system) ||
		    strcmp(format->name, desc->name))
			continue;
		if (has_fields(format, desc))
			return desc;
		if (!named)
			named = desc;
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
	const struct kvm_events_tp_desc *desc;
	int err = 0;

	if (!format || !format->system || !format->name)
		return 1;
	desc = find_desc(format);
	if (!desc)
		return 1;

	memset(dec, 0, sizeof(*dec));
	dec->tp = desc->role;
	dec->fixed_isa = desc->isa;
	place_field(dec, &dec->code_at, find_field(format, desc->code, true, &err), 0);
	place_field(dec, &dec->kind_at, find_field(format, desc->kind, true, &err), 0);
	place_field(dec, &dec->vcpu_at, find_field(format, desc->vcpu, false, &err),
		    KVM_EVENTS_NO_VCPU);
	place_field(dec, &dec->isa_at, find_field(format, desc->isa_field, false, &err),
		    desc->isa);
	place_field(dec, &dec->rip_at, find_field(format, desc->rip, false, &err), 0);
	place_field(dec, &dec->flag_at, find_field(format, desc->flag, false, &err), 0);
	return err;
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
	kvm_events_decoder__decode_raw(dec, sample->raw_data, needs_swap, out);
	return 0;
}

const char *kvm_tp_role__name(enum kvm_tp_role role)
{
	const struct kvm_events_tp_desc *desc;
	size_t pos = 0;

	while ((desc = next_desc(&pos))) {
		if (desc->role == role)
			return desc->name;
	}
	return "?";
}

/* Room for "system:name" of every description */
#define MAX_TPS		64

size_t kvm_events_tracepoints(u32 roles, const char **names, size_t max)
{
	static char full[MAX_TPS][64];
	const struct kvm_events_tp_desc *desc;
	size_t pos = 0, i, nr = 0;

	while ((desc = next_desc(&pos)) && pos <= MAX_TPS && nr < max) {
		char *name = full[pos - 1];

		if (!(roles & BIT(desc->role)))
			continue;
		snprintf(name, sizeof(full[0]), "%s:%s", desc->system, desc->name);
		for (i = 0; i < nr && strcmp(names[i], name); i++)
			;
		if (i == nr)
			names[nr++] = name;
	}
	return nr;
}
