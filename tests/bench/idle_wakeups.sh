#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Issue #23 item 2: threadtop's own CPU and RSS beside N idle threads, in
# the TUI (160x50 tmux pane, default settings), with and without the
# one-pass sampler's wakeup hooks (THREADTOP_TEST_NO_WAKEUPS=1), in
# alternating runs of one binary. Raises kernel.pid_max and
# vm.max_map_count for N past what they allow, and puts them back. Not run
# by CI. As root:
#
#   tests/bench/idle_wakeups.sh BINARY [N (10000)] [ROUNDS (2)] [SECONDS (20)]
set -uo pipefail

[ $# -ge 1 ] || { echo "usage: $0 BINARY [N] [ROUNDS] [SECONDS]" >&2; exit 2; }
BIN=$1
N=${2:-10000}
ROUNDS=${3:-2}
SECS=${4:-20}
WARM_S=${WARM_S:-8}
WL=${BENCH_WL:-$(dirname "$(readlink -f "$BIN")")/tests/workloads}
TMP=$(mktemp -d)
export BENCH_TMP=$TMP # lib_bench.bash's scratch
export BENCH_WL=$WL
. "$(dirname "$0")/lib_bench.bash"
restore() {
	bench_restore_limits
	rm -rf "$TMP"
}
trap restore EXIT
bench_raise_limits "$N"
runs=0

# one_run LABEL ENV...: prints LABEL, the CPU split and the RSS at the end.
one_run() {
	local label=$1 idle tt u0 s0 u1 s1 t0 t1 rss sock=$TMP/s.$((runs++))
	shift
	"$WL/idle_threads" "$N" $((SECS + WARM_S + 600)) &
	idle=$!
	while [ "$(find /proc/$idle/task -maxdepth 1 -mindepth 1 2>/dev/null | wc -l)" -lt "$N" ]; do
		sleep 0.5
	done
	tmux -S "$sock" new-session -d -x 160 -y 50 "exec env $* $BIN --source bpf"
	sleep "$WARM_S"
	tt=$(tmux -S "$sock" list-panes -F '#{pane_pid}')
	read -r u0 s0 < <(awk '{print $14, $15}' /proc/"$tt"/stat)
	t0=$EPOCHREALTIME
	sleep "$SECS"
	read -r u1 s1 < <(awk '{print $14, $15}' /proc/"$tt"/stat)
	t1=$EPOCHREALTIME
	rss=$(awk '/VmRSS/ {print $2}' /proc/"$tt"/status)
	tmux -S "$sock" kill-server
	kill "$idle"
	wait 2>/dev/null
	awk -v l="$label" -v u=$((u1 - u0)) -v s=$((s1 - s0)) -v t0="$t0" -v t1="$t1" -v rss="$rss" \
		-v hz="$(getconf CLK_TCK)" 'BEGIN { d = t1 - t0;
		printf "%-12s %6.2f%% of a core (user %.2f, sys %.2f), RSS %d MB\n", l,
		(u + s) / hz / d * 100, u / hz / d * 100, s / hz / d * 100, rss / 1024 }'
}

echo "$N idle threads, TUI, ${SECS} s windows, load $(cut -d' ' -f1-3 /proc/loadavg)"
for _ in $(seq "$ROUNDS"); do
	one_run "no hooks" THREADTOP_TEST_NO_WAKEUPS=1
	one_run "wakeups" THREADTOP_TEST_WAKEUPS_ON=1
done
