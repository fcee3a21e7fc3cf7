#!/bin/bash
# kvm-events: a large file read in two parts at once
# SPDX-License-Identifier: GPL-2.0

# From 64 MiB of data on, with two CPUs, report reads a file's two halves
# in two threads and joins them (-v: "read in two parts at once").  The
# tables must be the ground truth's, on each layout: time order, per-CPU
# rounds, -a, two VMs, arm64 (no vcpu ids), halts.  Where the parts
# cannot be joined exactly, the first reader reads on into the second
# part: -v says why, and the report is that of --threads 1, errors
# included, said once.  Where a file is read in one part, -v says why:
# --threads, --top, --heatmap, one CPU to run on, its size, no round end.
# With context switches, the second part sees switches of threads before
# their samples: they go to the first part's state of each (-v says how
# many), and the report is the truth's and that of --threads 1.

set -u
. "$(dirname "$0")/lib/kvm_events.sh"
need_kvmgen
skip_without_python3

if [ "$(getconf _NPROCESSORS_ONLN)" -lt 2 ]; then
	echo "skip: a file is read in two parts only with two CPUs online"
	exit 2
fi

dir=$(mktemp -d /tmp/perf-test-kvm-events.XXXXXXXXXX)
test_init
split_min=$((64 << 20))

# gen NAME SCENARIO: a recording of SCENARIO with more than 64 MiB of data
gen() {
	local exits=240000

	[ "$2" = arm64 ] && exits=400000
	"$KVMGEN" "$dir/$1.data" "$2" $exits > /dev/null ||
		{ echo "FAIL: kvmgen $2 $exits"; err=1; return 1; }
	if [ "$(stat -c %s "$dir/$1.data")" -le $((split_min + 4096)) ]; then
		echo "FAIL: $1.data is too small to be read in two parts"
		err=1
		return 1
	fi
}

# path FILE REPORT OPTION...: which way -v says the report read FILE
path() {
	local file=$1

	shift
	perf kvm-events report -v -i "$file" "$@" 2>&1 > /dev/null |
		sed -n -e 's/.*: read in two parts at once, joined at byte [0-9]*$/two parts/p' \
		       -e 's/.*: read in one part: /one part: /p'
}

# same FILE WHY REPORT OPTION...: read in one part because of WHY (""
# for no split at all), with the output, the messages and the exit
# status of --threads 1
same() {
	local file=$1 why=$2 how one two

	shift 2
	how=$(path "$file" "$@")
	if [ "$how" != "${why:+one part: $why}" ]; then
		echo "FAIL: $(basename "$file") $*: -v says '$how', not '$why'"
		err=1
	fi
	perf kvm-events report -i "$file" "$@" --json > "$dir/one.out" 2> "$dir/one.err"
	one=$?
	perf kvm-events report -i "$file" "$@" --json --threads 1 > "$dir/two.out" 2> "$dir/two.err"
	two=$?
	if [ $one != $two ] || ! cmp -s "$dir/one.out" "$dir/two.out" ||
	   ! cmp -s "$dir/one.err" "$dir/two.err"; then
		echo "FAIL: $(basename "$file") $*: not the report of --threads 1 (exit $one, $two)"
		diff "$dir/one.err" "$dir/two.err" | head -5
		err=1
	fi
}

# patch_after_middle FILE WHAT: the first sample of the second half gets a
# round end's header in its ip (WHAT=ip), before the second part's start;
# or the first sample of the second part a size that is no multiple of 8
# (WHAT=size), or the type of a COMM record (WHAT=comm)
patch_after_middle() {
	python3 - "$1" "$2" <<'EOF'
import struct, sys
# PERF_RECORD_COMM, PERF_RECORD_SAMPLE and PERF_RECORD_FINISHED_ROUND
COMM, SAMPLE, ROUND_END = 3, 9, 68
path, what = sys.argv[1:]
f = open(path, "r+b")
f.seek(40)
offset, size = struct.unpack("<QQ", f.read(16))
pos, end, round_end = offset, offset + size, what == "ip"
while pos < end:
    f.seek(pos)
    type_, misc, rec_size = struct.unpack("<IHH", f.read(8))
    if type_ == ROUND_END and pos >= offset + size // 2:
        round_end = True
    if type_ == SAMPLE and pos >= offset + size // 2 and round_end:
        if what == "ip":
            f.write(struct.pack("<IHH", ROUND_END, 0, 8))
        elif what == "comm":
            f.seek(pos)
            f.write(struct.pack("<I", COMM))
        else:
            f.seek(pos + 6)
            f.write(struct.pack("<H", rec_size + 4))
        break
    pos += rec_size
EOF
}

