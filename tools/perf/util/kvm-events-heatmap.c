// SPDX-License-Identifier: GPL-2.0
/*
 * perf kvm-events report --heatmap FILE.svg: per key, how its latencies
 * move over the recording: time across, --histogram's log2 ns buckets up,
 * the number of events in each cell as a colour.
 *
 * The counts are kept as the engine pairs, since a pipe cannot be read
 * twice.  Column 0 starts at the header's first sample time, and the
 * columns divide the header's span; where the header gives no span (a
 * pipe, perf record -B), column 0 starts at the first sample read and the
 * columns are KVM_EVENTS_HEATMAP_MIN_WIDTH ns wide, doubling, two merged
 * into one, each time a sample falls past the last.  A sample before
 * column 0 counts in it.  A column is allocated at its first sample, so a
 * key costs what it fills, and nothing of this runs without --heatmap.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/zalloc.h>

#include "debug.h"
#include "kvm-events.h"
#include "kvm-events-display.h"
#include "kvm-events-heatmap.h"

/* Column 0 and the columns' width: the header's span, or none yet */
static void heatmap__start(struct kvm_events_heatmap *heatmap, u64 first, u64 last)
{
	heatmap->width = KVM_EVENTS_HEATMAP_MIN_WIDTH;
	heatmap->started = false;
	heatmap->no_memory = 0;
	if (last > first) {
		heatmap->origin = first;
		heatmap->started = true;
		/* The last sample's column is the last one. */
		heatmap->width = (last - first) / KVM_EVENTS_HEATMAP_COLUMNS + 1;
	}
}

static void heatmap__free_grids(struct kvm_events_heatmap *heatmap)
{
	struct kvm_events_grid *grid, *next;
	int i;

	for (grid = heatmap->grids; grid; grid = next) {
		next = grid->next;
		for (i = 0; i < KVM_EVENTS_HEATMAP_COLUMNS; i++)
			free(grid->col[i]);
		free(grid);
	}
	heatmap->grids = NULL;
}

void kvm_events_heatmap__delete(struct kvm_events_heatmap *heatmap)
{
	if (!heatmap)
		return;
	heatmap__free_grids(heatmap);
	free(heatmap);
}

static u64 column_of(const struct kvm_events_heatmap *heatmap, u64 time)
{
	return time > heatmap->origin ? (time - heatmap->origin) / heatmap->width : 0;
}

/* Column 2i and 2i + 1 become column i: the columns twice as wide. */
static void grid__merge(struct kvm_events_grid *grid)
{
	int i, b;

	for (i = 0; i < KVM_EVENTS_HEATMAP_COLUMNS / 2; i++) {
		u64 *even = grid->col[2 * i], *odd = grid->col[2 * i + 1];

		if (even && odd) {
			for (b = 0; b < KVM_EVENTS_LOG2_BUCKETS; b++)
				even[b] += odd[b];
			free(odd);
		}
		grid->col[i] = even ?: odd;
	}
	for (; i < KVM_EVENTS_HEATMAP_COLUMNS; i++)
		grid->col[i] = NULL;
}

static void heatmap__widen(struct kvm_events_heatmap *heatmap)
{
	struct kvm_events_grid *grid;

	for (grid = heatmap->grids; grid; grid = grid->next)
		grid__merge(grid);
	heatmap->width *= 2;
}

static struct kvm_events_grid *heatmap__grid(struct kvm_events_heatmap *heatmap,
					     struct kvm_events_grid **grid)
{
	if (*grid)
		return *grid;
	*grid = zalloc(sizeof(**grid));
	if (*grid) {
		(*grid)->next = heatmap->grids;
		heatmap->grids = *grid;
	}
	return *grid;
}

/*
 * A timed event at @time that took @duration ns, into the key's grid.
 * Where the header gave no span, column 0 starts at @first, the first
 * sample read.
 */
