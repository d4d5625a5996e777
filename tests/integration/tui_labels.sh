#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Application labels in the TUI, driven in tmux on the label workload with
# real uprobes (root, BPF): the Threads pane has a LABELS column showing
# "wait=IO:DataFileRead" for the waiter thread and the hostile event name
# escaped (never obeyed); the Group pane groups by the labels dimension
# (picked with g); Enter on the label's row narrows every pane to it (the
# breadcrumb names the label, the Threads pane then lists only the waiter).
set -u

: "${TT_BIN:?}" "${TT_WORKLOADS:?}"
command -v tmux >/dev/null || { echo "SKIP: tmux is not installed"; exit 77; }
[ "$(id -u)" -eq 0 ] || { echo "SKIP: BPF needs root"; exit 77; }

S=tt_tuilab_$$
WL=
fail() {
	echo "FAIL: $*"
	echo "--- screen ---"
	tmux -L "$S" capture-pane -t "$S" -p 2>/dev/null
	exit 1
}
cleanup() {
	tmux -L "$S" kill-server 2>/dev/null
	[ -n "$WL" ] && kill "$WL" 2>/dev/null
}
trap cleanup EXIT

screen() { tmux -L "$S" capture-pane -t "$S" -p; }
wait_for() {
	local deadline=$((SECONDS + ${2:-15}))
	while ((SECONDS < deadline)); do
		screen | grep -Eq -- "$1" && return 0
		sleep 0.2
	done
	fail "timed out waiting for: $1"
}
keys() { tmux -L "$S" send-keys -t "$S" "$@"; }

bin=$(readlink -f "$TT_WORKLOADS/label_waits")
"$bin" 120 &
WL=$!
sleep 0.3

tmux -L "$S" new-session -d -s "$S" -x 140 -y 30 -e LANG=C.UTF-8 "bash --norc --noprofile" ||
	fail "cannot start tmux"
tmux -L "$S" set-option -t "$S" window-size manual >/dev/null 2>&1
keys "PS1='PROMPT\$ '" Enter
wait_for '^PROMPT\$'
keys "clear; $TT_BIN --source bpf -d 0.35 -p $WL --log /tmp/tt_tuilab_log.$$ \
--label 'wait=$bin:begin_wait:str:arg1' --label-clear 'wait=$bin:end_wait'; echo EXIT=\$?" Enter

# A BPF source that cannot load ends the run: skip, saying why.
deadline=$((SECONDS + 15))
while ((SECONDS < deadline)); do
	s=$(screen)
	grep -q 'LABELS' <<<"$s" && break
	if grep -q 'EXIT=' <<<"$s"; then
		echo "SKIP: threadtop could not start the BPF source: $(cat /tmp/tt_tuilab_log.$$)"
		rm -f /tmp/tt_tuilab_log.$$
		exit 77
	fi
	sleep 0.2
done
rm -f /tmp/tt_tuilab_log.$$
wait_for 'LABELS'
# The waiter's row shows its label (it is inside begin_wait 60% of the time).
# The 0.35 s refresh drifts across the waiter's 0.5 s cycle: a refresh period
# of 0.5 s can lock onto its CPU-burning phase and never see the label.
wait_for 'waiter .*wait=IO:DataFileRead' 20
# The hostile value is shown escaped; a raw ESC never reaches the terminal.
wait_for 'wait=\\e\[31mLock:\\x07rel' 20

# Group by the labels dimension: g, End (the last dimension), Space, Enter.
keys g
wait_for 'application labels'
keys End Space Enter
wait_for 'LABELS +THR' 10
wait_for 'wait=IO:DataFileRead' 10
wait_for '\(no labels\)' 10

# Drill down into the label's row: filter the rows to it (\ DataFileRead), Enter.
keys '\' 
keys -l DataFileRead
keys Enter
wait_for 'wait=IO:DataFileRead' 10
sleep 0.5
screen | grep -q '(no labels)' && fail "the filter kept the unlabelled row"
keys Enter
wait_for 'all > .*wait=IO:DataFileRead' 10
wait_for 'waiter' 10
sleep 1.5
s=$(screen)
grep -q 'phases' <<<"$s" && fail "the drill-down by label still lists the phases thread"
grep -q ' evil' <<<"$s" && fail "the drill-down by label still lists the evil thread"

keys q
wait_for 'EXIT=0' 10
echo PASS
