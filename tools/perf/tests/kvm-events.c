// SPDX-License-Identifier: GPL-2.0
/*
 * perf kvm-events: decoders and pairing, on samples built in memory from
 * real kvm tracepoint format texts.
 */
#include <string.h>
#include <traceevent/event-parse.h>
#include <linux/kernel.h>

#include "debug.h"
#include "tests.h"
#include "util/kvm-stat.h"
#include "util/sample.h"

#define COMMON_FIELDS \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n" \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n" \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n" \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"

/* kvm_exit as 6.12 x86 records it: one format for VMX and SVM */
static const char kvm_exit_6_12[] =
	"name: kvm_exit\nID: 103\nformat:\n" COMMON_FIELDS
	"\tfield:unsigned int exit_reason;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned long guest_rip;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:u32 isa;\toffset:24;\tsize:4;\tsigned:0;\n"
	"\tfield:u64 info1;\toffset:32;\tsize:8;\tsigned:0;\n"
	"\tfield:u64 info2;\toffset:40;\tsize:8;\tsigned:0;\n"
	"\tfield:u32 intr_info;\toffset:48;\tsize:4;\tsigned:0;\n"
	"\tfield:u32 error_code;\toffset:52;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned int vcpu_id;\toffset:56;\tsize:4;\tsigned:0;\n"
	"\tfield:u64 requests;\toffset:64;\tsize:8;\tsigned:0;\n\n"
	"print fmt: \"vcpu %u reason %u rip 0x%lx\", REC->vcpu_id, REC->exit_reason, REC->guest_rip\n";

/* kvm_exit before 5.x: no vcpu_id, so vcpus are known from kvm_entry */
static const char kvm_exit_old[] =
	"name: kvm_exit\nID: 1289\nformat:\n" COMMON_FIELDS
	"\tfield:unsigned int exit_reason;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned long guest_rip;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:u32 isa;\toffset:24;\tsize:4;\tsigned:0;\n"
	"\tfield:u64 info1;\toffset:32;\tsize:8;\tsigned:0;\n"
	"\tfield:u64 info2;\toffset:40;\tsize:8;\tsigned:0;\n\n"
	"print fmt: \"reason %u rip 0x%lx info %llx %llx\", REC->exit_reason, REC->guest_rip, REC->info1, REC->info2\n";

static const char kvm_entry_6_12[] =
	"name: kvm_entry\nID: 115\nformat:\n" COMMON_FIELDS
	"\tfield:unsigned int vcpu_id;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned long rip;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:bool immediate_exit;\toffset:24;\tsize:1;\tsigned:0;\n"
	"\tfield:u32 intr_info;\toffset:28;\tsize:4;\tsigned:0;\n"
	"\tfield:u32 error_code;\toffset:32;\tsize:4;\tsigned:0;\n\n"
	"print fmt: \"vcpu %u, rip 0x%lx\", REC->vcpu_id, REC->rip\n";

static const char kvm_mmio_6_12[] =
	"name: kvm_mmio\nID: 38\nformat:\n" COMMON_FIELDS
	"\tfield:u32 type;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:u32 len;\toffset:12;\tsize:4;\tsigned:0;\n"
	"\tfield:u64 gpa;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:u64 val;\toffset:24;\tsize:8;\tsigned:0;\n\n"
	"print fmt: \"mmio %u len %u gpa 0x%llx val 0x%llx\", REC->type, REC->len, REC->gpa, REC->val\n";

static const char kvm_pio_6_12[] =
	"name: kvm_pio\nID: 110\nformat:\n" COMMON_FIELDS
	"\tfield:unsigned int rw;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned int port;\toffset:12;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned int size;\toffset:16;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned int count;\toffset:20;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned int val;\toffset:24;\tsize:4;\tsigned:0;\n\n"
	"print fmt: \"pio_%u at 0x%x\", REC->rw, REC->port\n";

/* A kvm_pio whose port field is gone: the decoder must refuse it. */
static const char kvm_pio_no_port[] =
	"name: kvm_pio\nID: 110\nformat:\n" COMMON_FIELDS
	"\tfield:unsigned int rw;\toffset:8;\tsize:4;\tsigned:0;\n\n"
	"print fmt: \"pio_%u\", REC->rw\n";

struct kvm_fixture {
	struct tep_handle		*tep;
	struct kvm_events_decoder	exit, entry, mmio, pio;
	struct kvm_events_report	report;
	u8				raw[128];
};

static struct tep_event *parse_format(struct tep_handle *tep, const char *text)
{
	struct tep_event *event = NULL;

