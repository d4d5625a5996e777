# SPDX-License-Identifier: GPL-2.0-only
# The library in an unmodified LuaJIT program: LD_PRELOAD into Debian's
# luajit CLI installs misc.sysprof (through LUA_INIT, kept if already set),
# and require("sysprof") from package.cpath returns misc.sysprof.
if [ "$TT_SANITIZE" = "1" ]; then
	echo "SKIP: an ASan-built library cannot be preloaded into an uninstrumented luajit" >&2
	exit 77
fi
if ! command -v luajit >/dev/null; then
	echo "SKIP: no luajit executable on PATH (Debian package luajit)" >&2
	exit 77
fi
fails=0
check() {
	if "$@"; then echo "ok - $name"; else echo "not ok - $name"; fails=$((fails + 1)); fi
}
cat > pre.lua <<'LUA'
assert(type(misc) == "table" and misc.sysprof.available == true, "misc.sysprof missing")
assert(misc.sysprof.start({ mode = "C", path = "pre.bin", interval = 1 }))
local function fib(n) if n < 2 then return n end return fib(n - 1) + fib(n - 2) end
jit.off(fib)
-- Until 20 samples: the timer counts CPU time, so fixed work is too few
-- ticks on a fast machine.
local t0 = os.clock()
repeat fib(22) until misc.sysprof.report().samples >= 20 or os.clock() - t0 > 20
assert(misc.sysprof.stop())
local r = misc.sysprof.report()
assert(r.samples > 0 and r.fidelity == 10, "no samples")
print("init", INIT_RAN)
LUA

name="LD_PRELOAD into luajit installs misc.sysprof and profiles"
LD_PRELOAD="$TT_SYSPROF_LIB" luajit pre.lua >out 2>&1
check grep -q "^init	nil" out
name="the stream of the preloaded run parses, with fib frames"
"$TT_PARSER" pre.bin >pre.folded 2>&1
check grep -q "fib @pre.lua:3;fib @pre.lua:3" pre.folded

name="an existing LUA_INIT still runs"
LUA_INIT='INIT_RAN = 1' LD_PRELOAD="$TT_SYSPROF_LIB" luajit pre.lua >out 2>&1
check grep -q "^init	1" out

name='require("sysprof") from package.cpath'
dir=$(dirname "$TT_SYSPROF_LIB")
LUA_CPATH="$dir/?.so" luajit -e '
local s = require("sysprof")
assert(s == misc.sysprof)
assert(s.start({ mode = "D", interval = 1 }))
local x, t0 = 0, os.clock()
repeat
  for i = 1, 1e6 do x = x + i % 3 end
until s.report().samples >= 5 or os.clock() - t0 > 20
assert(s.stop())
print("samples", s.report().samples)' >out 2>&1
check grep -q "^samples	[1-9]" out

echo "# $fails failed"
[ $fails -eq 0 ]
