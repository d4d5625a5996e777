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

/*
 * Loads the unwinder sharing first's maps, with oncpu_weight_us as its
 * samples' weight, and puts it in tail_fd's slot (oncpu.bpf.c's
 * tt_lj_tail). warn (may be NULL) is told which LuaJIT builds are refused.
 * NULL with a one-line reason in err when it cannot (the sampler goes on
 * without Lua stacks of unmodified processes).
 */
struct bpf_ljvm *bpf_ljvm__new(struct bpf_object *first, int tail_fd, int self_pid,
			       bool filter_tgids, unsigned oncpu_weight_us,
			       void (*warn)(const char *msg), char *err, size_t errlen);
void bpf_ljvm__free(struct bpf_ljvm *lj);
/* Its BPF object (for the run-time statistics), owned by lj. */
struct bpf_object *bpf_ljvm__object(const struct bpf_ljvm *lj);

/*
 * A CPU sample going to the model: a process not checked lately is checked
 * for a LuaJIT VM; a LuaJIT thread's stack is kept for its LuaJIT sample.
 */
void bpf_ljvm__on_cpu(struct bpf_ljvm *lj, const struct tt_cpu_sample *s);
/*
 * A TT_EV_LUAJIT_SAMPLE from the ring: an agentless one is completed and
 * sent to sink after the names of its new frames; the library's is sent
 * as it is, and its process is left to the library from then on.
 */
void bpf_ljvm__on_sample(struct bpf_ljvm *lj, const struct tt_luajit_sample *s,
			 const struct event_sink *sink);

#endif /* THREADTOP_BPF_LJVM_H */
