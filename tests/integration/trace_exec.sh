#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Kernel trace capture, live: with --trace sched:sched_process_exec, running
# /bin/true shows up as its exec line in the batch JSON "traces"; the private
# tracefs instance is gone after exit (normal end and SIGTERM); a tracepoint
# that does not exist is a one-line error and exit 1; a malformed name is a
# usage error (exit 2).
set -u
command -v jq >/dev/null || { echo "skip: jq not installed"; exit 77; }
[ "$(id -u)" = 0 ] || { echo "skip: --trace needs root (tracefs)"; exit 77; }
grep -qw tracefs /proc/filesystems || { echo "skip: kernel without tracefs"; exit 77; }
: "${TT_BIN:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
inst=/sys/kernel/tracing/instances

# The event is system-wide: on a busy machine (parallel builds and tests) other
# execs would push ours out of the default 100 lines kept before the export at
# exit. Keep more lines than any machine execs in the run.
"$TT_BIN" -b -d 1 -n 3 --source proc --format json --trace sched:sched_process_exec \
	--trace-lines 50000 --export "$tmp/snap.json" >"$tmp/out.json" 2>"$tmp/err" &
pid=$!
# Exec only once the event is on, however slowly a loaded machine starts threadtop.
# (60 s at most; the event is enabled before the first interval.)
on="$inst/threadtop-$pid/events/sched/sched_process_exec/enable"
for _ in $(seq 1200); do
	[ "$(cat "$on" 2>/dev/null)" = 1 ] && break
	kill -0 $pid 2>/dev/null || break
	sleep 0.05
done
[ "$(cat "$on" 2>/dev/null)" = 1 ] || { cat "$tmp/err"; echo "FAIL: the event was never enabled"; exit 1; }
for i in 1 2 3; do /bin/true; done
wait $pid || { cat "$tmp/err"; echo "FAIL: threadtop failed"; exit 1; }
n=$(jq -s '[.[].traces[] | select(.event == "sched:sched_process_exec") | .lines[] |
	select(test("sched_process_exec: filename=/bin/true "))] | length' "$tmp/out.json")
echo "exec lines of /bin/true captured: $n"
[ "$n" -ge 3 ] || { echo "FAIL: expected 3 exec lines of /bin/true"; exit 1; }
jq -e '[.traces[0].lines[] | select(test("filename=/bin/true "))] | length >= 3' \
	"$tmp/snap.json" >/dev/null || { echo "FAIL: the JSON export lacks the trace lines"; exit 1; }
jq -s -e 'all(.[]; .traces[0].total >= .traces[0].interval)' "$tmp/out.json" >/dev/null ||
	{ echo "FAIL: counts"; exit 1; }
# Only our own instance: other threadtops may be tracing on this machine.
[ -d "$inst/threadtop-$pid" ] && { echo "FAIL: instance threadtop-$pid left"; exit 1; }

# SIGTERM mid-run also removes the instance.
"$TT_BIN" -b -d 1 --source proc --format json --trace sched:sched_process_exec >/dev/null 2>&1 &
pid=$!
for _ in $(seq 600); do [ -d "$inst/threadtop-$pid" ] && break; sleep 0.1; done
[ -d "$inst/threadtop-$pid" ] || { echo "FAIL: no instance threadtop-$pid while running"; exit 1; }
kill -TERM $pid
wait $pid
[ -d "$inst/threadtop-$pid" ] && { echo "FAIL: instance left after SIGTERM"; exit 1; }

"$TT_BIN" -b -n 1 --source proc --trace sched:no_such_event >/dev/null 2>"$tmp/err" &
pid=$!
wait $pid
rc=$?
[ $rc = 1 ] || { echo "FAIL: unknown tracepoint exited $rc"; exit 1; }
grep -q 'no such tracepoint' "$tmp/err" || { cat "$tmp/err"; echo "FAIL: message"; exit 1; }
[ -d "$inst/threadtop-$pid" ] && { echo "FAIL: instance left after an error"; exit 1; }
"$TT_BIN" -b -n 1 --trace ../../x >/dev/null 2>&1
rc=$?
[ $rc = 2 ] || { echo "FAIL: malformed name exited $rc"; exit 1; }
echo "ok"
