// SPDX-License-Identifier: GPL-2.0-only
/* Agentless LuaJIT, the user-space half (see bpf_ljvm.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpf_ljvm.h"
#include "elf_symbols.h"
#include "hash.h"
#include "log.h"
#include "ljvm.skel.h"
#include "maps_cache.h"
#include "ljvm_builds.h"
#include "ljvm_names.h"
#include "proc_maps.h"
#include "u64map.h"
#include "util.h"

/* A process's maps are read again (shared with the symbolizer and the
 * unwinder) 1 s after its first CPU sample, then 2, 4... up to every 60 s:
 * a LuaJIT library dlopen'd at start-up is found soon, a long-lived process
 * costs one read a minute. Re-reads by the other users are followed free. */
#define REFRESH_MIN_NS (1ull * 1000000000)
#define REFRESH_MAX_NS (60ull * 1000000000)
#define IDLE_NS (60ull * 1000000000) /* a process with no CPU sample this long is forgotten */
#define RENAME_S 10u		     /* a Lua function's name is read again this often */
#define PROCS_MAX 4096		     /* processes remembered; past it, the idlest forgotten */
#define NAMES_MAX 65536		     /* names remembered per process; past it, none new */
#define TIDS_MAX 65536		     /* LuaJIT threads with a CPU sample waiting */
#define WARNED_MAX 16		     /* refused builds said once each, this many */
#define QUIET_MAX 300  /* CPU samples of a VM process without a LuaJIT one: said in the log */
#define FILES_MAX 8192 /* executable files judged for a LuaJIT linked in; past it, judged anew */

/*
 * What marks a LuaJIT linked into a program or library of another name
 * (tarantool, an nginx built with it): the API function a host exports so
 * that the C modules it loads find it (Lua's own API, lua_pcall..., would
 * also match PUC Lua, whose VM is not LuaJIT's).
 */
#define LJ_EXPORT "luaJIT_setmode"

/* A file's verdict in bpf_ljvm.files (none: not judged yet). */
enum lj_file {
	LJ_FILE_NO = 1,
	LJ_FILE_YES,
};

enum proc_state {
	PROC_NONE = 1, /* no LuaJIT VM threadtop can read */
	PROC_VM,       /* in tt_ljvm_procs */
	PROC_LIBRARY,  /* libthreadtop-sysprof.so feeds it: the library wins */
};

struct ljvm_proc {
	struct bpf_ljvm *lj;
	uint32_t pid;
	enum proc_state state;
	struct process_maps *maps; /* held: one read shared with the symbolizer and unwinder */
	uint64_t generation;	   /* of maps when last checked */
	uint64_t seen_ns;	   /* its last CPU sample */
	uint64_t refresh_ns, refresh_gap_ns;
	/* The LuaJIT mapping last judged and the verdict (build or none, and
	 * the layout): checking the same mapping again opens no file. */
	uint64_t lj_dev, lj_ino, lj_start, lj_offset;
	const struct ljvm_build *lj_build;
	struct tt_ljvm_proc lj_layout;
	const struct ljvm_build *build;
	struct u64map *named;		  /* frame id -> name hash and read time (name_frame) */
	uint32_t cpu_samples, lj_samples; /* since it went to the unwinder, up to QUIET_MAX */
	bool said_unread;		  /* the log said its LuaJIT file could not be read */
};

struct bpf_ljvm {
	struct ljvm_bpf *skel;
	int procs_fd;
	struct maps_cache *shared_maps; /* the symbolizer's (opts), joined at the first sample */
	struct maps_cache *maps, *own_maps; /* the one used: shared, or its own */
	unsigned maps_user;
	uint64_t expired_ns;  /* when idle processes were last forgotten */
	struct u64map *procs; /* tgid -> struct ljvm_proc */
	struct u64map *tids;  /* tid -> ustack_id << 32 | weight_us of its last CPU sample */
	/* Files of other names judged for a LuaJIT linked in (linked_in): hash of
	 * (device, inode) -> enum lj_file; what the judging cost, for the log. */
	struct u64map *files;
	uint64_t files_judged, files_linked, judge_ns;
	void (*warn)(const char *msg);
	char warned[WARNED_MAX][48];
	size_t nr_warned;
};

