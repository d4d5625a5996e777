/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What exporters ask to name a stack frame: (pid, address, kernel?) ->
 * function and module. The default names every frame "0xADDR"; the
 * symbolizer plugs in behind the same interface, so exporters never know
 * where names come from.
 */
#ifndef THREADTOP_FRAME_NAMER_H
#define THREADTOP_FRAME_NAMER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct frame_name {
	const char *name;   /* function, "module+0xoff" or "0xADDR"; never NULL */
	const char *module; /* "libc.so.6", "[kernel]"; NULL when unknown */
	bool kernel;
	const char *build_id; /* the module's GNU build-id in hex; NULL when unknown */
	/* The functions inlined at addr, outermost first: name calls
	 * inlined[0], which calls inlined[1], ...; the frame shows as 1 +
	 * nr_inlined frames. NULL, 0 when none (or the namer cannot tell). */
	const char *const *inlined;
	unsigned nr_inlined;
	/* The mapping addr lies in (full path, range, file offset of its start),
	 * and the source line there; NULL or 0 when the namer cannot tell. */
	const char *path;
	uint64_t map_start, map_limit, map_offset;
	const char *src_file;
	unsigned src_line;
};

struct frame_namer {
	/*
	 * Names addr, a kernel address when kernel is true (pid is then
	 * ignored), else an address in process pid. The strings in *ret live
	 * until the next call. Returns 0 or a negative errno.
	 */
	int (*name)(void *ctx, uint32_t pid, uint64_t addr, bool kernel, struct frame_name *ret);
	void *ctx;
};

/* A namer that prints addresses ("0xffffffff81000000", module "[kernel]"
 * for kernel frames); ctx is unused. */
extern const struct frame_namer frame_namer_hex;

/*
 * The address frame i (leaf first) of a stack is named at: the leaf's own;
 * a caller's return address - 1, inside its call instruction, as perf and
 * pprof do (after a call that never returns, the return address is already
 * the next function's, and its line is the one after the call). The model
 * keeps stacks with these addresses; recorded names are keyed by them.
 */
static inline uint64_t frame_lookup_addr(uint64_t ip, unsigned i)
{
	return i && ip ? ip - 1 : ip;
}

/* Names addr with namer, or with frame_namer_hex when namer is NULL or fails. */
void frame_namer__name(const struct frame_namer *namer, uint32_t pid, uint64_t addr, bool kernel,
		       struct frame_name *ret);

#endif /* THREADTOP_FRAME_NAMER_H */
