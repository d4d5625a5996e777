-- SPDX-License-Identifier: GPL-2.0-only
-- misc.sysprof Lua API, mirroring Tarantool's misclib-sysprof-lapi test
-- (tarantool/luajit test/tarantool-tests/profilers): every misuse is
-- nil, "profiler misuse: <why>", EINVAL and never raises (start() with no
-- table, with two arguments, with a string, a missing or bad mode, a bad
-- interval or path), validation order and messages, running/not running,
-- bad paths, report() while running and its two shapes (threadtop
-- extensions), counters that sum to samples, the DEFAULT-mode state split
-- of fib(), and L/C streams that parse.
local t = require("tap")
local sp = misc.sysprof

jit.off()
jit.flush()

local function fib(n) if n < 2 then return n end return fib(n - 1) + fib(n - 2) end
local function sum(r)
  local s = 0
  for _, v in pairs(r.vmstate) do s = s + v end
  return s
end
local BAD_PATH = "/nonexistent-dir-sysprof/tmp.bin"
local parser = os.getenv("TT_PARSER")

t.is(type(sp.available), "boolean", "available is a boolean")
t.is(sp.available, true, "available on x86-64 Linux")

local res, err, errno = sp.start({ mode = "A" })
t.is(res, nil, "bad mode: nil")
t.like(err, "profiler mode must be 'D', 'L' or 'C'", "bad mode: message")
t.is(type(errno), "number", "bad mode: errno")

-- Tarantool requires exactly one table with a mode: the rest is misuse.
local function misuse(name, want, ...)
  local ok, r, e, n = pcall(sp.start, ...)
  t.ok(ok, name .. ": does not raise")
  t.is(r, nil, name .. ": nil")
  t.like(e, "^profiler misuse: " .. want, name .. ": message")
  t.is(n, 22, name .. ": errno EINVAL")
  if r then sp.stop() end
end
misuse("start()", "start takes one table of options, got 0 arguments")
misuse("start{}", "profiler mode must be 'D', 'L' or 'C'", {})
misuse("start(opts, extra)", "start takes one table of options, got 2 arguments",
       { mode = "D" }, 1)
misuse("start('D')", "start takes a table of options, got string", "D")
misuse("start{mode = 1}", "profiler mode must be 'D', 'L' or 'C'", { mode = 1 })
misuse("start{mode = 'DD'}", "profiler mode must be 'D', 'L' or 'C'", { mode = "DD" })
misuse("interval 0.5", "profiler interval must be 1 ms or more",
       { mode = "D", interval = 0.5 })

res, err, errno = sp.start({ mode = "D" })
t.is(res, true, "start{mode = 'D'} succeeds")
t.is(err, nil, "start D: no message")
t.is(errno, nil, "start D: no errno")
t.is(io.open("sysprof.bin", "r"), nil, "mode D writes no sysprof.bin")
t.is(sp.stop(), true, "stop after start D")
t.is(sp.start({ mode = "D", path = 190 }), true, "mode D ignores path, as Tarantool")
t.is(sp.stop(), true, "stop")
t.is(sp.start({ mode = "D", interval = "x" }), true, "a non-number interval is the default")
t.is(sp.stop(), true, "stop")

res, err = sp.start({ mode = "A", path = BAD_PATH, interval = -1 })
t.is(err, "profiler misuse: profiler mode must be 'D', 'L' or 'C'", "mode is checked first")
res, err = sp.start({ mode = "C", path = BAD_PATH, interval = -1 })
t.is(err, "profiler misuse: profiler interval must be 1 ms or more",
     "interval is checked before path")

t.is(sp.start({ mode = "D" }), true, "start D")
res, err, errno = sp.start({ mode = "D" })
t.is(res, nil, "second start: nil")
t.is(err, "profiler is running already", "second start: message")
t.is(type(errno), "number", "second start: errno")
t.is(sp.stop(), true, "stop")

res, err, errno = sp.stop()
t.is(res, nil, "stop when idle: nil")
t.is(err, "profiler is not running", "stop when idle: message")
t.is(type(errno), "number", "stop when idle: errno")

res, err, errno = sp.start({ mode = "C", path = BAD_PATH })
t.is(res, nil, "bad path: nil")
t.is(err, BAD_PATH .. ": No such file or directory", "bad path: message")
t.is(errno, 2, "bad path: errno ENOENT")

