-- SPDX-License-Identifier: GPL-2.0-only
-- An nginx Lua handler (content_by_lua) with known shares, for the
-- luajit_nginx test: each request runs work_a then work_b, and the worker
-- adds up the CPU time each took (os.clock: the worker's CPU time, user and
-- system). /stats says "cpu spent_a spent_b" in seconds: the test takes two
-- readings around threadtop's window and compares the functions' shares of
-- the worker's CPU time with the shares of its on-CPU samples.
local M = {}
local spent_a, spent_b = 0, 0

local function work_a(n)
	local s = 0
	for i = 1, n do s = (s * 31 + i) % 1000003 end
	return s
end

local function work_b(n)
	local s = 0
	for i = 1, n do s = s + (i % 7) * 3 end
	return s
end

function M.heavy()
	local t0 = os.clock()
	local a = work_a(100000)
	local t1 = os.clock()
	local b = work_b(100000)
	local t2 = os.clock()
	spent_a = spent_a + (t1 - t0)
	spent_b = spent_b + (t2 - t1)
	ngx.say(a + b)
end

function M.stats()
	ngx.say(string.format("%.6f %.6f %.6f", os.clock(), spent_a, spent_b))
end

return M
