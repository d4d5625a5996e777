#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Agentless LuaJIT finds a LuaJIT linked into a program of another name
# (issue #28 item 1, statically linked copies): Debian 12's tarantool, whose
# /usr/bin/tarantool holds LuaJIT and exports its API (luaJIT_setmode) for
# the C modules it loads, running a Lua loop, beside a C program that holds
# no LuaJIT (spinners). Tarantool's LuaJIT is not a build threadtop knows
# the layout of, so threadtop (BPF source, default mode, every process)
# must say so once, on stderr and in the log: the file, the pid, that
# LuaJIT is linked in, and the file's build-id. It must not read that VM
# with a layout it has not checked: no Lua frames or VM states from it.
# Nothing is said of the spinners.
. "$(dirname "$0")/bpf_common.bash"

command -v tarantool >/dev/null || skip "tarantool is not installed (apt-get install tarantool)"
bin=$(readlink -f "$(command -v tarantool)")
# grep -c, not -q: under pipefail, readelf killed by SIGPIPE would fail the check.
readelf --dyn-syms -W "$bin" | grep -cw luaJIT_setmode >/dev/null ||
	skip "$bin exports no luaJIT_setmode: not a LuaJIT linked in as this test expects"
bid=$(readelf -n "$bin" | awk '/Build ID/ { print $3 }')
[ -n "$bid" ] || skip "$bin has no build-id"

# A Lua loop for 60 s of CPU at most; gone with the test.
cat >"$TMPD/loop.lua" <<'LUA'
local function heavy(n) local x = 0 for i = 1, n do x = x + i % 7 end return x end
local t0 = os.clock()
while os.clock() - t0 < 60 do heavy(1e6) end
LUA
tarantool "$TMPD/loop.lua" >"$TMPD/tarantool.out" 2>&1 &
tp=$!
WL_PIDS+=("$tp")
start spinners 1 60
sp=$WL
wait_until "tarantool did not start" test -e "/proc/$tp/exe"

timeout $((2 * TT_TEST_WAIT)) "$TT_BIN" -b --format json -d 1 -n 3 --source bpf --cpu-hz 199 \
	--log "$TMPD/log" >"$TMPD/out.json" 2>"$TMPD/err" ||
	fail "threadtop failed: $(tail -n 3 "$TMPD/err")"
kill -0 "$tp" 2>/dev/null || fail "tarantool ended early: $(head -c 300 "$TMPD/tarantool.out")"

# Its CPU samples were seen (so the check ran on it).
n=$(jq -s --argjson p "$tp" '[.[].oncpu[]? | select(.pid == $p) | .samples] | add // 0' \
	"$TMPD/out.json")
((n > 0)) || fail "no on-CPU samples of tarantool (pid $tp): the check had nothing to run on"

# Once per build-id: another tarantool of the box, seen first, may be the one named.
want="LuaJIT \(agentless\): $bin \(pid [0-9]+\), with LuaJIT linked in \(it exports luaJIT_setmode\), has build-id $bid, not a build threadtop knows"
[ "$(grep -cE "$want" "$TMPD/err")" = 1 ] ||
	fail "stderr does not say once that $bin has LuaJIT linked in (build-id $bid):" \
		"$(grep -i luajit "$TMPD/err" | head -5)"
grep -qE "$want" "$TMPD/log" || fail "the log does not say it: $(grep -i luajit "$TMPD/log" | head -3)"
grep -F "(pid $sp)" "$TMPD/err" && fail "the spinners (pid $sp) were judged a LuaJIT"

# No layout guessed: no Lua frames and no VM states from tarantool.
lua=$(jq -s --argjson p "$tp" '[.[].oncpu[]? | select(.pid == $p)
	| select(.frames | any(test("_\\[lua\\]$|^TRACE ")))] | length' "$TMPD/out.json")
((lua == 0)) || fail "$lua stacks of tarantool carry Lua frames read with an unchecked layout"
states=$(jq -s --argjson p "$tp" '[.[].luajit[]? | select(.pid == $p)] | length' "$TMPD/out.json")
((states == 0)) || fail "tarantool has LuaJIT VM states read with an unchecked layout"
echo "tarantool (pid $tp, build-id $bid): $n on-CPU samples, refused by name"
