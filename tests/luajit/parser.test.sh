# SPDX-License-Identifier: GPL-2.0-only
# luajit-parse-sysprof: error messages and exit codes (Tarantool's gh-9217
# and gh-5688 tests), folded output of mode C (function names, host frames
# down to main, Lua-C-Lua-C stitching, TRACE samples on their host stack),
# LEAF mode, --states, and, when TT_TARANTOOL_TOOLS points at Tarantool's
# tools/ directory, that Tarantool's own parser reads our stream.
fails=0
check() { # check NAME COMMAND...
	if "$@"; then echo "ok - $name"; else echo "not ok - $name"; fails=$((fails + 1)); fi
}
P="$TT_PARSER"

name="missing file: Failed to open, exit 1"
"$P" /nonexistent/x.bin >out 2>err; rc=$?
check sh -c "[ $rc -eq 1 ] && grep -q '^Failed to open /nonexistent/x.bin' err"

name="not a profile: Failed to parse symtab from, exit 1"
echo data >data.bin
"$P" data.bin >out 2>err; rc=$?
check sh -c "[ $rc -eq 1 ] && grep -q '^Failed to parse symtab from data.bin' err"

name="unrecognized option: exit 2"
"$P" --wrong data.bin >out 2>err; rc=$?
check sh -c "[ $rc -eq 2 ] && grep -q 'unrecognized option' err"

cat > prof.lua <<'LUA'
local function fib(n) if n < 2 then return n end return fib(n - 1) + fib(n - 2) end
local function inner() local v = tt_cspin(2e6); return v end
local function middle() local s = 0 for _ = 1, 30 do s = s + inner() end return s end
local function hot() local s = 0 for i = 1, 1e8 do s = s + i % 3 end return s end
local mode, path = arg[1], arg[2]
-- Each phase runs from the main chunk until it has 5 samples of its own VM
-- state (the timer counts CPU time: fixed work is fewer ticks on a fast
-- machine), or 20 s of CPU.
local function enough(state, t0)
  return misc.sysprof.report().vmstate[state] >= 5 or os.clock() - t0 > 20
end
assert(misc.sysprof.start({ mode = mode, interval = 2, path = path }))
jit.off(fib)
local t0 = os.clock()
repeat fib(22) until enough("LFUNC", t0)
t0 = os.clock()
repeat tt_ccall(middle) until enough("CFUNC", t0)
t0 = os.clock()
repeat hot() until enough("TRACE", t0)
assert(misc.sysprof.stop())
LUA
"$TT_LUAJIT" prof.lua C c.bin || { echo "not ok - profiling failed"; exit 1; }
"$TT_LUAJIT" prof.lua L l.bin || { echo "not ok - profiling failed"; exit 1; }

name="mode C parses"
"$P" c.bin >c.folded 2>err; rc=$?
check sh -c "[ $rc -eq 0 ] && [ -s c.folded ]"
name="folded lines end with a count"
check sh -c '! grep -qv " [0-9][0-9]*$" c.folded'
name="script function names present"
check grep -q "fib @.*prof.lua:1;fib @" c.folded
name="host frames down to main"
check grep -q "^_start;.*main;lua_pcall;main chunk @" c.folded
name="Lua-C-Lua-C stitched: tt_ccall between Lua frames, C leaf"
check grep -q "main chunk @[^;]*;tt_ccall;[^;]*prof.lua:3;inner @[^;]*;tt_cspin " c.folded
name="TRACE samples on their host and Lua stack"
check grep -q "lua_pcall;main chunk @[^;]*;hot @[^;]*;TRACE \[[0-9]*\] @" c.folded

# A builtin C function has returned by the safe point; the handler read it
# from the VM at the signal, so it still tops its Lua caller.
cat > builtin.lua <<'LUA'
jit.off()
local function build()
  local n = 0
  for _ = 1, 1500 do n = n + #string.rep("ab", 50000) end
  return n
end
assert(misc.sysprof.start({ mode = "C", interval = 2, path = arg[1] }))
local t0 = os.clock()
repeat build() until misc.sysprof.report().samples >= 20 or os.clock() - t0 > 20
assert(misc.sysprof.stop())
LUA
"$TT_LUAJIT" builtin.lua builtin.bin
"$P" builtin.bin >builtin.folded
name="a builtin (string.rep) on top of its Lua caller"
check grep -q "build @[^;]*builtin.lua:2;string.rep [0-9]*$" builtin.folded

name="truncated profile: Failed to parse profile data from, exit 1"
size=$(wc -c <c.bin)
head -c $((size - 40)) c.bin >trunc.bin
"$P" trunc.bin >out 2>err; rc=$?
check sh -c "[ $rc -eq 1 ] && grep -q '^Failed to parse profile data from trunc.bin' err"

name="--states: counts add up, fidelity 10"
"$P" --states c.bin >states
check awk '$1 != "samples" && $1 != "fidelity" { s += $2 } $1 == "samples" { n = $2 }
	$1 == "fidelity" { f = $2 } END { exit !(s == n && n > 0 && f == 10) }' states
name="--states: fib counted as Lua, hot loop as TRACE"
check awk '($1 == "LFUNC" || $1 == "TRACE") && $2 > 0 { k++ } END { exit !(k == 2) }' states

