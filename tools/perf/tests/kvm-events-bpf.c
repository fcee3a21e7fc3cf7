// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of perf kvm-events live --use-bpf's program, kvm_events_pair.bpf.c.
 *
 * Hosts without /dev/kvm never fire the kvm tracepoints, so the pairing
 * is proven on tracepoints whose count the test controls: the same
 * program, configured as for an analysis, begins at sys_enter_getppid,
 * keyed by its __syscall_nr, and ends at sys_exit_getppid.  The test
 * makes N getppid() calls and finds exactly N pairs in the maps.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <traceevent/event-parse.h>
#include <linux/bits.h>
#include <linux/err.h>
#include <linux/kernel.h>

#include "debug.h"
#include "tests.h"
#include "util/bpf-kvm-events.h"
#include "util/bpf_skel/kvm_events_pair.h"
#include "util/kvm-events.h"
#include "util/kvm-events-analysis.h"
#include "util/latency-dist.h"
#include "util/trace-event.h"

/* Room for every bucket of a u64 duration */
#define MAX_BUCKET	(58 << 7)

/* The bucket layouts of the program and of latency-dist.c agree. */
static int test__kvm_events_bpf_buckets(struct test_suite *test __maybe_unused,
					int subtest __maybe_unused)
{
	u64 v;
	int shift;

	for (v = 0; v < 4096; v++)
		TEST_ASSERT_VAL("bucket of a small value",
				kvm_events_bpf_bucket_of(v) == latency_dist__bucket(v));
	for (shift = 7; shift < 64; shift++) {
		v = 1ULL << shift;
		TEST_ASSERT_VAL("bucket of 2^n",
				kvm_events_bpf_bucket_of(v) == latency_dist__bucket(v));
		TEST_ASSERT_VAL("bucket of 2^n - 1",
				kvm_events_bpf_bucket_of(v - 1) == latency_dist__bucket(v - 1));
		TEST_ASSERT_VAL("bucket of 2^n + 2^(n-1) + 3",
				kvm_events_bpf_bucket_of(v + v / 2 + 3) ==
				latency_dist__bucket(v + v / 2 + 3));
	}
	TEST_ASSERT_VAL("last bucket", kvm_events_bpf_bucket_of(~0ULL) == MAX_BUCKET - 1 &&
			latency_dist__bucket(~0ULL) == MAX_BUCKET - 1);
	TEST_ASSERT_VAL("middle of 1000 ns's bucket",
			latency_dist__bucket_value(latency_dist__bucket(1000)) == 1002);
	return TEST_OK;
}

#ifdef HAVE_BPF_SKEL
/* The begin events' key, and the labels the test gives its tracepoints */
#define BEGIN_TP	KVM_TP_PIO
#define END_TP		KVM_TP_ENTRY
#define NR_CALLS	1000

static bool getppid_begin(const struct kvm_events_sample *s, u64 *key)
{
	*key = s->code;
	return s->tp == BEGIN_TP;
}

static bool getppid_end(const struct kvm_events_sample *s, u64 *key)
{
	*key = KVM_EVENTS_NO_KEY;
	return s->tp == END_TP;
}

static void getppid_key_name(u64 key, char *buf, size_t size)
{
	snprintf(buf, size, "syscall%llu", (unsigned long long)key);
}

static const struct kvm_events_analysis getppid_analysis = {
	.name = "getppid", .column = "Syscall",
	.tps = BIT(BEGIN_TP) | BIT(END_TP),
	.begin = getppid_begin, .end = getppid_end, .key_name = getppid_key_name,
};

/* syscalls:NAME as @role to @analysis, keyed by its __syscall_nr if @keyed */
static int add_syscall(struct kvm_events_bpf *bpf, const char *name, u32 role,
		       u32 tp, bool keyed, u32 analysis)
{
	struct kvm_events_bpf_slot slot = { .tp = tp };
	struct kvm_events_decoder dec = { .tp = tp };
	struct tep_event *event = trace_event__tp_format("syscalls", name);

	slot.of[analysis % KVM_EVENTS_BPF_MAX_ANALYSES].role[0] = role;
	slot.of[analysis % KVM_EVENTS_BPF_MAX_ANALYSES].keyed[0] = keyed;
	if (IS_ERR_OR_NULL(event)) {
		pr_debug("no syscalls:%s tracepoint\n", name);
		return TEST_SKIP;
	}
	if (keyed) {
		struct tep_format_field *nr = tep_find_field(event, "__syscall_nr");

		if (!nr)
			return TEST_FAIL;
		dec.code_at.offset = nr->offset;
		dec.code_at.size = nr->size;
	}
	return kvm_events_bpf__add_slot(bpf, event, &slot, &dec) ? TEST_FAIL : TEST_OK;
}

