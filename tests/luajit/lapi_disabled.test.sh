# SPDX-License-Identifier: GPL-2.0-only
# misc.sysprof when the profiler is disabled (THREADTOP_SYSPROF_DISABLE=1),
# mirroring Tarantool's misclib-sysprof-lapi-disabled test.
cat > disabled.lua <<'LUA'
local t = require("tap")
for _, f in ipairs({ "start", "stop", "report" }) do
  local res, err, errno = misc.sysprof[f]()
  t.is(res, nil, f .. ": nil")
  t.like(err, "profiler is disabled", f .. ": message")
  t.is(type(errno), "number", f .. ": errno")
end
t.is(type(misc.sysprof.available), "boolean", "available is a boolean")
t.is(misc.sysprof.available, false, "available is false")
t.done()
LUA
THREADTOP_SYSPROF_DISABLE=1 "$TT_LUAJIT" disabled.lua
