#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The TUI's start-up (issue #21): the first interval is a short one (two
# passes, a tenth of a second at least, whatever -d), the table says that
# the first samples are being taken until it ends, kernel frames shown
# before kallsyms is read get their names once it is, the programs loaded
# in the background are attached later and said in the log (BPF: on-CPU
# samples arrive, "+oncpu"), and a start that fails after the screen
# opened gives the terminal back with the reason on it. Waits on what the screen shows, never on a timer;
# no figure here is a time. An interval's length is judged against the
# -d and rate asked, with a pass's lateness allowed (a slow machine's
# passes come late; under software emulation by a tenth of a second).
set -u

TUI_NAME=startup
# shellcheck source=lib/tui_common.bash
source "$(dirname "$0")/lib/tui_common.bash"

# A failed start: the screen opened ("starting..."), -p names no process; the
# reason must reach the terminal after curses gave it back.
start_session 100 30 "$TT_BIN --source proc -p 999999999; echo EXITED \$?; sleep 30"
wait_for 'EXITED 1'
screen | grep -q 'no such process' || fail "the reason did not reach the terminal"

# shown_interval: the length of the last interval in the title, in seconds.
shown_interval() { row 1 | grep -o 'last interval ([0-9.]*s)' | grep -o '[0-9.]*'; }
# interval_in LO HI: the title shows an interval of LO s or more, under HI.
interval_in() {
	local x
	x=$(shown_interval) && awk -v x="$x" -v lo="$1" -v hi="$2" 'BEGIN { exit !(x >= lo && x < hi) }'
}
wait_interval() { # LO HI
	wait_until "$TUI_WAIT" "an interval of $1-$2 s in the title" interval_in "$@"
}

# The first interval is short (two passes at 20 Hz: 0.1 s shown in the title,
# more if a pass came late, far less than -d), the next -d long.
new_server
start_workload tui_target 3 "$TUI_WL_LIFE"
start_session 160 40 "$TT_BIN --source proc -d 2 -p $WL --log $TUI_TMP/proc.log"
wait_for 'last interval \('
first=$(row 1 | grep -o 'last interval ([0-9.]*s)')
interval_in 0.1 1.0 || fail "first interval not a short one: $first"
wait_interval 2.0 2.5

# At 1 Hz the first interval is its two passes (2 s, shorter than -d 5),
# and until it ends the table says what is under way, not "no thread".
new_server
start_session 160 40 "$TT_BIN --source proc -F 1 -d 5 -p $WL"
wait_for 'taking the first samples'
screen | grep -q 'no thread was sampled' && fail "an empty table before the first interval"
wait_interval 2.0 3.0
wait_for '^ +[0-9]+ +[0-9]+ '
wait_interval 5.0 6.0

# BPF (when it loads here): the background programs come in and say so.
if [ "$(id -u)" -eq 0 ] && "$TT_BIN" -b -n 1 -d 0.1 --source bpf >/dev/null 2>&1; then
	new_server
	start_session 160 40 "$TT_BIN --source bpf -d 0.5 --log $TUI_TMP/bpf.log"
	wait_for 'Hz \+oncpu'
	# The first frames may name kernel frames "(reading kallsyms)" rather than
	# wait for it; once it is in, the frame is shown again with the names.
	wait_gone '\(reading kallsyms\)'
	wait_for '^ +[0-9]+ +[0-9]+ .*\[k\]'
	wait_until "$TUI_WAIT" "the log line of the background load" \
		grep -q 'verified in the background' "$TUI_TMP/bpf.log"
	grep -q 'one-pass thread sampler did not load' "$TUI_TMP/bpf.log" &&
		echo "note: this kernel keeps the task iterator sampler (no 6.7 kfuncs)"
	wait_for '^ +[0-9]+ +[0-9]+ '
else
	echo "note: BPF cannot load here: the background load is not checked"
fi
echo "PASS: start-up: reason given back, first interval ${first#last interval }, background load"