res, err = sp.start({ mode = "C", path = 190 })
t.is(err, "profiler misuse: profiler path should be a string", "path must be a string")
res, err, errno = sp.start({ mode = "C", interval = -1 })
t.like(err, "^profiler misuse", "interval -1: profiler misuse")
t.is(errno, 22, "interval -1: EINVAL")
res, err = sp.start({ mode = "C", interval = 0 })
t.like(err, "^profiler misuse: profiler interval", "interval 0")

res, err, errno = sp.start({ mode = "C", interval = 1, path = "/dev/null" })
t.is(res, true, "interval 1 to /dev/null")
t.ok(err == nil and errno == nil, "no message")
fib(24)
t.is(sp.stop(), true, "stop C to /dev/null")

-- The timer counts CPU time: work runs until the samples it checks are
-- there (fib(32) is 0.1 s of CPU on a fast machine: one 100 ms tick at most).
local function samples_at_least(n) return function() return sp.report().samples >= n end end
local function fib_chunk() fib(22) end

t.is(sp.start({ mode = "D", interval = 1 }), true, "start D interval 1")
t.run_until(samples_at_least(5), fib_chunk)
local r = sp.report()
t.ok(r.samples >= 5, "report() while running has samples")
t.is(sp.stop(), true, "stop")

t.is(sp.start({ mode = "D", interval = 100 }), true, "start D interval 100")
t.run_until(samples_at_least(5), fib_chunk)
t.is(sp.stop(), true, "stop")
r = sp.report()
t.ok(r.samples >= 5, "fib at 100 ms: samples (" .. r.samples .. ")")
t.is(sum(r), r.samples, "counters sum to samples")
t.ok(r.vmstate.LFUNC + r.vmstate.GC + r.vmstate.INTERP > 0, "LFUNC + GC + INTERP > 0")
-- fib is Lua code; the loop's check between chunks calls sp.report(), a C
-- function, where a tick lands now and then (twice seen in CI's parallel runs).
t.ok(r.vmstate.FFUNC + r.vmstate.CFUNC <= 1, "FFUNC + CFUNC <= 1 (the polling's report())")
for _, st in ipairs({ "TRACE", "RECORD", "OPT", "ASM", "EXIT" }) do
  t.is(r.vmstate[st], 0, st .. " == 0 with the JIT off")
end
t.is(r.LFUNC, r.vmstate.LFUNC, "documented flat shape")
t.is(r.fidelity, 10, "fidelity: 10 states told apart")
t.ok(type(r.fidelity_limits) == "string" and r.fidelity_limits:find("INTERP", 1, true),
  "fidelity_limits names the state that differs from Tarantool's")

t.is(sp.start({ mode = "D", interval = 1000 }), true, "start D interval 1000")
local c0 = os.clock()
fib(20)
local short = os.clock() - c0 < 0.9
t.is(sp.stop(), true, "stop")
t.ok(sp.report().samples == 0 or not short, "interval 1000: no sample in a short run")

for _, mode in ipairs({ "L", "C" }) do
  local path = "lapi-" .. mode .. ".bin"
  t.is(sp.start({ mode = mode, interval = 10, path = path }), true, "start " .. mode)
  t.run_until(samples_at_least(10), fib_chunk)
  t.is(sp.stop(), true, "stop " .. mode)
  t.ok(sp.report().samples >= 10, mode .. ": samples")
  local p = io.popen(parser .. " " .. path .. " 2>&1; echo rc=$?")
  local outp = p:read("*a")
  p:close()
  t.like(outp, "rc=0", mode .. " stream parses")
end

-- jit.p and sysprof share SIGPROF: starting sysprof under jit.p fails
-- with the reason, and works again once jit.p stopped.
local ok_p, jp = pcall(require, "jit.p")
if ok_p then
  jp.start("f", "/dev/null")
  res, err = sp.start({ mode = "D" })
  t.is(res, nil, "start under jit.p fails")
  t.like(err, "SIGPROF is in use", "start under jit.p: reason")
  jp.stop()
  t.is(sp.start({ mode = "D" }), true, "start after jit.p stopped")
  t.is(sp.stop(), true, "stop")
end

t.done()
