#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Issue #21 item 7: -p must never cost more than watching the whole box.
# Beside 2,000 idle threads (idle_threads), threadtop's own CPU (utime +
# stime, which holds the BPF sampler's run time: it runs in threadtop's
# bpf() call) over SECONDS after a warm-up, in batch mode at default
# settings (-F 20, --cpu-hz 0 so that only the thread sampler is measured),
# whole box against -p of the 2,000-thread process and -p of a 4-thread
# one, in alternating runs, for each binary given (e.g. the old one and the
# new one). Prints the median % of one core of each and the ratios -p /
# whole. Not run by CI. As root:
#
#   tests/bench/pid_filter_cost.sh BINARY... [-- ROUNDS (3) SECONDS (10)]
#
# Environment: WARM_S (10): start-up (BPF loading: seconds on a loaded box)
# left out of each window; BENCH_WL.
set -uo pipefail

BINS=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
	BINS+=("$1")
	shift
done
[ "${1:-}" = "--" ] && shift
ROUNDS=${1:-3}
SECS=${2:-10}
WARM_S=${WARM_S:-10}
[ ${#BINS[@]} -ge 1 ] || { echo "usage: $0 BINARY... [-- ROUNDS SECONDS]" >&2; exit 2; }
BENCH_WL=${BENCH_WL:-$(dirname "$(readlink -f "${BINS[-1]}")")/tests/workloads}
BENCH_TMP=$(mktemp -d)
. "$(dirname "$0")/lib_bench.bash"
[ -x "$BENCH_WL/idle_threads" ] || { echo "no $BENCH_WL/idle_threads: set BENCH_WL" >&2; exit 2; }

LIFE=$((ROUNDS * ${#BINS[@]} * 2 * (SECS + WARM_S + 5) + 60))
"$BENCH_WL/idle_threads" 2000 "$LIFE" &
BIG=$!
"$BENCH_WL/idle_threads" 3 "$LIFE" &
SMALL=$!
trap 'kill $BIG $SMALL 2>/dev/null; rm -rf "$BENCH_TMP"' EXIT
bench_wait_threads "$BIG" 2001 || { echo "idle_threads did not start its threads" >&2; exit 1; }
bench_wait_threads "$SMALL" 4 || exit 1

# one_run BINARY ARGS...: % of one core threadtop used over SECS after WARM_S.
one_run() {
	local bin=$1 tt a b
	shift
	"$bin" -b -d 1 --cpu-hz 0 --source bpf "$@" >/dev/null 2>&1 &
	tt=$!
	sleep "$WARM_S"
	a=$(awk '{ print $1 }' "/proc/$tt/schedstat") # ns on CPU, not in ticks
	sleep "$SECS"
	b=$(awk '{ print $1 }' "/proc/$tt/schedstat")
	kill -INT "$tt" 2>/dev/null
	wait "$tt" 2>/dev/null
	awk -v a="$a" -v b="$b" -v s="$SECS" 'BEGIN { printf "%.2f\n", (b - a) / 1e9 / s * 100 }'
}

declare -A whole big small
for r in $(seq "$ROUNDS"); do
	for i in "${!BINS[@]}"; do
		whole[$i]+="$(one_run "${BINS[$i]}") "
		big[$i]+="$(one_run "${BINS[$i]}" -p "$BIG") "
		small[$i]+="$(one_run "${BINS[$i]}" -p "$SMALL") "
	done
done
echo "threadtop's CPU, % of one core, median of $ROUNDS (box: $(ls -d /proc/[0-9]*/task/* | wc -l) threads)"
printf "%-44s %8s %10s %10s %9s %9s\n" binary whole "-p 2,000" "-p 4" "2000/box" "4/box"
for i in "${!BINS[@]}"; do
	w=$(echo "${whole[$i]}" | bench_median)
	b=$(echo "${big[$i]}" | bench_median)
	s=$(echo "${small[$i]}" | bench_median)
	printf "%-44s %8s %10s %10s %9s %9s\n" "${BINS[$i]}" "$w" "$b" "$s" "$(bench_ratio "$b" "$w")" \
		"$(bench_ratio "$s" "$w")"
	echo "  runs: whole ${whole[$i]}| -p 2,000 ${big[$i]}| -p 4 ${small[$i]}"
done
