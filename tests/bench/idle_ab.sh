#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# threadtop's own CPU beside N idle threads, and its RSS at the window's
# end, in the TUI (160x50 tmux pane, default settings), for two binaries in
# alternating runs: a change's effect on the idle box, which this VM's noise
# hides in a single run. With
# FORKS=1 a shell loop starts a task every 40 ms meanwhile, so that every
# pass walks the thread list (the known-threads array does not help). Not
# run by CI. As root:
#
#   tests/bench/idle_ab.sh OLD_BINARY NEW_BINARY [ROUNDS (3)] [SECONDS (20)]
#
# Environment: FORKS (0), WARM_S (6): start-up left out of each window;
# IDLE_N (1000): the idle threads (past what kernel.pid_max and
# vm.max_map_count allow, they are raised for the run and put back);
# PAUSE_S (60 past 20,000 idle threads, else 0): a pause after each run,
# while the kernel takes the last run's threads down (load 35-45 for a
# minute after 100,000: a run started then measured that, not the TUI).
set -uo pipefail

[ $# -ge 2 ] || { echo "usage: $0 OLD_BINARY NEW_BINARY [ROUNDS] [SECONDS]" >&2; exit 2; }
A=$1
B=$2
ROUNDS=${3:-3}
SECS=${4:-20}
WARM_S=${WARM_S:-6}
FORKS=${FORKS:-0}
PAUSE_S=${PAUSE_S:-$([ "${IDLE_N:-1000}" -gt 20000 ] && echo 60 || echo 0)}
BENCH_WL=${BENCH_WL:-$(dirname "$(readlink -f "$B")")/tests/workloads}
IDLE_N=${IDLE_N:-1000}
BENCH_TMP=$(mktemp -d)
. "$(dirname "$0")/lib_bench.bash"
trap 'bench_restore_limits; rm -rf "$BENCH_TMP"' EXIT
bench_raise_limits "$IDLE_N"
WL=$BENCH_WL
[ -x "$WL/idle_threads" ] || { echo "no $WL/idle_threads: set BENCH_WL" >&2; exit 2; }
command -v tmux >/dev/null || { echo "needs tmux" >&2; exit 2; }

one_run() {
	local bin=$1 idle loop=0 pct
	"$WL/idle_threads" "$IDLE_N" $((SECS + WARM_S + 600)) &
	idle=$!
	bench_wait_threads "$idle" $((IDLE_N + 1)) 600 || { echo "idle_threads did not start $IDLE_N threads" >&2; exit 1; }
	if [ "$FORKS" = 1 ]; then
		(
			end=$((SECONDS + SECS + WARM_S + 5))
			while [ $SECONDS -lt $end ]; do
				/bin/true
				sleep 0.04
			done
		) &
		loop=$!
	fi
	pct=$(bench_tui_cpu "$bin" "$WARM_S" "$SECS")
	kill "$idle" 2>/dev/null
	[ "$loop" != 0 ] && kill "$loop" 2>/dev/null
	wait 2>/dev/null
	sleep "$PAUSE_S"
	printf "%-40s %s%% of one CPU, RSS %s MB\n" "$bin" "$pct" "$(cat "$BENCH_TMP/tui.rss" 2>/dev/null)"
}

echo "$IDLE_N idle threads, TUI, ${SECS} s windows, load $(cut -d' ' -f1-3 /proc/loadavg)$([ "$FORKS" = 1 ] && echo ", a task started every 40 ms")"
for _ in $(seq "$ROUNDS"); do
	one_run "$A"
	one_run "$B"
done