	if (tep_parse_format(tep, &event, text, strlen(text), "kvm"))
		return NULL;
	return event;
}

static int decoder_from(struct kvm_fixture *f, struct kvm_events_decoder *dec,
			const char *text)
{
	struct tep_event *event = parse_format(f->tep, text);

	return event ? kvm_events_decoder__init(dec, event) : -1;
}

static int fixture__init(struct kvm_fixture *f, const char *exit_format,
			 const char *analysis)
{
	memset(f, 0, sizeof(*f));
	f->tep = tep_alloc();
	if (!f->tep)
		return -1;
	if (decoder_from(f, &f->exit, exit_format) ||
	    decoder_from(f, &f->entry, kvm_entry_6_12) ||
	    decoder_from(f, &f->mmio, kvm_mmio_6_12) ||
	    decoder_from(f, &f->pio, kvm_pio_6_12))
		return -1;
	return kvm_events_report__init(&f->report,
				       kvm_events_analysis__find(analysis), NULL);
}

static void fixture__exit(struct kvm_fixture *f)
{
	kvm_events_report__exit(&f->report);
	tep_free(f->tep);
}

static void put_field(u8 *raw, const struct tep_format_field *field, u64 val)
{
	if (field)
		memcpy(raw + field->offset, &val, field->size);
}

/* Encodes a sample as the kernel lays it out, then decodes and feeds it. */
static int feed(struct kvm_fixture *f, const struct kvm_events_decoder *dec,
		u32 tid, u64 time, u32 vcpu, u64 code, u32 kind)
{
	struct perf_sample sample = {
		.pid = 4242, .tid = tid, .time = time,
		.raw_data = f->raw, .raw_size = dec->min_raw_size,
	};
	struct kvm_events_sample s;

	memset(f->raw, 0, sizeof(f->raw));
	put_field(f->raw, dec->vcpu, vcpu);
	put_field(f->raw, dec->code, code);
	put_field(f->raw, dec->kind, kind);
	put_field(f->raw, dec->isa, KVM_EVENTS_ISA_VMX);
	if (kvm_events_decoder__decode(dec, &sample, false, &s))
		return -1;
	kvm_events_report__add(&f->report, &s);
	return 0;
}

static bool key_is(struct kvm_events_report *report, const char *name,
		   u64 samples, u64 timed, u64 total_ns)
{
	struct kvm_events_key *key = kvm_events_report__key(report, name);

	if (!key) {
		pr_debug("key %s: missing\n", name);
		return false;
	}
	if (key->samples != samples || key->timed != timed ||
	    key->total_ns != total_ns) {
		pr_debug("key %s: %llu samples, %llu timed, %llu ns; expected %llu, %llu, %llu\n",
			 name, (unsigned long long)key->samples,
			 (unsigned long long)key->timed,
			 (unsigned long long)key->total_ns,
			 (unsigned long long)samples, (unsigned long long)timed,
			 (unsigned long long)total_ns);
		return false;
	}
	return true;
}

static bool buckets_add_up(const struct kvm_events_totals *t)
{
	return t->keyed + t->paired_end + t->filtered + t->unused == t->read;
}

static int test__kvm_events_decoders(struct test_suite *test __maybe_unused,
				     int subtest __maybe_unused)
{
	struct kvm_events_decoder dec;
	struct tep_handle *tep = tep_alloc();
	struct tep_event *event;
	u8 raw[64] = { 0 };
	struct perf_sample sample = { .raw_data = raw, .raw_size = 60 };
	struct kvm_events_sample s;
	u32 reason = 30, vcpu = 3, isa = KVM_EVENTS_ISA_SVM;
	int ret = TEST_FAIL;

	TEST_ASSERT_VAL("tep_alloc", tep);
	event = parse_format(tep, kvm_exit_6_12);
	if (!event || kvm_events_decoder__init(&dec, event))
		goto out;
	/* vcpu_id at 56 is the last field read: 60 bytes are needed. */
	if (dec.tp != KVM_EVENTS_TP_EXIT || dec.min_raw_size != 60 || !dec.vcpu)
		goto out;
	memcpy(raw + 8, &reason, 4);
	memcpy(raw + 24, &isa, 4);
	memcpy(raw + 56, &vcpu, 4);
	if (kvm_events_decoder__decode(&dec, &sample, false, &s) ||
	    s.code != 30 || s.isa != KVM_EVENTS_ISA_SVM || s.vcpu != 3)
		goto out;
	/* A sample shorter than its format is refused, not read past. */
	sample.raw_size = 59;
	if (!kvm_events_decoder__decode(&dec, &sample, false, &s))
		goto out;

	event = parse_format(tep, kvm_exit_old);
	if (!event || kvm_events_decoder__init(&dec, event) ||
	    dec.vcpu || dec.min_raw_size != 28)
		goto out;
	sample.raw_size = 28;
	if (kvm_events_decoder__decode(&dec, &sample, false, &s) ||
	    s.vcpu != KVM_EVENTS_NO_VCPU || s.code != 30)
		goto out;

	event = parse_format(tep, kvm_pio_no_port);
	if (!event || kvm_events_decoder__init(&dec, event) >= 0)
		goto out;
	ret = TEST_OK;
out:
	tep_free(tep);
	return ret;
}

