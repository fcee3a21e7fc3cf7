// SPDX-License-Identifier: GPL-2.0
/*
 * perf kvm-events: the ordering queue, on rounds of per-CPU runs built in
 * memory as perf record writes them, against the same samples sorted.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include <linux/kernel.h>
#include <linux/zalloc.h>

#include "debug.h"
#include "kvm-events-common.h"
#include "tests.h"
#include "util/kvm-events.h"
#include "util/kvm-events-queue.h"

/*
 * Rounds as perf record writes them: in each, every CPU's samples of
 * the round's window in time order, one CPU after the other, some of
 * them a round late at the head of their CPU's group.  Times are coarse,
 * so that samples of different CPUs often tie: a vcpu's exit and entry
 * at one time on two CPUs pair only when read order breaks the tie.
 *
 * Vcpus move from CPU to CPU, and samples are late at random: threads
 * go back in time in read order.  Pinned, vcpus stay on their CPU, and
 * the late samples are each CPU's last, from ROUND_LATE_FROM on, as
 * perf record leaves them: each thread's samples are read in time order.
 * Bouncing, each of BOUNCING_VCPUS vcpus runs on a CPU of its own but for
 * a stretch of each round on a spare one, back to a CPU where nothing ran
 * in between: in read order, its stints on the two overlap in time.
 */
#define ROUNDS_VCPUS	24
#define ROUNDS_NR	40
#define ROUND_WINDOW	1000
#define ROUND_LATE_FROM	700
#define BOUNCING_VCPUS	8
/* Samples of a bouncing vcpu in a round, ROUND_STEP apart; the spare CPU's */
#define ROUND_BOUNCING_SAMPLES	90
#define ROUND_STEP		10
#define ROUND_AWAY_FROM		31
#define ROUND_AWAY_TO		61
/* The queue's first array, QUEUE_MIN_ALLOC */
#define QUEUE_MIN_SAMPLES	4096

enum rounds_layout {
	ROUNDS_MOVING,
	ROUNDS_PINNED,
	ROUNDS_BOUNCING,
};

static const char * const rounds_layout_name[] = { "moving", "pinned", "bouncing" };

struct rounds_input {
	enum rounds_layout		layout;
	struct kvm_events_sample	*samples;	/* in read order */
	size_t				nr;
	size_t				round_end[ROUNDS_NR];	/* nr at each round's end */
	/* The queue's flushes of several runs */
	u64				run_after_run;
	u64				thread_by_thread;
	u64				merged;
	u64				wraps;	/* of the queue's runs to its array's start */
	size_t				alloc;	/* the array's samples, at the end */
};

static u32 rounds_rand(u64 *state)
{
	*state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
	return *state >> 33;
}

static struct kvm_events_sample rounds_sample(u32 vcpu, bool exit, u64 time, u32 reason)
{
	return (struct kvm_events_sample){
		.tp = exit ? KVM_TP_EXIT : KVM_TP_ENTRY, .time = time,
		.pid = 4242, .tid = 100 + vcpu, .vcpu = vcpu,
		.isa = KVM_EVENTS_ISA_VMX, .code = exit ? reason : 0,
	};
}

/* A sample of a round's window, and where perf record reads it */
struct rounds_item {
	struct kvm_events_sample	s;
	u32				cpu;
	bool				late;	/* read in the next round */
};

/* Appends the samples of @window on @cpu: those held back for it, or the others. */
static void rounds_write_cpu(struct rounds_input *in, const struct rounds_item *window,
			     size_t nr, u32 cpu, bool held)
{
	size_t i;

	for (i = 0; i < nr; i++) {
		if (window[i].cpu == cpu && window[i].late == held)
			in->samples[in->nr++] = window[i].s;
	}
}

/* Each CPU's group in time order: sorts the window, stably. */
static void rounds_sort_window(struct rounds_item *window, size_t nr)
{
	size_t i, j;

	for (i = 1; i < nr; i++) {
		struct rounds_item item = window[i];

		for (j = i; j > 0 && window[j - 1].s.time > item.s.time; j--)
			window[j] = window[j - 1];
		window[j] = item;
	}
}

