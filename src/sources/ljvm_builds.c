// SPDX-License-Identifier: GPL-2.0-only
/*
 * The known LuaJIT builds (ljvm_builds.h). Each layout comes from the
 * build's source at its commit, compiled for its target
 * (tests/luajit/ljvm_build_entry.sh prints the entry: offsetof() of the
 * fields, and the interpreter's range, the largest FDE of .eh_frame, which
 * is lj_vm_asm_begin's). The distance DISPATCH -> vmstate it implies,
 * -0xec8 here, is the operand of the VM's own stores to g->vmstate
 * (`movl $0xfffffffe,-0xec8(%r14)` in objdump -d): the script checks it.
 */
#include <string.h>

#include "ljvm_builds.h"

/* LuaJIT v2.1 at 43ebb949 (2022-03-20), x86-64, GC64, JIT and FFI on. */
#define LJ21_GC64_2022                                                                            \
	{                                                                                         \
		.dispatch_to_g = 96 - 4064, .g_vmstate = 184, .g_mainthref = 192, .g_cur_L = 368, \
		.g_jit_base = 376, .L_glref = 16, .L_base = 32, .fn_ffid = 10, .fn_pc = 32,       \
		.fn_f = 40, .proto_size = 104,                                                    \
	}

/* OpenResty's LuaJIT branch 2.1-20230119 (Debian 12's luajit2), x86-64, GC64: its
 * global_State sits 40 bytes further from DISPATCH than upstream's. */
#define LJ21_OPENRESTY_2023                                                                   \
	{                                                                                     \
		.dispatch_to_g = -4008, .g_vmstate = 184, .g_mainthref = 192, .g_cur_L = 368, \
		.g_jit_base = 376, .L_glref = 16, .L_base = 32, .fn_ffid = 10, .fn_pc = 32,   \
		.fn_f = 40, .proto_size = 104,                                                \
	}

/* LuaJIT v2.1 at 43ebb949 as Debian 12 builds it: tests/luajit/ljvm_ffnames.lua deb12 */
/* clang-format off */
static const char *const ffnames_deb12[] = {
	NULL, NULL, "assert", "type", "next", "pairs", NULL, "ipairs", "getmetatable", "setmetatable",
	"getfenv", "setfenv", "rawget", "rawset", "rawequal", "unpack", "select", "tonumber",
	"tostring", "error", "pcall", "xpcall", "loadfile", "load", "loadstring", "dofile", "gcinfo",
	"collectgarbage", "newproxy", "print", "coroutine.status", "coroutine.running",
	"coroutine.isyieldable", "coroutine.create", "coroutine.yield", "coroutine.resume", NULL,
	"coroutine.wrap", "math.abs", "math.floor", "math.ceil", "math.sqrt", "math.log10",
	"math.exp", "math.sin", "math.cos", "math.tan", "math.asin", "math.acos", "math.atan",
	"math.sinh", "math.cosh", "math.tanh", "math.frexp", "math.modf", "math.log", "math.atan2",
	"math.pow", "math.fmod", "math.ldexp", "math.min", "math.max", "math.random",
	"math.randomseed", "bit.tobit", "bit.bnot", "bit.bswap", "bit.lshift", "bit.rshift",
	"bit.arshift", "bit.rol", "bit.ror", "bit.band", "bit.bor", "bit.bxor", "bit.tohex",
	"string.byte", "string.char", "string.sub", "string.rep", "string.reverse", "string.lower",
	"string.upper", "string.dump", "string.find", "string.match", NULL, "string.gmatch",
	"string.gsub", "string.format", "table.maxn", "table.insert", "table.concat", "table.sort",
	"table.new", "table.clear", NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, "io.open",
	"io.popen", "io.tmpfile", "io.close", "io.read", "io.write", "io.flush", "io.input",
	"io.output", "io.lines", "io.type", "os.execute", "os.remove", "os.rename", "os.tmpname",
	"os.getenv", "os.exit", "os.clock", "os.date", "os.time", "os.difftime", "os.setlocale",
	"debug.getregistry", "debug.getmetatable", "debug.setmetatable", "debug.getfenv",
	"debug.setfenv", "debug.getinfo", "debug.getlocal", "debug.setlocal", "debug.getupvalue",
	"debug.setupvalue", "debug.upvalueid", "debug.upvaluejoin", "debug.sethook", "debug.gethook",
	"debug.debug", "debug.traceback", "jit.on", "jit.off", "jit.flush", "jit.status",
	"jit.security", "jit.attach", "jit.util.funcinfo", "jit.util.funcbc", "jit.util.funck",
	"jit.util.funcuvname", "jit.util.traceinfo", "jit.util.traceir", "jit.util.tracek",
	"jit.util.tracesnap", "jit.util.tracemc", "jit.util.traceexitstub", "jit.util.ircalladdr",
	"jit.opt.start", "jit.profile.start", "jit.profile.stop", "jit.profile.dumpstack", NULL, NULL,
	NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
	NULL, NULL, NULL, NULL, NULL, NULL, "ffi.cdef", "ffi.new", "ffi.cast", "ffi.typeof",
	"ffi.typeinfo", "ffi.istype", "ffi.sizeof", "ffi.alignof", "ffi.offsetof", "ffi.errno",
	"ffi.string", "ffi.copy", "ffi.fill", "ffi.abi", "ffi.metatype", "ffi.gc", "ffi.load", NULL,
	NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
	"string.buffer.new", "string.buffer.encode", "string.buffer.decode",
};
/* clang-format on */

