#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Agreement with Tarantool's own sysprof, state by state: the five VM-state
# workloads (fast functions with the JIT off, deep recursion with the JIT
# off, C builtins, allocation, compiled loops) run under threadtop's
# library (tt_luajit) and under Tarantool's LuaJIT, mode D at 2 ms, for
# 1.6 s of CPU (about 400 samples) each; every one of the ten shares must agree within 10
# points (one retry per workload: two processes on a shared machine).
# Except, in the fast-function loop, the line between FFUNC and INTERP:
# Tarantool's VM stores the state and the ffid on entry to every fast
# function and again on its return (INTERP until the last store), code the
# stock VM does not have, and a fast function like type() or rawget() is a
# dozen instructions: there FFUNC + INTERP must agree within 10 points, and
# FFUNC reads 10 to 16 points above Tarantool's (README).
# Needs TT_TARANTOOL_LUAJIT=path/to/tarantool/luajit's src/luajit (built
# from github.com/tarantool/luajit); skips without it.
if [ -z "${TT_TARANTOOL_LUAJIT:-}" ] || [ ! -x "$TT_TARANTOOL_LUAJIT" ]; then
	echo "SKIP: TT_TARANTOOL_LUAJIT is not set to Tarantool's luajit" >&2
	exit 77
fi
cat >states.lua <<'LUA'
local chunk = assert(loadfile(arg[1]))
assert(misc.sysprof.start({ mode = "D", interval = 2 }))
local c0 = os.clock()
-- Tarantool's report() refuses while running: 1.6 s of CPU is 400 ticks.
repeat chunk() jit.on() until os.clock() - c0 > 1.6
assert(misc.sysprof.stop())
local r, o = misc.sysprof.report(), {}
for _, k in ipairs({ "INTERP", "LFUNC", "FFUNC", "CFUNC", "GC", "EXIT", "RECORD", "OPT", "ASM", "TRACE" }) do
  o[#o + 1] = ("%.1f"):format(100 * r.vmstate[k] / math.max(r.samples, 1))
end
print(r.samples .. " " .. table.concat(o, " "))
LUA
fails=0
for w in ffloop fib cheavy alloc jitheavy; do
	# jitheavy's phases at a third of their length (its arg[2] is a scale).
	scale=$([ $w = jitheavy ] && echo 0.3)
	for attempt in 1 2; do
		ours=$("$TT_LUAJIT" states.lua "$TT_LJ_TESTS/workloads/$w.lua" ${scale:+"$scale"}) || exit 1
		theirs=$("$TT_TARANTOOL_LUAJIT" states.lua "$TT_LJ_TESTS/workloads/$w.lua" ${scale:+"$scale"}) ||
			exit 1
		worst=$(echo "$ours $theirs" | awk -v w="$w" '{
			if (w == "ffloop") { $2 += $4; $4 = 0; $13 += $15; $15 = 0 }
			m = 0; for (i = 2; i <= 11; i++) {
			d = $i - $(i + 11); if (d < 0) d = -d; if (d > m) m = d } print m }')
		echo "# $w attempt $attempt: threadtop $ours | tarantool $theirs | worst $worst points"
		awk -v w="$worst" 'BEGIN { exit !(w <= 10) }' && break
	done
	if awk -v w="$worst" 'BEGIN { exit !(w <= 10) }'; then
		echo "ok - $w: every state within 10 points of Tarantool's ($worst)"
	else
		echo "not ok - $w: a state is $worst points from Tarantool's"
		fails=$((fails + 1))
	fi
done
[ $fails = 0 ]