/* Writes a round's @window, each CPU's group after those held back for it */
static void rounds_write(struct rounds_input *in, const struct rounds_item *held, size_t nr_held,
			 const struct rounds_item *window, size_t nr, u32 nr_cpus, bool last)
{
	u32 cpu;

	for (cpu = 0; cpu < nr_cpus; cpu++) {
		rounds_write_cpu(in, held, nr_held, cpu, true);
		rounds_write_cpu(in, window, nr, cpu, false);
		/* The recording ends: nothing is held back. */
		if (last)
			rounds_write_cpu(in, window, nr, cpu, true);
	}
}

static void rounds_make(struct rounds_input *in, u32 nr_cpus)
{
	struct rounds_item window[2][2 * ROUNDS_VCPUS];
	u32 vcpu_cpu[ROUNDS_VCPUS];
	size_t nr[2] = { 0, 0 }, r;
	u64 state = nr_cpus;
	u32 v;

	for (v = 0; v < ROUNDS_VCPUS; v++)
		vcpu_cpu[v] = v % nr_cpus;
	for (r = 0; r < ROUNDS_NR; r++) {
		size_t cur = r % 2, prev = !cur;

		nr[cur] = 0;
		for (v = 0; v < ROUNDS_VCPUS; v++) {
			u64 exit = r * ROUND_WINDOW + 10 * (rounds_rand(&state) % 50);
			u64 entry = exit + 10 * (rounds_rand(&state) % 40);
			bool exit_late = rounds_rand(&state) % 8 == 0;
			bool entry_late = rounds_rand(&state) % 8 == 0;
			u32 from = vcpu_cpu[v];

			if (in->layout == ROUNDS_PINNED) {
				exit_late = exit - r * ROUND_WINDOW >= ROUND_LATE_FROM;
				entry_late = entry - r * ROUND_WINDOW >= ROUND_LATE_FROM;
			} else if (rounds_rand(&state) % 3 == 0) {
				vcpu_cpu[v] = (from + 1) % nr_cpus;
			}
			/* A tie is read exit first, on a lower CPU, or both late. */
			if (entry == exit && vcpu_cpu[v] < from)
				entry++;
			window[cur][nr[cur]++] = (struct rounds_item){
				rounds_sample(v, true, exit, 1 + v % 3), from, exit_late };
			window[cur][nr[cur]++] = (struct rounds_item){
				rounds_sample(v, false, entry, 0), vcpu_cpu[v],
				entry == exit ? exit_late : entry_late };
		}
		rounds_sort_window(window[cur], nr[cur]);
		rounds_write(in, window[prev], r ? nr[prev] : 0, window[cur], nr[cur], nr_cpus,
			     r + 1 == ROUNDS_NR);
		in->round_end[r] = in->nr;
	}
}

/*
 * Vcpu v on CPU v, and from ROUND_AWAY_FROM to ROUND_AWAY_TO on CPU
 * BOUNCING_VCPUS + v, read after it: the first sample there ties with
 * the last before, an exit read first.
 */
static void rounds_make_bouncing(struct rounds_input *in, struct rounds_item *window)
{
	const size_t nr = BOUNCING_VCPUS * ROUND_BOUNCING_SAMPLES;
	size_t r, k;
	u32 v;

	for (r = 0; r < ROUNDS_NR; r++) {
		struct rounds_item *cur = window + (r % 2) * nr, *prev = window + !(r % 2) * nr;

		for (v = 0; v < BOUNCING_VCPUS; v++) {
			for (k = 0; k < ROUND_BOUNCING_SAMPLES; k++) {
				bool away = k >= ROUND_AWAY_FROM && k < ROUND_AWAY_TO;
				u64 at = ROUND_STEP * (k == ROUND_AWAY_FROM ? k - 1 : k);

				cur[v * ROUND_BOUNCING_SAMPLES + k] = (struct rounds_item){
					rounds_sample(v, k % 2 == 0, r * ROUND_WINDOW + at,
						      1 + v % 3),
					away ? BOUNCING_VCPUS + v : v, at >= ROUND_LATE_FROM };
			}
		}
		rounds_sort_window(cur, nr);
		rounds_write(in, prev, r ? nr : 0, cur, nr, 2 * BOUNCING_VCPUS, r + 1 == ROUNDS_NR);
		in->round_end[r] = in->nr;
	}
}

