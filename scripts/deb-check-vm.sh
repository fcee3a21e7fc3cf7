#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# deb-check-vm.sh: scripts/deb-check.sh's checks inside the test machine,
# whose root is the clean Debian 12 root with Debian's linux-perf, man-db
# and our package installed by apt-get (and nothing of this checkout).
# Each check prints "@pass WHAT" or "@fail WHAT", and what failed.
#
#  - Debian's perf runs ours as `perf kvm-events`: its record and report
#    of the bundled guest give the guest's own counts, exactly, in the
#    vmexit, ioport, mmio, msr and hypercall analyses (the vmexit table's
#    npf rows also count the guest's first touches of its 2 pages, and a
#    host interrupt may add a row: both bounded, as kvm-events-guest-exits.sh
#    does);
#  - perf-kvm-events --version says the perf version and the commit;
#  - `perf help kvm-events` and `man perf-kvm-events` open the page;
#  - the exporter's unit's command line, run as the unit gives it (its
#    EnvironmentFile, ExecStart, CapabilityBoundingSet, NoNewPrivileges,
#    by setpriv), with BPF, serves /metrics with the guest's 7 port
#    writes and 5 reads; the textfile unit's writes them into
#    node_exporter's textfile folder.
#
# The bundled guest is in our perf binary: reached as `perf test -w
# kvmguest` through a link of another name than perf-<name> (a perf
# started as perf-kvm-events runs kvm-events).
set -u

want_version=$1
want_commit=$2
dir=$(mktemp -d /tmp/deb-check.XXXXXX)
pass() { echo "@pass $*"; }
fail() { echo "@fail $*"; }

mkdir -p "$dir/bin"
ln -s /usr/bin/perf-kvm-events "$dir/bin/perf"
guest=$dir/bin/perf

# rows: "key samples" of a report's table, the key without its name
rows() {
	awk '$2 ~ /^[0-9]+$/ && $3 ~ /%$/ { k = $1; sub(/\/.*/, "", k); print k, $2 }' |
		LC_ALL=C sort
}

if perf kvm-events record -q --event all -o "$dir/guest.data" -- \
	"$guest" test -w kvmguest 7 5 4 3 6 9 8 11 > "$dir/record.log" 2>&1; then
	pass "Debian's perf kvm-events record of the bundled guest"
else
	cat "$dir/record.log"
	fail "Debian's perf kvm-events record of the bundled guest"
fi

# exact ANALYSIS ROWS...: the report's rows are ROWS ("key samples")
exact() {
	local analysis=$1 got want
	shift
	got=$(perf kvm-events report -i "$dir/guest.data" --event "$analysis" 2>&1 | rows)
	want=$(printf '%s\n' "$@" | LC_ALL=C sort)
	if [ "$got" = "$want" ]; then
		pass "Debian's perf kvm-events report --event $analysis of the guest: $(echo $got)"
	else
		echo "got:"; echo "$got"; echo "expected:"; echo "$want"
		perf kvm-events report -i "$dir/guest.data" --event "$analysis" 2>&1
		fail "Debian's perf kvm-events report --event $analysis of the guest"
	fi
}
exact ioport "0x500:POUT 7" "0x501:PIN 5"
exact mmio "0x80000:W 4" "0x80010:R 3"
exact msr "0x8b:R 9" "0x8b:W 8"
exact hypercall "1 11"

# vmexit: the guest's exits exactly; npf 7 MMIO accesses and up to 2 first
# touches; no other row but the host's (interrupt, nmi, smi), fewer than
# the guest's 56
perf kvm-events report -i "$dir/guest.data" --event vmexit > "$dir/vmexit" 2>&1
if rows < "$dir/vmexit" | awk '
	BEGIN { want["io"] = 12; want["cpuid"] = 6; want["msr"] = 17
		want["hypercall"] = 11; want["hlt"] = 1 }
	$1 in want { if ($2 != want[$1]) bad = bad " " $1 "=" $2; seen[$1] = 1; next }
	$1 == "npf" { if ($2 < 7 || $2 > 9) bad = bad " npf=" $2; seen["npf"] = 1; next }
	$1 == "interrupt" || $1 == "nmi" || $1 == "smi" { host += $2; next }
	{ bad = bad " " $1 "=" $2 }
	END {
		for (k in want) if (!(k in seen)) bad = bad " no " k
		if (!("npf" in seen)) bad = bad " no npf"
		if (host >= 56) bad = bad " host exits " host
		if (bad != "") { print "wrong rows:" bad; exit 1 }
	}'; then
	pass "Debian's perf kvm-events report --event vmexit of the guest: io 12, cpuid 6, msr 17, hypercall 11, hlt 1, npf 7 to 9"
