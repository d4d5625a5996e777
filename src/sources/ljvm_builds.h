/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The LuaJIT builds the agentless unwinder (bpf/ljvm.bpf.c) can read: per
 * GNU build-id, the struct offsets of that build and where its interpreter
 * is in the file. A process whose luajit binary or libluajit has another
 * build-id is refused with a message saying so. An entry is made with
 * tests/luajit/ljvm_build_entry.sh from the build's own LuaJIT source.
 */
#ifndef THREADTOP_LJVM_BUILDS_H
#define THREADTOP_LJVM_BUILDS_H

#include <stdint.h>

#include "threadtop/events.h"
#include "ljvm.shared.h"

struct ljvm_build {
	const char *build_id;	    /* hex */
	const char *what;	    /* "Debian 12 luajit 2.1.0~beta3+git20220320" */
	uint64_t vm_lo, vm_hi;	    /* the interpreter's code: ELF virtual addresses of the file */
	struct tt_ljvm_proc layout; /* vm_lo and vm_hi there are left 0 */
	/* What user space reads to name a Lua function: GCproto.chunkname
	 * (GCRef of a GCstr) and .firstline, GCstr.len and its bytes. */
	uint16_t proto_chunkname, proto_firstline, str_len, str_data;
	/* Fast functions' names by ffid ("string.byte"; NULL: unknown), as the
	 * build's own jit.util.funcinfo says (tests/luajit/ljvm_ffnames.lua). */
	const char *const *ffnames;
	size_t nr_ffnames;
};

/* The build of build_id (hex), or NULL when unknown. */
const struct ljvm_build *ljvm_build__find(const char *build_id);

#endif /* THREADTOP_LJVM_BUILDS_H */