/* Debian 12's luajit2: tests/luajit/ljvm_ffnames.lua deb12_luajit2 */
/* clang-format off */
static const char *const ffnames_deb12_luajit2[] = {
	NULL, NULL, "assert", "type", "next", "pairs", NULL, "ipairs", "getmetatable", "setmetatable",
	"getfenv", "setfenv", "rawget", "rawset", "rawequal", "unpack", "select", "tonumber",
	"tostring", "error", "pcall", "xpcall", "loadfile", "load", "loadstring", "dofile", "gcinfo",
	"collectgarbage", "newproxy", "print", "coroutine.status", "coroutine.running",
	"coroutine.isyieldable", "coroutine.create", "coroutine.yield", "coroutine.resume", NULL,
	"coroutine.wrap", "thread.exdata", "thread.exdata2", "math.abs", "math.floor", "math.ceil",
	"math.sqrt", "math.log10", "math.exp", "math.sin", "math.cos", "math.tan", "math.asin",
	"math.acos", "math.atan", "math.sinh", "math.cosh", "math.tanh", "math.frexp", "math.modf",
	"math.log", "math.atan2", "math.pow", "math.fmod", "math.ldexp", "math.min", "math.max",
	"math.random", "math.randomseed", "bit.tobit", "bit.bnot", "bit.bswap", "bit.lshift",
	"bit.rshift", "bit.arshift", "bit.rol", "bit.ror", "bit.band", "bit.bor", "bit.bxor",
	"bit.tohex", "string.byte", "string.char", "string.sub", "string.rep", "string.reverse",
	"string.lower", "string.upper", "string.dump", "string.find", "string.match", NULL,
	"string.gmatch", "string.gsub", "string.format", "table.maxn", "table.insert", "table.concat",
	"table.clone", "table.isarray", "table.nkeys", "table.isempty", "table.sort", "table.new",
	"table.clear", NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, "io.open", "io.popen",
	"io.tmpfile", "io.close", "io.read", "io.write", "io.flush", "io.input", "io.output",
	"io.lines", "io.type", "os.execute", "os.remove", "os.rename", "os.tmpname", "os.getenv",
	"os.exit", "os.clock", "os.date", "os.time", "os.difftime", "os.setlocale",
	"debug.getregistry", "debug.getmetatable", "debug.setmetatable", "debug.getfenv",
	"debug.setfenv", "debug.getinfo", "debug.getlocal", "debug.setlocal", "debug.getupvalue",
	"debug.setupvalue", "debug.upvalueid", "debug.upvaluejoin", "debug.sethook", "debug.gethook",
	"debug.debug", "debug.traceback", "jit.on", "jit.off", "jit.flush", "jit.status",
	"jit.security", "jit.attach", "jit.prngstate", "jit.util.funcinfo", "jit.util.funcbc",
	"jit.util.funck", "jit.util.funcuvname", "jit.util.traceinfo", "jit.util.traceir",
	"jit.util.tracek", "jit.util.tracesnap", "jit.util.tracemc", "jit.util.traceexitstub",
	"jit.util.ircalladdr", "jit.opt.start", "jit.profile.start", "jit.profile.stop",
	"jit.profile.dumpstack", NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
	NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, "ffi.cdef", "ffi.new",
	"ffi.cast", "ffi.typeof", "ffi.typeinfo", "ffi.istype", "ffi.sizeof", "ffi.alignof",
	"ffi.offsetof", "ffi.errno", "ffi.string", "ffi.copy", "ffi.fill", "ffi.abi", "ffi.metatype",
	"ffi.gc", "ffi.load", NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
	NULL, NULL, NULL, NULL, "string.buffer.new", "string.buffer.encode", "string.buffer.decode",
};
/* clang-format on */

#define FFNAMES(a) a, sizeof(a) / sizeof(a[0])

static const struct ljvm_build builds[] = {
	{"79b0b8114f05a2726860c3141195279ceb0f6e29",
	 "Debian 12 luajit 2.1.0~beta3+git20220320+dfsg-4.1+deb12u1 (/usr/bin/luajit)", 0x704e0,
	 0x74525, LJ21_GC64_2022, 64, 72, 20, 24, FFNAMES(ffnames_deb12)},
	{"2e18b5eadde600273e47ba2f83a1df8b6a5b2540",
	 "Debian 12 libluajit-5.1-2 2.1.0~beta3+git20220320+dfsg-4.1+deb12u1", 0x8d70, 0xcdb5,
	 LJ21_GC64_2022, 64, 72, 20, 24, FFNAMES(ffnames_deb12)},
	/* nginx's Lua module (libnginx-mod-http-lua) needs these: lua-resty-core
	 * depends on libluajit2-5.1-2, which conflicts with libluajit-5.1-2. */
	{"3e3d615119e82f1b42bd151e94701750bfd15a9d",
	 "Debian 12 luajit2 2.1-20230119-1 (/usr/bin/luajit)", 0x9b90, 0xdbe2, LJ21_OPENRESTY_2023,
	 64, 72, 20, 24, FFNAMES(ffnames_deb12_luajit2)},
	{"0a6563c55d870716908fd332f88bf7cdd9bc6a71", "Debian 12 libluajit2-5.1-2 2.1-20230119-1",
	 0x9e40, 0xde92, LJ21_OPENRESTY_2023, 64, 72, 20, 24, FFNAMES(ffnames_deb12_luajit2)},
};

const struct ljvm_build *ljvm_build__find(const char *build_id)
{
	for (size_t i = 0; i < sizeof(builds) / sizeof(builds[0]); i++)
		if (!strcmp(builds[i].build_id, build_id))
			return &builds[i];
	return NULL;
}
