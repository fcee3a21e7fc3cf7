// SPDX-License-Identifier: GPL-2.0
/*
 * perf kvm-events on riscv: kvm_exit has no vcpu id (the thread tells the
 * vcpus apart) and keys by scause, whose top bit, moved to bit 31 here,
 * marks an interrupt.
 */
#include <linux/bits.h>
#include <linux/kernel.h>

#include "kvm-events-arch.h"
#include "../arch/riscv/util/riscv_exception_types.h"

#define RISCV_INTERRUPT		BIT(31)

static const struct kvm_events_tp_desc riscv_tps[] = {
	KVM_EVENTS_TP("kvm", "kvm_exit", EXIT, .isa = KVM_EVENTS_ISA_RISCV,
		      .code = "scause", .rip = "sepc"),
};

static const struct kvm_code_name riscv_exceptions[] = { kvm_riscv_exception_class };

/* The interrupt causes of the privileged architecture */
static const struct kvm_code_name riscv_interrupts[] = {
	{ 1, "IRQ_S_SOFT" }, { 2, "IRQ_VS_SOFT" }, { 3, "IRQ_M_SOFT" },
	{ 5, "IRQ_S_TIMER" }, { 6, "IRQ_VS_TIMER" }, { 7, "IRQ_M_TIMER" },
	{ 9, "IRQ_S_EXT" }, { 10, "IRQ_VS_EXT" }, { 11, "IRQ_M_EXT" },
	{ 12, "IRQ_S_GEXT" }, { 13, "IRQ_PMU_OVF" },
};

static u32 riscv_exit_code(const struct kvm_events_sample *s)
{
	return (u32)s->code | (u32)(s->code >> 63) << 31;
}

/* WFI traps as a virtual instruction fault, like others: no idle exit. */
static const char *riscv_exit_name(u32 code)
{
	if (code & RISCV_INTERRUPT)
		return kvm_code_name__find(riscv_interrupts, ARRAY_SIZE(riscv_interrupts),
					   code & ~RISCV_INTERRUPT);
	return kvm_code_name__find(riscv_exceptions, ARRAY_SIZE(riscv_exceptions), code);
}

const struct kvm_events_arch kvm_events_arch_riscv = {
	.isa = KVM_EVENTS_ISA_RISCV, KVM_EVENTS_ARCH_TPS(riscv_tps),
	.exit_code = riscv_exit_code, .exit_name = riscv_exit_name,
};
