#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Live check of the USE CPU utilization: threadtop and mpstat (sysstat) measure
# the same 5-second interval while one thread spins; the all-CPU utilization
# (100 - %idle - %iowait for mpstat) must agree within 5 points.
set -u
command -v mpstat >/dev/null || { echo "skip: mpstat not installed (apt-get install sysstat)"; exit 77; }
command -v jq >/dev/null || { echo "skip: jq not installed"; exit 77; }
: "${TT_BIN:?}" "${TT_WORKLOADS:?}"
tmp=$(mktemp -d)
trap 'kill $spin 2>/dev/null; rm -rf "$tmp"' EXIT

# The spinner runs until killed: a slow start leaves it spinning for the whole
# measurement.
"$TT_WORKLOADS/use_spin" 1 300 &
spin=$!
for _ in $(seq 300); do
	[ "$(ls /proc/$spin/task 2>/dev/null | wc -l)" -ge 2 ] && break
	sleep 0.1
done
# The two intervals start apart by threadtop's start-up, and on a shared
# machine other jobs' load changes within seconds: a disagreement by chance
# is retried, up to three measurements. A threadtop that measures wrong
# disagrees every time.
for try in 1 2 3; do
	LC_ALL=C mpstat -o JSON 5 1 >"$tmp/mpstat.json" &
	mp=$!
	"$TT_BIN" -b -d 5 -n 1 --source proc --format json >"$tmp/tt.json" ||
		{ echo "threadtop failed"; exit 1; }
	wait $mp || { echo "mpstat failed"; exit 1; }

	tt=$(jq -r '.use[] | select(.kind == "cpu" and .name == "cpu") | .util_pct' "$tmp/tt.json")
	mp=$(jq -r '.sysstat.hosts[0].statistics[0]["cpu-load"][] | select(.cpu == "all") | 100 - .idle - .iowait' "$tmp/mpstat.json")
	echo "measurement $try: threadtop cpu util ${tt}%, mpstat ${mp}%"
	awk -v a="$tt" -v b="$mp" 'BEGIN { d = a - b; if (d < 0) d = -d; printf "difference %.2f points\n", d; exit !(d <= 5) }' &&
		exit 0
done
echo "FAIL: threadtop and mpstat disagree by more than 5 points in 3 measurements"
exit 1
