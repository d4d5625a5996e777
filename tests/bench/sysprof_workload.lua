-- SPDX-License-Identifier: GPL-2.0-only
-- Benchmark workload for tests/bench/sysprof_overhead.sh: a mixed Lua
-- program (recursion, numeric loops, tables and sorting, strings, closures,
-- some interpreted code), about 1 s of CPU. BENCH_PROF selects the
-- profiler started inside it: sysprof-D, sysprof-C (stream to
-- BENCH_OUT) or nothing (none, or jit.p started by luajit -jp).
local prof = os.getenv("BENCH_PROF") or "none"
if prof == "sysprof-D" then
  assert(misc.sysprof.start({ mode = "D", interval = 10 }))
elseif prof == "sysprof-C" then
  assert(misc.sysprof.start({ mode = "C", interval = 10,
                              path = os.getenv("BENCH_OUT") or "/dev/null" }))
end

local function fib(n) if n < 2 then return n end return fib(n - 1) + fib(n - 2) end
local function numeric(n)
  local s = 0
  for i = 1, n do s = s + math.sqrt(i) * (i % 3) end
  return s
end
local function tables(n)
  local t = {}
  for i = 1, n do t[i] = { id = (i * 7919) % n, name = "item" .. i } end
  table.sort(t, function(a, b) return a.id < b.id end)
  return #t
end
local function strings(n)
  local parts = {}
  for i = 1, n do parts[#parts + 1] = string.format("%05d:%s", i, ("x"):rep(i % 13)) end
  local s = table.concat(parts, ",")
  local c = 0
  for _ in s:gmatch("%d+") do c = c + 1 end
  return c
end
local function closures(n)
  local acc = 0
  for i = 1, n do
    local f = function(x) return x + i end
    acc = f(acc) % 1000003
  end
  return acc
end
local function interpreted(n)
  local s = 0
  for i = 1, n do s = s + (i % 11) end
  return s
end
jit.off(interpreted)

local scale = tonumber(os.getenv("BENCH_SCALE")) or 1
local r = 0
do
  r = r + fib(26 + scale)
  r = r + numeric(2e7 * scale)
  r = r + tables(2e5 * scale)
  r = r + strings(2e5 * scale)
  r = r + closures(3e6 * scale)
  r = r + interpreted(5e6 * scale)
end

if prof:match("^sysprof") then
  assert(misc.sysprof.stop())
  local rep = misc.sysprof.report()
  -- CPU time the profiler itself spent (handler, callback, start, stop).
  io.stderr:write(("direct %s %d %.6f\n"):format(prof, rep.overhead_ns, os.clock()))
end
io.stderr:write("result ", r, "\n")
