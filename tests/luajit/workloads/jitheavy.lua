-- SPDX-License-Identifier: GPL-2.0-only
-- Workload: JIT-heavy with phases of known VM state: a hot compiled loop
-- (most of the time), an interpreted loop (jit.off on that function) and C
-- work (string.find over a long string from interpreted code). Each phase
-- keeps one state so that jit.p, which attributes a whole batch of samples
-- to the state of its first one, is comparable. About 1.5 s on one core.
local function hot(n)
  local s = 0
  for i = 1, n do s = s + (i % 7) * 3 end
  return s
end
local function interp(n)
  local s = 0
  for i = 1, n do s = s + i % 5 end
  return s
end
local big = string.rep("a", 4 * 1048576)
local function cwork(n)
  local x = 0
  for _ = 1, n do x = x + (big:find("b", 1, true) or 1) end
  return x
end
jit.off(interp)
jit.off(cwork)
local scale = tonumber(arg and arg[2]) or 1
-- The CPU seconds of each phase, for tests: their split moves with the
-- machine's load and the build (memory-bound C work slows most).
local c0 = os.clock()
local r = hot(1.6e8 * scale)
local c1 = os.clock()
r = r + interp(3e7 * scale)
local c2 = os.clock()
r = r + cwork(1000 * scale)
JITHEAVY_CPU = { hot = c1 - c0, interp = c2 - c1, cwork = os.clock() - c2 }
return r
