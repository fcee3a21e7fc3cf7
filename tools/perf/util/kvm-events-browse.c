// SPDX-License-Identifier: GPL-2.0
/*
 * The model of perf kvm-events' browser: the source's per vcpu keys,
 * merged into one report per key as the VM and vcpu filters say (or what
 * each gained in the last interval), sorted by the chosen column, and
 * written as lines by the report's own printers, so that the browser's
 * rows are the report's.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <linux/err.h>
#include <linux/kernel.h>
#include <linux/zalloc.h>

#include "hashmap.h"
#include "kvm-events-browse.h"
#include "time-utils.h"

/* A vcpu key's counts at the last tick, by its identity */
struct seen_counts {
	u64	key;
	u32	group;
	u32	pid;
	u64	samples;
	u64	timed;
	u64	total_ns;
};

static size_t seen_hash(long key, void *ctx __maybe_unused)
{
	const struct seen_counts *s = (const struct seen_counts *)key;

	return s->key ^ ((u64)s->group << 47) ^ ((u64)s->pid << 23);
}

static bool seen_equal(long a, long b, void *ctx __maybe_unused)
{
	const struct seen_counts *x = (const struct seen_counts *)a;
	const struct seen_counts *y = (const struct seen_counts *)b;

	return x->key == y->key && x->group == y->group && x->pid == y->pid;
}

int kvm_events_browse__init(struct kvm_events_browse *b,
			    struct kvm_events_browse_source *src,
			    const struct kvm_events_analysis *analysis)
{
	memset(b, 0, sizeof(*b));
	b->src = src;
	b->view = *src->view;
	b->view.format = KVM_EVENTS_FORMAT_TABLE;
	b->analysis = analysis;
	b->sort_column = -1;
	b->pid = b->vcpu = KVM_EVENTS_BROWSE_ALL;
	b->last_tick = rdclock();
	b->seen = hashmap__new(seen_hash, seen_equal, NULL);
	if (IS_ERR(b->seen)) {
		b->seen = NULL;
		return -ENOMEM;
	}
	return 0;
}

static void rows__exit(struct kvm_events_browse *b)
{
	zfree(&b->keys);
	b->nr = 0;
	if (b->has_rows)
		kvm_events_report__exit(&b->rows);
	b->has_rows = false;
}

static void seen__clear(struct kvm_events_browse *b)
{
	struct hashmap_entry *cur;
	size_t bkt;

	hashmap__for_each_entry(b->seen, cur, bkt)
		free(cur->pvalue);
	hashmap__clear(b->seen);
}

void kvm_events_browse__exit(struct kvm_events_browse *b)
{
	rows__exit(b);
	if (b->seen) {
		seen__clear(b);
		hashmap__free(b->seen);
	}
	free(b->gained);
	free(b->pids);
	free(b->vcpus);
	memset(b, 0, sizeof(*b));
}

/* Adds @v to the ascending set @set of @nr, if it is not there */
static int set__add(u32 **set, size_t *nr, u32 v)
{
	size_t i;
	u32 *p;

	for (i = 0; i < *nr && (*set)[i] < v; i++)
		;
	if (i < *nr && (*set)[i] == v)
		return 0;
	p = reallocarray(*set, *nr + 1, sizeof(**set));
	if (!p)
		return -ENOMEM;
	memmove(p + i + 1, p + i, (*nr - i) * sizeof(*p));
	p[i] = v;
	*set = p;
	(*nr)++;
	return 0;
}

static bool browse__selects(const struct kvm_events_browse *b, const struct kvm_events_key *k)
{
	return (b->pid == KVM_EVENTS_BROWSE_ALL || k->pid == b->pid) &&
	       (b->vcpu == KVM_EVENTS_BROWSE_ALL || k->group == b->vcpu);
}

/* @report's keys, in no order; the caller frees the array */
static struct kvm_events_key **source_keys(struct kvm_events_report *report, size_t *nr)
{
	static const struct kvm_events_sort_keys by_name = { 1, { KVM_EVENTS_SORT_NAME } };

