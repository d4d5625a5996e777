#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# What the agentless LuaJIT unwinder (bpf/ljvm.bpf.c) costs, in alternating
# pairs of threadtop runs without it (THREADTOP_NO_LJVM=1) and with it:
#  - per sample: sample_cpu's average run time (--bpf-stats; the unwinder is
#    tail-called, so its time is counted there) with -p on a LuaJIT process
#    running tests/luajit/workloads/shares.lua, JIT on;
#  - the slowdown: the CPU time (user + sys) of tests/bench/sysprof_workload.lua
#    run by Debian's luajit while threadtop samples the box at 99 Hz, and
#    without threadtop at all (what on-CPU sampling with the unwinder costs
#    the process in all: issue 28's 1% budget).
#  - twins (-t): two copies of the workload at once, each pinned to its own
#    CPU, one of them sampled (threadtop -p) and the other not; CPUs and
#    roles swap each pair. Both copies live through the same moments of a
#    shared host, whose speed drifts by 10-30% between runs a few seconds
#    apart, and to one another by up to 10%. -f HZ samples at HZ instead of
#    99: at 100 times the rate the slowdown is 100 times as large and shows
#    through that noise; divided by the factor, it is the cost at 99 Hz.
# Prints each pair and the medians. Needs root and a built release tree.
#
# usage: tests/bench/ljvm_cost.sh [-n PAIRS] [-s SCALE] [-b THREADTOP] [-t [-f HZ]]
#   SCALE multiplies the workload's size (default 4: about 3 s of CPU)
set -u
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
pairs=7
bin=$src/build/release/threadtop
export BENCH_SCALE=4
twins=0 hz=99
while getopts "n:s:b:tf:h" o; do
	case $o in
	f) hz=$OPTARG ;;
	t) twins=1 ;;
	n) pairs=$OPTARG ;;
	s) BENCH_SCALE=$OPTARG ;;
	b) bin=$OPTARG ;;
	*)
		sed -n '3,22p' "$0"
		exit 2
		;;
	esac
done
command -v luajit >/dev/null || { echo "luajit is not installed"; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# per_sample OFF: sample_cpu's ns per run over 4 s of a LuaJIT process.
per_sample() {
	local lj
	luajit "$src/tests/luajit/workloads/shares.lua" 30 /dev/null &
	lj=$!
	sleep 0.3
	THREADTOP_NO_LJVM=$1 "$bin" -b --format json -d 1 -n 5 -p "$lj" --bpf-stats on \
		>"$tmp/ps.json" 2>/dev/null
	kill "$lj" 2>/dev/null
	wait "$lj" 2>/dev/null
	jq -s '[.[1:][].bpf_stats.sample_cpu] | ([.[].run_time_ns] | add) / ([.[].run_cnt] | add) | floor' \
		"$tmp/ps.json"
}

# slowdown OFF: the CPU seconds of the workload while threadtop runs.
slowdown() {
	local tt f=$tmp/time
	THREADTOP_NO_LJVM=$1 "$bin" -b --format json -d 1 -n 100000 >"$tmp/sd.json" 2>/dev/null &
	tt=$!
	until [ -s "$tmp/sd.json" ]; do sleep 0.1; done
	/usr/bin/time -o "$f" -f "%U %S" luajit "$here/sysprof_workload.lua" >/dev/null 2>&1
	kill -INT "$tt"
	wait "$tt" 2>/dev/null
	awk '{ printf "%.3f\n", $1 + $2 }' "$f"
}

# alone: the workload's CPU seconds with no threadtop running.
alone() {
	local f=$tmp/time
	/usr/bin/time -o "$f" -f "%U %S" luajit "$here/sysprof_workload.lua" >/dev/null 2>&1
	awk '{ printf "%.3f\n", $1 + $2 }' "$f"
}

# twin CPU_OF_SAMPLED: prints the sampled copy's and the other's CPU seconds.
twin() {
	local go=$tmp/go pids=() p s tt
	rm -f "$go"
	for c in 0 1; do
		taskset -c "$c" /usr/bin/time -o "$tmp/twin$c" -f "%U %S" \
			sh -c 'while [ ! -e "$1" ]; do sleep 0.01; done; exec luajit "$2"' \
			_ "$go" "$here/sysprof_workload.lua" >/dev/null 2>&1 &
		pids+=($!)
	done
	sleep 0.3
	s=$(pgrep -P "${pids[$1]}") # the shell that becomes the sampled luajit
	"$bin" -b --format json -d 1 -n 100000 --cpu-hz "$hz" -p "$s" >"$tmp/tw.json" 2>/dev/null &
	tt=$!
	until [ -s "$tmp/tw.json" ]; do sleep 0.1; done
	touch "$go"
	for p in "${pids[@]}"; do wait "$p"; done
	kill -INT "$tt"
	wait "$tt" 2>/dev/null
	awk '{ printf "%.3f ", $1 + $2 }' "$tmp/twin$1" "$tmp/twin$((1 - $1))"
	echo
}

med() { printf '%s\n' "$@" | sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
if [ "$twins" = 1 ]; then
	ratios=()
	for ((i = 0; i < pairs; i++)); do
		read -r s0 o0 <<<"$(twin $((i % 2)))"
		r=$(awk -v x="$o0" -v y="$s0" 'BEGIN { printf "%.4f", y / x }')
		ratios+=("$r")
		echo "twin $i: sampled at $hz Hz on CPU $((i % 2)) $s0 s, the other $o0 s: $r"
	done
	set -- sampled/other "${ratios[@]}"
else
ps_off=() ps_on=() ratio_ps=() sd_off=() sd_on=() ratio_sd=() sd_none=() ratio_none=()
for ((i = 0; i < pairs; i++)); do
	if ((i % 2)); then
		b=$(per_sample 0) a=$(per_sample 1) d=$(slowdown 0) c=$(slowdown 1) e=$(alone)
	else
		e=$(alone) a=$(per_sample 1) b=$(per_sample 0) c=$(slowdown 1) d=$(slowdown 0)
	fi
	ps_off+=("$a") ps_on+=("$b") sd_off+=("$c") sd_on+=("$d") sd_none+=("$e")
	ratio_sd+=("$(awk -v x="$c" -v y="$d" 'BEGIN { printf "%.4f", y / x }')")
	ratio_none+=("$(awk -v x="$e" -v y="$d" 'BEGIN { printf "%.4f", y / x }')")
	echo "pair $i: sample_cpu ns/run off $a on $b; workload CPU s off $c on $d, alone $e"
done
echo "median sample_cpu ns/run: off $(med "${ps_off[@]}") on $(med "${ps_on[@]}")"
echo "median workload CPU s: off $(med "${sd_off[@]}") on $(med "${sd_on[@]}")" \
	"alone $(med "${sd_none[@]}"); median pair ratio on/off $(med "${ratio_sd[@]}")," \
	"on/alone $(med "${ratio_none[@]}")"
	set -- on/alone "${ratio_none[@]}"
fi
# How far the median pair ratio can be trusted: a 90% bootstrap interval
# (2,000 resamples of the pairs). The issue's 1% is shown only when the
# interval's top is under 1.01.
python3 - "$@" <<'PY'
import random, statistics, sys
r = [float(x) for x in sys.argv[2:]]
random.seed(1)
meds = sorted(statistics.median(random.choices(r, k=len(r))) for _ in range(2000))
print(f"{sys.argv[1]} median {statistics.median(r):.4f}, 90% bootstrap interval "
      f"{meds[100]:.4f}..{meds[1899]:.4f} over {len(r)} pairs")
PY
