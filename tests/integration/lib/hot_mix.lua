-- A compiled loop beside an interpreted one, for the tests that compare
-- LuaJIT stacks across views: hot_loop runs as a trace, interp in the
-- interpreter (jit.off). Runs for arg[1] seconds of CPU time.
local function hot_loop(n) local s = 0 for i = 1, n do s = s + i % 7 end return s end
local function interp(n) local s = 0 for i = 1, n do s = s + i end return s end
jit.off(interp)
local t = os.clock()
while os.clock() - t < tonumber(arg[1]) do hot_loop(1e6) interp(1e4) end
