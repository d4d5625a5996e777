#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# What labels on CPU stacks cost the samplers: the average run time (BPF
# run-time statistics) of the on-CPU perf_event program (sample_cpu) and of
# --offcpu's sched_switch program (on_switch) on the label_burn workload,
# without --label and with one label whose value changes about 75 times a
# second; alternating runs, each program's median over REPS. Figures, not a
# pass/fail test (the box is shared; absolute ns are noisy). As root:
#
#   tests/bench/labels_cpu_cost.sh [BUILD_DIR]     (default build/release)
#
# Environment: REPS (5), SECS (3): seconds per run, CPU_HZ (999), UNWIND (fp:
# no stack copies, whose cost would hide the lookup's).
set -uo pipefail

BUILD=${1:-build/release}
TT=$BUILD/threadtop
REPS=${REPS:-5}
SECS=${SECS:-3}
CPU_HZ=${CPU_HZ:-999}
UNWIND=${UNWIND:-fp}
[ "$(id -u)" -eq 0 ] || { echo "run as root"; exit 1; }
command -v jq >/dev/null || { echo "needs jq"; exit 1; }
bin=$(readlink -f "$BUILD/tests/workloads/label_burn")
"$bin" 3600 &
wl=$!
tmp=$(mktemp -d)
trap 'kill $wl 2>/dev/null; rm -rf "$tmp"' EXIT
sleep 0.3

# One run: prints "sample_cpu_avg_ns on_switch_avg_ns" of the session's last interval.
run() {
	"$TT" -b --format json --source bpf -p $wl -n "$SECS" -d 1 --offcpu --cpu-hz "$CPU_HZ" \
		--unwind "$UNWIND" --bpf-stats on "$@" 2>"$tmp/err" | tail -n 1 |
		jq -r '[.bpf_stats.sample_cpu.avg_ns // 0, .bpf_stats.on_switch.avg_ns // 0] | @tsv'
}
median() { sort -n | awk '{a[NR] = $1} END {print (NR ? a[int((NR + 1) / 2)] : "-")}'; }

: >"$tmp/off"
: >"$tmp/on"
for _ in $(seq "$REPS"); do
	run >>"$tmp/off"
	run --label "phase=$bin:set_phase:str:arg1" >>"$tmp/on"
done
printf '%-28s %12s %12s\n' "" "sample_cpu" "on_switch"
printf '%-28s %9s ns %9s ns\n' "without --label" "$(cut -f1 "$tmp/off" | median)" \
	"$(cut -f2 "$tmp/off" | median)"
printf '%-28s %9s ns %9s ns\n' "with --label (phase)" "$(cut -f1 "$tmp/on" | median)" \
	"$(cut -f2 "$tmp/on" | median)"