/* The samples a layout writes on @nr_cpus, in read order */
static int rounds_input__make(struct rounds_input *in, enum rounds_layout layout, u32 nr_cpus)
{
	size_t max = ROUNDS_NR * (layout == ROUNDS_BOUNCING ?
				  BOUNCING_VCPUS * ROUND_BOUNCING_SAMPLES : 2 * ROUNDS_VCPUS);
	struct rounds_item *window;

	*in = (struct rounds_input){ .layout = layout };
	in->samples = calloc(max, sizeof(*in->samples));
	if (!in->samples)
		return -1;
	if (layout != ROUNDS_BOUNCING) {
		rounds_make(in, nr_cpus);
		return 0;
	}
	window = calloc(2 * BOUNCING_VCPUS * ROUND_BOUNCING_SAMPLES, sizeof(*window));
	if (!window) {
		zfree(&in->samples);
		return -1;
	}
	rounds_make_bouncing(in, window);
	free(window);
	return 0;
}

/* A sample's place in read order, to sort by time */
struct rounds_order {
	u64				time;
	size_t				i;
};

static int rounds_order_cmp(const void *a, const void *b)
{
	const struct rounds_order *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->i < y->i ? -1 : 1;
}

/* Feeds @in in time order, ties in read order: what perf's ordered_events delivers. */
static void rounds_feed_sorted(struct kvm_events_report *report, const struct rounds_input *in)
{
	struct rounds_order *order = calloc(in->nr, sizeof(*order));
	size_t i;

	if (!order)
		return;
	for (i = 0; i < in->nr; i++)
		order[i] = (struct rounds_order){ in->samples[i].time, i };
	qsort(order, in->nr, sizeof(*order), rounds_order_cmp);
	for (i = 0; i < in->nr; i++)
		kvm_events_report__add(report, &in->samples[order[i].i]);
	free(order);
}

/*
 * How many samples up to round @r are no later than the end of round
 * @r - 1: the first round's end delivers those at time 0, as perf does.
 */
static u64 rounds_due(const struct rounds_input *in, size_t r)
{
	u64 limit = 0, nr = 0;
	size_t i;

	for (i = 0; r && i < in->round_end[r - 1]; i++)
		limit = max(limit, in->samples[i].time);
	for (i = 0; i < in->round_end[r]; i++)
		nr += in->samples[i].time <= limit;
	return nr;
}

static int rounds_queue(struct kvm_events_report *report, struct rounds_input *in)
{
	struct kvm_events_queue q = { 0 };
	size_t r, i = 0;
	int ret = TEST_OK;

	for (r = 0; ret == TEST_OK && r < ROUNDS_NR; r++) {
		for (; ret == TEST_OK && i < in->round_end[r]; i++) {
			struct kvm_events_sample *s = kvm_events_queue__slot(&q);

			if (!s) {
				pr_debug("no memory for the queue\n");
				ret = TEST_FAIL;
				break;
			}
			*s = in->samples[i];
			kvm_events_queue__push(&q, s);
		}
		kvm_events_queue__round_end(&q, report);
		if (!u64_is(report->totals.read, rounds_due(in, r))) {
			pr_debug("round %zu: delivered samples\n", r);
			ret = TEST_FAIL;
		}
	}
	kvm_events_queue__flush(&q, report, ~0ULL);
	if (!u64_is(q.out_of_order, 0))
		ret = TEST_FAIL;
	in->run_after_run = q.run_after_run;
	in->thread_by_thread = q.thread_by_thread;
	in->merged = q.merged;
	in->wraps = q.wraps;
	in->alloc = q.alloc;
	kvm_events_queue__exit(&q);
	return ret;
}

static bool rounds_same_key(const struct kvm_events_key *a, const struct kvm_events_key *b)
{
	pr_debug("key %s\n", a->name);
	return !strcmp(a->name, b->name) && u64_is(a->samples, b->samples) &&
	       u64_is(a->timed, b->timed) && u64_is(a->total_ns, b->total_ns) &&
	       u64_is(a->stats.min, b->stats.min) && u64_is(a->stats.max, b->stats.max);
}

