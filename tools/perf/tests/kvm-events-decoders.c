// SPDX-License-Identifier: GPL-2.0
/*
 * perf kvm-events: the decoders, on samples built in memory from real
 * kvm tracepoint format texts, and what each analysis takes of the
 * samples decoded.
 */
#include <byteswap.h>
#include <errno.h>
#include <string.h>
#include <traceevent/event-parse.h>
#include <linux/kernel.h>

#include "debug.h"
#include "kvm-events-common.h"
#include "kvm-events-formats.h"
#include "tests.h"
#include "util/kvm-events.h"
#include "util/kvm-events-analysis.h"
#include "util/sample.h"

/* A kvm_pio whose port field is 3 bytes long: no integer the decoder reads */
static const char kvm_pio_odd_port[] =
	"name: kvm_pio\nID: 110\nformat:\n" COMMON_FIELDS
	"\tfield:unsigned int rw;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned char port[3];\toffset:12;\tsize:3;\tsigned:0;\n\n"
	PRINT_FMT("pio_%u", "REC->rw");

/* A kvm_pio whose port field is gone: the decoder must refuse it. */
static const char kvm_pio_no_port[] =
	"name: kvm_pio\nID: 110\nformat:\n" COMMON_FIELDS
	"\tfield:unsigned int rw;\toffset:8;\tsize:4;\tsigned:0;\n\n"
	PRINT_FMT("pio_%u", "REC->rw");

/*
 * kvm_exit with reason 30, isa SVM and vcpu 3, in either format; @swap:
 * as a host of the other byte order writes it
 */
static void put_exit_raw(u8 *raw, bool swap)
{
	u32 reason = 30, vcpu = 3, isa = KVM_EVENTS_ISA_SVM;

	if (swap) {
		reason = bswap_32(reason);
		vcpu = bswap_32(vcpu);
		isa = bswap_32(isa);
	}
	memcpy(raw + 8, &reason, 4);
	memcpy(raw + 24, &isa, 4);
	memcpy(raw + 56, &vcpu, 4);
}

/* The 6.12 kvm_exit of put_exit_raw(), decoded */
static int check_exit_decoded(const struct kvm_events_decoder *dec, struct perf_sample *sample,
			      bool swap)
{
	struct kvm_events_sample s;

	put_exit_raw(sample->raw_data, swap);
	TEST_ASSERT_VAL("6.12 kvm_exit decoded",
			!kvm_events_decoder__decode(dec, sample, swap, &s));
	TEST_ASSERT_VAL("6.12 kvm_exit code", u64_is(s.code, 30));
	TEST_ASSERT_VAL("6.12 kvm_exit isa", u64_is(s.isa, KVM_EVENTS_ISA_SVM));
	TEST_ASSERT_VAL("6.12 kvm_exit vcpu", u64_is(s.vcpu, 3));
	return TEST_OK;
}

/*
 * The readers load each field as the 8 bytes at its place, masked: over
 * bytes that all differ, that must equal decoding by size.
 */
static bool loads_as_decoded(const struct kvm_events_decoder *dec)
{
	/* The load of the last field reads up to 7 bytes past it. */
	u8 raw[64 + sizeof(u64)];
	struct kvm_events_sample by_size, loaded;
	size_t i;

	for (i = 0; i < sizeof(raw); i++)
		raw[i] = i * 37 + 11;
	kvm_events_decoder__decode_raw(dec, raw, false, &by_size);
	kvm_events_decoder__load_raw(dec, raw, &loaded);
	return u64_is(loaded.code, by_size.code) && u64_is(loaded.kind, by_size.kind) &&
	       u64_is(loaded.vcpu, by_size.vcpu) && u64_is(loaded.isa, by_size.isa) &&
	       u64_is(loaded.flag, by_size.flag) && u64_is(loaded.rip, by_size.rip);
}

static int check_exit_6_12(struct tep_handle *tep)
{
	struct tep_event *event = parse_format(tep, kvm_exit_6_12);
	struct kvm_events_decoder dec;
	u8 raw[64] = { 0 };
	struct perf_sample sample = { .raw_data = raw, .raw_size = 60 };
	struct kvm_events_sample s;

	TEST_ASSERT_VAL("6.12 kvm_exit format parsed", event);
	TEST_ASSERT_VAL("6.12 kvm_exit decoder init", !kvm_events_decoder__init(&dec, event));
	TEST_ASSERT_VAL("6.12 kvm_exit role", u64_is(dec.tp, KVM_TP_EXIT));
	/* vcpu_id at 56 is the last field read: 60 bytes are needed. */
	TEST_ASSERT_VAL("6.12 kvm_exit min_raw_size", u64_is(dec.min_raw_size, 60));
	TEST_ASSERT_VAL("6.12 kvm_exit vcpu_id field", dec.vcpu_at.size);
	TEST_ASSERT_VAL("6.12 kvm_exit loaded as decoded", loads_as_decoded(&dec));
	TEST_ASSERT_VAL("6.12 kvm_exit", !check_exit_decoded(&dec, &sample, false));
	/* Recorded on a host of the other byte order */
	TEST_ASSERT_VAL("swapped 6.12 kvm_exit", !check_exit_decoded(&dec, &sample, true));
	/* A sample shorter than its format is refused, not read past. */
	sample.raw_size = 59;
	TEST_ASSERT_VAL("59-byte 6.12 kvm_exit refused",
			kvm_events_decoder__decode(&dec, &sample, false, &s));
	return TEST_OK;
}

