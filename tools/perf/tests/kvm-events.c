// SPDX-License-Identifier: GPL-2.0
/*
 * perf kvm-events: pairing, on samples built in memory from real kvm
 * tracepoint format texts.
 */
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>
#include <linux/kernel.h>

#include "debug.h"
#include "kvm-events-common.h"
#include "kvm-events-formats.h"
#include "tests.h"
#include "util/kvm-events.h"
#include "util/kvm-events-sched.h"
#include "util/sample.h"

static const char kvm_entry_6_12[] =
	"name: kvm_entry\nID: 115\nformat:\n" COMMON_FIELDS
	"\tfield:unsigned int vcpu_id;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned long rip;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:bool immediate_exit;\toffset:24;\tsize:1;\tsigned:0;\n"
	"\tfield:u32 intr_info;\toffset:28;\tsize:4;\tsigned:0;\n"
	"\tfield:u32 error_code;\toffset:32;\tsize:4;\tsigned:0;\n\n"
	PRINT_FMT("vcpu %u, rip 0x%lx", "REC->vcpu_id, REC->rip");

static const char kvm_mmio_6_12[] =
	"name: kvm_mmio\nID: 38\nformat:\n" COMMON_FIELDS
	"\tfield:u32 type;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:u32 len;\toffset:12;\tsize:4;\tsigned:0;\n"
	"\tfield:u64 gpa;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:u64 val;\toffset:24;\tsize:8;\tsigned:0;\n\n"
	PRINT_FMT("mmio %u len %u gpa 0x%llx val 0x%llx",
		  "REC->type, REC->len, REC->gpa, REC->val");

static const char kvm_pio_6_12[] =
	"name: kvm_pio\nID: 110\nformat:\n" COMMON_FIELDS
	"\tfield:unsigned int rw;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned int port;\toffset:12;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned int size;\toffset:16;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned int count;\toffset:20;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned int val;\toffset:24;\tsize:4;\tsigned:0;\n\n"
	PRINT_FMT("pio_%u at 0x%x", "REC->rw, REC->port");

/*
 * The exit tracepoints of the other architectures and the x86 nested and
 * halt ones, as their 6.12 TP_STRUCT__entry lay them out on 64-bit hosts.
 */
#define FIELD(decl, offset, size, is_signed)			\
	"\tfield:" decl ";\toffset:" #offset ";\tsize:" #size ";\tsigned:" #is_signed ";\n"
#define FORMAT(name, id, fields)					\
	"name: " name "\nID: " #id "\nformat:\n" COMMON_FIELDS fields	\
	"\nprint fmt: \"" name "\"\n"

static const char arm64_exit[] = FORMAT("kvm_exit", 70,
	FIELD("int ret", 8, 4, 1) FIELD("unsigned int esr_ec", 12, 4, 0)
	FIELD("unsigned long vcpu_pc", 16, 8, 0));
static const char arm64_entry[] = FORMAT("kvm_entry", 71,
	FIELD("unsigned long vcpu_pc", 8, 8, 0));
static const char arm64_wfx[] = FORMAT("kvm_wfx_arm64", 72,
	FIELD("unsigned long vcpu_pc", 8, 8, 0) FIELD("bool is_wfe", 16, 1, 0));
static const char riscv_exit[] = FORMAT("kvm_exit", 80,
	FIELD("unsigned long sepc", 8, 8, 0) FIELD("unsigned long scause", 16, 8, 0)
	FIELD("unsigned long stval", 24, 8, 0) FIELD("unsigned long htval", 32, 8, 0)
	FIELD("unsigned long htinst", 40, 8, 0));
static const char loongarch_exit[] = FORMAT("kvm_exit", 90,
	FIELD("unsigned int vcpu_id", 8, 4, 0) FIELD("unsigned long pc", 16, 8, 0)
	FIELD("unsigned int reason", 24, 4, 0));
static const char loongarch_idle[] = FORMAT("kvm_exit_idle", 91,
	FIELD("unsigned int vcpu_id", 8, 4, 0) FIELD("unsigned long pc", 16, 8, 0)
	FIELD("unsigned int reason", 24, 4, 0));
static const char loongarch_reenter[] = FORMAT("kvm_reenter", 92,
	FIELD("unsigned int vcpu_id", 8, 4, 0) FIELD("unsigned long pc", 16, 8, 0));
static const char s390_exit[] = FORMAT("kvm_s390_sie_exit", 100,
	FIELD("int id", 8, 4, 1) FIELD("unsigned long pswmask", 16, 8, 0)
	FIELD("unsigned long pswaddr", 24, 8, 0) FIELD("u8 icptcode", 32, 1, 0));
static const char ppc_exit[] = FORMAT("kvm_guest_exit", 110,
	FIELD("int vcpu_id", 8, 4, 1) FIELD("int trap", 12, 4, 1)
	FIELD("unsigned long pc", 16, 8, 0) FIELD("unsigned long msr", 24, 8, 0)
	FIELD("u8 ceded", 32, 1, 0));
