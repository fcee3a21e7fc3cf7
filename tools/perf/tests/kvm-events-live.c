// SPDX-License-Identifier: GPL-2.0
/*
 * perf kvm-events live: what a refresh's interval table holds, from the
 * counts since the start at two refreshes, without a kernel; the VMs
 * that exit and the ones --vm takes; the metrics' labels of named VMs.
 * Each case takes a few milliseconds.  With KVM_EVENTS_TEST_METRICS set,
 * the labels' case writes its page there, for kvm-events-prometheus.sh
 * to give to promtool.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include <linux/kernel.h>

#include "debug.h"
#include "intlist.h"
#include "tests.h"
#include "util/kvm-events.h"
#include "util/kvm-events-display.h"
#include "util/kvm-events-live.h"
#include "util/kvm-events-metrics.h"
#include "util/kvm-events-vms.h"

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

/* A key of VM @pid in @report, grouped per VM, with these counts */
static struct kvm_events_key *vm_key(struct kvm_events_report *report, u64 code, u32 pid,
				     u64 samples, u64 timed, u64 total_ns)
{
	struct kvm_events_key *key = kvm_events_report__entry(report, code, pid, 0);

	if (key) {
		key->samples = samples;
		key->timed = timed;
		key->total_ns = total_ns;
	}
	return key;
}

static const struct kvm_events_sort_keys by_samples = { 1, { KVM_EVENTS_SORT_SAMPLE } };

/* The interval's table of @report now, and its keys' pids, in *@pids */
static int interval_of(struct kvm_events_report *report, struct kvm_events_interval *iv,
		       u32 *pids)
{
	struct kvm_events_key **keys;
	size_t nr, i;
	int err;

	keys = kvm_events_report__sorted(report, &by_samples, &nr);
	if (!keys)
		return -ENOMEM;
	for (i = 0; i < nr; i++)
		pids[i] = keys[i]->pid;
	err = kvm_events_interval__update(iv, keys, nr);
	free(keys);
	return err ?: (int)nr;
}

struct forgotten {
	struct kvm_events_interval	*iv;
	int				nr;
};

static void forget_key(struct kvm_events_key *key, void *arg)
{
	struct forgotten *f = arg;

	kvm_events_interval__forget(f->iv, key);
	f->nr++;
}

/*
 * VM 100 exits: its two keys leave the report, and the interval forgets
 * them, so that a key of a new process 100 comes whole in the next
 * interval, not less what the old one had.  VM 200's key stays.
 */
static int test__kvm_events_live_drop_pid(struct test_suite *test __maybe_unused,
					  int subtest __maybe_unused)
{
	struct kvm_events_options opts = { .group = KVM_EVENTS_GROUP_VM };
	struct kvm_events_report report;
	struct kvm_events_interval iv;
	struct forgotten f = { .iv = &iv };
	struct intlist *pids = intlist__new(NULL);
	u32 key_pids[4];

	TEST_ASSERT_VAL("pids", pids);
	TEST_ASSERT_VAL("report", !kvm_events_report__init(&report,
				kvm_events_analysis__find("vmexit"), &opts));
	TEST_ASSERT_VAL("interval", !kvm_events_interval__init(&iv));
	TEST_ASSERT_VAL("keys", vm_key(&report, 1, 100, 50, 50, 5000) &&
				vm_key(&report, 2, 100, 7, 7, 700) &&
				vm_key(&report, 1, 200, 3, 3, 300));
	TEST_ASSERT_VAL("first interval: 3 keys", interval_of(&report, &iv, key_pids) == 3);
	TEST_ASSERT_VAL("pids listed", !kvm_events_report__pids(&report, pids) &&
				       intlist__nr_entries(pids) == 2 &&
				       intlist__has_entry(pids, 100) &&
				       intlist__has_entry(pids, 200));

	TEST_ASSERT_VAL("2 keys of 100 dropped",
			kvm_events_report__drop_pid(&report, 100, forget_key, &f) == 2 &&
			f.nr == 2);
	TEST_ASSERT_VAL("none of 300", !kvm_events_report__drop_pid(&report, 300, NULL, NULL));
	TEST_ASSERT_VAL("after: 1 key, 200's", interval_of(&report, &iv, key_pids) == 1 &&
					       key_pids[0] == 200);
	TEST_ASSERT_VAL("no row: 200 gained nothing", iv.nr == 0);

	/* A new process 100: its key's 4 samples are all new */
	TEST_ASSERT_VAL("new 100", vm_key(&report, 1, 100, 4, 4, 40));
	TEST_ASSERT_VAL("then: 2 keys", interval_of(&report, &iv, key_pids) == 2);
	TEST_ASSERT_VAL("new 100 whole", iv.nr == 1 && iv.keys[0]->pid == 100 &&
					 iv.keys[0]->samples == 4 && iv.keys[0]->total_ns == 40);
	intlist__delete(pids);
	kvm_events_interval__exit(&iv);
	kvm_events_report__exit(&report);
	return TEST_OK;
}