static int check_exit_old(struct tep_handle *tep)
{
	struct tep_event *event = parse_format(tep, kvm_exit_old);
	struct kvm_events_decoder dec;
	u8 raw[64] = { 0 };
	struct perf_sample sample = { .raw_data = raw, .raw_size = 28 };
	struct kvm_events_sample s;

	TEST_ASSERT_VAL("old kvm_exit format parsed", event);
	TEST_ASSERT_VAL("old kvm_exit decoder init", !kvm_events_decoder__init(&dec, event));
	TEST_ASSERT_VAL("old kvm_exit has no vcpu_id field", !dec.vcpu_at.size);
	TEST_ASSERT_VAL("old kvm_exit min_raw_size", u64_is(dec.min_raw_size, 28));
	put_exit_raw(raw, false);
	TEST_ASSERT_VAL("old kvm_exit decoded",
			!kvm_events_decoder__decode(&dec, &sample, false, &s));
	TEST_ASSERT_VAL("old kvm_exit vcpu", u64_is(s.vcpu, KVM_EVENTS_NO_VCPU));
	TEST_ASSERT_VAL("old kvm_exit code", u64_is(s.code, 30));
	TEST_ASSERT_VAL("old kvm_exit loaded as decoded", loads_as_decoded(&dec));
	/* The recording host's vendor stands for the isa field, loaded too */
	kvm_events_decoder__default_isa(&dec, KVM_EVENTS_ISA_SVM);
	TEST_ASSERT_VAL("old kvm_exit decoded again",
			!kvm_events_decoder__decode(&dec, &sample, false, &s));
	TEST_ASSERT_VAL("old kvm_exit isa from the host", u64_is(s.isa, KVM_EVENTS_ISA_SVM));
	TEST_ASSERT_VAL("old kvm_exit with the host's isa loaded as decoded",
			loads_as_decoded(&dec));
	return TEST_OK;
}

/* A format the decoder cannot read must be refused at init. */
static bool decoder_refuses(struct tep_handle *tep, const char *text)
{
	struct tep_event *event = parse_format(tep, text);
	struct kvm_events_decoder dec;

	if (!event) {
		pr_debug("format not parsed\n");
		return false;
	}
	return kvm_events_decoder__init(&dec, event) < 0;
}

static int check_decoders(struct tep_handle *tep)
{
	TEST_ASSERT_VAL("6.12 kvm_exit", !check_exit_6_12(tep));
	TEST_ASSERT_VAL("old kvm_exit", !check_exit_old(tep));
	TEST_ASSERT_VAL("kvm_pio without port refused", decoder_refuses(tep, kvm_pio_no_port));
	TEST_ASSERT_VAL("kvm_pio with a 3-byte port refused",
			decoder_refuses(tep, kvm_pio_odd_port));
	return TEST_OK;
}

static int test__kvm_events_decoders(struct test_suite *test __maybe_unused,
				     int subtest __maybe_unused)
{
	struct tep_handle *tep = tep_alloc();
	int ret;

	TEST_ASSERT_VAL("tep_alloc", tep);
	ret = check_decoders(tep);
	tep_free(tep);
	return ret;
}

/* Kinds that change what an analysis takes: mmio's read and write, an errno */
static const u32 sample_kinds[] = { 0, 1, 2, 3, (u32)-EINTR };

/*
 * report__add() calls an analysis's begin() and end() only for the tps of
 * its begins and ends: neither may take a sample of any other tp.
 */
static int check_masks(const struct kvm_events_analysis *a)
{
	u32 tp, k;

	for (tp = 0; tp < KVM_TP__NR; tp++) {
		for (k = 0; k < ARRAY_SIZE(sample_kinds); k++) {
			struct kvm_events_sample s = {
				.tp = tp, .kind = sample_kinds[k],
				.isa = KVM_EVENTS_ISA_VMX, .code = 12,
			};
			u64 key;
			bool began = a->begin(&s, &key), ended = a->end(&s, &key);

			if ((began && !(a->begins & BIT(tp))) || (ended && !(a->ends & BIT(tp))))
				pr_debug("%s: tp %u, kind %u, outside its masks\n",
					 a->name, tp, s.kind);
			TEST_ASSERT_VAL("begin() outside begins", !began || (a->begins & BIT(tp)));
			TEST_ASSERT_VAL("end() outside ends", !ended || (a->ends & BIT(tp)));
		}
	}
	return TEST_OK;
}

static int test__kvm_events_masks(struct test_suite *test __maybe_unused,
				  int subtest __maybe_unused)
{
	const struct kvm_events_analysis *a = NULL;

	while ((a = kvm_events_analysis__next(a)))
		TEST_ASSERT_VAL("an analysis's masks", !check_masks(a));
	return TEST_OK;
}

static struct test_case kvm_events_decoders_tests[] = {
	TEST_CASE("kvm-events: decoders from 6.12 and older tracepoint formats",
		  kvm_events_decoders),
	TEST_CASE("kvm-events: begin() and end() take only the tps of their masks",
		  kvm_events_masks),
	{ .name = NULL, }
};

struct test_suite suite__kvm_events_decoders = {
	.desc = "kvm-events decoders and analyses",
	.test_cases = kvm_events_decoders_tests,
};
