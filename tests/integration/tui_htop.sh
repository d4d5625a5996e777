#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# What htop and top users expect, driven in tmux at 80x24 and 200x50 on
# workloads with known numbers, /proc source (no BPF needed):
# - the header counts the threads alive now by state: 3 spinners running, a
#   vfork parent in D, a SIGSTOPped process and a zombie, none of them hidden
#   among exited threads; load average, uptime and memory used/total show;
# - H folds threads into one row per process whose %CPU is the sum of its
#   threads' and matches /proc/PID/stat within 5 points; TIME+, USER, RES show;
#   Enter on a process opens its threads; F5 shows the process tree;
# - stopped and zombie threads are never active (ACTIVE 0.00) and keep their
#   own state letters; the Group and Syscalls panes hide idle rows until i;
# - at 80x24 every pane's column titles fit whole (columns are dropped, not cut);
# - F2 Setup switches a column on, and the rc file keeps it for the next run;
# - d changes the interval live; the message stays in the footer a few seconds;
#   the pickers mark their cursor; sort arrows match the order;
# - the Group pane grouped by process has %CPU.
set -u

TUI_NAME=htop
# shellcheck source=lib/tui_common.bash
source "$(dirname "$0")/lib/tui_common.bash"

export XDG_CONFIG_HOME="$TUI_TMP/config"
HZ=$(getconf CLK_TCK)

# The workloads: 3 spinners (+ their main thread, asleep in join), a vfork
# parent (D while its child sleeps), a stopped sleep (T) and a zombie (Z:
# its parent, exec'd into sleep, never reaps it).
# Their output goes nowhere: an orphan holding the test's stdout would keep ctest
# waiting. They are killed with SIGKILL (a stopped process does not act on SIGTERM).
"$TT_WORKLOADS/spinners" 3 600 >/dev/null 2>&1 &
SPIN=$!
wait_until "$TUI_WAIT" "the spinners" has_threads "$SPIN" 4
"$TT_WORKLOADS/vfork_parent" 600 >/dev/null 2>&1 &
VF=$!
sleep 600 >/dev/null 2>&1 &
STOPPED=$!
kill -STOP "$STOPPED"
sh -c 'sleep 0 & exec sleep 600' >/dev/null 2>&1 &
ZPARENT=$!
htop_cleanup() {
	local p
	for p in $(cat "/proc/$VF/task/$VF/children" 2>/dev/null) "$VF" "$STOPPED" "$ZPARENT" \
		"$SPIN"; do
		kill -KILL "$p" 2>/dev/null || true
	done
	tui_cleanup
}
trap htop_cleanup EXIT
state_of() { cut -d' ' -f3 "/proc/$1/stat" 2>/dev/null; }
zombie() {
	ZOMBIE=$(cat "/proc/$ZPARENT/task/$ZPARENT/children" 2>/dev/null | awk '{print $1}')
	[ -n "$ZOMBIE" ] && [ "$(state_of "$ZOMBIE")" = Z ]
}
wait_until "$TUI_WAIT" "the zombie" zombie
wait_until "$TUI_WAIT" "the vfork parent in D" eval '[ "$(state_of "$VF")" = D ]'
wait_until "$TUI_WAIT" "the stopped process" eval '[ "$(state_of "$STOPPED")" = T ]'
PIDS="$SPIN,$VF,$STOPPED,$ZOMBIE"

# cell COLUMN-TITLE REGEX: the text under a column title in the first row matching REGEX.
cell() {
	screen | awk -v title="$1" -v re="$2" '
		index($0, title) && !hdr { hdr = $0; next }
		hdr && $0 ~ re && !done {
			s = index(hdr, title); e = s + length(title)
			# numbers are right-aligned under their title: read back to the previous blank
			while (s > 1 && substr($0, s - 1, 1) != " ") s--
			print substr($0, s, e - s); done = 1 }' | tr -d ' '
}

run_tt() { # COLS ROWS [ARGS]: threadtop on the workloads in a fresh session
	new_server
	start_shell "$1" "$2"
	keys "clear; XDG_CONFIG_HOME='$XDG_CONFIG_HOME' $TT_BIN --source proc -d ${3:-1} -p $PIDS" \
		Enter
	wait_for 'F10Quit'
	wait_for 'spin[0-9]'
}

