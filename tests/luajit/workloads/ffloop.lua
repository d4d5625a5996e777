-- SPDX-License-Identifier: GPL-2.0-only
-- Workload: a loop of fast functions (builtins the VM runs in assembly:
-- type, math.floor, math.abs, bit.band, select, rawget, string.byte) with the
-- JIT off, so that the time goes to fast functions and the loop's bytecode.
jit.off()
local type, floor, abs, band, select, rawget, byte = type, math.floor, math.abs, bit.band,
  select, rawget, string.byte
local t, s = { 1, 2, 3 }, "abc"
local x = 0
for i = 1, tonumber(arg and arg[2]) or 4e6 do
  if type(i) == "number" then x = x + floor(i / 3) + abs(-i) end
  x = band(x, 0xffff) + select("#", i, i) + rawget(t, 2) + byte(s, 2)
end
return x
