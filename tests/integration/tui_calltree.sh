#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The Stacks pane's call tree by function (issue #25), driven in tmux on the
# two_funcs workload with the BPF source (root): one process, thread
# tf-alpha burning in alpha_spin() and tf-beta in beta_spin(), both under
# spin_loop(). The Group pane by leaf user function names its rows by
# function. With everything expanded (E), the on-CPU tree has one root
# node for the process ("two_funcs [PID]"), one node per function (each hot
# loop spans several addresses, which a tree by address showed as several
# rows), and alpha_spin's and beta_spin's TOTAL% are within 5 points of
# their shares in the folded export of the same samples (the session
# window, the workload stopped). The "last minute" window has stacks too;
# c merges processes by comm.
set -u

TUI_NAME=tuicalltree
# shellcheck source=lib/tui_common.bash
source "$(dirname "$0")/lib/tui_common.bash"
[ "$(id -u)" -eq 0 ] || { echo "SKIP: BPF needs root"; exit 77; }

start_workload two_funcs 3 "$TUI_WL_LIFE"
# Tall: fully expanded, each spinner's leaf has the kernel's interrupt paths
# under it, about 40 rows each under software emulation (a kernel harness
# guest), and the checks read both spinners' rows off one screen.
start_shell 160 150
keys "clear; $TT_BIN --source bpf -d 8 -p $WL --log $TUI_TMP/log; echo EXIT=\$?" Enter

started() { screen | grep -Eq 'PID +TID|EXIT=[0-9]'; }
wait_until "$TUI_WAIT" "threadtop to start" started
screen | grep -Eq 'PID +TID' || {
	echo "SKIP: threadtop could not start the BPF source: $(cat "$TUI_TMP/log")"
	exit 77
}
# The Threads pane names a running thread's work: its hottest user function.
wait_for 'tf-alpha .*alpha_spin'
wait_for 'tf-beta .*beta_spin'

# The Group pane by leaf user function: rows named by function (the
# picker's state and syscall off, leaf user function on), no addresses.
keys g
wait_for 'Group by'
keys Space Down Down Down Space Down Down Down Space Enter
wait_for '^USER LEAF '
wait_for '^alpha_spin '
wait_for '^beta_spin '
redrawn 1
screen | grep -Eq '^[^ ]*0x[0-9a-f]+ ' && fail "the Group pane's leaf rows show addresses"

keys 4
wait_for 'ON-CPU CALL TREE'
# The hint line names the keys that do what it says (e is export).
screen | grep -Fq 'c: by comm; + - * E: expand' || fail "Stacks hint line does not match the keys"
wait_for "two_funcs \\[$WL\\]"
wait_for '^ +100\.0% .*two_funcs'
keys E
wait_for 'beta_spin'
wait_for 'alpha_spin'

# The last minute has the tracers' stacks too (it showed none before).
keys w
wait_for 'window: last minute'
redrawn 1
screen | grep -q 'no on-CPU stack samples' && fail "the last minute window has no stacks"
wait_for "two_funcs \\[$WL\\]"

# The session with the workload stopped: the screen and the folded export
# of the same view hold the same samples (the export's total is the tree's
# root total; taken again if a late sample came in between).
kill -STOP "$WL"
keys w
wait_for 'window: session'
redrawn 2
ok=
for ((try = 1; try <= 4 && !ok; try++)); do
	redrawn 1
	tree=$(screen)
	total=$(grep "two_funcs \\[$WL\\]" <<<"$tree" | awk '{print $3}')
	keys e
	wait_for 'export'
	for ((i = 0; i < 120; i++)); do keys BSpace; done
	keys "$TUI_TMP/tree$try.folded" Enter
	wait_until "$TUI_WAIT" "the folded export" test -s "$TUI_TMP/tree$try.folded"
	sleep 0.5
	folded=$TUI_TMP/tree$try.folded
	[ "$(awk '{t += $NF} END {print t + 0}' "$folded")" = "$total" ] && ok=1
done
[ -n "$ok" ] || fail "no screen and export of the same samples in 4 tries"
n_proc=$(grep -c "two_funcs \\[$WL\\]" <<<"$tree")
[ "$n_proc" -eq 1 ] || fail "$n_proc root nodes for the process, not 1"
# One node per function under each parent: no two rows of the tree have the
# same path of functions, and alpha_spin and beta_spin are each once under
# spin_loop. (A stack cut short, its leaf straight under the process, is a
# node of its own: 9% of the samples under TCG on 6.1.)
printf '%s\n' "$tree" >"$TUI_TMP/tree.txt"
python3 - "$TUI_TMP/tree.txt" <<'PY' || fail "the tree has functions on more than one node under a parent"
import re, sys
paths, under = {}, {"alpha_spin": 0, "beta_spin": 0}
stack, root = [], None
for line in open(sys.argv[1], encoding="utf-8"):
    m = re.match(r"^ *[0-9.]+% +[0-9.]+% +[0-9]+ ", line)
    g = re.search(r"[└├]─[▾▸ ] ", line)
    if not m or not g:
        continue
    root = g.start() if root is None else root
    depth = (g.start() - root) // 2  # two columns a level
    stack[depth:] = [line[g.end():].strip()]
    path = ";".join(stack)
    paths[path] = paths.get(path, 0) + 1
    if len(stack) >= 2 and stack[-2] == "spin_loop" and stack[-1] in under:
        under[stack[-1]] += 1
dup = [p for p, n in paths.items() if n > 1]
print("under spin_loop:", under, "paths repeated:", dup[:3])
sys.exit(1 if dup or any(n != 1 for n in under.values()) else 0)
PY
# A function's share: its rows' (a stack cut short counts on its own row).
share() { grep -w "$1" <<<"$tree" | awk '{sub("%", "", $1); t += $1} END {print t}'; }
ta=$(share alpha_spin)
tb=$(share beta_spin)
fshare() {
	awk -v f="$1" '{ n = split($1, fr, ";"); for (i = 1; i <= n; i++) if (fr[i] == f) { a += $NF; break } }
		{t += $NF} END {if (t) printf "%.1f", 100 * a / t}' "$folded"
}
fa=$(fshare alpha_spin)
fb=$(fshare beta_spin)
close() { awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(a != "" && b != "" && d <= 5) }'; }
close "$ta" "$fa" || fail "alpha_spin: tree ${ta}% vs folded export ${fa}%"
close "$tb" "$fb" || fail "beta_spin: tree ${tb}% vs folded export ${fb}%"
echo "$total samples: alpha_spin tree ${ta}% folded ${fa}%; beta_spin tree ${tb}% folded ${fb}%"

# c: one root per comm, without the pid.
keys c
wait_for 'c: by pid'
wait_for ' two_funcs *$'
kill -CONT "$WL"

keys q
wait_for 'EXIT=0'
echo PASS