	return kvm_events_report__sorted(report, &by_name, nr);
}

/* What each vcpu key gained since the last tick: counts, no statistics */
static int gained__update(struct kvm_events_browse *b, struct kvm_events_key **keys, size_t nr)
{
	size_t i;

	if (nr > b->alloc_gained) {
		void *p = reallocarray(b->gained, nr, sizeof(*b->gained));

		if (!p)
			return -ENOMEM;
		b->gained = p;
		b->alloc_gained = nr;
	}
	b->nr_gained = 0;
	for (i = 0; i < nr; i++) {
		struct seen_counts lookup = {
			.key = keys[i]->key, .group = keys[i]->group, .pid = keys[i]->pid,
		}, *was = NULL;
		struct kvm_events_key *row = &b->gained[b->nr_gained];

		if (!hashmap__find(b->seen, &lookup, &was)) {
			was = malloc(sizeof(*was));
			if (!was)
				return -ENOMEM;
			*was = lookup;
			if (hashmap__add(b->seen, was, was)) {
				free(was);
				return -ENOMEM;
			}
		}
		*row = *keys[i];
		memset(&row->stats, 0, sizeof(row->stats));
		row->dist = NULL;
		row->log2_ns = NULL;
		row->split = NULL;
		row->observed = NULL;
		row->samples -= was->samples;
		row->timed -= was->timed;
		row->total_ns -= was->total_ns;
		was->samples = keys[i]->samples;
		was->timed = keys[i]->timed;
		was->total_ns = keys[i]->total_ns;
		if (row->samples)
			b->nr_gained++;
	}
	return 0;
}

static int seen__vms(struct kvm_events_browse *b, struct kvm_events_key **keys, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++) {
		if (set__add(&b->pids, &b->nr_pids, keys[i]->pid))
			return -ENOMEM;
		if ((b->pid == KVM_EVENTS_BROWSE_ALL || keys[i]->pid == b->pid) &&
		    set__add(&b->vcpus, &b->nr_vcpus, keys[i]->group))
			return -ENOMEM;
	}
	return 0;
}

/* Merges the selected ones of @keys into b->rows, one row per key */
static int rows__merge(struct kvm_events_browse *b, struct kvm_events_key *keys, size_t nr,
		       struct kvm_events_key **ptrs)
{
	size_t i;

	for (i = 0; i < nr; i++) {
		struct kvm_events_key *from = ptrs ? ptrs[i] : &keys[i];
		struct kvm_events_key *to;

		if (!browse__selects(b, from))
			continue;
		to = kvm_events_report__entry(&b->rows, from->key, from->pid, from->group);
		if (!to || kvm_events_key__join(to, from))
			return -ENOMEM;
	}
	return 0;
}

static int rows__build(struct kvm_events_browse *b, struct kvm_events_report *source)
{
	struct kvm_events_options opts = source->opts;
	struct kvm_events_key **keys = NULL;
	size_t nr = 0;
	int ret;

	rows__exit(b);
	/* Only what the columns and the sort need: a refresh of 10,000 keys is timed. */
	opts.group = KVM_EVENTS_GROUP_NONE;
	opts.percentiles = opts.stddev = opts.histogram = false;
	kvm_events_view__needs(&b->view, &opts);
	ret = kvm_events_report__init(&b->rows, b->analysis, &opts);
	if (ret)
		return ret;
	b->has_rows = true;
	b->source_totals = source->totals;
	b->rows.totals = source->totals;
	if (b->interval) {
		ret = rows__merge(b, b->gained, b->nr_gained, NULL);
	} else {
		keys = source_keys(source, &nr);
		ret = keys ? rows__merge(b, NULL, nr, keys) : -ENOMEM;
		free(keys);
	}
	if (ret)
		return ret;
	b->keys = kvm_events_report__sorted(&b->rows, &b->view.sort, &b->nr);
	if (!b->keys)
		return -ENOMEM;
	return 0;
}

