#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The TUI in the one-pipeline comparison (views_agree.sh compares the rest):
# for each kind of workload, a short BPF recording; replayed in batch mode
# it writes the folded and speedscope exports of the whole recording, and
# replayed in the TUI (tmux) to its end with the session window, the Stacks
# pane's rows must be the folded file's (lib/tui_stacks_compare.py): the
# same frames (functions merged, inlined ones marked, Lua frames stitched,
# the tracer's cut), TOTAL% and SELF% to the 0.1% shown, the same samples
# or off-CPU ms. The kinds: C with frame pointers and inlined code
# (inline_hot), without frame pointers (inline_hot_nofp: DWARF), a LuaJIT
# loop (sampled every 10 ms, the default, and every 1 ms: shares of time,
# the JSON report's, counts in CPU-clock samples) and off-CPU time
# (block_sites, --offcpu). The replay's speedscope
# file must have an evented (time-ordered) profile per on-CPU thread equal
# to its sampled one (lib/speedscope_check.py): a recording keeps the
# samples' times; and its stacks must be named as the live run's folded
# export names them (a LuaJIT C function known only by address included). Off-CPU, 64-bit syscalls' entry frames are named as perf
# names them (__x64_sys_*, not __ia32_sys_*).
. "$(dirname "$0")/bpf_common.bash"

command -v python3 >/dev/null || skip "python3 is not installed"
TUI_NAME=tuiviews
# shellcheck source=lib/tui_common.bash
source "$(dirname "$0")/lib/tui_common.bash"
# Both clean-ups: the tmux servers (tui_common), the workloads and files (bpf_common).
# (wait_until is tui_common's from here: SECONDS WHAT COMMAND...)
trap 'tui_cleanup; cleanup' EXIT

# compare_tui NAME KIND [OPTIONS...]: records $WL, replays it both ways, compares.
compare_tui() {
	local name=$1 kind=$2 d=$TMPD/$1 folded live try
	shift 2
	mkdir -p "$d"
	chmod 1777 "$d"
	timeout $((2 * TT_TEST_WAIT)) "$TT_BIN" -b --format json -n 3 -d 1 --source bpf \
		--unwind auto --unwind-budget 20 -p "$WL" "$@" -w "$d/r.ttr" \
		--export "$d/live.folded" >/dev/null 2>"$d/err" ||
		fail "$name: recording failed: $(tail -n 3 "$d/err")"
	"$TT_BIN" -r "$d/r.ttr" -b --format json --export "$d/v.folded" \
		--export "$d/v.speedscope.json" --export "$d/v.json" >/dev/null 2>"$d/rerr" ||
		fail "$name: the batch replay failed: $(tail -n 3 "$d/rerr")"
	folded=$d/v.folded
	[ "$kind" = oncpu ] || folded=$d/v.$kind.folded
	[ -s "$folded" ] || fail "$name: no $kind stacks in the recording"
	echo "== $name"
	# The replay names every frame as the live run did (recorded names).
	live=$d/live.folded
	[ "$kind" = oncpu ] || live=$d/live.$kind.folded
	diff <(sed 's/ [0-9]*$//' "$live" | sort -u) <(sed 's/ [0-9]*$//' "$folded" | sort -u) ||
		fail "$name: the replay's stacks are not the live run's (live <, replay >)"
	if [ "$kind" = oncpu ]; then
		python3 "$TT_SRC/tests/integration/lib/speedscope_check.py" \
			"$d/v.speedscope.json" --require oncpu ||
			fail "$name: the replay's speedscope file is not sound"
	fi

	new_server
	start_session 300 70 "$TT_BIN -r $d/r.ttr; sleep 120"
	keys 4
	wait_for 'CALL TREE'
	keys w w
	wait_for 'window: session'
	if [ "$kind" = offcpu ]; then
		keys o
		wait_for 'OFF-CPU CALL TREE'
	fi
	# Played to its end, the session window holds the whole recording. The
	# screen may show the last interval before its tree is redrawn: ask again.
	wait_for 'REPLAY .* \+([0-9.]+)s of \1s'
	# LuaJIT's samples weigh their interval: the shares are the report's time.
	local rc=2 report=()
	[ -z "${REPORT_SHARES:-}" ] || report=("$d/v.json")
	for try in $(seq 1 "$TUI_WAIT"); do
		screen >"$d/screen.txt"
		rc=0
		python3 "$TT_SRC/tests/integration/lib/tui_stacks_compare.py" "$kind" \
			"$d/screen.txt" "$folded" "${report[@]}" >"$d/compare.txt" || rc=$?
		[ "$rc" -eq 2 ] || break
		sleep 1
	done
	cat "$d/compare.txt"
	[ "$rc" -ne 1 ] || fail "$name: the Stacks pane and the folded export disagree"
	[ "$rc" -eq 0 ] || fail "$name: the Stacks pane never showed the recording's totals"
	[ "$(grep -c ' | folded ' "$d/compare.txt")" -ge 4 ] ||
		fail "$name: fewer than 4 rows of the Stacks pane compared"
	# The Threads pane names a running thread's work as the tree's leaf does.
	if [ -n "${TOP_FRAME:-}" ]; then
		keys 1
		wait_for 'TOP FRAME'
		wait_for "$TOP_FRAME"
	fi
	keys q
}

for wl in inline_hot inline_hot_nofp; do
	start "$wl" 60
	TOP_FRAME=" $wl .* inline_hot \\[inlined\\]" compare_tui "$wl" oncpu
	kill "$WL"
	grep -q 'inline_mid\[i\]' "$TMPD/$wl/compare.txt" ||
		fail "$wl: the pane shows no inlined inline_mid"
done

start block_sites "$TMPD"
wait_until "$TUI_WAIT" "block_sites to start 6 threads" has_threads "$WL" 6
compare_tui offcpu offcpu --offcpu --cpu-hz 0
# perf names a 64-bit syscall's entry __x64_sys_NAME (the __ia32_ alias is
# the same address: the symbolizer must pick the name perf shows).
grep -q '__x64_sys_' "$TMPD/offcpu/v.offcpu.folded" ||
	fail "offcpu: no __x64_sys_ entry frame in the off-CPU stacks"
if grep -q '__ia32_sys_' "$TMPD/offcpu/v.offcpu.folded"; then
	fail "offcpu: a 64-bit syscall entry named __ia32_sys_: $(grep -o '__ia32_sys_[a-z0-9_]*' \
		"$TMPD/offcpu/v.offcpu.folded" | sort -u | tr '\n' ' ')"
fi
kill "$WL"

if why=$(sysprof_unusable luajit) && [ -n "$why" ]; then
	echo "note: $why: LuaJIT not compared"
else
	start_preloaded_lua "$(dirname "$0")/lib/hot_mix.lua" 1e9
	WL=$LJ
	REPORT_SHARES=1 compare_tui luajit oncpu
	kill "$LJ"
	# At a 1 ms interval a LuaJIT sample weighs a tenth of a CPU-clock one:
	# the pane counts time in CPU-clock samples as the folded file does.
	THREADTOP_LUAJIT_INTERVAL=1 start_preloaded_lua "$(dirname "$0")/lib/hot_mix.lua" 1e9
	WL=$LJ
	REPORT_SHARES=1 compare_tui luajit_1ms oncpu
	grep -q 'hot_loop @.*\[l\]' "$TMPD/luajit/compare.txt" ||
		fail "luajit: the pane shows no stitched Lua frame hot_loop"
fi
echo PASS
