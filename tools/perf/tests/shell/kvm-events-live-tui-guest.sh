#!/bin/bash
# kvm-events: live's browser refreshes on its timer and ends on the guest's exact counts
# SPDX-License-Identifier: GPL-2.0

# live --tui over the bundled guest, in a tmux server of the test's own:
# the screen refreshes every -d second by itself (no key is pressed until
# the end), the title says ENDED when the guest has exited, and the last
# screen's rows are the guest's accesses, exactly: 7 port writes, 5 reads.
# The same with --use-bpf, where this perf has its BPF skeletons.  q
# leaves the terminal as it found it.

set -u
. "$(dirname "$0")/lib/kvm_events.sh"

skip_without_kvm_tracing

dir=$(mktemp -d /tmp/perf-test-kvm-events.XXXXXXXXXX)
test_init
need_tui "$dir"
test_cleanup() {
	tm kill-server 2> /dev/null
}

# all_accesses_shown: the screen's rows hold the guest's 7 OUTs to 0x500
# and 5 INs from 0x501
all_accesses_shown() {
	tui_rows | awk '$1 == "0x500:POUT" && $2 == 7 { out = 1 }
		$1 == "0x501:PIN" && $2 == 5 { in_ = 1 }
		END { exit !(out && in_) }'
}

# browse NAME LIVE-OPTIONS...: live --tui of the guest until it ends, then q
browse() {
	local name=$1 refreshes
	shift
	tui_start "$dir" perf kvm-events -v live --tui -d 1 --event ioport "$*" \
		-- perf test -w kvmguest 7 5 4 3
	if ! tui_wait 'ENDED' 120; then
		echo "FAIL: $name: the guest's end was not shown"
		echo "$TUI_SCREEN"
		cat "$dir/stderr"
		err=1
		return
	fi
	# The last refresh after the end holds every access, and a refresh
	# (every second) later still holds them: no more came.
	if ! { tui_until 10 all_accesses_shown && sleep 1.5 &&
	       tui_until 1 all_accesses_shown; }; then
		echo "FAIL: $name: 0x500:POUT 7 and 0x501:PIN 5 samples expected, the screen:"
		tui_rows
		err=1
	fi
	tui_quit "$dir" "$name" || err=1
	# The guest runs for seconds: the timer refreshed the screen several times.
	refreshes=$(sed -n 's/.*the browser: \([0-9]*\) refreshes.*/\1/p' "$dir/stderr")
	if [ -z "$refreshes" ] || [ "$refreshes" -lt 3 ]; then
		echo "FAIL: $name: ${refreshes:-no} refreshes on the timer"
		cat "$dir/stderr"
		err=1
	fi
	echo "$name: $refreshes refreshes; the last screen:"
	echo "$TUI_SCREEN" | sed 's/[[:space:]]*[◆▒]*$//' | awk 'NF'
}

browse "live --tui"
if perf kvm-events live --use-bpf -- true 2>&1 | grep -q "without BPF skeletons"; then
	echo "live --use-bpf --tui: not tested, this perf was built without BPF skeletons"
else
	browse "live --use-bpf --tui" --use-bpf
fi
exit $err
