/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Names of the frames the agentless LuaJIT unwinder (bpf/ljvm.bpf.c)
 * reports: a Lua function from its GCproto, read from the process with
 * bounded process_vm_readv calls, a fast function from the build's table.
 * A process that lies in its memory gets "[lua?]", never a longer read.
 */
#ifndef THREADTOP_LJVM_NAMES_H
#define THREADTOP_LJVM_NAMES_H

#include <stddef.h>
#include <stdint.h>

#include "ljvm_builds.h"

#define LJVM_CHUNK_MAX 256 /* bytes of a chunk name kept */
#define LJVM_NAME_MAX (LJVM_CHUNK_MAX + 16)

/*
 * Writes the name of Lua function (GCproto at proto) of process pid, laid
 * out as build b says, into out (cap bytes, NUL-terminated):
 * "CHUNK:FIRSTLINE", the chunk name as the program gave it ("@app.lua"),
 * cut to LJVM_CHUNK_MAX bytes; "[lua?]" when its memory does not read as a
 * prototype. Returns the length written.
 */
size_t ljvm_proto_name(uint32_t pid, const struct ljvm_build *b, uint64_t proto, char *out,
		       size_t cap);
/* The same for fast function ffid: "string.byte", or "[builtin#N]" when b has no name. */
size_t ljvm_ffunc_name(const struct ljvm_build *b, unsigned ffid, char *out, size_t cap);

#endif /* THREADTOP_LJVM_NAMES_H */