/* The program for this process, what @slots name attached: 0 or a test result */
struct syscall_slot {
	const char	*name;
	u32		role;
	u32		tp;
	bool		keyed;
	u32		analysis;	/* the program's */
};

static int start(struct kvm_events_bpf **bpfp, u32 map_entries,
		 const struct syscall_slot *slots, int nr)
{
	struct kvm_events_bpf *bpf = kvm_events_bpf__new(map_entries);
	int i, ret = TEST_OK;

	*bpfp = bpf;
	if (!bpf)
		return TEST_SKIP;
	for (i = 0; i < nr && ret == TEST_OK; i++)
		ret = add_syscall(bpf, slots[i].name, slots[i].role, slots[i].tp, slots[i].keyed,
				  slots[i].analysis);
	if (ret == TEST_OK && kvm_events_bpf__add_pid(bpf, getpid()))
		ret = TEST_FAIL;
	/* Not root, no BTF, a kernel too old for attach cookies or bpf_loop */
	if (ret == TEST_OK && kvm_events_bpf__start(bpf))
		ret = TEST_SKIP;
	return ret;
}

/* The program for @slots attached, then @check on what it counted */
static int run_check(u32 map_entries, const struct syscall_slot *slots, int nr,
		     int (*check)(struct kvm_events_bpf *bpf))
{
	struct kvm_events_bpf *bpf;
	int ret = start(&bpf, map_entries, slots, nr);

	if (ret == TEST_OK)
		ret = check(bpf);
	kvm_events_bpf__delete(bpf);
	return ret;
}

static void calls(long nr, int n)
{
	int i;

	for (i = 0; i < n; i++)
		syscall(nr, 0);
}

static struct kvm_events_bpf_key key_of(long nr, u32 tp)
{
	return (struct kvm_events_bpf_key){
		.pid = getpid(), .vcpu = KVM_EVENTS_BPF_NO_VCPU, .code = nr, .tp = tp,
	};
}

static struct kvm_events_bpf_key analysis_key_of(long nr, u32 tp, u32 analysis)
{
	struct kvm_events_bpf_key key = key_of(nr, tp);

	key.analysis = analysis;
	return key;
}

static u64 sum_buckets(struct kvm_events_bpf *bpf, const struct kvm_events_bpf_key *key)
{
	u64 sum = 0;
	u32 b;

	for (b = 0; b < MAX_BUCKET; b++)
		sum += kvm_events_bpf__bucket(bpf, key, b);
	return sum;
}

/* The nearest-rank percentile of the maps' buckets, as the report takes it */
static u64 bucket_percentile(struct kvm_events_bpf *bpf, const struct kvm_events_bpf_key *key,
			     const struct kvm_events_bpf_stats *st, double pct)
{
	u64 rank = ceil(pct / 100 * st->timed), seen = 0;
	u32 b;

	for (b = 0; b < MAX_BUCKET; b++) {
		seen += kvm_events_bpf__bucket(bpf, key, b);
		if (seen >= rank) {
			u64 v = latency_dist__bucket_value(b);

			/* As the report: a bucket's middle may lie past what was seen. */
			return v < st->min_ns ? st->min_ns : v > st->max_ns ? st->max_ns : v;
		}
	}
	return 0;
}

static const struct syscall_slot pair_slots[] = {
	{ "sys_enter_getppid", KVM_EVENTS_BPF_BEGIN, BEGIN_TP, true, 0 },
	{ "sys_exit_getppid", KVM_EVENTS_BPF_END, END_TP, false, 0 },
};