static struct kvm_events_display browse__display(const struct kvm_events_browse *b)
{
	return (struct kvm_events_display){
		.view		= &b->view,
		.report		= (struct kvm_events_report *)&b->rows,
		.input		= b->src->title,
		.interval	= b->interval,
		.vms		= b->src->vms,
	};
}

/* What a VM's name, as the title and the messages show it, can hold */
#define KVM_EVENTS_BROWSE_VM_TEXT	96

/* @buf, one line: a newline in a name would break the screen's */
static const char *one_line(char *buf)
{
	char *c;

	for (c = buf; *c; c++) {
		if (iscntrl((unsigned char)*c))
			*c = '?';
	}
	return buf;
}

/* VM @pid as the title and the messages show it, "web1 (195)"; NULL: no name */
static const char *vm_text(const struct kvm_events_browse *b, u32 pid, char *buf, size_t size)
{
	struct kvm_events_display d = browse__display(b);
	const char *name = kvm_events_display__vm_name(&d, pid);

	if (!name)
		return NULL;
	snprintf(buf, size, "%s (%u)", name, pid);
	return one_line(buf);
}

/* "VM web1 (195)", where the VM that p shows has a name */
static void browse__say_vm(struct kvm_events_browse *b)
{
	char vm[KVM_EVENTS_BROWSE_VM_TEXT];

	if (b->pid != KVM_EVENTS_BROWSE_ALL && vm_text(b, b->pid, vm, sizeof(vm)))
		snprintf(b->message, sizeof(b->message), "VM %s", vm);
}

static void rows__measure(struct kvm_events_browse *b)
{
	struct kvm_events_display d = browse__display(b);

	b->width = kvm_events_display__key_width(b->keys, b->nr);
	kvm_events_display__table_totals(&d, b->keys, b->nr, &b->totals);
}

static int browse__update(struct kvm_events_browse *b, bool tick)
{
	struct kvm_events_report *source;
	struct kvm_events_key **keys;
	size_t nr = 0;
	int ret = 0;

	source = b->src->get(b->src, NULL);
	if (!source)
		return -ENOMEM;
	if (tick) {
		u64 now = rdclock();

		keys = source_keys(source, &nr);
		ret = keys ? gained__update(b, keys, nr) : -ENOMEM;
		if (!ret)
			ret = seen__vms(b, keys, nr);
		free(keys);
		b->interval_s = (now - b->last_tick) / 1e9;
		b->events_per_s = b->interval_s > 0 ?
				  (source->totals.read - b->read_at_tick) / b->interval_s : 0;
		b->read_at_tick = source->totals.read;
		b->last_tick = now;
	}
	if (!ret)
		ret = rows__build(b, source);
	b->src->put(b->src);
	if (!ret)
		rows__measure(b);
	return ret;
}

int kvm_events_browse__tick(struct kvm_events_browse *b)
{
	return browse__update(b, true);
}

int kvm_events_browse__rebuild(struct kvm_events_browse *b)
{
	return browse__update(b, false);
}

static void browse__say(struct kvm_events_browse *b, const char *fmt, const char *what)
{
	snprintf(b->message, sizeof(b->message), fmt, what);
}

/* The columns in turn, and the key's name before the first */
int kvm_events_browse__next_sort(struct kvm_events_browse *b, int step)
{
	int nr = b->view.nr_columns, col = b->sort_column, i;
	const char *name = "name";

	for (i = 0; i <= nr; i++) {
		col += step;
		if (col < -1)
			col = nr - 1;
		else if (col >= nr)
			col = -1;
		name = col < 0 ? "name" : kvm_events_view__column_name(&b->view, col);
		if (kvm_events_view__sorts_by(name))
			break;
	}
	b->sort_column = col;
	if (kvm_events_view__set_sort(&b->view, "browser", name))
		return -EINVAL;
	browse__say(b, "sorted by %s", name);
	return kvm_events_browse__rebuild(b);
}

