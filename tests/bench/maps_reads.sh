#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# How often threadtop opens /proc/PID/maps per process it meets: the
# symbolizer and the DWARF unwinder share one read per process (maps_cache.c).
# threadtop runs in batch mode with DWARF unwinding of every on-CPU sample
# while strace counts its opens of /proc/*/maps for SECS seconds, on two
# workloads: churn (children that exit at once: most are gone before they
# are read, so an open is an ENOENT) and short spinners (a process at a time
# that burns a CPU for 0.3 s, read while it lives). Prints opens, distinct
# pids and opens per pid for each (every process threadtop met counts, the
# box's others too). Figures, not a pass/fail test. As root:
#
#   tests/bench/maps_reads.sh [BUILD_DIR]     (default build/release)
#
# Environment: SECS (8), TT_BIN (the threadtop to measure; default
# BUILD_DIR/threadtop, e.g. an older build to compare with).
set -uo pipefail

BUILD=${1:-build/release}
TT=${TT_BIN:-$BUILD/threadtop}
WL=$BUILD/tests/workloads
SECS=${SECS:-8}
[ "$(id -u)" -eq 0 ] || { echo "run as root (BPF)"; exit 1; }
command -v strace >/dev/null || { echo "needs strace (apt-get install strace)"; exit 1; }
[ -x "$TT" ] && [ -x "$WL/churn" ] && [ -x "$WL/spinners" ] ||
	{ echo "no threadtop or workloads in $BUILD: build it first"; exit 1; }
tmp=$(mktemp -d)
wl=
tt=
trap 'kill $wl $tt 2>/dev/null; rm -rf "$tmp"' EXIT

spinners_one_by_one() {
	local p
	while :; do
		"$WL/spinners" 1 30 &
		p=$!
		sleep 0.3
		kill $p
		wait $p 2>/dev/null
	done
}

# measure NAME: strace threadtop for SECS while the workload runs; one line.
measure() {
	local maps opens pids live
	"$TT" -b --format json -d 1 --source bpf --cpu-hz 499 --unwind dwarf >/dev/null 2>"$tmp/err" &
	tt=$!
	sleep 2
	timeout -s INT "$SECS" strace -f -qq -e trace=openat -o "$tmp/strace" -p "$tt"
	kill -TERM "$tt"
	wait "$tt" 2>/dev/null
	tt=
	maps=$tmp/maps
	grep -E 'openat\(.*"/proc/[0-9]+/maps"' "$tmp/strace" >"$maps"
	opens=$(wc -l <"$maps")
	pids=$(grep -oE '/proc/[0-9]+/maps' "$maps" | sort -u | wc -l)
	grep -v ENOENT "$maps" | grep -oE '/proc/[0-9]+/maps' | sort -u >"$tmp/alive"
	live=$(wc -l <"$tmp/alive")
	live_opens=$(grep -cFf "$tmp/alive" "$maps")
	((pids > 0 && live > 0)) || { echo "$1: threadtop read no maps file (see $tmp/err)"; return; }
	printf '%-9s %5d opens for %5d pids: %.2f per pid; of them %4d for %3d pids read alive: %.2f\n' \
		"$1" "$opens" "$pids" "$(echo "$opens / $pids" | bc -l)" "$live_opens" "$live" \
		"$(echo "$live_opens / $live" | bc -l)"
}

"$WL/churn" $((SECS + 10)) >/dev/null &
wl=$!
measure churn
kill $wl 2>/dev/null
wait $wl 2>/dev/null
set -m # the loop gets a process group of its own: it and its spinner go together
spinners_one_by_one &
wl=$!
set +m
measure spinners
kill -- -"$wl" 2>/dev/null
wait $wl 2>/dev/null
wl=
