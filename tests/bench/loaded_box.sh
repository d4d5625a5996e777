#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Issue #21's figures, on the box as it is (a shared, loaded one: compare
# ratios measured in the same run, not absolute times):
#   1. achieved rate vs asked with every CPU saturated (4 busy threads per
#      CPU at normal priority), BPF and /proc sources, from batch JSON's
#      hz_achieved (median of the intervals after the first);
#   2. start-up: first paint and first data row of the TUI, idle (as the box
#      is) and saturated (tests/bench/startup.sh);
#   3. memory with churn: the model over a simulated hour with 2,000
#      threads and 200 replaced a second (bench_model, RSS at simulated
#      minute 5 and 60), and, with --live MINUTES, a live TUI session of that
#      many minutes on a churning box with 2,000 idle threads (RSS at minute
#      5 and at the end: a shortened hour);
#   4. the /proc source's cost at 500, 2,000 and 10,000 idle threads beside
#      ps (tests/bench/proc_cost.sh).
#
# usage: sudo tests/bench/loaded_box.sh [--live MINUTES] [--quick] [BUILD_DIR]
#   --quick   one start-up run each, /proc cost at 500 threads only, a
#             simulated 10 minutes (run_all.sh --smoke and --quick)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
build=$src/build/release
live=0 quick=0
while [ $# -gt 0 ]; do
	case $1 in
	--live) live=$2 && shift ;;
	--quick) quick=1 ;;
	-h | --help) sed -n '3,20p' "$0" && exit 0 ;;
	-*) echo "loaded_box: unknown option $1 (see --help)" >&2 && exit 2 ;;
	*) build=$1 ;;
	esac
	shift
done
TT=$build/threadtop
WL=$build/tests/workloads
[ -x "$TT" ] || { echo "loaded_box: no threadtop in $build: build it first" >&2; exit 1; }
command -v jq >/dev/null || { echo "loaded_box: needs jq" >&2; exit 1; }
pids=""
cleanup() {
	# shellcheck disable=SC2086 # a list of pids
	[ -n "$pids" ] && kill $pids 2>/dev/null
	tmux -L "tt_lb_$$" kill-server 2>/dev/null
}
trap cleanup EXIT
trap 'exit 130' INT TERM
med() { tr ' ' '\n' | grep . | sort -g | awk '{ a[NR] = $1 } END { if (NR) print a[int((NR + 1) / 2)] }'; }
echo "loaded_box: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg) at the start"

# --- 1. rate under saturation -------------------------------------------------
"$WL/spinners" $((4 * $(nproc))) 600 >/dev/null 2>&1 &
spin=$!
pids="$pids $spin"
sleep 1
for s in bpf proc; do
	got=$("$TT" -b --format json --source "$s" -n 6 -d 1 2>/dev/null | tail -n +2 |
		jq -r '.hz_achieved' | med)
	echo "rate saturated $s: asked 20 Hz, achieved ${got:-n/a} Hz ($(awk -v g="${got:-0}" 'BEGIN { printf "%.3f", g / 20 }') of asked)"
done
got=$("$TT" -b --format json --source bpf --sched normal -n 6 -d 1 2>/dev/null | tail -n +2 |
	jq -r '.hz_achieved' | med)
echo "rate saturated bpf --sched normal: asked 20 Hz, achieved ${got:-n/a} Hz (the peer: what normal priority gets)"

# --- 2. start-up ---------------------------------------------------------------
kill "$spin" 2>/dev/null
wait "$spin" 2>/dev/null
runs=$((quick ? 1 : 3))
read -r _ p d <<<"$(bash "$here/startup.sh" --runs $runs "$build" | tail -n 1)"
echo "start-up idle: first paint $p ms, first data $d ms (median of $runs)"
read -r _ p d <<<"$(bash "$here/startup.sh" --saturate --runs $runs "$build" | tail -n 1)"
echo "start-up saturated: first paint $p ms, first data $d ms (median of $runs)"

# --- 3. memory with churn ------------------------------------------------------
secs=$((quick ? 600 : 3600))
line=$("$build/tests/bench_model" 2000 $secs 1000 1 200 | grep '^model churn')
echo "memory, model simulated $((secs / 60)) min (2,000 threads, 200 replaced a second, 1 Hz): ${line#model churn: }"
if [ "$live" -gt 0 ]; then
	"$WL/idle_threads" 2000 $((live * 60 + 60)) >/dev/null 2>&1 &
	pids="$pids $!"
	"$WL/churn" $((live * 60 + 60)) >/dev/null 2>&1 &
	pids="$pids $!"
	sleep 2
	tmux -L "tt_lb_$$" new-session -d -s lb -x 120 -y 40 "$TT"
	sleep 2
	tp=$(tmux -L "tt_lb_$$" list-panes -t lb -F '#{pane_pid}')
	rss() { awk '/^VmRSS/ { printf "%.1f", $2 / 1024 }' "/proc/$tp/status" 2>/dev/null; }
	r5=
	for ((sec = 0; sec < live * 60; sec += 30)); do
		sleep 30
		[ $((sec + 30)) -eq 300 ] && r5=$(rss)
	done
	end=$(rss)
	ratio=$(awk -v a="${r5:-0}" -v b="${end:-0}" 'BEGIN { if (a > 0) printf "%.2fx", b / a; else print "n/a" }')
	echo "memory, live TUI with churn + 2,000 idle threads, $live min (a shortened hour): RSS at minute 5 ${r5:-n/a} MB, at minute $live ${end:-n/a} MB ($ratio)"
	tmux -L "tt_lb_$$" kill-server 2>/dev/null
fi

# --- 4. the /proc source's cost -----------------------------------------------
# shellcheck disable=SC2046 # the sizes
bash "$here/proc_cost.sh" "$build" $([ $quick = 1 ] && echo 500 || echo 500 2000 10000)
echo "loaded_box: load average $(cut -d' ' -f1-3 /proc/loadavg) at the end"