/* Forgets a process: the unwinder stops reading it, its maps are let go. */
static void proc_free(void *p)
{
	struct ljvm_proc *lp = p;

	if (!lp)
		return;
	if (lp->state == PROC_VM)
		bpf_map_delete_elem(lp->lj->procs_fd, &lp->pid);
	maps_cache__release(lp->maps, lp->lj->maps_user);
	u64map__free(lp->named);
	free(lp);
}

static uint64_t proc_seen(const void *p)
{
	return ((const struct ljvm_proc *)p)->seen_ns;
}

struct bpf_ljvm *bpf_ljvm__new(struct bpf_object *first, int tail_fd,
			       const struct bpf_ljvm_opts *opts, char *err, size_t errlen)
{
	struct bpf_ljvm *lj = xcalloc(1, sizeof(*lj));
	struct bpf_map *m;
	__u32 slot = TT_LJVM_TAIL_SLOT;
	int e, fd;

	lj->warn = opts->warn;
	lj->shared_maps = opts->maps; /* joined on the loop's thread: this may be another */
	lj->skel = ljvm_bpf__open();
	if (!lj->skel) {
		e = errno;
		snprintf(err, errlen, "LuaJIT (agentless): cannot open bpf/ljvm.bpf.c: %s",
			 strerror(e));
		goto fail;
	}
	lj->skel->rodata->tt_self_tgid = (__u32)opts->self_pid;
	lj->skel->rodata->tt_filter_tgids = opts->filter_tgids;
	lj->skel->rodata->tt_weight_us = opts->oncpu_weight_us;
	e = 0;
#define REUSE(name)                                                 \
	if (!e && (m = bpf_object__find_map_by_name(first, #name))) \
		e = -bpf_map__reuse_fd(lj->skel->maps.name, bpf_map__fd(m));
	REUSE(tt_events)
	REUSE(tt_drops)
	REUSE(tt_tgids)
	REUSE(tt_stack_ids)
	REUSE(tt_counters)
#undef REUSE
	/* What it needs beyond the on-CPU sampler: said by name when missing. */
	if (!e && libbpf_probe_bpf_helper(BPF_PROG_TYPE_PERF_EVENT, BPF_FUNC_loop, NULL) == 0) {
		e = ENOTSUP;
		snprintf(err, errlen,
			 "LuaJIT (agentless): this kernel has no bpf_loop (Linux 5.17+): no Lua "
			 "stacks of processes without libthreadtop-sysprof.so");
		goto fail;
	}
	if (!e && ljvm_bpf__load(lj->skel))
		e = errno;
	if (e) {
		snprintf(err, errlen,
			 "LuaJIT (agentless): the kernel refused bpf/ljvm.bpf.c: %s (no Lua stacks "
			 "of processes without libthreadtop-sysprof.so; --log FILE keeps the "
			 "verifier's log)",
			 strerror(e));
		goto fail;
	}
	fd = bpf_program__fd(lj->skel->progs.tt_ljvm_sample);
	if (bpf_map_update_elem(tail_fd, &slot, &fd, BPF_ANY)) {
		e = errno;
		snprintf(
			err, errlen,
			"LuaJIT (agentless): cannot chain bpf/ljvm.bpf.c to the on-CPU sampler: %s",
			strerror(e));
		goto fail;
	}
	lj->procs_fd = bpf_map__fd(lj->skel->maps.tt_ljvm_procs);
	lj->procs = u64map__new();
	lj->tids = u64map__new();
	lj->files = u64map__new();
	return lj;
fail:
	bpf_ljvm__free(lj);
	errno = e;
	return NULL;
}

void bpf_ljvm__free(struct bpf_ljvm *lj)
{
	if (!lj)
		return;
	if (lj->files_judged)
		log_info("LuaJIT (agentless): %" PRIu64 " executable files judged for a LuaJIT "
			 "linked in (%" PRIu64 " had one) in %.1f ms",
			 lj->files_judged, lj->files_linked, (double)lj->judge_ns / 1e6);
	ljvm_bpf__destroy(lj->skel);
	if (lj->procs)
		u64map__free_all(lj->procs, proc_free); /* before the maps they hold */
	maps_cache__free(lj->own_maps);
	u64map__free(lj->tids);
	u64map__free(lj->files);
	free(lj);
}

struct bpf_object *bpf_ljvm__object(const struct bpf_ljvm *lj)
{
	return lj->skel->obj;
}

/* Says once per build-id that a LuaJIT of pid is not a known build. */
static void refuse(struct bpf_ljvm *lj, uint32_t pid, const char *path, const char *build_id,
		   bool linked_in)
{
	char msg[PATH_MAX + 320];

	for (size_t i = 0; i < lj->nr_warned; i++)
		if (!strcmp(lj->warned[i], build_id))
			return;
	if (lj->nr_warned == WARNED_MAX)
		return;
	snprintf(lj->warned[lj->nr_warned++], sizeof(lj->warned[0]), "%s", build_id);
	snprintf(msg, sizeof(msg),
		 "LuaJIT (agentless): %s (pid %u)%s has build-id %s, not a build threadtop "
		 "knows the layout of (src/sources/ljvm_builds.c): no Lua stacks from it "
		 "unless it loads libthreadtop-sysprof.so",
		 path, pid, linked_in ? ", with LuaJIT linked in (it exports " LJ_EXPORT ")," : "",
		 *build_id ? build_id : "(none)");
	if (lj->warn)
		lj->warn(msg);
}

static bool is_lj_path(const char *path)
{
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	return !strncmp(base, "luajit", 6) || !strncmp(base, "libluajit", 9);
}

/*
 * Whether executable mapping m of pid is a file with LuaJIT linked in: it
 * exports LJ_EXPORT. Judged once per file, by the exports alone (a few
 * thousand names at most, read once), however many processes map it.
 */
static bool linked_in(struct bpf_ljvm *lj, uint32_t pid, const struct proc_map *m)
{
	uint64_t key = hash_word(hash_word(HASH_INIT, m->dev), m->inode);
	uintptr_t v = (uintptr_t)u64map__get(lj->files, key);
	struct elf_syms *es;
	uint64_t t0;
	int fd;

	if (v)
		return v == LJ_FILE_YES;
	if (!m->inode || m->path[0] != '/')
		return false; /* anonymous, [vdso]: no file */
	t0 = monotonic_ns();
	fd = proc_map__open(maps_cache__proc_root(lj->maps), pid, m);
	if (fd < 0)
		return false; /* judged again next time: the process may have gone */
	es = elf_syms__exports_from_fd(fd);
	close(fd);
	v = es && elf_syms__by_name(es, LJ_EXPORT) ? LJ_FILE_YES : LJ_FILE_NO;
	elf_syms__free(es);
	lj->files_judged++;
	lj->files_linked += v == LJ_FILE_YES;
	lj->judge_ns += monotonic_ns() - t0;
	if (u64map__count(lj->files) >= FILES_MAX) {
		u64map__free(lj->files);
		lj->files = u64map__new();
	}
	u64map__put(lj->files, key, (void *)v);
	return v == LJ_FILE_YES;
}

/*
 * The layout of mapping m of pid when its file is a known LuaJIT build, with
 * the interpreter's addresses in the process; NULL otherwise, with *unread
 * set when the file itself could not be opened or read as ELF.
 */
static const struct ljvm_build *known_build(struct bpf_ljvm *lj, uint32_t pid,
					    const struct proc_map *m, struct tt_ljvm_proc *ret,
					    const char **unread)
{
	const struct ljvm_build *b = NULL;
	struct elf_syms *es;
	char hex[48] = "";
	uint64_t vaddr;
	int fd = proc_map__open(maps_cache__proc_root(lj->maps), pid, m);

	if (fd < 0) {
		*unread = "its file cannot be opened (/proc/PID/map_files, root or exe)";
		return NULL;
	}
	es = elf_syms__layout_from_fd(fd);
	close(fd);
	if (!es) {
		*unread = "its file is not ELF that threadtop can read";
		return NULL;
	}
	elf_syms__build_id_hex(es, hex, sizeof(hex));
	b = ljvm_build__find(hex);
	if (!b)
		refuse(lj, pid, m->path, hex, !is_lj_path(m->path));
	else if (elf_syms__offset_to_vaddr(es, m->offset, &vaddr) < 0 || b->vm_lo < vaddr ||
		 b->vm_hi > vaddr + (m->end - m->start))
		b = NULL; /* this mapping is not the one with the interpreter */
	if (b) {
		*ret = b->layout;
		ret->vm_lo = m->start + (b->vm_lo - vaddr);
		ret->vm_hi = m->start + (b->vm_hi - vaddr);
	}
	elf_syms__free(es);
	return b;
}

/*
 * The verdict on LuaJIT mapping m of lp's process: known_build's, or the one
 * given last time when m is the mapping judged then (no file opened again).
 */
static const struct ljvm_build *judge(struct bpf_ljvm *lj, struct ljvm_proc *lp,
				      const struct proc_map *m, struct tt_ljvm_proc *ret)
{
	struct tt_ljvm_proc layout = {0};
	const char *unread = NULL;

	if (lp->lj_start == m->start && lp->lj_offset == m->offset && lp->lj_dev == m->dev &&
	    lp->lj_ino == m->inode) {
		*ret = lp->lj_layout;
		return lp->lj_build;
	}
	lp->lj_build = known_build(lj, lp->pid, m, &layout, &unread);
	lp->lj_layout = layout;
	*ret = layout;
	lp->lj_start = m->start;
	lp->lj_offset = m->offset;
	lp->lj_dev = m->dev;
	lp->lj_ino = m->inode;
	if (unread && !lp->said_unread) {
		lp->said_unread = true;
		log_info("LuaJIT (agentless): pid %u maps %s, but %s: its VM is not read", lp->pid,
			 m->path, unread);
	}
	return lp->lj_build;
}

/* Looks at lp's mappings as last read: a known LuaJIT VM goes to the unwinder. */
static void check(struct bpf_ljvm *lj, struct ljvm_proc *lp)
{
	const struct proc_maps *maps = process_maps__maps(lp->maps);
	const struct ljvm_build *b = NULL;
	struct tt_ljvm_proc layout;
	bool library = false;

	lp->generation = process_maps__generation(lp->maps);
	for (size_t i = 0; maps && i < proc_maps__count(maps); i++) {
		const struct proc_map *m = proc_maps__get(maps, i);

		if (strstr(m->path, "libthreadtop-sysprof"))
			library = true;
		if (!b && (m->flags & PROC_MAP_EXEC) &&
		    (is_lj_path(m->path) || linked_in(lj, lp->pid, m)))
			b = judge(lj, lp, m, &layout);
	}
	if (library && lp->state != PROC_LIBRARY)
		lp->state = PROC_LIBRARY;
	if (lp->state == PROC_LIBRARY || !b) {
		if (lp->state == PROC_VM)
			bpf_map_delete_elem(lj->procs_fd, &lp->pid);
		if (lp->state != PROC_LIBRARY)
			lp->state = PROC_NONE;
		return;
	}
	if (lp->state != PROC_VM || lp->build != b) {
		if (bpf_map_update_elem(lj->procs_fd, &lp->pid, &layout, BPF_ANY))
			return;
		lp->state = PROC_VM;
		lp->build = b;
		if (!lp->named)
			lp->named = u64map__new();
	}
}

/* The maps cache, joined as a user on first use (the loop's thread). */
static void join_maps(struct bpf_ljvm *lj)
{
	int user = lj->shared_maps ? maps_cache__add_user(lj->shared_maps) : -ENOSPC;

	lj->maps = lj->shared_maps;
	if (user < 0) { /* none, or no room: its own, reading what it needs alone */
		lj->maps = lj->own_maps = maps_cache__new(NULL);
		user = maps_cache__add_user(lj->maps);
	}
	lj->maps_user = (unsigned)user;
}

/* The process of a CPU sample, checked when new or when its maps changed. */
static struct ljvm_proc *proc_of(struct bpf_ljvm *lj, uint32_t pid, uint64_t now)
{
	struct ljvm_proc *lp;

	if (!lj->maps)
		join_maps(lj);
	if (now - lj->expired_ns > IDLE_NS / 4) {
		/* Exited or idle processes let their maps go (before the look-up:
		 * this process may be one of them). */
		lj->expired_ns = now;
		u64map__expire(lj->procs, now, IDLE_NS, proc_seen, proc_free);
	}
	lp = u64map__get(lj->procs, pid);
	if (!lp) {
		u64map__trim(lj->procs, PROCS_MAX - 1, proc_seen, proc_free);
		lp = xcalloc(1, sizeof(*lp));
		lp->lj = lj;
		lp->pid = pid;
		lp->state = PROC_NONE;
		lp->maps = maps_cache__hold(lj->maps, pid, lj->maps_user);
		lp->refresh_gap_ns = REFRESH_MIN_NS;
		lp->refresh_ns = now + lp->refresh_gap_ns;
		u64map__put(lj->procs, pid, lp);
		check(lj, lp);
	} else if ((int64_t)(now - lp->refresh_ns) >= 0) {
		/* What nobody else re-read for (a dlopen, an exec): a read now and then. */
		process_maps__refresh(lp->maps);
		lp->refresh_gap_ns = lp->refresh_gap_ns * 2 < REFRESH_MAX_NS
					     ? lp->refresh_gap_ns * 2
					     : REFRESH_MAX_NS;
		lp->refresh_ns = now + lp->refresh_gap_ns;
	}
	if (process_maps__generation(lp->maps) != lp->generation)
		check(lj, lp);
	lp->seen_ns = now;
	return lp;
}

void bpf_ljvm__on_cpu(struct bpf_ljvm *lj, const struct tt_cpu_sample *s)
{
	struct ljvm_proc *lp;

	if (s->flags & TT_CPU_KTHREAD)
		return;
	lp = proc_of(lj, s->pid, s->hdr.time_ns);
	if (lp->state != PROC_VM)
		return;
	/*
	 * The attach-time check of the layout is each sample's (ljvm.bpf.c:
	 * is_g): a process whose samples never pass it is said in the log once.
	 */
	if (lp->cpu_samples < QUIET_MAX && ++lp->cpu_samples == QUIET_MAX && !lp->lj_samples)
		log_info("LuaJIT (agentless): pid %u maps %s but none of its first %u on-CPU "
			 "samples found its VM (DISPATCH in r14 leading to a global_State whose "
			 "main thread links back): no Lua ran on CPU, or this process's layout "
			 "is not the table's",
			 s->pid, lp->build->what, QUIET_MAX);
	if (u64map__count(lj->tids) >= TIDS_MAX && !u64map__get(lj->tids, s->tid)) {
		u64map__free(lj->tids);
		lj->tids = u64map__new();
	}
	/* Never 0: the weight is. */
	u64map__put(lj->tids, s->tid,
		    (void *)(uintptr_t)((uint64_t)s->ustack_id << 32 | (s->weight_us | 1u << 31)));
}

static void announce(const struct event_sink *sink, uint32_t pid, uint64_t id, uint32_t flags,
		     const char *name, size_t len, uint64_t time_ns)
{
	union {
		struct tt_luajit_func f;
		unsigned char room[sizeof(struct tt_luajit_func) + LJVM_NAME_MAX];
	} u;

	if (len > sizeof(u.room) - sizeof(u.f))
		len = sizeof(u.room) - sizeof(u.f);
	memset(&u.f, 0, sizeof(u.f));
	u.f.hdr = (struct tt_event_header){TT_EV_LUAJIT_FUNC, TT_LUAJIT_FUNC_VERSION,
					   (uint32_t)(sizeof(u.f) + len), time_ns};
	u.f.id = id;
	u.f.pid = pid;
	u.f.flags = flags;
	u.f.len = (uint32_t)len;
	memcpy(u.f.data, name, len);
	sink_emit(sink, &u.f.hdr);
}

static uint32_t name_hash(const char *s, size_t len)
{
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (uint8_t)s[i]) * 16777619u;
	return h;
}

/*
 * Names frame id of lp's process when new to it; a Lua function's name is
 * read again when RENAME_S passed (its prototype freed, another may be at
 * that address), and sent when it changed. lp->named holds, per id, the
 * name's hash << 32 | the second it was read (never 0).
 */
static void name_frame(struct ljvm_proc *lp, uint32_t pid, uint64_t id, uint64_t now,
		       const struct event_sink *sink)
{
	uint64_t seen = (uint64_t)(uintptr_t)u64map__get(lp->named, id);
	uint32_t sec = (uint32_t)(now / 1000000000u) | 1u, flags = 0, hash;
	char name[LJVM_NAME_MAX];
	size_t len;

	if (id < TT_LJVM_ID_LUA)
		return; /* a C function: the frame namer names its address */
	if (seen &&
	    (!(id & TT_LJVM_ID_LUA) || (id & TT_LJVM_ID_FFUNC) || sec - (uint32_t)seen < RENAME_S))
		return;
	if (!seen && u64map__count(lp->named) >= NAMES_MAX)
		return;
	if (id & TT_LJVM_ID_TRACE) {
		/* Its number, as the library's TRACE frames have it; the Lua frame
		 * under it says where it runs. */
		len = (size_t)snprintf(name, sizeof(name), "TRACE [%u]", (unsigned)(uint32_t)id);
		flags = TT_LJ_FUNC_TRACE;
	} else if (id == TT_LJVM_ID_BAD) {
		len = (size_t)snprintf(name, sizeof(name), "[lua?]");
	} else if (id & TT_LJVM_ID_FFUNC) {
		len = ljvm_ffunc_name(lp->build, (unsigned)(id & 0xff), name, sizeof(name));
		flags = TT_LJ_FUNC_C;
	} else {
		len = ljvm_proto_name(pid, lp->build, id & ~TT_LJVM_ID_LUA, name, sizeof(name));
	}
	hash = name_hash(name, len);
	u64map__put(lp->named, id, (void *)(uintptr_t)((uint64_t)hash << 32 | sec));
	if (!seen || (uint32_t)(seen >> 32) != hash)
		announce(sink, pid, id, flags, name, len, now);
}

void bpf_ljvm__on_library(struct bpf_ljvm *lj, uint32_t pid)
{
	struct ljvm_proc *lp = u64map__get(lj->procs, pid);

	if (!lp || lp->state == PROC_LIBRARY)
		return;
	if (lp->state == PROC_VM)
		bpf_map_delete_elem(lj->procs_fd, &pid);
	lp->state = PROC_LIBRARY;
}

void bpf_ljvm__on_sample(struct bpf_ljvm *lj, const struct tt_luajit_sample *s,
			 const struct event_sink *sink)
{
	union {
		struct tt_luajit_sample s;
		unsigned char
			room[sizeof(struct tt_luajit_sample) + TT_LJ_MAX_FRAMES * sizeof(__u64)];
	} u;
	struct ljvm_proc *lp = u64map__get(lj->procs, s->pid);
	uint64_t cpu;

	if (!(s->fidelity & TT_LJ_FIDELITY_BPF)) {
		bpf_ljvm__on_library(lj, s->pid);
		sink_emit(sink, &s->hdr);
		return;
	}
	if (!lp || lp->state != PROC_VM || s->nr > TT_LJ_MAX_FRAMES ||
	    s->hdr.size != sizeof(*s) + s->nr * sizeof(__u64))
		return;
	/*
	 * A preloaded libthreadtop-sysprof.so is mapped before any Lua runs,
	 * but a read of the maps made while the loader worked saw the VM
	 * alone: the first VM this process shows re-reads them, so that the
	 * library's start-up (its first drain names every function) is not
	 * shown as the program's work, stitched to its Lua frames.
	 */
	if (!lp->lj_samples) {
		/* Not refresh: the read that missed the library is often younger than 1 s. */
		process_maps__reread(lp->maps);
		if (process_maps__generation(lp->maps) != lp->generation)
			check(lj, lp);
		if (lp->state != PROC_VM)
			return;
	}
	lp->lj_samples++;
	memcpy(&u.s, s, s->hdr.size);
	cpu = (uint64_t)(uintptr_t)u64map__remove(lj->tids, s->tid);
	if (cpu) {
		u.s.ustack_id = (uint32_t)(cpu >> 32);
		u.s.weight_us = (uint32_t)cpu & ~(1u << 31);
	}
	/* A JIT-compiled sample's leaf is its trace, above the Lua frame it runs in. */
	if (u.s.vmstate == TT_LJ_TRACE && u.s.traceno > 0 && u.s.nr) {
		uint16_t n = u.s.nr < TT_LJ_MAX_FRAMES ? u.s.nr : TT_LJ_MAX_FRAMES - 1;

		memmove(&u.s.frames[1], &u.s.frames[0], n * sizeof(u.s.frames[0]));
		u.s.frames[0] = TT_LJVM_ID_TRACE | (uint32_t)u.s.traceno;
		u.s.nr = (uint16_t)(n + 1);
		u.s.hdr.size = (uint32_t)(sizeof(u.s) + u.s.nr * sizeof(u.s.frames[0]));
	}
	for (uint16_t i = 0; i < u.s.nr; i++)
		name_frame(lp, s->pid, u.s.frames[i], s->hdr.time_ns, sink);
	sink_emit(sink, &u.s.hdr);
}
