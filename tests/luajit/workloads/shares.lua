-- SPDX-License-Identifier: GPL-2.0-only
-- A LuaJIT workload with known shares: three Lua functions get about 50%,
-- 30% and 20% of its CPU time, and it measures the time each really took
-- (os.clock around each call). Usage: luajit shares.lua SECONDS [OUT [STOP]]:
-- runs for SECONDS of CPU time or until the file STOP exists, then writes
-- "name share" lines (percent of its CPU time) to OUT (stdout). The functions
-- start on the lines the test looks for: heavy_a 10, heavy_b 15, heavy_c 20.
local clock = os.clock

local function heavy_a(n) -- line 10
	local s = 0
	for i = 1, n do s = s + (i * 7) % 13 end
	return s
end
local function heavy_b(n) -- line 15
	local s = 0
	for i = 1, n do s = s + (i % 11) * 3 end
	return s
end
local function heavy_c(n) -- line 20
	local s = 1
	for i = 1, n do s = (s * 3 + i) % 1000003 end
	return s
end

local secs = tonumber(arg[1] or 5)
local stop = arg[3]
local want = { heavy_a = 0.5, heavy_b = 0.3, heavy_c = 0.2 }
local fns = { heavy_a = heavy_a, heavy_b = heavy_b, heavy_c = heavy_c }
local order = { "heavy_a", "heavy_b", "heavy_c" }
local spent = { heavy_a = 0, heavy_b = 0, heavy_c = 0 }
local sink = 0
local t0 = clock()
local picks = 0
while clock() - t0 < secs do
	picks = picks + 1
	-- every ~100 ms of CPU time: has the caller asked it to stop?
	if stop and picks % 50 == 0 then
		local f = io.open(stop)
		if f then f:close(); break end
	end
	local total = clock() - t0 + 1e-9
	-- the function furthest below its share runs next, for about 2 ms
	local pick, gap = order[1], -1
	for _, k in ipairs(order) do
		local g = want[k] - spent[k] / total
		if g > gap then pick, gap = k, g end
	end
	local s = clock()
	sink = sink + fns[pick](200000)
	spent[pick] = spent[pick] + clock() - s
end
local all = clock() - t0
local out = arg[2] and assert(io.open(arg[2], "w")) or io.stdout
for _, k in ipairs(order) do out:write(string.format("%s %.1f\n", k, 100 * spent[k] / all)) end
out:write(string.format("sink %d\n", sink % 10))
if out ~= io.stdout then out:close() end
