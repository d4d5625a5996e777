#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The TUI driven in tmux (a private server) at a fixed size (100x30) on a live workload, /proc
# source (no BPF needed): panes, headers and rows appear; keys switch panes,
# sort, filter, search, drill down and back; help opens and closes; 60x20
# shows the "too small" message and 100x30 recovers; a comm holding an escape
# sequence renders inert; q exits promptly leaving the terminal sane.
set -u

TUI_NAME=tui
# shellcheck source=lib/tui_common.bash
source "$(dirname "$0")/lib/tui_common.bash"

# click X Y (0-based): button-1 press and release in X10 mouse encoding, as xterm sends them.
click() {
	local xy
	xy=$(printf '%b%b' "\\x$(printf %x $((33 + $1)))" "\\x$(printf %x $((33 + $2)))")
	tm send-keys -t "$S" -l $'\e[M '"$xy"
	tm send-keys -t "$S" -l $'\e[M#'"$xy"
}
# wheel down at X Y.
wheel_down() {
	tm send-keys -t "$S" -l "$(printf '\e[Ma%b%b' "\\x$(printf %x $((33 + $1)))" \
		"\\x$(printf %x $((33 + $2)))")"
}

start_workload tui_target 3 300
start_shell 100 30
keys "clear; $TT_BIN --source proc -d 0.5 -p $WL" Enter

# Layout: header, tabs, breadcrumb, column titles, footer, the workload's rows.
wait_for 'ttsleep'
wait_for 'ttspin'
s=$(screen)
for want in '^threadtop ' 'source proc' 'CPU \[' 'Mem \[' 'CPUs [0-9]+' 'USE: ' 'Threads [0-9]+' ' 1 Threads ' ' 2 Group ' \
	' 3 Syscalls ' ' 4 Stacks ' ' 5 Log ' '^all' 'PID +TID' 'SYSCALL' 'TOP FRAME' \
	'F1Help' 'F10Quit' 'clock_nanosleep'; do
	grep -Eq -- "$want" <<<"$s" || fail "missing on the first screen: $want"
done
# The escape sequence in the comm is shown, not obeyed (ESC [2J would clear).
grep -Fq '\e[2Jevil' <<<"$s" || fail "the comm with an escape sequence is not shown escaped"
grep -q $'\e' <<<"$(screen -e | sed 's/\x1b\[[0-9;]*m//g')" &&
	fail "a raw escape reached the screen"

# Panes: Tab, Shift-Tab, digits.
keys Tab
wait_for 'THR +SAMPLES'
keys 3
wait_for 'SYSCALL.*SAMPLES'
# The sleeper's syscall is an idle row: hidden until i.
wait_for 'idle rows hidden'
keys i
wait_for 'clock_nanosleep'
keys i
keys 4
wait_for 'Stacks need the BPF source'
keys 5
wait_for 'MESSAGES'
keys BTab
wait_for 'Stacks need the BPF source'
keys 1
wait_for 'PID +TID'

# Sort: < moves the sort column from ACTIVE to %CPU; I reverses; > back.
wait_for 'ACTIVE[▼v]'
keys '<'
wait_for '%CPU[▼v]'
keys I
wait_for '%CPU[▲^]'
keys '>'
wait_for 'ACTIVE[▼v]'
# Sort by TID ascending and check the order of the three threads.
keys F6
wait_for 'Sort by'
keys Home Down Enter
wait_for 'TID[▲^]' # ascending: the arrow points up
order=$(screen | grep -Eo '^ +[0-9]+ +[0-9]+ ' | awk '{print $2}' | tr '\n' ' ')
sorted=$(tr ' ' '\n' <<<"$order" | grep . | sort -n | tr '\n' ' ')
[ "$order" = "$sorted" ] || fail "TID sort is not ascending: $order"