int kvm_events_browse__next_analysis(struct kvm_events_browse *b)
{
	const struct kvm_events_analysis *next = kvm_events_analysis__next(b->analysis);
	int ret;

	if (!b->src->set_analysis) {
		browse__say(b, "%s: one analysis, chosen with --event", b->src->title);
		return 0;
	}
	next = next ?: kvm_events_analysis__next(NULL);
	ret = b->src->set_analysis(b->src, next);
	if (ret)
		return ret;
	b->analysis = next;
	b->pid = b->vcpu = KVM_EVENTS_BROWSE_ALL;
	seen__clear(b);
	b->nr_gained = b->nr_pids = b->nr_vcpus = 0;
	browse__say(b, "analysis %s: counts start over", kvm_events_analysis__name(next));
	return kvm_events_browse__tick(b);
}

/* The next of @set after @cur, "all" after the last and before the first */
static u32 set__next(const u32 *set, size_t nr, u32 cur)
{
	size_t i;

	if (cur == KVM_EVENTS_BROWSE_ALL)
		return nr ? set[0] : KVM_EVENTS_BROWSE_ALL;
	for (i = 0; i < nr; i++) {
		if (set[i] > cur)
			return set[i];
	}
	return KVM_EVENTS_BROWSE_ALL;
}

static void browse__say_filter(struct kvm_events_browse *b, const char *what, u32 v)
{
	char value[16];

	if (v == KVM_EVENTS_BROWSE_ALL)
		snprintf(value, sizeof(value), "all");
	else if (v == KVM_EVENTS_NO_VCPU)
		snprintf(value, sizeof(value), "?");
	else
		snprintf(value, sizeof(value), "%u", v);
	snprintf(b->message, sizeof(b->message), "%s %s", what, value);
}

int kvm_events_browse__next_pid(struct kvm_events_browse *b)
{
	b->pid = set__next(b->pids, b->nr_pids, b->pid);
	b->vcpu = KVM_EVENTS_BROWSE_ALL;
	/* The vcpus of the VM shown, from the next tick's keys */
	b->nr_vcpus = 0;
	browse__say_filter(b, "VM", b->pid);
	browse__say_vm(b);
	return kvm_events_browse__tick(b);
}

int kvm_events_browse__next_vcpu(struct kvm_events_browse *b)
{
	b->vcpu = set__next(b->vcpus, b->nr_vcpus, b->vcpu);
	browse__say_filter(b, "VCPU", b->vcpu);
	return kvm_events_browse__rebuild(b);
}

int kvm_events_browse__toggle_interval(struct kvm_events_browse *b)
{
	if (!b->src->delay) {
		browse__say(b, "%s: a recording has no intervals", b->src->title);
		return 0;
	}
	b->interval = !b->interval;
	browse__say(b, "%s", b->interval ? "the last interval" : "since the start");
	return kvm_events_browse__rebuild(b);
}

void kvm_events_browse__toggle_pause(struct kvm_events_browse *b)
{
	b->paused = !b->paused;
	browse__say(b, "%s", b->paused ? "paused: no refresh until P" : "refreshing");
}

static const char *filter_text(u32 v, char *buf, size_t size)
{
	if (v == KVM_EVENTS_BROWSE_ALL)
		return "all";
	if (v == KVM_EVENTS_NO_VCPU)
		return "?";
	snprintf(buf, size, "%u", v);
	return buf;
}

/* The VM the title shows: "all", "web1 (195)" or "195" */
static const char *vm_shown(const struct kvm_events_browse *b, char *buf, size_t size)
{
	if (b->pid != KVM_EVENTS_BROWSE_ALL && vm_text(b, b->pid, buf, size))
		return buf;
	return filter_text(b->pid, buf, size);
}

