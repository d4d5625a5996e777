-- SPDX-License-Identifier: GPL-2.0-only
-- Workload: table.sort (a C function) with a Lua comparator, the JIT off.
-- Sets SORT_SPLIT = {sort = CPU s in table.sort, cmp = CPU s in the
-- comparator}: the comparator's time is measured by calling it as often as
-- sort did from a Lua loop, minus the same loop without the call (a call and
-- its return count for the function called, as in the profile).
jit.off()
local N = tonumber(arg and arg[2]) or 2000
-- A comparator with work of its own, so that the cost of calling it from C
-- (which the profile puts partly on either side) is small beside it.
local function cmp(a, b)
  local x = 0
  for i = 1, 100 do x = x + i end
  return a + x < b + x
end
local arr = {}
local function fill() for i = 1, N do arr[i] = (i * 7919) % N end end
-- Comparisons per sort, counted once per process (outside the figures).
if not SORT_CALLS then
  local n = 0
  fill()
  table.sort(arr, function(a, b) n = n + 1 return a < b end)
  SORT_CALLS = n
end
local calls = SORT_CALLS
local t_sort = 0
for _ = 1, 8 do
  fill()
  local c0 = os.clock()
  table.sort(arr, cmp)
  t_sort = t_sort + os.clock() - c0
end
local function loop(f, n)
  local c0, x = os.clock(), 0
  if f then
    for i = 1, n do x = f(i, n - i) end
  else
    for i = 1, n do x = i < n - i end
  end
  return os.clock() - c0
end
local t_cmp = loop(cmp, 8 * calls) - loop(nil, 8 * calls)
SORT_SPLIT = SORT_SPLIT or { sort = 0, cmp = 0, cside = 0 }
SORT_SPLIT.sort = SORT_SPLIT.sort + t_sort
SORT_SPLIT.cmp = SORT_SPLIT.cmp + math.max(t_cmp, 0)
-- With SORT_CSIDE set (not in a profiled run: its sorts would count),
-- SORT_SPLIT.cside is the CPU s of sort's own work and its calls from C: a
-- sort with a trivial comparator less the same calls from Lua, the time a
-- profile may put on either side (a C-to-Lua call costs more than a Lua
-- one, much more under software emulation).
if SORT_CSIDE then
  local function triv(a, b) return a < b end
  local t_sort0 = 0
  for _ = 1, 8 do
    fill()
    local c0 = os.clock()
    table.sort(arr, triv)
    t_sort0 = t_sort0 + os.clock() - c0
  end
  local t_triv = loop(triv, 8 * calls) - loop(nil, 8 * calls)
  SORT_SPLIT.cside = SORT_SPLIT.cside + math.max(t_sort0 - t_triv, 0)
end
