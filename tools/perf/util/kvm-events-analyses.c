// SPDX-License-Identifier: GPL-2.0
/*
 * The table of the analyses of perf kvm-events.  Each analysis is a
 * struct kvm_events_analysis in a file of its own; adding one is adding
 * its file and its entry here.  Names and help texts come from the table.
 */
#include <stdio.h>
#include <string.h>
#include <linux/bits.h>
#include <linux/kernel.h>

#include "kvm-events-analysis.h"
#include "kvm-events-arch.h"

static const struct kvm_events_analysis *const analyses[] = {
	&kvm_events_analysis_vmexit,
	&kvm_events_analysis_mmio,
	&kvm_events_analysis_ioport,
	&kvm_events_analysis_userspace,
	&kvm_events_analysis_msr,
	&kvm_events_analysis_hypercall,
	&kvm_events_analysis_halt,
};

static bool has_analysis(const struct kvm_events_analysis **chosen, size_t nr,
			 const struct kvm_events_analysis *analysis)
{
	while (nr--) {
		if (chosen[nr] == analysis)
			return true;
	}
	return false;
}

/*
 * The analyses of @list, a comma separated list of names or "all", or the
 * default ones for NULL, at most @max; 0 if a name is unknown.
 */
size_t kvm_events_analyses_of(const char *list, const struct kvm_events_analysis **chosen,
			      size_t max)
{
	const struct kvm_events_analysis *analysis;
	size_t i, len, nr = 0;
	char name[32];

	for (i = 0; i < ARRAY_SIZE(analyses) && nr < max; i++) {
		if (list ? !strcmp(list, "all") : analyses[i]->by_default)
			chosen[nr++] = analyses[i];
	}
	if (!list || nr)
		return nr;
	for (; *list; list += len + !!list[len]) {
		len = strcspn(list, ",");
		if (len >= sizeof(name))
			return 0;
		memcpy(name, list, len);
		name[len] = '\0';
		if (!strcmp(name, "all"))
			return kvm_events_analyses_of(name, chosen, max);
		analysis = kvm_events_analysis__find(name);
		if (!analysis)
			return 0;
		if (nr < max && !has_analysis(chosen, nr, analysis))
			chosen[nr++] = analysis;
	}
	return nr;
}

/*
 * The tracepoints record takes for @list, as kvm_events_analyses_of()
 * reads it; 0 if a name is unknown.
 */
u32 kvm_events_record_tps(const char *list)
{
	const struct kvm_events_analysis *chosen[ARRAY_SIZE(analyses)];
	size_t i, nr = kvm_events_analyses_of(list, chosen, ARRAY_SIZE(chosen));
	u32 tps = 0;

	/* All of them: every tracepoint, of any analysis to come */
	if (nr == ARRAY_SIZE(analyses))
		return GENMASK(KVM_TP__NR - 1, 0);
	for (i = 0; i < nr; i++)
		tps |= list ? chosen[i]->record_tps ?: chosen[i]->tps : chosen[i]->tps;
	return tps;
}

/* The tracepoints without which @analysis counts nothing */
u32 kvm_events_analysis__needs(const struct kvm_events_analysis *analysis)
{
	return analysis->needs;
}

const struct kvm_events_analysis *kvm_events_analysis__find(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(analyses); i++) {
		if (!strcmp(analyses[i]->name, name))
			return analyses[i];
	}
	return NULL;
}

/* "vmexit, mmio, ...": for help texts and errors */
const char *kvm_events_analysis__names(void)
{
	static char names[128];
	size_t i, len = 0;

	if (names[0])
		return names;
	for (i = 0; i < ARRAY_SIZE(analyses); i++)
		len += scnprintf(names + len, sizeof(names) - len, "%s%s",
				 i ? ", " : "", analyses[i]->name);
	return names;
}

/* The analysis after @analysis in the table, the first after NULL; NULL after the last */
const struct kvm_events_analysis *
kvm_events_analysis__next(const struct kvm_events_analysis *analysis)
{
	size_t i;

	for (i = 0; analysis && i < ARRAY_SIZE(analyses) && analyses[i] != analysis; i++)
		;
	i = analysis ? i + 1 : 0;
	return i < ARRAY_SIZE(analyses) ? analyses[i] : NULL;
}

const char *kvm_events_analysis__name(const struct kvm_events_analysis *analysis)
{
	return analysis->name;
}

const char *kvm_events_analysis__column(const struct kvm_events_analysis *analysis)
{
	return analysis->column;
}

void kvm_events_report__key_name(const struct kvm_events_report *report, u64 key,
				 char *buf, size_t size)
{
	/* A key's name: a guest code site's */
	if (report->opts.site) {
		kvm_events_site__key_name(report, key, buf, size);
		return;
	}
	kvm_events_analysis__key_name(report->analysis, key, buf, size);
}

const char *kvm_events_report__column(const struct kvm_events_report *report)
{
	/* The keys' column: guest code sites */
	if (report->opts.site)
		return kvm_events_site__column(report->opts.site);
	return kvm_events_analysis__column(report->analysis);
}

bool kvm_events_report__is_idle(const struct kvm_events_report *report, u64 key)
{
	/* A guest code site is never the idle time of --split-idle. */
	if (report->opts.site)
		return false;
	return kvm_events_analysis__is_idle(report->analysis, key);
}

void kvm_events_analysis__key_name(const struct kvm_events_analysis *analysis,
				   u64 key, char *buf, size_t size)
{
	analysis->key_name(key, buf, size);
}

bool kvm_events_analysis__is_idle(const struct kvm_events_analysis *analysis,
				  u64 key)
{
	return analysis->is_idle && analysis->is_idle(key);
}