static void heatmap__timed(struct kvm_events_observer *observer, void **observed,
			   u64 first, u64 time, u64 duration)
{
	struct kvm_events_heatmap *heatmap =
		container_of(observer, struct kvm_events_heatmap, observer);
	struct kvm_events_grid *g = heatmap__grid(heatmap, (struct kvm_events_grid **)observed);
	u64 col;

	if (!heatmap->started) {
		heatmap->origin = first;
		heatmap->started = true;
	}
	while (column_of(heatmap, time) >= KVM_EVENTS_HEATMAP_COLUMNS)
		heatmap__widen(heatmap);
	col = column_of(heatmap, time);
	if (g && !g->col[col])
		g->col[col] = calloc(KVM_EVENTS_LOG2_BUCKETS, sizeof(u64));
	if (!g || !g->col[col]) {
		heatmap->no_memory++;
		return;
	}
	g->col[col][kvm_events_log2_bucket(duration)]++;
}

/* The reading starts over: the keys the grids were for are gone. */
static void heatmap__forget(struct kvm_events_observer *observer)
{
	struct kvm_events_heatmap *heatmap =
		container_of(observer, struct kvm_events_heatmap, observer);

	heatmap__free_grids(heatmap);
	heatmap__start(heatmap, heatmap->first, heatmap->last);
}

struct kvm_events_heatmap *kvm_events_heatmap__new(u64 first, u64 last)
{
	struct kvm_events_heatmap *heatmap = zalloc(sizeof(*heatmap));

	if (!heatmap)
		return NULL;
	heatmap->observer.timed = heatmap__timed;
	heatmap->observer.forget = heatmap__forget;
	heatmap->first = first;
	heatmap->last = last;
	heatmap__start(heatmap, first, last);
	return heatmap;
}

/* The SVG: two panels a row, each a plot of columns by bucket rows */
#define PANELS_PER_ROW	2
#define MARGIN		10
#define PANEL_W		580
#define PLOT_X		70
#define PLOT_W		480
#define TITLE_H		34
#define AXIS_H		36
#define HEAD_H		96
#define SVG_W		(PANELS_PER_ROW * PANEL_W + 2 * MARGIN)
#define LEGEND_SWATCHES	8

/* What the panels share: one time axis, one bucket range, one colour scale */
struct layout {
	const struct kvm_events_display *d;
	const struct kvm_events_heatmap *heatmap;
	struct kvm_events_key		**keys;
	size_t				nr_keys;
	size_t				nr_panels;
	u64				columns;	/* drawn: those the span covers */
	int				low, high;	/* the buckets drawn */
	int				row_h;
	double				col_w;
	u64				max_count;
	FILE				*fp;
};

/* Busiest first; ties by group, then name, as the tables order them */
static int compare_busiest(const void *a, const void *b)
{
	const struct kvm_events_key *x = *(struct kvm_events_key * const *)a;
	const struct kvm_events_key *y = *(struct kvm_events_key * const *)b;

	if (x->samples != y->samples)
		return x->samples < y->samples ? 1 : -1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->group != y->group)
		return x->group < y->group ? -1 : 1;
	return strcmp(x->name, y->name);
}

static void svg_escaped(const char *s, FILE *fp)
{
	for (; *s; s++) {
		if (*s == '<')
			fputs("&lt;", fp);
		else if (*s == '>')
			fputs("&gt;", fp);
		else if (*s == '&')
			fputs("&amp;", fp);
		else if (*s == '\'')
			fputs("&#39;", fp);
		else if ((unsigned char)*s < ' ' && *s != '\t')
			fputc('?', fp);	/* no XML 1.0 character */
		else
			fputc(*s, fp);
	}
}

/* A number attribute, @name='@value' */
static void attr_u64(FILE *fp, const char *name, u64 value)
{
	fprintf(fp, " %s='%" PRIu64 "'", name, value);
}

/* A duration as a label: 3 significant digits and a unit */
static void ns_label(double ns, char *buf, size_t size)
{
	if (ns < 1e3)
		snprintf(buf, size, "%.3gns", ns);
	else if (ns < 1e6)
		snprintf(buf, size, "%.3gus", ns / 1e3);
	else if (ns < 1e9)
		snprintf(buf, size, "%.3gms", ns / 1e6);
	else
		snprintf(buf, size, "%.4gs", ns / 1e9);
}

