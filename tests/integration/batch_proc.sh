#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Batch mode on the /proc source against a workload with known behaviour: the
# spinner is mostly R, the sleeper S in clock_nanosleep; plus the documented
# errors (unknown option: exit 2; -p of a missing process: exit 1).
set -euo pipefail
command -v jq >/dev/null || { echo "SKIP: jq is not installed"; exit 77; }

fail() { echo "FAIL: $*"; exit 1; }
. "$(dirname "$0")/lib/test_wait.bash"

# The sleeper wakes once a second: each wake-up may wait in a loaded box's
# run queue (R), and 5 a second (the default) left it S in 16 of 20
# samples at load 30.
"$TT_WORKLOADS/spin_sleep" "$TT_WL_LIFE" 1000 &
wl=$!
trap 'kill $wl 2>/dev/null || true' EXIT
wait_comms "$wl" spinner sleeper

out=$("$TT_BIN" -b --format json -n 2 -d 1 --source proc -p "$wl")
[ "$(echo "$out" | wc -l)" -eq 2 ] || fail "expected 2 NDJSON lines, got: $out"
last=$(echo "$out" | tail -n 1)
echo "$last" | jq -e '.schema == 1 and .source == "proc" and .hz == 20 and .interval_s > 0.9' \
	>/dev/null || fail "header fields: $last"
echo "$last" | jq -e '[.threads[].pid] | all(. == '"$wl"')' >/dev/null || fail "-p leaked: $last"

# Shares of the interval's ticks (20 at 20 Hz; fewer if a loaded machine
# delays the sampler).
t=$(echo "$last" | jq '.cost.ticks')
[ "$t" -ge 15 ] || fail "only $t ticks in a 1 s interval: $(echo "$last" | jq -c .cost)"
spin=$(echo "$last" | jq '[.threads[] | select(.comm == "spinner")][0]')
[ "$spin" != null ] || fail "no spinner row: $last"
r=$(echo "$spin" | jq '.samples.R // 0')
[ "$r" -ge $((t * 4 / 5)) ] || fail "spinner R samples $r < 80% of $t: $spin"
# CPU share depends on what else runs on this shared machine: only check it is counted.
echo "$spin" | jq -e '.avg_active > 0.75 and .cpu_pct > 5' >/dev/null || fail "spinner activity: $spin"

sleeper=$(echo "$last" | jq '[.threads[] | select(.comm == "sleeper")][0]')
s=$(echo "$sleeper" | jq '.samples.S // 0')
[ "$s" -ge $((t * 9 / 10)) ] || fail "sleeper S samples $s < 90% of $t: $sleeper"
n=$(echo "$sleeper" | jq '.samples_by_syscall.clock_nanosleep // 0')
[ "$n" -ge $((t * 3 / 4)) ] || fail "sleeper not seen in clock_nanosleep: $sleeper"
echo "$sleeper" | jq -e '.avg_active < 0.2' >/dev/null || fail "sleeper active: $sleeper"

text=$("$TT_BIN" -b -n 1 -d 0.5 --source proc -p "$wl")
grep -q 'PID .*TID .*COMM' <<<"$text" || fail "text header missing: $text"
grep -q ' spinner ' <<<"$text" || fail "text lacks spinner: $text"

set +e
"$TT_BIN" --bogus >/dev/null 2>&1
[ $? -eq 2 ] || fail "unknown option must exit 2"
msg=$("$TT_BIN" -b -n 1 --source proc -p 2147483000 2>&1)
rc=$?
set -e
[ $rc -eq 1 ] || fail "-p of a missing process must exit 1, got $rc"
grep -q "no such process" <<<"$msg" || fail "message: $msg"
# SIGTERM (and SIGINT, SIGHUP) end an endless run cleanly with exit 0.
"$TT_BIN" -b --format json --source proc -p "$wl" >/tmp/tt_sigterm.$$ &
tt=$!
wait_until "no interval printed" test -s /tmp/tt_sigterm.$$
kill -TERM $tt
wait $tt || fail "SIGTERM exit status $?"
grep -q '"schema":1' /tmp/tt_sigterm.$$ || fail "no interval printed before SIGTERM"
rm -f /tmp/tt_sigterm.$$
echo "PASS"