static void count_drop(u32 pid, void *arg)
{
	u32 *dropped = arg;

	*dropped = pid;
}

/* A process that has exited and been reaped: its pid is free */
static pid_t gone_pid(void)
{
	pid_t pid = fork();

	if (!pid)
		_exit(0);
	if (pid > 0)
		waitpid(pid, NULL, 0);
	return pid;
}

/*
 * A process seen gone at a refresh is dropped at the next one, once:
 * the refresh that saw it go still showed its last interval.  This
 * process, alive, never is.
 */
static int test__kvm_events_live_exits(struct test_suite *test __maybe_unused,
				       int subtest __maybe_unused)
{
	struct kvm_events_live_vms lv;
	struct intlist *pids = intlist__new(NULL), *none = intlist__new(NULL);
	pid_t gone = gone_pid();
	u32 dropped = 0;

	TEST_ASSERT_VAL("setup", pids && none && gone > 0 &&
				 !intlist__add(pids, gone) && !intlist__add(pids, getpid()));
	TEST_ASSERT_VAL("init", !kvm_events_live_vms__init(&lv, NULL));
	TEST_ASSERT_VAL("first refresh", !kvm_events_live_vms__exits(&lv, pids, count_drop,
								     &dropped));
	TEST_ASSERT_VAL("first: none dropped, the gone one kept",
			!dropped && intlist__nr_entries(lv.exited) == 1 &&
			intlist__has_entry(lv.exited, gone));
	TEST_ASSERT_VAL("second refresh", !kvm_events_live_vms__exits(&lv, none, count_drop,
								      &dropped));
	TEST_ASSERT_VAL("second: the gone one dropped", dropped == (u32)gone &&
							 intlist__empty(lv.exited));
	dropped = 0;
	TEST_ASSERT_VAL("third refresh", !kvm_events_live_vms__exits(&lv, none, count_drop,
								     &dropped));
	TEST_ASSERT_VAL("third: nothing", !dropped);
	kvm_events_live_vms__exit(&lv);
	intlist__delete(pids);
	intlist__delete(none);
	return TEST_OK;
}

/* No process has these pids: above the kernel's pid_max */
#define NO_PID_WEB	4194400
#define NO_PID_DB	4194401
#define NO_PID_OTHER	4194402
#define DB_UUID		"5c3e2a0f-1b7d-4c9e-8f00-aa55aa55aa55"

/*
 * --vm 'web*,uuid': a VM that appears later is taken at the first sight
 * of its pid, by name or by uuid; an unnamed process is not.  The
 * pattern that took nothing is said until it takes one.
 */
static int test__kvm_events_live_vm_filter(struct test_suite *test __maybe_unused,
					   int subtest __maybe_unused)
{
	struct kvm_events_vm web = { .pid = NO_PID_WEB, .name = (char *)"web1" };
	struct kvm_events_vm db = { .pid = NO_PID_DB, .name = (char *)"db",
				    .uuid = (char *)"5C3E2A0F-1B7D-4C9E-8F00-AA55AA55AA55" };
	struct kvm_events_vm_filter *f = kvm_events_vm_filter__new("live",
									     "web*," DB_UUID);
	struct kvm_events_live_vms lv;
	char *unmatched;
	bool ok;

	TEST_ASSERT_VAL("filter", f);
	TEST_ASSERT_VAL("init", !kvm_events_live_vms__init(&lv, f));
	unmatched = kvm_events_vm_filter__unmatched(f);
	ok = unmatched && !strcmp(unmatched, "web*, " DB_UUID);
	free(unmatched);
	TEST_ASSERT_VAL("both unmatched at first", ok);
	TEST_ASSERT_VAL("an unnamed process: no", !kvm_events_live_vms__takes(&lv, NO_PID_OTHER));
	TEST_ASSERT_VAL("web1 starts", !kvm_events_vms__add(lv.vms, &web));
	TEST_ASSERT_VAL("web1: taken at first sight", kvm_events_live_vms__takes(&lv, NO_PID_WEB));
	TEST_ASSERT_VAL("web1: in the pids", intlist__has_entry(lv.taken, NO_PID_WEB));
	TEST_ASSERT_VAL("again, from the cache", kvm_events_live_vms__takes(&lv, NO_PID_WEB));
	unmatched = kvm_events_vm_filter__unmatched(f);
	ok = unmatched && !strcmp(unmatched, DB_UUID);
	free(unmatched);
	TEST_ASSERT_VAL("the uuid still unmatched", ok);
	TEST_ASSERT_VAL("db starts", !kvm_events_vms__add(lv.vms, &db));
	TEST_ASSERT_VAL("db: taken by its uuid", kvm_events_live_vms__takes(&lv, NO_PID_DB));
	TEST_ASSERT_VAL("all matched", !kvm_events_vm_filter__unmatched(f));
	TEST_ASSERT_VAL("the other still not", !kvm_events_live_vms__takes(&lv, NO_PID_OTHER) &&
					       intlist__nr_entries(lv.taken) == 2);
	kvm_events_live_vms__exit(&lv);
	kvm_events_vm_filter__delete(f);
	return TEST_OK;
}

