#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# A pass that ends an interval and then takes long (on a loaded box: the
# unwinding of its stack copies, 0.23 s once under ASan in CI) must not move
# the tracers' sums between intervals: they are read at the pass's start,
# where its samples are taken (source_clock.ends_interval). The "ping" thread
# of a ping-pong whose peer answers after 2 ms is blocked nearly all the
# time, so in every interval its off-CPU time and its CPU time make up the
# wall time, less the waits for a CPU after a preemption (run-queue time
# only: 0.19 s of a second once in CI, 4 tests at once on 2 CPUs), so that
# off-CPU + CPU <= wall <= off-CPU + CPU + run queue. THREADTOP_TEST_SLOW_PASS_MS
# makes the pass that ends the first interval sleep 300 ms after its
# records; read at the flush, as before, the first interval took those
# 300 ms of off-CPU time from the second (1.3 and 0.7 of the wall time).
. "$(dirname "$0")/bpf_common.bash"

start pingpong 1000000 2000
wl=$WL
wait_threads "$wl" 2
THREADTOP_TEST_SLOW_PASS_MS=300 "$TT_BIN" -b --format json -n 3 -d 1 --source bpf --offcpu \
	--cpu-hz 0 -p "$wl" >"$TMPD/out.json" 2>"$TMPD/err" || fail "threadtop: $(cat "$TMPD/err")"
[ "$(wc -l <"$TMPD/out.json")" -eq 3 ] || fail "not three lines: $(cat "$TMPD/err")"
# Every interval: ping's off-CPU, CPU and run-queue time over its length.
jq -r '(.interval_s * 1e9) as $w |
	([.offcpu[] | select(.comm == "ping") | .ns] | add // 0) as $off |
	([.threads[] | select(.comm == "ping") | .cpu_pct] | add // 0 | . * 0.01 * $w) as $cpu |
	([.threads[] | select(.comm == "ping") | .runq.total_ns] | add // 0) as $rq |
	"\($w / 1e9) \($off / 1e9) \($cpu / 1e9) \($rq / 1e9) \(($off + $cpu) / $w) \(($off + $cpu + $rq) / $w)"' \
	"$TMPD/out.json" >"$TMPD/r"
n=0
while read -r w off cpu rq hi lo; do
	n=$((n + 1))
	printf 'interval %d: %.3f s long, ping off-CPU %.3f s + CPU %.3f s = %.3f of it, %.3f with its run-queue waits (%.3f s)\n' \
		"$n" "$w" "$off" "$cpu" "$hi" "$lo" "$rq"
	# The first interval counts from the clock's start: judged like the others.
	awk -v hi="$hi" -v lo="$lo" 'BEGIN { exit !(hi < 1.15 && lo > 0.85) }' ||
		fail "interval $n: ping's off-CPU and CPU time make $hi of the wall time, $lo with its run-queue waits"
done <"$TMPD/r"
# The wall clock of each interval's end ("time") is its pass's, not that of
# the flush after it: what a workload's own log is compared against
# (load_truth). Stamped at the flush, the first interval's end came 0.3 s
# late, and the second looked 0.7 s long.
python3 - "$TMPD/out.json" <<'PY' || fail "the intervals' times do not follow their lengths"
import json, sys
from datetime import datetime, timezone
ivs = [json.loads(l) for l in open(sys.argv[1])]
t = [datetime.strptime(iv["time"], "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=timezone.utc).timestamp()
     for iv in ivs]
bad = 0
for i in range(1, len(ivs)):
    d = t[i] - t[i - 1]
    print(f"interval {i + 1}: {d:.3f} s after the one before, {ivs[i]['interval_s']:.3f} s long")
    bad |= abs(d - ivs[i]["interval_s"]) > 0.05
sys.exit(bad)
PY
echo "ok: the sums stay with their interval across a slow pass"