/*
 * Two vcpus interleaved; times in ns.  vcpu 0 (tid 100): HLT 5000ns,
 * IO_INSTRUCTION 500ns with a port write, unknown reason 99 for 40ns,
 * then a CPUID whose entry was never recorded.  vcpu 1 (tid 101): an
 * EPT_MISCONFIG MMIO write of 300ns (exit to entry 400ns) and an
 * MMIO read of 700ns (exit to entry 800ns).
 */
static int feed_two_vcpus(struct kvm_fixture *f)
{
	return feed(f, &f->entry, 100, 1000, 0, 0, 0) ||
	       feed(f, &f->entry, 101, 1100, 1, 0, 0) ||
	       feed(f, &f->exit, 100, 2000, 0, 12, 0) ||
	       feed(f, &f->exit, 101, 2100, 1, 49, 0) ||
	       feed(f, &f->mmio, 101, 2200, 0, 0xfee00300, 2) ||
	       feed(f, &f->entry, 101, 2500, 1, 0, 0) ||
	       feed(f, &f->exit, 101, 3000, 1, 49, 0) ||
	       feed(f, &f->mmio, 101, 3100, 0, 0xfed00000, 0) ||
	       feed(f, &f->mmio, 101, 3700, 0, 0xfed00000, 1) ||
	       feed(f, &f->entry, 101, 3800, 1, 0, 0) ||
	       feed(f, &f->entry, 100, 7000, 0, 0, 0) ||
	       feed(f, &f->exit, 100, 8000, 0, 30, 0) ||
	       feed(f, &f->pio, 100, 8100, 0, 0x3f8, 1) ||
	       feed(f, &f->entry, 100, 8500, 0, 0, 0) ||
	       feed(f, &f->exit, 100, 9000, 0, 99, 0) ||
	       feed(f, &f->entry, 100, 9040, 0, 0, 0) ||
	       feed(f, &f->exit, 100, 9100, 0, 10, 0);
}

static int test__kvm_events_vmexit(struct test_suite *test __maybe_unused,
				   int subtest __maybe_unused)
{
	struct kvm_fixture f;
	struct kvm_events_totals *t = &f.report.totals;
	int ret = TEST_FAIL;

	if (fixture__init(&f, kvm_exit_6_12, "vmexit") || feed_two_vcpus(&f))
		goto out;
	kvm_events_report__finish(&f.report);
	if (key_is(&f.report, "HLT", 1, 1, 5000) &&
	    key_is(&f.report, "IO_INSTRUCTION", 1, 1, 500) &&
	    key_is(&f.report, "EPT_MISCONFIG", 2, 2, 1200) &&
	    key_is(&f.report, "0x63", 1, 1, 40) &&
	    key_is(&f.report, "CPUID", 1, 0, 0) &&
	    t->keyed == 6 && t->no_end == 1 && t->no_begin == 0 &&
	    t->total_ns == 6740 && t->read == 17 && buckets_add_up(t))
		ret = TEST_OK;
out:
	fixture__exit(&f);
	return ret;
}

static int test__kvm_events_mmio_ioport(struct test_suite *test __maybe_unused,
					int subtest __maybe_unused)
{
	struct kvm_fixture f;
	int ret = TEST_FAIL;

	if (fixture__init(&f, kvm_exit_6_12, "mmio") || feed_two_vcpus(&f))
		goto out;
	kvm_events_report__finish(&f.report);
	/* Write: kvm_mmio to kvm_entry.  Read: kvm_exit to kvm_mmio(read). */
	if (!key_is(&f.report, "0xfee00300:W", 1, 1, 300) ||
	    !key_is(&f.report, "0xfed00000:R", 1, 1, 700) ||
	    f.report.totals.keyed != 2 || !buckets_add_up(&f.report.totals))
		goto out;
	kvm_events_report__exit(&f.report);

	if (kvm_events_report__init(&f.report, kvm_events_analysis__find("ioport"), NULL) ||
	    feed_two_vcpus(&f))
		goto out;
	kvm_events_report__finish(&f.report);
	if (key_is(&f.report, "0x3f8:POUT", 1, 1, 400) &&
	    f.report.totals.keyed == 1 && buckets_add_up(&f.report.totals))
		ret = TEST_OK;
out:
	fixture__exit(&f);
	return ret;
}

