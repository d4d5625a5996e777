#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The BPF thread sampler's own run time per pass (BPF_ENABLE_STATS, batch
# JSON bpf_stats) beside N idle threads, for threadtop binaries in turn:
# what a change to the sampler costs per thread, without the rest of
# threadtop's CPU. Each run is `-b -n 6 -d 1`, intervals 2-6 counted. Not
# run by CI. As root:
#
#   tests/bench/pass_cost.sh BINARY... [-- IDLE_N (10000) ROUNDS (5)]
#
# THREADTOP_TEST_NO_KFUNC=bpf_iter_task_new in the environment times the
# per-task iterator instead of the one-pass sampler.
set -uo pipefail

bins=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do bins+=("$1"); shift; done
[ $# -gt 0 ] && shift
IDLE_N=${1:-10000}
ROUNDS=${2:-5}
[ ${#bins[@]} -ge 1 ] || { echo "usage: $0 BINARY... [-- IDLE_N ROUNDS]" >&2; exit 2; }
BENCH_WL=${BENCH_WL:-$(dirname "$(readlink -f "${bins[-1]}")")/tests/workloads}
BENCH_TMP=$(mktemp -d)
. "$(dirname "$0")/lib_bench.bash"
trap 'bench_restore_limits; kill "$idle" 2>/dev/null; rm -rf "$BENCH_TMP"' EXIT
bench_raise_limits "$IDLE_N"
"$BENCH_WL/idle_threads" "$IDLE_N" 3600 &
idle=$!
bench_wait_threads "$idle" $((IDLE_N + 1)) 600 || { echo "the idle threads did not start" >&2; exit 1; }
echo "$IDLE_N idle threads, load $(cut -d' ' -f1-3 /proc/loadavg)"
for _ in $(seq "$ROUNDS"); do
	for b in "${bins[@]}"; do
		"$b" -b -n 6 -d 1 --format json --bpf-stats on 2>/dev/null | tail -n 5 |
			jq -rs --arg b "$b" --argjson n "$IDLE_N" '
				[.[].bpf_stats | select(.) | to_entries[] |
				 select(.key == "sample_threads" or .key == "sample_tasks") | .value] |
				(map(.run_time_ns) | add) as $t | (map(.run_cnt) | add) as $c |
				if $c > 0 then "\($b)  \($t / $c / 1000 | floor) us a pass, " +
					"\($t / $c / $n * 10 | floor / 10) ns a thread (\($c) passes)"
				else "\($b)  no sampler stats" end'
	done
done
