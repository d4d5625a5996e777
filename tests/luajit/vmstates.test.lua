-- SPDX-License-Identifier: GPL-2.0-only
-- VM-state split of workloads with known behaviour (DEFAULT mode, 2 ms):
-- fib with the JIT off is dominated by Lua execution, the C-heavy script by
-- CFUNC/FFUNC, the allocation-heavy one shows GC, the JIT-heavy one TRACE.
local t = require("tap")
local sp = misc.sysprof
local dir = os.getenv("TT_LJ_TESTS") .. "/workloads/"

local function profile(name)
  assert(sp.start({ mode = "D", interval = 2 }))
  local chunk = assert(loadfile(dir .. name .. ".lua"))
  chunk()
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
t.ok(r.samples >= 10, "fib: enough samples")
t.ok(s.LFUNC + s.INTERP > 0.8, "fib (JIT off) is dominated by Lua execution")

r, s = profile("cheavy")
t.ok(r.samples >= 10, "cheavy: enough samples")
t.ok(s.CFUNC + s.FFUNC > 0.5, "C-heavy script is dominated by CFUNC/FFUNC")

r, s = profile("alloc")
t.ok(r.samples >= 10, "alloc: enough samples")
t.ok(s.GC > 0.15, "allocation-heavy script shows GC")

r, s = profile("jitheavy")
-- "Dominated": TRACE is the largest state. Its exact share moves with the
-- build (ASan slows the C side) and the load, so no fixed majority.
local largest = true
for k, v in pairs(s) do
  if k ~= "TRACE" and v >= s.TRACE then largest = false end
end
t.ok(largest and s.TRACE > 0.35, "JIT-heavy script is dominated by TRACE")

t.done()