/* Old kvm_exit has no vcpu_id: the vcpu is learnt from kvm_entry. */
static int test__kvm_events_vcpu_filter(struct test_suite *test __maybe_unused,
					int subtest __maybe_unused)
{
	struct kvm_fixture f;
	u32 vcpu_one[1][2] = { { 1, 1 } };
	struct kvm_events_options opts = {
		.vcpu_ranges = vcpu_one,
		.nr_vcpu_ranges = 1,
	};
	int ret = TEST_FAIL;

	if (fixture__init(&f, kvm_exit_old, "vmexit"))
		goto out;
	kvm_events_report__exit(&f.report);
	if (kvm_events_report__init(&f.report, kvm_events_analysis__find("vmexit"), &opts) ||
	    feed_two_vcpus(&f))
		goto out;
	kvm_events_report__finish(&f.report);
	if (key_is(&f.report, "EPT_MISCONFIG", 2, 2, 1200) &&
	    !kvm_events_report__key(&f.report, "HLT") &&
	    f.report.totals.keyed == 2 && f.report.totals.filtered == 4 &&
	    f.report.totals.no_end == 0 && buckets_add_up(&f.report.totals))
		ret = TEST_OK;
out:
	fixture__exit(&f);
	return ret;
}

/* Exits whose entries are never recorded, as on hosts without kvm_entry */
static int test__kvm_events_unpaired(struct test_suite *test __maybe_unused,
				     int subtest __maybe_unused)
{
	struct kvm_fixture f;
	int ret = TEST_FAIL;

	if (fixture__init(&f, kvm_exit_6_12, "ioport") ||
	    feed(&f, &f.pio, 200, 10, 0, 0x500, 1) ||
	    feed(&f, &f.pio, 200, 20, 0, 0x500, 1) ||
	    feed(&f, &f.pio, 200, 30, 0, 0x501, 0))
		goto out;
	kvm_events_report__finish(&f.report);
	if (!key_is(&f.report, "0x500:POUT", 2, 0, 0) ||
	    !key_is(&f.report, "0x501:PIN", 1, 0, 0) ||
	    f.report.totals.no_end != 3 || f.report.totals.total_ns != 0)
		goto out;
	kvm_events_report__exit(&f.report);

	/*
	 * MMIO writes and reads with no kvm_exit or kvm_entry between them:
	 * a read is not timed from the write before it.
	 */
	if (kvm_events_report__init(&f.report, kvm_events_analysis__find("mmio"), NULL) ||
	    feed(&f, &f.mmio, 200, 10, 0, 0x80000, 2) ||
	    feed(&f, &f.mmio, 200, 20, 0, 0x80000, 2) ||
	    feed(&f, &f.mmio, 200, 30, 0, 0x80010, 0) ||
	    feed(&f, &f.mmio, 200, 40, 0, 0x80010, 1) ||
	    feed(&f, &f.mmio, 200, 50, 0, 0x80010, 1))
		goto out;
	kvm_events_report__finish(&f.report);
	if (key_is(&f.report, "0x80000:W", 2, 0, 0) &&
	    key_is(&f.report, "0x80010:R", 2, 0, 0) &&
	    f.report.totals.no_end == 2 && f.report.totals.no_begin == 2 &&
	    buckets_add_up(&f.report.totals))
		ret = TEST_OK;
out:
	fixture__exit(&f);
	return ret;
}

static struct test_case kvm_events_tests[] = {
	TEST_CASE("kvm-events: decoders from 6.12 and older tracepoint formats", kvm_events_decoders),
	TEST_CASE("kvm-events: vmexit pairing over interleaved vcpus", kvm_events_vmexit),
	TEST_CASE("kvm-events: mmio and ioport pairing", kvm_events_mmio_ioport),
	TEST_CASE("kvm-events: vcpu filter with vcpu ids from kvm_entry", kvm_events_vcpu_filter),
	TEST_CASE("kvm-events: samples whose end was never recorded", kvm_events_unpaired),
	{ .name = NULL, }
};

struct test_suite suite__kvm_events = {
	.desc = "kvm-events decoders and pairing",
	.test_cases = kvm_events_tests,
};
