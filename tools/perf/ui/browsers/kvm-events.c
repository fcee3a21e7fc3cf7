// SPDX-License-Identifier: GPL-2.0
/*
 * perf kvm-events --tui: the report's table on one screen, refreshed in
 * place on live's timer, with keys to sort, filter, switch analysis and
 * open a key's detail.  What it shows is util/kvm-events-browse.c's; this
 * is the terminal, on perf's ui_browser and libslang, which redraws only
 * the lines that changed.  live's main thread may write a message to
 * the helpline while this draws: slang is used under ui__lock only.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/kernel.h>
#include <linux/zalloc.h>

#include "../browser.h"
#include "../helpline.h"
#include "../keysyms.h"
#include "../libslang.h"
#include "../ui.h"
#include "../../util/debug.h"
#include "../../util/kvm-events-browse.h"
#include "../../util/time-utils.h"

/* Room for a line: the widest table, percentiles and on/off CPU included */
#define LINE_SIZE	1024
/* Columns that the left and right keys scroll by */
#define SCROLL_STEP	8

static const char help_text[] =
	"perf kvm-events browser\n\n"
	"UP/DOWN/PGUP/PGDN/HOME/END  move\n"
	"LEFT/RIGHT  scroll the columns\n"
	"ENTER       the key's detail: per VM and vcpu, percentiles, histogram\n"
	"o / O       sort by the next / previous column\n"
	"e           the next analysis (a recording is read again; live starts over)\n"
	"p           the next VM (pid), then all\n"
	"v           the next vcpu of the VMs shown, then all\n"
	"i           the last interval or since the start (live)\n"
	"P           pause or resume the refreshes (live)\n"
	"h / ?       this help\n"
	"q / ESC / ^C  quit";

static const char helpline[] =
	"q quit | ENTER detail | o sort | e event | p VM | v vcpu | i interval | P pause | h help";

struct kvm_events_browser {
	struct ui_browser		b;
	struct kvm_events_browse	*model;
	/* What a refresh costs, for -v: the rows made again and drawn */
	unsigned int			nr_refreshes;
	u64				slowest_ns;
	size_t				slowest_keys;
};


static void write_line(struct ui_browser *b, const char *line)
{
	size_t len = strlen(line), skip = (size_t)b->horiz_scroll * SCROLL_STEP;

	ui_browser__write_nstring(b, skip < len ? line + skip : "", b->width);
}

/* The two lines under the title: the counts' summary, the columns' names */
static void browser__write_header(struct kvm_events_browser *kb)
{
	char line[LINE_SIZE];

	ui_browser__set_color(&kb->b, HE_COLORSET_NORMAL);
	kvm_events_browse__summary(kb->model, line, sizeof(line));
	ui_browser__gotorc_title(&kb->b, 0, 0);
	ui_browser__write_nstring(&kb->b, line, kb->b.width + 1);
	kvm_events_browse__columns(kb->model, line, sizeof(line));
	ui_browser__set_color(&kb->b, HE_COLORSET_ROOT);
	ui_browser__gotorc_title(&kb->b, 1, 0);
	write_line(&kb->b, line);
}

static unsigned int browser__refresh(struct ui_browser *b)
{
	struct kvm_events_browser *kb = container_of(b, struct kvm_events_browser, b);
	char line[LINE_SIZE];
	unsigned int row;

	browser__write_header(kb);
	for (row = 0; row < b->rows && b->top_idx + row < b->nr_entries; row++) {
		ui_browser__set_color(b, ui_browser__is_current_entry(b, row) ?
				      HE_COLORSET_SELECTED : HE_COLORSET_NORMAL);
		kvm_events_browse__row(kb->model, b->top_idx + row, line, sizeof(line));
		ui_browser__gotorc(b, row, 0);
		write_line(b, line);
	}
	return row;
}

/* Rows are drawn by index: nothing to move */
static void browser__seek(struct ui_browser *b __maybe_unused, off_t offset __maybe_unused,
			  int whence __maybe_unused)
{
}

static void browser__update(struct kvm_events_browser *kb)
{
	char title[LINE_SIZE], line[LINE_SIZE];

	kvm_events_browse__title(kb->model, title, sizeof(title));
	kvm_events_browse__columns(kb->model, line, sizeof(line));
	kb->b.columns = strlen(line) / SCROLL_STEP + 1;
	ui_browser__update_nr_entries(&kb->b, kb->model->nr);
	if (kb->b.index >= kb->model->nr)
		kb->b.index = kb->model->nr ? kb->model->nr - 1 : 0;
	if (kb->b.top_idx > kb->b.index)
		kb->b.top_idx = kb->b.index;
	free(kb->b.title);
	kb->b.title = strdup(title);
	ui_browser__show_title(&kb->b, title);
	mutex_lock(&ui__lock);
	ui_helpline__puts(kb->model->message[0] ? kb->model->message : helpline);
	mutex_unlock(&ui__lock);
	kb->model->message[0] = '\0';
}

/* The lines of @text, for the detail browser */
static char **split_lines(char *text, u32 *nr)
{
	char **lines = NULL, *line;
	u32 n = 0;

	/* Blank lines too: they set the detail's parts apart. */
	while ((line = strsep(&text, "\n")) && (*line || text)) {
		char **p = reallocarray(lines, n + 1, sizeof(*lines));

		if (!p) {
			free(lines);
			return NULL;
		}
		lines = p;
		lines[n++] = line;
	}
	*nr = n;
	return lines;
}