static const char nested_exit[] = FORMAT("kvm_nested_vmexit", 120,
	FIELD("unsigned int exit_reason", 8, 4, 0)
	FIELD("unsigned long guest_rip", 16, 8, 0) FIELD("u32 isa", 24, 4, 0)
	FIELD("unsigned int vcpu_id", 56, 4, 0));
static const char nested_inject[] = FORMAT("kvm_nested_vmexit_inject", 121,
	FIELD("__u32 exit_code", 8, 4, 0) FIELD("__u64 exit_info1", 16, 8, 0)
	FIELD("__u32 isa", 40, 4, 0));
static const char vcpu_wakeup[] = FORMAT("kvm_vcpu_wakeup", 130,
	FIELD("__u64 ns", 8, 8, 0) FIELD("bool waited", 16, 1, 0)
	FIELD("bool valid", 17, 1, 0));

/*
 * Each fact is its own TEST_ASSERT_VAL(), which returns TEST_FAIL from the
 * function that checks it.  So the checks are made in helpers, and what
 * they allocate is freed by their caller, whatever they return.  A helper
 * that fails makes its caller's assertion fail too: perf test -v prints
 * the failed fact first, then the facts it was part of.
 */

struct kvm_fixture {
	struct tep_handle		*tep;
	struct kvm_events_decoder	exit, entry, mmio, pio;
	struct kvm_events_report	report;
	u32				pid;	/* of the samples fed, 0: 4242 */
	u8				raw[128];
};

static int decoder_from(struct kvm_fixture *f, struct kvm_events_decoder *dec,
			const char *text)
{
	struct tep_event *event = parse_format(f->tep, text);

	return event ? kvm_events_decoder__init(dec, event) : -1;
}

/* Replaces the fixture's report with an empty one of @analysis */
static int fixture__report(struct kvm_fixture *f, const char *analysis,
			   const struct kvm_events_options *opts)
{
	const struct kvm_events_analysis *a = kvm_events_analysis__find(analysis);

	kvm_events_report__exit(&f->report);
	TEST_ASSERT_VAL("analysis found", a);
	TEST_ASSERT_VAL("report init", !kvm_events_report__init(&f->report, a, opts));
	return TEST_OK;
}

static int fixture__init_tep(struct kvm_fixture *f)
{
	memset(f, 0, sizeof(*f));
	f->tep = tep_alloc();
	TEST_ASSERT_VAL("tep_alloc", f->tep);
	return TEST_OK;
}

static int fixture__init(struct kvm_fixture *f, const char *exit_format,
			 const char *analysis)
{
	TEST_ASSERT_VAL("fixture tep", !fixture__init_tep(f));
	TEST_ASSERT_VAL("kvm_exit decoder", !decoder_from(f, &f->exit, exit_format));
	TEST_ASSERT_VAL("kvm_entry decoder", !decoder_from(f, &f->entry, kvm_entry_6_12));
	TEST_ASSERT_VAL("kvm_mmio decoder", !decoder_from(f, &f->mmio, kvm_mmio_6_12));
	TEST_ASSERT_VAL("kvm_pio decoder", !decoder_from(f, &f->pio, kvm_pio_6_12));
	TEST_ASSERT_VAL("fixture report", !fixture__report(f, analysis, NULL));
	return TEST_OK;
}

static void fixture__exit(struct kvm_fixture *f)
{
	kvm_events_report__exit(&f->report);
	tep_free(f->tep);
}

/* Runs @check on a zeroed fixture, which it sets up, then frees the fixture. */
static int fixture__run(int (*check)(struct kvm_fixture *f))
{
	struct kvm_fixture f;
	int ret;

	memset(&f, 0, sizeof(f));
	ret = check(&f);
	fixture__exit(&f);
	return ret;
}

static void put_field(u8 *raw, struct kvm_events_field_at at, u64 val)
{
	memcpy(raw + at.offset, &val, at.size);
}

/* Encodes a sample as the kernel lays it out, then decodes and feeds it. */
static int feed_flag(struct kvm_fixture *f, const struct kvm_events_decoder *dec,
		     u32 tid, u64 time, u32 vcpu, u64 code, u32 kind, u32 flag)
{
	struct perf_sample sample = {
		.pid = f->pid ?: 4242, .tid = tid, .time = time,
		.raw_data = f->raw, .raw_size = dec->min_raw_size,
	};
	struct kvm_events_sample s;

	memset(f->raw, 0, sizeof(f->raw));
	put_field(f->raw, dec->vcpu_at, vcpu);
	put_field(f->raw, dec->code_at, code);
	put_field(f->raw, dec->kind_at, kind);
	put_field(f->raw, dec->flag_at, flag);
	put_field(f->raw, dec->isa_at, KVM_EVENTS_ISA_VMX);
	if (kvm_events_decoder__decode(dec, &sample, false, &s))
		return -1;
	kvm_events_report__add(&f->report, &s);
	return 0;
}

static int feed(struct kvm_fixture *f, const struct kvm_events_decoder *dec,
		u32 tid, u64 time, u32 vcpu, u64 code, u32 kind)
{
	return feed_flag(f, dec, tid, time, vcpu, code, kind, 0);
}

