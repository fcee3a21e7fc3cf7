// SPDX-License-Identifier: GPL-2.0
/*
 * perf kvm-events: decoders and pairing, on samples built in memory from
 * real kvm tracepoint format texts.
 */
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>
#include <linux/kernel.h>

#include "debug.h"
#include "tests.h"
#include "util/kvm-events.h"
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

/* A kvm_pio whose port field is 3 bytes long: no integer the decoder reads */
static const char kvm_pio_odd_port[] =
	"name: kvm_pio\nID: 110\nformat:\n" COMMON_FIELDS
	"\tfield:unsigned int rw;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned char port[3];\toffset:12;\tsize:3;\tsigned:0;\n\n"
	"print fmt: \"pio_%u\", REC->rw\n";

/* A kvm_pio whose port field is gone: the decoder must refuse it. */
static const char kvm_pio_no_port[] =
	"name: kvm_pio\nID: 110\nformat:\n" COMMON_FIELDS
	"\tfield:unsigned int rw;\toffset:8;\tsize:4;\tsigned:0;\n\n"
	"print fmt: \"pio_%u\", REC->rw\n";

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

struct kvm_fixture {
	struct tep_handle		*tep;
	struct kvm_events_decoder	exit, entry, mmio, pio;
	struct kvm_events_report	report;
	u32				pid;	/* of the samples fed, 0: 4242 */
	u8				raw[128];
};

static struct tep_event *parse_system_format(struct tep_handle *tep,
					     const char *text, const char *system)
{
	struct tep_event *event = NULL;

	if (tep_parse_format(tep, &event, text, strlen(text), system))
		return NULL;
	return event;
}

