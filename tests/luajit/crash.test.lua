-- SPDX-License-Identifier: GPL-2.0-only
-- Crash reproducers from Tarantool's suite and issues, run against the
-- sysprof library: new prototypes and traces during DEFAULT mode (gh-7264),
-- a fast function on top of the stack at interval 1 (gh-11664, gh-8594),
-- coroutines and errors thrown from coroutines while sampling, many
-- start/stop cycles, deep Lua<->C recursion (gh-11414), and stop from
-- inside a coroutine. Each must finish with counters that sum to samples.
local t = require("tap")
local sp = misc.sysprof

local function sum(r)
  local s = 0
  for _, v in pairs(r.vmstate) do s = s + v end
  return s
end

local function consistent(name)
  local r = sp.report()
  t.is(sum(r), r.samples, name .. ": counters sum to samples")
  return r
end

-- gh-7264: a new prototype and a new trace while profiling in DEFAULT mode.
jit.on()
jit.opt.start("hotloop=1")
t.is(sp.start({ mode = "D" }), true, "gh-7264: start D")
local f = load("return function() return 42 end")()
t.is(f(), 42, "gh-7264: new prototype runs")
local tab = {}
for i = 1, 1000 do table.insert(tab, i) end
t.is(sp.stop(), true, "gh-7264: stop")
consistent("gh-7264")

-- gh-11664: a fast function on top of the stack, sampled at interval 1.
for _, mode in ipairs({ "D", "L", "C" }) do
  t.is(sp.start({ mode = mode, path = "/dev/null", interval = 1 }), true,
       "gh-11664: start " .. mode)
  local n = 0
  for _ = 1, 300000 do
    if next({ 1 }) then n = n + 1 end
    n = n + #tostring(n)
  end
  t.is(sp.stop(), true, "gh-11664: stop " .. mode)
  consistent("gh-11664 " .. mode)
end

-- Coroutines, and errors thrown from them, while sampling.
t.is(sp.start({ mode = "C", path = "co.bin", interval = 1 }), true, "coroutines: start")
for i = 1, 200 do
  local co = coroutine.wrap(function(a)
    local s = 0
    for k = 1, 2000 do s = s + k % a; if k % 500 == 0 then coroutine.yield(s) end end
    return s
  end)
  co(i % 7 + 1)
  local ok, err = pcall(coroutine.wrap(function() error("boom " .. i) end))
  assert(not ok and err:match("boom"))
  local co2 = coroutine.create(function() local x = nil; return x.y end)
  assert(not coroutine.resume(co2))
end
t.is(sp.stop(), true, "coroutines: stop")
consistent("coroutines")
local p = io.popen(os.getenv("TT_PARSER") .. " co.bin >/dev/null; echo rc=$?")
t.like(p:read("*a"), "rc=0", "coroutines: stream parses")
p:close()

-- Stop from inside a coroutine, start in one and stop in the main thread.
local co = coroutine.create(function()
  assert(sp.start({ mode = "C", path = "/dev/null", interval = 1 }))
  coroutine.yield()
  return sp.stop()
end)
assert(coroutine.resume(co))
for i = 1, 1e6 do tab[i % 100 + 1] = i end
local ok, res = coroutine.resume(co)
t.ok(ok and res == true, "stop inside a coroutine")

-- Deep recursion through C (pcall) and Lua.
t.is(sp.start({ mode = "C", path = "/dev/null", interval = 1 }), true, "deep: start")
local function deep(n)
  if n == 0 then
    local s = 0
    for i = 1, 2e5 do s = s + i end
    return s
  end
  local ok2, v = pcall(deep, n - 1)
  return ok2 and v or 0
end
for _ = 1, 20 do deep(150) end
t.is(sp.stop(), true, "deep: stop")
consistent("deep")

-- Many start/stop cycles in every mode.
local cycles = 0
for i = 1, 60 do
  local mode = ({ "D", "L", "C" })[i % 3 + 1]
  if sp.start({ mode = mode, path = "/dev/null", interval = 1 }) then
    local s = 0
    for k = 1, 20000 do s = s + k end
    if sp.stop() then cycles = cycles + 1 end
  end
end
t.is(cycles, 60, "60 start/stop cycles")
consistent("cycles")

t.done()
