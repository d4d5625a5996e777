#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# A LuaJIT process already running when threadtop starts gets its Lua
# function names: the program (libthreadtop-sysprof.so preloaded, JIT on,
# a compiled hot loop calling os.clock) runs for a while first, then
# threadtop starts and its first two intervals (2 s) must name the hot
# function "inner @hot.lua:1", not "lua:0x..". Then threadtop is started
# again right after the first one left: the library's session may still run
# and have announced its names already; it announces them again.
. "$(dirname "$0")/bpf_common.bash"

require_sysprof luajit

cat >"$TMPD/hot.lua" <<'LUA'
local function inner(n) local s = 0 for i = 1, n do s = s + i % 7 end return s end
local t = os.clock()
while os.clock() - t < 300 do inner(1e5) end
LUA
LD_PRELOAD=$SYSPROF_LIB luajit "$TMPD/hot.lua" &
lj=$!
WL_PIDS+=("$lj")
# Already running: it has burnt half a second of CPU (its JIT loop compiled).
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$lj/stat" 2>/dev/null || echo 0; }
ran() { [ "$(cpu_ticks)" -ge $(($(getconf CLK_TCK) / 2)) ]; }
wait_until "the LuaJIT program did not run" ran

named() { # FILE: the hot function is named in the first two intervals
	head -n 2 "$1" | jq -s -e --argjson p "$lj" \
		'[.[].luajit[] | select(.pid == $p) | .top_functions[].name] | any(startswith("inner @"))' \
		>/dev/null
}
for round in first second; do
	out=$TMPD/$round.json
	timeout $((2 * TT_TEST_WAIT)) "$TT_BIN" -b --format json -d 1 -n 3 --cpu-hz 0 -p "$lj" \
		>"$out" 2>"$TMPD/$round.err" || fail "threadtop ($round) failed: $(tail -n 3 "$TMPD/$round.err")"
	named "$out" || fail "$round threadtop: inner not named within 2 s: $(head -n 2 "$out" |
		jq -c '[.luajit[] | {samples: .counters.samples, f: [.top_functions[].name]}]')"
done
echo "ok"
