#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# What watching costs, storms only (the full suite is tests/bench/run_all.sh):
# slowdown of a getppid storm and of a pipe ping-pong storm under threadtop
# (default sampling, --syscalls, --offcpu) and under the peers (bpftrace
# counting, latency and off-CPU scripts, perf record -F 99 -a -g, perf trace
# -s, strace -c -f), as the median of PAIRS alternating (without tool, with
# tool) pairs. For threadtop's default mode also its direct cost, which the
# VM's noise does not move: 1 + the run time of its BPF programs outside
# threadtop (BPF_ENABLE_STATS; every program but the thread sampler, which runs in threadtop) over the
# storm's time; it counts every process's samples, so on a busy box it
# overstates. Then threadtop's own CPU with 1,000 idle threads at default
# settings, in batch JSON and in the TUI (tmux). Not run by CI. As root:
#
#   tests/bench/bpf_overhead.sh [BUILD_DIR]      (default build/release)
#
# Environment: PAIRS (5), GETPPID_N (2000000), PINGPONG_N (100000), SLOW_DIV
# (200: strace and perf trace run storms this many times smaller), PEERS=0 to
# skip the peers, STORMS (getppid pingpong; "" = only the idle box), IDLE_S
# (20) and WARM_S (5): the idle box's window and start-up. bpftrace and perf
# trace need tracefs: mounted here if it is not, and unmounted at the end.
set -uo pipefail

BUILD=${1:-build/release}
TT=$BUILD/threadtop
PAIRS=${PAIRS:-5}
SLOW_DIV=${SLOW_DIV:-200}
PEERS=${PEERS:-1}
. "$(dirname "$0")/lib_bench.bash"
BENCH_WL=$BUILD/tests/workloads
BENCH_N_GETPPID=${GETPPID_N:-2000000}
BENCH_N_PINGPONG=${PINGPONG_N:-100000}

[ "$(id -u)" -eq 0 ] || { echo "run as root"; exit 1; }
[ -x "$TT" ] && [ -x "$BENCH_WL/getppid_loop" ] && [ -x "$BENCH_WL/pingpong" ] ||
	{ echo "build first: cmake --preset release && cmake --build build/release"; exit 1; }
BENCH_TMP=$(mktemp -d)
mounted=
cleanup() {
	bench_tool_stop
	[ -n "$mounted" ] && umount /sys/kernel/tracing
	rm -rf "$BENCH_TMP"
}
trap cleanup EXIT
if [ "$PEERS" = 1 ] && ! [ -d /sys/kernel/tracing/events ]; then
	mount -t tracefs nodev /sys/kernel/tracing && mounted=1 &&
		echo "(mounted tracefs on /sys/kernel/tracing for bpftrace and perf trace)"
fi
ulimit -l unlimited 2>/dev/null

