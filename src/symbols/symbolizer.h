/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The symbolizer: turns (pid, address) and kernel addresses into frame names,
 * lazily and once per unique address. Kernel addresses come from
 * /proc/kallsyms (loaded on first use). User addresses go through the
 * process's /proc/PID/maps to a file, opened via /proc/PID/map_files or
 * /proc/PID/root (so container and deleted binaries resolve), whose symbols
 * are read once per (device, inode, build-id) and shared by every process
 * that maps it; separate debuginfo is found by build-id or .gnu_debuglink;
 * the vdso is read from the process; anonymous executable memory is looked
 * up in the JIT's perf-PID.map; C++ names are demangled; where the file has
 * DWARF (its own or its debug file's), the functions inlined at an address
 * come with its name. An address nothing names still gets a name:
 * "module+0xoffset" (the ELF address in that file), "[unknown]+0xADDR" (in
 * no mapping), or "[exited]+0xADDR" (the process had exited before its maps
 * were read: which file covered it is not known).
 *
 * Nothing here runs on the sampling path: callers resolve at query/output
 * time. Library code: no logging, no threads.
 */
#ifndef THREADTOP_SYMBOLIZER_H
#define THREADTOP_SYMBOLIZER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "threadtop/frame_namer.h"

struct symbolizer;
struct maps_cache;

struct symbolizer_opts {
	const char *proc_root;	/* NULL = "/proc"; unused when maps is set */
	const char *debug_root; /* NULL = "/usr/lib/debug"; "" = no debuginfo look-up */
	const char *tmp_dir;	/* where perf-PID.map files are; NULL = "/tmp" */
	/* Process maps shared with other readers (the unwinder), read once per
	 * process; it must outlive the symbolizer. NULL = its own. */
	struct maps_cache *maps;
};

/* The module of a frame whose process had exited before its maps were read. */
#define SYM_EXITED "[exited]"

/* Flags of struct sym_frame. */
#define SYM_FRAME_KERNEL (1u << 0)    /* a kernel address */
#define SYM_FRAME_UNKNOWN (1u << 1)   /* no symbol: name is "module+0xoffset" */
#define SYM_FRAME_JIT (1u << 2)	      /* named by a perf-PID.map */
#define SYM_FRAME_DEBUGINFO (1u << 3) /* named from a separate debug file */

struct sym_frame {
	const char *name;     /* function, or "module+0xoffset"; never NULL */
	const char *module;   /* "libc.so.6", "[kernel]", "[ext4]", "[vdso]", "[jit]"; never NULL */
	uint64_t offset;      /* address - symbol start; the module offset when unknown */
	unsigned flags;	      /* SYM_FRAME_* */
	const char *build_id; /* the module's GNU build-id in hex; "" when unknown */
	/* Functions the compiler inlined at this address, outermost first: name
	 * calls inlined[0], which calls inlined[1], ... (from DWARF, where the
	 * file or its debug file has it); NULL, 0 when none. */
	const char *const *inlined;
	unsigned nr_inlined;
	/* The mapping the address lies in, for profiles symbolized elsewhere
	 * (pprof): the file's full path ("" when none), its address range and
	 * the file offset of map_start; the kernel's "[kernel.kallsyms]" spans
	 * its text. 0 when unknown. */
	const char *path;
	uint64_t map_start, map_limit, map_offset;
	/* The source line (DWARF line table) and its file; 0, NULL when unknown. */
	const char *src_file;
	unsigned src_line;
};

/* NULL with errno ENOSPC when opts->maps has all the users it can take. */
struct symbolizer *symbolizer__new(const struct symbolizer_opts *opts);
void symbolizer__free(struct symbolizer *s);

/*
 * Names addr: a kernel address when kernel is true (pid is ignored), else an
 * address in process pid. *ret lives until symbolizer__forget_pid(pid) (user
 * frames) or symbolizer__free. Returns 0 (an unknown address still gets a
 * frame), or -EINVAL when ret is NULL.
 */
int symbolizer__resolve(struct symbolizer *s, uint32_t pid, uint64_t addr, bool kernel,
			const struct sym_frame **ret);

/*
 * Gets the file that user address addr of pid maps ready for naming: its
 * symbols read, its DWARF opened in the background (dso_cache.h), so that
 * the frame's naming later does not wait for them on the loop. For a new
 * stack as it arrives; names nothing. Cheap once the file is met.
 */
void symbolizer__prepare(struct symbolizer *s, uint32_t pid, uint64_t addr);
/* Drops what is cached for process pid (it exited, or its pid was reused).
 * Shared file symbols stay until the next symbolizer__expire. */
void symbolizer__forget_pid(struct symbolizer *s, uint32_t pid);
/*
 * Reads the kernel's symbols now rather than at the first kernel frame
 * (tens of milliseconds): start-up then holds the cost, not a later tick.
 */
void symbolizer__load_kernel(struct symbolizer *s);
/* The same on a thread of its own, taken at the first kernel frame (start-up
 * does not wait for it); symbolizer__free waits for it. */
void symbolizer__load_kernel_background(struct symbolizer *s);

/*
 * Ends one round (the app calls it once per interval): processes no look-up
 * touched in the last idle_rounds rounds are forgotten, so exited processes
 * do not pile up and a reused pid gets fresh maps; then the files only they
 * had taken go too (their symbols and DWARF), so a box whose binaries come
 * and go does not keep every one it ever ran. Returns how many processes went.
 */
size_t symbolizer__expire(struct symbolizer *s, unsigned idle_rounds);

/* A frame namer (frame_namer.h) backed by s, for the model and exporters;
 * it lives as long as s. */
const struct frame_namer *symbolizer__namer(struct symbolizer *s);
/*
 * The same, except that while kallsyms is still read in the background
 * (symbolizer__load_kernel_background) a kernel address is named
 * SYM_KERNEL_LOADING, cached nowhere, instead of waiting for it: for a
 * view that shows something now and asks again soon (the TUI's first
 * frames). Exports take symbolizer__namer, which waits. Lives as long as s.
 */
#define SYM_KERNEL_LOADING "(reading kallsyms)"
const struct frame_namer *symbolizer__namer_nowait(struct symbolizer *s);
/* Whether kallsyms is still being read in the background (the namer above
 * then names kernel frames SYM_KERNEL_LOADING). */
bool symbolizer__kernel_pending(const struct symbolizer *s);

struct symbolizer_stats {
	uint64_t lookups;      /* symbolizer__resolve calls */
	uint64_t cache_hits;   /* answered from the per-address cache */
	uint64_t unknown;      /* frames with no symbol */
	uint64_t maps_reads;   /* /proc/PID/maps parsed (by every user of the maps cache) */
	uint64_t files;	       /* distinct files whose symbols are loaded now */
	uint64_t debug_files;  /* of which with separate debuginfo */
	uint64_t dwarf_files;  /* of which with DWARF, for inline chains */
	uint64_t files_freed;  /* files dropped since: no cached process maps them */
	uint64_t inlined;      /* frames resolved with an inline chain */
	uint64_t file_errors;  /* files that could not be opened or parsed */
	uint64_t procs;	       /* processes cached now */
	uint64_t frames;       /* frames cached now, user (all processes) and kernel */
	uint64_t maps_procs;   /* processes whose maps the maps cache holds now */
	size_t kernel_symbols; /* 0 until a kernel address was asked */
};
void symbolizer__stats(const struct symbolizer *s, struct symbolizer_stats *ret);

#endif /* THREADTOP_SYMBOLIZER_H */