void kvm_events_browse__title(const struct kvm_events_browse *b, char *buf, size_t size)
{
	char pid[KVM_EVENTS_BROWSE_VM_TEXT], vcpu[16];
	const char *sort = b->sort_column < 0 ? "name" :
			   kvm_events_view__column_name(&b->view, b->sort_column);

	if (b->sort_column < 0 && b->view.sort_names)
		sort = b->view.sort_names;
	snprintf(buf, size, "perf kvm-events %s: %s, %s | sort: %s | VM: %s | VCPU: %s%s%s",
		 b->src->title, kvm_events_analysis__name(b->analysis),
		 b->interval ? "last interval" : "since the start", sort,
		 vm_shown(b, pid, sizeof(pid)), filter_text(b->vcpu, vcpu, sizeof(vcpu)),
		 b->paused ? " | PAUSED" : "",
		 b->src->ended && b->src->ended(b->src) ? " | ENDED" : "");
}

void kvm_events_browse__summary(const struct kvm_events_browse *b, char *buf, size_t size)
{
	const struct kvm_events_totals *t = &b->source_totals;
	u64 unpaired = t->no_end + t->no_begin;
	int len;

	if (b->src->delay)
		len = snprintf(buf, size, "Interval %.2fs: %.0f events/s", b->interval_s,
			       b->events_per_s);
	else
		len = snprintf(buf, size, "%" PRIu64 " samples read", t->read);
	snprintf(buf + len, size - min_t(size_t, size, len),
		 " | lost %" PRIu64 " | unpaired %" PRIu64 " (no end %" PRIu64 ", no begin %" PRIu64
		 ") | filtered %" PRIu64 " | keys %zu",
		 kvm_events_totals__lost(t), unpaired, t->no_end, t->no_begin, t->filtered, b->nr);
}

/* What a printer writes to @fp, in @buf without its newlines */
static FILE *line__open(char *buf, size_t size)
{
	buf[0] = '\0';
	return fmemopen(buf, size, "w");
}

static void line__close(FILE *fp, char *buf)
{
	size_t len;

	if (!fp)
		return;
	fclose(fp);
	len = strlen(buf);
	while (len && buf[len - 1] == '\n')
		buf[--len] = '\0';
}

void kvm_events_browse__columns(const struct kvm_events_browse *b, char *buf, size_t size)
{
	struct kvm_events_display d = browse__display(b);
	FILE *fp = line__open(buf, size);

	if (fp)
		kvm_events_display__header(&d, b->width, fp);
	line__close(fp, buf);
}

void kvm_events_browse__row(const struct kvm_events_browse *b, size_t i, char *buf, size_t size)
{
	struct kvm_events_display d = browse__display(b);
	FILE *fp = i < b->nr ? line__open(buf, size) : NULL;

	if (fp)
		kvm_events_display__row(&d, b->keys[i], &b->totals, b->width, fp);
	line__close(fp, buf);
}

static int compare_vcpu_keys(const void *x, const void *y)
{
	const struct kvm_events_key *a = *(struct kvm_events_key * const *)x;
	const struct kvm_events_key *b = *(struct kvm_events_key * const *)y;

	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	return a->group < b->group ? -1 : a->group > b->group;
}

static void detail__percentiles(struct kvm_events_key *key, FILE *fp)
{
	static const double pcts[] = { 50, 90, 99, 99.9 };
	size_t i;

	if (!key->timed) {
		fprintf(fp, "No timed event: no percentile.\n");
		return;
	}
	fprintf(fp, "Min %.2fus, max %.2fus, avg %.2fus; ", key->stats.min / 1e3,
		key->stats.max / 1e3, (double)key->total_ns / key->timed / 1e3);
	for (i = 0; key->dist && i < ARRAY_SIZE(pcts); i++)
		fprintf(fp, "%sp%g %.2fus", i ? ", " : "", pcts[i],
			kvm_events_key__percentile(key, pcts[i]) / 1e3);
	fprintf(fp, "%s\n", key->dist && !kvm_events_key__percentile_exact(key) ?
		" (within 0.4%)" : "");
}