/* kvm_vcpu_wakeup: ns, waited, valid */
static int feed_wakeup(struct kvm_fixture *f, const struct kvm_events_decoder *dec,
		       u64 time, u64 ns, bool waited, bool valid)
{
	return feed_flag(f, dec, 7, time, 0, ns, waited, valid);
}

/* A sample of one of the fixture's tracepoints, for feed_all() */
enum fed_tp { FED_EXIT, FED_ENTRY, FED_MMIO, FED_PIO };

struct fed_sample {
	enum fed_tp	tp;
	u32		tid;
	u64		time;
	u32		vcpu;
	u64		code;
	u32		kind;
};

static const struct kvm_events_decoder *fixture__decoder(struct kvm_fixture *f,
							 enum fed_tp tp)
{
	switch (tp) {
	case FED_EXIT:
		return &f->exit;
	case FED_ENTRY:
		return &f->entry;
	case FED_MMIO:
		return &f->mmio;
	case FED_PIO:
	default:
		return &f->pio;
	}
}

/* Feeds one sample of @samples; when it does not decode, says which. */
static bool fed_one(struct kvm_fixture *f, const struct fed_sample *samples,
		    size_t i)
{
	const struct fed_sample *e = &samples[i];

	if (!feed(f, fixture__decoder(f, e->tp), e->tid, e->time, e->vcpu,
		  e->code, e->kind))
		return true;
	pr_debug("sample %zu, at %llu ns, not decoded\n", i,
		 (unsigned long long)e->time);
	return false;
}

static int feed_all(struct kvm_fixture *f, const struct fed_sample *samples,
		    size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++)
		TEST_ASSERT_VAL("sample decoded and fed", fed_one(f, samples, i));
	return TEST_OK;
}

/* A key of the report and its samples, timed samples and total time */
static int check_key(struct kvm_events_report *report, const char *name,
		     u64 samples, u64 timed, u64 total_ns)
{
	struct kvm_events_key *key = kvm_events_report__key(report, name);

	if (!key)
		pr_debug("key %s: missing\n", name);
	TEST_ASSERT_VAL("key found", key);
	TEST_ASSERT_VAL("key samples", u64_is(key->samples, samples));
	TEST_ASSERT_VAL("key timed samples", u64_is(key->timed, timed));
	TEST_ASSERT_VAL("key total ns", u64_is(key->total_ns, total_ns));
	return TEST_OK;
}

/* Every sample read is in exactly one bucket. */
static bool buckets_add_up(const struct kvm_events_totals *t)
{
	return u64_is(t->keyed + t->paired_end + t->filtered + t->unused, t->read);
}

/*
 * Two vcpus interleaved; times in ns.  vcpu 0 (tid 100): HLT 5000ns,
 * IO_INSTRUCTION 500ns with a port write, unknown reason 99 for 40ns,
 * then a CPUID whose entry was never recorded.  vcpu 1 (tid 101): an
 * EPT_MISCONFIG MMIO write of 300ns (exit to entry 400ns) and an
 * MMIO read of 700ns (exit to entry 800ns).
 */
static const struct fed_sample two_vcpus[] = {
	{ FED_ENTRY, 100, 1000, 0, 0, 0 },
	{ FED_ENTRY, 101, 1100, 1, 0, 0 },
	{ FED_EXIT,  100, 2000, 0, 12, 0 },
	{ FED_EXIT,  101, 2100, 1, 49, 0 },
	{ FED_MMIO,  101, 2200, 0, 0xfee00300, 2 },
	{ FED_ENTRY, 101, 2500, 1, 0, 0 },
	{ FED_EXIT,  101, 3000, 1, 49, 0 },
	{ FED_MMIO,  101, 3100, 0, 0xfed00000, 0 },
	{ FED_MMIO,  101, 3700, 0, 0xfed00000, 1 },
	{ FED_ENTRY, 101, 3800, 1, 0, 0 },
	{ FED_ENTRY, 100, 7000, 0, 0, 0 },
	{ FED_EXIT,  100, 8000, 0, 30, 0 },
	{ FED_PIO,   100, 8100, 0, 0x3f8, 1 },
	{ FED_ENTRY, 100, 8500, 0, 0, 0 },
	{ FED_EXIT,  100, 9000, 0, 99, 0 },
	{ FED_ENTRY, 100, 9040, 0, 0, 0 },
	{ FED_EXIT,  100, 9100, 0, 10, 0 },
};

static int feed_two_vcpus(struct kvm_fixture *f)
{
	return feed_all(f, two_vcpus, ARRAY_SIZE(two_vcpus));
}

