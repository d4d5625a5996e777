// SPDX-License-Identifier: GPL-2.0-only
/* Names of the agentless LuaJIT unwinder's frames (see ljvm_names.h). */
#include <stdio.h>
#include <sys/types.h>
#include <sys/uio.h>

#include "ljvm_names.h"

/* Reads len bytes at addr of process pid; 0 or -1. */
static int peek(uint32_t pid, uint64_t addr, void *buf, size_t len)
{
	struct iovec local = {buf, len}, remote = {(void *)(uintptr_t)addr, len};

	return process_vm_readv((pid_t)pid, &local, 1, &remote, 1, 0) == (ssize_t)len ? 0 : -1;
}

static size_t written(int n, size_t cap)
{
	return n < 0 || !cap ? 0 : (size_t)n < cap ? (size_t)n : cap - 1;
}

size_t ljvm_proto_name(uint32_t pid, const struct ljvm_build *b, uint64_t proto, char *out,
		       size_t cap)
{
	char buf[LJVM_CHUNK_MAX];
	uint64_t chunk = 0;
	uint32_t len = 0;
	int32_t line = 0;

	if (peek(pid, proto + b->proto_chunkname, &chunk, sizeof(chunk)) ||
	    peek(pid, proto + b->proto_firstline, &line, sizeof(line)))
		goto bad;
	chunk &= (1ull << 47) - 1; /* a GC64 GCRef */
	if (!chunk || peek(pid, chunk + b->str_len, &len, sizeof(len)) || line < 0)
		goto bad;
	if (len > sizeof(buf))
		len = sizeof(buf);
	if (len && peek(pid, chunk + b->str_data, buf, len))
		goto bad;
	return written(snprintf(out, cap, "%.*s:%d", (int)len, buf, line), cap);
bad:
	return written(snprintf(out, cap, "[lua?]"), cap);
}

size_t ljvm_ffunc_name(const struct ljvm_build *b, unsigned ffid, char *out, size_t cap)
{
	if (ffid < b->nr_ffnames && b->ffnames[ffid])
		return written(snprintf(out, cap, "%s", b->ffnames[ffid]), cap);
	return written(snprintf(out, cap, "[builtin#%u]", ffid), cap);
}