/*
 * A name with a space, quotes, a comma, a backslash, a newline and UTF-8,
 * as the exposition format escapes it: backslash, quote and newline.
 */
#define ODD_NAME	"web \"1\", a\\b\nnext \xc3\xa9t\xc3\xa9"
#define ODD_LABEL	"web \\\"1\\\", a\\\\b\\nnext \xc3\xa9t\xc3\xa9"
#define ODD_UUID	"0f0e0d0c-0b0a-0908-0706-050403020100"

static int count_of(const char *text, const char *what)
{
	int n = 0;

	for (text = strstr(text, what); text; text = strstr(text + 1, what))
		n++;
	return n;
}

/*
 * The metrics of two processes of one named VM (a restart within the
 * interval) and of an unnamed process: the named one's series is one,
 * labelled vm and vm_uuid, with both processes' counts; the other's
 * keeps pid and comm.
 */
static int test__kvm_events_live_metrics_labels(struct test_suite *test __maybe_unused,
						int subtest __maybe_unused)
{
	struct kvm_events_options opts = { .group = KVM_EVENTS_GROUP_VM, .histogram = true };
	struct kvm_events_vm vm = { .pid = 100, .name = (char *)ODD_NAME,
				    .uuid = (char *)ODD_UUID, .comm = (char *)"qemu-system-x86" };
	struct kvm_events_metrics m = { .by = KVM_EVENTS_METRICS_VM, .max_series = 10 };
	struct kvm_events_vms *vms = kvm_events_vms__new(false);
	struct kvm_events_view view = {};
	struct kvm_events_report report;
	struct kvm_events_display d = { .view = &view, .report = &report, .vms = vms };
	char name[KVM_EVENTS_NAME_LEN], want[512], *text = NULL;
	const char *out_path = getenv("KVM_EVENTS_TEST_METRICS");
	size_t size = 0;
	FILE *fp;
	bool ok;

	TEST_ASSERT_VAL("vms", vms && !kvm_events_vms__add(vms, &vm));
	vm.pid = 101;
	TEST_ASSERT_VAL("restarted", !kvm_events_vms__add(vms, &vm));
	TEST_ASSERT_VAL("report", !kvm_events_report__init(&report,
				kvm_events_analysis__find("vmexit"), &opts));
	TEST_ASSERT_VAL("keys", vm_key(&report, 1, 100, 5, 5, 500) &&
				vm_key(&report, 1, 101, 2, 2, 200) &&
				vm_key(&report, 1, 300, 3, 3, 300));
	kvm_events_report__key_name(&report, 1, name, sizeof(name));
	fp = open_memstream(&text, &size);
	TEST_ASSERT_VAL("memstream", fp);
	TEST_ASSERT_VAL("write", !kvm_events_metrics__write(&m, &d, fp));
	fclose(fp);
	pr_debug("%s", text);

	snprintf(want, sizeof(want),
		 "\nkvm_events_exits_total{analysis=\"vmexit\",key=\"%s\",vm=\"%s\",vm_uuid=\"%s\"} 7\n",
		 name, ODD_LABEL, ODD_UUID);
	ok = strstr(text, want);
	snprintf(want, sizeof(want),
		 "\nkvm_events_exits_total{analysis=\"vmexit\",key=\"%s\",pid=\"300\",comm=\"\"} 3\n",
		 name);
	ok = ok && strstr(text, want);
	/* One series each: the two processes of the VM are merged. */
	ok = ok && count_of(text, "\nkvm_events_exits_total{") == 2;
	ok = ok && !strstr(text, "pid=\"100\"") && !strstr(text, "pid=\"101\"");
	if (out_path) {
		fp = fopen(out_path, "w");
		if (fp) {
			fputs(text, fp);
			fclose(fp);
		}
	}
	free(text);
	kvm_events_report__exit(&report);
	kvm_events_vms__delete(vms);
	TEST_ASSERT_VAL("labels: vm and vm_uuid, escaped; pid and comm", ok);
	return TEST_OK;
}

static struct test_case kvm_events_live_tests[] = {
	TEST_CASE("kvm-events live: each refresh's table holds what its interval added",
		  kvm_events_live_interval),
	TEST_CASE("kvm-events live: the interval is labelled with its length",
		  kvm_events_live_label),
	TEST_CASE("kvm-events live: an exited VM's keys are dropped, and the interval's",
		  kvm_events_live_drop_pid),
	TEST_CASE("kvm-events live: a process seen gone is dropped at the next refresh",
		  kvm_events_live_exits),
	TEST_CASE("kvm-events live: --vm takes a VM at its first sight",
		  kvm_events_live_vm_filter),
	TEST_CASE("kvm-events live: metrics label a named VM by vm and vm_uuid",
		  kvm_events_live_metrics_labels),
	{ .name = NULL, }
};

struct test_suite suite__kvm_events_live = {
	.desc = "kvm-events live interval accounting",
	.test_cases = kvm_events_live_tests,
};