static int check_vmexit(struct kvm_fixture *f)
{
	struct kvm_events_totals *t = &f->report.totals;

	TEST_ASSERT_VAL("vmexit fixture", !fixture__init(f, kvm_exit_6_12, "vmexit"));
	TEST_ASSERT_VAL("two vcpus fed", !feed_two_vcpus(f));
	kvm_events_report__finish(&f->report);
	TEST_ASSERT_VAL("key HLT", !check_key(&f->report, "HLT", 1, 1, 5000));
	TEST_ASSERT_VAL("key IO_INSTRUCTION",
			!check_key(&f->report, "IO_INSTRUCTION", 1, 1, 500));
	TEST_ASSERT_VAL("key EPT_MISCONFIG",
			!check_key(&f->report, "EPT_MISCONFIG", 2, 2, 1200));
	TEST_ASSERT_VAL("key 0x63 (reason 99)", !check_key(&f->report, "0x63", 1, 1, 40));
	TEST_ASSERT_VAL("key CPUID, without entry", !check_key(&f->report, "CPUID", 1, 0, 0));
	TEST_ASSERT_VAL("samples keyed", u64_is(t->keyed, 6));
	TEST_ASSERT_VAL("samples without end", u64_is(t->no_end, 1));
	TEST_ASSERT_VAL("samples without begin", u64_is(t->no_begin, 0));
	TEST_ASSERT_VAL("total ns", u64_is(t->total_ns, 6740));
	TEST_ASSERT_VAL("samples read", u64_is(t->read, 17));
	TEST_ASSERT_VAL("buckets add up to samples read", buckets_add_up(t));
	return TEST_OK;
}

static int test__kvm_events_vmexit(struct test_suite *test __maybe_unused,
				   int subtest __maybe_unused)
{
	return fixture__run(check_vmexit);
}

static int check_mmio_ioport(struct kvm_fixture *f)
{
	struct kvm_events_totals *t = &f->report.totals;

	TEST_ASSERT_VAL("mmio fixture", !fixture__init(f, kvm_exit_6_12, "mmio"));
	TEST_ASSERT_VAL("two vcpus fed to mmio", !feed_two_vcpus(f));
	kvm_events_report__finish(&f->report);
	/* Write: kvm_mmio to kvm_entry.  Read: kvm_exit to kvm_mmio(read). */
	TEST_ASSERT_VAL("mmio key 0xfee00300:W",
			!check_key(&f->report, "0xfee00300:W", 1, 1, 300));
	TEST_ASSERT_VAL("mmio key 0xfed00000:R",
			!check_key(&f->report, "0xfed00000:R", 1, 1, 700));
	TEST_ASSERT_VAL("mmio samples keyed", u64_is(t->keyed, 2));
	TEST_ASSERT_VAL("mmio buckets add up to samples read", buckets_add_up(t));

	TEST_ASSERT_VAL("ioport report", !fixture__report(f, "ioport", NULL));
	TEST_ASSERT_VAL("two vcpus fed to ioport", !feed_two_vcpus(f));
	kvm_events_report__finish(&f->report);
	TEST_ASSERT_VAL("ioport key 0x3f8:POUT",
			!check_key(&f->report, "0x3f8:POUT", 1, 1, 400));
	TEST_ASSERT_VAL("ioport samples keyed", u64_is(t->keyed, 1));
	TEST_ASSERT_VAL("ioport buckets add up to samples read", buckets_add_up(t));
	return TEST_OK;
}

static int test__kvm_events_mmio_ioport(struct test_suite *test __maybe_unused,
					int subtest __maybe_unused)
{
	return fixture__run(check_mmio_ioport);
}

/* Old kvm_exit has no vcpu_id: the vcpu is learnt from kvm_entry. */
static int check_vcpu_filter(struct kvm_fixture *f)
{
	struct kvm_events_totals *t = &f->report.totals;
	u32 vcpu_one[1][2] = { { 1, 1 } };
	struct kvm_events_options opts = {
		.vcpu_ranges = vcpu_one,
		.nr_vcpu_ranges = 1,
	};

	TEST_ASSERT_VAL("old kvm_exit fixture", !fixture__init(f, kvm_exit_old, "vmexit"));
	TEST_ASSERT_VAL("vmexit report of vcpu 1",
			!fixture__report(f, "vmexit", &opts));
	TEST_ASSERT_VAL("two vcpus fed", !feed_two_vcpus(f));
	kvm_events_report__finish(&f->report);
	TEST_ASSERT_VAL("vcpu 1 key EPT_MISCONFIG",
			!check_key(&f->report, "EPT_MISCONFIG", 2, 2, 1200));
	TEST_ASSERT_VAL("vcpu 0 key HLT filtered out",
			!kvm_events_report__key(&f->report, "HLT"));
	TEST_ASSERT_VAL("vcpu 1 samples keyed", u64_is(t->keyed, 2));
	TEST_ASSERT_VAL("vcpu 0 samples filtered", u64_is(t->filtered, 4));
	TEST_ASSERT_VAL("vcpu 1 samples without end", u64_is(t->no_end, 0));
	TEST_ASSERT_VAL("buckets add up to samples read", buckets_add_up(t));
	return TEST_OK;
}

static int test__kvm_events_vcpu_filter(struct test_suite *test __maybe_unused,
					int subtest __maybe_unused)
{
	return fixture__run(check_vcpu_filter);
}

/* Exits whose entries are never recorded, as on hosts without kvm_entry */
static const struct fed_sample pio_unpaired[] = {
	{ FED_PIO, 200, 10, 0, 0x500, 1 },
	{ FED_PIO, 200, 20, 0, 0x500, 1 },
	{ FED_PIO, 200, 30, 0, 0x501, 0 },
};

