// SPDX-License-Identifier: GPL-2.0
/*
 * perf kvm-events live: what a refresh's interval table holds, from the
 * counts since the start at two refreshes, without a kernel.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/kernel.h>

#include "debug.h"
#include "tests.h"
#include "util/kvm-events.h"
#include "util/kvm-events-display.h"
#include "util/kvm-events-live.h"

static void set_key(struct kvm_events_key *key, const char *name, u32 group,
		    u64 samples, u64 timed, u64 total_ns)
{
	snprintf(key->name, sizeof(key->name), "%s", name);
	key->group = group;
	key->samples = samples;
	key->timed = timed;
	key->total_ns = total_ns;
	/* Statistics since the start, which an interval cannot subtract */
	key->stats.n = timed;
	key->stats.max = 999;
}

static bool row_is(const struct kvm_events_key *row, const char *name, u32 group,
		   u64 samples, u64 timed, u64 total_ns)
{
	if (strcmp(row->name, name) || row->group != group || row->samples != samples ||
	    row->timed != timed || row->total_ns != total_ns || row->stats.n || row->stats.max) {
		pr_debug("row %s/%u: %llu samples, %llu timed, %llu ns; expected %s/%u: %llu, %llu, %llu\n",
			 row->name, row->group, (unsigned long long)row->samples,
			 (unsigned long long)row->timed, (unsigned long long)row->total_ns,
			 name, group, (unsigned long long)samples, (unsigned long long)timed,
			 (unsigned long long)total_ns);
		return false;
	}
	return true;
}

/*
 * Three refreshes: the first shows everything, the second only what
 * each key gained (a key that gained nothing is left out, a new one comes
 * whole), the third, after nothing happened, no row.  Keys of the same
 * name in two groups (--per-vcpu) are told apart.
 */
static int test__kvm_events_live_interval(struct test_suite *test __maybe_unused,
					  int subtest __maybe_unused)
{
	struct kvm_events_key hlt0 = {}, hlt1 = {}, io = {}, msr = {};
	struct kvm_events_key *keys[] = { &hlt0, &hlt1, &io, &msr };
	struct kvm_events_interval iv;

	TEST_ASSERT_VAL("init", !kvm_events_interval__init(&iv));
	set_key(&hlt0, "HLT", 0, 5, 4, 400);
	set_key(&hlt1, "HLT", 1, 2, 2, 100);
	TEST_ASSERT_VAL("first update", !kvm_events_interval__update(&iv, keys, 2));
	TEST_ASSERT_VAL("first: 2 rows", iv.nr == 2);
	TEST_ASSERT_VAL("first: HLT/0 whole", row_is(iv.keys[0], "HLT", 0, 5, 4, 400));
	TEST_ASSERT_VAL("first: HLT/1 whole", row_is(iv.keys[1], "HLT", 1, 2, 2, 100));

	/* HLT/0 gains 3 samples, 3 timed, 600 ns; HLT/1 nothing; two new keys */
	set_key(&hlt0, "HLT", 0, 8, 7, 1000);
	set_key(&io, "IO_INSTRUCTION", 0, 1, 0, 0);
	set_key(&msr, "MSR_WRITE", 1, 7, 6, 4242);
	TEST_ASSERT_VAL("second update", !kvm_events_interval__update(&iv, keys, 4));
	TEST_ASSERT_VAL("second: 3 rows", iv.nr == 3);
	TEST_ASSERT_VAL("second: HLT/0 gained", row_is(iv.keys[0], "HLT", 0, 3, 3, 600));
	TEST_ASSERT_VAL("second: IO, new, untimed",
			row_is(iv.keys[1], "IO_INSTRUCTION", 0, 1, 0, 0));
	TEST_ASSERT_VAL("second: MSR_WRITE, new", row_is(iv.keys[2], "MSR_WRITE", 1, 7, 6, 4242));

	/* The end of HLT/0's last exit comes late: time, but no sample */
	set_key(&hlt0, "HLT", 0, 8, 8, 1250);
	TEST_ASSERT_VAL("third update", !kvm_events_interval__update(&iv, keys, 4));
	TEST_ASSERT_VAL("third: no row without a sample", iv.nr == 0);

	/* ...and counts with the next sample of its key */
	set_key(&hlt0, "HLT", 0, 9, 9, 1400);
	TEST_ASSERT_VAL("fourth update", !kvm_events_interval__update(&iv, keys, 4));
	TEST_ASSERT_VAL("fourth: 1 row", iv.nr == 1);
	TEST_ASSERT_VAL("fourth: HLT/0, 2 timed", row_is(iv.keys[0], "HLT", 0, 1, 2, 400));
	kvm_events_interval__exit(&iv);
	return TEST_OK;
}

/* The interval's label: its measured length, in hundredths of a second */
static int test__kvm_events_live_label(struct test_suite *test __maybe_unused,
				       int subtest __maybe_unused)
{
	struct kvm_events_report report = {
		.analysis = kvm_events_analysis__find("vmexit"),
	};
	struct kvm_events_display display = { .report = &report };
	struct kvm_events_key hlt = {}, *keys[] = { &hlt };
	char *text = NULL;
	size_t size = 0;
	FILE *fp = open_memstream(&text, &size);
	bool ok;

	TEST_ASSERT_VAL("memstream", fp);
	set_key(&hlt, "HLT", 0, 3, 3, 600);
	kvm_events_display__interval(&display, keys, 1, 1.004999, fp);
	fclose(fp);
	pr_debug("%s", text);
	ok = !strncmp(text, "Last 1.00s:\n", 12) &&
	     strstr(text, "\nSamples:3 in the last interval.\n");
	free(text);
	TEST_ASSERT_VAL("label and total", ok);
	return TEST_OK;
}

static struct test_case kvm_events_live_tests[] = {
	TEST_CASE("kvm-events live: each refresh's table holds what its interval added",
		  kvm_events_live_interval),
	TEST_CASE("kvm-events live: the interval is labelled with its length",
		  kvm_events_live_label),
	{ .name = NULL, }
};

struct test_suite suite__kvm_events_live = {
	.desc = "kvm-events live interval accounting",
	.test_cases = kvm_events_live_tests,
};
