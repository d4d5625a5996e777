#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# threadtop beside its peers as the box's idle threads grow: at each size,
# in the same run, each tool alone for SECS seconds after its start-up, and
# its own CPU (utime + stime, % of one core) and RSS at the window's end:
#   threadtop  the TUI, default settings (20 Hz threads, 99 Hz on-CPU), in a
#              160x50 tmux pane;
#   htop       the TUI refreshing once a second (htop -d 10), threads shown,
#              a fresh configuration;
#   top        top -H -b -d 1 (every thread each second) to /dev/null;
#   perf       perf record -F 99 -a -g (what perf costs to sample the box).
# Then per tool the least-squares line (a fixed cost plus a cost per 1,000
# threads, with R2), the log-log exponent b of y ~ x^b, and the line's
# projection to 1,000,000 threads. Tools a box lacks are installed with
# apt-get (this is not CI). Not a timed test: figures to read as ratios of
# tools measured minutes apart on the same box. Root only.
#
# usage: sudo tests/bench/scaling_peers.sh [--rows FILE] [BUILD_DIR]
#   --rows FILE  also append the rows of run_all.sh's scaling table to FILE
# Environment: SIZES ("100 1000 10000 100000"), SECS (20), TOOLS
# ("threadtop htop top perf"). threadtop's start-up takes 10 s plus a second
# per 1,000 threads (the new threads' first stacks, 64 a pass), so at 100,000
# its window opens after 110 s. Past what kernel.pid_max and
# vm.max_map_count allow, they are raised for the run and put back.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
rows_out=
build=$src/build/release
while [ $# -gt 0 ]; do
	case $1 in
	--rows) rows_out=$2 && shift ;;
	-h | --help) sed -n '3,25p' "$0" && exit 0 ;;
	-*) echo "scaling_peers: unknown option $1 (see --help)" >&2 && exit 2 ;;
	*) build=$1 ;;
	esac
	shift
done
[ "$(id -u)" -eq 0 ] || { echo "scaling_peers: needs root (BPF, perf): run it with sudo" >&2; exit 1; }
build=$(cd "$build" && pwd)
TT=$build/threadtop
BENCH_WL=$build/tests/workloads
[ -x "$TT" ] && [ -x "$BENCH_WL/idle_threads" ] ||
	{ echo "scaling_peers: no threadtop or idle_threads in $build: build the release preset first" >&2; exit 1; }
SIZES=${SIZES:-100 1000 10000 100000}
SECS=${SECS:-20}
TOOLS=${TOOLS:-threadtop htop top perf}
BENCH_TMP=$(mktemp -d)
. "$here/lib_bench.bash"
log() { echo "[$(date +%T)] $*" >&2; }

for p in htop:htop top:procps perf:linux-perf tmux:tmux; do
	command -v "${p%%:*}" >/dev/null || apt-get install -y "${p#*:}" >/dev/null 2>&1 ||
		log "${p%%:*} missing and apt-get install ${p#*:} failed: its cells say n/a"