/*
 * MMIO writes and reads with no kvm_exit or kvm_entry between them:
 * a read is not timed from the write before it.
 */
static const struct fed_sample mmio_unpaired[] = {
	{ FED_MMIO, 200, 10, 0, 0x80000, 2 },
	{ FED_MMIO, 200, 20, 0, 0x80000, 2 },
	{ FED_MMIO, 200, 30, 0, 0x80010, 0 },
	{ FED_MMIO, 200, 40, 0, 0x80010, 1 },
	{ FED_MMIO, 200, 50, 0, 0x80010, 1 },
};

static int check_unpaired(struct kvm_fixture *f)
{
	struct kvm_events_totals *t = &f->report.totals;

	TEST_ASSERT_VAL("ioport fixture", !fixture__init(f, kvm_exit_6_12, "ioport"));
	TEST_ASSERT_VAL("kvm_pio fed",
			!feed_all(f, pio_unpaired, ARRAY_SIZE(pio_unpaired)));
	kvm_events_report__finish(&f->report);
	TEST_ASSERT_VAL("ioport key 0x500:POUT",
			!check_key(&f->report, "0x500:POUT", 2, 0, 0));
	TEST_ASSERT_VAL("ioport key 0x501:PIN", !check_key(&f->report, "0x501:PIN", 1, 0, 0));
	TEST_ASSERT_VAL("ioport samples without end", u64_is(t->no_end, 3));
	TEST_ASSERT_VAL("ioport total ns", u64_is(t->total_ns, 0));

	TEST_ASSERT_VAL("mmio report", !fixture__report(f, "mmio", NULL));
	TEST_ASSERT_VAL("kvm_mmio fed",
			!feed_all(f, mmio_unpaired, ARRAY_SIZE(mmio_unpaired)));
	kvm_events_report__finish(&f->report);
	TEST_ASSERT_VAL("mmio key 0x80000:W", !check_key(&f->report, "0x80000:W", 2, 0, 0));
	TEST_ASSERT_VAL("mmio key 0x80010:R", !check_key(&f->report, "0x80010:R", 2, 0, 0));
	TEST_ASSERT_VAL("mmio samples without end", u64_is(t->no_end, 2));
	TEST_ASSERT_VAL("mmio samples without begin", u64_is(t->no_begin, 2));
	TEST_ASSERT_VAL("mmio buckets add up to samples read", buckets_add_up(t));
	return TEST_OK;
}

static int test__kvm_events_unpaired(struct test_suite *test __maybe_unused,
				     int subtest __maybe_unused)
{
	return fixture__run(check_unpaired);
}

/*
 * Values a crafted or unusual recording holds: a million distinct MMIO
 * addresses, the largest vcpu ids, a vcpu thread id that a new VM reuses,
 * an end stamped before its begin.
 */
#define MANY_KEYS	1000000

static int check_many_keys(struct kvm_fixture *f)
{
	const struct kvm_events_sort_keys by_samples = { 1, { KVM_EVENTS_SORT_SAMPLE } };
	struct kvm_events_totals *t = &f->report.totals;
	struct kvm_events_key **keys;
	bool sorted;
	size_t nr = 0;
	u32 i;

	TEST_ASSERT_VAL("mmio fixture", !fixture__init(f, kvm_exit_6_12, "mmio"));
	for (i = 0; i < MANY_KEYS; i++) {
		TEST_ASSERT_VAL("kvm_mmio write fed",
				!feed(f, &f->mmio, 300, 1000ULL * i, 0,
				      0x100000000ULL + 8ULL * i, 2));
		TEST_ASSERT_VAL("kvm_entry fed",
				!feed(f, &f->entry, 300, 1000ULL * i + 100, 0, 0, 0));
	}
	kvm_events_report__finish(&f->report);
	keys = kvm_events_report__sorted(&f->report, &by_samples, &nr);
	sorted = keys != NULL;
	free(keys);
	TEST_ASSERT_VAL("keys sorted", sorted);
	TEST_ASSERT_VAL("sorted keys", u64_is(nr, MANY_KEYS));
	TEST_ASSERT_VAL("samples keyed", u64_is(t->keyed, MANY_KEYS));
	TEST_ASSERT_VAL("total ns", u64_is(t->total_ns, 100ULL * MANY_KEYS));
	TEST_ASSERT_VAL("key 0x100000008:W",
			!check_key(&f->report, "0x100000008:W", 1, 1, 100));
	TEST_ASSERT_VAL("buckets add up to samples read", buckets_add_up(t));
	return TEST_OK;
}

/* vcpu 2^32-2 is selected; 2^32-1 is no vcpu id, so never selected */
static const struct fed_sample top_vcpus[] = {
	{ FED_EXIT,  400, 10, 0xfffffffe, 12, 0 },
	{ FED_ENTRY, 400, 30, 0xfffffffe, 0, 0 },
	{ FED_EXIT,  401, 10, 0xffffffff, 12, 0 },
	{ FED_ENTRY, 401, 40, 0xffffffff, 0, 0 },
};