static int check_pairs(struct kvm_events_bpf *bpf)
{
	struct kvm_events_bpf_key key = key_of(SYS_getppid, BEGIN_TP);
	struct kvm_events_bpf_counts c;
	struct kvm_events_bpf_stats st;

	calls(SYS_getppid, NR_CALLS);
	kvm_events_bpf__counts(bpf, 0, &c);
	TEST_ASSERT_VAL("the key is in the map", !kvm_events_bpf__stats(bpf, &key, &st));
	TEST_ASSERT_VAL("N samples", st.samples == NR_CALLS);
	TEST_ASSERT_VAL("N paired", st.timed == NR_CALLS);
	TEST_ASSERT_VAL("no unpaired", !st.no_end && !st.no_begin);
	TEST_ASSERT_VAL("durations > 0", st.min_ns > 0 && st.max_ns >= st.min_ns);
	TEST_ASSERT_VAL("total within min and max", st.total_ns >= NR_CALLS * st.min_ns &&
			st.total_ns <= NR_CALLS * st.max_ns);
	TEST_ASSERT_VAL("N durations in the buckets", sum_buckets(bpf, &key) == NR_CALLS);
	TEST_ASSERT_VAL("min's bucket", kvm_events_bpf__bucket(bpf, &key,
						latency_dist__bucket(st.min_ns)) >= 1);
	TEST_ASSERT_VAL("N begins", c.events[0] == NR_CALLS);
	TEST_ASSERT_VAL("N ends", c.events[1] == NR_CALLS);
	TEST_ASSERT_VAL("N paired ends", c.paired_end == NR_CALLS);
	TEST_ASSERT_VAL("N keyed", c.keyed == NR_CALLS);
	TEST_ASSERT_VAL("nothing unused", !c.unused && !c.no_end && !c.no_begin);
	TEST_ASSERT_VAL("no map full", !c.full_threads && !c.full_keys && !c.full_buckets);
	return TEST_OK;
}

/* N getppid() calls: N pairs, each of them timed */
static int test__kvm_events_bpf_pairs(struct test_suite *test __maybe_unused,
				      int subtest __maybe_unused)
{
	return run_check(64, pair_slots, ARRAY_SIZE(pair_slots), check_pairs);
}

/* Analyses 0 and 1 both pair getppid: as record --use-bpf's vmexit and mmio */
static const struct syscall_slot two_analyses[] = {
	{ "sys_enter_getppid", KVM_EVENTS_BPF_BEGIN, BEGIN_TP, true, 0 },
	{ "sys_exit_getppid", KVM_EVENTS_BPF_END, END_TP, false, 0 },
	{ "sys_enter_getppid", KVM_EVENTS_BPF_BEGIN, BEGIN_TP, true, 1 },
	{ "sys_exit_getppid", KVM_EVENTS_BPF_END, END_TP, false, 1 },
};

static int check_two_analyses(struct kvm_events_bpf *bpf)
{
	struct kvm_events_bpf_key third = analysis_key_of(SYS_getppid, BEGIN_TP, 2);
	struct kvm_events_bpf_counts c;
	struct kvm_events_bpf_stats st;
	u32 a;

	TEST_ASSERT_VAL("two tracepoints, one slot each", kvm_events_bpf__nr_slots(bpf) == 2);
	calls(SYS_getppid, NR_CALLS);
	for (a = 0; a < 2; a++) {
		struct kvm_events_bpf_key key = analysis_key_of(SYS_getppid, BEGIN_TP, a);

		kvm_events_bpf__counts(bpf, a, &c);
		TEST_ASSERT_VAL("the analysis' key", !kvm_events_bpf__stats(bpf, &key, &st));
		TEST_ASSERT_VAL("N pairs of each", st.samples == NR_CALLS && st.timed == NR_CALLS);
		TEST_ASSERT_VAL("none unpaired", !st.no_end && !st.no_begin);
		TEST_ASSERT_VAL("N durations", sum_buckets(bpf, &key) == NR_CALLS);
		TEST_ASSERT_VAL("N begins, N ends", c.events[0] == NR_CALLS &&
				c.events[1] == NR_CALLS && c.paired_end == NR_CALLS);
		TEST_ASSERT_VAL("nothing else", !c.unused && !c.full_threads && !c.full_keys);
	}
	/* Analysis 2 was never configured: no key of it */
	TEST_ASSERT_VAL("no third analysis", kvm_events_bpf__stats(bpf, &third, &st));
	return TEST_OK;
}

/* One program, two analyses of the same tracepoints: each pairs them all */
static int test__kvm_events_bpf_two_analyses(struct test_suite *test __maybe_unused,
					     int subtest __maybe_unused)
{
	return run_check(64, two_analyses, ARRAY_SIZE(two_analyses), check_two_analyses);
}

