-- SPDX-License-Identifier: GPL-2.0-only
-- VM-state split of workloads with known behaviour (DEFAULT mode, 2 ms):
-- fib with the JIT off is Lua execution with its calls and returns (INTERP,
-- 39% in Tarantool's sysprof), a loop of fast functions is FFUNC (28% there),
-- the C-heavy script CFUNC/FFUNC, the allocation-heavy one shows GC, the
-- JIT-heavy one's TRACE share follows the CPU time of its compiled loop.
local t = require("tap")
local sp = misc.sysprof
local dir = os.getenv("TT_LJ_TESTS") .. "/workloads/"

-- Each workload runs until 50 samples (the timer counts CPU time: one run
-- is fewer ticks on a fast machine); jitheavy's phase times add up.
local JIT_CPU = { hot = 0, interp = 0, cwork = 0 }
local function profile(name)
  assert(sp.start({ mode = "D", interval = 2 }))
  local chunk = assert(loadfile(dir .. name .. ".lua"))
  t.run_until(function() return sp.report().samples >= 50 end, function()
    chunk()
    if JITHEAVY_CPU then
      for k, v in pairs(JITHEAVY_CPU) do JIT_CPU[k] = JIT_CPU[k] + v end
      JITHEAVY_CPU = nil
    end
  end)
  assert(sp.stop())
  jit.on()
  local r = sp.report()
  local s = 0
  for _, v in pairs(r.vmstate) do s = s + v end
  t.is(s, r.samples, name .. ": counters sum to samples")
  local share = {}
  for k, v in pairs(r.vmstate) do share[k] = r.samples > 0 and v / r.samples or 0 end
  io.write(("# %s: %d samples"):format(name, r.samples))
  for k, v in pairs(share) do
    if v > 0 then io.write((" %s=%.0f%%"):format(k, 100 * v)) end
  end
  io.write("\n")
  return r, share
end

local r, s = profile("fib")
t.ok(r.samples >= 50, "fib: enough samples")
t.ok(s.LFUNC + s.INTERP > 0.8, "fib (JIT off) is dominated by Lua execution")
t.ok(s.INTERP > 0.15 and s.LFUNC > 0.3, "fib: calls and returns are INTERP, the rest LFUNC")
t.is(s.FFUNC, 0, "fib calls no fast function")

r, s = profile("ffloop")
t.ok(r.samples >= 50, "ffloop: enough samples")
t.ok(s.FFUNC > 0.15, "a loop of fast functions shows FFUNC")
t.ok(s.LFUNC + s.INTERP + s.FFUNC > 0.8, "ffloop stays in the interpreter")

r, s = profile("cheavy")
t.ok(r.samples >= 50, "cheavy: enough samples")
t.ok(s.CFUNC + s.FFUNC > 0.5, "C-heavy script is dominated by CFUNC/FFUNC")
t.ok(s.FFUNC > 0.05, "its string builtins' fallbacks count as FFUNC")

r, s = profile("alloc")
t.ok(r.samples >= 50, "alloc: enough samples")
t.ok(s.GC > 0.15, "allocation-heavy script shows GC")

r, s = profile("jitheavy")
-- TRACE follows the compiled loop's share of the CPU time. That share is
-- measured in the same run, not assumed: load and ASan slow the memory-bound
-- C phase most, which moved a fixed threshold. Samples land on exits and
-- loop entries too, so TRACE reads a little under the loop's share.
local c = JIT_CPU
local hot = c.hot / (c.hot + c.interp + c.cwork)
io.write(("# jitheavy: the compiled loop took %.0f%% of the CPU time\n"):format(100 * hot))
t.ok(s.TRACE > 0.6 * hot and s.TRACE < hot + 0.15,
  "JIT-heavy script: TRACE follows the compiled loop's CPU time")
t.done()