static void detail__write(struct ui_browser *b, void *entry, int row)
{
	ui_browser__set_color(b, ui_browser__is_current_entry(b, row) ?
			      HE_COLORSET_SELECTED : HE_COLORSET_NORMAL);
	write_line(b, *(char **)entry);
}

/* Row @i's detail, until q, ESC or LEFT go back to the table */
static int browser__detail(struct kvm_events_browser *kb, size_t i)
{
	struct ui_browser detail = {
		.refresh = ui_browser__argv_refresh,
		.seek	 = ui_browser__argv_seek,
		.write	 = detail__write,
	};
	char *text = NULL, title[LINE_SIZE];
	size_t size = 0;
	FILE *fp = open_memstream(&text, &size);
	int ret = fp ? kvm_events_browse__detail(kb->model, i, fp) : -ENOMEM;
	u32 nr = 0;
	int key;

	if (fp)
		fclose(fp);
	if (!ret)
		detail.entries = split_lines(text, &nr);
	if (!ret && !detail.entries)
		ret = -ENOMEM;
	detail.nr_entries = nr;
	detail.columns = 0;
	snprintf(title, sizeof(title), "perf kvm-events %s: %s", kb->model->src->title,
		 kb->model->keys[i]->name);
	if (!ret && !ui_browser__show(&detail, title, "q/ESC/LEFT back to the table")) {
		do {
			key = ui_browser__run(&detail, 0);
		} while (key != 'q' && key != K_ESC && key != K_LEFT);
		ui_browser__hide(&detail);
	}
	free(detail.entries);
	free(text);
	return ret;
}

static int browser__key(struct kvm_events_browser *kb, int key)
{
	struct kvm_events_browse *m = kb->model;

	switch (key) {
	case K_ENTER:
		return m->nr ? browser__detail(kb, kb->b.index) : 0;
	case 'o':
		return kvm_events_browse__next_sort(m, 1);
	case 'O':
		return kvm_events_browse__next_sort(m, -1);
	case 'e':
		return kvm_events_browse__next_analysis(m);
	case 'p':
		return kvm_events_browse__next_pid(m);
	case 'v':
		return kvm_events_browse__next_vcpu(m);
	case 'i':
		return kvm_events_browse__toggle_interval(m);
	case 'P':
		kvm_events_browse__toggle_pause(m);
		return 0;
	case 'h':
	case '?':
		ui_browser__help_window(&kb->b, help_text);
		return 0;
	default:
		return 0;
	}
}

/* A timer's refresh: the rows made again and drawn, timed */
static int browser__tick(struct kvm_events_browser *kb)
{
	u64 start = rdclock(), took;
	int ret = kb->model->paused ? 0 : kvm_events_browse__tick(kb->model);

	if (ret || kb->model->paused)
		return ret;
	browser__update(kb);
	ui_browser__refresh(&kb->b);
	mutex_lock(&ui__lock);
	SLsmg_refresh();
	mutex_unlock(&ui__lock);
	took = rdclock() - start;
	kb->nr_refreshes++;
	if (took > kb->slowest_ns) {
		kb->slowest_ns = took;
		kb->slowest_keys = kb->model->nr;
	}
	return 0;
}

static int browser__loop(struct kvm_events_browser *kb)
{
	int ret = 0, key = K_TIMER;

	if (ui_browser__show(&kb->b, "perf kvm-events", helpline) < 0)
		return -ENOMEM;
	while (!ret) {
		ret = key == K_TIMER ? browser__tick(kb) : browser__key(kb, key);
		if (ret)
			break;
		browser__update(kb);
		key = ui_browser__run(&kb->b, kb->model->src->delay);
		if (key == 'q' || key == K_ESC)
			break;
	}
	ui_browser__hide(&kb->b);
	return ret;
}

int kvm_events_browse__run(struct kvm_events_browse_source *src,
			   const struct kvm_events_analysis *analysis)
{
	struct kvm_events_browse model;
	struct kvm_events_browser kb = {
		.b = {
			.refresh	   = browser__refresh,
			.seek		   = browser__seek,
			.extra_title_lines = 2,
		},
		.model = &model,
	};
	int ret = kvm_events_browse__init(&model, src, analysis);

	if (ret)
		return ret;
	use_browser = 1;
	setup_browser(false);
	/* setup_browser() falls back to stdio where the terminal fails it. */
	if (use_browser != 1)
		ret = -ENOTTY;
	else
		ret = browser__loop(&kb);
	exit_browser(false);
	/* Messages from now on go to stderr, not to the browser's helpline. */
	use_browser = 0;
	kvm_events_browse__exit(&model);
	if (ret)
		pr_err("perf kvm-events %s: the browser: %s\n", src->title, strerror(-ret));
	pr_debug("perf kvm-events %s: the browser: %u refreshes, the slowest %.3f ms with %zu keys\n",
		 src->title, kb.nr_refreshes, kb.slowest_ns / 1e6, kb.slowest_keys);
	return ret;
}