# arm64 records no vcpu id: with --vcpu, no thread's state is known.
arm64_falls_back() {
	same "$dir/arm64.data" "the second part holds too many samples back" --vcpu 1
	same "$dir/arm64.data" "--top" --top 3
	same "$dir/arm64.data" "--threads 1" --threads 1
}

# roundless FILE BYTES: the round ends from the middle of FILE's data to
# BYTES past it (0: to its end) become FINISHED_INIT records, which
# change nothing else: rounds of a big host's many ring buffers
roundless() {
	python3 - "$1" "$2" <<'EOF'
import struct, sys
ROUND_END, FINISHED_INIT = 68, 82
path, span = sys.argv[1], int(sys.argv[2])
f = open(path, "r+b")
f.seek(40)
offset, size = struct.unpack("<QQ", f.read(16))
pos, end = offset, offset + size
stop = offset + size // 2 + span if span else end
while pos < min(stop, end):
    f.seek(pos)
    type_, misc, rec_size = struct.unpack("<IHH", f.read(8))
    if type_ == ROUND_END and pos >= offset + size // 2:
        f.seek(pos)
        f.write(struct.pack("<I", FINISHED_INIT))
    pos += rec_size
EOF
}

# Where the round end past the middle is, and what the CPUs allow
vmx_split_point() {
	local how f

	# with its ground truth, vmx.data.*
	for f in "$dir"/vmx.data*; do
		cp "$f" "${f/vmx.data/far.data}"
	done
	roundless "$dir/far.data" $((3 << 20))
	how=$(path "$dir/far.data")
	if [ "$how" != "two parts" ]; then
		echo "FAIL: a round end 3 MiB past the middle: ${how:-no part said}"
		err=1
	fi
	kvm_events_check table "$dir/far.data" vmx || err=1
	roundless "$dir/far.data" 0
	same "$dir/far.data" "no round end within 64 MiB past the middle"
	same "$dir/far.data" "--heatmap" --heatmap "$dir/far.svg"
	how=$(taskset -c 0 perf kvm-events report -v -i "$dir/vmx.data" 2>&1 > /dev/null |
	      sed -n -e 's/.*: read in one part: /one part: /p')
	if [ "$how" != "one part: one CPU to run on" ]; then
		echo "FAIL: taskset -c 0: -v says '$how', not 'one CPU to run on'"
		err=1
	fi
	rm -f "$dir"/far.*
}

# Where the second part was to start, what it finds there
vmx_falls_back() {
	cp "$dir/vmx.data" "$dir/ip.data"
	patch_after_middle "$dir/ip.data" ip
	same "$dir/ip.data" "no record starts where the second part was to"
	same "$dir/ip.data" "no record starts where the second part was to" --event mmio

	cp "$dir/vmx.data" "$dir/bad.data"
	patch_after_middle "$dir/bad.data" size
	same "$dir/bad.data" "the second part cannot be read alone"
	if ! grep -q "has size .*, not a multiple of 8" "$dir/one.err"; then
		echo "FAIL: bad.data: the bad record is not named"
		err=1
	fi

	# perf record -a writes COMM records as processes start.
	cp "$dir/vmx.data" "$dir/comm.data"
	patch_after_middle "$dir/comm.data" comm
	same "$dir/comm.data" "the second part has a COMM record" --per-vm
	rm -f "$dir/ip.data" "$dir/bad.data" "$dir/comm.data"
}