/* A YlOrRd ramp: pale for one event, dark red for the fullest cell */
static void colour_of(const struct layout *l, u64 count, char *buf, size_t size)
{
	static const u8 stops[][3] = {
		{ 255, 237, 160 }, { 254, 178, 76 }, { 252, 78, 42 },
		{ 189, 0, 38 }, { 88, 0, 38 },
	};
	int last = ARRAY_SIZE(stops) - 1, i, c;
	double t = l->max_count > 1 ? log((double)count) / log((double)l->max_count) : 1;
	double pos, f;
	u8 rgb[3];

	pos = min(max(t, 0.0), 1.0) * last;
	i = min((int)pos, last - 1);
	f = pos - i;
	for (c = 0; c < 3; c++)
		rgb[c] = (u8)lround(stops[i][c] + f * (stops[i + 1][c] - stops[i][c]));
	snprintf(buf, size, "#%02x%02x%02x", rgb[0], rgb[1], rgb[2]);
}

/*
 * The buckets any panel fills, the fullest cell, the rows' height, and the
 * columns: up to a cell's past the last sample read, out of order.
 */
static void layout__measure(struct layout *l)
{
	size_t p;
	int c, b;

	l->low = KVM_EVENTS_LOG2_BUCKETS;
	l->high = -1;
	for (p = 0; p < l->nr_panels; p++) {
		const struct kvm_events_grid *grid = l->keys[p]->observed;

		for (c = 0; grid && c < KVM_EVENTS_HEATMAP_COLUMNS; c++) {
			for (b = 0; grid->col[c] && b < KVM_EVENTS_LOG2_BUCKETS; b++) {
				if (!grid->col[c][b])
					continue;
				l->low = min(l->low, b);
				l->high = max(l->high, b);
				l->max_count = max(l->max_count, grid->col[c][b]);
				l->columns = max_t(u64, l->columns, c + 1);
			}
		}
	}
	if (l->high < 0)
		l->low = l->high = 0;
	l->row_h = max(6, min(12, 240 / (l->high - l->low + 1)));
	l->col_w = (double)PLOT_W / l->columns;
}

/* The columns up to the last sample read, or the header's last time */
static u64 drawn_columns(const struct kvm_events_heatmap *heatmap, u64 last_time)
{
	u64 header_last = heatmap->last > heatmap->first ? heatmap->last : 0;
	u64 last = max(header_last, last_time);

	if (!heatmap->started)
		return 1;
	return min_t(u64, column_of(heatmap, last) + 1, KVM_EVENTS_HEATMAP_COLUMNS);
}

static int panel_height(const struct layout *l)
{
	return TITLE_H + (l->high - l->low + 1) * l->row_h + AXIS_H;
}

static void write_legend(const struct layout *l, int y)
{
	int n = (int)min_t(u64, LEGEND_SWATCHES, l->max_count), i, x = MARGIN + 210;
	u64 prev = 0;
	char fill[8];

	fprintf(l->fp, "<text x='%d' y='%d'>events per cell (log scale):</text>\n",
		MARGIN, y + 13);
	for (i = 0; i < n; i++) {
		double t = n > 1 ? (double)i / (n - 1) : 1;
		u64 count = llround(pow((double)l->max_count, t));

		if (count <= prev)
			continue;
		prev = count;
		colour_of(l, count, fill, sizeof(fill));
		fprintf(l->fp, "<rect class='legend' x='%d' y='%d' width='44' height='16'",
			x, y);
		fprintf(l->fp, " fill='%s' stroke='#999'", fill);
		attr_u64(l->fp, "data-count", count);
		fprintf(l->fp, "/>\n");
		fprintf(l->fp, "<text x='%d' y='%d' text-anchor='middle'>%" PRIu64 "</text>\n",
			x + 22, y + 30, count);
		x += 50;
	}
}

