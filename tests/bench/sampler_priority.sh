#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Issue #21 item 2: does the sampler keep its schedule on a saturated box,
# and what does real-time priority buy? Every CPU saturated by SPIN busy
# threads per CPU at normal priority (spinners); threadtop in batch JSON
# (-F HZ, -p of a 3-thread spin_sleep, --cpu-hz 0) at --sched normal and at
# --sched rr (the default) in alternating runs. Prints, per mode, the median
# over runs of the achieved rate, the share of asked ticks missed, the worst
# interval's rate. The first interval (start-up) of each run is left out. Not run by CI. As root:
#
#   tests/bench/sampler_priority.sh BINARY [ROUNDS (3)] [INTERVALS (8)]
#
# Environment: SPIN (8, busy threads per CPU), HZ (20), BENCH_WL.
set -uo pipefail

BIN=${1:?usage: $0 BINARY [ROUNDS] [INTERVALS]}
ROUNDS=${2:-3}
IVS=${3:-8}
SPIN=${SPIN:-8}
HZ=${HZ:-20}
BENCH_WL=${BENCH_WL:-$(dirname "$(readlink -f "$BIN")")/tests/workloads}
BENCH_TMP=$(mktemp -d)
. "$(dirname "$0")/lib_bench.bash"
command -v jq >/dev/null || { echo "needs jq" >&2; exit 2; }

NCPU=$(nproc)
LIFE=$((ROUNDS * 2 * (IVS + 15) + 60))
"$BENCH_WL/spinners" $((SPIN * NCPU)) "$LIFE" >/dev/null &
LOAD=$!
"$BENCH_WL/spin_sleep" "$LIFE" >/dev/null &
TARGET=$!
trap 'kill $LOAD $TARGET 2>/dev/null; rm -rf "$BENCH_TMP"' EXIT
sleep 1

# one_run MODE: "hz missed_pct worst_hz" of one run.
one_run() {
	local out="$BENCH_TMP/$1.json"
	"$BIN" -b --format json -d 1 -n $((IVS + 1)) -F "$HZ" --cpu-hz 0 --source bpf \
		--sched "$1" -p "$TARGET" >"$out" 2>/dev/null
	# A run that did not start (BPF load refused) gives no figures, not zeros.
	tail -n +2 "$out" | jq -s --argjson hz "$HZ" -r 'if length == 0 then "" else
		(map(.hz_achieved) | add / length) as $got |
		(map(.ticks_missed) | add) as $missed | (map(.ticks) | add) as $ticks |
		"\($got) \(100 * $missed / ($missed + $ticks)) \(map(.hz_achieved) | min)" end'
}

declare -A got missed worst
for r in $(seq "$ROUNDS"); do
	for mode in normal rr; do
		read -r g m w <<<"$(one_run "$mode")"
		got[$mode]+="$g "
		missed[$mode]+="$m "
		worst[$mode]+="$w "
	done
done
echo "-F $HZ beside $((SPIN * NCPU)) busy threads on $NCPU CPUs, median of $ROUNDS runs of $IVS intervals"
printf "%-8s %12s %10s %14s\n" sched "hz_achieved" "missed %" "worst interval"
for mode in normal rr; do
	printf "%-8s %12.2f %10.2f %14.2f\n" "$mode" "$(echo "${got[$mode]}" | bench_median)" \
		"$(echo "${missed[$mode]}" | bench_median)" "$(echo "${worst[$mode]}" | bench_median)"
done
