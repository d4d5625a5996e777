#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The LuaJIT pane in tmux on "threadtop run -- luajit SCRIPT" (BPF, root): a
# JIT-friendly loop shows TRACE and LFUNC bars, the fidelity and its Lua
# function name; Enter on the function narrows every pane (breadcrumb, the
# Threads pane keeps the LuaJIT thread; the Stacks pane shows the function
# marked [lua] above the VM entry lua_pcall); Esc backs up; q quits; the
# session's recording replays with the same LuaJIT pane and Lua frames.
. "$(dirname "$0")/bpf_common.bash"

command -v tmux >/dev/null || skip "tmux is not installed"
require_sysprof luajit

TUI_NAME=tuilj
# shellcheck source=lib/tui_common.bash
source "$(dirname "$0")/lib/tui_common.bash"
# Both clean-ups: the tmux servers (tui_common), the temporary files (bpf_common).
trap 'tui_cleanup; cleanup' EXIT

# A JIT-compiled loop and an interpreted function (jit.off), for a minute at most.
cat >"$TMPD/w.lua" <<'LUA'
local function hot_loop(n) local s = 0 for i = 1, n do s = s + i % 7 end return s end
local function interp_fib(n) if n < 2 then return n end return interp_fib(n - 1) + interp_fib(n - 2) end
jit.off(interp_fib)
local t = os.clock()
while os.clock() - t < 60 do hot_loop(1e6) interp_fib(20) end
LUA

start_session 110 40 \
	"TERM=xterm-256color $TT_BIN run -d 0.5 -w $TMPD/s.ttr -- luajit $TMPD/w.lua; sleep 30"
wait_for '1 Threads'
keys 6
wait_for 'LUAJIT VM STATES'
# Bars: a TRACE share with a bar (block characters or #), and the LFUNC line.
wait_for 'TRACE +[0-9.]+% +(█|#)'
wait_for 'LFUNC +[0-9.]+%'
wait_for 'fidelity 10/10'
wait_for '[0-9.]+% +[0-9.]+% +[0-9.]+% +hot_loop @.*w\.lua:1'

# Drill down from the function: search it, Enter. Over the session: where
# samples are few (a slow VM), an interval can lack hot_loop, whose line then
# leaves the list between the search and Enter, and Enter takes another.
keys w w
wait_for 'window: session'
keys / h o t _ l o o p Enter
wait_gone 'Search: ' # the search has moved the selection
keys Enter
wait_for 'all > lua hot_loop @'
keys 1
wait_for 'luajit'
keys 4
wait_for 'hot_loop @.*\[lua\]'
wait_for 'lua_pcall'
keys Escape
wait_for '^all *$|^all  '
# The panes show the interval still running, the recording gets whole ones:
# on a loaded machine all of the above can pass within the first. Quit once
# intervals have ended (the USE line has one), two clock ticks later.
wait_gone 'no interval measured yet'
redrawn 2
keys q
replays() {
	"$TT_BIN" -r "$TMPD/s.ttr" -b --format json >"$TMPD/replay.json" 2>/dev/null &&
		[ "$(wc -l <"$TMPD/replay.json")" -ge 2 ]
}
wait_until "$TUI_WAIT" "the recording $TMPD/s.ttr to replay" replays

# The recording replays in the TUI with the LuaJIT pane and Lua frames.
new_server
start_session 110 40 "TERM=xterm-256color $TT_BIN -r $TMPD/s.ttr; sleep 30"
wait_for '1 Threads'
keys 6
wait_for 'TRACE +[0-9.]+% +(█|#)'
wait_for 'hot_loop @.*w\.lua:1'
keys 4
wait_for 'hot_loop @.*\[lua\]'
keys q
echo "ok"
