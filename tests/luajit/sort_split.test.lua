-- SPDX-License-Identifier: GPL-2.0-only
-- A C function called from Lua is attributed under the Lua frame that
-- called it, not under a later one: table.sort with a Lua comparator (mode
-- C) splits between sort and the comparator as the workload's own os.clock
-- measurement does, within 5 points (above it, also the C side's share,
-- measured apart), and no sample shows sort on top of the
-- comparator it called (the phantom "sort;cmp;sort" of a Lua stack taken at
-- the next safe point), a lua_pcall/lua_call leaf that was not executing
-- (more stacks ending in one than samples taken in its code), or a frame of
-- the profiler. Runs until 1000 samples; one retry when the share is off
-- (the workload's own timing is two measurements on a shared machine).
local t = require("tap")
local sp = misc.sysprof
local script = os.getenv("TT_LJ_TESTS") .. "/workloads/sort.lua"
local parser = os.getenv("TT_PARSER")

local chunk = assert(loadfile(script))

local function parse(opt)
  local p = io.popen(parser .. opt .. " sort.bin")
  local out = p:read("*a")
  p:close()
  return out
end

-- One profile of the workload: the counts of the checks below.
local function measure()
  SORT_SPLIT = nil
  assert(sp.start({ mode = "C", interval = 2, path = "sort.bin" }))
  t.run_until(function() return sp.report().samples >= 1000 end, chunk, 40)
  assert(sp.stop())
  jit.on()
  local folded, raw = parse(""), parse(" --raw")
  -- Samples taken in a VM entry's own code: their raw host stack ends in
  -- it, or in the VM's unnamed code it runs (lj_vm_call, which the parser
  -- drops as the VM's own frames), and no Lua frame follows it yet: the Lua
  -- stack ends in a C function (a frame without "@") and the host has more
  -- entries than the Lua stack has C functions to continue at them.
  local m = { total = 0, cmp = 0, phantom = 0, badleaf = 0, own = 0, entry_leaves = 0 }
  for host, guest, n in raw:gmatch("([^\n|]*)|([^\n]*) (%d+)\n") do
    local entries, cfuncs, last, k = 0, 0, true, nil
    for f in host:gmatch("[^;]+") do
      if f == "lua_pcall" or f == "lua_call" or f == "lua_cpcall" then entries = entries + 1 end
    end
    for f in guest:gmatch("[^;]+") do
      last = not f:find("@", 1, true)
      if last then cfuncs = cfuncs + 1 end
    end
    repeat
      host, k = host:gsub(";%[libluajit[^;%]]*%];$", ";")
    until k == 0
    if (host:match(";lua_p?call;$") or host:match(";lua_cpcall;$")) and last and entries > cfuncs then
      m.entry_leaves = m.entry_leaves + tonumber(n)
    end
  end
  for stack, n in folded:gmatch("([^\n]*) (%d+)\n") do
    n = tonumber(n)
    if stack:find("table.sort", 1, true) then
      m.total = m.total + n
      if stack:match("table%.sort;[^;]*sort%.lua:11") then m.cmp = m.cmp + n end
      if stack:match("sort%.lua:11[^;]*;.*table%.sort") then m.phantom = m.phantom + n end
    end
    if stack:match(";lua_p?call$") or stack:match(";lua_cpcall$") then
      m.badleaf = m.badleaf + n
    end
    if stack:find("threadtop-sysprof", 1, true) or stack:find("sp_", 1, true) then
      m.own = m.own + n
    end
  end
  m.truth = SORT_SPLIT.cmp / SORT_SPLIT.sort
  m.share = m.cmp / math.max(m.total, 1)
  io.write(("# %d samples in table.sort: comparator %.1f%% (workload's own split %.1f%%)\n")
    :format(m.total, 100 * m.share, 100 * m.truth))
  return m
end

-- The C side's share, measured apart and unprofiled (its trivial sorts
-- must not count): sort's own work and its calls from C, which a profile
-- may put on either side, as luajit_stitch_live allows. In a loaded CI run
-- (ASan, parallel tests) the comparator's share came out 92.6% and 94.7%
-- against a split of 87.3% and 87.1%: the C side's 7 points.
SORT_SPLIT, SORT_CSIDE = nil, true
local c0 = os.clock()
repeat chunk() until os.clock() - c0 > 1
local cside = SORT_SPLIT.cside / SORT_SPLIT.sort
SORT_CSIDE = nil
io.write(("# the C side: %.1f%% of sort's time\n"):format(100 * cside))
local function near(m)
  local d = m.share - m.truth
  return d >= -0.05 and d <= cside + 0.05
end

-- Two processes' worth of timing on a shared machine: one retry.
local m = measure()
if not near(m) then m = measure() end
local total, cmp, phantom, badleaf, own, entry_leaves =
  m.total, m.cmp, m.phantom, m.badleaf, m.own, m.entry_leaves
local truth = m.truth
t.ok(total >= 300, "enough samples in table.sort (" .. total .. ")")
t.ok(near(m), ("comparator share %.1f%% within %.1f%% - 5 and + %.1f (C side) + 5 points")
  :format(100 * cmp / total, 100 * truth, 100 * cside))
t.is(phantom, 0, "no sort above the comparator it called")
t.ok(badleaf <= entry_leaves, ("stacks ending in a VM entry (%d) were taken in its code (%d)")
  :format(badleaf, entry_leaves))
t.is(own, 0, "no frame of the profiler")
t.done()
