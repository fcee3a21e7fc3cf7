/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_KVM_EVENTS_DISPLAY_JSON_H
#define __PERF_KVM_EVENTS_DISPLAY_JSON_H

/*
 * The report as JSON and CSV, for scripts: every statistic of every key.
 * It takes the cells' values from the table printer's shared part
 * (kvm-events-display.h), which never calls back into it.
 */
#include <stdbool.h>
#include <stdio.h>
#include <linux/types.h>

struct kvm_events_display;
struct kvm_events_key;

/* JSON and CSV of a report: every statistic of @keys, sorted by group */
void kvm_events_display__json(const struct kvm_events_display *d,
			      struct kvm_events_key **keys, size_t nr, FILE *fp);
void kvm_events_display__csv(const struct kvm_events_display *d,
			     struct kvm_events_key **keys, size_t nr, FILE *fp);
/* For diff's JSON and CSV too: a JSON string, escaped, and u64 fields */
void kvm_events_json_string(const char *str, FILE *fp);
/* "name": value, or null where not @known */
void kvm_events_json_u64(const char *name, u64 value, bool known, FILE *fp);
/* ,value or an empty CSV cell where not @known */
void kvm_events_csv_u64(u64 value, bool known, FILE *fp);

#endif /* __PERF_KVM_EVENTS_DISPLAY_JSON_H */