static void write_head(const struct layout *l, u64 left_keys, u64 left_samples,
		       u64 left_timed)
{
	const struct kvm_events_display *d = l->d;
	const char *analysis = kvm_events_analysis__name(d->report->analysis);
	char width[32];

	ns_label(l->heatmap->width, width, sizeof(width));
	fprintf(l->fp, "<text x='%d' y='20' font-size='15' font-weight='bold'>", MARGIN);
	fprintf(l->fp, "perf kvm-events %s: latency over time, ", analysis);
	svg_escaped(d->input, l->fp);
	fprintf(l->fp, "</text>\n<text x='%d' y='38'>x: time from %.6f s, ",
		MARGIN, l->heatmap->origin / 1e9);
	fprintf(l->fp, "%" PRIu64 " columns of %s; y: latency, log2 ns buckets",
		l->columns, width);
	if (d->view->vcpus || d->view->pids || d->view->vms || d->view->time ||
	    d->view->duration_us) {
		fprintf(l->fp, "; filters:");
		if (d->view->vcpus)
			fprintf(l->fp, " --vcpu %s", d->view->vcpus);
		if (d->view->pids)
			fprintf(l->fp, " -p %s", d->view->pids);
		if (d->view->vms) {
			fprintf(l->fp, " --vm ");
			svg_escaped(d->view->vms, l->fp);
		}
		if (d->view->time)
			fprintf(l->fp, " --time %s", d->view->time);
		if (d->view->duration_us)
			fprintf(l->fp, " --duration %g", d->view->duration_us);
	}
	fprintf(l->fp, "</text>\n<text class='left-out' x='%d' y='%d'>", MARGIN, HEAD_H - 8);
	fprintf(l->fp, "%zu of %zu keys, busiest first", l->nr_panels, l->nr_keys);
	if (left_keys) {
		fprintf(l->fp, "; %" PRIu64 " keys left out: %" PRIu64 " samples",
			left_keys, left_samples);
		fprintf(l->fp, " (%" PRIu64 " with a time)", left_timed);
	}
	if (l->heatmap->no_memory)
		fprintf(l->fp, "; out of memory: %" PRIu64 " samples left out",
			l->heatmap->no_memory);
	fprintf(l->fp, "</text>\n");
	write_legend(l, 46);
}

/* " (VM web1, pid 4242 vcpu 0)", where its owner named the VM */
static bool write_title_vm(const struct kvm_events_display *d, const struct kvm_events_key *key,
			   enum kvm_events_group group, FILE *fp)
{
	const char *name = kvm_events_display__vm_name(d, key->pid);

	if (!name)
		return false;
	fputs(" (VM ", fp);
	svg_escaped(name, fp);
	fprintf(fp, ", pid %u", key->pid);
	if (group == KVM_EVENTS_GROUP_VCPU && key->group != KVM_EVENTS_NO_VCPU)
		fprintf(fp, " vcpu %u", key->group);
	fputc(')', fp);
	return true;
}

/* The panel's title: the analysis, the key, its group, its samples */
static void write_title(const struct layout *l, const struct kvm_events_key *key)
{
	enum kvm_events_group group = l->d->report->opts.group;
	FILE *fp = l->fp;

	fprintf(fp, "<text x='%d' y='20' font-size='13' font-weight='bold'>%s ",
		PLOT_X, kvm_events_analysis__name(l->d->report->analysis));
	svg_escaped(key->name, fp);
	/* A named VM's title says it all; others are shown by pid. */
	if (group != KVM_EVENTS_GROUP_NONE && write_title_vm(l->d, key, group, fp))
		group = KVM_EVENTS_GROUP_NONE;
	if (group == KVM_EVENTS_GROUP_VCPU && key->group != KVM_EVENTS_NO_VCPU)
		fprintf(fp, " (pid %u vcpu %u)", key->pid, key->group);
	else if (group != KVM_EVENTS_GROUP_NONE)
		fprintf(fp, " (pid %u)", key->pid);
	fprintf(fp, ": %" PRIu64 " samples, %" PRIu64 " with a time</text>\n",
		key->samples, key->timed);
}

