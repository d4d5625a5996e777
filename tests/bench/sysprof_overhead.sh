#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Overhead of threadtop's LuaJIT sysprof at a 10 ms interval, side by side
# with no profiler and with jit.p, on tests/bench/sysprof_workload.lua run
# by Debian's luajit CLI (the library is LD_PRELOADed for the sysprof runs).
# Each round runs every configuration once, in a rotated order; the figure
# is the process CPU time (user + sys), min and median over the rounds (min
# is the least sensitive to other load on a shared machine), and the
# profiler's own CPU time as it measures it ("direct cost").
#
# With -p the configurations of a round run at the same time (one process
# each), so that they share whatever else loads the machine: on a busy box
# this pairs the noise and gives steadier ratios than one after another.
#
# With -c "none sysprof-D" only those configurations run: two of them in
# rotated order are alternating pairs.
#
# usage: tests/bench/sysprof_overhead.sh [-p] [-n ROUNDS] [-s SCALE] [-l LIB] [-c CONFIGS]
#   LIB defaults to build/release/lib/libthreadtop-sysprof.so (cmake --preset
#   release && cmake --build build/release), else build/debug's.
set -u
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
rounds=7
scale=1
lib=""
parallel=0
only=""
while getopts "pn:s:l:c:h" o; do
	case $o in
	p) parallel=1 ;;
	n) rounds=$OPTARG ;;
	s) scale=$OPTARG ;;
	l) lib=$OPTARG ;;
	c) only=$OPTARG ;;
	*) sed -n '2,20p' "$0"; exit 2 ;;
	esac
done
if [ -z "$lib" ]; then
	for b in release debug; do
		if [ -f "$src/build/$b/lib/libthreadtop-sysprof.so" ]; then
			lib="$src/build/$b/lib/libthreadtop-sysprof.so"
			break
		fi
	done
fi
if [ -z "$lib" ] || [ ! -f "$lib" ]; then
	echo "sysprof_overhead: no libthreadtop-sysprof.so: build it (cmake --preset release && cmake --build build/release) or pass -l LIB" >&2
	exit 1
fi
command -v luajit >/dev/null || { echo "sysprof_overhead: luajit not on PATH (Debian package luajit)" >&2; exit 1; }
work="$here/sysprof_workload.lua"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
configs=(none jit.p sysprof-D sysprof-C)
# shellcheck disable=SC2206
[ -n "$only" ] && configs=($only)

run() { # run CONFIG -> prints user+sys seconds
	local TIMEFORMAT="%U %S" t
	case $1 in
	none) t=$( { time BENCH_SCALE=$scale luajit "$work" >/dev/null 2>&1; } 2>&1) ;;
	jit.p) t=$( { time BENCH_SCALE=$scale luajit -jp=f,"$tmp/jp.txt" "$work" >/dev/null 2>&1; } 2>&1) ;;
	sysprof-*) t=$( { time BENCH_SCALE=$scale BENCH_PROF=$1 BENCH_OUT="$tmp/$1.bin" \
		LD_PRELOAD="$lib" luajit "$work" >/dev/null 2>"$tmp/$1.err"; } 2>&1)
		grep "^direct" "$tmp/$1.err" >>"$tmp/direct" ;;
	esac
	echo "$t" | awk '{ printf "%.3f\n", $1 + $2 }'
}

echo "# library: $lib"
echo "# workload: $work (scale $scale), $rounds rounds, interval 10 ms, $(nproc) CPUs"
echo "# mode: $([ $parallel = 1 ] && echo 'configurations of a round in parallel' || echo 'one run at a time, rotated order')"
for ((r = 0; r < rounds; r++)); do
	if [ $parallel = 1 ]; then
		for c in "${configs[@]}"; do
			(echo "$c $(run "$c") $r" >"$tmp/round.$c") &
		done
		wait
		cat "$tmp"/round.* >>"$tmp/results"
		rm -f "$tmp"/round.*
	else
		for ((i = 0; i < ${#configs[@]}; i++)); do
			c=${configs[$(((i + r) % ${#configs[@]}))]}
			echo "$c $(run "$c") $r" >>"$tmp/results"
		done
	fi
done
[ -s "$tmp/sysprof-C.bin" ] && echo "# last sysprof-C stream: $(wc -c <"$tmp/sysprof-C.bin") bytes"
awk -v order="${configs[*]}" '
{ v[$1, ++n[$1]] = $2; t[$1, $3] = $2; rounds[$3] = 1 }
function med(arr, m,   i, j, x) {
	for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++)
		if (arr[j] < arr[i]) { x = arr[i]; arr[i] = arr[j]; arr[j] = x }
	return (m % 2) ? arr[(m + 1) / 2] : (arr[m / 2] + arr[m / 2 + 1]) / 2
}
END {
	split(order, cs, " ")
	printf "%-10s %8s %8s %9s %9s %9s\n", "config", "min_s", "median_s", "ovh_min", "ovh_med", "ovh_pair"
	for (k = 1; k in cs; k++) {
		c = cs[k]; delete a
		for (i = 1; i <= n[c]; i++) a[i] = v[c, i]
		md[c] = med(a, n[c]); mn[c] = a[1]
		delete a; m = 0
		for (r in rounds) if ((c, r) in t && ("none", r) in t) a[++m] = t[c, r] / t["none", r]
		pr[c] = m ? med(a, m) : 0
	}
	for (k = 1; k in cs; k++) {
		c = cs[k]
		printf "%-10s %8.3f %8.3f %+8.1f%% %+8.1f%% %+8.1f%%\n", c, mn[c], md[c],
			100 * (mn[c] / mn["none"] - 1), 100 * (md[c] / md["none"] - 1), 100 * (pr[c] - 1)
	}
	print "# ovh_pair: median over rounds of (config / none) in the same round"
}' "$tmp/results"
# The profiler's own CPU time, measured inside the process (excludes indirect
# costs such as trace exits at safe points, which the table above includes).
awk '{ ns[$2] += $3; cpu[$2] += $4 }
END { for (c in ns) printf "# direct cost %s: %.3f%% of the process CPU time\n", c, 100 * ns[c] / 1e9 / cpu[c] }' \
	"$tmp/direct" | sort
