#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Every pane fits 80x24 without cutting a name mid-word (issue #26 item 5),
# in tmux at 80x24 and 200x50, BPF source (root) on real workloads:
# long_names (CPU burnt under names too long for 80 columns, below a
# recursion deeper than the screen), two spinners (so the USE verdict has
# something to say), a LuaJIT script with a long function name in a long
# directory (preloaded sysprof library), --offcpu, --trace and a --cmd with
# long output. For the Stacks, LuaJIT, Traces and USE panes and the header
# (whose title names the window):
# - no row is wider than the terminal;
# - the panes' column titles are there (TOTAL% SELF% SAMPLES CALL TREE;
#   SELF% TOTAL% TRACE% HOT LUA FUNCTIONS; COMPONENT UTIL% SATURATION);
# - a known long name shows whole, or elided with the marker "…" as
#   head…tail where head is the name's start and tail its end; at 200
#   columns the leaf's name shows whole;
# - the deep tree shows its hidden outer levels with the marker at 80;
# - the USE verdict (header and pane) ends with a whole word of one of its
#   wordings, never a cut one; lines too long for the screen end with "…".
. "$(dirname "$0")/bpf_common.bash"

command -v tmux >/dev/null || skip "tmux is not installed"
TUI_NAME=fit80
# shellcheck source=lib/tui_common.bash
source "$(dirname "$0")/lib/tui_common.bash"
trap 'tui_cleanup; cleanup' EXIT

LEAF=tt_leaf_function_whose_name_is_far_too_long_for_an_eighty_column_terminal
OUTER=tt_outer_function_of_the_long_names_workload
M=…

start long_names 600
PIDS=$WL
start spinners 2 600
PIDS+=,$WL

# The LuaJIT part only where luajit and the sysprof library are.
LUA=
if [ -z "$(sysprof_unusable luajit)" ]; then
	LUADIR=$TMPD/a_rather/long_directory_name/for_the_chunk
	mkdir -p "$LUADIR"
	LUA=$LUADIR/w.lua
	LFN=a_lua_function_with_a_long_descriptive_name
	cat >"$LUA" <<LUA
local function hot_loop(n) local s = 0 for i = 1, n do s = s + i % 7 end return s end
local function $LFN(n) if n < 2 then return n end return $LFN(n - 1) + $LFN(n - 2) end
jit.off($LFN)
local t = os.clock()
while os.clock() - t < 600 do hot_loop(1e5) $LFN(22) end
LUA
	chmod -R a+rX "$TMPD"
	LD_PRELOAD=$SYSPROF_LIB luajit "$LUA" >"$TMPD/lua.out" 2>&1 &
	WL_PIDS+=("$!")
	PIDS+=,$!
else
	echo "note: no luajit or sysprof library (or an ASan build): the LuaJIT pane is not checked"
fi

CMD_OUT=the_quick_brown_fox_jumps_over_the_lazy_dog_and_keeps_running_past_eighty_columns