static struct tep_event *parse_format(struct tep_handle *tep, const char *text)
{
	return parse_system_format(tep, text, "kvm");
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
static int feed_flag(struct kvm_fixture *f, const struct kvm_events_decoder *dec,
		     u32 tid, u64 time, u32 vcpu, u64 code, u32 kind, u32 flag)
{
	struct perf_sample sample = {
		.pid = f->pid ?: 4242, .tid = tid, .time = time,
		.raw_data = f->raw, .raw_size = dec->min_raw_size,
	};
	struct kvm_events_sample s;

	memset(f->raw, 0, sizeof(f->raw));
	put_field(f->raw, dec->vcpu, vcpu);
	put_field(f->raw, dec->code, code);
	put_field(f->raw, dec->kind, kind);
	put_field(f->raw, dec->flag, flag);
	put_field(f->raw, dec->isa, KVM_EVENTS_ISA_VMX);
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
	if (dec.tp != KVM_TP_EXIT || dec.min_raw_size != 60 || !dec.vcpu)
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
	event = parse_format(tep, kvm_pio_odd_port);
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

/*
 * Values a crafted or unusual recording holds: a million distinct MMIO
 * addresses, the largest vcpu ids, a vcpu thread id that a new VM reuses,
 * an end stamped before its begin.
 */
#define MANY_KEYS	1000000

static int test__kvm_events_hostile_values(struct test_suite *test __maybe_unused,
					   int subtest __maybe_unused)
{
	u32 top_vcpu[1][2] = { { 0xfffffffe, 0xfffffffe } };
	struct kvm_events_options opts = {
		.nr_vcpu_ranges = 1, .vcpu_ranges = top_vcpu,
	};
	struct kvm_events_key **keys;
	struct kvm_fixture f;
	int ret = TEST_FAIL;
	size_t nr = 0;
	u32 i;

	if (fixture__init(&f, kvm_exit_6_12, "mmio"))
		goto out;
	for (i = 0; i < MANY_KEYS; i++) {
		if (feed(&f, &f.mmio, 300, 1000ULL * i, 0, 0x100000000ULL + 8ULL * i, 2) ||
		    feed(&f, &f.entry, 300, 1000ULL * i + 100, 0, 0, 0))
			goto out;
	}
	kvm_events_report__finish(&f.report);
	keys = kvm_events_report__sorted(&f.report, KVM_EVENTS_SORT_SAMPLE, &nr);
	free(keys);
	if (!keys || nr != MANY_KEYS || f.report.totals.keyed != MANY_KEYS ||
	    f.report.totals.total_ns != 100ULL * MANY_KEYS ||
	    !key_is(&f.report, "0x100000008:W", 1, 1, 100) ||
	    !buckets_add_up(&f.report.totals)) {
		pr_debug("%zu keys of %d\n", nr, MANY_KEYS);
		goto out;
	}
	kvm_events_report__exit(&f.report);

	/* vcpu 2^32-2 is selected; 2^32-1 is no vcpu id, so never selected */
	if (kvm_events_report__init(&f.report, kvm_events_analysis__find("vmexit"), &opts) ||
	    feed(&f, &f.exit, 400, 10, 0xfffffffe, 12, 0) ||
	    feed(&f, &f.entry, 400, 30, 0xfffffffe, 0, 0) ||
	    feed(&f, &f.exit, 401, 10, 0xffffffff, 12, 0) ||
	    feed(&f, &f.entry, 401, 40, 0xffffffff, 0, 0))
		goto out;
	kvm_events_report__finish(&f.report);
	if (!key_is(&f.report, "HLT", 1, 1, 20) || f.report.totals.filtered != 1 ||
	    !buckets_add_up(&f.report.totals))
		goto out;
	kvm_events_report__exit(&f.report);

	/*
	 * VM 4242 dies inside an exit of thread 500; thread id 500 comes back
	 * in VM 5353, whose first event, a kvm_entry, is not that exit's end.
	 * Then an entry stamped before its exit: a sample without begin.
	 */
	if (kvm_events_report__init(&f.report, kvm_events_analysis__find("vmexit"), NULL) ||
	    feed(&f, &f.exit, 500, 100, 0, 30, 0))
		goto out;
	f.pid = 5353;
	if (feed(&f, &f.entry, 500, 200, 0, 0, 0) ||
	    feed(&f, &f.exit, 500, 300, 0, 10, 0) ||
	    feed(&f, &f.entry, 500, 250, 0, 0, 0))
		goto out;
	kvm_events_report__finish(&f.report);
	if (key_is(&f.report, "IO_INSTRUCTION", 1, 0, 0) &&
	    key_is(&f.report, "CPUID", 1, 0, 0) &&
	    f.report.totals.no_end == 1 && f.report.totals.no_begin == 1 &&
	    buckets_add_up(&f.report.totals))
		ret = TEST_OK;
out:
	fixture__exit(&f);
	return ret;
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
	if (!event || kvm_events_decoder__init(&exit, event) ||
	    decoder_from(f, &entry, e->entry))
		return -1;
	if (exit.tp == KVM_TP_EXIT && !exit.isa && exit.fixed_isa != e->isa) {
		pr_debug("%s: decoded as isa %u, not %u\n", e->key, exit.fixed_isa, e->isa);
		return -1;
	}
	if (feed(f, &exit, 7, 1000, 0, e->code, e->kind))
		return -1;
	if (e->detail && (decoder_from(f, &detail, e->detail) ||
			  feed(f, &detail, 7, 1100, 0, e->detail_code, e->detail_kind)))
		return -1;
	if (e->detail2 && (decoder_from(f, &detail, e->detail2) ||
			   feed(f, &detail, 7, 1200, 0, e->detail_code, e->detail_kind)))
		return -1;
	return feed(f, &entry, 7, 1250, 0, 0, 0);
}

static int test__kvm_events_arches(struct test_suite *test __maybe_unused,
				   int subtest __maybe_unused)
{
	const struct kvm_events_analysis *vmexit = kvm_events_analysis__find("vmexit");
	struct kvm_fixture f;
	int ret = TEST_FAIL;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(arch_exits); i++) {
		const struct arch_exit *e = &arch_exits[i];
		struct kvm_events_key *key;

		memset(&f, 0, sizeof(f));
		f.tep = tep_alloc();
		if (!f.tep || kvm_events_report__init(&f.report, vmexit, NULL))
			goto fail;
		if (feed_arch_exit(&f, e) || !key_is(&f.report, e->key, 1, 1, 250) ||
		    !buckets_add_up(&f.report.totals))
			goto fail;
		key = kvm_events_report__key(&f.report, e->key);
		if (kvm_events_analysis__is_idle(vmexit, key->key) != e->idle) {
			pr_debug("%s: idle should be %d\n", e->key, e->idle);
			goto fail;
		}
		fixture__exit(&f);
	}
	return TEST_OK;
fail:
	pr_debug("arch exit %zu (%s) failed\n", i, arch_exits[i].key);
	fixture__exit(&f);
	return ret;
}

/* kvm_vcpu_wakeup carries the halt's duration: no pairing needed. */
static int test__kvm_events_halt(struct test_suite *test __maybe_unused,
				 int subtest __maybe_unused)
{
	struct kvm_events_decoder wakeup;
	struct kvm_fixture f;
	int ret = TEST_FAIL;

	memset(&f, 0, sizeof(f));
	f.tep = tep_alloc();
	if (!f.tep || decoder_from(&f, &wakeup, vcpu_wakeup) ||
	    kvm_events_report__init(&f.report, kvm_events_analysis__find("halt"),
				    NULL))
		goto out;
	/* ns, waited, valid: two polls, a wait, an invalid wait */
	if (feed_wakeup(&f, &wakeup, 10000, 3000, false, true) ||
	    feed_wakeup(&f, &wakeup, 20000, 5000, false, true) ||
	    feed_wakeup(&f, &wakeup, 900000, 700000, true, true) ||
	    feed_wakeup(&f, &wakeup, 990000, 40000, true, false))
		goto out;
	kvm_events_report__finish(&f.report);
	if (key_is(&f.report, "poll", 2, 2, 8000) &&
	    key_is(&f.report, "wait", 1, 1, 700000) &&
	    key_is(&f.report, "wait:invalid", 1, 1, 40000) &&
	    f.report.totals.keyed == 4 && !f.report.totals.no_end &&
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
	TEST_CASE("kvm-events: exits of arm64, riscv, loongarch, s390, powerpc and nested x86",
		  kvm_events_arches),
	TEST_CASE("kvm-events: halt polling from kvm_vcpu_wakeup", kvm_events_halt),
	TEST_CASE("kvm-events: 1M keys, top vcpu ids, reused thread ids, time going back",
		  kvm_events_hostile_values),
	{ .name = NULL, }
};

struct test_suite suite__kvm_events = {
	.desc = "kvm-events decoders and pairing",
	.test_cases = kvm_events_tests,
};
