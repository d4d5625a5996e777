#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Start-up of the TUI as a user sees it: starts threadtop in a private tmux
# server and polls the screen every 10 ms, printing the milliseconds from
# the start to the first paint (anything on the screen) and to the first
# data row (a PID TID line of the Threads pane). With --saturate, every CPU
# runs two busy threads at normal priority first (the sick box of #21).
# Prints "first_paint_ms first_data_ms" per run, then the medians.
#
# usage: sudo tests/bench/startup.sh [--saturate] [--runs N] [--source S] [BUILD_DIR]
#   --runs N    runs (default 3); the medians are printed last
#   --source S  auto (default), bpf or proc
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
build=$src/build/release
saturate=0 runs=3 source=auto
while [ $# -gt 0 ]; do
	case $1 in
	--saturate) saturate=1 ;;
	--runs) runs=$2 && shift ;;
	--source) source=$2 && shift ;;
	-h | --help) sed -n '3,13p' "$0" && exit 0 ;;
	-*) echo "startup: unknown option $1 (see --help)" >&2 && exit 2 ;;
	*) build=$1 ;;
	esac
	shift
done
TT=$build/threadtop
[ -x "$TT" ] || { echo "startup: no threadtop in $build: build it first" >&2; exit 1; }
command -v tmux >/dev/null || { echo "startup: needs tmux" >&2; exit 1; }
S=tt_startup_$$
busy=
cleanup() {
	tmux -L "$S" kill-server 2>/dev/null
	[ -n "$busy" ] && kill "$busy" 2>/dev/null && wait "$busy" 2>/dev/null
}
trap cleanup EXIT
trap 'exit 130' INT TERM
if [ $saturate = 1 ]; then
	"$build/tests/workloads/spinners" $(($(nproc) * 2)) 600 >/dev/null 2>&1 &
	busy=$!
	sleep 1
fi

now_ms() { date +%s%3N; }
paints="" datas=""
for ((r = 0; r < runs; r++)); do
	tmux -L "$S" kill-server 2>/dev/null
	S=tt_startup_$$_$r # a fresh server: one going away cannot take a session
	t0=$(now_ms)
	tmux -L "$S" new-session -d -s "$S" -x 120 -y 40 "$TT --source $source"
	paint="" data=""
	while [ $(($(now_ms) - t0)) -lt 30000 ]; do
		scr=$(tmux -L "$S" capture-pane -t "$S" -p 2>/dev/null)
		[ -z "$paint" ] && [ -n "$(echo "$scr" | tr -d ' \n')" ] && paint=$(($(now_ms) - t0))
		if echo "$scr" | grep -Eq '^ +[0-9]+ +[0-9]+ +[^ ]'; then
			data=$(($(now_ms) - t0))
			break
		fi
		sleep 0.01
	done
	echo "run $((r + 1)): first paint ${paint:-n/a} ms, first data ${data:-n/a} ms"
	paints="$paints ${paint:-}" datas="$datas ${data:-}"
done
med() { tr ' ' '\n' | grep . | sort -n | awk '{ a[NR] = $1 } END { if (NR) print a[int((NR + 1) / 2)]; else print "n/a" }'; }
echo "median $(echo "$paints" | med) $(echo "$datas" | med)"
