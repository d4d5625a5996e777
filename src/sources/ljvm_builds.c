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

static const struct ljvm_build builds[] = {
	{"79b0b8114f05a2726860c3141195279ceb0f6e29",
	 "Debian 12 luajit 2.1.0~beta3+git20220320+dfsg-4.1+deb12u1 (/usr/bin/luajit)", 0x704e0,
	 0x74525, LJ21_GC64_2022, 64, 72, 20, 24},
	{"2e18b5eadde600273e47ba2f83a1df8b6a5b2540",
	 "Debian 12 libluajit-5.1-2 2.1.0~beta3+git20220320+dfsg-4.1+deb12u1", 0x8d70, 0xcdb5,
	 LJ21_GC64_2022, 64, 72, 20, 24},
};

const struct ljvm_build *ljvm_build__find(const char *build_id)
{
	for (size_t i = 0; i < sizeof(builds) / sizeof(builds[0]); i++)
		if (!strcmp(builds[i].build_id, build_id))
			return &builds[i];
	return NULL;
}