static int rounds_same(struct kvm_events_report *a, struct kvm_events_report *b)
{
	struct kvm_events_sort_keys by_name = { .nr = 1, .by = { KVM_EVENTS_SORT_NAME } };
	struct kvm_events_key **ka, **kb;
	size_t na, nb, i;
	bool same;

	TEST_ASSERT_VAL("samples read", u64_is(a->totals.read, b->totals.read));
	TEST_ASSERT_VAL("paired ends", u64_is(a->totals.paired_end, b->totals.paired_end));
	TEST_ASSERT_VAL("without end", u64_is(a->totals.no_end, b->totals.no_end));
	TEST_ASSERT_VAL("without begin", u64_is(a->totals.no_begin, b->totals.no_begin));
	TEST_ASSERT_VAL("total ns", u64_is(a->totals.total_ns, b->totals.total_ns));
	TEST_ASSERT_VAL("first time", u64_is(a->totals.first_time, b->totals.first_time));
	TEST_ASSERT_VAL("last time", u64_is(a->totals.last_time, b->totals.last_time));
	ka = kvm_events_report__sorted(a, &by_name, &na);
	kb = kvm_events_report__sorted(b, &by_name, &nb);
	same = ka && kb && u64_is(na, nb);
	for (i = 0; same && i < na; i++)
		same = rounds_same_key(ka[i], kb[i]);
	free(ka);
	free(kb);
	TEST_ASSERT_VAL("same keys", same);
	return TEST_OK;
}

/* Which way the flushes of several runs went, as the layout makes them */
static int check_paths(const struct rounds_input *in, u32 nr_cpus)
{
	pr_debug("flushes of several runs: %" PRIu64 " run after run, %" PRIu64
		 " thread by thread, %" PRIu64 " merged\n",
		 in->run_after_run, in->thread_by_thread, in->merged);
	/* One CPU's samples, each late one after the rest, are one run. */
	if (in->layout == ROUNDS_PINNED && nr_cpus == 1)
		TEST_ASSERT_VAL("one run",
				!in->run_after_run && !in->thread_by_thread && !in->merged);
	/* Each round's end delivers the round before's runs, one per CPU. */
	else if (in->layout == ROUNDS_PINNED)
		TEST_ASSERT_VAL("pinned vcpus: every flush run after run",
				in->run_after_run >= ROUNDS_NR - 1 && !in->thread_by_thread &&
				!in->merged);
	/*
	 * Vcpus on a CPU take turns sample after sample: where threads go
	 * back in time, stints too short to pay.
	 */
	else if (in->layout == ROUNDS_MOVING)
		TEST_ASSERT_VAL("stints of a sample or two: merged",
				in->merged && !in->thread_by_thread);
	else
		TEST_ASSERT_VAL("stints back in time: thread by thread",
				in->thread_by_thread >= ROUNDS_NR - 1 && !in->merged);
	/*
	 * The bouncing vcpus' rounds fill the array many times: the runs go
	 * on at its start as each round is delivered, and it never grows.
	 */
	pr_debug("runs went on at the array's start %" PRIu64 " times, in %zu samples\n",
		 in->wraps, in->alloc);
	if (in->layout == ROUNDS_BOUNCING)
		TEST_ASSERT_VAL("runs gone on at the array's start, in the first array",
				in->wraps >= in->nr / QUEUE_MIN_SAMPLES - 1 &&
				in->alloc == QUEUE_MIN_SAMPLES);
	return TEST_OK;
}

static int check_rounds(struct kvm_events_report *queued, struct kvm_events_report *sorted,
			u32 nr_cpus, enum rounds_layout layout)
{
	struct rounds_input in;
	int ret;

	TEST_ASSERT_VAL("rounds allocated", !rounds_input__make(&in, layout, nr_cpus));
	ret = rounds_queue(queued, &in);
	rounds_feed_sorted(sorted, &in);
	free(in.samples);
	TEST_ASSERT_VAL("each round delivers what is due", ret == TEST_OK);
	kvm_events_report__finish(queued);
	kvm_events_report__finish(sorted);
	TEST_ASSERT_VAL("every sample paired",
			u64_is(sorted->totals.no_begin + sorted->totals.no_end, 0));
	TEST_ASSERT_VAL("queued as sorted", !rounds_same(queued, sorted));
	return check_paths(&in, nr_cpus);
}

/* The events a report timed, in the order it timed them */
struct timed_log {
	struct kvm_events_observer	observer;
	u64				time[ROUNDS_NR * ROUNDS_VCPUS];
	u64				duration[ROUNDS_NR * ROUNDS_VCPUS];
	size_t				nr;
};

static void timed_log__timed(struct kvm_events_observer *observer, void **observed __maybe_unused,
			     u64 first __maybe_unused, u64 time, u64 duration)
{
	struct timed_log *log = container_of(observer, struct timed_log, observer);

	if (log->nr < ARRAY_SIZE(log->time)) {
		log->time[log->nr] = time;
		log->duration[log->nr] = duration;
	}
	log->nr++;
}