# Records around the boundary broken at random (a size, a type, a time,
# a thread id, a round end's header): whichever way the report goes, its
# output and exit status are those of --threads 1, and no signal ends it.
broken_records() {
	for seed in $(seq 16); do
		python3 - "$dir/vmx-percpu.data" "$dir/fuzz.data" "$seed" <<'EOF'
import random, shutil, struct, sys
src, dst, seed = sys.argv[1], sys.argv[2], int(sys.argv[3])
random.seed(seed)
shutil.copy(src, dst)
f = open(dst, "r+b")
f.seek(40)
offset, size = struct.unpack("<QQ", f.read(16))
middle = offset + size // 2
records, pos = [], offset
while pos < middle + (1 << 19):
    f.seek(pos)
    rtype, misc, rsize = struct.unpack("<IHH", f.read(8))
    if pos > middle - (1 << 18):
        records.append((pos, rtype, rsize))
    pos += rsize
for _ in range(random.randint(1, 3)):
    pos, rtype, rsize = random.choice(records)
    what = random.choice(["size", "type", "time", "tid", "round"])
    if what == "size":
        f.seek(pos + 6)
        f.write(struct.pack("<H", random.choice([rsize + 8, rsize - 8, rsize + 4, 0xfff8])))
    elif what == "type":
        f.seek(pos)
        f.write(struct.pack("<I", random.choice([1, 2, 3, 7, 9, 13, 68, 200])))
    elif what == "round":
        f.seek(pos + random.randrange(rsize // 8) * 8)
        f.write(struct.pack("<IHH", 68, 0, 8))
    elif rtype == 9 and rsize > 40:
        # vmx-percpu's samples: ip, pid and tid, time, ...
        f.seek(pos + (24 if what == "time" else 16))
        f.write(struct.pack("<Q", random.getrandbits(random.choice([8, 30, 40, 64]))))
EOF
		perf kvm-events report -i "$dir/fuzz.data" --json > "$dir/one.out" 2> /dev/null
		one=$?
		perf kvm-events report -i "$dir/fuzz.data" --json --threads 1 \
			> "$dir/two.out" 2> /dev/null
		two=$?
		if [ $one -gt 128 ] || [ $two -gt 128 ] || [ $one != $two ] ||
		   ! cmp -s "$dir/one.out" "$dir/two.out"; then
			echo "FAIL: broken records, seed $seed: exit $one, $two; or outputs differ"
			err=1
		fi
	done
	rm -f "$dir/fuzz.data"
}

# switches_ahead FILE SCENARIO: a recording with context switches, read
# in two parts, whose second saw switches of threads in an exit of the
# first
switches_ahead() {
	local how

	how=$(perf kvm-events report -v -i "$1" 2>&1 > /dev/null)
	if ! echo "$how" | grep -q "read in two parts at once" ||
	   ! echo "$how" | grep -q "switches ahead in the second part: .*, [1-9][0-9]* of"; then
		echo "FAIL: $(basename "$1"): no switch ahead of its thread in two parts"
		err=1
	fi
	kvm_events_check sched-keys "$1" "$2" || err=1
	perf kvm-events report -i "$1" --event mmio --csv > "$dir/one.out" 2>&1
	perf kvm-events report -i "$1" --event mmio --csv --threads 1 > "$dir/two.out" 2>&1
	if ! cmp -s "$dir/one.out" "$dir/two.out"; then
		echo "FAIL: $(basename "$1") --event mmio --csv: not the report of --threads 1"
		diff "$dir/one.out" "$dir/two.out" | head -5
		err=1
	fi
}

# The ground truth, through the two parts
for scenario in vmx vmx-percpu vmx-percpu+system-wide two-vms arm64 vmx-halt; do
	name=${scenario//+/_}
	gen "$name" "$scenario" || continue
	how=$(path "$dir/$name.data")
	if [ "$how" != "two parts" ]; then
		echo "FAIL: $scenario: not read in two parts: ${how:-no part said}"
		err=1
	fi
	kvm_events_check table "$dir/$name.data" "$scenario" || err=1
	case $scenario in
	two-vms) kvm_events_check options "$dir/two-vms.data" two-vms || err=1 ;;
	arm64) arm64_falls_back ;;
	vmx) vmx_falls_back; vmx_split_point ;;
	vmx-percpu) broken_records ;;
	esac
	# A file at a time: they are large.
	rm -f "$dir/$name".*
done

# ...and with context switches, per thread and system wide
for scenario in two-vms+switch vmx-halt+switch+system-wide; do
	name=${scenario//+/_}
	gen "$name" "$scenario" || continue
	switches_ahead "$dir/$name.data" "${scenario%%+*}"
	rm -f "$dir/$name".*
done

exit $err
