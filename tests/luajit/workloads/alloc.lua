-- SPDX-License-Identifier: GPL-2.0-only
-- Workload: allocation-heavy: short-lived tables and strings keep the GC busy.
local keep
for i = 1, tonumber(arg and arg[2]) or 3e6 do keep = { i, tostring(i), { i } } end
return keep