static void timed_log__forget(struct kvm_events_observer *observer __maybe_unused)
{
}

static bool timed_log__same(const struct timed_log *a, const struct timed_log *b)
{
	return u64_is(a->nr, b->nr) && a->nr <= ARRAY_SIZE(a->time) &&
	       !memcmp(a->time, b->time, a->nr * sizeof(a->time[0])) &&
	       !memcmp(a->duration, b->duration, a->nr * sizeof(a->duration[0]));
}

/*
 * A tie of time broken against read order between two vcpus leaves every
 * key's figures as they were, but not the order the events are timed in:
 * an observer of each report logs it, and the logs must be the same.
 */
static int check_timed_order(const struct kvm_events_analysis *vmexit, u32 nr_cpus,
			     enum rounds_layout layout)
{
	struct rounds_input in = { 0 };
	struct timed_log *logs = calloc(2, sizeof(*logs));
	struct kvm_events_report queued, sorted;
	bool same = false;
	int ret = TEST_FAIL;

	if (rounds_input__make(&in, layout, nr_cpus) || !logs ||
	    kvm_events_report__init(&queued, vmexit, NULL))
		goto out;
	if (kvm_events_report__init(&sorted, vmexit, NULL))
		goto out_queued;
	logs[0].observer = logs[1].observer = (struct kvm_events_observer){
		.timed = timed_log__timed, .forget = timed_log__forget };
	queued.observer = &logs[0].observer;
	sorted.observer = &logs[1].observer;
	ret = rounds_queue(&queued, &in);
	rounds_feed_sorted(&sorted, &in);
	same = timed_log__same(&logs[0], &logs[1]);
	sorted.observer = NULL;
	kvm_events_report__exit(&sorted);
out_queued:
	queued.observer = NULL;
	kvm_events_report__exit(&queued);
out:
	free(in.samples);
	free(logs);
	TEST_ASSERT_VAL("events timed in the order of the sorted samples",
			ret == TEST_OK && same);
	/* An observer sees all samples in turn: only the merge gives their order. */
	TEST_ASSERT_VAL("an observer's report merged", !in.run_after_run && !in.thread_by_thread);
	return TEST_OK;
}

static int check_layout(const struct kvm_events_analysis *vmexit, u32 nr_cpus,
			enum rounds_layout layout)
{
	struct kvm_events_report queued, sorted;
	int ret;

	TEST_ASSERT_VAL("queued report", !kvm_events_report__init(&queued, vmexit, NULL));
	if (kvm_events_report__init(&sorted, vmexit, NULL)) {
		kvm_events_report__exit(&queued);
		return TEST_FAIL;
	}
	pr_debug("%u cpus, vcpus %s\n", nr_cpus, rounds_layout_name[layout]);
	ret = check_rounds(&queued, &sorted, nr_cpus, layout);
	kvm_events_report__exit(&queued);
	kvm_events_report__exit(&sorted);
	/* An observer's report merges: the bouncing layout's ties are the pinned one's. */
	if (ret == TEST_OK && layout != ROUNDS_BOUNCING)
		ret = check_timed_order(vmexit, nr_cpus, layout);
	return ret;
}

static int test__kvm_events_rounds(struct test_suite *test __maybe_unused,
				   int subtest __maybe_unused)
{
	const struct kvm_events_analysis *vmexit = kvm_events_analysis__find("vmexit");
	/* One run goes as it lies; the others, few or many, through a tree. */
	static const u32 nr_cpus[] = { 1, 3, 40 };
	size_t i;
	int ret = TEST_OK;

	TEST_ASSERT_VAL("vmexit analysis", vmexit);
	for (i = 0; ret == TEST_OK && i < 2 * ARRAY_SIZE(nr_cpus); i++)
		ret = check_layout(vmexit, nr_cpus[i % ARRAY_SIZE(nr_cpus)],
				   i >= ARRAY_SIZE(nr_cpus) ? ROUNDS_PINNED : ROUNDS_MOVING);
	if (ret == TEST_OK)
		ret = check_layout(vmexit, 2 * BOUNCING_VCPUS, ROUNDS_BOUNCING);
	return ret;
}

