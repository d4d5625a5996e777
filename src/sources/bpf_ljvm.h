/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Agentless LuaJIT (bpf/ljvm.bpf.c): Lua stacks and VM states of unmodified
 * LuaJIT processes, as TT_EV_LUAJIT_SAMPLE / TT_EV_LUAJIT_FUNC records, the
 * same the preloaded library sends, so every view has them. This part loads
 * the program into the on-CPU sampler's tail-call slot, finds the processes
 * that run a known LuaJIT build (ljvm_builds.h) among those seen on CPU,
 * gives each of their LuaJIT samples the host stack of the CPU sample it
 * follows, and names the Lua functions by bounded reads of the process's
 * memory. A process whose library samples arrive is left to the library.
 */
#ifndef THREADTOP_BPF_LJVM_H
#define THREADTOP_BPF_LJVM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "threadtop/events.h"
#include "threadtop/source.h"

struct bpf_object;
struct bpf_ljvm;
struct maps_cache;

struct bpf_ljvm_opts {
	int self_pid;		       /* threadtop's own process: never unwound */
	bool filter_tgids;	       /* -p: only the processes in tt_tgids */
	unsigned oncpu_weight_us;      /* each sample's weight: the on-CPU period */
	struct maps_cache *maps;       /* shared with the symbolizer (joined on the loop's
					* thread, at the first sample); NULL: its own */
	void (*warn)(const char *msg); /* told which LuaJIT builds are refused; may be NULL */
};

/*
 * Loads the unwinder sharing first's maps and puts it in tail_fd's slot
 * (oncpu.bpf.c's tt_lj_tail). NULL with a one-line reason in err when it
 * cannot (the sampler goes on without Lua stacks of unmodified processes).
 */
struct bpf_ljvm *bpf_ljvm__new(struct bpf_object *first, int tail_fd,
			       const struct bpf_ljvm_opts *opts, char *err, size_t errlen);
void bpf_ljvm__free(struct bpf_ljvm *lj);
/* Its BPF object (for the run-time statistics), owned by lj. */
struct bpf_object *bpf_ljvm__object(const struct bpf_ljvm *lj);

/*
 * A CPU sample going to the model: its process is checked for a LuaJIT VM
 * when new, and again when its maps were read anew (by any user of the
 * shared cache, or by a refresh 1, 2, 4... up to 60 s apart); a LuaJIT
 * thread's stack is kept for its LuaJIT sample.
 */
void bpf_ljvm__on_cpu(struct bpf_ljvm *lj, const struct tt_cpu_sample *s);
/*
 * A record of libthreadtop-sysprof.so (a sample or a function's name) from
 * process pid: the library wins, the unwinder leaves the process.
 */
void bpf_ljvm__on_library(struct bpf_ljvm *lj, uint32_t pid);
/*
 * A TT_EV_LUAJIT_SAMPLE from the ring: an agentless one is completed and
 * sent to sink after the names of its new frames (the first of a process
 * re-reads its maps, for a library mapped since); the library's is sent
 * as it is, and its process is left to the library from then on.
 */
void bpf_ljvm__on_sample(struct bpf_ljvm *lj, const struct tt_luajit_sample *s,
			 const struct event_sink *sink);

#endif /* THREADTOP_BPF_LJVM_H */
