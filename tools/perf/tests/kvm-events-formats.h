/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the kvm-events and kvm-events-decoders test suites share: the
 * x86 kvm_exit formats of 6.12 and of older kernels, and their parsing.
 */
#ifndef __PERF_TESTS_KVM_EVENTS_FORMATS_H
#define __PERF_TESTS_KVM_EVENTS_FORMATS_H

#include <string.h>
#include <traceevent/event-parse.h>

/* A format's last line: print fmt: "FMT", ARGS */
#define PRINT_FMT(fmt, args)	"print fmt: \"" fmt "\", " args "\n"

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
	PRINT_FMT("vcpu %u reason %u rip 0x%lx", "REC->vcpu_id, REC->exit_reason, REC->guest_rip");

/* kvm_exit before 5.x: no vcpu_id, so vcpus are known from kvm_entry */
static const char kvm_exit_old[] =
	"name: kvm_exit\nID: 1289\nformat:\n" COMMON_FIELDS
	"\tfield:unsigned int exit_reason;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned long guest_rip;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:u32 isa;\toffset:24;\tsize:4;\tsigned:0;\n"
	"\tfield:u64 info1;\toffset:32;\tsize:8;\tsigned:0;\n"
	"\tfield:u64 info2;\toffset:40;\tsize:8;\tsigned:0;\n\n"
	PRINT_FMT("reason %u rip 0x%lx info %llx %llx",
		  "REC->exit_reason, REC->guest_rip, REC->info1, REC->info2");

static inline struct tep_event *parse_system_format(struct tep_handle *tep,
						    const char *text, const char *system)
{
	struct tep_event *event = NULL;

	if (tep_parse_format(tep, &event, text, strlen(text), system))
		return NULL;
	return event;
}

static inline struct tep_event *parse_format(struct tep_handle *tep, const char *text)
{
	return parse_system_format(tep, text, "kvm");
}

#endif /* __PERF_TESTS_KVM_EVENTS_FORMATS_H */