else
	cat "$dir/vmexit"
	fail "Debian's perf kvm-events report --event vmexit of the guest"
fi

got=$(perf-kvm-events --version 2>&1)
want="perf kvm-events version $want_version, commit $want_commit"
if [ "$got" = "$want" ]; then
	pass "perf-kvm-events --version: $got"
else
	echo "got: $got"; echo "expected: $want"
	fail "perf-kvm-events --version"
fi

# The page, through Debian's perf's help, and man
for cmd in "perf help kvm-events" "man perf-kvm-events"; do
	out=$(MANWIDTH=80 $cmd 2>&1)
	if echo "$out" | grep -q '^NAME' &&
	   echo "$out" | grep -q "perf-kvm-events - Where a host's VM exits go" &&
	   echo "$out" | grep -q '^LIVE WITH BPF'; then
		pass "$cmd opens the man page ($(echo "$out" | wc -l) lines)"
	else
		echo "$out" | head -20
		fail "$cmd opens the man page"
	fi
done

# The exporter as its unit runs it.  The owner's settings: a refresh a
# second, the ioport analysis, so that the guest's port counts are its
# metrics.
unit=/lib/systemd/system/perf-kvm-events-exporter.service
envfile=$(sed -n 's/^EnvironmentFile=-\{0,1\}//p' "$unit")
exec_start=$(sed -n 's/^ExecStart=//p' "$unit")
caps=$(sed -n 's/^CapabilityBoundingSet=//p' "$unit")
bset=-all
for c in $caps; do
	c=${c#CAP_}
	bset="$bset,+$(echo "$c" | tr 'A-Z' 'a-z')"
done
# unit_command &: $exec_start as its unit runs it, the environment file's
# variables, the unit's capability bounding set and no new privileges.
# Only in the background: it sets the variables and execs, so that $! is
# the command's own pid.
unit_command() {
	set -a
	# shellcheck disable=SC1090
	. "$envfile"
	set +a
	# shellcheck disable=SC2086
	exec setpriv --bounding-set "$bset" $nnp -- $exec_start
}

nnp=""
grep -q '^NoNewPrivileges=yes' "$unit" && nnp=--no-new-privs
sed -i -e 's/^PERF_KVM_EVENTS_DELAY=.*/PERF_KVM_EVENTS_DELAY=1/' \
	-e 's/^PERF_KVM_EVENTS_OPTS=.*/PERF_KVM_EVENTS_OPTS="--event ioport"/' "$envfile"
unit_command > /dev/null 2> "$dir/exporter.err" &
exporter=$!
echo "  the unit's command: setpriv --bounding-set $bset $nnp -- $exec_start"

# run_guest: the guest's 7 port writes and 5 reads, in the background;
# its process then stays 60 s more (live forgets a VM process one
# refresh after it exits), in which the metrics keep its last counts.
# Returns once the guest has ended its run.
run_guest() {
	KVMGUEST_LINGER=60 "$guest" test -w kvmguest 7 5 0 0 0 0 0 0 > "$dir/guest.log" 2>&1 &
	guest_pid=$!
	for i in $(seq 240); do
		grep -q 'the guest ended' "$dir/guest.log" 2> /dev/null && return 0
		kill -0 $guest_pid 2> /dev/null || break
		sleep 0.5
	done
	echo "the guest did not end its run:"
	cat "$dir/guest.log"
}
guest_pid=""
end_guest() {
	[ -n "$guest_pid" ] || return 0
	kill $guest_pid 2> /dev/null
	wait $guest_pid 2> /dev/null
	guest_pid=""
}

# scrape: /metrics of 127.0.0.1:9465, over bash's /dev/tcp
scrape() {
	(
		exec 3<> /dev/tcp/127.0.0.1/9465 || exit 1
		printf 'GET /metrics HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n' >&3
		cat <&3
	) 2> /dev/null
}

# Up once it serves a refresh's metrics (kvm_events_lost_total): the
# server answers before the first refresh, and before live is attached,
# with no series.
up=""
for i in $(seq 180); do
	if scrape | grep -q '^kvm_events_lost_total{'; then
		up=1
		break
	fi
	kill -0 $exporter 2> /dev/null || break
	sleep 1
done
if [ -z "$up" ]; then
	cat "$dir/exporter.err"
	fail "the exporter's unit command serves /metrics on 127.0.0.1:9465"
else
	run_guest
	got=""
	for i in $(seq 50); do
		scrape > "$dir/metrics"
		got=$(grep -E '^kvm_events_exits_total\{.*key="0x50[01]:P(OUT|IN)"' "$dir/metrics" |
			sed 's/.*key="\([^"]*\)".* \([0-9]*\)$/\1 \2/' | LC_ALL=C sort | tr '\n' ' ')
		[ "$got" = "0x500:POUT 7 0x501:PIN 5 " ] && break
		sleep 1
	done
	if [ "$got" = "0x500:POUT 7 0x501:PIN 5 " ] && [ ! -s "$dir/exporter.err" ]; then
		pass "the exporter's unit command (live --use-bpf, in its capability set) serves /metrics: $got"
	else
		grep '^kvm_events_exits_total' "$dir/metrics" | head
		echo "exporter's stderr:"; cat "$dir/exporter.err"
		fail "the exporter's unit command serves the guest's port exits on /metrics: ${got:-none}"
	fi
fi
end_guest
kill $exporter 2> /dev/null
wait $exporter 2> /dev/null

# The textfile unit's command the same way: the guest's port exits in
# node_exporter's textfile folder, which prometheus-node-exporter makes
unit=/lib/systemd/system/perf-kvm-events-textfile.service
exec_start=$(sed -n 's/^ExecStart=//p' "$unit")
prom=/var/lib/prometheus/node-exporter/perf-kvm-events.prom
mkdir -p "$(dirname "$prom")"
unit_command > /dev/null 2> "$dir/textfile.err" &
textfile=$!
# Attached once it has written the file at three refreshes (each write
# is a new file renamed into place): live may write it before it is.
inodes=" "
for i in $(seq 180); do
	ino=$(stat -c %i "$prom" 2> /dev/null)
	case $inodes in
	*" $ino "*) ;;
	*) [ -n "$ino" ] && inodes="$inodes$ino " ;;
	esac
	[ $(echo $inodes | wc -w) -ge 3 ] && break
	kill -0 $textfile 2> /dev/null || break
	sleep 1
done
run_guest
got=""
for i in $(seq 50); do
	got=$(grep -E '^kvm_events_exits_total\{.*key="0x50[01]:P(OUT|IN)"' "$prom" 2> /dev/null |
		sed 's/.*key="\([^"]*\)".* \([0-9]*\)$/\1 \2/' | LC_ALL=C sort | tr '\n' ' ')
	[ "$got" = "0x500:POUT 7 0x501:PIN 5 " ] && break
	sleep 1
done
if [ "$got" = "0x500:POUT 7 0x501:PIN 5 " ] && [ ! -s "$dir/textfile.err" ]; then
	pass "the textfile unit's command writes $prom: $got"
else
	echo "after $i s, $prom:"; grep -v '^#' "$prom" | head -20
	echo "textfile unit's stderr:"; cat "$dir/textfile.err"
	fail "the textfile unit's command writes the guest's port exits to $prom: ${got:-none}"
fi
end_guest
kill $textfile 2> /dev/null
wait $textfile 2> /dev/null
rm -rf "$dir"
exit 0