/*
 * A round of many samples (a busy VM's), in runs of a few CPUs' buffers:
 * from 512 KB, the queue's array is mapped and aligned to huge pages,
 * and each growth, a remap below that and a move of the huge pages
 * above, keeps every sample queued.  A move touches no page, where a
 * copy faults in the new array.  The arrays by run are mapped too: page
 * aligned, where malloc() gives none, and remapped as they grow.
 */
#define BIG_ROUND_SAMPLES	300000
#define BIG_ROUND_RUN		1000
#define QUEUE_HUGE_BYTES	(2UL << 20)
#define QUEUE_HUGE_FROM_BYTES	(QUEUE_HUGE_BYTES / 4)

static bool big_round_mapped(const struct kvm_events_queue *q)
{
	unsigned long page = sysconf(_SC_PAGESIZE);
	bool huge = q->alloc * sizeof(*q->items) >= QUEUE_HUGE_FROM_BYTES;

	if ((huge && (unsigned long)q->items % QUEUE_HUGE_BYTES) ||
	    (unsigned long)q->runs % page) {
		pr_debug("%zu samples queued at %p, runs at %p\n", q->alloc, q->items, q->runs);
		return false;
	}
	return true;
}

static long thread_faults(void)
{
	struct rusage usage;

	return getrusage(RUSAGE_THREAD, &usage) ? -1 : usage.ru_minflt + usage.ru_majflt;
}

static bool big_round_kept(const struct kvm_events_queue *q)
{
	size_t i;

	if (q->nr != BIG_ROUND_SAMPLES || q->nr_runs != BIG_ROUND_SAMPLES / BIG_ROUND_RUN) {
		pr_debug("%zu samples queued in %zu runs\n", q->nr, q->nr_runs);
		return false;
	}
	for (i = 0; i < q->nr; i++) {
		if (q->items[i].time != i % BIG_ROUND_RUN + 1 ||
		    q->items[i].tid != 100 + i % ROUNDS_VCPUS) {
			pr_debug("sample %zu: time %" PRIu64 ", tid %u\n", i,
				 q->items[i].time, q->items[i].tid);
			return false;
		}
	}
	for (i = 0; i < q->nr_runs; i++) {
		if (q->runs[i].start != i * BIG_ROUND_RUN) {
			pr_debug("run %zu starts at %zu\n", i, q->runs[i].start);
			return false;
		}
	}
	return true;
}

static int test__kvm_events_queue_big_round(struct test_suite *test __maybe_unused,
					    int subtest __maybe_unused)
{
	struct kvm_events_queue q;
	bool kept = true;
	size_t i;
	int moves = 0;

	kvm_events_queue__init(&q);
	for (i = 0; kept && i < BIG_ROUND_SAMPLES; i++) {
		bool huge = q.nr == q.alloc && q.alloc * sizeof(*q.items) >= QUEUE_HUGE_FROM_BYTES;
		long faults = thread_faults();
		struct kvm_events_sample *s = kvm_events_queue__slot(&q);

		if (huge && thread_faults() != faults) {
			pr_debug("growing past %zu samples faulted\n", i);
			kept = false;
		}
		moves += huge;
		kept = kept && s && big_round_mapped(&q);
		if (kept) {
			*s = rounds_sample(i % ROUNDS_VCPUS, i & 1, i % BIG_ROUND_RUN + 1, 12);
			kvm_events_queue__push(&q, s);
		}
	}
	kept = kept && big_round_kept(&q);
	kvm_events_queue__exit(&q);
	TEST_ASSERT_VAL("a big round queued whole, in mapped arrays", kept);
	TEST_ASSERT_EQUAL("growths of huge pages", moves, 5);
	return TEST_OK;
}

/*
 * Rounds about as big as the queue's array, each in two runs (the even
 * vcpus' samples, then the odd ones'): the runs go on at the array's
 * start as the first runs are delivered, up to the first run still
 * queued, and a full wrapped array moves its runs to a bigger one.  The
 * report equals one fed the samples in time order.  Letting the runs go
 * on over the first run still queued, at the wrap or once it was partly
 * delivered, or never at the start, fails it.
 */
#define WRAP_SAMPLES	100000

/*
 * Sizes under which the runs go on at the start, reach the first run
 * still queued, go on past what was delivered of it, and fill the array.
 */
static const size_t wrap_round_sizes[] = {
	2500, 7000, 300, 15000, 2500, 10000, 10000, 15000, 2500,
};