name="mode L: one host frame and one Lua frame per sample"
"$P" l.bin >l.folded
check awk '{ sub(/ [0-9]+$/, ""); if (split($0, a, ";") > 2) bad = 1 } END { exit bad || NR == 0 }' l.folded

# A stream as Tarantool's LuaJIT writes it (FFUNC frames, TRACE events
# without stacks, symbols in the initial symtab only).
cat > synth.lua <<'LUA'
local out = {}
local function b(...) for _, v in ipairs({ ... }) do out[#out + 1] = string.char(v) end end
local function u(v) repeat local x = v % 128; v = math.floor(v / 128)
  b(v > 0 and x + 128 or x) until v == 0 end
local function s(str) u(#str); out[#out + 1] = str end
out[#out + 1] = "ljs"; b(3, 0, 0, 0)
b(0); u(0x100); s("@test.lua"); u(0)
b(0); u(0x200); s("@test.lua"); u(19)
b(1); u(0x500); s("main")
b(1); u(0x1000); s("lua_pcall")
b(2); u(3); u(0x200); u(21)
b(0x80)
out[#out + 1] = "ljp"; b(2, 0, 0, 0)
b(1); b(1); u(0x200); u(19); b(1); u(0x100); u(0); b(0x80); u(0x1010); u(0x510); u(0)
b(2); b(3); u(1); b(1); u(0x100); u(0); b(0x80); u(0x1010); u(0x510); u(0)
b(4); u(0x1010); u(0x510); u(0)
b(9); u(3); u(0x200); u(21)
b(0x80)
io.open(arg[1], "wb"):write(table.concat(out))
LUA
"$TT_LUAJIT" synth.lua synth.bin
"$P" synth.bin >synth.folded 2>&1
name="Tarantool-format stream: LFUNC sample spliced at lua_pcall"
check grep -qx "main;lua_pcall;@test.lua:0;@test.lua:19 1" synth.folded
name="Tarantool-format stream: FFUNC frame"
check grep -qx "main;lua_pcall;@test.lua:0;FFUNC #1 1" synth.folded
name="Tarantool-format stream: GC sample, host only"
check grep -qx "main;lua_pcall 1" synth.folded
name="Tarantool-format stream: TRACE event named, not empty"
check grep -qx "TRACE \[3\] @test.lua:21 1" synth.folded
name="Tarantool-format stream: --states"
"$P" --states synth.bin >synth.states
check sh -c 'grep -qx "FFUNC 1" synth.states && grep -qx "TRACE 1" synth.states && grep -qx "samples 4" synth.states'

# A Lua function named after samples of it were taken (the library names
# one when a caller first names it: "#2" while it is an unnamed second
# function on its line, "cmp" later) is one frame under its last name, in
# the samples before the names too.
cat > late.lua <<'LUA'
local out = {}
local function b(...) for _, v in ipairs({ ... }) do out[#out + 1] = string.char(v) end end
local function u(v) repeat local x = v % 128; v = math.floor(v / 128)
  b(v > 0 and x + 128 or x) until v == 0 end
local function s(str) u(#str); out[#out + 1] = str end
local function sample() -- LFUNC: the function at 0x200 called by the main chunk
  b(1); b(1); u(0x200); u(5); b(1); u(0x100); u(0); b(0x80); u(0x1010); u(0x510); u(0)
end
out[#out + 1] = "ljs"; b(3, 0, 0, 0)
b(0); u(0x100); s("@t.lua"); u(0)
b(1); u(0x500); s("main")
b(1); u(0x1000); s("lua_pcall")
b(0x80)
out[#out + 1] = "ljp"; b(2, 0, 0, 0)
b(10); u(0x200); s("@t.lua"); u(5)
sample()
b(11); u(0x200); s("#2")
sample()
b(11); u(0x200); s("cmp")
sample()
b(0x80)
io.open(arg[1], "wb"):write(table.concat(out))
LUA
"$TT_LUAJIT" late.lua late.bin
"$P" late.bin >late.folded 2>&1
name="a function named late: one frame, its last name, in every sample"
check grep -qx "main;lua_pcall;@t.lua:0;cmp @t.lua:5 3" late.folded
name="a function named late: no other frame for it"
check [ "$(wc -l <late.folded)" -eq 1 ]

if [ -n "$TT_TARANTOOL_TOOLS" ] && [ -f "$TT_TARANTOOL_TOOLS/sysprof.lua" ] &&
	command -v luajit >/dev/null; then
	name="Tarantool's parser reads our stream"
	cat > tparse.lua <<LUA
package.path = "$TT_TARANTOOL_TOOLS/?.lua;" .. package.path
require("sysprof")({ [1] = arg[1] })
LUA
	luajit tparse.lua c.bin >t.out 2>&1; rc=$?
	check sh -c "[ $rc -eq 0 ] && grep -q 'lua_pcall:0x[0-9a-f]*;@.*prof.lua:1;' t.out"
else
	echo "# Tarantool's parser not checked: set TT_TARANTOOL_TOOLS to its tools/ dir"
fi

echo "# $fails failed"
[ $fails -eq 0 ]
