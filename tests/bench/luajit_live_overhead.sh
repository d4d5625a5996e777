#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# What libthreadtop-sysprof.so costs a LuaJIT program when no threadtop is
# attached: tests/bench/sysprof_workload.lua run by Debian's luajit CLI
# without the library and with it LD_PRELOADed (the library then installs
# misc.sysprof and its watcher timer, and probes nothing). Each round runs
# both once, in alternating order; the figure is the process CPU time (user +
# sys), min and median over the rounds, and their ratio. Not a timed test.
#
# usage: tests/bench/luajit_live_overhead.sh [-n ROUNDS] [-s SCALE] [-l LIB]
#   SCALE multiplies the workload's size (default 1)
set -u
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
rounds=9
scale=1
lib=""
while getopts "n:s:l:h" o; do
	case $o in
	n) rounds=$OPTARG ;;
	s) scale=$OPTARG ;;
	l) lib=$OPTARG ;;
	*)
		sed -n '3,12p' "$0"
		exit 2
		;;
	esac
done
if [ -z "$lib" ]; then
	for b in release debug; do
		[ -f "$src/build/$b/lib/libthreadtop-sysprof.so" ] &&
			lib=$src/build/$b/lib/libthreadtop-sysprof.so && break
	done
fi
[ -f "$lib" ] || { echo "no libthreadtop-sysprof.so (build first, or -l LIB)"; exit 2; }
command -v luajit >/dev/null || { echo "luajit is not installed"; exit 2; }
wl=$here/sysprof_workload.lua
export BENCH_SCALE=$scale

cpu() { # prints the CPU seconds (user + sys) of one run of "$@"
	local f
	f=$(mktemp)
	/usr/bin/time -o "$f" -f "%U %S" "$@" >/dev/null 2>&1
	awk '{ printf "%.3f\n", $1 + $2 }' "$f"
	rm -f "$f"
}

plain=()
pre=()
for ((i = 0; i < rounds; i++)); do
	if ((i % 2)); then
		pre+=("$(cpu env LD_PRELOAD="$lib" luajit "$wl")")
		plain+=("$(cpu luajit "$wl")")
	else
		plain+=("$(cpu luajit "$wl")")
		pre+=("$(cpu env LD_PRELOAD="$lib" luajit "$wl")")
	fi
done
stats() { printf '%s\n' "$@" | sort -n | awk '{ a[NR] = $1 } END { printf "%s %s", a[1], a[int((NR + 1) / 2)] }'; }
read -r pmin pmed <<<"$(stats "${plain[@]}")"
read -r lmin lmed <<<"$(stats "${pre[@]}")"
printf '%-28s %8s %8s\n' "luajit $(basename "$wl")" "min s" "median s"
printf '%-28s %8s %8s\n' "no library" "$pmin" "$pmed"
printf '%-28s %8s %8s\n' "preloaded, not attached" "$lmin" "$lmed"
awk -v a="$pmin" -v b="$lmin" -v c="$pmed" -v d="$lmed" \
	'BEGIN { printf "ratio (preloaded / none)     %8.3f %8.3f\n", b / a, d / c }'
