#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Issue #21 item 6, "memory is flat": a live TUI session (BPF source, in
# tmux, default settings) on a churning box, processes forked and exiting
# all the time (tests/workloads/churn) beside 2,000 idle threads
# (idle_threads), for --minutes (default 60). Prints threadtop's RSS at
# minute 5 and every --every minutes after it (default 5) with its ratio to
# minute 5, the threads on the box and the load average, then the largest
# ratio against the bound (1.5x) and threadtop's own breakdown of what its
# memory holds (--mem-log), first and last. A benchmark, not a timed test:
# on a shared box the other sessions' threads come and go too, so read
# each figure beside the box's thread count.
#
# usage: sudo tests/bench/mem_churn.sh [--minutes N] [--every M] [--out DIR] [BUILD_DIR]
#   --out DIR  keep threadtop's log there (default: a temporary directory)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
build=$src/build/release
minutes=60 every=5 out=
while [ $# -gt 0 ]; do
	case $1 in
	--minutes) minutes=$2 && shift ;;
	--every) every=$2 && shift ;;
	--out) out=$2 && shift ;;
	-h | --help) sed -n '3,16p' "$0" && exit 0 ;;
	-*) echo "mem_churn: unknown option $1 (see --help)" >&2 && exit 2 ;;
	*) build=$1 ;;
	esac
	shift
done
TT=$build/threadtop
WL=$build/tests/workloads
[ -x "$TT" ] || { echo "mem_churn: no threadtop in $build: build it first" >&2; exit 1; }
[ "$minutes" -ge 1 ] 2>/dev/null || { echo "mem_churn: --minutes needs a whole number >= 1" >&2; exit 2; }
[ "$every" -ge 1 ] 2>/dev/null || { echo "mem_churn: --every needs a whole number >= 1" >&2; exit 2; }
[ -n "$out" ] || out=$(mktemp -d)
mkdir -p "$out"
sock=tt_mc_$$
pids=""
cleanup() {
	tmux -L "$sock" kill-server 2>/dev/null
	# shellcheck disable=SC2086 # a list of pids
	[ -n "$pids" ] && kill $pids 2>/dev/null
}
trap cleanup EXIT
trap 'exit 130' INT TERM

secs=$((minutes * 60 + 60))
"$WL/idle_threads" 2000 $secs >/dev/null 2>&1 &
pids="$pids $!"
"$WL/churn" $secs >"$out/churn.out" 2>&1 &
pids="$pids $!"
sleep 2
log=$out/threadtop.log
rm -f "$log"
tmux -L "$sock" new-session -d -s mc -x 160 -y 45 "$TT --log $log --mem-log 60"
sleep 1
tp=$(tmux -L "$sock" list-panes -t mc -F '#{pane_pid}')
rss() { awk '/^VmRSS/ { printf "%.1f", $2 / 1024 }' "/proc/$tp/status" 2>/dev/null; }
box() { awk '{ split($4, a, "/"); printf "%s threads on the box, load %s", a[2], $1 }' /proc/loadavg; }
echo "mem_churn: $(nproc) CPUs, $minutes min, churn + idle_threads 2000, $(box) at the start; log $log"
r5= worst=0 worst_at=
for ((m = 1; m <= minutes; m++)); do
	sleep 60 &
	wait $! # a signal ends the run now, not after the minute
	[ -d "/proc/$tp" ] || { echo "mem_churn: threadtop ended at minute $m (see $log)" >&2; exit 1; }
	r=$(rss)
	[ "$m" -eq 5 ] && r5=$r
	if [ "$m" -eq 5 ] || { [ "$m" -gt 5 ] && [ $(((m - 5) % every)) -eq 0 ]; } || [ "$m" -eq "$minutes" ]; then
		ratio=$(awk -v a="${r5:-0}" -v b="$r" 'BEGIN { if (a > 0) printf "%.2fx", b / a; else print "-" }')
		echo "minute $m: RSS $r MB ($ratio of minute 5), $(box)"
		if [ -n "$r5" ] && awk -v w="$worst" -v a="$r5" -v b="$r" 'BEGIN { exit !(b / a > w) }'; then
			worst=$(awk -v a="$r5" -v b="$r" 'BEGIN { printf "%.2f", b / a }')
			worst_at=$m
		fi
	fi
done
if [ -n "$r5" ]; then
	verdict=$(awk -v w="$worst" 'BEGIN { print (w <= 1.5 ? "PASS" : "MISS") }')
	echo "mem_churn: largest RSS after minute 5: ${worst}x of minute 5 (minute ${worst_at:-5}); bound 1.5x: $verdict"
fi
grep -m1 'memory:' "$log" | sed 's/^/first: /'
grep 'memory:' "$log" | tail -n 1 | sed 's/^/last: /'
