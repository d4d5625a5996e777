#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The USE and Traces panes driven in tmux (100x30, /proc source): key 7
# shows the verdict, the CPU row with its utilization and a sparkline (in
# UTF-8 blocks, and in ASCII under LANG=C); key 8 shows the --cmd's output
# and exit status, and, as root with tracefs, the exec line of /bin/true
# run while tracing sched:sched_process_exec. Then a recording of that run
# replays into the same panes.
set -u

TUI_NAME=tuiuse
# shellcheck source=lib/tui_common.bash
source "$(dirname "$0")/lib/tui_common.bash"
tmp=$TUI_TMP

# start LANG COMMAND...: COMMAND in a shell on a fresh tmux server each time.
start() {
	new_server
	start_shell 100 30 "$1"
	shift
	keys "clear; $*" Enter
}
# q, then the shell's prompt (the screen was cleared before threadtop started):
# threadtop has exited, its recording is complete.
quit() {
	keys q
	wait_for '^PROMPT\$'
}

# search_shows TEXT REGEX: searches for TEXT (/); true if REGEX is then on
# the screen within a second.
search_shows() {
	local i
	keys / "$1" Enter
	for ((i = 0; i < 10; i++)); do
		screen | grep -Eq -- "$2" && return 0
		sleep 0.1
	done
	return 1
}

trace=
if [ "$(id -u)" = 0 ] && grep -qw tracefs /proc/filesystems; then
	trace="--trace sched:sched_process_exec --trace-lines 100000"
else
	echo "note: not root or no tracefs: the trace lines are not checked"
fi

start C.UTF-8 "$TT_BIN --source proc -d 0.5 $trace --cmd 'echo hello' -w $tmp/a.ttr"
wait_for ' 7 USE '
keys 7
wait_for '^Verdict: '
wait_for '^COMPONENT +UTIL% +SATURATION +ERRORS +UTIL% over the last'
# The CPU row: a utilization figure, the saturation cell, and a block sparkline cell.
wait_for '^cpu +[0-9]+\.[0-9] +(SAT|ok ) .*[▁▂▃▄▅▆▇█]'
wait_for '^  cpu0 '
wait_for '^memory '
keys 8
wait_for '^COMMANDS \(--cmd\)'
wait_for '^\$ echo hello'
wait_for '^  exited 0 after'
wait_for '^  hello'
if [ -n "$trace" ]; then
	wait_for '^KERNEL TRACES'
	wait_for '^sched:sched_process_exec +[0-9.]+/s +total [0-9]+'
	for _ in 1 2 3; do /bin/true; done
	# Other jobs exec too: pause (the pane holds still), then search for the
	# line; until the pane has read it (a loaded machine reads it late),
	# resume for a frame and search again.
	deadline=$((SECONDS + TUI_WAIT))
	until
		keys p
		wait_for 'PAUSED'
		search_shows 'filename=/bin/true' 'sched_process_exec: filename=/bin/true'
	do
		((SECONDS < deadline)) || fail "the Traces pane lacks the exec line of /bin/true"
		keys p
		wait_gone 'PAUSED'
		redrawn
	done
	keys p
fi
# The panes show the interval still running (its command output, its trace
# lines); the recording gets whole intervals only. Quit once one has been
# measured, two clock ticks after what was checked: its interval has ended.
wait_gone 'PAUSED'
wait_gone 'no interval measured yet'
redrawn 2
quit

# The recording replays into the same panes.
start C.UTF-8 "$TT_BIN -r $tmp/a.ttr"
wait_for 'REPLAY'
keys 8
wait_for '^  hello'
if [ -n "$trace" ]; then
	keys + + + # play as fast as possible; search until the line has been replayed
	deadline=$((SECONDS + TUI_WAIT))
	until search_shows 'filename=/bin/true' 'sched_process_exec: filename=/bin/true'; do
		((SECONDS < deadline)) || fail "the replay's Traces pane lacks the exec line of /bin/true"
	done
fi
keys 7
wait_for '^cpu +[0-9]+\.[0-9] '
quit

# ASCII: the sparkline uses the ASCII ramp, no block characters.
start C "$TT_BIN --source proc -d 0.5"
keys 7
wait_for '^cpu +[0-9]+\.[0-9] +(SAT|ok ) .*[.:=+*#%@-] *$'
screen | grep -q '[▁▂▃▄▅▆▇█]' && fail "block characters in ASCII mode"
quit
echo ok