static void write_axes(const struct layout *l)
{
	int rows = l->high - l->low + 1, b, i, step = l->row_h < 10 ? 2 : 1;
	int bottom = TITLE_H + rows * l->row_h;
	char label[32];

	fprintf(l->fp, "<rect x='%d' y='%d' width='%d' height='%d'",
		PLOT_X, TITLE_H, PLOT_W, rows * l->row_h);
	fprintf(l->fp, " fill='#eef1f5' stroke='#bbb'/>\n");
	for (b = l->low; b <= l->high; b += step) {
		ns_label(kvm_events_log2_bucket_low(b), label, sizeof(label));
		fprintf(l->fp, "<text x='%d' y='%d' font-size='9' text-anchor='end'>%s</text>\n",
			PLOT_X - 4, bottom - (b - l->low) * l->row_h - 1, label);
	}
	for (i = 0; i <= 4; i++) {
		double ns = (double)l->columns * l->heatmap->width * i / 4;

		ns_label(ns, label, sizeof(label));
		fprintf(l->fp, "<text x='%d' y='%d' font-size='9' text-anchor='%s'>%s</text>\n",
			PLOT_X + PLOT_W * i / 4, bottom + 13,
			i == 0 ? "start" : i == 4 ? "end" : "middle", ns ? label : "0");
	}
	fprintf(l->fp, "<text x='%d' y='%d' font-size='9' text-anchor='middle'>",
		PLOT_X + PLOT_W / 2, bottom + 27);
	fprintf(l->fp, "time since %.6f s</text>\n", l->heatmap->origin / 1e9);
}

static void write_cell(const struct layout *l, const struct kvm_events_key *key,
		       int col, int bucket, u64 count)
{
	int bottom = TITLE_H + (l->high - l->low + 1) * l->row_h;
	char fill[8], low[32], at[32];

	colour_of(l, count, fill, sizeof(fill));
	ns_label(kvm_events_log2_bucket_low(bucket), low, sizeof(low));
	ns_label((double)col * l->heatmap->width, at, sizeof(at));
	fprintf(l->fp, "<rect class='cell' x='%.2f' y='%d' width='%.2f' height='%d' fill='%s'",
		PLOT_X + col * l->col_w, bottom - (bucket - l->low + 1) * l->row_h,
		l->col_w, l->row_h, fill);
	fprintf(l->fp, " data-col='%d' data-bucket='%d'", col, bucket);
	attr_u64(l->fp, "data-count", count);
	fprintf(l->fp, "><title>");
	svg_escaped(key->name, l->fp);
	fprintf(l->fp, ": %" PRIu64 " from %s, at least %s</title></rect>\n", count, at, low);
}

static void write_panel(const struct layout *l, size_t p, int y)
{
	const struct kvm_events_key *key = l->keys[p];
	const struct kvm_events_grid *grid = key->observed;
	int c, b;

	fprintf(l->fp, "<g class='panel' transform='translate(%d,%d)' data-key='",
		MARGIN + (int)(p % PANELS_PER_ROW) * PANEL_W, y);
	svg_escaped(key->name, l->fp);
	fprintf(l->fp, "' data-pid='%u' data-group='%u'", key->pid, key->group);
	attr_u64(l->fp, "data-samples", key->samples);
	attr_u64(l->fp, "data-timed", key->timed);
	fprintf(l->fp, ">\n");
	write_title(l, key);
	write_axes(l);
	for (c = 0; grid && c < KVM_EVENTS_HEATMAP_COLUMNS; c++) {
		for (b = 0; grid->col[c] && b < KVM_EVENTS_LOG2_BUCKETS; b++) {
			if (grid->col[c][b])
				write_cell(l, key, c, b, grid->col[c][b]);
		}
	}
	fprintf(l->fp, "</g>\n");
}

