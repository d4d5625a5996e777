#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Record and replay (-w, -r) on the /proc source: the replayed batch JSON is,
# interval for interval, the live JSON of the run that wrote the file (apart
# from "replay": true); names survive the workload and its binary; SIGHUP
# finishes the file; after kill -9 every whole chunk replays.
set -euo pipefail
command -v jq >/dev/null || { echo "SKIP: jq is not installed"; exit 77; }

tmp=$(mktemp -d)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; done
	rm -rf "$tmp"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }
# wait_lines FILE N: until FILE has N lines (intervals printed), 60 s at most.
wait_lines() {
	for _ in $(seq 600); do
		[ "$(wc -l <"$1")" -ge "$2" ] && return 0
		sleep 0.1
	done
	fail "$1 has $(wc -l <"$1") lines after 60 s, not $2"
}
# wait_threads PID N: until process PID has N threads.
wait_threads() {
	for _ in $(seq 300); do
		[ "$(ls /proc/"$1"/task 2>/dev/null | wc -l)" -ge "$2" ] && return 0
		sleep 0.1
	done
	fail "process $1 did not start its $2 threads"
}

# The workload runs from a copy that is deleted before the replay.
mkdir "$tmp/bin"
cp "$TT_WORKLOADS/rr_threads" "$tmp/bin/rr_threads"
"$tmp/bin/rr_threads" 2 3 60 &
wl=$!
pids+=("$wl")
wait_threads "$wl" 6

# 1. Fidelity: live -w then -r, same JSON interval for interval.
"$TT_BIN" -b --format json --source proc -d 0.5 -n 6 -p "$wl" -w "$tmp/a.ttr" >"$tmp/live.json"
[ "$(wc -l <"$tmp/live.json")" -eq 6 ] || fail "live run printed $(wc -l <"$tmp/live.json") lines"
kill -9 "$wl"
wait "$wl" 2>/dev/null || true
rm -f "$tmp/bin/rr_threads"
"$TT_BIN" -r "$tmp/a.ttr" -b --format json >"$tmp/replay.json" 2>"$tmp/replay.err" ||
	fail "replay exited $?: $(cat "$tmp/replay.err")"
[ ! -s "$tmp/replay.err" ] || fail "replay complained: $(cat "$tmp/replay.err")"
jq -e -s 'length == 6 and all(.replay == true)' "$tmp/replay.json" >/dev/null ||
	fail "replay lines lack \"replay\": true"
jq -c 'del(.replay)' "$tmp/replay.json" >"$tmp/replay.cmp"
jq -c . "$tmp/live.json" >"$tmp/live.cmp"
cmp -s "$tmp/live.cmp" "$tmp/replay.cmp" || {
	diff <(jq -S . "$tmp/live.cmp") <(jq -S . "$tmp/replay.cmp") | head -20
	fail "replayed JSON differs from the live JSON"
}
# ... and the data is the workload's, with its names, after it and its binary are gone.
last=$(tail -n 1 "$tmp/replay.json")
echo "$last" | jq -e '[.threads[] | select(.comm == "rr-spin")] | length == 2' >/dev/null ||
	fail "two rr-spin threads expected: $last"
echo "$last" | jq -e '[.threads[] | select(.comm == "rr-sleep")] | length == 3' >/dev/null ||
	fail "three rr-sleep threads expected: $last"
echo "$last" | jq -e --arg c "$tmp/bin/rr_threads 2 3 60" \
	'all(.threads[]; .cmdline == $c)' >/dev/null || fail "cmdline lost: $last"
# (A share of each spinner's samples, not a count: a loaded machine delays the
# sampler's ticks, and an interval holds fewer than its 10 samples.)
echo "$last" | jq -e '[.threads[] | select(.comm == "rr-spin") |
	(.samples.R // 0) / ([.samples[]] | add)] | min >= 0.7' \
	>/dev/null || fail "spinners not mostly R: $last"

# -n and text output work on a replay too.
n=$("$TT_BIN" -r "$tmp/a.ttr" -b --format json -n 2 | wc -l)
[ "$n" -eq 2 ] || fail "-n 2 on a replay printed $n lines"
"$TT_BIN" -r "$tmp/a.ttr" -b >"$tmp/replay.txt"
grep -q "source proc (replay)" "$tmp/replay.txt" || fail "text header lacks (replay)"

# 2. SIGHUP (a dropped SSH session) finishes the file: index present, no warning.
"$TT_WORKLOADS/rr_threads" 1 1 300 & # killed at exit
wl=$!
pids+=("$wl")
wait_threads "$wl" 3
"$TT_BIN" -b --format json --source proc -d 0.5 -p "$wl" -w "$tmp/hup.ttr" >"$tmp/hup.json" &
rec=$!
pids+=("$rec")
# Three intervals printed, however late a loaded machine starts it.
wait_lines "$tmp/hup.json" 3
kill -HUP "$rec"
wait "$rec" || fail "recorder exited $? on SIGHUP"
"$TT_BIN" -r "$tmp/hup.ttr" -b --format json 2>"$tmp/hup.err" | jq -c 'del(.replay)' \
	>"$tmp/hup.cmp"
[ ! -s "$tmp/hup.err" ] || fail "replay after SIGHUP complained: $(cat "$tmp/hup.err")"
jq -c . "$tmp/hup.json" | cmp -s - "$tmp/hup.cmp" || fail "SIGHUP run: replay differs from live"
[ "$(wc -l <"$tmp/hup.cmp")" -ge 3 ] || fail "SIGHUP run: too few intervals"

# 3. kill -9: every whole chunk replays; the replayed intervals are the live ones.
"$TT_BIN" -b --format json --source proc -d 0.5 -p "$wl" -w "$tmp/kill.ttr" >"$tmp/kill.json" &
rec=$!
pids+=("$rec")
# Seven intervals printed: at most the last chunk's (about two) are lost below.
wait_lines "$tmp/kill.json" 7
kill -9 "$rec"
wait "$rec" 2>/dev/null || true
"$TT_BIN" -r "$tmp/kill.ttr" -b --format json >"$tmp/kill.replay" 2>"$tmp/kill.err" ||
	fail "replay of a killed recording exited $?: $(cat "$tmp/kill.err")"
grep -q "did not finish" "$tmp/kill.err" || fail "no note about the unfinished file"
got=$(wc -l <"$tmp/kill.replay")
live=$(wc -l <"$tmp/kill.json")
# At most the last chunk (about a second, two intervals) is lost.
[ "$got" -ge 3 ] && [ "$got" -ge $((live - 3)) ] || fail "kill -9: replayed $got of $live"
jq -c 'del(.replay)' "$tmp/kill.replay" >"$tmp/kill.cmp"
head -n "$got" "$tmp/kill.json" | jq -c . | cmp -s - "$tmp/kill.cmp" ||
	fail "kill -9: replayed intervals differ from the live ones"
echo "ok: fidelity, names after exit, SIGHUP, kill -9 ($got of $live intervals)"