# measure LABEL STORM MODE CMD: MODE bg (tool runs beside the storm) or wrap
# (CMD prefixes the storm command, on a storm SLOW_DIV times smaller).
measure() {
	local label=$1 name=$2 mode=$3 cmd=$4 ratios="" floors="" floor base with
	local BENCH_N_GETPPID=$BENCH_N_GETPPID BENCH_N_PINGPONG=$BENCH_N_PINGPONG
	if [ "$mode" = wrap ]; then
		BENCH_N_GETPPID=$((BENCH_N_GETPPID / SLOW_DIV))
		BENCH_N_PINGPONG=$((BENCH_N_PINGPONG / SLOW_DIV))
	fi
	for _ in $(seq "$PAIRS"); do
		base=$(bench_wl "$name")
		if [ "$mode" = bg ]; then
			rm -f "$BENCH_TMP/tt.json"
			bench_tool_start "$cmd"
			with=$(bench_wl "$name")
			bench_tool_stop
			# Direct cost: BPF run time outside threadtop (every program but
			# the thread sampler) over the storm's time. Tracing modes turn the
			# stats off (they would cost every hook): no figure there.
			[ -s "$BENCH_TMP/tt.json" ] && floor=$(jq -rs --argjson w "$with" '
				[.[].bpf_stats | select(.) | to_entries[] | select(.key != "sample_threads")
				 | .value.run_time_ns] | if length > 0 then 1 + add / 1e9 / $w else empty end' \
				"$BENCH_TMP/tt.json") && [ -n "$floor" ] && floors="$floors $floor"
		else
			# shellcheck disable=SC2086 # the command's words
			with=$(bench_wl "$name" $cmd)
		fi
		ratios="$ratios $(bench_ratio "$with" "$base")"
	done
	printf "%-9s %-34s %8sx   (pairs:%s; base %.3f s)\n" "$name" "$label" \
		"$(echo "$ratios" | bench_median)" "$ratios" "$base"
	[ -z "$floors" ] || printf "%-9s %-34s %8.4fx   (1 + BPF run time outside threadtop / storm time)\n" \
		"" "  direct BPF cost" "$(echo "$floors" | bench_median)"
}

TTB="$TT -b --format json -d 1 --source bpf"
echo "threadtop $("$TT" -V | awk '{print $2}') on $(uname -r), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "median of $PAIRS alternating pairs; ratio = storm time with the tool / without"
echo
STORMS=${STORMS-getppid pingpong}
for name in $STORMS; do
	measure "threadtop (default: 20 Hz + 99 Hz)" $name bg "$TTB >$BENCH_TMP/tt.json"
	measure "threadtop --syscalls" $name bg "$TTB --syscalls >$BENCH_TMP/tt.json"
	measure "threadtop --offcpu" $name bg "$TTB --offcpu >$BENCH_TMP/tt.json"
	[ "$PEERS" = 1 ] || continue
	measure "bpftrace syscall counts" $name bg "$BENCH_BT_COUNT"
	measure "perf record -F 99 -a -g" $name bg "perf record -F 99 -a -g -o $BENCH_TMP/perf.data"
	if [ "$name" = getppid ]; then
		measure "bpftrace syscall latency hist" $name bg "$BENCH_BT_LAT"
		measure "perf trace -s" $name wrap "perf trace -s -o /dev/null --"
		measure "strace -c -f" $name wrap "strace -c -f -o /dev/null"
	else
		measure "bpftrace off-CPU stacks" $name bg "$BENCH_BT_OFF"
	fi
done

# threadtop's own cost on a box with 1,000 idle threads, default settings:
# steady state (CPU of the process over IDLE_S seconds after WARM_S seconds
# of start-up: loading BPF, the first pass, kernel symbols), then start-up.
echo
IDLE_S=${IDLE_S:-20}
WARM_S=${WARM_S:-5}
"$BENCH_WL/idle_threads" 1000 $((IDLE_S + WARM_S + 10)) &
idle=$!
sleep 1
$TTB >"$BENCH_TMP/idle.json" &
tt=$!
sleep "$WARM_S"
c0=$(bench_proc_cpu "$tt")
t0=$(date +%s.%N)
sleep "$IDLE_S"
c1=$(bench_proc_cpu "$tt")
t1=$(date +%s.%N)
kill -INT "$tt" 2>/dev/null
wait "$tt" 2>/dev/null
kill "$idle" 2>/dev/null
threads=$(jq -s '[.[].nr_threads] | max' "$BENCH_TMP/idle.json")
awk -v c0="$c0" -v c1="$c1" -v t0="$t0" -v t1="$t1" -v t="$threads" 'BEGIN {
	printf "idle box (%d threads shown), threadtop default, steady %.1f s: %.2f%% of one CPU (start-up before it: %.2f s CPU)\n",
		t, t1 - t0, (c1 - c0) / (t1 - t0) * 100, c0 }'

# The same box under the TUI, the default front end (160x50 tmux pane): it
# queries every thread each second but draws one screen, where batch JSON
# prints every thread.
command -v tmux >/dev/null || { echo "idle box, TUI: skipped (no tmux)"; exit 0; }
"$BENCH_WL/idle_threads" 1000 $((IDLE_S + WARM_S + 10)) &
idle=$!
sleep 1
pct=$(bench_tui_cpu "$TT" "$WARM_S" "$IDLE_S")
kill "$idle" 2>/dev/null
echo "idle box, TUI (default settings), steady ${IDLE_S} s: ${pct}% of one CPU (target 1%)"
