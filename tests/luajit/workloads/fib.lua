-- SPDX-License-Identifier: GPL-2.0-only
-- Workload: recursive fib with the JIT off, i.e. pure interpreted Lua.
jit.off()
local function fib(n) if n < 2 then return n end return fib(n - 1) + fib(n - 2) end
return fib(tonumber(arg and arg[2]) or 32)