/* The samples of a round, [start, end) in time order, in their two runs */
static void wrap_round(struct kvm_events_sample *read, const struct kvm_events_sample *timed,
		       size_t start, size_t end)
{
	size_t i, n = start;
	u32 odd;

	for (odd = 0; odd < 2; odd++) {
		for (i = start; i < end; i++) {
			if (timed[i].vcpu % 2 == odd)
				read[n++] = timed[i];
		}
	}
}

static int wrap_queue(struct kvm_events_report *report, const struct kvm_events_sample *read,
		      u64 *wraps, size_t *alloc)
{
	struct kvm_events_queue q;
	size_t i, r = 0, round_end = wrap_round_sizes[0];
	int ret = TEST_OK;

	kvm_events_queue__init(&q);
	for (i = 0; ret == TEST_OK && i < WRAP_SAMPLES; i++) {
		struct kvm_events_sample *s = kvm_events_queue__slot(&q);

		if (!s) {
			ret = TEST_FAIL;
			break;
		}
		*s = read[i];
		kvm_events_queue__push(&q, s);
		if (i + 1 == round_end) {
			kvm_events_queue__round_end(&q, report);
			round_end += wrap_round_sizes[++r % ARRAY_SIZE(wrap_round_sizes)];
		}
	}
	kvm_events_queue__flush(&q, report, ~0ULL);
	*wraps = q.wraps;
	*alloc = q.alloc;
	kvm_events_queue__exit(&q);
	return ret;
}

static int test__kvm_events_queue_wrap(struct test_suite *test __maybe_unused,
				       int subtest __maybe_unused)
{
	const struct kvm_events_analysis *vmexit = kvm_events_analysis__find("vmexit");
	struct kvm_events_sample *timed = calloc(2 * WRAP_SAMPLES, sizeof(*timed));
	struct kvm_events_sample *read = timed + WRAP_SAMPLES;
	struct kvm_events_report queued, direct;
	size_t i, start = 0, r = 0, alloc = 0;
	u64 wraps = 0;
	int ret;

	TEST_ASSERT_VAL("samples allocated", timed);
	for (i = 0; i < WRAP_SAMPLES; i++)
		timed[i] = rounds_sample(i / 2 % ROUNDS_VCPUS, !(i & 1), i + 1, 12 + i % 5);
	while (start < WRAP_SAMPLES) {
		size_t end = min_t(size_t, WRAP_SAMPLES,
				   start + wrap_round_sizes[r++ % ARRAY_SIZE(wrap_round_sizes)]);

		wrap_round(read, timed, start, end);
		start = end;
	}
	if (kvm_events_report__init(&queued, vmexit, NULL) ||
	    kvm_events_report__init(&direct, vmexit, NULL)) {
		free(timed);
		return TEST_FAIL;
	}
	ret = wrap_queue(&queued, read, &wraps, &alloc);
	kvm_events_report__add_many(&direct, timed, WRAP_SAMPLES);
	free(timed);
	kvm_events_report__finish(&queued);
	kvm_events_report__finish(&direct);
	pr_debug("the runs went on at the array's start %" PRIu64 " times, in %zu samples\n",
		 wraps, alloc);
	if (ret == TEST_OK && !u64_is(direct.totals.keyed, WRAP_SAMPLES / 2))
		ret = TEST_FAIL;
	if (ret == TEST_OK)
		ret = rounds_same(&queued, &direct);
	kvm_events_report__exit(&queued);
	kvm_events_report__exit(&direct);
	TEST_ASSERT_VAL("queued as in time order", ret == TEST_OK);
	TEST_ASSERT_VAL("runs gone on at the array's start", wraps > 0);
	return TEST_OK;
}

static struct test_case kvm_events_queue_tests[] = {
	TEST_CASE("kvm-events: rounds of per-CPU runs delivered in time order, ties in read order",
		  kvm_events_rounds),
	TEST_CASE("kvm-events: a big round stays whole as the queue grows past huge pages",
		  kvm_events_queue_big_round),
	TEST_CASE("kvm-events: rounds as big as the queue go on at its start, in order",
		  kvm_events_queue_wrap),
	{ .name = NULL, }
};

struct test_suite suite__kvm_events_queue = {
	.desc = "kvm-events ordering queue",
	.test_cases = kvm_events_queue_tests,
};
