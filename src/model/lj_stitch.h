/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Stitching a LuaJIT sample's host (C) stack and guest (Lua) stack into one
 * stack, as a profiler of an embedded VM must. Pure logic on names: no
 * model, no symbolizer (tests/unit/test_lj_stitch.c).
 *
 * The rule (the same idea as Tarantool's sysprof parser, and ours in
 * src/luajit/parse_sysprof.c): the interpreter's own frames say nothing a
 * Lua frame does not say better, so the Lua frames replace them.
 *  - Host frames are kept from the root down to the first VM entry
 *    (lua_pcall, lua_call, lua_cpcall, lua_resume); the Lua frames go right
 *    above that entry.
 *  - A C function called from Lua that has a host frame of its own (same
 *    name) ends a Lua segment: the host frames up to it are skipped where
 *    they are the VM's own, the C function is its host frame, and the next
 *    Lua segment goes above it (Lua-C-Lua-C stacks read in one line).
 *    Builtins (no host frame of their own) stay inline among Lua frames.
 *  - Above the last Lua frame, host frames that are not the VM's own stay
 *    (what a builtin or the GC called: memcpy, lj_gc_step in a build with
 *    symbols).
 *  - The VM's own frames are the interpreter (lj_vm_*, lj_BC_*, lj_ff_*,
 *    lj_meta_*, lj_cont_*), unnamed addresses of the object holding the VM
 *    entry (a stripped luajit), JIT code and unknown addresses.
 *  - A host stack without a VM entry (unwinding stopped in JIT code or in
 *    the VM) keeps its frames outside the VM, and the Lua frames go on top
 *    of them.
 */
#ifndef THREADTOP_LJ_STITCH_H
#define THREADTOP_LJ_STITCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LJ_SF_ENTRY (1u << 0) /* host: a VM entry (lua_pcall ...) */
#define LJ_SF_VM (1u << 1)    /* host: the VM's own code, replaced by Lua frames */
#define LJ_SF_CFUNC (1u << 2) /* guest: a C function called from Lua */

struct lj_stitch_frame {
	const char *name;
	unsigned flags; /* LJ_SF_* */
};

#define LJ_STITCH_GUEST 0x80000000u /* out[] entries with it refer to guest[] */

/*
 * Stitches host[nh] and guest[ng], both root first, into out (at most cap
 * entries, root first): an index into host, or LJ_STITCH_GUEST | an index
 * into guest. Returns the count.
 */
size_t lj_stitch(const struct lj_stitch_frame *host, size_t nh, const struct lj_stitch_frame *guest,
		 size_t ng, uint32_t *out, size_t cap);

/*
 * LJ_SF_ENTRY / LJ_SF_VM of a host frame called name in module (NULL when
 * unknown); vm_module is the module of the VM entry when known (NULL), for
 * its unnamed frames.
 */
unsigned lj_stitch_host_flags(const char *name, const char *module, const char *vm_module);
/* Whether name is a VM entry. */
bool lj_stitch_is_entry(const char *name);

#endif /* THREADTOP_LJ_STITCH_H */