static int check_report(struct kvm_events_bpf *bpf)
{
	struct kvm_events_bpf_key bkey = key_of(SYS_getppid, BEGIN_TP);
	struct kvm_events_options opts = { .percentiles = true };
	struct kvm_events_report report = {};
	struct kvm_events_bpf_stats st;
	struct kvm_events_key *key;
	char name[32];
	int ret = TEST_FAIL;

	calls(SYS_getppid, NR_CALLS);
	if (kvm_events_bpf__stats(bpf, &bkey, &st) ||
	    kvm_events_report__init(&report, &getppid_analysis, &opts) ||
	    kvm_events_bpf__read(bpf, &report, true))
		goto out;
	snprintf(name, sizeof(name), "syscall%d", SYS_getppid);
	key = kvm_events_report__key(&report, name);
	TEST_ASSERT_VAL("the report's key", key);
	TEST_ASSERT_VAL("N samples", key->samples == NR_CALLS && key->timed == NR_CALLS);
	TEST_ASSERT_VAL("the map's total", key->total_ns == st.total_ns);
	TEST_ASSERT_VAL("min and max", key->stats.min == st.min_ns && key->stats.max == st.max_ns);
	TEST_ASSERT_VAL("p50 of the buckets", kvm_events_key__percentile(key, 50) ==
			bucket_percentile(bpf, &bkey, &st, 50));
	TEST_ASSERT_VAL("p99 of the buckets", kvm_events_key__percentile(key, 99) ==
			bucket_percentile(bpf, &bkey, &st, 99));
	TEST_ASSERT_VAL("p100 is max", kvm_events_key__percentile(key, 100) == st.max_ns ||
			latency_dist__bucket(kvm_events_key__percentile(key, 100)) ==
			latency_dist__bucket(st.max_ns));
	TEST_ASSERT_VAL("totals: read", report.totals.read == 2 * NR_CALLS);
	TEST_ASSERT_VAL("totals: keyed", report.totals.keyed == NR_CALLS);
	TEST_ASSERT_VAL("totals: paired", report.totals.paired_end == NR_CALLS);
	TEST_ASSERT_VAL("totals: by tp", report.totals.by_tp[BEGIN_TP] == NR_CALLS &&
			report.totals.by_tp[END_TP] == NR_CALLS);
	ret = TEST_OK;
out:
	kvm_events_report__exit(&report);
	return ret;
}

/* The maps into a report: its counts and percentiles are the maps' */
static int test__kvm_events_bpf_report(struct test_suite *test __maybe_unused,
				       int subtest __maybe_unused)
{
	return run_check(64, pair_slots, ARRAY_SIZE(pair_slots), check_report);
}

static const struct syscall_slot begin_only[] = {
	{ "sys_enter_getppid", KVM_EVENTS_BPF_BEGIN, BEGIN_TP, true, 0 },
};

/* Keyed ends (as MMIO reads) without a begin */
static const struct syscall_slot end_only[] = {
	{ "sys_exit_getppid", KVM_EVENTS_BPF_END, BEGIN_TP, true, 0 },
};

static int check_unpaired(struct kvm_events_bpf *bpf, bool begins)
{
	struct kvm_events_bpf_key bkey = key_of(SYS_getppid, BEGIN_TP);
	struct kvm_events_options opts = { 0 };
	struct kvm_events_report report = {};
	struct kvm_events_bpf_counts c;
	struct kvm_events_bpf_stats st;
	int ret = TEST_FAIL;

	calls(SYS_getppid, NR_CALLS);
	kvm_events_bpf__counts(bpf, 0, &c);
	if (kvm_events_bpf__stats(bpf, &bkey, &st) ||
	    kvm_events_report__init(&report, &getppid_analysis, &opts) ||
	    kvm_events_bpf__read(bpf, &report, true))
		goto out;
	TEST_ASSERT_VAL("none timed", !st.timed && !sum_buckets(bpf, &bkey));
	if (begins) {
		/* Each begin cuts the one before; the last is open at the end. */
		TEST_ASSERT_VAL("N - 1 cut in the kernel", st.no_end == NR_CALLS - 1 &&
				c.no_end == NR_CALLS - 1);
		TEST_ASSERT_VAL("N without end", report.totals.no_end == NR_CALLS);
	} else {
		TEST_ASSERT_VAL("N without begin", st.no_begin == NR_CALLS &&
				c.no_begin == NR_CALLS && report.totals.no_begin == NR_CALLS);
	}
	TEST_ASSERT_VAL("all keyed", report.totals.keyed == NR_CALLS);
	ret = TEST_OK;
out:
	kvm_events_report__exit(&report);
	return ret;
}