# Mouse: a click on a column title sorts by it, again reverses; a click on a
# tab switches panes; a click on a row selects it (Enter then drills into it).
keys F6
wait_for 'Sort by'
keys Home Enter
wait_for 'PID[▲^]' # ascending
# line_of REGEX: the 0-based screen row of the first line matching.
line_of() { screen | grep -nE -- "$1" | head -1 | cut -d: -f1 | awk '{print $1 - 1}'; }
hy=$(line_of '^ +PID.? +TID')
x=$(screen | grep -E '^ +PID' | head -1 | awk '{print index($0, "COMM")}')
click "$x" "$hy"
wait_for 'COMM[▲^]'
click "$x" "$hy"
wait_for 'COMM[▼v]'
ty=$(line_of ' 1 Threads ')
x=$(screen | grep ' 1 Threads ' | awk '{print index($0, "3 Syscalls")}')
click "$x" "$ty"
wait_for 'SYSCALL.*SAMPLES'
wheel_down 10 $((ty + 4))
x=$(screen | grep ' 1 Threads ' | awk '{print index($0, "1 Threads")}')
click "$x" "$ty"
wait_for 'PID +TID'
y=$(screen | grep -n 'ttspin' | head -1 | cut -d: -f1)
click 3 $((y - 1))
keys Enter
wait_for '^all > tid [0-9]+ ttspin'
keys Escape
wait_for 'PID +TID'

# Filter: only ttsleep stays; Esc in the prompt clears it.
keys '\'
wait_for 'Filter: _'
keys -l ttsleep
keys Enter
wait_gone 'ttspin'
wait_for 'filter "ttsleep"'
screen | grep -q 'ttsleep' || fail "filter lost the matching row"

# Drill down on ttsleep: breadcrumb shows it, Group pane opens; Esc pops.
keys Enter
wait_for '^all > tid [0-9]+ ttsleep'
wait_for 'THR +SAMPLES'
keys Escape
wait_for '^all *$|^all  '
wait_for 'PID +TID'
keys '\' Escape
wait_for 'ttspin'

# Search: / jumps to a match; not found is reported.
keys /
wait_for 'Search: _'
keys -l zzznothere
wait_for 'not found: zzznothere'
keys Escape

# H: one row per process (the threads folded into it); H again shows them.
keys H
wait_for ' 1 Procs '
wait_gone 'ttsleep'
keys H
wait_for 'ttsleep'

# Pause: the title says so; p resumes.
keys p
wait_for 'PAUSED'
keys p
wait_gone 'PAUSED'

# Help lists every key and closes on any key.
keys F1
wait_for 'help: every key'
# Every key is on one of the help's pages (Down scrolls to the last).
help=$(screen)
if grep -q 'Down: more keys below' <<<"$help"; then
	for ((i = 0; i < 20; i++)); do keys Down; done
	wait_for 'Up: more keys above'
	help+=$(screen)
fi
for want in 'Tab / Shift-Tab' 'Enter' 'Esc / Backspace' '/ or F3' 'q or F10' 'H' 'K' 'p or F8' \
	'F2' 'd or s' 't or F5' 'i'; do
	grep -Fq -- "$want" <<<"$help" || fail "help lacks: $want"
done
keys x
wait_for 'F10Quit'
keys h
wait_for 'help: every key'
keys Escape
wait_for 'F10Quit'

# Resize: too small, then back.
tm resize-window -t "$S" -x 60 -y 20
wait_for 'terminal too small: need 80x24'
tm resize-window -t "$S" -x 100 -y 30
wait_for 'F10Quit'
wait_for 'PID +TID'

# Quit within a second; the shell gets back a sane terminal.
keys q
start=$(date +%s%N)
wait_for '^PROMPT\$'
ms=$((($(date +%s%N) - start) / 1000000))
# Prompt, not instant: a loaded machine delays the shell's prompt too. A
# sanitizer build checks the whole heap for leaks on the way out: more time.
limit=3000
ldd "$TT_BIN" 2>/dev/null | grep -c libasan >/dev/null && limit=8000
((ms <= limit)) || fail "q took ${ms} ms to exit (limit ${limit} ms)"
keys "stty -a | tr ' ' '\n' | grep -Ex -- '-?(echo|icanon)' | tr '\n' ' '; echo END" Enter
wait_for 'END$'
s=$(screen)
grep -q -- '-echo' <<<"$s" && fail "terminal left without echo"
grep -q -- '-icanon' <<<"$s" && fail "terminal left in non-canonical mode"
grep -Eq 'Sanitizer|runtime error' <<<"$s" && fail "sanitizer report at exit"
echo "PASS: tui_keys (quit took ${ms} ms)"
