// SPDX-License-Identifier: GPL-2.0
/*
 * Guest code sites as keys (--key rip and --key sym), and the guest's
 * symbols that name them (--guest-kallsyms): its /proc/kallsyms,
 * or a System.map, which has the same lines (ADDRESS TYPE NAME, then a
 * tab and [MODULE] for a module's symbol).
 *
 * Neither gives a symbol's size.  A RIP is in the symbol that starts last
 * at or before it, of any type, so that a data symbol or an end marker
 * (_etext, _end) ends the function before it; a RIP named by a symbol
 * that is not a function, before the first symbol or at or past the
 * last one, is unknown, and stays hex.
 *
 * libsymbol's kallsyms__parse() skips a line it cannot read; this parse
 * stops at it, and names it, so that a file that is no kallsyms is an
 * error rather than a report of hex.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/ctype.h>
#include <linux/zalloc.h>
#include <symbol/kallsyms.h>

#include "debug.h"
#include "kvm-events.h"
#include "kvm-events-sites.h"

struct guest_symbol {
	u64	start;
	size_t	line;		/* of the file: the first of equal starts wins */
	bool	function;
	char	*name;
};

struct guest_symbol_list {
	struct guest_symbol	*syms;
	size_t			nr, alloc;
};

/* ADDRESS TYPE NAME, and a tab and [MODULE] for a module's symbol */
static bool parse_line(char *line, struct guest_symbol *sym)
{
	char *end, *name;

	if (!isxdigit(line[0]))
		return false;
	sym->start = strtoull(line, &end, 16);
	if (end[0] != ' ' || !isalpha(end[1]) || end[2] != ' ')
		return false;
	sym->function = kallsyms__is_function(end[1]);
	name = end + 3;
	end = name + strcspn(name, " \t\n");
	if (end == name || (*end && *end != '\n' && *end != '\t'))
		return false;
	if (*end == '\t' && (end[1] != '[' || !strchr(end + 2, ']')))
		return false;
	*end = '\0';
	sym->name = strdup(name);
	return sym->name != NULL;
}

static int list__add(struct guest_symbol_list *list, const struct guest_symbol *sym)
{
	if (list->nr == list->alloc) {
		size_t alloc = list->alloc ? list->alloc * 2 : 1024;
		void *grown = reallocarray(list->syms, alloc, sizeof(*sym));

		if (!grown)
			return -ENOMEM;
		list->syms = grown;
		list->alloc = alloc;
	}
	list->syms[list->nr++] = *sym;
	return 0;
}

static int read_symbols(FILE *fp, const char *path, struct guest_symbol_list *list)
{
	size_t size = 0, nr = 0;
	char *line = NULL;
	u64 any_address = 0;
	int ret = 0;

	while (!ret && getline(&line, &size, fp) > 0) {
		struct guest_symbol sym = { .line = ++nr };

		if (!parse_line(line, &sym)) {
			pr_err("%s:%zu: not a kallsyms or System.map line (ADDRESS TYPE NAME): %.60s\n",
			       path, nr, strtok(line, "\n") ?: "");
			ret = -EINVAL;
			break;
		}
		any_address |= sym.start;
		ret = list__add(list, &sym);
		if (ret)
			free(sym.name);
	}
	free(line);
	if (!ret && !nr) {
		pr_err("%s: empty: no guest symbol\n", path);
		ret = -EINVAL;
	} else if (!ret && !any_address) {
		pr_err("%s: every address is 0: read the guest's /proc/kallsyms as root (kptr_restrict hides them)\n",
		       path);
		ret = -EINVAL;
	}
	return ret;
}

static int symbol__cmp(const void *a, const void *b)
{
	const struct guest_symbol *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

/*
 * One entry per start, in order: a function's name, or NULL where the
 * start is not a function's (no name to give the RIPs after it).
 */
static int symbols__index(struct kvm_events_guest_symbols *syms,
			  struct guest_symbol_list *list)
{
	size_t i;

	qsort(list->syms, list->nr, sizeof(*list->syms), symbol__cmp);
	syms->functions = calloc(list->nr, sizeof(*syms->functions));
	if (!syms->functions)
		return -ENOMEM;
	for (i = 0; i < list->nr; i++) {
		struct guest_symbol *sym = &list->syms[i];

		if (syms->nr && syms->functions[syms->nr - 1].start == sym->start)
			continue;
		syms->functions[syms->nr].start = sym->start;
		if (sym->function) {
			syms->functions[syms->nr].name = sym->name;
			sym->name = NULL;
		}
		syms->nr++;
	}
	return 0;
}

int kvm_events_guest_symbols__load(struct kvm_events_guest_symbols *syms,
				   const char *path)
{
	struct guest_symbol_list list = { .syms = NULL };
	FILE *fp = fopen(path, "r");
	size_t i;
	int ret;

	memset(syms, 0, sizeof(*syms));
	if (!fp) {
		pr_err("%s: cannot open the guest's symbols: %s\n", path, strerror(errno));
		return -errno;
	}
	ret = read_symbols(fp, path, &list);
	fclose(fp);
	if (!ret)
		ret = symbols__index(syms, &list);
	for (i = 0; i < list.nr; i++)
		free(list.syms[i].name);
	free(list.syms);
	if (ret)
		kvm_events_guest_symbols__exit(syms);
	return ret;
}

void kvm_events_guest_symbols__exit(struct kvm_events_guest_symbols *syms)
{
	size_t i;

	for (i = 0; i < syms->nr; i++)
		free(syms->functions[i].name);
	zfree(&syms->functions);
	syms->nr = 0;
}

/* The function @rip is in, or NULL: see the top of this file. */
const struct kvm_events_guest_function *
kvm_events_guest_symbols__find(const struct kvm_events_guest_symbols *syms, u64 rip)
{
	size_t lo = 0, hi = syms->nr;

	/* The first start past @rip */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (syms->functions[mid].start <= rip)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || lo == syms->nr || !syms->functions[lo - 1].name)
		return NULL;
	return &syms->functions[lo - 1];
}

/* The key of the site of @rip: the rip, or for sym its function's start */
u64 kvm_events_report__site_key(const struct kvm_events_report *report, u64 rip)
{
	const struct kvm_events_guest_function *f;

	if (report->opts.site != KVM_EVENTS_SITE_SYM || !report->opts.guest_symbols)
		return rip;
	f = kvm_events_guest_symbols__find(report->opts.guest_symbols, rip);
	return f ? f->start : rip;
}

const char *kvm_events_site__column(enum kvm_events_site site)
{
	return site == KVM_EVENTS_SITE_SYM ? "GUEST-FUNCTION" : "GUEST-RIP";
}

void kvm_events_site__key_name(const struct kvm_events_report *report, u64 key,
			       char *buf, size_t size)
{
	const struct kvm_events_guest_function *f = NULL;

	if (report->opts.guest_symbols)
		f = kvm_events_guest_symbols__find(report->opts.guest_symbols, key);
	if (!f)
		snprintf(buf, size, "0x%" PRIx64, key);
	else if (report->opts.site == KVM_EVENTS_SITE_SYM)
		snprintf(buf, size, "%s", f->name);
	else
		snprintf(buf, size, "%s+0x%" PRIx64, f->name, key - f->start);
}
