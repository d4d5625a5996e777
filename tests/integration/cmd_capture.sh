#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Command capture, live: a --cmd that hangs is cut off by its timeout (status
# "timed_out", killed with its children) while the batch output keeps its
# pace; a quick command's output and exit status are in the JSON and text; the
# last interval of a -n run waits for a slow one.
set -u
command -v jq >/dev/null || { echo "skip: jq not installed"; exit 77; }
: "${TT_BIN:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

start=$(date +%s.%N)
# Only this shell is sampled: the figure is about the commands, not about
# reading a loaded box's /proc under ASan.
"$TT_BIN" -b -d 1 -n 3 --source proc -p $$ --format json --cmd 'sleep 4242' \
	--cmd 'echo captured; exit 7' --cmd-timeout 0.5 >"$tmp/out.json" ||
	{ echo "FAIL: threadtop failed"; exit 1; }
secs=$(echo "$(date +%s.%N) - $start" | bc)
echo "3 intervals of 1 s took ${secs}s"
# The pace, from the intervals themselves (a loaded machine's slow start-up
# is not in them): a snapshot that waited for the 0.5 s timeout makes its
# interval 1.5 s, one that waited for the command never ends (the bound on
# the whole run only has to tell that from a slow start-up). The last
# interval alone waits for its commands by design (app.c: last_waits): the
# hanging one's cut, 0.5 s after it started, can end it late on a loaded
# box (1.477 s seen under ASan in CI): -d plus the timeout, and a margin.
jq -c -s '[.[].interval_s]' "$tmp/out.json"
jq -e -s 'length == 3 and all(.[0:2][]; .interval_s < 1.35) and .[2].interval_s < 1.85' \
	"$tmp/out.json" >/dev/null ||
	{ echo "FAIL: the hanging command slowed the intervals"; exit 1; }
echo "$secs < 30" | bc | grep -q 1 || { echo "FAIL: the hanging command slowed the run"; exit 1; }
jq -c '.commands[] | {cmd, status, exit_code, signal, duration_s, runs, skipped}' "$tmp/out.json"
jq -e -s '.[0].commands[0] | .status == "timed_out" and .timed_out and .signal == 9 and
	.duration_s < 2' "$tmp/out.json" >/dev/null || { echo "FAIL: not cut off"; exit 1; }
jq -e -s '.[0].commands[1] | .status == "exited" and .exit_code == 7 and .output == "captured\n"' \
	"$tmp/out.json" >/dev/null || { echo "FAIL: quick command"; exit 1; }
jq -e -s '.[2].commands[1].runs == 3' "$tmp/out.json" >/dev/null ||
	{ echo "FAIL: not run at every snapshot"; exit 1; }
pgrep -f 'slee[p] 4242' && { echo "FAIL: the hanging command survived"; exit 1; }

"$TT_BIN" -b -d 1 -n 1 --source proc --cmd 'echo text-mode' >"$tmp/out.txt" ||
	{ echo "FAIL: text mode"; exit 1; }
grep -q "^CMD echo text-mode  exited 0" "$tmp/out.txt" && grep -q "^  text-mode$" "$tmp/out.txt" ||
	{ cat "$tmp/out.txt"; echo "FAIL: text output"; exit 1; }

# The last interval of a -n run waits for its commands: a slow one (1.2 s
# here, -d 0.3) still has its output in the one snapshot.
slow=$("$TT_BIN" -b -d 0.3 -n 1 --source proc --format json --cmd 'sleep 1.2; echo done-late' |
	jq -r '.commands[0].output')
[ "$slow" = done-late ] || { echo "FAIL: -n 1 lost a slow command's output: '$slow'"; exit 1; }

# The JSON export carries the commands, the USE metrics and the verdict too.
"$TT_BIN" -b -d 1 -n 1 --source proc --cmd 'echo exported' --export "$tmp/snap.json" \
	>/dev/null 2>&1 || { echo "FAIL: export run"; exit 1; }
jq -e '.commands[0].output == "exported\n" and (.use | length) > 0 and (.verdict.level | length) > 0' \
	"$tmp/snap.json" >/dev/null || { echo "FAIL: export JSON lacks commands/use/verdict"; exit 1; }
echo "ok"
