// SPDX-License-Identifier: GPL-2.0
/*
 * perf's round ordering for decoded kvm samples, as perf's ordered_events
 * gives it to tools, without an allocation per event: at the end of a
 * round (PERF_RECORD_FINISHED_ROUND) the samples no later than the end of
 * the previous round are delivered in time order, ties in read order.
 *
 * A round is a few runs already in time order, one per CPU buffer.  The
 * samples of a flush are a prefix of each run: they are merged from the
 * runs straight to the pairing, and the rest stays where it is.  Sorting
 * the queue instead moved every sample through memory several times, in
 * two rounds' sorts.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <linux/kernel.h>

#include "kvm-events-queue.h"

#define QUEUE_MIN_ALLOC	4096
#define QUEUE_HUGE_PAGE	(2UL << 20)
/* Arrays of samples this big are of huge pages, where the host allows. */
#define QUEUE_HUGE_FROM	(QUEUE_HUGE_PAGE / 4)
/* Merged samples go to the pairing in batches of this many. */
#define QUEUE_BATCH	256
/* Threads told apart in a flush, by tid */
#define QUEUE_THREADS	1024
/*
 * Stints kept, at most one per this many samples of a flush: shorter ones
 * on average cost more than the merge.
 */
#define QUEUE_STINT_SAMPLES	4
/* After checks that failed in a row, at most 1 << this many flushes go unchecked. */
#define QUEUE_UNCHECKED_SHIFT	6

static size_t run_end(const struct kvm_events_queue *q, size_t run)
{
	return run + 1 == q->nr_runs ? q->nr : q->runs[run].end;
}

/* The samples of the runs, which deliveries leave holes between */
static size_t queue_live(const struct kvm_events_queue *q)
{
	size_t live = 0, i;

	for (i = 0; i < q->nr_runs; i++)
		live += run_end(q, i) - q->runs[i].start;
	return live;
}

/* Moves the runs' samples to the array's start, in their order. */
static void kvm_events_queue__compact(struct kvm_events_queue *q)
{
	size_t dst = 0, i;

	for (i = 0; i < q->nr_runs; i++) {
		struct kvm_events_queue_run *run = &q->runs[i];
		size_t len = run_end(q, i) - run->start;

		if (dst != run->start)
			memmove(q->items + dst, q->items + run->start, len * sizeof(*q->items));
		run->start = dst;
		dst += len;
		run->end = dst;
	}
	q->nr = dst;
}

/*
 * The array of samples is mapped, not malloc()ed, and from QUEUE_HUGE_FROM
 * up of huge pages where the host allows.  Big rounds keep megabytes
 * queued, and each page costs a fault when first written: 10 us a page
 * on the guest measured, a fifth of the report on rounds of 100,000
 * samples; a huge page costs one fault for 512.  Rounds of 10,000 keep
 * about 1 MB.  malloc() would not keep
 * them: a realloc() of huge pages (mremap) failed there, and glibc copied
 * the whole array.  Nor would it keep the array mapped: once it frees a
 * mapped block, glibc keeps blocks up to its size in the heap, where
 * growing copies every page instead of remapping it.
 */
static size_t queue_items_size(size_t alloc)
{
	size_t size = alloc * sizeof(struct kvm_events_sample);

	/* The kernel rounds a smaller one up to pages. */
	return size < QUEUE_HUGE_FROM ? size : round_up(size, QUEUE_HUGE_PAGE);
}

static void queue_items_free(struct kvm_events_sample *items, size_t alloc)
{
	if (items)
		munmap(items, queue_items_size(alloc));
}

/* A new array of @size bytes, aligned to huge pages if that big */
static struct kvm_events_sample *queue_items_map(size_t size)
{
	size_t align = size < QUEUE_HUGE_PAGE ? 0 : QUEUE_HUGE_PAGE;
	size_t len = size + align, before;
	u8 *map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	u8 *items;

