-- SPDX-License-Identifier: GPL-2.0-only
-- Workload: time spent in C: string building (string.rep/format/upper,
-- table.concat) and FFI calls into libc (memset, strlen). The JIT is off:
-- compiled FFI calls would count as TRACE, as in Tarantool.
jit.off()
local ffi = require("ffi")
ffi.cdef [[ void *memset(void *s, int c, size_t n); size_t strlen(const char *s); ]]
local N = 1048576
local buf = ffi.new("char[?]", N)
local parts = {}
for i = 1, tonumber(arg and arg[2]) or 1500 do
  ffi.C.memset(buf, 65, N - 1)
  local s = string.rep("ab", 20000) .. string.format("%d:%s", i, ("x"):rep(1000))
  parts[#parts + 1] = s:upper():sub(1, 10)
  assert(ffi.C.strlen(buf) == N - 1)
end
return #table.concat(parts)
