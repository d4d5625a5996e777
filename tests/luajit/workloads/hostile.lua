-- SPDX-License-Identifier: GPL-2.0-only
-- A LuaJIT workload whose hot function comes from a chunk with a hostile
-- name (an escape sequence that clears a terminal, a quote, a newline), for
-- luajit_agentless_hostile: runs it for arg[1] seconds of CPU time.
local src = [[
local function hot(n)
	local s = 0
	for i = 1, n do s = (s * 31 + i) % 1000003 end
	return s
end
return hot
]]
local hot = assert(loadstring(src, "@evil\27[2J\"q\nline2"))()
local t0 = os.clock()
local x = 0
while os.clock() - t0 < tonumber(arg[1] or 20) do x = x + hot(100000) end
print(x % 7)
