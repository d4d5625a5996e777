-- SPDX-License-Identifier: GPL-2.0-only
-- Minimal test helper for the LuaJIT sysprof tests: ok/is/like print one
-- line per check; done() exits 1 if any failed; skip_all() exits 77.
-- run_until() sizes work by what a check measures: the profiler's timer
-- counts CPU time, so a fixed amount of work yields more samples on a slow
-- machine than on a fast one; repeating it until enough samples (or a CPU
-- budget) passes on both.
local M = { failed = 0, n = 0 }

local function report(pass, name, extra)
  M.n = M.n + 1
  if not pass then M.failed = M.failed + 1 end
  io.write(pass and "ok " or "not ok ", M.n, " - ", name, "\n")
  if not pass and extra then io.write("#   ", extra, "\n") end
end

function M.ok(v, name) report(not not v, name) end

function M.is(got, want, name)
  report(got == want, name, ("got %s, want %s"):format(tostring(got), tostring(want)))
end

function M.like(got, pat, name)
  report(type(got) == "string" and got:match(pat) ~= nil, name,
         ("%s does not match %s"):format(tostring(got), pat))
end

-- run_until(done, work[, budget]): calls work() until done() is true or
-- budget seconds of CPU time (default 20) have gone by; returns done().
function M.run_until(done, work, budget)
  local t0 = os.clock()
  repeat work() until done() or os.clock() - t0 > (budget or 20)
  return done()
end

function M.skip_all(why)
  io.stderr:write("SKIP: ", why, "\n")
  os.exit(77)
end

function M.done()
  io.write(("# %d checks, %d failed\n"):format(M.n, M.failed))
  os.exit(M.failed == 0 and 0 or 1)
end

return M
