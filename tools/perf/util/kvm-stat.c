// SPDX-License-Identifier: GPL-2.0
/*
 * The engine of perf kvm-events: decode kvm tracepoint samples, pair each
 * vcpu's begin and end events, and keep per-key statistics.
 *
 * Every decision is taken from the recording (tracepoint formats, the isa
 * field, the header's cpuid), never from the machine running the report.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>
#include <linux/err.h>
#include <linux/kernel.h>
#include <linux/zalloc.h>

#include "debug.h"
#include "event.h"
#include "hashmap.h"
#include "intlist.h"
#include "kvm-stat.h"
#include "sample.h"

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
};

static const struct kvm_tp_desc kvm_tps[] = {
	{ "kvm_exit", KVM_EVENTS_TP_EXIT, "exit_reason", NULL, "vcpu_id", "isa" },
	{ "kvm_entry", KVM_EVENTS_TP_ENTRY, NULL, NULL, "vcpu_id", NULL },
	{ "kvm_mmio", KVM_EVENTS_TP_MMIO, "gpa", "type", NULL, NULL },
	{ "kvm_pio", KVM_EVENTS_TP_PIO, "port", "rw", NULL, NULL },
	{ "kvm_userspace_exit", KVM_EVENTS_TP_USER_EXIT, "reason", NULL, NULL, NULL },
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
	bool		(*begin)(const struct kvm_events_sample *s, u64 *key);
	bool		(*end)(const struct kvm_events_sample *s, u64 *key);
	void		(*key_name)(u64 key, char *buf, size_t size);
};

/* Pairing state of one vcpu thread */
struct vcpu_state {
	u32			tid;
	u32			vcpu;
	bool			open;		/* an interval has begun */
	u64			begin_time;
	struct kvm_events_key	*pending;	/* counted at begin, not yet timed */
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

static void fit_raw_size(struct kvm_events_decoder *dec,
			 const struct tep_format_field *field)
{
	if (field && (u32)(field->offset + field->size) > dec->min_raw_size)
		dec->min_raw_size = field->offset + field->size;
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
	fit_raw_size(dec, dec->code);
	fit_raw_size(dec, dec->kind);
	fit_raw_size(dec, dec->vcpu);
	fit_raw_size(dec, dec->isa);
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
	out->code = dec->code ? format_field__intval(dec->code, sample, needs_swap) : 0;
	out->kind = dec->kind ? format_field__intval(dec->kind, sample, needs_swap) : 0;
	out->vcpu = dec->vcpu ? format_field__intval(dec->vcpu, sample, needs_swap) :
		    KVM_EVENTS_NO_VCPU;
	out->isa = dec->isa ? format_field__intval(dec->isa, sample, needs_swap) : 0;
	return 0;
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

static const struct kvm_events_analysis analyses[] = {
	{ "vmexit", "VM-EXIT", vmexit_begin, entry_end, vmexit_key_name },
	{ "mmio", "MMIO Access", mmio_begin, mmio_end, mmio_key_name },
	{ "ioport", "IO Port Access", ioport_begin, entry_end, ioport_key_name },
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
	return "vmexit, mmio, ioport";
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

/* Keys are u64 on every host, so the maps hold pointers to them. */
static size_t u64_ptr_hash(long key, void *ctx __maybe_unused)
{
	u64 k = *(const u64 *)key;

	return (size_t)(k ^ (k >> 29)) * 0x9e3779b97f4a7c15ULL;
}

static bool u64_ptr_equal(long key1, long key2, void *ctx __maybe_unused)
{
	return *(const u64 *)key1 == *(const u64 *)key2;
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
			    const struct kvm_events_analysis *analysis)
{
	memset(report, 0, sizeof(*report));
	report->analysis = analysis;
	report->vcpu_filter = KVM_EVENTS_NO_VCPU;
	report->keys = hashmap__new(u64_ptr_hash, u64_ptr_equal, NULL);
	report->vcpus = hashmap__new(tid_hash, tid_equal, NULL);
	if (IS_ERR(report->keys) || IS_ERR(report->vcpus)) {
		report->keys = report->vcpus = NULL;
		return -ENOMEM;
	}
	return 0;
}

static void free_map_values(struct hashmap *map)
{
	struct hashmap_entry *cur;
	size_t bkt;

	if (!map)
		return;
	hashmap__for_each_entry(map, cur, bkt)
		free(cur->pvalue);
	hashmap__free(map);
}

void kvm_events_report__exit(struct kvm_events_report *report)
{
	free_map_values(report->keys);
	free_map_values(report->vcpus);
	report->keys = report->vcpus = NULL;
}

static struct vcpu_state *vcpu_state__get(struct kvm_events_report *report,
					  u32 tid)
{
	struct vcpu_state *vcpu;

	if (hashmap__find(report->vcpus, tid, &vcpu))
		return vcpu;
	vcpu = zalloc(sizeof(*vcpu));
	if (!vcpu)
		return NULL;
	vcpu->tid = tid;
	vcpu->vcpu = KVM_EVENTS_NO_VCPU;
	if (hashmap__add(report->vcpus, tid, vcpu)) {
		free(vcpu);
		return NULL;
	}
	return vcpu;
}

static struct kvm_events_key *key__get(struct kvm_events_report *report,
				       u64 key)
{
	struct kvm_events_key *entry;

	if (hashmap__find(report->keys, &key, &entry))
		return entry;
	entry = zalloc(sizeof(*entry));
	if (!entry)
		return NULL;
	entry->key = key;
	init_stats(&entry->stats);
	report->analysis->key_name(key, entry->name, sizeof(entry->name));
	if (hashmap__add(report->keys, &entry->key, entry)) {
		free(entry);
		return NULL;
	}
	return entry;
}

static bool is_filtered(const struct kvm_events_report *report,
			const struct vcpu_state *vcpu,
			const struct kvm_events_sample *s)
{
	if (report->vcpu_filter != KVM_EVENTS_NO_VCPU &&
	    vcpu->vcpu != report->vcpu_filter)
		return true;
	return report->pid_filter &&
	       !intlist__has_entry(report->pid_filter, s->pid);
}

/* Counts @s as a sample of @key; NULL when a filter drops it. */
static struct kvm_events_key *count_sample(struct kvm_events_report *report,
					   const struct vcpu_state *vcpu,
					   const struct kvm_events_sample *s,
					   u64 key)
{
	struct kvm_events_key *entry;

	if (is_filtered(report, vcpu, s)) {
		report->totals.filtered++;
		return NULL;
	}
	entry = key__get(report, key);
	if (!entry) {
		/* Out of memory: say so in the buckets rather than crash. */
		report->totals.unused++;
		return NULL;
	}
	entry->samples++;
	report->totals.keyed++;
	return entry;
}

static void add_time(struct kvm_events_report *report,
		     struct kvm_events_key *entry, u64 begin, u64 end)
{
	u64 delta = end - begin;

	if (end < begin) {
		/* Time went backwards: the sample stays, without a time. */
		report->totals.no_begin++;
		return;
	}
	entry->timed++;
	entry->total_ns += delta;
	update_stats(&entry->stats, delta);
	report->totals.total_ns += delta;
}

static void vcpu_state__begin(struct kvm_events_report *report,
			      struct vcpu_state *vcpu,
			      const struct kvm_events_sample *s, u64 key)
{
	if (vcpu->pending)
		report->totals.no_end++;
	vcpu->open = true;
	vcpu->begin_time = s->time;
	vcpu->pending = NULL;
	if (key != KVM_EVENTS_NO_KEY)
		vcpu->pending = count_sample(report, vcpu, s, key);
	else
		report->totals.unused++;
}

static void vcpu_state__end(struct kvm_events_report *report,
			    struct vcpu_state *vcpu,
			    const struct kvm_events_sample *s, u64 key)
{
	struct kvm_events_key *entry = vcpu->pending;
	bool keyed_here = key != KVM_EVENTS_NO_KEY;
	bool has_begin = vcpu->open;

	/*
	 * An end that names its key (an MMIO read) is timed from a begin
	 * that named none; an interval opened by another counted sample
	 * is that sample's, and it will never get its end.
	 */
	if (keyed_here) {
		if (vcpu->pending) {
			report->totals.no_end++;
			has_begin = false;
		}
		entry = count_sample(report, vcpu, s, key);
	}
	if (entry && has_begin)
		add_time(report, entry, vcpu->begin_time, s->time);
	else if (entry)
		report->totals.no_begin++;

	/* An end that only closes an interval is part of its pair. */
	if (!keyed_here) {
		if (vcpu->pending)
			report->totals.paired_end++;
		else
			report->totals.unused++;
	}
	vcpu->open = false;
	vcpu->pending = NULL;
}

void kvm_events_report__add(struct kvm_events_report *report,
			    const struct kvm_events_sample *s)
{
	const struct kvm_events_analysis *analysis = report->analysis;
	struct vcpu_state *vcpu;
	u64 key;

	report->totals.read++;
	report->totals.by_tp[s->tp]++;
	vcpu = vcpu_state__get(report, s->tid);
	if (!vcpu) {
		report->totals.unused++;
		return;
	}
	if (s->vcpu != KVM_EVENTS_NO_VCPU)
		vcpu->vcpu = s->vcpu;

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

	hashmap__for_each_entry(report->vcpus, cur, bkt) {
		struct vcpu_state *vcpu = cur->pvalue;

		if (vcpu->pending)
			report->totals.no_end++;
		vcpu->pending = NULL;
		vcpu->open = false;
	}
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

static int compare_by_samples(const void *a, const void *b)
{
	const struct kvm_events_key *ka = *(const struct kvm_events_key **)a;
	const struct kvm_events_key *kb = *(const struct kvm_events_key **)b;

	if (ka->samples != kb->samples)
		return ka->samples < kb->samples ? 1 : -1;
	return strcmp(ka->name, kb->name);
}

static int compare_by_time(const void *a, const void *b)
{
	const struct kvm_events_key *ka = *(const struct kvm_events_key **)a;
	const struct kvm_events_key *kb = *(const struct kvm_events_key **)b;

	if (ka->total_ns != kb->total_ns)
		return ka->total_ns < kb->total_ns ? 1 : -1;
	return compare_by_samples(a, b);
}

static struct kvm_events_key **sorted_keys(struct kvm_events_report *report,
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
	qsort(keys, *nr, sizeof(*keys),
	      sort == KVM_EVENTS_SORT_TIME ? compare_by_time : compare_by_samples);
	return keys;
}

static double percent(u64 part, u64 whole)
{
	return whole ? (double)part * 100 / whole : 0;
}

static void print_key(const struct kvm_events_report *report,
		      const struct kvm_events_key *entry, FILE *fp)
{
	fprintf(fp, "%20s %10llu %12.2f%%", entry->name,
		(unsigned long long)entry->samples,
		percent(entry->samples, report->totals.keyed));
	if (!entry->timed) {
		fprintf(fp, " %13s %15s\n", "-", "-");
		return;
	}
	fprintf(fp, " %12.2f%% %12.2fus\n",
		percent(entry->total_ns, report->totals.total_ns),
		(double)entry->total_ns / entry->timed / 1000);
}

/* An empty table needs a reason: often the host never emits the events. */
static void print_no_samples(const struct kvm_events_report *report, FILE *fp)
{
	const struct kvm_events_totals *t = &report->totals;
	size_t i;

	fprintf(fp, "No %s samples; kvm events read:", report->analysis->name);
	for (i = 0; i < ARRAY_SIZE(kvm_tps); i++)
		fprintf(fp, " %s %llu%s", kvm_tps[i].name,
			(unsigned long long)t->by_tp[kvm_tps[i].tp],
			i + 1 < ARRAY_SIZE(kvm_tps) ? "," : ".\n");
}

static void print_footer(const struct kvm_events_report *report, FILE *fp)
{
	const struct kvm_events_totals *t = &report->totals;

	fprintf(fp, "\nTotal Samples:%llu, Total events handled time:%.2fus.\n",
		(unsigned long long)t->keyed, (double)t->total_ns / 1000);
	if (!t->keyed)
		print_no_samples(report, fp);
	if (t->no_end || t->no_begin)
		fprintf(fp, "Samples without time:%llu (no end event:%llu, no begin event:%llu).\n",
			(unsigned long long)(t->no_end + t->no_begin),
			(unsigned long long)t->no_end,
			(unsigned long long)t->no_begin);
	if (t->lost_chunks)
		fprintf(fp, "Lost events:%llu, in %llu chunks.\n",
			(unsigned long long)t->lost_events,
			(unsigned long long)t->lost_chunks);
	if (verbose > 0)
		fprintf(fp, "Samples read:%llu = counted in a key %llu + ends of counted samples %llu + filtered %llu + other %llu.\n",
			(unsigned long long)t->read, (unsigned long long)t->keyed,
			(unsigned long long)t->paired_end,
			(unsigned long long)t->filtered,
			(unsigned long long)t->unused);
}

int kvm_events_report__print(struct kvm_events_report *report,
			     enum kvm_events_sort sort, FILE *fp)
{
	struct kvm_events_key **keys;
	size_t nr, i;

	keys = sorted_keys(report, sort, &nr);
	if (!keys)
		return -ENOMEM;

	fprintf(fp, "\n\n");
	if (report->vcpu_filter == KVM_EVENTS_NO_VCPU)
		fprintf(fp, "Analyze events for all VCPUs:\n\n");
	else
		fprintf(fp, "Analyze events for VCPU %u:\n\n", report->vcpu_filter);
	fprintf(fp, "%20s %10s %13s %13s %15s\n\n", report->analysis->column,
		"Samples", "Samples%", "Time%", "Avg time");
	for (i = 0; i < nr; i++)
		print_key(report, keys[i], fp);
	print_footer(report, fp);
	free(keys);
	return 0;
}
