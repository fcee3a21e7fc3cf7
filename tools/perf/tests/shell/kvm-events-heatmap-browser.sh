#!/bin/bash
# kvm-events: report --heatmap's SVG, drawn by a browser
# SPDX-License-Identifier: GPL-2.0

# Headless Chromium takes a screenshot of the SVG: a PNG of the window's
# size, in which the legend's colours and those of every cell in view
# are drawn (solid fills come out exactly).  The SVG holds no script and
# no reference outside itself.  Without Chromium, the test is skipped.

set -u
. "$(dirname "$0")/lib/kvm_events.sh"
need_kvmgen
skip_without_python3

browser=$(command -v chromium || command -v chromium-browser || command -v google-chrome)
if [ -z "$browser" ]; then
	echo "skip: no chromium to draw the SVG (apt-get install chromium, or make deps-optional)"
	exit 2
fi

dir=$(mktemp -d /tmp/perf-test-kvm-events.XXXXXXXXXX)
test_init

data="$dir/vmx.data"
"$KVMGEN" "$data" vmx 2000 > /dev/null || exit 1
svg="$dir/heatmap.svg"
perf kvm-events report -i "$data" --heatmap "$svg" > /dev/null || exit 1
if grep -q -i -e '<script' -e 'href=' -e 'url(' "$svg"; then
	echo "FAIL: $svg has a script or a reference"
	err=1
fi

# Its own profile, so that runs do not share one
png="$dir/heatmap.png"
timeout 120 "$browser" --headless --disable-gpu --no-sandbox \
	--user-data-dir="$dir/profile" --screenshot="$png" \
	--window-size=1200,900 "file://$svg" > "$dir/browser.log" 2>&1
if [ ! -s "$png" ]; then
	echo "FAIL: $browser wrote no screenshot:"
	tail -5 "$dir/browser.log"
	exit 1
fi
kvm_events_check screenshot "$png" "$svg" 1200 900 || err=1
[ -n "${HEATMAP_SHOT:-}" ] && cp "$png" "$HEATMAP_SHOT"
exit $err