	if (map == MAP_FAILED)
		return NULL;
	if (!align)
		return (struct kvm_events_sample *)map;
	items = (u8 *)round_up((unsigned long)map, align);
	before = items - map;
	if (before)
		munmap(map, before);
	munmap(items + size, len - before - size);
	madvise(items, size, MADV_HUGEPAGE);
	return (struct kvm_events_sample *)items;
}

/* Its pages move to the bigger mapping: none is copied, none touched. */
static void *mapped_array_grow(void *array, size_t size, size_t new_size)
{
	void *grown;

	if (!array)
		grown = mmap(NULL, new_size, PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	else
		grown = mremap(array, size, new_size, MREMAP_MAYMOVE);
	return grown == MAP_FAILED ? NULL : grown;
}

/*
 * The array of @alloc samples that takes over, with the q->nr first ones.
 * One of huge pages moves to the start of the bigger one, its pages
 * whole: a copy would fault and clear as many new pages.
 */
static struct kvm_events_sample *queue_items_alloc(struct kvm_events_queue *q, size_t alloc)
{
	size_t size = queue_items_size(alloc), old_size = queue_items_size(q->alloc);
	struct kvm_events_sample *items;

	if (q->items && size == old_size)
		return q->items;
	if (q->items && size < QUEUE_HUGE_FROM)
		return mapped_array_grow(q->items, old_size, size);
	items = queue_items_map(size);
	if (!items || !q->items)
		return items;
	if (old_size >= QUEUE_HUGE_FROM &&
	    mremap(q->items, old_size, old_size, MREMAP_MAYMOVE | MREMAP_FIXED,
		   items) != MAP_FAILED)
		return items;
	if (q->nr)
		memcpy(items, q->items, q->nr * sizeof(*q->items));
	queue_items_free(q->items, q->alloc);
	return items;
}

/* The bytes of the arrays indexed by run, for @alloc samples */
static size_t runs_size(size_t alloc)
{
	return (alloc + 1) * sizeof(struct kvm_events_queue_run);
}

static size_t heads_size(size_t alloc)
{
	return (alloc + 1) * sizeof(struct kvm_events_queue_head);
}

static size_t tree_size(size_t alloc)
{
	return 2 * (alloc + 1) * sizeof(u32);
}

static size_t stints_size(size_t alloc)
{
	return alloc / QUEUE_STINT_SAMPLES * sizeof(struct kvm_events_queue_stint);
}

/* Grows the mapped array at *@arrayp; on failure it is left as it was. */
static bool queue_array_regrow(void *arrayp, size_t size, size_t new_size)
{
	void **array = arrayp, *grown = mapped_array_grow(*array, size, new_size);

	if (grown)
		*array = grown;
	return grown;
}

/*
 * The arrays by run, sized for as many runs as samples, of which few
 * are used: mapped, so that growing them copies and touches nothing.
 * realloc() copied them whole once glibc kept blocks that big in its
 * heap, as it does after freeing a mapped one.  They never shrink: a
 * second part's queue starts again after its first round is held.
 */
static bool queue_index_grow(struct kvm_events_queue *q, size_t alloc)
{
	size_t old = q->index_alloc;

	if (alloc <= old)
		return true;
	if (!queue_array_regrow(&q->runs, runs_size(old), runs_size(alloc)) ||
	    !queue_array_regrow(&q->heads, heads_size(old), heads_size(alloc)) ||
	    !queue_array_regrow(&q->tree, tree_size(old), tree_size(alloc)) ||
	    !queue_array_regrow(&q->stints, stints_size(old), stints_size(alloc)))
		return false;
	q->index_alloc = alloc;
	return true;
}

static void queue_index_free(struct kvm_events_queue *q)
{
	size_t alloc = q->index_alloc;

	if (!alloc)
		return;
	munmap(q->runs, runs_size(alloc));
	munmap(q->heads, heads_size(alloc));
	munmap(q->tree, tree_size(alloc));
	munmap(q->stints, stints_size(alloc));
}

/*
 * Whether the runs went on at the array's start: the first run read lies
 * after the last, and samples are added up to q->limit, where it starts.
 */
static bool queue_wrapped(const struct kvm_events_queue *q)
{
	return q->nr_runs > 1 && q->runs[0].start > q->runs[q->nr_runs - 1].start;
}

/*
 * The samples delivered leave the array's start free: the runs go on
 * there, the last one ended at the array's end, rather than moving
 * every sample queued to the start, about a copy of each sample.
 */
static void kvm_events_queue__wrap(struct kvm_events_queue *q)
{
	struct kvm_events_queue_run *last = &q->runs[q->nr_runs - 1];

	if (last->start < q->nr) {
		last->end = q->nr;
		q->runs[q->nr_runs++] = (struct kvm_events_queue_run){ 0, 0 };
	} else {
		*last = (struct kvm_events_queue_run){ 0, 0 };
	}
	q->nr = 0;
	q->limit = q->runs[0].start;
	q->wraps++;
}

/*
 * A wrapped queue that is full: its runs, in read order, in a new array,
 * twice as big if they fill half of this one.
 */
static bool kvm_events_queue__unwrap(struct kvm_events_queue *q)
{
	size_t alloc = q->alloc * (queue_live(q) < q->alloc / 2 ? 1 : 2), dst = 0, i;
	struct kvm_events_sample *items = queue_items_map(queue_items_size(alloc));

	if (!items || !queue_index_grow(q, alloc)) {
		if (items)
			munmap(items, queue_items_size(alloc));
		return false;
	}
	for (i = 0; i < q->nr_runs; i++) {
		struct kvm_events_queue_run *run = &q->runs[i];
		size_t len = run_end(q, i) - run->start;

		memcpy(items + dst, q->items + run->start, len * sizeof(*items));
		*run = (struct kvm_events_queue_run){ dst, dst + len };
		dst += len;
	}
	queue_items_free(q->items, q->alloc);
	q->items = items;
	q->nr = dst;
	q->alloc = q->limit = alloc;
	return true;
}

/* No room left before q->limit: make some, or a bigger array. */
bool kvm_events_queue__grow(struct kvm_events_queue *q)
{
	size_t alloc = q->alloc ? q->alloc * 2 : QUEUE_MIN_ALLOC;
	void *items;

	if (!q->batch)
		q->batch = calloc(QUEUE_BATCH, sizeof(*q->batch));
	if (!q->threads)
		q->threads = calloc(QUEUE_THREADS, sizeof(*q->threads));
	if (!q->thread_slots)
		q->thread_slots = calloc(QUEUE_THREADS, sizeof(*q->thread_slots));
	if (!q->batch || !q->threads || !q->thread_slots)
		return false;
	if (queue_wrapped(q)) {
		/* The first runs read were delivered up to here since the wrap. */
		if (q->runs[0].start > q->nr) {
			q->limit = q->runs[0].start;
			return true;
		}
		return kvm_events_queue__unwrap(q);
	}
	if (q->nr < q->alloc) {
		/* All the runs read before the wrap were delivered. */
		q->limit = q->alloc;
		return true;
	}
	/* A quarter of the array before the first run was delivered */
	if (q->nr_runs && q->runs[0].start >= q->alloc / 4) {
		kvm_events_queue__wrap(q);
		return true;
	}
	/* Per-CPU runs delivered in part: the holes between them are free. */
	if (q->nr_runs && queue_live(q) < q->alloc / 2) {
		kvm_events_queue__compact(q);
		return true;
	}
	items = queue_items_alloc(q, alloc);
	if (!items || !queue_index_grow(q, alloc))
		return false;
	q->items = items;
	q->alloc = q->limit = alloc;
	if (!q->nr_runs) {
		q->runs[0] = (struct kvm_events_queue_run){ 0, 0 };
		q->nr_runs = 1;
	}
	return true;
}

/* The latest sample queued: that of max_time, or the last of the last run */
static u64 queue_max_time(const struct kvm_events_queue *q)
{
	return max(q->max_time, q->last_time);
}

/* The runs start again: max_time keeps the latest of those queued so far. */
static void queue_forget_last_time(struct kvm_events_queue *q)
{
	q->max_time = queue_max_time(q);
	q->last_time = 0;
}

/*
 * Only the last run is ever empty, so the runs never outnumber the
 * samples: there is room for one more.
 */
void kvm_events_queue__new_run(struct kvm_events_queue *q)
{
	struct kvm_events_queue_run *last = &q->runs[q->nr_runs - 1];

	q->max_time = queue_max_time(q);
	if (last->start == q->nr)
		return;
	last->end = q->nr;
	q->runs[q->nr_runs++] = (struct kvm_events_queue_run){ q->nr, q->nr };
}

/* Where the samples of run @i up to @limit end: it is in time order. */
static size_t run_prefix_end(const struct kvm_events_queue *q, size_t i, u64 limit)
{
	size_t lo = q->runs[i].start, hi = run_end(q, i);

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (q->items[mid].time <= limit)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* One run: its prefix up to @limit goes as it lies. */
static void kvm_events_queue__deliver_run(struct kvm_events_queue *q,
					  struct kvm_events_report *report, u64 limit)
{
	struct kvm_events_queue_run *run = &q->runs[0];
	size_t end = run_prefix_end(q, 0, limit);

	kvm_events_report__add_many(report, q->items + run->start, end - run->start);
	run->start = end;
}

/*
 * The next sample of @head, and what breaks a tie of time with another:
 * the head of the run read first, whose leaf is lower, goes first.  An
 * emptied head loses to all.
 */
static void head_next(const struct kvm_events_queue *q, struct kvm_events_queue_head *head,
		      u32 leaf)
{
	if (head->next == head->end) {
		head->time = UINT64_MAX;
		head->rank = UINT32_MAX;
	} else {
		head->time = q->items[head->next].time;
		head->rank = leaf;
	}
}

static bool head_before(const struct kvm_events_queue_head *a,
			const struct kvm_events_queue_head *b)
{
	return a->time < b->time || (a->time == b->time && a->rank < b->rank);
}

/*
 * The heads of the runs with samples up to @limit, in read order, and
 * how many samples they hold in all
 */
static size_t kvm_events_queue__heads(struct kvm_events_queue *q, u64 limit, u32 *nr_heads)
{
	size_t total = 0, i;
	u32 nr = 0;

	for (i = 0; i < q->nr_runs; i++) {
		size_t start = q->runs[i].start, end = run_prefix_end(q, i, limit);
		struct kvm_events_queue_head *head = &q->heads[nr];

		if (start == end)
			continue;
		*head = (struct kvm_events_queue_head){ .next = start, .end = end, .run = i };
		head_next(q, head, nr++);
		total += end - start;
	}
	*nr_heads = nr;
	return total;
}

/*
 * A tree of losers over @nr heads, leaf i at node nr + i: each inner node
 * keeps the head that lost the match played there, and the winner plays
 * on.  Returns the overall winner.
 */
static u32 kvm_events_queue__build_tree(struct kvm_events_queue *q, u32 nr)
{
	u32 *loser = q->tree, *winner = q->tree + nr, n;

	for (n = nr - 1; n >= 1; n--) {
		u32 a = 2 * n >= nr ? 2 * n - nr : winner[2 * n];
		u32 b = 2 * n + 1 >= nr ? 2 * n + 1 - nr : winner[2 * n + 1];
		bool b_wins = head_before(&q->heads[b], &q->heads[a]);

		winner[n] = b_wins ? b : a;
		loser[n] = b_wins ? a : b;
	}
	return nr > 1 ? winner[1] : 0;
}

/*
 * After the head of leaf @w moved on: the matches on its path to the root
 * played again, and the winner.
 */
static inline u32 kvm_events_queue__replay(struct kvm_events_queue *q, u32 nr_heads, u32 w)
{
	struct kvm_events_queue_head *heads = q->heads, *head = &heads[w];
	u32 *loser = q->tree, n;

	for (n = (nr_heads + w) / 2; n; n /= 2) {
		u32 l = loser[n];

		if (head_before(&heads[l], head)) {
			loser[n] = w;
			w = l;
			head = &heads[l];
		}
	}
	return w;
}

/*
 * A merge of the heads' samples, @total in all.  After a head gives a
 * sample, only the matches on its path to the root are played again, so
 * a few runs and many are merged the same way, with fewer comparisons
 * than a scan of all heads.  Which CPU comes next stays as hard to
 * predict: that, more than the comparisons, is what the merge costs (see
 * Documentation/kvm-events-design.txt).
 */
static void kvm_events_queue__merge(struct kvm_events_queue *q, struct kvm_events_report *report,
				    u32 nr_heads, size_t total)
{
	struct kvm_events_queue_head *heads = q->heads;
	struct kvm_events_sample *batch = q->batch;
	size_t nr_batch = 0;
	u32 w;

	w = kvm_events_queue__build_tree(q, nr_heads);
	while (total--) {
		struct kvm_events_queue_head *head = &heads[w];

		batch[nr_batch++] = q->items[head->next++];
		if (nr_batch == QUEUE_BATCH) {
			kvm_events_report__add_many(report, batch, nr_batch);
			nr_batch = 0;
		}
		head_next(q, head, w);
		w = kvm_events_queue__replay(q, nr_heads, w);
	}
	kvm_events_report__add_many(report, batch, nr_batch);
}

/* Several runs: a merge of their prefixes */
static void kvm_events_queue__merge_runs(struct kvm_events_queue *q,
					 struct kvm_events_report *report,
					 u32 nr_heads, size_t total)
{
	u32 i;

	kvm_events_queue__merge(q, report, nr_heads, total);
	for (i = 0; i < nr_heads; i++)
		q->runs[q->heads[i].run].start = q->heads[i].end;
}

/* A new check's number: slots of older checks are free.  The table empties as it wraps. */
static u32 kvm_events_queue__new_check(struct kvm_events_queue *q)
{
	if (!++q->nr_checks) {
		memset(q->threads, 0, QUEUE_THREADS * sizeof(*q->threads));
		q->nr_checks = 1;
	}
	return q->nr_checks;
}

/*
 * The thread of @s, which starts a stint at @start up to @end, in the
 * table by tid, and the stint kept at the end of its list, while there
 * is room for it.  NULL when another thread has its slot.
 */
static struct kvm_events_queue_thread *
kvm_events_queue__add_stint(struct kvm_events_queue *q, const struct kvm_events_sample *s,
			    size_t start, size_t end, u32 check)
{
	u32 slot = s->tid % QUEUE_THREADS;
	struct kvm_events_queue_thread *t = &q->threads[slot];
	size_t nr = q->nr_stints;

	if (t->check != check) {
		*t = (struct kvm_events_queue_thread){ .tid = s->tid, .check = check,
						       .first = nr };
		q->thread_slots[q->nr_threads++] = slot;
	} else if (t->tid != s->tid) {
		return NULL;
	} else if (s->time < t->time) {
		t->back_in_time = q->back_in_time = true;
	}
	if (nr == q->max_stints) {
		q->stints_dropped = true;
		return t;
	}
	if (t->first != nr)
		q->stints[t->last].next = nr;
	t->last = nr;
	q->stints[q->nr_stints++] = (struct kvm_events_queue_stint){ start, end, SIZE_MAX };
	return t;
}

/* Adds the first and last times @report reads of @head's run, which is in time order */
static void kvm_events_queue__head_span(const struct kvm_events_queue *q,
					const struct kvm_events_report *report,
					const struct kvm_events_queue_head *head,
					struct kvm_events_span *span, u64 *first)
{
	size_t i = head->next, j = head->end;

	while (j > i && !kvm_events_report__reads(report, q->items[j - 1].tp))
		j--;
	while (i < j && !(q->items[i].time && kvm_events_report__reads(report, q->items[i].tp)))
		i++;
	if (j > head->next) {
		span->read = true;
		span->last = max(span->last, q->items[j - 1].time);
	}
	if (i < j)
		*first = min(*first, q->items[i].time);
}

/*
 * The heads' samples as stints, each a thread's samples in a row in one
 * run, listed by thread, and the span of those the report reads.  False
 * when two threads share a slot of the table.
 */
static bool kvm_events_queue__stints(struct kvm_events_queue *q,
				     const struct kvm_events_report *report,
				     u32 nr_heads, size_t total, struct kvm_events_span *span)
{
	u32 check = kvm_events_queue__new_check(q), i;
	u64 first = UINT64_MAX;

	q->max_stints = min(q->alloc / QUEUE_STINT_SAMPLES,
			    max_t(size_t, nr_heads, total / QUEUE_STINT_SAMPLES));
	q->nr_stints = q->nr_threads = 0;
	q->back_in_time = q->stints_dropped = false;
	for (i = 0; i < nr_heads; i++) {
		const struct kvm_events_queue_head *head = &q->heads[i];
		struct kvm_events_queue_thread *t = NULL;
		size_t j;

		for (j = head->next; j < head->end; j++) {
			const struct kvm_events_sample *s = &q->items[j];

			if (!t || s->tid != t->tid) {
				if (t) {
					t->time = s[-1].time;
					if (!q->stints_dropped)
						q->stints[q->nr_stints - 1].end = j;
				}
				t = kvm_events_queue__add_stint(q, s, j, head->end, check);
				if (!t)
					return false;
			}
		}
		if (t)
			t->time = q->items[head->end - 1].time;
		kvm_events_queue__head_span(q, report, head, span, &first);
	}
	span->first = first == UINT64_MAX ? 0 : first;
	return true;
}

/*
 * The heads' samples in time order, as the merge gives them, in stretches
 * handed over as they lie: the winner's samples up to the next of the
 * best of the others, the losers on its path.  A thread's stints
 * interleave where it came back to a CPU with nothing run there in
 * between: a few long stretches, where the merge would play its matches
 * for every sample.
 */
static void kvm_events_queue__merge_stretches(struct kvm_events_queue *q,
					      struct kvm_events_report *report, u32 nr_heads)
{
	static const struct kvm_events_queue_head none = { .time = UINT64_MAX,
							   .rank = UINT32_MAX };
	struct kvm_events_queue_head *heads = q->heads;
	u32 *loser = q->tree, w, n;

	w = kvm_events_queue__build_tree(q, nr_heads);
	while (heads[w].next < heads[w].end) {
		struct kvm_events_queue_head *head = &heads[w];
		const struct kvm_events_queue_head *rival = &none;
		size_t end = head->next + 1;

		for (n = (nr_heads + w) / 2; n; n /= 2) {
			if (head_before(&heads[loser[n]], rival))
				rival = &heads[loser[n]];
		}
		while (end < head->end &&
		       (q->items[end].time < rival->time ||
			(q->items[end].time == rival->time && w < rival->rank)))
			end++;
		kvm_events_report__add_many(report, q->items + head->next, end - head->next);
		head->next = end;
		head_next(q, head, w);
		w = kvm_events_queue__replay(q, nr_heads, w);
	}
}

/* A thread's stints in time order: as they lie, or merged where it went back in time */
static void kvm_events_queue__deliver_thread(struct kvm_events_queue *q,
					     struct kvm_events_report *report,
					     const struct kvm_events_queue_thread *t)
{
	size_t i;
	u32 nr = 0;

	for (i = t->first; i != SIZE_MAX; i = q->stints[i].next) {
		const struct kvm_events_queue_stint *stint = &q->stints[i];
		struct kvm_events_queue_head *head = &q->heads[nr];

		if (!t->back_in_time) {
			kvm_events_report__add_many(report, q->items + stint->start,
						    stint->end - stint->start);
			continue;
		}
		*head = (struct kvm_events_queue_head){ .next = stint->start, .end = stint->end };
		head_next(q, head, nr++);
	}
	if (nr)
		kvm_events_queue__merge_stretches(q, report, nr);
}

/*
 * A report that pairs each thread's samples alone gets from the merge,
 * which costs as much as the pairing, what it gets from each thread's
 * samples in time order, one thread after another (see
 * Documentation/kvm-events-design.txt).  On a host with vcpus pinned to
 * CPUs, the runs as they were read are that.  Else each thread's stints
 * in time order: a vcpu runs on one CPU at a time, so those of a vcpu
 * that moved are merged, a few long stretches, and the others' taken as
 * they lie.  Stints too short to pay are not kept.
 */
static bool kvm_events_queue__by_thread(struct kvm_events_queue *q,
					struct kvm_events_report *report,
					u32 nr_heads, size_t total)
{
	struct kvm_events_span span = { 0 };
	u64 first_time = report->totals.first_time;
	u32 i;

	if (!kvm_events_report__per_thread(report) ||
	    !kvm_events_queue__stints(q, report, nr_heads, total, &span) ||
	    (q->back_in_time && q->stints_dropped))
		return false;
	for (i = 0; i < nr_heads; i++)
		q->runs[q->heads[i].run].start = q->heads[i].end;
	if (!q->back_in_time) {
		for (i = 0; i < nr_heads; i++)
			kvm_events_report__add_many(report, q->items + q->heads[i].next,
						    q->heads[i].end - q->heads[i].next);
		q->run_after_run++;
	} else {
		for (i = 0; i < q->nr_threads; i++)
			kvm_events_queue__deliver_thread(q, report,
							 &q->threads[q->thread_slots[i]]);
		q->thread_by_thread++;
	}
	kvm_events_report__set_span(report, first_time, &span);
	return true;
}

/*
 * Several runs: by thread where the report allows, else merged.  Stints
 * too short to pay fail flush after flush, and a failure costs a pass
 * over the samples: after each failure in a row, twice as many flushes
 * are merged without one.
 */
static void kvm_events_queue__deliver_runs(struct kvm_events_queue *q,
					   struct kvm_events_report *report, u64 limit)
{
	u32 nr_heads;
	size_t total = kvm_events_queue__heads(q, limit, &nr_heads);

	if (nr_heads < 2) {
		/* One run has samples due: they go as they lie. */
		if (total) {
			kvm_events_report__add_many(report, q->items + q->heads[0].next, total);
			q->runs[q->heads[0].run].start = q->heads[0].end;
		}
		return;
	}
	if (!q->unchecked && kvm_events_queue__by_thread(q, report, nr_heads, total)) {
		q->failed_checks = 0;
		return;
	}
	if (q->unchecked) {
		q->unchecked--;
	} else {
		q->unchecked = 1U << min_t(u32, q->failed_checks, QUEUE_UNCHECKED_SHIFT);
		q->failed_checks++;
	}
	kvm_events_queue__merge_runs(q, report, nr_heads, total);
	q->merged++;
}

/* Drops the emptied runs but the last, which samples are added to. */
static void kvm_events_queue__drop_empty(struct kvm_events_queue *q)
{
	size_t out = 0, i;

	for (i = 0; i + 1 < q->nr_runs; i++) {
		if (q->runs[i].start < q->runs[i].end)
			q->runs[out++] = q->runs[i];
	}
	q->runs[out++] = q->runs[q->nr_runs - 1];
	q->nr_runs = out;
	if (out == 1 && q->runs[0].start == q->nr) {
		/* All delivered: start again at the array's start. */
		q->nr = 0;
		q->limit = q->alloc;
		q->runs[0] = (struct kvm_events_queue_run){ 0, 0 };
		queue_forget_last_time(q);
	}
}

/* Hands the queued events up to @limit to the pairing, in time order. */
void kvm_events_queue__flush(struct kvm_events_queue *q, struct kvm_events_report *report,
			     u64 limit)
{
	/* Nothing queued, maybe nothing ever: no array yet */
	if (!q->nr_runs)
		return;
	if (q->nr_runs == 1)
		kvm_events_queue__deliver_run(q, report, limit);
	else
		kvm_events_queue__deliver_runs(q, report, limit);
	kvm_events_queue__drop_empty(q);
}

/*
 * A second part's first round: its samples may be due before some that
 * the first part has queued, so they are held for it, all of them.
 * Nothing was delivered yet: the array holds them in read order.
 */
static void kvm_events_queue__hold(struct kvm_events_queue *q)
{
	q->held = q->items;
	q->nr_held = q->nr;
	q->alloc_held = q->alloc;
	q->items = NULL;
	q->nr = q->alloc = q->limit = q->nr_runs = 0;
	queue_forget_last_time(q);
}

/* perf's rule: at a round's end, what came before the previous one ended is due. */
void kvm_events_queue__round_end(struct kvm_events_queue *q, struct kvm_events_report *report)
{
	q->max_time = queue_max_time(q);
	if (q->rounds && !q->nr_rounds)
		kvm_events_queue__hold(q);
	/*
	 * The first part's samples are no later than the second round's
	 * earliest (see kvm_events_queue__follows()), nor the held ones
	 * than the first round's latest.
	 */
	if (q->rounds && q->nr_rounds == 1)
		kvm_events_report__defer_until(report, max(q->rounds[0].max_time,
							   q->round_min));
	if (q->rounds && q->nr_rounds <= KVM_EVENTS_QUEUE_ROUNDS) {
		if (q->nr_rounds < KVM_EVENTS_QUEUE_ROUNDS)
			q->rounds[q->nr_rounds] = (struct kvm_events_queue_round){
				q->round_min, q->max_time };
		q->nr_rounds++;
	}
	q->round_min = UINT64_MAX;
	kvm_events_queue__flush(q, report, q->flush_limit);
	q->last_flush = q->flush_limit;
	q->flush_limit = q->max_time;
}

void kvm_events_queue__init(struct kvm_events_queue *q)
{
	memset(q, 0, sizeof(*q));
	q->round_min = UINT64_MAX;	/* none read in the first round yet */
}

int kvm_events_queue__keep_rounds(struct kvm_events_queue *q)
{
	q->rounds = calloc(KVM_EVENTS_QUEUE_ROUNDS, sizeof(*q->rounds));
	return q->rounds ? 0 : -ENOMEM;
}

/*
 * Whether the samples of @second, the rounds read after those of @first,
 * are delivered in the order one queue of both would give: neither
 * found a sample out of order, @first has none read since its last
 * round, and no sample of @second is earlier than where one queue would
 * have flushed before reading it.  That limit is the previous round's
 * latest sample: @first's before the second's first round, then the
 * latest of @first's and the second's rounds up to the one before.
 */
bool kvm_events_queue__follows(const struct kvm_events_queue *second,
			       const struct kvm_events_queue *first)
{
	u64 limit = first->last_flush, first_max = queue_max_time(first);
	u32 i;

	if (first->out_of_order || second->out_of_order || first->round_min != UINT64_MAX)
		return false;
	for (i = 0; i <= second->nr_rounds; i++) {
		u64 min_time;

		if (i >= KVM_EVENTS_QUEUE_ROUNDS)
			return false;
		/* The samples after the last round end count as a round. */
		min_time = i < second->nr_rounds ? second->rounds[i].min_time : second->round_min;
		if (min_time < limit)
			return false;
		limit = i ? max(first_max, second->rounds[i - 1].max_time) : first_max;
		/* From here on, the second's own flushes are one queue's. */
		if (i && second->rounds[i - 1].max_time >= first_max)
			return true;
	}
	return true;
}

/* Queues @nr samples, read after those queued */
int kvm_events_queue__add(struct kvm_events_queue *q, const struct kvm_events_sample *s,
			  size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++) {
		struct kvm_events_sample *slot = kvm_events_queue__slot(q);

		if (!slot)
			return -ENOMEM;
		*slot = s[i];
		kvm_events_queue__push(q, slot);
	}
	return 0;
}

void kvm_events_queue__exit(struct kvm_events_queue *q)
{
	free(q->rounds);
	queue_items_free(q->held, q->alloc_held);
	queue_items_free(q->items, q->alloc);
	queue_index_free(q);
	free(q->threads);
	free(q->thread_slots);
	free(q->batch);
}
