#!/bin/bash
# kvm-events: the browser shows the report's rows, sorts, details, redraws, restores the terminal
# SPDX-License-Identifier: GPL-2.0

# report --tui, driven for real in a tmux server of the test's own, over
# a generated recording of two VMs: the first screen's rows are the
# report's, byte for byte; o sorts by the next column, as --key does;
# Enter opens a key's detail, whose rows per VM and vcpu are those of
# --per-vcpu and whose percentiles are the report's; a resize redraws the
# screen at its new size; a key that changes one line rewrites little of
# the screen (slang redraws only what changed); q leaves the terminal as
# it found it (stty -a) and perf exits 0, as ^C does.

set -u
. "$(dirname "$0")/lib/kvm_events.sh"
need_kvmgen
skip_without_python3

dir=$(mktemp -d /tmp/perf-test-kvm-events.XXXXXXXXXX)
test_init
need_tui "$dir"
test_cleanup() {
	tm kill-server 2> /dev/null
}
data="$dir/two.data"

if ! "$KVMGEN" "$data" two-vms > /dev/null; then
	echo "FAIL: kvmgen two-vms"
	exit 1
fi

# report_rows ARGS...: the rows of report's table, as printed
report_rows() {
	perf kvm-events report -i "$data" --stdio "$@" |
		awk '/Samples%/ { on = 1; getline; next } on && NF == 0 { exit } on { print }'
}

# rows_are FILE: the screen's rows are FILE's (the difference in $dir/diff)
rows_are() {
	tui_rows > "$dir/screen.rows"
	diff "$1" "$dir/screen.rows" > "$dir/diff"
}

# same_rows WHAT FILE: until the screen's rows are FILE's (10 s)
same_rows() {
	if ! tui_until 10 rows_are "$2"; then
		echo "FAIL: $1: the browser's rows differ from the report's"
		cat "$dir/diff"
		err=1
	fi
}

# redrawn_at LINES: the screen has LINES lines, the last the help line,
# and the table is still sorted by avg
redrawn_at() {
	[ "$(echo "$TUI_SCREEN" | wc -l)" = "$1" ] &&
		echo "$TUI_SCREEN" | sed -n "${1}p" | grep -q '^q quit' &&
		tui_shows 'sort: avg \|'
}

TUI_WIDTH=200 TUI_HEIGHT=50 tui_start "$dir" perf kvm-events report --tui -i "$data"

if ! tui_wait '^q quit'; then
	echo "FAIL: report --tui: no screen"
	echo "$TUI_SCREEN"
	cat "$dir/stderr"
	exit 1
fi
report_rows > "$dir/report.rows"
[ -s "$dir/report.rows" ] || { echo "FAIL: no rows in the report"; err=1; }
same_rows "the first screen" "$dir/report.rows"

# The default columns: samples, samples%, time%, avg: avg is the fourth o.
tm send-keys o o o o
if tui_wait 'sort: avg \|'; then
	report_rows --key avg > "$dir/report.avg"
	same_rows "sorted by avg" "$dir/report.avg"
	cmp -s "$dir/report.avg" "$dir/report.rows" &&
		{ echo "FAIL: sorting by avg left the rows as they were"; err=1; }
else
	echo "FAIL: o did not sort by avg"
	echo "$TUI_SCREEN"
	err=1
fi

# The first row's detail: its vcpus are --per-vcpu's, its percentiles the report's
key=$(head -1 "$dir/report.avg" | awk '{ print $1 }')
perf kvm-events report -i "$data" --per-vcpu --json |
	python3 -c '
import json, sys
key = sys.argv[1]
for k in json.load(sys.stdin)["keys"]:
    if k["key"] == key:
        print(k["pid"], k["vcpu"], k["samples"])' "$key" | sort > "$dir/json.vcpus"
want=$(perf kvm-events report -i "$data" --stdio --fields p50,p99 |
	awk -v k="$key" '$1 == k { print "p50 " $2 ", p90 [0-9.]*us, p99 " $3 }')
[ -s "$dir/json.vcpus" ] && [ -n "$want" ] ||
	{ echo "FAIL: no --per-vcpu rows or percentiles of $key"; err=1; }

# detail_shown: the screen is the whole detail of $key
detail_shown() {
	tui_shows ": $key\$|: $key +\$" && tui_shows "^$key since the start" || return 1
	echo "$TUI_SCREEN" | awk '$1 ~ /^[0-9]+$/ && $3 ~ /^[0-9]+$/ { print $1, $3, $4 }' |
		sort > "$dir/detail.vcpus"
	cmp -s "$dir/json.vcpus" "$dir/detail.vcpus" && tui_shows "$want"
}

tm send-keys Enter
if tui_until 10 detail_shown; then
	tm send-keys q
	tui_wait 'sort: avg \|' 10 || { echo "FAIL: q did not go back to the table"; err=1; }
else
	echo "FAIL: Enter did not open the detail of $key as expected:"
	echo "--per-vcpu's vcpus and the percentiles $want"
	diff "$dir/json.vcpus" "$dir/detail.vcpus"
	echo "$TUI_SCREEN"
	err=1
fi

# A resize redraws: at 100x20 the help line is the screen's 20th line.
tm resize-window -x 100 -y 20
if ! tui_until 10 redrawn_at 20; then
	echo "FAIL: the screen was not redrawn at 100x20"
	echo "$TUI_SCREEN"
	err=1
fi

# What reaches the terminal: a whole screen after a resize, a few bytes
# when a key changes two lines (the title's PAUSED, the help line).
tm pipe-pane -o "cat > $dir/full.bytes"
tm resize-window -x 200 -y 50
tui_until 10 redrawn_at 50 && tui_settled "$dir/full.bytes"
tm pipe-pane
tm pipe-pane -o "cat > $dir/pause.bytes"
tm send-keys P
tui_wait 'PAUSED' 10 && tui_settled "$dir/pause.bytes"
tm pipe-pane
full=$(wc -c < "$dir/full.bytes")
pause=$(wc -c < "$dir/pause.bytes")
if [ "$full" -lt 2000 ] || [ "$pause" -eq 0 ] || [ $((pause * 10)) -gt "$full" ]; then
	echo "FAIL: a key that changes two lines wrote $pause bytes, a whole screen $full"
	err=1
fi

tui_quit "$dir" "report --tui" || err=1

# ^C quits too, restoring the terminal
tui_start "$dir" perf kvm-events report --tui -i "$data"
if tui_wait '^q quit'; then
	tui_quit "$dir" "report --tui, ^C" C-c || err=1
else
	echo "FAIL: report --tui: no screen for ^C"
	err=1
fi

# Where the browser cannot be: one line, exit 1.
want="perf kvm-events report: --tui: the standard output is not a terminal"
if perf kvm-events report --tui -i "$data" > "$dir/out" 2>&1 ||
   [ "$(cat "$dir/out")" != "$want" ]; then
	echo "FAIL: --tui into a file"
	cat "$dir/out"
	err=1
fi
want="perf kvm-events report: --tui and --stdio: choose one"
if perf kvm-events report --tui --stdio -i "$data" > "$dir/out" 2>&1 ||
   [ "$(cat "$dir/out")" != "$want" ]; then
	echo "FAIL: --tui --stdio"
	cat "$dir/out"
	err=1
fi
exit $err