for size in "80 24" "200 50"; do
	read -r COLS ROWS <<<"$size"
	run_tt "$COLS" "$ROWS"

	# 1. Header: counts now, not shares: 3 running (/proc cannot tell waiting
	# from running), 1 D, 1 stopped, 1 zombie; 4 + 1 + 1 + 1 threads alive.
	wait_for '^Threads 7: 3 running, 0 waiting, 1 D, 1 stopped, 1 zombie'
	[ "$COLS" = 200 ] && wait_for 'Load [0-9]+\.[0-9]{2} [0-9]+\.[0-9]{2} [0-9]+\.[0-9]{2}  Up '
	wait_for 'Mem \[.*[0-9.]+[KMGT]/[0-9.]+[KMGT]\]'
	# Whole parts only: the summary line ends at the end of one.
	last=$(row 4 | sed 's/ *$//')
	grep -Eq '(D|stopped|zombie|[0-9]\.[0-9]{2}|[0-9]{2}:[0-9]{2}|[KMGT]|%|ms|Drops [0-9]+|\))$' \
		<<<"$last" || fail "summary line cut mid-part at ${COLS}x$ROWS: '$last'"

	# 2. Stopped and zombie threads: their letters, never active.
	for p in "$STOPPED:T" "$ZOMBIE:Z"; do
		pid=${p%:*} letter=${p#*:}
		line=$(screen | grep -E "^ +$pid +$pid ")
		[ -n "$line" ] || fail "no row of pid $pid"
		awk -v l="$letter" '{ if ($4 != l) exit 1 }' <<<"$line" ||
			fail "pid $pid does not show state $letter: $line"
		grep -Eq ' 0\.00 ' <<<"$line" || fail "pid $pid counts as active: $line"
	done

	# 3. Every pane's titles fit whole at this size (dropped, not cut).
	wait_for 'TOP FRAME'
	keys 2
	wait_for 'ACTIVE.* SHARE'
	keys 3
	wait_for 'SYSCALL.* SHARE'
	# Idle rows hidden by default (the sleeping main thread's futex/join, the
	# vfork child is not watched), shown with i.
	wait_for 'idle rows hidden \(i shows\)'
	screen | grep -Eq '^(futex|wait4|nanosleep|clock_nanosleep) ' &&
		fail "an idle syscall row is shown by default"
	keys i
	wait_for '^(futex|clock_nanosleep|nanosleep|wait4|pause) '
	wait_gone 'idle rows hidden'
	keys i
	keys 1
	wait_for 'TOP FRAME'

	# 4. The process view: one row for the spinners' process, its threads summed.
	keys H
	wait_for ' 1 Procs '
	wait_for 'COMMAND'
	wait_for "^ +$SPIN +root "
	# Average the row's %CPU over 8 frames; /proc/PID/stat over the same span.
	redrawn
	t0=$(date +%s.%N) c0=$(awk '{print $14 + $15}' "/proc/$SPIN/stat")
	sum=0
	for ((i = 0; i < 8; i++)); do
		redrawn
		v=$(cell '%CPU' "^ +$SPIN ")
		[ -n "$v" ] || fail "no %CPU for pid $SPIN"
		sum=$(awk -v a="$sum" -v b="$v" 'BEGIN { print a + b }')
	done
	t1=$(date +%s.%N) c1=$(awk '{print $14 + $15}' "/proc/$SPIN/stat")
	read -r shown truth < <(awk -v s="$sum" -v c0="$c0" -v c1="$c1" -v t0="$t0" -v t1="$t1" \
		-v hz="$HZ" 'BEGIN { printf "%.1f %.1f\n", s / 8, (c1 - c0) / hz / (t1 - t0) * 100 }')
	awk -v a="$shown" -v b="$truth" 'BEGIN { d = a - b; exit !(d < 5 && d > -5) }' ||
		fail "process %CPU $shown is not within 5 points of /proc/$SPIN/stat's $truth"
	echo "process %CPU at ${COLS}x$ROWS: shown $shown, /proc/PID/stat $truth"
	# THR 4, RES, TIME+ like 0:12.34, the command line.
	wait_for "^ +$SPIN +root +[RS] .* 4 +[0-9.]+[KMG]? +[0-9]+:[0-9]{2}\.[0-9]{2} +/"
	# Enter opens the process's threads (the filter leaves its row alone, selected).
	keys '\'
	keys -l spinners
	keys Enter
	wait_for "^ +$SPIN +root"
	keys Enter
	wait_for "^all > pid $SPIN spinners"
	wait_for "^ +$SPIN +[0-9]+ spin[0-9]"
	wait_for ' 1 Threads '
	keys Escape
	wait_for ' 1 Procs '
	keys '\' Escape
	# The tree: F5, branches drawn; F5 again leaves it.
	keys F5
	wait_for ' 1 Tree '
	keys F5
	wait_for ' 1 Procs '
	keys H
	wait_for ' 1 Threads '

	# 5. Sort arrows say the order: PID ascending shows an up arrow, and ascends.
	keys F6
	wait_for 'Sort by'
	wait_for '^.*> ?ACTIVE|>ACTIVE' # the cursor is marked
	keys Home Enter
	wait_for 'PID[▲^]'
	order=$(screen | grep -Eo '^ +[0-9]+ +[0-9]+ ' | awk '{printf "%d.%07d\n", $1, $2}' | tr '\n' ' ')
	sorted=$(tr ' ' '\n' <<<"$order" | grep . | sort -n | tr '\n' ' ')
	[ "$order" = "$sorted" ] || fail "PID sort is not ascending under an up arrow: $order"
	keys I
	wait_for 'PID[▼v]'

	# 6. d: the interval changes live; the message stays a few seconds.
	keys d
	wait_for 'Interval \(seconds\): 1_'
	keys BSpace 2 Enter
	wait_for 'interval now 2 s'
	redrawn
	screen | grep -q 'interval now 2 s' || fail "the message left with the next frame"
	wait_for 'last interval \(?2\.0s'
	wait_gone 'interval now 2 s' 20
	keys q
	wait_for '^PROMPT\$'
done

# 7. Group by process: rows with %CPU (the sum of their threads'), not ACTIVE alone.
run_tt 200 50
keys g
wait_for 'Group by'
keys Space Down Down Space Down Space Enter # state off, process on, syscall off
wait_for 'PID +COMM +%CPU +THR +SAMPLES +ACTIVE'
wait_for "^ +$SPIN +spinners +[0-9]+\.[0-9] +4 "
keys 1
wait_for 'TOP FRAME'

# 8. F2 Setup: USER on in the thread view; the rc file keeps it.
screen | grep -Eq '^ +PID +TID +USER ' && fail "USER shown before it was chosen"
keys F2
wait_for 'Setup: thread columns'
wait_for '>\[x\] PID'
keys Down Down
wait_for '>\[ \] USER'
keys Space
wait_for '>\[x\] USER'
keys Escape
wait_for "columns saved to $XDG_CONFIG_HOME/threadtop/threadtoprc"
wait_for '^ +PID +TID +USER +COMM '
grep -q '^thread_columns=pid tid user comm' "$XDG_CONFIG_HOME/threadtop/threadtoprc" ||
	fail "the rc file lacks the choice: $(cat "$XDG_CONFIG_HOME/threadtop/threadtoprc")"
keys q
wait_for '^PROMPT\$'
run_tt 200 50
wait_for '^ +PID +TID +USER +COMM '
keys q
wait_for '^PROMPT\$'
# A bad rc file: one line naming the file and line, and threadtop runs.
echo 'thread_columns=pid bogus' >"$XDG_CONFIG_HOME/threadtop/threadtoprc"
# At 80x24: the Log pane shows the selected message whole, wrapped. -d 3:
# the start-up line about the first interval comes after the search below
# has selected the rc file's message, and the selection follows that
# message down (it stayed on the row, on the message above, and the rc
# file's was cut).
new_server
start_shell 80 24
keys "clear; XDG_CONFIG_HOME='$XDG_CONFIG_HOME' $TT_BIN --source proc -d 3 -p $PIDS" Enter
wait_for '^rc file: .*threadtoprc'
wait_for '^ +PID +TID +COMM '
keys 5
wait_for 'MESSAGES'
keys / # select it: the search moves the selection to it
keys -l 'rc file'
keys Enter
# Waited for: the selection is drawn at the TUI's next frame, later on a
# loaded machine; a message cut short stays cut and times out.
whole_rc_message() {
	local log
	log=$(screen | tr -d '\n' | tr -s ' ')
	grep -q "unknown column 'bogus' for thread_columns" <<<"$log" &&
		grep -q 'fix or remove the file)' <<<"$log"
}
wait_until "$TUI_WAIT" "the Log pane to show the rc file's message whole" whole_rc_message
wait_for 'first interval shown'
redrawn 1
whole_rc_message || fail "a new message took the selection off the rc file's: $(screen)"
keys q
wait_for '^PROMPT\$'
echo "PASS: tui_htop"
