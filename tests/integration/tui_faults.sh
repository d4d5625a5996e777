#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The TUI under terminal faults, driven in tmux on the TUI workload (/proc
# source, recording with -w):
# 1. a SIGWINCH storm: the window resized ~150 times between random sizes
#    (some too small to draw) while 2000 SIGWINCH are sent directly; the
#    process lives on and, once the window settles at 100x30, draws a whole
#    screen of that size (title on row 1, footer on row 30), and the next
#    key costs a frame or two of output, not a repaint storm;
# 2. the terminal closed under it (tmux kill-session: the pty hangs up and
#    SIGHUP arrives): it exits within seconds, leaves no process behind, and
#    its recording is finished (replays without a "did not finish" note);
# 3. the same with SIGHUP ignored (as under nohup): the hang-up seen on stdin
#    alone ends it, instead of a loop spinning on a dead terminal.
# Sanitizer reports go to files (the terminal is gone) and fail the test.
set -u
TUI_NAME=faults
# shellcheck source=lib/tui_common.bash
source "$(dirname "$0")/lib/tui_common.bash"

start_workload tui_target 3 300

# alive PID: running and not a zombie.
alive() { [ -r "/proc/$1/stat" ] && ! grep -q '^[0-9]* (.*) Z' "/proc/$1/stat" 2>/dev/null; }
gone() { ! alive "$1"; }
san_env="ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}log_path=$TUI_TMP/asan"
san_env+=" UBSAN_OPTIONS=${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}log_path=$TUI_TMP/ubsan"

# run_tt TAG [PRELUDE]: threadtop alone in a new 100x30 session, recording to
# TAG.ttr; PRELUDE runs in its shell before the exec. Sets TT to its pid.
run_tt() {
	local pidf=$TUI_TMP/$1.pid
	start_session 100 30 "env LANG=C.UTF-8 $san_env bash -c '${2:-} echo \$\$ >$pidf; \
exec $TT_BIN --source proc -d 0.5 -p $WL -w $TUI_TMP/$1.ttr'"
	wait_until "$TUI_WAIT" "threadtop to start" test -s "$pidf"
	TT=$(cat "$pidf")
	wait_for 'ttsleep'
	wait_for 'F10Quit'
	redrawn
	redrawn # two more frames: at least two intervals are in the recording
}

# close_terminal TAG: kills the session under threadtop; it must go, and its recording replay.
close_terminal() {
	local start ms n p
	tm kill-session -t "$S" 2>/dev/null
	start=$(date +%s%N)
	# (A hang-up that is missed leaves it running for good: the deadline
	# only has to outlast a loaded machine's slow exit.)
	wait_until "$TUI_WAIT" "threadtop ($1) to exit after its terminal closed" gone "$TT"
	ms=$((($(date +%s%N) - start) / 1000000))
	# threadtop's only: the tmux server's command line holds the same words
	# until it has gone too (later, on a loaded machine).
	for p in $(pgrep -f -- "-w $TUI_TMP/$1.ttr"); do
		[ "$(cat "/proc/$p/comm" 2>/dev/null)" = threadtop ] && fail "$1: a threadtop process is left"
	done
	"$TT_BIN" -r "$TUI_TMP/$1.ttr" -b --format json >"$TUI_TMP/$1.json" 2>"$TUI_TMP/$1.err" ||
		fail "$1: the recording does not replay: $(cat "$TUI_TMP/$1.err")"
	grep -q "did not finish" "$TUI_TMP/$1.err" && fail "$1: the recording was not finished"
	n=$(wc -l <"$TUI_TMP/$1.json")
	((n >= 2)) || fail "$1: only $n intervals recorded"
	echo "$1: exited ${ms} ms after the terminal closed, $n intervals recorded"
}

# 1. SIGWINCH storm.
run_tt storm
(for ((i = 0; i < 2000; i++)); do kill -WINCH "$TT" 2>/dev/null || exit; done) &
storm=$!
for ((i = 0; i < 150; i++)); do
	w=$((40 + RANDOM % 140)) h=$((10 + RANDOM % 50))
	tm resize-window -t "$S" -x "$w" -y "$h" 2>/dev/null || fail "resize $w x $h failed"
	((i % 10 == 0)) && sleep 0.05 # now and then let a frame through
done
wait "$storm"
alive "$TT" || fail "threadtop died in the SIGWINCH storm"
tm resize-window -t "$S" -x 100 -y 30
settled() {
	[ "$(screen | wc -l)" -eq 30 ] && row 1 | grep -q '^threadtop ' && row 30 | grep -q 'F10Quit' &&
		screen | grep -q 'PID  *TID' && screen | grep -q ttsleep && ! screen | grep -q 'too small'
}
wait_until "$TUI_WAIT" "a whole 100x30 screen after the storm" settled
redrawn # still live: the screen keeps updating
# A key after a resize costs a frame, not a storm of them: ncurses 6.4's
# resizeterm queues a KEY_RESIZE on every call, and one that is answered by
# resizing again echoes (256 full repaints, 430 kB at 100x30, a minute on a
# loaded machine). wchar counts the recording's writes too: a few kB.
written() { awk '$1 == "wchar:" {print $2}' "/proc/$TT/io"; }
w0=$(written)
keys Tab
wait_for 'THR +SAMPLES'
kb=$((($(written) - w0) / 1024))
((kb <= 64)) || fail "the key after the storm cost $kb kB of output (at most 64: a few frames)"
echo "the key after the storm: $kb kB written until it showed"
keys 1
wait_for 'PID +TID'

# 2. The terminal closed under it (SIGHUP).
close_terminal storm

# 3. The terminal closed with SIGHUP ignored: only the hang-up on stdin tells.
run_tt nohup "trap \"\" HUP;"
grep -q '^SigIgn:.*[13579bdf]$' "/proc/$TT/status" || fail "SIGHUP is not ignored in the nohup run"
close_terminal nohup

if ls "$TUI_TMP"/asan* "$TUI_TMP"/ubsan* >/dev/null 2>&1; then
	cat "$TUI_TMP"/asan* "$TUI_TMP"/ubsan* 2>/dev/null | head -40
	fail "sanitizer report"
fi
echo "PASS: tui_faults"
