#!/bin/bash
# kvm-events: perf help kvm-events and --help show the man page
# SPDX-License-Identifier: GPL-2.0

# Through man where the page is installed, else the page's text that the
# build put into perf: either way its NAME section, and exit 0.  With
# PATH holding no man at all, it must be the built-in text.

set -u

dir=$(mktemp -d /tmp/perf-test-kvm-events.XXXXXXXXXX)
trap 'rm -rf "$dir"' EXIT
err=0
perf_bin=$(command -v perf)
name="perf-kvm-events - Where a host's VM exits go, and what they cost"

# shows_page WHAT CMD...: CMD exits 0 with the NAME section on stdout
shows_page() {
	what=$1
	shift
	# Under make check SANITIZE=1, malloc's stacks by the slow unwinder:
	# upstream's perf help leaks what asprintf() allocated, and only that
	# unwinder follows such a stack out of libc to the upstream function
	# that scripts/lsan.supp names.
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}fast_unwind_on_malloc=0" \
		"$@" > "$dir/out" 2> "$dir/err"
	rc=$?
	if [ $rc -ne 0 ]; then
		echo "FAIL: $what: exit $rc"
		cat "$dir/err"
		err=1
	elif ! grep -q "^NAME" "$dir/out" ||
	     ! grep -A2 "^NAME" "$dir/out" | grep -q -F -- "$name"; then
		echo "FAIL: $what: no NAME section naming $name:"
		head -10 "$dir/out"
		err=1
	fi
}

shows_page "perf help kvm-events" perf help kvm-events
shows_page "perf kvm-events --help" perf kvm-events --help
# No man to run: the text built into perf
mkdir "$dir/bin"
shows_page "perf help kvm-events without man" env PATH="$dir/bin" "$perf_bin" help kvm-events
if ! grep -q "^'perf kvm-events' diff" "$dir/out"; then
	echo "FAIL: perf help kvm-events without man does not print the page's text"
	err=1
fi

exit $err
