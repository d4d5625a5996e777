#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Trace lines and command output survive record and replay: a live run with
# --trace sched:sched_process_exec and --cmd writes a recording while
# /bin/true runs; the replay's batch JSON holds the same exec lines and the
# same command output and exit status, interval for interval, and a JSON
# export of the replay holds them too. Without root (tracefs) only the
# commands are checked.
set -u
command -v jq >/dev/null || { echo "SKIP: jq is not installed"; exit 77; }
: "${TT_BIN:?}"
tmp=$(mktemp -d)
chmod 1777 "$tmp" # a replay started by root writes its exports as nobody
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

trace=()
if [ "$(id -u)" = 0 ] && grep -qw tracefs /proc/filesystems; then
	trace=(--trace sched:sched_process_exec --trace-lines 100000)
else
	echo "note: not root or no tracefs: checking commands only"
fi

"$TT_BIN" -b -d 0.5 -n 4 --source proc --format json "${trace[@]}" \
	--cmd 'echo hello; printf "tab\tesc\033[2J\n"' --cmd 'exit 3' \
	-w "$tmp/a.ttr" >"$tmp/live.json" 2>"$tmp/err" &
pid=$!
if [ ${#trace[@]} -gt 0 ]; then
	# Exec only once the event is on, however slowly a loaded machine starts
	# threadtop (60 s at most; the event is enabled before the first interval).
	on=/sys/kernel/tracing/instances/threadtop-$pid/events/sched/sched_process_exec/enable
	for _ in $(seq 1200); do
		[ "$(cat "$on" 2>/dev/null)" = 1 ] && break
		kill -0 $pid 2>/dev/null || break
		sleep 0.05
	done
	[ "$(cat "$on" 2>/dev/null)" = 1 ] || fail "the event was never enabled: $(cat "$tmp/err")"
	for _ in 1 2 3; do /bin/true; done
fi
wait $pid || fail "live run failed: $(cat "$tmp/err")"

"$TT_BIN" -r "$tmp/a.ttr" -b --format json --export "$tmp/snap.json" \
	>"$tmp/replay.json" 2>"$tmp/rerr" || fail "replay failed: $(cat "$tmp/rerr")"

# Commands: the output and status of each interval's latest finished run.
q='[.[] | [.commands[]? | select(.output != null) | {cmd, output, exit_code, status}]]'
jq -s -c "$q" "$tmp/live.json" >"$tmp/live.cmds"
jq -s -c "$q" "$tmp/replay.json" >"$tmp/replay.cmds"
grep -q '"output":"hello\\ntab\\tesc\\u001b\[2J\\n"' "$tmp/live.cmds" ||
	fail "the live run lacks the command output: $(cat "$tmp/live.cmds")"
cmp -s "$tmp/live.cmds" "$tmp/replay.cmds" ||
	fail "replayed commands differ: live $(cat "$tmp/live.cmds") replay $(cat "$tmp/replay.cmds")"
jq -e '[.commands[] | select(.cmd == "exit 3" and .exit_code == 3)] | length == 1' \
	"$tmp/snap.json" >/dev/null || fail "the replay's JSON export lacks the commands"

if [ ${#trace[@]} -gt 0 ]; then
	# Traces: every interval's lines and counts, as the live run printed them.
	q='[.[] | [.traces[]? | select(.interval > 0) | {event, total, interval, lines}]]'
	jq -s -c "$q" "$tmp/live.json" >"$tmp/live.tr"
	jq -s -c "$q" "$tmp/replay.json" >"$tmp/replay.tr"
	n=$(jq '[.[][].lines[] | select(test("filename=/bin/true "))] | length' "$tmp/replay.tr")
	[ "$n" -ge 3 ] || fail "the replay shows $n exec lines of /bin/true, not 3"
	cmp -s "$tmp/live.tr" "$tmp/replay.tr" || fail "replayed trace lines differ from the live ones"
	jq -e '[.traces[0].lines[] | select(test("filename=/bin/true "))] | length >= 3' \
		"$tmp/snap.json" >/dev/null || fail "the replay's JSON export lacks the trace lines"
fi
echo "ok"
