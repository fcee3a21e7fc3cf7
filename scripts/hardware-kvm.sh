#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# hardware-kvm.sh: exit 0 when this host can run the bundled guest on a
# real kernel's KVM, the hardware's, and 1 otherwise, where make check,
# make run, make bench and make fuzz use the test machine instead
# (scripts/vm.sh).
#
# On x86 that is kvm_intel's or kvm_amd's /dev/kvm.  kvm_pvm's runs only
# PVM guests, without the CPU's virtualization: it fires no kvm_exit or
# kvm_entry, and the bundled real-mode guest cannot run on it.  On arm64,
# KVM is built in and /dev/kvm is the hardware's.  Recording the guest
# takes root.
[ -c /dev/kvm ] && [ "$(id -u)" = 0 ] || exit 1
case $(uname -m) in
aarch64) exit 0 ;;
esac
[ -d /sys/module/kvm_intel ] || [ -d /sys/module/kvm_amd ]
