#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Labels on CPU stacks in the TUI, driven in tmux on the label_burn workload
# with real uprobes (root, BPF): its thread burns CPU in burn_cpu() under
# phase=A (30 ms) and phase=B (10 ms) and only sleeps under phase=C. The
# Group pane by labels has a %CPU column from the on-CPU samples, higher for
# phase=A than for phase=B. Drilling down from the
# Group pane's labels dimension into phase=C leaves the Stacks pane's on-CPU
# tree without burn_cpu (the CPU stacks follow the label filter); into
# phase=A, burn_cpu is there.
set -u

TUI_NAME=tuilabcpu
# shellcheck source=lib/tui_common.bash
source "$(dirname "$0")/lib/tui_common.bash"
[ "$(id -u)" -eq 0 ] || { echo "SKIP: BPF needs root"; exit 77; }

bin=$(readlink -f "$TT_WORKLOADS/label_burn")
start_workload label_burn 2 "$TUI_WL_LIFE"
start_shell 160 40
keys "clear; $TT_BIN --source bpf -d 0.5 -p $WL --log $TUI_TMP/log \
--label 'phase=$bin:set_phase:str:arg1'; echo EXIT=\$?" Enter

# A BPF source that cannot load ends the run: skip, saying why.
started() { screen | grep -Eq 'LABELS|EXIT=[0-9]'; }
wait_until "$TUI_WAIT" "threadtop to start" started
screen | grep -q 'LABELS' || {
	echo "SKIP: threadtop could not start the BPF source: $(cat "$TUI_TMP/log")"
	exit 77
}
wait_for 'burner .*phase='

# Group by the labels dimension only: g, state off (the first), syscall off
# (the fourth), application labels on (the last), Enter.
keys 2
keys g
wait_for 'application labels'
keys Space Down Down Down Space End Space Enter
wait_for 'LABELS +%CPU +THR'
# The labelled sleepers are idle rows, hidden by default: i shows them.
keys i
# The session window (F7 twice): every phase has rows, whatever the last interval held.
keys F7 F7
wait_for 'window: session'
# %CPU by phase from the on-CPU samples: A burns three times what B does.
wait_for 'phase=A +[0-9]+\.[0-9] '
wait_for 'phase=B +[0-9]+\.[0-9] '
# (Decimals: on a loaded machine the burner gets a small share, and both
# figures can be under 1.) Waited for as the session grows: a second in, on
# a saturated box, the two rest on a handful of samples and can tie (8.3
# and 8.3 on 11 and 5 samples in a CI run); the session's shares converge.
cpu_of() { screen | awk -v p="phase=$1" '$1 == p {print $2}'; }
a_above_b() {
	a=$(cpu_of A)
	b=$(cpu_of B)
	[ -n "$a" ] && [ -n "$b" ] && awk -v a="$a" -v b="$b" 'BEGIN { exit !(a + 0 > b + 0) }'
}
redrawn 2
wait_until "$TUI_WAIT" "phase=A's %CPU above phase=B's (the screen below)" a_above_b

# From the top, Enter on the row of phase=$1 (the rows filtered to it with \).
drill() {
	keys 2
	wait_for "phase=$1"
	keys '\'
	keys Escape
	keys '\'
	keys -l "phase=$1"
	keys Enter
	# Enter on the row only once the filter has left it alone on the screen.
	wait_for "filter \"phase=$1\""
	wait_gone "^(phase=[^$1]|\\(no labels\\))"
	keys Enter
	wait_for "all > .*phase=$1"
}

drill C
keys 4
wait_for ' 4 Stacks '
# A few refreshes: phase C only sleeps, so none of its CPU stacks is in burn_cpu.
redrawn 3
screen | grep -q 'burn_cpu' && fail "the Stacks pane drilled into phase=C shows burn_cpu"

# Back to the top (Backspace), then into phase A: burn_cpu is its CPU.
keys BSpace
wait_for '^all *$|^all  '
drill A
keys 4
wait_for 'burn_cpu'

keys q
wait_for 'EXIT=0'
echo PASS
