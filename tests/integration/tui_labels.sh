#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Application labels in the TUI, driven in tmux on the label workload with
# real uprobes (root, BPF): the Threads pane has a LABELS column showing
# "wait=IO:DataFileRead" for the waiter thread and the hostile event name
# escaped (never obeyed); the Group pane groups by the labels dimension
# (picked with g); Enter on the label's row narrows every pane to it (the
# breadcrumb names the label, the Threads pane then lists only the waiter).
set -u

TUI_NAME=tuilab
# shellcheck source=lib/tui_common.bash
source "$(dirname "$0")/lib/tui_common.bash"
[ "$(id -u)" -eq 0 ] || { echo "SKIP: BPF needs root"; exit 77; }

bin=$(readlink -f "$TT_WORKLOADS/label_waits")
start_workload label_waits 4 "$TUI_WL_LIFE"
start_shell 140 30
keys "clear; $TT_BIN --source bpf -d 0.35 -p $WL --log $TUI_TMP/log \
--label 'wait=$bin:begin_wait:str:arg1' --label-clear 'wait=$bin:end_wait'; echo EXIT=\$?" Enter

# A BPF source that cannot load ends the run: skip, saying why. (EXIT= and a
# digit: the typed command line shows EXIT=$? until the screen is cleared.)
started() { screen | grep -Eq 'LABELS|EXIT=[0-9]'; }
wait_until "$TUI_WAIT" "threadtop to start" started
screen | grep -q 'LABELS' || {
	echo "SKIP: threadtop could not start the BPF source: $(cat "$TUI_TMP/log")"
	exit 77
}
# The waiter's row shows its label (it is inside begin_wait 60% of the time).
# The 0.35 s refresh drifts across the waiter's 0.5 s cycle: a refresh period
# of 0.5 s can lock onto its CPU-burning phase and never see the label.
wait_for 'waiter .*wait=IO:DataFileRead'
# The hostile value is shown escaped; a raw ESC never reaches the terminal.
# (Too long for its column, it loses its middle, marked: "wait=\e[31mL…".)
wait_for 'wait=\\e\[31mL.*(…|\\x07rel)'

# Group by the labels dimension: g, End (the last dimension), Space, Enter.
keys g
wait_for 'application labels'
keys End Space Enter
wait_for 'LABELS +%CPU +THR'
# The labelled sleepers are idle rows, hidden by default: i shows them.
keys i
wait_for 'wait=IO:DataFileRead'
wait_for '\(no labels\)'

# Drill down into the label's row: filter the rows to it (\ DataFileRead), Enter.
keys '\' 
keys -l DataFileRead
keys Enter
wait_for 'filter "DataFileRead"'
wait_for 'wait=IO:DataFileRead'
wait_gone '\(no labels\)' # (fails if the filter keeps the unlabelled row)
keys Enter
wait_for 'all > .*wait=IO:DataFileRead'
wait_for 'waiter'
redrawn 2 # a later frame than the first drawn after the drill-down
s=$(screen)
grep -q 'phases' <<<"$s" && fail "the drill-down by label still lists the phases thread"
grep -q ' evil' <<<"$s" && fail "the drill-down by label still lists the evil thread"

keys q
wait_for 'EXIT=0'
echo PASS
