#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# A LuaJIT process beside two C processes in the Stacks pane (issue #25
# items 2 and 4), driven in tmux at 80x24 with the BPF source (root): luajit
# running lib/hot_mix.lua with the sysprof library preloaded, two_funcs
# (tf-alpha in alpha_spin, tf-beta in beta_spin) and spinners (spin0 in
# spin_burn), all on the box's CPUs at once, stopped (SIGSTOP) but for 10 s
# of threadtop's session. While they run, the Threads pane names the
# LuaJIT thread's work by its Lua function (hot_loop [lua], as the LuaJIT
# pane), not by the JIT-compiled code's address. Then, in the session
# window, the on-CPU call tree has the three processes as roots, each
# TOTAL% within 5 points of its share of the CPU time the three used
# (/proc) and of its share of perf record's samples over the same seconds
# (the LuaJIT stacks, which replace luajit's own CPU-clock stacks, weigh by
# time and push no process out); the hot functions list the three C
# leaves and a Lua function on top, the C leaves' SELF% within 5 points of
# perf report --no-children's.
# Skips (77) without root, BPF, perf, luajit or the sysprof library.
. "$(dirname "$0")/bpf_common.bash"

command -v tmux >/dev/null || skip "tmux is not installed"
command -v perf >/dev/null || skip "perf is not installed (apt-get install linux-perf)"
perf record -e cpu-clock -o "$TMPD/probe.data" -- true >/dev/null 2>&1 ||
	skip "perf record -e cpu-clock cannot sample here"
require_sysprof luajit

TUI_NAME=tuicalltreelj
# shellcheck source=lib/tui_common.bash
source "$(dirname "$0")/lib/tui_common.bash"
# (wait_until is tui_common's from here: SECONDS WHAT COMMAND...)

start two_funcs 300
tf=$WL
start spinners 1 300
sp=$WL
start_preloaded_lua "$(dirname "$0")/lib/hot_mix.lua" 300
lj=$LJ
# Stopped below for the comparison: a failure must not leave them stopped.
trap 'kill -CONT $tf $sp $lj 2>/dev/null; tui_cleanup; cleanup' EXIT
wait_until "$TUI_WAIT" "two_funcs' threads" has_threads "$tf" 3
wait_until "$TUI_WAIT" "spinners' thread" has_threads "$sp" 2

# threadtop's session, /proc's CPU time and perf's samples over the same
# seconds: the workloads stopped until threadtop has started, stopped again
# before the comparison.
kill -STOP "$tf" "$sp" "$lj"
start_shell 80 24
keys "clear; $TT_BIN --source bpf -p $tf,$sp,$lj --log $TUI_TMP/log; echo EXIT=\$?" Enter
started() { screen | grep -Eq 'PID +TID|EXIT=[0-9]'; }
wait_until "$TUI_WAIT" "threadtop to start" started
screen | grep -Eq 'PID +TID' || fail "threadtop did not start: $(cat "$TUI_TMP/log")"
# utime + stime of every thread of process $1, in clock ticks.
ticks() { awk '{ sub(/.*\) /, ""); t += $12 + $13 } END { print t + 0 }' /proc/"$1"/task/*/stat; }
declare -A t0 t1
for p in "$tf" "$sp" "$lj"; do t0[$p]=$(ticks "$p"); done
perf record -e cpu-clock -F 99 -p "$tf,$sp,$lj" -o "$TMPD/perf.data" >"$TMPD/perf.log" 2>&1 &
PERF=$!
WL_PIDS+=("$PERF")
sleep 0.5
kill -CONT "$tf" "$sp" "$lj"
end=$((SECONDS + 10))

# The running LuaJIT thread's TOP FRAME: its Lua function, not an address.
wait_for "^ +$lj +$lj +luajit .*(hot_loop|\\[lua\\]) *\$"
keys 4
wait_for 'ON-CPU CALL TREE'
# (The title names the window: the footer's message may come and go unseen.
# "window: session (233.1s)" when it fits, else "session 233.1s".)
keys w
wait_for '^threadtop .* last minute \(?[0-9]'
keys w
wait_for '^threadtop .* session \(?[0-9]'
while ((SECONDS < end)); do sleep 0.2; done
kill -STOP "$tf" "$sp" "$lj"
sleep 0.3
kill -INT "$PERF"
wait "$PERF" 2>/dev/null || true
for p in "$tf" "$sp" "$lj"; do t1[$p]=$(ticks "$p"); done
all=0
for p in "$tf" "$sp" "$lj"; do all=$((all + t1[$p] - t0[$p])); done
((all > 0)) || fail "the workloads used no CPU time"
perf script -i "$TMPD/perf.data" -F pid 2>/dev/null >"$TMPD/perf.pids"
[ -s "$TMPD/perf.pids" ] || skip "perf recorded no samples: $(cat "$TMPD/perf.log")"
perf report -i "$TMPD/perf.data" --no-children --sort sym --stdio 2>/dev/null >"$TMPD/perf.txt"

# The roots alone (E twice: all open, then all closed), the samples settled.
keys E
redrawn 1
keys E
redrawn 2
tree=$(screen)
close() { awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(a != "" && b != "" && d <= 5) }'; }
for p in "$tf" "$sp" "$lj"; do
	n=$(grep -cE " [a-z_]+ \\[$p\\] *\$" <<<"$tree" || true)
	[ "$n" -eq 1 ] || fail "process $p has $n root nodes in the tree, not 1"
	share=$(grep -E " [a-z_]+ \\[$p\\] *\$" <<<"$tree" | awk '{sub("%", "", $1); print $1}')
	cpu=$(awk -v d=$((t1[$p] - t0[$p])) -v a="$all" 'BEGIN { printf "%.1f", 100 * d / a }')
	pf=$(awk -v p="$p" '$1 == p { n++ } END { printf "%.1f", 100 * n / NR }' "$TMPD/perf.pids")
	echo "process $p: tree ${share}%, CPU time ${cpu}%, perf ${pf}%"
	close "$share" "$cpu" || fail "process $p: tree ${share}%, its CPU time share ${cpu}%"
	close "$share" "$pf" || fail "process $p: tree ${share}%, its perf samples' share ${pf}%"
done

# The hot functions: the C leaves and a Lua function on the top four rows.
keys f
wait_for 'ON-CPU FUNCTION'
redrawn 1
hot=$(screen)
rows=$(grep -E '^ *[0-9.]+% +[0-9.]+% ' <<<"$hot" | head -4)
for f in alpha_spin beta_spin spin_burn '\[lua\]'; do
	grep -q "$f" <<<"$rows" || fail "$f is not on the hot functions' top four rows"
done
self() { awk -v f="$1" '$4 == f {sub("%", "", $1); print $1; exit}' <<<"$rows"; }
pself() { awk -v f="$1" '$NF == f && $1 ~ /%$/ {sub("%", "", $1); print $1; exit}' "$TMPD/perf.txt"; }
for f in alpha_spin beta_spin spin_burn; do
	s=$(self "$f")
	p=$(pself "$f")
	echo "$f: SELF% ${s} here, ${p} in perf report --no-children"
	close "$s" "$p" || fail "$f: SELF% ${s} here, ${p} in perf report --no-children"
done

kill -CONT "$tf" "$sp" "$lj"
keys q
wait_for 'EXIT=0'
echo PASS
