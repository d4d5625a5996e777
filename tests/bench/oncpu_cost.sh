#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# What on-CPU sampling costs per busy CPU (issue 23, item 3), old build
# against new in alternating runs. Every CPU busy (the spinners workload),
# a higher --cpu-hz stands in for more CPUs at 99 Hz, as run_all.sh does:
# HZ x CPUs / 99 busy CPUs. Per run: threadtop's own CPU (user + system,
# % of one core), the run time of its perf_event program sample_cpu (BPF
# run-time statistics read from the program's fdinfo: it runs in the
# interrupted task, so threadtop's own CPU does not hold it), samples/s,
# BPF ns per sample. Then, per build and mode, the least-squares line of
# the total (own CPU + BPF) against busy CPUs and its value at 384. As root:
#
#   tests/bench/oncpu_cost.sh OLD_THREADTOP NEW_THREADTOP [MODE...]
#
# MODE: "b" (batch, -b --format json -d 1), "tui" (in tmux) or "b:ARGS" /
# "tui:ARGS" with extra options (b:--unwind=fp); default "b tui". Environment:
# HZS ("99 1584 6336 10000": 10000 is --cpu-hz's limit, 202 CPUs on 2),
# SECS (8): seconds measured per run, after the program has run for SETTLE (3).
set -uo pipefail

OLD=${1:?old threadtop}
NEW=${2:?new threadtop}
shift 2
MODES=${*:-b tui}
HZS=${HZS:-99 1584 6336 10000}
SECS=${SECS:-8}
SETTLE=${SETTLE:-3}
WL=$(dirname "$(readlink -f "$0")")/../../build/release/tests/workloads
WL=${BENCH_WL:-$WL}
[ "$(id -u)" -eq 0 ] || { echo "run as root"; exit 1; }
command -v tmux >/dev/null || { echo "needs tmux"; exit 1; }
ncpu=$(nproc)
tmp=$(mktemp -d)
wl=
sess=oncpu_cost_$$
trap 'kill $wl 2>/dev/null; tmux -L $sess kill-server 2>/dev/null; rm -rf "$tmp"' EXIT

# The run time and run count of PID's perf_event programs (prog_type 7).
bpf_of() {
	local f
	for f in "/proc/$1/fdinfo"/*; do
		awk '/^prog_type:/ { t = $2 } /^prog_id:/ { id = $2 } /^run_time_ns:/ { ns = $2 }
			/^run_cnt:/ { n = $2 } END { if (t == 7) print id, ns, n }' "$f" 2>/dev/null
	done | sort -u | awk '{ ns += $2; n += $3 } END { print ns + 0, n + 0 }'
}
cpu_of() { awk -v hz="$(getconf CLK_TCK)" '{ sub(/.*\) /, ""); printf "%.3f\n", ($12 + $13) / hz }' "/proc/$1/stat"; }

# run BIN MODE HZ: prints "own% bpf% samples/s bpf_ns_per_sample"
run() {
	local bin=$1 mode=${2%%:*} args="" hz=$3 tt c0 c1 b0 n0 b1 n1 t0 t1 n
	[[ $2 == *:* ]] && args=${2#*:} && args=${args//=/ }
	"$WL/spinners" "$ncpu" 3600 >/dev/null 2>&1 &
	wl=$!
	if [ "$mode" = b ]; then
		# shellcheck disable=SC2086
		"$bin" -b --format json -d 1 --source bpf --bpf-stats on --cpu-hz "$hz" $args \
			>/dev/null 2>"$tmp/err" &
		tt=$!
	else
		tmux -L "$sess" new-session -d -s "$sess" -x 160 -y 50 \
			"exec $bin --source bpf --bpf-stats on --cpu-hz $hz $args"
		sleep 0.3
		tt=$(tmux -L "$sess" list-panes -t "$sess" -F '#{pane_pid}')
	fi
	for _ in $(seq 900); do # loading takes long on a busy box
		read -r _ n <<<"$(bpf_of "$tt")"
		[ "${n:-0}" -gt 0 ] && break
		sleep 0.2
	done
	sleep "$SETTLE"
	c0=$(cpu_of "$tt")
	read -r b0 n0 <<<"$(bpf_of "$tt")"
	t0=$(date +%s.%N)
	sleep "$SECS"
	c1=$(cpu_of "$tt")
	read -r b1 n1 <<<"$(bpf_of "$tt")"
	t1=$(date +%s.%N)
	if [ "$mode" = b ]; then kill "$tt"; else tmux -L "$sess" kill-server; fi
	for _ in $(seq 300); do kill -0 "$tt" 2>/dev/null || break; sleep 0.2; done
	kill -9 "$tt" 2>/dev/null
	kill "$wl"
	wait "$wl" 2>/dev/null
	wl=
	awk -v c0="$c0" -v c1="$c1" -v t0="$t0" -v t1="$t1" -v b0="$b0" -v b1="$b1" -v n0="$n0" \
		-v n1="$n1" 'BEGIN { w = t1 - t0; n = n1 - n0
		printf "%.2f %.2f %.0f %.0f\n", (c1 - c0) / w * 100, (b1 - b0) / 1e9 / w * 100, n / w,
			n ? (b1 - b0) / n : 0 }'
}

printf "%-4s %-16s %6s %5s %8s %8s %8s %8s\n" build mode cpu_hz cpus own% bpf% samples/s bpf_ns
for hz in $HZS; do
	for mode in $MODES; do
		for b in old new; do
			bin=$OLD
			[ $b = new ] && bin=$NEW
			read -r own bpf sps ns <<<"$(run "$bin" "$mode" "$hz")"
			printf "%-4s %-16s %6s %5s %8s %8s %8s %8s\n" $b "$mode" "$hz" $((hz * ncpu / 99)) \
				"$own" "$bpf" "$sps" "$ns" | tee -a "$tmp/rows"
		done
	done
done
echo
echo "fit of own + BPF CPU (% of one core) against busy CPUs; projection at 384 busy CPUs"
for mode in $MODES; do
	for b in old new; do
		awk -v b=$b -v m="$mode" '$1 == b && $2 == m { x = x " " $4; y = y " " ($5 + $6); o = o " " $5; p = p " " $6 }
			END { print x "|" y "|" o "|" p }' "$tmp/rows" | {
			IFS='|' read -r xs ys os ps
			awk -v xs="$xs" -v ys="$ys" -v os="$os" -v ps="$ps" -v b=$b -v m="$mode" '
			function fit(xs, ys, r,   n, x, y, i, sx, sy, sxx, sxy, d) {
				n = split(xs, x, " "); split(ys, y, " ")
				for (i = 1; i <= n; i++) { sx += x[i]; sy += y[i]; sxx += x[i] * x[i]; sxy += x[i] * y[i] }
				d = n * sxx - sx * sx
				r["c"] = d ? (n * sxy - sx * sy) / d : 0; r["a"] = (sy - r["c"] * sx) / n
			}
			BEGIN { fit(xs, ys, t); fit(xs, os, o); fit(xs, ps, p)
				printf "%-4s %-16s %.2f%% + %.4f%% per busy CPU (own %.4f, BPF %.4f): 384 CPUs %.1f%% of a core (slope x 384)\n",
					b, m, t["a"], t["c"], o["c"], p["c"], t["c"] * 384 }'
		}
	done
done
