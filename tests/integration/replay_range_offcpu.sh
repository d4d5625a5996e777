#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# A --to range keeps the off-CPU and run-queue time of its last, shorter
# interval: the exact sums of an interval arrive at its end, past --to. A
# recording of a ping-pong (--offcpu, 1 s intervals) replayed to the middle
# of an interval ends with a line whose off-CPU time is there and, per
# second of that line, like the full intervals' (at most twice theirs, at
# least a tenth: under ASan on a loaded machine the share is uneven); its
# threads' run-queue waits too.
. "$(dirname "$0")/bpf_common.bash"

start pingpong 1000000 2000
wl=$WL
wait_threads "$wl" 2
"$TT_BIN" -b --format json -n 4 -d 1 --source bpf --offcpu --cpu-hz 0 -p "$wl" \
	-w "$TMPD/r.ttr" >"$TMPD/live.json" 2>"$TMPD/rec.err" || fail "recording: $(cat "$TMPD/rec.err")"
kill "$wl"
# To 2.5 s from the start: the last line is part of an interval. Where the
# intervals' edges fell within 50 ms of 2.5 s (the start-up on a loaded
# machine moves them), half a second later, away from an edge: the first
# interval lasts until a late first pass (2.9 s under emulation on 6.12).
for to in 2.5 3 3.5 4 4.5; do
	"$TT_BIN" -r "$TMPD/r.ttr" -b --format json --to $to >"$TMPD/range.json" 2>"$TMPD/err" ||
		fail "range replay: $(cat "$TMPD/err")"
	secs=$(tail -n 1 "$TMPD/range.json" | jq .interval_s)
	awk -v s="$secs" 'BEGIN { exit !(s > 0.05 && s < 0.95) }' && break
	echo "--to $to: the last line lasts $secs s, an interval's edge is near"
done
jq -c '{interval_s, offcpu: ([.offcpu[]? | .ns] | add // 0),
	runq: ([.threads[] | .runq.total_ns? // 0] | add)}' "$TMPD/range.json"
last=$(tail -n 1 "$TMPD/range.json")
read -r secs oc rq < <(echo "$last" | jq -r '[.interval_s, ([.offcpu[]? | .ns] | add // 0),
	([.threads[] | .runq.total_ns? // 0] | add)] | @tsv')
read -r full_s full_oc < <(jq -s -r '.[:-1] | [([.[] | .interval_s] | add),
	([.[] | .offcpu[]? | .ns] | add // 0)] | @tsv' "$TMPD/range.json")
awk -v s="$secs" 'BEGIN { exit !(s > 0.05 && s < 0.95) }' ||
	fail "the last line lasts $secs s: not a part of an interval"
[ "$oc" -gt 0 ] || fail "the last, shorter interval has no off-CPU time: $last"
[ "$rq" -gt 0 ] || fail "the last, shorter interval has no run-queue time: $last"
awk -v a="$oc" -v s="$secs" -v b="$full_oc" -v t="$full_s" \
	'BEGIN { r = (a / s) / (b / t); printf "off-CPU per second: last %.3g, full %.3g\n", a / s, b / t;
	exit !(r > 0.1 && r < 2) }' || fail "the last interval's off-CPU rate is off the full intervals'"
echo PASS