static int check_top_vcpus(struct kvm_fixture *f)
{
	struct kvm_events_totals *t = &f->report.totals;
	u32 top_vcpu[1][2] = { { 0xfffffffe, 0xfffffffe } };
	struct kvm_events_options opts = {
		.nr_vcpu_ranges = 1, .vcpu_ranges = top_vcpu,
	};

	TEST_ASSERT_VAL("vmexit report of vcpu 2^32-2",
			!fixture__report(f, "vmexit", &opts));
	TEST_ASSERT_VAL("top vcpus fed", !feed_all(f, top_vcpus, ARRAY_SIZE(top_vcpus)));
	kvm_events_report__finish(&f->report);
	TEST_ASSERT_VAL("vcpu 2^32-2 key HLT", !check_key(&f->report, "HLT", 1, 1, 20));
	TEST_ASSERT_VAL("vcpu 2^32-1 samples filtered", u64_is(t->filtered, 1));
	TEST_ASSERT_VAL("buckets add up to samples read", buckets_add_up(t));
	return TEST_OK;
}

/*
 * VM 4242 dies inside an exit of thread 500; thread id 500 comes back
 * in VM 5353, whose first event, a kvm_entry, is not that exit's end.
 * Then an entry stamped before its exit: a sample without begin.
 */
static const struct fed_sample reused_tid[] = {
	{ FED_ENTRY, 500, 200, 0, 0, 0 },
	{ FED_EXIT,  500, 300, 0, 10, 0 },
	{ FED_ENTRY, 500, 250, 0, 0, 0 },
};

static int check_reused_tid(struct kvm_fixture *f)
{
	struct kvm_events_totals *t = &f->report.totals;

	TEST_ASSERT_VAL("vmexit report", !fixture__report(f, "vmexit", NULL));
	TEST_ASSERT_VAL("VM 4242 kvm_exit fed", !feed(f, &f->exit, 500, 100, 0, 30, 0));
	f->pid = 5353;
	TEST_ASSERT_VAL("VM 5353 samples fed",
			!feed_all(f, reused_tid, ARRAY_SIZE(reused_tid)));
	kvm_events_report__finish(&f->report);
	TEST_ASSERT_VAL("VM 4242 key IO_INSTRUCTION",
			!check_key(&f->report, "IO_INSTRUCTION", 1, 0, 0));
	TEST_ASSERT_VAL("VM 5353 key CPUID", !check_key(&f->report, "CPUID", 1, 0, 0));
	TEST_ASSERT_VAL("samples without end", u64_is(t->no_end, 1));
	TEST_ASSERT_VAL("samples without begin", u64_is(t->no_begin, 1));
	TEST_ASSERT_VAL("buckets add up to samples read", buckets_add_up(t));
	return TEST_OK;
}

/* A context switch of thread @tid, out of its CPU or back in */
static void feed_switch(struct kvm_fixture *f, u32 tid, u64 time, bool out)
{
	struct perf_record_switch sw = {
		.header = {
			.type = PERF_RECORD_SWITCH, .size = sizeof(sw),
			.misc = out ? PERF_RECORD_MISC_SWITCH_OUT : 0,
		},
	};
	struct kvm_events_sample s;

	kvm_events_switch__init(&s, (union perf_event *)&sw, f->pid ?: 4242, tid);
	s.time = time;
	kvm_events_report__add(&f->report, &s);
}

/*
 * Thread 100 switches in before its first sample, so it is then no vcpu;
 * thread 164 takes its place in the engine's caches (164 % 64 = 100 % 64)
 * before 100 is switched out inside its exit.  Its 30 ns off CPU count.
 */
static int check_switch_before_first_sample(struct kvm_fixture *f)
{
	struct kvm_events_options opts = { .sched = true };
	struct kvm_events_key *hlt;

	TEST_ASSERT_VAL("vmexit report with switches", !fixture__report(f, "vmexit", &opts));
	feed_switch(f, 100, 5, false);
	TEST_ASSERT_VAL("HLT exit of 100", !feed(f, &f->exit, 100, 10, 0, 12, 0));
	TEST_ASSERT_VAL("CPUID exit of 164", !feed(f, &f->exit, 164, 12, 1, 10, 0));
	TEST_ASSERT_VAL("entry of 164", !feed(f, &f->entry, 164, 15, 1, 0, 0));
	feed_switch(f, 100, 20, true);
	feed_switch(f, 100, 50, false);
	TEST_ASSERT_VAL("entry of 100", !feed(f, &f->entry, 100, 60, 0, 0, 0));
	kvm_events_report__finish(&f->report);
	TEST_ASSERT_VAL("key HLT", !check_key(&f->report, "HLT", 1, 1, 50));
	hlt = kvm_events_report__key(&f->report, "HLT");
	TEST_ASSERT_VAL("HLT split", hlt->split);
	TEST_ASSERT_VAL("HLT off CPU ns", u64_is(hlt->split->ns[KVM_EVENTS_OFFCPU], 30));
	TEST_ASSERT_VAL("HLT on CPU ns", u64_is(hlt->split->ns[KVM_EVENTS_ONCPU], 20));
	TEST_ASSERT_VAL("switch records", u64_is(f->report.totals.switch_records, 3));
	return TEST_OK;
}

