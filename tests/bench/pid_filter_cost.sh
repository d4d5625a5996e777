#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Issue #21 item 7: -p must never cost more than watching the whole box.
# Beside 2,000 idle threads (idle_threads), threadtop's own CPU (utime +
# stime, which holds the BPF sampler's run time: it runs in threadtop's
# bpf() call) over SECONDS intervals after a warm-up, in batch mode at default
# settings (-F 20, --cpu-hz 0 so that only the thread sampler is measured),
# whole box against -p of the 2,000-thread process and -p of a 4-thread
# one, in alternating runs, for each binary given (e.g. the old one and the
# new one). Prints the median % of one core of each and the ratios -p /
# whole. Not run by CI. As root:
#
#   tests/bench/pid_filter_cost.sh BINARY... [-- ROUNDS (3) SECONDS (10)]
#
# Environment: WARM (3): intervals left out at the start; BENCH_WL.
set -uo pipefail

BINS=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
	BINS+=("$1")
	shift
done
[ "${1:-}" = "--" ] && shift
ROUNDS=${1:-3}
SECS=${2:-10}
WARM=${WARM:-3}
[ ${#BINS[@]} -ge 1 ] || { echo "usage: $0 BINARY... [-- ROUNDS SECONDS]" >&2; exit 2; }
BENCH_WL=${BENCH_WL:-$(dirname "$(readlink -f "${BINS[-1]}")")/tests/workloads}
BENCH_TMP=$(mktemp -d)
. "$(dirname "$0")/lib_bench.bash"
[ -x "$BENCH_WL/idle_threads" ] || { echo "no $BENCH_WL/idle_threads: set BENCH_WL" >&2; exit 2; }

LIFE=$((ROUNDS * ${#BINS[@]} * 3 * (SECS + WARM + 30) + 60))
"$BENCH_WL/idle_threads" 2000 "$LIFE" &
BIG=$!
"$BENCH_WL/idle_threads" 3 "$LIFE" &
SMALL=$!
trap 'kill $BIG $SMALL 2>/dev/null; rm -rf "$BENCH_TMP"' EXIT
bench_wait_threads "$BIG" 2001 || { echo "idle_threads did not start its threads" >&2; exit 1; }
bench_wait_threads "$SMALL" 4 || exit 1

# one_run BINARY ARGS...: % of one core threadtop used over SECS intervals,
# counted from the end of its WARM-th interval (start-up, BPF loading
# included, is left out however long a loaded box makes it).
one_run() {
	local bin=$1 out="$BENCH_TMP/run.out" tt a b t0 t1
	shift
	"$bin" -b -d 1 -n $((WARM + SECS + 1)) --cpu-hz 0 --source bpf "$@" >"$out" 2>/dev/null &
	tt=$!
	until [ "$(grep -c '^threadtop ' "$out")" -ge "$WARM" ] || ! kill -0 "$tt" 2>/dev/null; do
		sleep 0.05
	done
	a=$(awk '{ print $1 }' "/proc/$tt/schedstat") # ns on CPU, not in ticks
	t0=$(date +%s%N)
	until [ "$(grep -c '^threadtop ' "$out")" -ge $((WARM + SECS)) ] ||
		! kill -0 "$tt" 2>/dev/null; do
		sleep 0.05
	done
	b=$(awk '{ print $1 }' "/proc/$tt/schedstat")
	t1=$(date +%s%N)
	wait "$tt"
	awk -v a="$a" -v b="$b" -v t0="$t0" -v t1="$t1" \
		'BEGIN { printf "%.2f\n", (b - a) / (t1 - t0) * 100 }'
}

declare -A whole big small
for r in $(seq "$ROUNDS"); do
	for i in "${!BINS[@]}"; do
		whole[$i]+="$(one_run "${BINS[$i]}") "
		big[$i]+="$(one_run "${BINS[$i]}" -p "$BIG") "
		small[$i]+="$(one_run "${BINS[$i]}" -p "$SMALL") "
	done
done
echo "threadtop's CPU, % of one core, median of $ROUNDS (box: $(ls -d /proc/[0-9]*/task/* 2>/dev/null | wc -l) threads)"
printf "%-44s %8s %10s %10s %9s %9s\n" binary whole "-p 2,000" "-p 4" "2000/box" "4/box"
for i in "${!BINS[@]}"; do
	w=$(echo "${whole[$i]}" | bench_median)
	b=$(echo "${big[$i]}" | bench_median)
	s=$(echo "${small[$i]}" | bench_median)
	printf "%-44s %8s %10s %10s %9s %9s\n" "${BINS[$i]}" "$w" "$b" "$s" "$(bench_ratio "$b" "$w")" \
		"$(bench_ratio "$s" "$w")"
	echo "  runs: whole ${whole[$i]}| -p 2,000 ${big[$i]}| -p 4 ${small[$i]}"
done
