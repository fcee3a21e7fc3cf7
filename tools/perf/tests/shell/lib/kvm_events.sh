# SPDX-License-Identifier: GPL-2.0
# Helpers of the kvm-events shell tests.

# expected_report TRUTH ANALYSIS VCPU SORT
#
# The report that a generated recording must give, computed from the
# generator's ground truth alone: one line per (analysis, vcpu, key) with
# samples, paired samples and their total ns.  VCPU is a vcpu id or "all",
# SORT is sample or time.  The halt analysis' grow and shrink samples
# (kvm_halt_poll_ns) have no time, but are not unpaired: the footer's
# "Samples without time" does not count them.
expected_report() {
	truth=$1
	analysis=$2
	vcpu=$3
	sort=$4

	case $analysis in
	vmexit) column="VM-EXIT" ;;
	mmio) column="MMIO Access" ;;
	ioport) column="IO Port Access" ;;
	msr) column="MSR Access" ;;
	hypercall) column="Hypercall" ;;
	halt) column="Halt" ;;
	esac
	if [ "$vcpu" = all ]; then
		head="Analyze events for all VCPUs:"
	else
		head="Analyze events for VCPU $vcpu:"
	fi
	if [ "$sort" = time ]; then
		order="-k1,1nr -k2,2nr -k3,3"
	else
		order="-k2,2nr -k3,3"
	fi

	filtered=$(awk -v an="$analysis" -v vcpu="$vcpu" '
		$1 == an && vcpu != "all" && $2 != vcpu { n += $4 }
		END { printf "%.0f", n }' "$truth")
	awk -v an="$analysis" -v vcpu="$vcpu" '
		$1 == an && (vcpu == "all" || $2 == vcpu) {
			s[$3] += $4; p[$3] += $5; t[$3] += $6
		}
		END {
			# mawk prints integers past 2^31 with 6 digits: printf.
			for (k in s)
				printf "%.0f %.0f %s %.0f\n", t[k], s[k], k, p[k]
		}' "$truth" |
	LC_ALL=C sort $order |
	awk -v column="$column" -v head="$head" -v filtered="$filtered" \
	    -v an="$analysis" '
		{
			ns[NR] = $1; smp[NR] = $2; name[NR] = $3; paired[NR] = $4
			keyed += $2; total += $1
			if (!(an == "halt" && ($3 == "grow" || $3 == "shrink")))
				untimed += $2 - $4
		}
		END {
			printf "\n\n%s\n\n", head
			printf "%20s %10s %13s %13s %15s\n\n", column,
			       "Samples", "Samples%", "Time%", "Avg time"
			for (i = 1; i <= NR; i++) {
				printf "%20s %10.0f %12.2f%%", name[i], smp[i],
				       keyed ? smp[i] * 100 / keyed : 0
				if (paired[i] == 0)
					printf " %13s %14s\n", "-", "-"
				else
					printf " %12.2f%% %12.2fus\n",
					       total ? ns[i] * 100 / total : 0,
					       ns[i] / paired[i] / 1000
			}
			printf "\nTotal Samples:%.0f, Total events handled time:%.2fus.\n",
			       keyed, total / 1000
			if (untimed)
				printf "Samples without time:%.0f (no end event:%.0f, no begin event:0).\n",
				       untimed, untimed
			if (filtered)
				printf "Filtered out:%.0f samples.\n", filtered
		}'
}

# skip_without_kvm_tracing: exit 2 (skip) with a reason when this host
# cannot record kvm tracepoints.
skip_without_kvm_tracing() {
	if [ ! -c /dev/kvm ]; then
		echo "skip: no /dev/kvm on this host"
		exit 2
	fi
	if [ "$(id -u)" != 0 ]; then
		echo "skip: recording kvm tracepoints needs root"
		exit 2
	fi
	if ! perf list 'kvm:kvm_pio' 2>/dev/null | grep -q kvm_pio; then
		echo "skip: no kvm:kvm_pio tracepoint (tracefs or the kvm module missing)"
		exit 2
	fi
}

# skip_without_python3: exit 2 (skip) where the oracles cannot run.
skip_without_python3() {
	if ! command -v python3 > /dev/null; then
		echo "skip: python3 is needed for the oracle and to parse JSON"
		exit 2
	fi
}