static void write_svg(struct layout *l)
{
	u64 left_keys = 0, left_samples = 0, left_timed = 0;
	int rows = (int)((l->nr_panels + PANELS_PER_ROW - 1) / PANELS_PER_ROW);
	int height = HEAD_H + rows * (panel_height(l) + MARGIN) + MARGIN;
	size_t i;

	for (i = l->nr_panels; i < l->nr_keys; i++) {
		left_keys++;
		left_samples += l->keys[i]->samples;
		left_timed += l->keys[i]->timed;
	}
	fprintf(l->fp, "<?xml version='1.0' encoding='UTF-8'?>\n"
		"<svg xmlns='http://www.w3.org/2000/svg' width='%d' height='%d' viewBox='0 0 %d %d' font-family='sans-serif' font-size='11'",
		SVG_W, height, SVG_W, height);
	fprintf(l->fp, " data-analysis='%s'", kvm_events_analysis__name(l->d->report->analysis));
	attr_u64(l->fp, "data-origin", l->heatmap->origin);
	attr_u64(l->fp, "data-width", l->heatmap->width);
	attr_u64(l->fp, "data-columns", l->columns);
	attr_u64(l->fp, "data-keys", l->nr_keys);
	attr_u64(l->fp, "data-left-out-keys", left_keys);
	attr_u64(l->fp, "data-left-out-samples", left_samples);
	attr_u64(l->fp, "data-left-out-timed", left_timed);
	attr_u64(l->fp, "data-no-memory", l->heatmap->no_memory);
	fprintf(l->fp, ">\n<title>perf kvm-events heatmap</title>\n");
	fprintf(l->fp, "<rect width='100%%' height='100%%' fill='#fff'/>\n");
	write_head(l, left_keys, left_samples, left_timed);
	if (!l->nr_keys)
		fprintf(l->fp, "<text x='%d' y='%d'>No samples.</text>\n", MARGIN, HEAD_H + 20);
	for (i = 0; i < l->nr_panels; i++)
		write_panel(l, i, HEAD_H + (int)(i / PANELS_PER_ROW) * (panel_height(l) + MARGIN));
	fprintf(l->fp, "</svg>\n");
}

/* A write that failed, whether fprintf() or fclose() saw it */
static int close_svg(FILE *fp)
{
	int err = ferror(fp) ? (errno ?: EIO) : 0;

	if (fclose(fp) && !err)
		err = errno ?: EIO;
	return -err;
}

static struct kvm_events_key **busiest_keys(struct kvm_events_report *report, size_t *nr)
{
	static const struct kvm_events_sort_keys by_name = { .nr = 0 };
	struct kvm_events_key **keys = kvm_events_report__sorted(report, &by_name, nr);

	if (keys)
		qsort(keys, *nr, sizeof(*keys), compare_busiest);
	return keys;
}

int kvm_events_heatmap__write(const struct kvm_events_heatmap *heatmap,
			      const struct kvm_events_display *d, const char *path)
{
	struct layout l = { .d = d, .heatmap = heatmap };
	int ret = 0;

	l.keys = busiest_keys(d->report, &l.nr_keys);
	if (!l.keys) {
		pr_err("perf kvm-events report: --heatmap %s: out of memory\n", path);
		return -ENOMEM;
	}
	l.fp = fopen(path, "w");
	if (!l.fp) {
		ret = -errno;
		pr_err("perf kvm-events report: --heatmap %s: %s\n", path, strerror(errno));
		free(l.keys);
		return ret;
	}
	l.nr_panels = min_t(size_t, l.nr_keys, KVM_EVENTS_HEATMAP_PANELS);
	l.columns = drawn_columns(l.heatmap, d->report->totals.last_time);
	layout__measure(&l);
	write_svg(&l);
	ret = close_svg(l.fp);
	if (ret)
		pr_err("perf kvm-events report: --heatmap %s: %s\n", path, strerror(-ret));
	if (!ret && l.heatmap->no_memory) {
		pr_err("perf kvm-events report: --heatmap %s: out of memory: %llu samples left out of it\n",
		       path, (unsigned long long)l.heatmap->no_memory);
		ret = -ENOMEM;
	}
	free(l.keys);
	return ret;
}
