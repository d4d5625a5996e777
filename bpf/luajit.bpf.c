// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * LuaJIT samples: a uprobe on threadtop_luajit_probe() in
 * libthreadtop-sysprof.so (include/threadtop/luajit_probe.h). The library
 * calls it from normal context, on the Lua thread, once per complete sysprof
 * sample and once per newly named function; this program copies what the
 * argument points to (bounded reads of the process's memory) into
 * TT_EV_LUAJIT_SAMPLE / TT_EV_LUAJIT_FUNC records, the host stack as a
 * dedup'd user TT_EV_STACK, all in the shared ring buffer.
 */
#include "common.bpf.h"
#include "threadtop/luajit_probe.h"

#define LJ_NAME_MAX 512 /* function names are cut to this length */

#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wgnu-variable-sized-type-not-at-end"
struct lj_scratch {
	struct tt_lj_probe p;
	struct tt_luajit_sample rec;
	__u64 frames[TT_LJ_MAX_FRAMES];
	struct tt_stack_buf stack;
};

struct lj_func_scratch {
	struct tt_luajit_func rec;
	char data[LJ_NAME_MAX];
};
#pragma clang diagnostic pop

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct lj_scratch);
} tt_lj_scratch SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct lj_func_scratch);
} tt_lj_func_scratch SEC(".maps");

static __always_inline int send_sample(struct lj_scratch *sc, __u32 tgid, __u32 tid)
{
	__u32 n = sc->p.nguest, h = sc->p.nhost;
	long bytes = 0;

	if (n > TT_LJ_MAX_FRAMES)
		n = TT_LJ_MAX_FRAMES;
	if (h > TT_LJ_PROBE_HOST_MAX)
		h = TT_LJ_PROBE_HOST_MAX;
	if (n && bpf_probe_read_user(sc->frames, n * sizeof(__u64), (const void *)sc->p.guest))
		n = 0;
	if (h && !bpf_probe_read_user(sc->stack.ips, h * sizeof(__u64), (const void *)sc->p.host))
		bytes = h * sizeof(__u64);
	sc->rec.hdr.type = TT_EV_LUAJIT_SAMPLE;
	sc->rec.hdr.version = TT_LUAJIT_SAMPLE_VERSION_LIB;
	sc->rec.hdr.size = sizeof(sc->rec) + n * sizeof(__u64);
	sc->rec.hdr.time_ns = bpf_ktime_get_ns();
	sc->rec.pid = tgid;
	sc->rec.tid = tid;
	sc->rec.ustack_id = stack_id(&sc->stack, bytes, tgid, false);
	sc->rec.weight_us = sc->p.interval_us;
	sc->rec.traceno = sc->p.traceno;
	sc->rec.vmstate = sc->p.vmstate < TT_LJ_VMSTATE_MAX ? sc->p.vmstate : TT_LJ_INTERP;
	sc->rec.fidelity = sc->p.fidelity;
	sc->rec.nr = n;
	return emit(&sc->rec, sizeof(sc->rec) + n * sizeof(__u64));
}

static __always_inline int send_func(const struct tt_lj_probe *p, __u32 tgid)
{
	struct lj_func_scratch *fs;
	__u32 zero = 0;
	long len;

	fs = bpf_map_lookup_elem(&tt_lj_func_scratch, &zero);
	if (!fs)
		return 0;
	len = bpf_probe_read_user_str(fs->data, sizeof(fs->data), (const void *)p->name);
	if (len <= 1)
		return 0;
	len--; /* the NUL */
	if (len > LJ_NAME_MAX - 1)
		len = LJ_NAME_MAX - 1;
	fs->rec.hdr.type = TT_EV_LUAJIT_FUNC;
	fs->rec.hdr.version = TT_LUAJIT_FUNC_VERSION;
	fs->rec.hdr.size = sizeof(fs->rec) + len;
	fs->rec.hdr.time_ns = bpf_ktime_get_ns();
	fs->rec.id = p->id;
	fs->rec.pid = tgid;
	fs->rec.flags = p->flags;
	fs->rec.len = len;
	fs->rec.reserved = 0;
	return emit(&fs->rec, sizeof(fs->rec) + len);
}

SEC("uprobe")
int BPF_KPROBE(tt_luajit_probe, const struct tt_lj_probe *up)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tgid = id >> 32, tid = (__u32)id, zero = 0;
	struct lj_scratch *sc;

	if (!want_tgid(tgid))
		return 0;
	sc = bpf_map_lookup_elem(&tt_lj_scratch, &zero);
	if (!sc || bpf_probe_read_user(&sc->p, sizeof(sc->p), up))
		return 0;
	if (sc->p.version != TT_LJ_PROBE_VERSION)
		return 0;
	if (sc->p.kind == TT_LJ_PROBE_SAMPLE)
		send_sample(sc, tgid, tid);
	else if (sc->p.kind == TT_LJ_PROBE_FUNC)
		send_func(&sc->p, tgid);
	return 0;
}
