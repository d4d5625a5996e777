#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The /proc source's cost against thread count: for each N, N idle threads
# (tests/workloads/idle_threads) beside whatever the box runs, then
#   - threadtop --source proc --proc-budget 0 at -F 20: CPU per pass (the
#     pass's own CPU time, batch JSON cost.tick_ms_avg) and what 20 Hz costs
#     in % of one core;
#   - threadtop --source proc at the default budget (5%): the rate it keeps
#     (hz_achieved, hz_target);
#   - the peer, procps `ps -eLo pid,tid,stat,wchan` (stat, status and wchan
#     of every thread, what a /proc sampler has to read), CPU per run, in
#     the same run, as the ratio threadtop pass / ps run.
# Intervals after the first are kept (the first opens every fd). Prints one
# line per N: "proc_cost N threads pass_ms pct_at_20hz hz_kept ps_ms ratio".
#
# usage: sudo tests/bench/proc_cost.sh [BUILD_DIR] [N...]   (default 500 2000 10000)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
build=$src/build/release
if [ $# -gt 0 ] && [ -d "$1" ]; then build=$1 && shift; fi
sizes=${*:-500 2000 10000}
TT=$build/threadtop
[ -x "$TT" ] || { echo "proc_cost: no threadtop in $build: build it first" >&2; exit 1; }
command -v jq >/dev/null || { echo "proc_cost: needs jq" >&2; exit 1; }
wl=
cleanup() { [ -n "$wl" ] && kill "$wl" 2>/dev/null && wait "$wl" 2>/dev/null; }
trap cleanup EXIT
trap 'exit 130' INT TERM

export BENCH_WL=$build/tests/workloads # lib_bench.bash needs it
BENCH_TMP=$(mktemp -d)
. "$here/lib_bench.bash"
med() { bench_median; }
# cpu_s CMD...: CPU seconds (user + system) the command used.
cpu_s() {
	/usr/bin/time -f '%U %S' -o "$tmp" "$@" >/dev/null 2>&1
	awk '{ print $1 + $2 }' "$tmp"
}
tmp=$(mktemp)
for n in $sizes; do
	"$BENCH_WL/idle_threads" "$n" 900 >/dev/null 2>&1 &
	wl=$!
	bench_wait_threads "$wl" $((n + 1)) 180 || echo "proc_cost: only $(awk '/^Threads:/ { print $2 }' /proc/$wl/status) of $n threads" >&2
	out=$("$TT" -b --format json --source proc --proc-budget 0 -n 6 -d 1 2>/dev/null | tail -n +2)
	pass=$(echo "$out" | jq -r '.cost.tick_ms_avg' | med)
	thr=$(echo "$out" | jq -r '.nr_threads' | med)
	kept=$("$TT" -b --format json --source proc -n 6 -d 1 2>/dev/null | tail -n +3 | jq -r '.hz_achieved' | med)
	pss=""
	for _ in 1 2 3; do pss="$pss $(cpu_s ps -eLo pid,tid,stat,wchan)"; done
	ps_ms=$(echo "$pss" | med | awk '{ printf "%.1f", $1 * 1000 }')
	awk -v n="$n" -v t="$thr" -v p="$pass" -v k="$kept" -v q="$ps_ms" 'BEGIN {
		printf "proc_cost %d threads=%d pass_ms=%.2f pct_at_20hz=%.1f hz_kept_at_5pct=%.1f ps_ms=%s ratio=%s\n",
			n, t, p, p * 20 / 10, k, q, (q > 0) ? sprintf("%.2f", p / q) : "n/a" }'
	kill "$wl" 2>/dev/null
	wait "$wl" 2>/dev/null
	wl=
done
rm -rf "$tmp" "$BENCH_TMP"
