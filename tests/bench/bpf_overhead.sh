#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# What watching costs: slowdown of a getppid storm and of a pipe ping-pong
# storm under threadtop (default sampling, --syscalls, --offcpu) and under the
# peers (bpftrace counting, latency and off-CPU scripts, perf record -F 99 -a
# -g, perf trace -s, strace -c -f), as the median of PAIRS alternating
# (without tool, with tool) pairs; then threadtop's own CPU with 1,000 idle
# threads at default settings. Not run by CI. As root:
#
#   tests/bench/bpf_overhead.sh [BUILD_DIR]      (default build/release)
#
# Environment: PAIRS (5), GETPPID_N (2000000), PINGPONG_N (100000), SLOW_DIV
# (200: strace and perf trace run storms this many times smaller), PEERS=0 to
# skip the peers. bpftrace and perf trace need tracefs: mounted here if it is
# not, and unmounted at the end.
set -uo pipefail

BUILD=${1:-build/release}
TT=$BUILD/threadtop
WL=$BUILD/tests/workloads
PAIRS=${PAIRS:-5}
N_GP=${GETPPID_N:-2000000}
N_PP=${PINGPONG_N:-100000}
SLOW_DIV=${SLOW_DIV:-200}
PEERS=${PEERS:-1}

[ "$(id -u)" -eq 0 ] || { echo "run as root"; exit 1; }
[ -x "$TT" ] && [ -x "$WL/getppid_loop" ] && [ -x "$WL/pingpong" ] ||
	{ echo "build first: cmake --preset release && cmake --build build/release"; exit 1; }
TMP=$(mktemp -d)
mounted=
cleanup() {
	[ -n "${tool:-}" ] && kill -INT "$tool" 2>/dev/null
	[ -n "$mounted" ] && umount /sys/kernel/tracing
	rm -rf "$TMP"
}
trap cleanup EXIT
if [ "$PEERS" = 1 ] && ! [ -d /sys/kernel/tracing/events ]; then
	mount -t tracefs nodev /sys/kernel/tracing && mounted=1 &&
		echo "(mounted tracefs on /sys/kernel/tracing for bpftrace and perf trace)"
fi
ulimit -l unlimited 2>/dev/null

# storm NAME N: runs the storm, prints the seconds it took (the workload's own clock).
storm() {
	case $1 in
	getppid) "$WL/getppid_loop" "$2" - ;;
	pingpong) "$WL/pingpong" "$2" 0 ;;
	esac
}

# Background tools: started, given time to attach, stopped after the storm.
start_tool() {
	setsid bash -c "$1" >"$TMP/tool.out" 2>&1 &
	tool=$!
	local i
	for i in $(seq 100); do
		sleep 0.1
		# bpftrace says when it is attached; the others get a fixed 1.5 s.
		case $1 in
		bpftrace*) grep -q "^Attaching" "$TMP/tool.out" && break ;;
		*) [ "$i" -ge 15 ] && break ;;
		esac
	done
	sleep 0.3
}
stop_tool() {
	kill -INT -- "-$tool" 2>/dev/null
	wait "$tool" 2>/dev/null
	tool=
}

median() {
	tr ' ' '\n' | grep . | sort -g | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}

# measure LABEL STORM N MODE CMD: MODE bg (tool runs beside the storm) or wrap
# (CMD prefixes the storm command).
measure() {
	local label=$1 name=$2 n=$3 mode=$4 cmd=$5 ratios="" base with
	for _ in $(seq "$PAIRS"); do
		base=$(storm "$name" "$n")
		if [ "$mode" = bg ]; then
			start_tool "$cmd"
			with=$(storm "$name" "$n")
			stop_tool
		else
			case $name in
			getppid) with=$($cmd "$WL/getppid_loop" "$n" - 2>/dev/null | tail -n 1) ;;
			pingpong) with=$($cmd "$WL/pingpong" "$n" 0 2>/dev/null | tail -n 1) ;;
			esac
		fi
		ratios="$ratios $(awk -v a="$with" -v b="$base" 'BEGIN { printf "%.3f", a / b }')"
	done
	printf "%-9s %-34s %8sx   (pairs:%s; storm %s calls, base %.3f s)\n" "$name" "$label" \
		"$(echo "$ratios" | median)" "$ratios" "$n" "$base"
}

TTB="$TT -b --format json -d 1 --source bpf"
BT_COUNT='bpftrace -e "tracepoint:raw_syscalls:sys_enter { @[args->id] = count(); }"'
BT_LAT='bpftrace -e "tracepoint:raw_syscalls:sys_enter { @s[tid] = nsecs; } tracepoint:raw_syscalls:sys_exit /@s[tid]/ { @[args->id] = hist(nsecs - @s[tid]); delete(@s[tid]); }"'
BT_OFF='bpftrace -e "tracepoint:sched:sched_switch { @t[args->prev_pid] = nsecs; @k[args->prev_pid] = kstack; \$s = @t[args->next_pid]; if (\$s) { @off[@k[args->next_pid], args->next_comm] = sum(nsecs - \$s); delete(@t[args->next_pid]); delete(@k[args->next_pid]); } }"'

echo "threadtop $("$TT" -V | awk '{print $2}') on $(uname -r), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "median of $PAIRS alternating pairs; ratio = storm time with the tool / without"
echo
for name in getppid pingpong; do
	n=$N_GP
	[ "$name" = pingpong ] && n=$N_PP
	measure "threadtop (default: 20 Hz + 99 Hz)" $name "$n" bg "$TTB >/dev/null"
	measure "threadtop --syscalls" $name "$n" bg "$TTB --syscalls >/dev/null"
	measure "threadtop --offcpu" $name "$n" bg "$TTB --offcpu >/dev/null"
	[ "$PEERS" = 1 ] || continue
	measure "bpftrace syscall counts" $name "$n" bg "$BT_COUNT"
	if [ "$name" = getppid ]; then
		measure "bpftrace syscall latency hist" $name "$n" bg "$BT_LAT"
		measure "perf record -F 99 -a -g" $name "$n" bg "perf record -F 99 -a -g -o $TMP/perf.data"
		measure "perf trace -s" $name $((n / SLOW_DIV)) wrap "perf trace -s -o /dev/null --"
		measure "strace -c -f" $name $((n / SLOW_DIV)) wrap "strace -c -f -o /dev/null"
	else
		measure "bpftrace off-CPU stacks" $name "$n" bg "$BT_OFF"
		measure "perf record -F 99 -a -g" $name "$n" bg "perf record -F 99 -a -g -o $TMP/perf.data"
	fi
done

# threadtop's own cost on a box with 1,000 idle threads, default settings.
echo
"$WL/idle_threads" 1000 40 &
idle=$!
sleep 1
TIMEFORMAT="%R %U %S"
{ time $TTB -n 10 >"$TMP/idle.json"; } 2>"$TMP/idle.time"
kill "$idle" 2>/dev/null
read -r real user sys <"$TMP/idle.time"
bpf_ns=$(jq -s '[.[].bpf_stats | to_entries[].value.run_time_ns] | add' "$TMP/idle.json")
threads=$(jq -s '[.[].nr_threads] | max' "$TMP/idle.json")
awk -v r="$real" -v u="$user" -v s="$sys" -v b="$bpf_ns" -v t="$threads" 'BEGIN {
	printf "idle box (%d threads shown), threadtop default for %.1f s: %.2f%% of one CPU (user %.2f s, sys %.2f s, BPF programs %.2f%% of one CPU, part of sys)\n",
		t, r, (u + s) / r * 100, u, s, b / 1e9 / r * 100 }'