static int check_begins_unpaired(struct kvm_events_bpf *bpf)
{
	return check_unpaired(bpf, true);
}

static int check_ends_unpaired(struct kvm_events_bpf *bpf)
{
	return check_unpaired(bpf, false);
}

static int test__kvm_events_bpf_unpaired(struct test_suite *test __maybe_unused,
					 int subtest __maybe_unused)
{
	int ret = run_check(64, begin_only, ARRAY_SIZE(begin_only), check_begins_unpaired);

	if (ret != TEST_OK)
		return ret;
	return run_check(64, end_only, ARRAY_SIZE(end_only), check_ends_unpaired);
}

/* Two keys, room for one: the second's samples are counted as dropped. */
static const struct syscall_slot two_keys[] = {
	{ "sys_enter_getppid", KVM_EVENTS_BPF_BEGIN, BEGIN_TP, true, 0 },
	{ "sys_exit_getppid", KVM_EVENTS_BPF_END, END_TP, false, 0 },
	{ "sys_enter_getpgid", KVM_EVENTS_BPF_BEGIN, BEGIN_TP, true, 0 },
	{ "sys_exit_getpgid", KVM_EVENTS_BPF_END, END_TP, false, 0 },
};

#define NR_DROPPED	300

static int check_full(struct kvm_events_bpf *bpf)
{
	struct kvm_events_bpf_key bkey = key_of(SYS_getppid, BEGIN_TP);
	struct kvm_events_bpf_key dropped = key_of(SYS_getpgid, BEGIN_TP);
	struct kvm_events_options opts = { 0 };
	struct kvm_events_report report = {};
	struct kvm_events_bpf_counts c;
	struct kvm_events_bpf_stats st;
	int ret = TEST_FAIL;

	calls(SYS_getppid, NR_CALLS);
	calls(SYS_getpgid, NR_DROPPED);
	kvm_events_bpf__counts(bpf, 0, &c);
	if (kvm_events_bpf__stats(bpf, &bkey, &st) ||
	    kvm_events_report__init(&report, &getppid_analysis, &opts) ||
	    kvm_events_bpf__read(bpf, &report, true))
		goto out;
	TEST_ASSERT_VAL("the first key whole", st.samples == NR_CALLS && st.timed == NR_CALLS);
	TEST_ASSERT_VAL("no room for the second", kvm_events_bpf__stats(bpf, &dropped, &st));
	TEST_ASSERT_VAL("its samples counted", c.full_keys == NR_DROPPED);
	TEST_ASSERT_VAL("buckets kept or counted",
			sum_buckets(bpf, &bkey) + c.full_buckets == NR_CALLS);
	TEST_ASSERT_VAL("the report says so", report.totals.no_memory == NR_DROPPED &&
			report.totals.keyed == NR_CALLS);
	ret = TEST_OK;
out:
	kvm_events_report__exit(&report);
	return ret;
}

static int test__kvm_events_bpf_full(struct test_suite *test __maybe_unused,
				     int subtest __maybe_unused)
{
	return run_check(1, two_keys, ARRAY_SIZE(two_keys), check_full);
}

/*
 * mmio's slots from its ops: kvm_exit begins, kvm_entry ends, and
 * kvm_mmio, by its type, ends a read (1) and begins a write (2), each
 * keyed, and is nothing for another type.
 */