done
max=0
for n in $SIZES; do ((n > max)) && max=$n; done
idle=
cleanup() {
	[ -n "$idle" ] && kill "$idle" 2>/dev/null
	tmux -S "$BENCH_TMP/tmux.sock" kill-server 2>/dev/null
	bench_tool_stop
	bench_restore_limits
	rm -rf "$BENCH_TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
bench_raise_limits "$max" >&2

# measure TOOL N: starts TOOL, waits its start-up, prints "CPU% RSS_MB" over SECS.
measure() {
	local tool=$1 n=$2 pid warm c0 c1 t0 t1 rss sock=$BENCH_TMP/tmux.sock
	case $tool in
	threadtop)
		warm=$((10 + n / 1000))
		tmux -S "$sock" new-session -d -x 160 -y 50 "exec $TT --source bpf"
		;;
	htop)
		warm=$((5 + n / 10000))
		mkdir -p "$BENCH_TMP/home"
		tmux -S "$sock" new-session -d -x 160 -y 50 "HOME=$BENCH_TMP/home exec htop -d 10"
		;;
	top)
		warm=$((5 + n / 10000))
		bench_tool_start "top -H -b -d 1 >/dev/null"
		;;
	perf)
		warm=$((5 + n / 10000))
		bench_tool_start "perf record -q -F 99 -a -g -o $BENCH_TMP/perf.data"
		;;
	esac
	case $tool in
	threadtop | htop) sleep 0.5 && pid=$(tmux -S "$sock" list-panes -F '#{pane_pid}' 2>/dev/null) ;;
	*) pid=$BENCH_TOOL ;;
	esac
	sleep "$warm"
	c0=$(bench_proc_cpu "$pid")
	t0=$(date +%s.%N)
	sleep "$SECS"
	c1=$(bench_proc_cpu "$pid")
	t1=$(date +%s.%N)
	rss=$(awk '/^VmRSS:/ { printf "%.0f", $2 / 1024 }' "/proc/$pid/status" 2>/dev/null)
	case $tool in
	threadtop | htop) tmux -S "$sock" kill-server 2>/dev/null ;;
	*) bench_tool_stop ;;
	esac
	rm -f "$BENCH_TMP/perf.data"
	if [ -z "$c0" ] || [ -z "$c1" ]; then
		echo "n/a n/a"
		return
	fi
	awk -v a="$c0" -v b="$c1" -v s="$t0" -v e="$t1" -v m="${rss:-n/a}" \
		'BEGIN { printf "%.2f %s\n", (b - a) / (e - s) * 100, m }'
}

declare -A CPU MB
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
for n in $SIZES; do
	"$BENCH_WL/idle_threads" "$n" 100000 >/dev/null 2>&1 &
	idle=$!
	bench_wait_threads "$idle" $((n + 1)) 600 || log "idle_threads: fewer than $n threads"
	sleep 5 # the load of starting them passes
	for tool in $TOOLS; do
		read -r CPU[$tool.$n] MB[$tool.$n] <<<"$(measure "$tool" "$n")"
		log "$n idle threads: $tool ${CPU[$tool.$n]}% of a core, ${MB[$tool.$n]} MB"
	done
	kill "$idle" 2>/dev/null
	wait "$idle" 2>/dev/null
	idle=
	sleep $((n >= 50000 ? 30 : 2)) # the kernel takes the threads down
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)" >&2

# The table: a row per tool, its figures at each size, its line and projection.
echo "| tool | idle threads | CPU, % of a core | RSS, MB | growth | 1,000,000 threads |"
echo "| --- | --- | --- | --- | --- | --- |"
for tool in $TOOLS; do
	cpus="" mbs="" ns=""
	for n in $SIZES; do
		cpus="$cpus ${CPU[$tool.$n]}"
		mbs="$mbs ${MB[$tool.$n]}"
		ns="$ns $n"
	done
	read -r ca cc cr <<<"$(bench_linfit "$ns" "$cpus")"
	read -r ma mc mr <<<"$(bench_linfit "$ns" "$mbs")"
	growth=$(awk -v a="$ca" -v c="$cc" -v r="$cr" -v ma="$ma" -v mc="$mc" -v mr="$mr" 'BEGIN {
		printf "CPU %.2f%% + %.3f%% per 1,000 threads (R2 %.2f); RSS %.0f MB + %.2f MB per 1,000 (R2 %.2f)", a, c * 1000, r, ma, mc * 1000, mr }')
	growth="$growth; log-log: CPU $(bench_fit "$ns" "$cpus"), RSS $(bench_fit "$ns" "$mbs")"
	proj=$(awk -v a="$ca" -v c="$cc" -v ma="$ma" -v mc="$mc" 'BEGIN {
		printf "~%.0f%% of a core, ~%.0f MB", a + c * 1e6, ma + mc * 1e6 }')
	echo "| $tool | ${ns# } | ${cpus# } | ${mbs# } | $growth | $proj |"
	if [ -n "$rows_out" ]; then
		printf 'idle threads, %s (live, default settings)\t%s\t%s\t%s\t%s\t%s\n' \
			"$tool" "${ns# }" "${cpus# }" "${mbs# }" "$growth" "1,000,000 threads: $proj" >>"$rows_out"
	fi
done
