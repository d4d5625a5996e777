/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The LuaJIT part of the BPF source (bpf/luajit.bpf.c): loads the object
 * sharing the first object's ring buffer and filters, and attaches one uprobe
 * to threadtop_luajit_probe() in each copy of libthreadtop-sysprof.so found
 * (run_cmd.h: lj_lib_paths), with the library's threadtop_luajit_attached
 * counter as the uprobe's reference counter: every process that maps the
 * library, now or later, sees the counter raised and starts feeding it.
 */
#ifndef THREADTOP_BPF_LUAJIT_H
#define THREADTOP_BPF_LUAJIT_H

#include <stdbool.h>
#include <stddef.h>

struct bpf_object;
struct bpf_luajit;

/*
 * first is the already loaded object whose shared maps are reused. Returns
 * NULL with a one-line reason in err when the library is not found or the
 * object cannot load or attach (threadtop goes on without LuaJIT samples).
 */
struct bpf_luajit *bpf_luajit__new(struct bpf_object *first, int self_pid, bool filter_tgids,
				   char *err, size_t errlen);
void bpf_luajit__free(struct bpf_luajit *lj);

/*
 * The file offset of symbol name in the ELF file path (for a uprobe's
 * reference counter), or a negative errno.
 */
long elf_symbol_file_offset(const char *path, const char *name);

#endif /* THREADTOP_BPF_LUAJIT_H */
