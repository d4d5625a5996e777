#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# --from/--to on a recording of known content (/proc source, 0.5 s
# intervals): batch output covers exactly the range (seconds from the start,
# or a UTC wall-clock time), the JSON report exported with the range counts
# the same samples as the batch lines and lasts as long as the range, and
# times outside the recording, a start after the end and --from without -r
# are refused with a clear line. A range's last line ends at --to even when
# the recording has thread records past --to in that interval (a churn of
# new threads).
set -euo pipefail
command -v jq >/dev/null || { echo "SKIP: jq is not installed"; exit 77; }

tmp=$(mktemp -d)
chmod 1777 "$tmp" # a replay started by root writes its exports as nobody
wl=
cleanup() {
	[ -n "$wl" ] && kill -9 "$wl" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$TT_WORKLOADS/rr_threads" 2 3 60 &
wl=$!
for _ in $(seq 300); do
	[ "$(ls /proc/$wl/task 2>/dev/null | wc -l)" -ge 6 ] && break
	sleep 0.1
done
"$TT_BIN" -b --format json --source proc -d 0.5 -n 12 -p "$wl" -w "$tmp/a.ttr" >"$tmp/live.json"
kill -9 "$wl"
wl=

# Seconds from the start: 1 to 3 s is about 2 s of intervals: as many lines
# as recorded intervals overlap it. Counted from the live run's intervals, not
# as 2 / 0.5: a loaded machine stretches them. From the first interval's start,
# within 50 ms: lo overlap the range for sure, hi may.
"$TT_BIN" -r "$tmp/a.ttr" -b --format json --from 1 --to 3 --export "$tmp/r.json" \
	>"$tmp/range.json" 2>"$tmp/err" || fail "range replay exited $?: $(cat "$tmp/err")"
n=$(wc -l <"$tmp/range.json")
read -r lo hi < <(jq -s -r '
	def t: capture("^(?<s>[^.]*)\\.(?<f>[0-9]+)Z$") | ((.s + "Z") | fromdate) + ("0." + .f | tonumber);
	((.[0].time | t) - .[0].interval_s) as $t0 |
	[.[] | ((.time | t) - $t0) as $e | {e: $e, s: ($e - .interval_s)}] |
	"\([.[] | select(.e > 1.05 and .s < 2.95)] | length) \([.[] | select(.e > 0.95 and .s < 3.05)] | length)"' \
	"$tmp/live.json")
[ "$n" -ge "$lo" ] && [ "$n" -le "$hi" ] && [ "$lo" -ge 2 ] ||
	fail "$n intervals from 1 to 3 s, where $lo to $hi recorded intervals overlap it"
secs=$(jq -s '[.[].interval_s] | add' "$tmp/range.json")
jq -n -e --argjson s "$secs" '$s > 1.9 and $s < 2.1' >/dev/null || fail "range lasts $secs s, not 2"
dur=$(jq '.duration_s' "$tmp/r.json")
jq -n -e --argjson s "$dur" '$s > 1.9 and $s < 2.1' >/dev/null || fail "report lasts $dur s, not 2"
# The report counts what the batch lines of the range counted, no more.
batch=$(jq -s '[.[].threads[].samples | to_entries[].value] | add' "$tmp/range.json")
report=$(jq '.profiles.threads.total_count' "$tmp/r.json")
[ "$batch" -eq "$report" ] || fail "report counts $report samples, the range's lines $batch"
all=$(jq -s '[.[].threads[].samples | to_entries[].value] | add' "$tmp/live.json")
[ "$report" -lt "$all" ] || fail "the range counts $report of the recording's $all samples"

# A UTC wall-clock start: the 4th interval's end as HH:MM:SS.mmm cut to seconds, then +1 s.
t4=$(jq -s -r '.[3].time' "$tmp/live.json")
hms=$(date -u -d "$t4 + 1 second" +%H:%M:%S)
"$TT_BIN" -r "$tmp/a.ttr" -b --format json --from "$hms" >"$tmp/wall.json" 2>"$tmp/err" ||
	fail "--from $hms exited $?: $(cat "$tmp/err")"
first=$(jq -s -r '.[0].time' "$tmp/wall.json")
[ "$(date -u -d "$first" +%s.%N)" \> "$(date -u -d "$hms" +%s)" ] ||
	fail "first interval $first ends before --from $hms"
[ "$(wc -l <"$tmp/wall.json")" -lt 12 ] || fail "--from $hms printed every interval"

# A churn's new threads are recorded at every pass; those past --to once
# moved the model's clock, and a line cut at 0.5 s lasted 1 s. Two cuts
# 0.3 s apart inside one interval (as many lines) end lines 0.3 s apart;
# the old clock ended both at the interval's last record. (The lines' wall
# times are no ruler: a loaded run stamps an interval's wall time late.)
"$TT_WORKLOADS/churn" 30 >/dev/null &
wl=$!
sleep 0.2
"$TT_BIN" -b --format json --source proc -d 1 -n 4 -p "$wl" -w "$tmp/c.ttr" >"$tmp/churn.json"
kill -9 "$wl"
wl=
cuts=0
for pair in "1.1 1.4" "1.6 1.9" "2.1 2.4" "2.6 2.9"; do
	read -r a b <<<"$pair"
	for to in "$a" "$b"; do
		"$TT_BIN" -r "$tmp/c.ttr" -b --format json --to "$to" >"$tmp/cut$to.json" 2>"$tmp/err" ||
			fail "--to $to exited $?: $(cat "$tmp/err")"
	done
	[ "$(wc -l <"$tmp/cut$a.json")" -eq "$(wc -l <"$tmp/cut$b.json")" ] || continue # an edge between
	la=$(tail -n 1 "$tmp/cut$a.json" | jq .interval_s)
	lb=$(tail -n 1 "$tmp/cut$b.json" | jq .interval_s)
	jq -n -e --argjson a "$la" --argjson b "$lb" '($b - $a - 0.3) | fabs < 0.004' >/dev/null ||
		fail "--to $a and $b: the last lines last $la and $lb s, not 0.3 s apart"
	cuts=$((cuts + 1))
done
[ "$cuts" -ge 2 ] || fail "only $cuts of 4 pairs of cuts fell inside one interval"

# Refusals: one line naming the option and why.
if "$TT_BIN" -r "$tmp/a.ttr" -b --from 1000 >/dev/null 2>"$tmp/err"; then fail "--from 1000 accepted"; fi
grep -q -- "--from 1000: outside the recording, which spans 0 to" "$tmp/err" || fail "bad message: $(cat "$tmp/err")"
if "$TT_BIN" -r "$tmp/a.ttr" -b --from 3 --to 1 >/dev/null 2>"$tmp/err"; then fail "--from 3 --to 1 accepted"; fi
grep -q "not before --to" "$tmp/err" || fail "bad message: $(cat "$tmp/err")"
set +e
"$TT_BIN" -b --from 1 -n 1 >/dev/null 2>"$tmp/err"
rc=$?
set -e
[ $rc -eq 2 ] && grep -q "need -r FILE and -b" "$tmp/err" || fail "--from without -r: exit $rc: $(cat "$tmp/err")"
echo PASS
