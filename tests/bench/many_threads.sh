#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Issue #23 item 1: every thread is seen, whatever the count. Starts N idle
# threads (64 KiB stacks) and runs each binary given in batch mode over them
# (-n 3 -d 1, --cpu-hz 0: only the thread sampler): prints per binary the
# workload's threads seen per interval against N + 1, the drops by reason,
# the ticks taken and the mean pass time. Raises kernel.pid_max and
# vm.max_map_count for the run when N needs it (a thread takes a pid and two
# mappings) and puts them back at the end. Not run by CI. As root:
#
#   tests/bench/many_threads.sh BINARY... [-- N (100000)]
set -uo pipefail

BINS=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
	BINS+=("$1")
	shift
done
[ "${1:-}" = "--" ] && shift
N=${1:-100000}
[ ${#BINS[@]} -ge 1 ] || { echo "usage: $0 BINARY... [-- N]" >&2; exit 2; }
BENCH_WL=${BENCH_WL:-$(dirname "$(readlink -f "${BINS[-1]}")")/tests/workloads}
BENCH_TMP=$(mktemp -d)
. "$(dirname "$0")/lib_bench.bash"

WL=
restore() {
	[ -n "$WL" ] && kill "$WL" 2>/dev/null && wait "$WL" 2>/dev/null
	bench_restore_limits
	rm -rf "$BENCH_TMP"
}
trap restore EXIT
bench_raise_limits "$N"
"$BENCH_WL/idle_threads" "$N" 3600 &
WL=$!
bench_wait_threads "$WL" $((N + 1)) 600 || { echo "idle_threads did not start $N threads" >&2; exit 1; }
echo "$N idle threads, load $(cut -d' ' -f1-3 /proc/loadavg)"
for bin in "${BINS[@]}"; do
	"$bin" -b -n 3 -d 1 --format json --cpu-hz 0 --log "$BENCH_TMP/log" >"$BENCH_TMP/out.json" 2>/dev/null
	printf '%s\n  seen: %s(of %d)\n  drops: %s\n  ticks: %s\n  pass ms: %s\n' "$bin" \
		"$(jq -r --argjson wl "$WL" '[.threads[] | select(.pid == $wl)] | length' "$BENCH_TMP/out.json" | tr '\n' ' ')" \
		$((N + 1)) \
		"$(jq -c '.dropped | with_entries(select(.value > 0))' "$BENCH_TMP/out.json" | tr '\n' ' ')" \
		"$(jq -r '.cost.ticks' "$BENCH_TMP/out.json" | tr '\n' ' ')" \
		"$(jq -r '.cost.tick_ms_avg' "$BENCH_TMP/out.json" | tr '\n' ' ')"
	grep -o 'thread maps sized .*' "$BENCH_TMP/log" | sed 's/^/  /'
done
