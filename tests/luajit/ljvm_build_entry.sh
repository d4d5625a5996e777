#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Prints the src/sources/ljvm_builds.c entry of a LuaJIT build (x86-64, GC64):
#   tests/luajit/ljvm_build_entry.sh LUAJIT_SRC_DIR FILE
# LUAJIT_SRC_DIR is the build's own source (its src/ with lj_obj.h, at the
# commit the package was made from: Debian 12's 2.1.0~beta3+git20220320 is
# LuaJIT v2.1 at 43ebb949), FILE the luajit binary or libluajit-5.1.so.2.
# The offsets are offsetof() in that source, compiled for this host; the
# interpreter is the largest FDE of FILE's .eh_frame (lj_vm_asm_begin's); the
# entry is refused when FILE's VM does not store g->vmstate where the
# offsets say (the operand of `movl $0xfffffffe,-X(%r14)`).
set -euo pipefail
src=${1:?LuaJIT source dir (with src/lj_obj.h)} file=${2:?luajit binary or library}
[ -f "$src/src/lj_obj.h" ] && src=$src/src
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/off.c" <<'C'
#include <stdio.h>
#include <stddef.h>
#include "lj_obj.h"
#include "lj_dispatch.h"
int main(void)
{
	if (!LJ_GC64 || !LJ_FR2)
		return 1;
	printf("%d %zu %zu %zu %zu %zu %zu %zu %zu %zu %zu %zu %zu %zu %zu\n",
	       GG_OFS(g) - GG_OFS(dispatch), offsetof(global_State, vmstate),
	       offsetof(global_State, mainthref), offsetof(global_State, cur_L),
	       offsetof(global_State, jit_base), offsetof(lua_State, glref),
	       offsetof(lua_State, base), offsetof(GCfuncL, ffid), offsetof(GCfuncL, pc),
	       offsetof(GCfuncC, f), sizeof(GCproto), offsetof(GCproto, chunkname),
	       offsetof(GCproto, firstline), offsetof(GCstr, len), sizeof(GCstr));
	return 0;
}
C
cc -I"$src" -o "$tmp/off" "$tmp/off.c"
read -r d2g vmst mainth curl jitbase glref lbase ffid pc f psize chunk first slen sdata < <("$tmp/off")
bid=$(readelf -n "$file" | awk '/Build ID/ { print $3 }')
read -r lo hi < <(readelf --debug-dump=frames "$file" 2>/dev/null | sed -n 's/.*pc=\([0-9a-f]*\)\.\.\([0-9a-f]*\).*/\1 \2/p' |
	while read -r l h; do echo "$((0x$h - 0x$l)) $l $h"; done | sort -n | tail -n 1 |
	awk '{ print "0x" $2, "0x" $3 }')
want=$(printf -- '-0x%x(%%r14)' $((-(d2g + vmst))))
# grep -c, not -q: under pipefail, objdump killed by SIGPIPE would fail the check.
objdump -d "$file" | grep -c -- "\$0xfffffffe,$want" >/dev/null ||
	{ echo "$file: no vmstate store at $want: not this source's layout" >&2; exit 1; }
cat <<E
	{"$bid", "$(basename "$file")", $lo, $hi,
	 {.dispatch_to_g = $d2g, .g_vmstate = $vmst, .g_mainthref = $mainth, .g_cur_L = $curl,
	  .g_jit_base = $jitbase, .L_glref = $glref, .L_base = $lbase, .fn_ffid = $ffid,
	  .fn_pc = $pc, .fn_f = $f, .proto_size = $psize},
	 $chunk, $first, $slen, $sdata},
E