static int check_hostile_values(struct kvm_fixture *f)
{
	TEST_ASSERT_VAL("1M mmio keys", !check_many_keys(f));
	TEST_ASSERT_VAL("top vcpu ids", !check_top_vcpus(f));
	TEST_ASSERT_VAL("reused thread id, time going back", !check_reused_tid(f));
	TEST_ASSERT_VAL("a thread switched before its first sample",
			!check_switch_before_first_sample(f));
	return TEST_OK;
}

static int test__kvm_events_hostile_values(struct test_suite *test __maybe_unused,
					   int subtest __maybe_unused)
{
	return fixture__run(check_hostile_values);
}

/* One exit of another architecture: its key name and the isa decoded */
struct arch_exit {
	const char	*format;
	const char	*system;
	u32		isa;
	u64		code;
	u32		kind;
	const char	*detail;	/* a detail event after the exit, or NULL */
	const char	*detail2;	/* and a second one */
	u64		detail_code;
	u32		detail_kind;
	const char	*entry;
	const char	*key;
	bool		idle;
};

static const struct arch_exit arch_exits[] = {
	{ arm64_exit, "kvm", KVM_EVENTS_ISA_ARM64, 0x24, 2, NULL, NULL, 0, 0,
	  arm64_entry, "DABT_LOW", false },
	{ arm64_exit, "kvm", KVM_EVENTS_ISA_ARM64, 0x01, 2, arm64_wfx, NULL, 0, 0,
	  arm64_entry, "WFI", true },
	{ arm64_exit, "kvm", KVM_EVENTS_ISA_ARM64, 0x01, 2, arm64_wfx, NULL, 0, 1,
	  arm64_entry, "WFE", false },
	{ arm64_exit, "kvm", KVM_EVENTS_ISA_ARM64, 0, 0, NULL, NULL, 0, 0,
	  arm64_entry, "IRQ", false },
	{ riscv_exit, "kvm", KVM_EVENTS_ISA_RISCV, 1ULL << 63 | 5, 0, NULL, NULL, 0, 0,
	  arm64_entry, "IRQ_S_TIMER", false },
	{ riscv_exit, "kvm", KVM_EVENTS_ISA_RISCV, 22, 0, NULL, NULL, 0, 0,
	  arm64_entry, "VIRTUAL_INST_FAULT", false },
	{ loongarch_exit, "kvm", KVM_EVENTS_ISA_LOONGARCH, 22, 0, loongarch_idle, NULL,
	  64, 0, loongarch_reenter, "IDLE", true },
	{ loongarch_exit, "kvm", KVM_EVENTS_ISA_LOONGARCH, 0, 0, NULL, NULL, 0, 0,
	  loongarch_reenter, "INT", false },
	{ s390_exit, "kvm", KVM_EVENTS_ISA_S390, 0x1c, 0, NULL, NULL, 0, 0,
	  kvm_entry_6_12, "WAIT_STATE", true },
	{ s390_exit, "kvm", KVM_EVENTS_ISA_S390, 0x18, 0, NULL, NULL, 0, 0,
	  kvm_entry_6_12, "I_O_REQUEST", false },
	{ ppc_exit, "kvm_hv", KVM_EVENTS_ISA_PPC_HV, 0x500, 0, NULL, NULL, 0, 0,
	  kvm_entry_6_12, "EXTERNAL", false },
	/* x86: nested exits, with the isa field saying VMX */
	{ kvm_exit_6_12, "kvm", KVM_EVENTS_ISA_VMX, 48, 0, nested_exit, NULL, 48, 0,
	  kvm_entry_6_12, "L2:EPT_VIOLATION", false },
	{ kvm_exit_6_12, "kvm", KVM_EVENTS_ISA_VMX, 30, 0, nested_exit,
	  nested_inject, 30, 0,
	  kvm_entry_6_12, "L2>L1:IO_INSTRUCTION", false },
};

/* An exit at 1000 ns, its details at 1100 and 1200, its end at 1250 */
static int feed_arch_exit(struct kvm_fixture *f, const struct arch_exit *e)
{
	struct kvm_events_decoder exit, detail, entry;
	struct tep_event *event;

	event = parse_system_format(f->tep, e->format, e->system);
	TEST_ASSERT_VAL("exit format parsed", event);
	TEST_ASSERT_VAL("exit decoder init", !kvm_events_decoder__init(&exit, event));
	TEST_ASSERT_VAL("entry decoder", !decoder_from(f, &entry, e->entry));
	TEST_ASSERT_VAL("exit isa from the format",
			exit.tp != KVM_TP_EXIT || exit.isa_at.size ||
			u64_is(exit.fixed_isa, e->isa));
	TEST_ASSERT_VAL("exit fed", !feed(f, &exit, 7, 1000, 0, e->code, e->kind));
	if (e->detail) {
		TEST_ASSERT_VAL("detail decoder", !decoder_from(f, &detail, e->detail));
		TEST_ASSERT_VAL("detail fed", !feed(f, &detail, 7, 1100, 0, e->detail_code,
						    e->detail_kind));
	}
	if (e->detail2) {
		TEST_ASSERT_VAL("second detail decoder", !decoder_from(f, &detail, e->detail2));
		TEST_ASSERT_VAL("second detail fed", !feed(f, &detail, 7, 1200, 0,
							   e->detail_code, e->detail_kind));
	}
	TEST_ASSERT_VAL("entry fed", !feed(f, &entry, 7, 1250, 0, 0, 0));
	return TEST_OK;
}

