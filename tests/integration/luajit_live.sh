#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# LuaJIT in the live view (BPF uprobe on libthreadtop-sysprof.so's probe
# point): a JIT-friendly loop under "threadtop run -b" shows TRACE samples and
# its Lua function name; a GC-heavy script shows GC; a LuaJIT process started
# with LD_PRELOAD while threadtop runs is picked up with no set-up. The
# scripts run for seconds of CPU time (os.clock), not of wall time, and
# "threadtop run" starts them once its sources are up: the work sampled is
# the same on an idle and a loaded machine.
. "$(dirname "$0")/bpf_common.bash"

require_sysprof luajit

cat >"$TMPD/jit.lua" <<'LUA'
local function hot_loop(n) local s = 0 for i = 1, n do s = s + i % 7 end return s end
local t = os.clock()
while os.clock() - t < tonumber(arg[1] or 2) do hot_loop(1e6) end
LUA
cat >"$TMPD/gc.lua" <<'LUA'
local function churn() local t = {} for i = 1, 2000 do t[i] = { i, tostring(i) } end return #t end
local t0 = os.clock()
while os.clock() - t0 < 2 do churn() end
LUA

# 1. threadtop run: TRACE samples and the function's name.
out=$TMPD/jit.json
timeout $((2 * TT_TEST_WAIT)) "$TT_BIN" run -b --format json -d 1 --cpu-hz 0 -- luajit "$TMPD/jit.lua" >"$out" ||
	fail "threadtop run failed: $(tail -n 3 "$out")"
jq -s -e '[.[].luajit[].counters.TRACE] | add > 10' "$out" >/dev/null ||
	fail "no TRACE samples: $(jq -c '.luajit' "$out")"
jq -s -e '[.[].luajit[].top_functions[].name] | any(startswith("hot_loop "))' "$out" >/dev/null ||
	fail "hot_loop not among the top functions: $(jq -c '[.luajit[].top_functions]' "$out")"
jq -s -e '[.[].luajit[].fidelity] | all(. == 10)' "$out" >/dev/null || fail "fidelity not 10"

# 2. A GC-heavy script shows GC.
out=$TMPD/gc.json
timeout $((2 * TT_TEST_WAIT)) "$TT_BIN" run -b --format json -d 1 --cpu-hz 0 -- luajit "$TMPD/gc.lua" >"$out" ||
	fail "threadtop run (gc) failed"
jq -s -e '[.[].luajit[].counters.GC] | add > 3' "$out" >/dev/null ||
	fail "no GC samples: $(jq -c '[.luajit[].counters]' "$out")"

# 3. Started with LD_PRELOAD once threadtop runs (its first interval is out),
# running until killed: picked up, more than 10 samples in the deadline.
out=$TMPD/preload.json
"$TT_BIN" -b --format json -d 1 -n 1000 --cpu-hz 0 >"$out" 2>"$TMPD/preload.err" &
tt=$!
WL_PIDS+=("$tt")
wait_first_line "$out"
LD_PRELOAD=$SYSPROF_LIB luajit "$TMPD/jit.lua" 1e9 &
lj=$!
WL_PIDS+=("$lj")
picked_up() {
	kill -0 "$tt" 2>/dev/null || fail "threadtop died: $(tail -n 3 "$TMPD/preload.err")"
	# Complete lines only: the last may be being written.
	head -n "$(nr_lines "$out")" "$out" | jq -s -e \
		"[.[].luajit[] | select(.pid == $lj) | .counters.samples] | add > 10" >/dev/null
}
wait_until "the preloaded process $lj was not picked up (10 samples)" picked_up
kill -INT "$tt"
wait "$tt" || fail "threadtop failed"
echo "ok"
