#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Lua frames in exports: a LuaJIT program preloaded with the library, while
# threadtop runs with --export, gives
# folded stacks whose LuaJIT lines hold the Lua function marked "_[lua]"
# above the C frames of the VM entry (stitched: the interpreter's frames are
# gone), a pprof file with the function in the "[lua]" mapping (decoded with
# npm pprof-format when it is installed), speedscope frames with file
# "[lua]" and an SVG flame graph naming it; "threadtop run --export" names
# and stitches the command's frames though it has exited by then.
. "$(dirname "$0")/bpf_common.bash"

require_sysprof luajit

cat >"$TMPD/jit.lua" <<'LUA'
local function hot_loop(n) local s = 0 for i = 1, n do s = s + i % 7 end return s end
-- Interpreted (jit.off): the library's hook that starts its live session
-- when threadtop attaches to a running process fires in interpreted code only.
local function interp(n) local s = 0 for i = 1, n do s = s + i end return s end
jit.off(interp)
local t = os.clock()
while os.clock() - t < tonumber(arg[1] or 20) do hot_loop(1e6) interp(1e4) end
LUA

# The program runs through the export: C frames are named while it lives.
start_preloaded_lua "$TMPD/jit.lua" 1e9
lj=$LJ
timeout $((2 * TT_TEST_WAIT)) "$TT_BIN" -b -n 3 -d 1 -p "$lj" --export "$TMPD/a.folded" --export "$TMPD/a.pb.gz" \
	--export "$TMPD/a.speedscope.json" --export "$TMPD/a.svg" \
	>/dev/null 2>"$TMPD/err" || fail "threadtop --export failed: $(tail -n 3 "$TMPD/err")"

# Folded: the Lua frame, marked, on top of the host frames down to main.
grep -Eq '(^|;)hot_loop @[^;]*jit\.lua:1_\[lua\]' "$TMPD/a.folded" ||
	fail "no hot_loop_[lua] frame in a.folded: $(grep -m3 luajit "$TMPD/a.folded")"
grep -Eq '(^|;)main;.*lua_[a-z]*call;([^;]*_\[lua\];)*hot_loop @' "$TMPD/a.folded" ||
	fail "hot_loop not stitched above a VM entry: $(grep -m3 hot_loop "$TMPD/a.folded")"
# The stripped interpreter's own frames are replaced by the Lua frames.
if grep -E 'hot_loop @' "$TMPD/a.folded" | grep -Eq '_\[lua\];luajit[^;]*\+0x'; then
	fail "interpreter frames left under Lua frames: $(grep -m3 hot_loop "$TMPD/a.folded")"
fi

jq -e '[.shared.frames[] | select((.name | startswith("hot_loop @")) and .file == "[lua]")]
	| length > 0' "$TMPD/a.speedscope.json" >/dev/null ||
	fail "speedscope has no [lua] hot_loop frame"
grep -q 'hot_loop @' "$TMPD/a.svg" || fail "the SVG does not name hot_loop"

if command -v node >/dev/null && [ -d "$TT_BUILD/npm/node_modules/pprof-format" ]; then
	NODE_PATH="$TT_BUILD/npm/node_modules" node "$TT_SRC/tests/integration/lib/pprof_summary.js" \
		"$TMPD/a.pb.gz" >"$TMPD/pprof.json" || fail "pprof-format cannot decode a.pb.gz"
	jq -e '(.mappings | index("[lua]")) != null and
		([.samples[].stack[] | select(startswith("hot_loop @"))] | length > 0)' \
		"$TMPD/pprof.json" >/dev/null || fail "pprof: no hot_loop in the [lua] mapping"
else
	echo "note: pprof-format (npm) not installed: pprof checked for the name only"
	gzip -dc "$TMPD/a.pb.gz" | grep -aq 'hot_loop @' || fail "a.pb.gz does not name hot_loop"
	gzip -dc "$TMPD/a.pb.gz" | grep -aqF '[lua]' || fail "a.pb.gz has no [lua] mapping"
fi
# "threadtop run --export": the command has exited when the files are
# written, yet its C frames are named (named while it ran) and stitched.
timeout $((2 * TT_TEST_WAIT)) "$TT_BIN" run -b -d 1 --export "$TMPD/run.folded" -- luajit "$TMPD/jit.lua" 2 \
	>/dev/null 2>"$TMPD/err" || fail "threadtop run --export failed: $(tail -n 3 "$TMPD/err")"
grep -Eq '(^|;)main;.*lua_[a-z]*call;([^;]*;)*hot_loop @[^;]*_\[lua\]' "$TMPD/run.folded" ||
	fail "run --export: no stitched hot_loop: $(grep -m3 luajit "$TMPD/run.folded")"
echo "ok"
