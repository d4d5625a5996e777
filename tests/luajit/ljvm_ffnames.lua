-- SPDX-License-Identifier: GPL-2.0-only
-- Prints the C array of fast-function names of the running LuaJIT build,
-- indexed by ffid (jit.util.funcinfo(f).ffid), for src/sources/ljvm_builds.c:
-- the agentless unwinder's frames of builtins are named with it. The ids
-- are the build's own (lj_ffdef.h), so run it with the build the entry is for.
local fi = require("jit.util").funcinfo
local names, seen = {}, {}
local function scan(prefix, t)
	if type(t) ~= "table" or seen[t] then return end
	seen[t] = true
	local keys = {}
	for k in pairs(t) do if type(k) == "string" then keys[#keys + 1] = k end end
	table.sort(keys)
	for _, k in ipairs(keys) do
		local v = t[k]
		if type(v) == "function" then
			local i = fi(v)
			if i.ffid and i.ffid > 1 and not names[i.ffid] then names[i.ffid] = prefix .. k end
		end
	end
end
scan("", _G)
for _, lib in ipairs({ "string", "table", "math", "io", "os", "coroutine", "debug", "bit", "jit",
		"jit.util", "jit.opt", "jit.profile", "package", "ffi", "string.buffer",
		"table.new", "table.clear",
		-- OpenResty's branch (luajit2) only
		"table.isempty", "table.isarray", "table.nkeys", "table.clone", "thread.exdata",
		"thread.exdata2" }) do
	local ok, t = pcall(require, lib)
	if ok and type(t) == "table" then scan(lib .. ".", t)
	elseif ok and type(t) == "function" then
		local i = fi(t)
		if i.ffid and not names[i.ffid] then names[i.ffid] = lib end
	end
end
local maxid = 0
for id in pairs(names) do if id > maxid then maxid = id end end
io.write("static const char *const ffnames_", arg[1] or "BUILD", "[] = {\n")
local line = "\t"
for id = 0, maxid do
	local s = names[id] and ('"' .. names[id] .. '",') or "NULL,"
	if #line + #s + 1 > 96 then io.write(line:gsub(" $", ""), "\n") line = "\t" end
	line = line .. s .. " "
end
io.write(line:gsub(" $", ""), "\n};\n")
