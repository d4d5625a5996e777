#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Two threadtop TUIs at once (160x50 tmux panes, default settings) beside N
# idle threads: each one's own CPU (utime + stime) every 10 s, and its RSS.
# On this shared VM the same binary's CPU beside 100,000 idle threads moved
# by 1.5x from one run to the next (the host's load, not ours); twins live
# through the same moments, so their ratio is the change's effect. The first
# 10 s + 1 s per 1,000 threads are start-up (the new threads' first stacks,
# 64 a pass): read the lines after it. Not run by CI. As root:
#
#   tests/bench/idle_twins.sh A_BINARY B_BINARY [SECONDS (180)]
#
# Environment: IDLE_N (100000) idle threads; past what kernel.pid_max and
# vm.max_map_count allow, they are raised for the run and put back.
set -uo pipefail

[ $# -ge 2 ] || { echo "usage: $0 A_BINARY B_BINARY [SECONDS]" >&2; exit 2; }
A=$1
B=$2
SECS=${3:-180}
IDLE_N=${IDLE_N:-100000}
WL=${BENCH_WL:-$(dirname "$(readlink -f "$B")")/tests/workloads}
BENCH_TMP=$(mktemp -d)
. "$(dirname "$0")/lib_bench.bash"
[ -x "$WL/idle_threads" ] || { echo "no $WL/idle_threads: set BENCH_WL" >&2; exit 2; }
command -v tmux >/dev/null || { echo "needs tmux" >&2; exit 2; }
idle=
cleanup() {
	tmux -S "$BENCH_TMP/a.sock" kill-server 2>/dev/null
	tmux -S "$BENCH_TMP/b.sock" kill-server 2>/dev/null
	[ -n "$idle" ] && kill "$idle" 2>/dev/null
	bench_restore_limits
	rm -rf "$BENCH_TMP"
}
trap cleanup EXIT
bench_raise_limits "$IDLE_N"

"$WL/idle_threads" "$IDLE_N" $((SECS + 600)) &
idle=$!
bench_wait_threads "$idle" $((IDLE_N + 1)) 600 || { echo "idle_threads did not start $IDLE_N threads" >&2; exit 1; }
sleep 5
tmux -S "$BENCH_TMP/a.sock" new-session -d -x 160 -y 50 "exec $A --source bpf"
tmux -S "$BENCH_TMP/b.sock" new-session -d -x 160 -y 50 "exec $B --source bpf"
sleep 1
ta=$(tmux -S "$BENCH_TMP/a.sock" list-panes -F '#{pane_pid}')
tb=$(tmux -S "$BENCH_TMP/b.sock" list-panes -F '#{pane_pid}')
rss() { awk '/^VmRSS:/ { printf "%.0f", $2 / 1024 }' "/proc/$1/status"; }
echo "$IDLE_N idle threads; A $A, B $B; % of one core each 10 s, RSS MB"
pa=$(bench_proc_cpu "$ta")
pb=$(bench_proc_cpu "$tb")
for ((s = 10; s <= SECS; s += 10)); do
	sleep 10
	ca=$(bench_proc_cpu "$ta")
	cb=$(bench_proc_cpu "$tb")
	awk -v s="$s" -v a0="$pa" -v a1="$ca" -v b0="$pb" -v b1="$cb" -v ra="$(rss "$ta")" -v rb="$(rss "$tb")" \
		'BEGIN { printf "%4d s: A %5.2f%% %s MB  B %5.2f%% %s MB\n", s, (a1 - a0) * 10, ra, (b1 - b0) * 10, rb }'
	pa=$ca
	pb=$cb
done
