#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# What --io costs the I/O it watches (issue #30 item 2): the mean time of a
# random 4 KiB O_DIRECT read of a loop device (tests/workloads/direct_reads:
# one read at a time, real-time on a CPU kept busy, READS reads a run),
# without threadtop, under threadtop at its defaults, and under threadtop
# --io, in alternating triples; the medians of the per-triple ratios. Then
# the direct cost, which the VM's noise does not move: the run time of
# --io's two programs (BPF_ENABLE_STATS) per read, against a read's time. The
# loop device is backed by a file in a scratch directory (losetup
# --direct-io=on), so each read is a request to the loop device and one to
# the disk under it: --io traces both. Not run by CI. As root:
#
#   tests/bench/io_cost.sh [BUILD_DIR]      (default build/release)
#
# Environment: TRIPLES (7), READS (20000).
set -uo pipefail

BUILD=${1:-build/release}
TT=$BUILD/threadtop
TRIPLES=${TRIPLES:-7}
READS=${READS:-20000}
BENCH_WL=$BUILD/tests/workloads
. "$(dirname "$0")/lib_bench.bash"

[ "$(id -u)" -eq 0 ] || { echo "run as root"; exit 1; }
[ -x "$TT" ] && [ -x "$BENCH_WL/direct_reads" ] ||
	{ echo "build first: cmake --preset release && cmake --build build/release"; exit 1; }
BENCH_TMP=$(mktemp -d)
loop=
cleanup() {
	bench_tool_stop
	[ -n "$loop" ] && losetup -d "$loop"
	rm -rf "$BENCH_TMP"
}
trap cleanup EXIT
dd if=/dev/zero of="$BENCH_TMP/backing.img" bs=1M count=64 oflag=direct status=none ||
	exit 1
loop=$(losetup -f --show --direct-io=on "$BENCH_TMP/backing.img") || exit 1

# one_run: the mean ns of READS reads (the workload's own timing).
one_run() {
	local out=$BENCH_TMP/wl.out wl
	"$BENCH_WL/direct_reads" "$loop" 0 "$READS" rt >"$out" 2>&1 &
	wl=$!
	until grep -q '^ready$' "$out"; do sleep 0.05; done
	kill -USR1 "$wl"
	until grep -q '^done ' "$out"; do sleep 0.05; done
	kill "$wl"
	wait "$wl" 2>/dev/null
	awk '/^done / { printf "%.0f\n", $3 / $2 }' "$out"
}

plain="" def="" io="" r_def="" r_io="" r_io_def=""
for t in $(seq "$TRIPLES"); do
	a=$(one_run)
	bench_tool_start "$TT -b --format json -d 1 -n 100000"
	b=$(one_run)
	bench_tool_stop
	bench_tool_start "$TT -b --format json -d 1 -n 100000 --io"
	c=$(one_run)
	bench_tool_stop
	echo "triple $t: mean ns per read: none $a, threadtop $b, threadtop --io $c"
	plain+="$a " def+="$b " io+="$c "
	r_def+="$(bench_ratio "$b" "$a") "
	r_io+="$(bench_ratio "$c" "$a") "
	r_io_def+="$(bench_ratio "$c" "$b") "
done
echo "median ns per read: none $(bench_median <<<"$plain"), threadtop $(bench_median <<<"$def")," \
	"threadtop --io $(bench_median <<<"$io")"
echo "slowdown (median of $TRIPLES triples): threadtop $(bench_median <<<"$r_def")x," \
	"threadtop --io $(bench_median <<<"$r_io")x, --io over threadtop $(bench_median <<<"$r_io_def")x"

# The direct cost: --io's programs' mean run time (BPF_ENABLE_STATS, every
# request of the box in that window) times the two requests of each read (the
# loop device's and the disk's under it: an issue and a completion each).
bench_tool_start "$TT -b --format json -d 1 -n 100000 --io --bpf-stats on --cpu-hz 0"
d=$(one_run)
bench_tool_stop
grep '^{' "$BENCH_TMP/tool.out" | jq -rs --argjson mean "$d" '
	[.[].bpf_stats // {} | to_entries[] | select(.key | test("^io_"))]
	| group_by(.key) | map({key: .[0].key, n: (map(.value.run_cnt) | add),
		ns: (map(.value.run_time_ns) | add)} | .avg = (if .n > 0 then .ns / .n else 0 end))
	| (map(.avg) | add * 2) as $per_read
	| "direct cost: " + (map("\(.key) \(.n) runs, \(.avg | floor) ns each") | join("; "))
	  + "; \($per_read | floor) ns per read (2 requests) of \($mean) ns: "
	  + "\($per_read / $mean * 10000 | floor / 100)%"'
