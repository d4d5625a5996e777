#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# A pass that ends an interval and then takes long (on a loaded box: the
# unwinding of its stack copies, 0.23 s once under ASan in CI) must not move
# the tracers' sums between intervals: they are read at the pass's start,
# where its samples are taken (source_clock.ends_interval). The "ping" thread
# of a ping-pong whose peer answers after 2 ms is blocked nearly all the
# time, so in every interval its off-CPU time and its CPU time make up the
# wall time. THREADTOP_TEST_SLOW_PASS_MS makes the pass that ends the first
# interval sleep 300 ms after its records; read at the flush, as before, the
# second interval lost those 300 ms of off-CPU time to the first (0.7 of
# the wall time).
. "$(dirname "$0")/bpf_common.bash"

start pingpong 1000000 2000
wl=$WL
wait_threads "$wl" 2
THREADTOP_TEST_SLOW_PASS_MS=300 "$TT_BIN" -b --format json -n 3 -d 1 --source bpf --offcpu \
	--cpu-hz 0 -p "$wl" >"$TMPD/out.json" 2>"$TMPD/err" || fail "threadtop: $(cat "$TMPD/err")"
[ "$(wc -l <"$TMPD/out.json")" -eq 3 ] || fail "not three lines: $(cat "$TMPD/err")"
# Every interval: ping's off-CPU + CPU time over the interval's length.
jq -r '(.interval_s * 1e9) as $w |
	([.offcpu[] | select(.comm == "ping") | .ns] | add // 0) as $off |
	([.threads[] | select(.comm == "ping") | .cpu_pct] | add // 0 | . * 0.01 * $w) as $cpu |
	"\($w / 1e9) \($off / 1e9) \($cpu / 1e9) \(($off + $cpu) / $w)"' "$TMPD/out.json" >"$TMPD/r"
n=0
while read -r w off cpu r; do
	n=$((n + 1))
	printf 'interval %d: %.3f s long, ping off-CPU %.3f s + CPU %.3f s = %.3f of it\n' \
		"$n" "$w" "$off" "$cpu" "$r"
	# The first interval counts from the clock's start: judged like the others.
	awk -v r="$r" 'BEGIN { exit !(r > 0.85 && r < 1.15) }' ||
		fail "interval $n: ping's off-CPU and CPU time make $r of the wall time"
done <"$TMPD/r"
echo "ok: the sums stay with their interval across a slow pass"