static int check_arch_exit(struct kvm_fixture *f, const struct arch_exit *e)
{
	const struct kvm_events_analysis *vmexit = kvm_events_analysis__find("vmexit");
	struct kvm_events_key *key;

	TEST_ASSERT_VAL("fixture tep", !fixture__init_tep(f));
	TEST_ASSERT_VAL("vmexit report", !fixture__report(f, "vmexit", NULL));
	TEST_ASSERT_VAL("exit, details and entry fed", !feed_arch_exit(f, e));
	TEST_ASSERT_VAL("exit key", !check_key(&f->report, e->key, 1, 1, 250));
	TEST_ASSERT_VAL("buckets add up to samples read", buckets_add_up(&f->report.totals));
	key = kvm_events_report__key(&f->report, e->key);
	TEST_ASSERT_VAL("exit key idle or not",
			u64_is(kvm_events_analysis__is_idle(vmexit, key->key), e->idle));
	return TEST_OK;
}

static int test__kvm_events_arches(struct test_suite *test __maybe_unused,
				   int subtest __maybe_unused)
{
	struct kvm_fixture f;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(arch_exits); i++) {
		int ret;

		memset(&f, 0, sizeof(f));
		ret = check_arch_exit(&f, &arch_exits[i]);
		fixture__exit(&f);
		if (ret) {
			pr_debug("arch exit %zu (%s) failed\n", i, arch_exits[i].key);
			return ret;
		}
	}
	return TEST_OK;
}

/* kvm_vcpu_wakeup carries the halt's duration: no pairing needed. */
static int check_halt(struct kvm_fixture *f)
{
	struct kvm_events_totals *t = &f->report.totals;
	struct kvm_events_decoder wakeup;

	TEST_ASSERT_VAL("fixture tep", !fixture__init_tep(f));
	TEST_ASSERT_VAL("kvm_vcpu_wakeup decoder", !decoder_from(f, &wakeup, vcpu_wakeup));
	TEST_ASSERT_VAL("halt report", !fixture__report(f, "halt", NULL));
	/* ns, waited, valid: two polls, a wait, an invalid wait */
	TEST_ASSERT_VAL("poll of 3000 ns fed",
			!feed_wakeup(f, &wakeup, 10000, 3000, false, true));
	TEST_ASSERT_VAL("poll of 5000 ns fed",
			!feed_wakeup(f, &wakeup, 20000, 5000, false, true));
	TEST_ASSERT_VAL("wait of 700000 ns fed",
			!feed_wakeup(f, &wakeup, 900000, 700000, true, true));
	TEST_ASSERT_VAL("invalid wait of 40000 ns fed",
			!feed_wakeup(f, &wakeup, 990000, 40000, true, false));
	kvm_events_report__finish(&f->report);
	TEST_ASSERT_VAL("halt key poll", !check_key(&f->report, "poll", 2, 2, 8000));
	TEST_ASSERT_VAL("halt key wait", !check_key(&f->report, "wait", 1, 1, 700000));
	TEST_ASSERT_VAL("halt key wait:invalid",
			!check_key(&f->report, "wait:invalid", 1, 1, 40000));
	TEST_ASSERT_VAL("halt samples keyed", u64_is(t->keyed, 4));
	TEST_ASSERT_VAL("halt samples without end", u64_is(t->no_end, 0));
	TEST_ASSERT_VAL("buckets add up to samples read", buckets_add_up(t));
	return TEST_OK;
}

static int test__kvm_events_halt(struct test_suite *test __maybe_unused,
				 int subtest __maybe_unused)
{
	return fixture__run(check_halt);
}

static struct test_case kvm_events_tests[] = {
	TEST_CASE("kvm-events: vmexit pairing over interleaved vcpus", kvm_events_vmexit),
	TEST_CASE("kvm-events: mmio and ioport pairing", kvm_events_mmio_ioport),
	TEST_CASE("kvm-events: vcpu filter with vcpu ids from kvm_entry", kvm_events_vcpu_filter),
	TEST_CASE("kvm-events: samples whose end was never recorded", kvm_events_unpaired),
	TEST_CASE("kvm-events: exits of arm64, riscv, loongarch, s390, powerpc and nested x86",
		  kvm_events_arches),
	TEST_CASE("kvm-events: halt polling from kvm_vcpu_wakeup", kvm_events_halt),
	TEST_CASE("kvm-events: 1M keys, top vcpu ids, reused thread ids, time going back",
		  kvm_events_hostile_values),
	{ .name = NULL, }
};

struct test_suite suite__kvm_events = {
	.desc = "kvm-events pairing",
	.test_cases = kvm_events_tests,
};
