#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# What --serve costs threadtop when a fleet pulls from it as it would in
# production: Prometheus scraping /metrics every 15 s and a profiler (Parca,
# Pyroscope) pulling a 30 s CPU profile every minute, against the same
# threadtop without --serve, in alternating runs (absolute CPU on this
# shared VM is noise; the ratio of medians is the figure). The workload is
# spin_sleep (a spinner and a sleeper) so that profiles have stacks. Prints
# threadtop's CPU % of one core per run, the medians and their ratio, and
# the mean /metrics response size and time. threadtop's CPU includes the
# children --serve forks to build profiles. Not run by CI. As root:
#
#   tests/bench/serve_overhead.sh [BINARY] [ROUNDS (3)] [SECONDS (600)]
#
# SECONDS is each run's measured window (start-up left out: WARM_S, 8).
set -uo pipefail

BIN=$(readlink -f "${1:-build/release/threadtop}")
ROUNDS=${2:-3}
SECS=${3:-600}
WARM_S=${WARM_S:-8}
SCRAPE_S=${SCRAPE_S:-15}
PULL_S=${PULL_S:-60}
PROFILE_S=${PROFILE_S:-30}
BENCH_WL=${BENCH_WL:-$(dirname "$BIN")/tests/workloads}
BENCH_TMP=$(mktemp -d)
trap 'rm -rf "$BENCH_TMP"' EXIT
. "$(dirname "$0")/lib_bench.bash"
[ -x "$BENCH_WL/spin_sleep" ] || { echo "no $BENCH_WL/spin_sleep: set BENCH_WL" >&2; exit 2; }
command -v curl >/dev/null || { echo "needs curl" >&2; exit 2; }

# cpu_with_children PID: CPU seconds of PID and of its children reaped so far
# (the --serve children that build profiles are threadtop's cost too).
cpu_with_children() {
	awk -v hz="$(getconf CLK_TCK)" '{ sub(/.*\) /, ""); printf "%.3f\n", ($12 + $13 + $14 + $15) / hz }' \
		"/proc/$1/stat" 2>/dev/null
}

# one_run serve|plain: threadtop's CPU % over the window, on stdout.
one_run() {
	local mode=$1 wl tt addr=x c0 c1 t0 t1 next_scrape next_pull end pulls=()
	"$BENCH_WL/spin_sleep" $((SECS + WARM_S + 30)) >/dev/null 2>&1 &
	wl=$!
	rm -f "$BENCH_TMP/log"
	if [ "$mode" = serve ]; then
		"$BIN" -b -d 1 --format json --log "$BENCH_TMP/log" --serve 127.0.0.1:0 >/dev/null 2>&1 &
	else
		"$BIN" -b -d 1 --format json --log "$BENCH_TMP/log" >/dev/null 2>&1 &
	fi
	tt=$!
	sleep "$WARM_S"
	if [ "$mode" = serve ]; then
		addr=$(grep -o 'serving http://[^/]*' "$BENCH_TMP/log" | head -1)
		addr=${addr#serving http://}
	fi
	c0=$(cpu_with_children "$tt")
	t0=$(date +%s.%N)
	next_scrape=$SECONDS
	next_pull=$SECONDS
	end=$((SECONDS + SECS))
	while ((SECONDS < end)); do
		if [ "$mode" = serve ] && ((SECONDS >= next_scrape)); then
			curl -s -o /dev/null -w '%{size_download} %{time_total}\n' \
				"http://$addr/metrics" >>"$BENCH_TMP/scrapes"
			next_scrape=$((next_scrape + SCRAPE_S))
		fi
		if [ "$mode" = serve ] && ((SECONDS >= next_pull)); then
			curl -s -o /dev/null "http://$addr/debug/pprof/profile?seconds=$PROFILE_S" &
			pulls+=($!)
			next_pull=$((next_pull + PULL_S))
		fi
		sleep 0.5
	done
	# The last pull's child is reaped within a sweep (0.2 s) of its end.
	sleep 1
	c1=$(cpu_with_children "$tt")
	t1=$(date +%s.%N)
	kill "$tt" "$wl" "${pulls[@]}" 2>/dev/null
	wait "$tt" "$wl" "${pulls[@]}" 2>/dev/null
	awk -v a="$c0" -v b="$c1" -v s="$t0" -v e="$t1" 'BEGIN { printf "%.3f\n", 100 * (b - a) / (e - s) }'
}

plain=() serve=()
for ((r = 1; r <= ROUNDS; r++)); do
	p=$(one_run plain)
	s=$(one_run serve)
	plain+=("$p")
	serve+=("$s")
	echo "round $r: plain ${p}% serve ${s}% (of one core)"
done
mp=$(echo "${plain[*]}" | bench_median)
ms=$(echo "${serve[*]}" | bench_median)
echo "median CPU: plain ${mp}%  --serve scraped every ${SCRAPE_S}s + ${PROFILE_S}s pprof every ${PULL_S}s ${ms}%  ratio $(bench_ratio "$ms" "$mp")"
[ -s "$BENCH_TMP/scrapes" ] &&
	awk '{ n++; b += $1; t += $2 } END { printf "/metrics: %d scrapes, %.0f bytes, %.1f ms each on average\n", n, b / n, 1000 * t / n }' \
		"$BENCH_TMP/scrapes"