# The screen's widest row, in columns.
widest() { screen | wc -L; }
fits() {
	local w
	w=$(widest)
	[ "$w" -le "$COLS" ] || fail "a row is $w columns wide at ${COLS}x$ROWS"
}
# name_ok NAME: every token on screen that starts like NAME (its first 8
# characters) or ends like it after the marker is NAME whole or
# head…tail of it (else the test fails); false when there is no such token.
name_ok() {
	local name=$1 tok head tail n=0
	while read -r tok; do
		[ -n "$tok" ] || continue
		n=$((n + 1))
		if [[ $tok == *"$M"* ]]; then
			head=${tok%%"$M"*} tail=${tok#*"$M"}
			[[ $name == "$head"* && $name == *"$tail" ]] ||
				fail "'$tok' is not $name elided at ${COLS}x$ROWS"
		else
			[ "$tok" = "$name" ] || fail "'$tok' is $name cut without the marker at ${COLS}x$ROWS"
		fi
	done < <(screen | grep -oE "(${name:0:8}[^ ]*|$M[^ ]*)" |
		grep -E "^${name:0:8}|^$M${name: -4}$|^$M.*${name: -4}$" || true)
	[ "$n" -gt 0 ]
}
# verdict_ok LINE: the verdict ends with a whole word of a wording.
verdict_ok() {
	grep -Eq '(busy|saturated|critical|[0-9]%|errors|errors on [0-9]+|\)|CPU|waiting|per s|queue|await|retransmitted|throttled|yet|ok|[0-9])$' <<<"$1" ||
		fail "the verdict is cut at ${COLS}x$ROWS: '$1'"
}

for size in "80 24" "200 50"; do
	read -r COLS ROWS <<<"$size"
	new_server
	start_session "$COLS" "$ROWS" "TERM=xterm-256color $TT_BIN -d 1 -p $PIDS --offcpu \
		--trace sched:sched_process_exec --cmd 'echo $CMD_OUT and more words'; sleep 60"
	wait_for 'F10Quit'
	wait_gone 'no interval measured yet'

	# Title: the window every figure is of, whatever the source's parts
	# (+oncpu +offcpu pushed it out at 80 columns).
	wait_for '^threadtop .*\+offcpu'
	row 1 | grep -Eq ' window: | (this interval|last interval|last minute|session) [0-9]' ||
		fail "the title does not name the window at ${COLS}x$ROWS: '$(row 1)'"

	# Header: the verdict's line.
	fits
	line=$(row 3 | sed 's/ *$//')
	[[ $line == *"USE: "* ]] || fail "no USE verdict in the header: '$line'"
	verdict_ok "$line"

	# Threads: the top frame's cell follows the rule too.
	wait_for 'TOP FRAME'
	fits

	# Stacks, narrowed to long_names (the spinners' tree would be the hotter):
	# columns, the outer function, the leaf (found by search).
	keys / l o n g _ n a m e s Enter
	wait_gone 'Search: '
	keys Enter
	wait_for '^all > tid [0-9]+ long_names'
	keys 4
	wait_for 'TOTAL% +SELF% +SAMPLES +ON-CPU CALL TREE'
	# The session window: under emulation an interval may hold no sample
	# of the thread (a 6.12 guest took 6 in three minutes). Its header
	# must fit too.
	keys w w
	wait_for 'window: session|  session '
	fits
	wait_until "$TUI_WAIT" "$OUTER on screen" name_ok "$OUTER"
	fits
	keys / t t _ l e a f Enter
	wait_gone 'Search: '
	wait_until "$TUI_WAIT" "$LEAF on screen" name_ok "$LEAF"
	fits
	if [ "$COLS" = 80 ]; then
		# Deeper than the screen: the outer levels hidden behind the marker.
		wait_for "^ +[0-9.]+% +[0-9.]+% +[0-9]+ $M "
	else
		wait_for "$LEAF"
	fi
	keys Escape
	wait_for '^all *$'

	# LuaJIT: the block line whole, the function columns, the long name.
	if [ -n "$LUA" ]; then
		keys 6
		# (At least 60 s natively; TUI_WAIT where that is longer: TCG.)
		wait_for 'SELF% +TOTAL% +TRACE% +HOT LUA FUNCTIONS' $((TUI_WAIT > 60 ? TUI_WAIT : 60))
		wait_for '^pid [0-9]+ +tid [0-9]+ +luajit +[0-9]+ samples'
		wait_for "${LFN:0:8}"
		fits
		screen | grep -E '^pid [0-9]' | sed 's/ *$//' | while read -r l; do
			grep -Eq '(samples|10|ms|\(process\))$' <<<"$l" || fail "block line cut: '$l'"
		done
		full="$LFN @$LUA:2"
		shown=$(screen | grep -E "^ +[0-9.]+% +[0-9.]+% +[0-9.]+% +${LFN:0:8}" | head -1 |
			sed -E 's/^ +[0-9.]+% +[0-9.]+% +[0-9.]+% +//; s/ *$//')
		[ -n "$shown" ] || fail "no line of $LFN"
		if [[ $shown == *"$M"* ]]; then
			head=${shown%%"$M"*} tail=${shown#*"$M"}
			[[ $full == "$head"* && $full == *"$tail" ]] ||
				fail "'$shown' is not '$full' elided"
		else
			[ "$shown" = "$full" ] || fail "'$shown' is '$full' cut without the marker"
		fi
	fi

	# Traces: the command line whole at 200, ended by the marker at 80;
	# trace lines whole or ended by the marker.
	keys 8
	wait_for '^COMMANDS \(--cmd\)'
	wait_for '^KERNEL TRACES \(--trace\)'
	wait_for 'old_pid=[0-9]+|…$'
	fits
	cmdline=$(screen | grep -E '^\$ echo' | sed 's/ *$//')
	if [ "$COLS" = 80 ]; then
		[[ $cmdline == *"$M" ]] || fail "the command line is cut without the marker: '$cmdline'"
	else
		[ "$cmdline" = "\$ echo $CMD_OUT and more words" ] || fail "command line: '$cmdline'"
	fi
	screen | grep -E '^  .*\[[0-9]{3}\]' | sed 's/ *$//' | while read -r l; do
		grep -Eq "(old_pid=[0-9]+|$M)$" <<<"$l" || fail "trace line cut: '$l'"
	done

	# USE: the columns, the verdict, its evidence and what is not measured.
	keys 7
	wait_for '^Verdict: '
	wait_for '^COMPONENT +UTIL% +SATURATION +ERRORS'
	fits
	verdict_ok "$(screen | grep '^Verdict: ' | sed 's/ *$//')"
	if [ "$COLS" = 200 ] && screen | grep -q '^Verdict: .* saturated:'; then
		screen | grep -Eq '^Verdict: .* (>|>=) [0-9]' || fail "at 200 columns the verdict lacks its thresholds"
	fi
	screen | grep -E '^  (evidence|not measured):' | sed 's/ *$//' | while read -r l; do
		grep -Eq "(\)|[0-9]|instead)$" <<<"$l" || fail "verdict block line cut: '$l'"
	done
	keys q
done
echo "PASS: every pane fits 80x24 and 200x50 without a name cut mid-word"