/* Its rows in each VM and vcpu: their own cells, shares of the key's */
static void detail__vcpus(const struct kvm_events_browse *b, struct kvm_events_key *key,
			  struct kvm_events_key **vcpus, size_t nr, struct machine *machine,
			  FILE *fp)
{
	struct kvm_events_display d = browse__display(b);
	struct kvm_events_table_totals totals = { key->samples, key->total_ns };
	size_t i;

	d.interval = false;
	d.machine = machine;
	fprintf(fp, "\n%8s %-16s %6s", "VM pid", "VM", "VCPU");
	kvm_events_display__cell_headers(&d, fp);
	fprintf(fp, "\n");
	for (i = 0; i < nr; i++) {
		const char *comm = machine ? kvm_events_display__comm(&d, vcpus[i]->pid) : NULL;
		const char *vm_name = kvm_events_display__vm_name(&d, vcpus[i]->pid);
		char name[KVM_EVENTS_BROWSE_VM_TEXT];

		/* Where its owner named the VM, its name, on one line */
		if (vm_name) {
			snprintf(name, sizeof(name), "%s", vm_name);
			comm = one_line(name);
		}

		fprintf(fp, "%8u %-16s ", vcpus[i]->pid, comm ?: "?");
		if (vcpus[i]->group == KVM_EVENTS_NO_VCPU)
			fprintf(fp, "%6s", "?");
		else
			fprintf(fp, "%6u", vcpus[i]->group);
		kvm_events_display__cells(&d, vcpus[i], &totals, fp);
		fprintf(fp, "\n");
	}
}

/* The source's vcpu keys of @key that the filters select, joined in @whole's */
static struct kvm_events_key *detail__join(struct kvm_events_browse *b, u64 key,
					   struct kvm_events_report *whole,
					   struct kvm_events_key **keys, size_t nr,
					   struct kvm_events_key **vcpus, size_t *n)
{
	struct kvm_events_key *entry = NULL;
	size_t k;

	*n = 0;
	for (k = 0; k < nr; k++) {
		if (keys[k]->key != key || !browse__selects(b, keys[k]))
			continue;
		entry = kvm_events_report__entry(whole, key, keys[k]->pid, keys[k]->group);
		if (!entry || kvm_events_key__join(entry, keys[k]))
			return NULL;
		vcpus[(*n)++] = keys[k];
	}
	qsort(vcpus, *n, sizeof(*vcpus), compare_vcpu_keys);
	return entry;
}

/*
 * Since the start, in the interval view too: an interval's rows hold
 * counts, and a key's percentiles are the run's.
 */
int kvm_events_browse__detail(struct kvm_events_browse *b, size_t i, FILE *fp)
{
	struct kvm_events_key *entry = NULL, **keys = NULL, **vcpus = NULL;
	struct kvm_events_report *source, whole;
	struct machine *machine = NULL;
	struct kvm_events_options opts;
	size_t nr = 0, n = 0;
	int ret = -ENOMEM;

	if (i >= b->nr)
		return -EINVAL;
	source = b->src->get(b->src, &machine);
	if (!source)
		return -ENOMEM;
	opts = source->opts;
	opts.group = KVM_EVENTS_GROUP_NONE;
	if (kvm_events_report__init(&whole, b->analysis, &opts))
		goto out_put;
	keys = source_keys(source, &nr);
	vcpus = keys ? calloc(nr ? nr : 1, sizeof(*vcpus)) : NULL;
	if (vcpus)
		entry = detail__join(b, b->keys[i]->key, &whole, keys, nr, vcpus, &n);
	if (entry) {
		fprintf(fp, "%s since the start: %" PRIu64 " samples, %" PRIu64
			" timed, in %zu vcpus\n\n", entry->name, entry->samples, entry->timed, n);
		detail__percentiles(entry, fp);
		detail__vcpus(b, entry, vcpus, n, machine, fp);
		kvm_events_display__histogram(entry, fp);
		ret = 0;
	}
	kvm_events_report__exit(&whole);
out_put:
	b->src->put(b->src);
	free(vcpus);
	free(keys);
	return ret;
}