static int check_mmio_slots(struct kvm_events_bpf *bpf)
{
	u32 i, found = 0;

	TEST_ASSERT_VAL("three slots", kvm_events_bpf__nr_slots(bpf) == 3);
	for (i = 0; i < 3; i++) {
		const struct kvm_events_bpf_slot *s = kvm_events_bpf__slot(bpf, i);
		const struct kvm_events_bpf_role_of *of = &s->of[0];

		if (s->tp == KVM_TP_EXIT && !of->by_kind &&
		    of->role[0] == KVM_EVENTS_BPF_BEGIN && !of->keyed[0])
			found |= 1;
		if (s->tp == KVM_TP_ENTRY && !of->by_kind &&
		    of->role[0] == KVM_EVENTS_BPF_END && !of->keyed[0])
			found |= 2;
		if (s->tp == KVM_TP_MMIO && of->by_kind && s->by_kind &&
		    !of->role[0] && !of->role[3] &&
		    of->role[1] == KVM_EVENTS_BPF_END && of->keyed[1] &&
		    of->role[2] == KVM_EVENTS_BPF_BEGIN && of->keyed[2] &&
		    s->code.size == 8 && s->kind.size == 4)
			found |= 4;
	}
	TEST_ASSERT_VAL("exit, entry, mmio by type", found == 7);
	return TEST_OK;
}

/* Every analysis loads and attaches on this kernel's kvm tracepoints. */
static int test__kvm_events_bpf_analyses(struct test_suite *test __maybe_unused,
					 int subtest __maybe_unused)
{
	static const char * const names[] = { "ioport", "mmio", "userspace", "halt" };
	struct kvm_events_bpf *bpf;
	size_t i;
	int ret = TEST_OK;

	if (access("/sys/kernel/tracing/events/kvm/kvm_pio", F_OK) &&
	    access("/sys/kernel/debug/tracing/events/kvm/kvm_pio", F_OK)) {
		pr_debug("no kvm tracepoints: the kvm module is not loaded\n");
		return TEST_SKIP;
	}
	for (i = 0; i < ARRAY_SIZE(names) && ret == TEST_OK; i++) {
		bpf = kvm_events_bpf__new(64);
		if (!bpf)
			return TEST_SKIP;
		if (kvm_events_bpf__add_analysis(bpf, kvm_events_analysis__find(names[i])))
			ret = TEST_FAIL;
		else if (!strcmp(names[i], "mmio"))
			ret = check_mmio_slots(bpf);
		if (ret == TEST_OK && kvm_events_bpf__start(bpf))
			ret = TEST_SKIP;
		kvm_events_bpf__delete(bpf);
	}
	return ret;
}
#else
static int test__kvm_events_bpf_none(struct test_suite *test __maybe_unused,
				     int subtest __maybe_unused)
{
	pr_debug("perf built without BPF skeletons\n");
	return TEST_SKIP;
}
#define test__kvm_events_bpf_pairs	test__kvm_events_bpf_none
#define test__kvm_events_bpf_report	test__kvm_events_bpf_none
#define test__kvm_events_bpf_unpaired	test__kvm_events_bpf_none
#define test__kvm_events_bpf_full	test__kvm_events_bpf_none
#define test__kvm_events_bpf_analyses	test__kvm_events_bpf_none
#define test__kvm_events_bpf_two_analyses	test__kvm_events_bpf_none
#endif /* HAVE_BPF_SKEL */

#define BPF_REASON	"needs BPF skeletons, root and Linux 5.17"

static struct test_case kvm_events_bpf_tests[] = {
	TEST_CASE("kvm-events bpf: the histogram's buckets are latency-dist's",
		  kvm_events_bpf_buckets),
	TEST_CASE_REASON("kvm-events bpf: N getppid() calls make N pairs",
			 kvm_events_bpf_pairs, BPF_REASON),
	TEST_CASE_REASON("kvm-events bpf: maps into a report, percentiles",
			 kvm_events_bpf_report, BPF_REASON),
	TEST_CASE_REASON("kvm-events bpf: begins without end, ends without begin",
			 kvm_events_bpf_unpaired, BPF_REASON),
	TEST_CASE_REASON("kvm-events bpf: a full map is counted",
			 kvm_events_bpf_full, BPF_REASON),
	TEST_CASE_REASON("kvm-events bpf: the analyses load on this kernel",
			 kvm_events_bpf_analyses, BPF_REASON),
	TEST_CASE_REASON("kvm-events bpf: two analyses of one tracepoint pair apart",
			 kvm_events_bpf_two_analyses, BPF_REASON),
	{ .name = NULL, }
};

struct test_suite suite__kvm_events_bpf = {
	.desc = "kvm-events live --use-bpf: pairing in the kernel",
	.test_cases = kvm_events_bpf_tests,
};
