// SPDX-License-Identifier: GPL-2.0-only
/*
 * DWARF unwinding of copied stacks with libunwind's remote API (see
 * unwind_dwarf.h). libunwind asks our accessors for registers (the copied
 * ones), memory (the stack copy, else the mapped file behind the address)
 * and the unwind info of an ip (the file's .eh_frame_hdr table, searched by
 * libunwind's own dwarf_search_unwind_table over that memory).
 */
#include <errno.h>
#include <fcntl.h>
#include <libunwind.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "maps_cache.h"
#include "u64map.h"
#include "unwind_dwarf.h"
#include "unwind_files.h"
#include "util.h"

/* Exported by libunwind for remote unwinders, not declared by its headers. */
extern int UNW_OBJ(dwarf_search_unwind_table)(unw_addr_space_t as, unw_word_t ip,
					      unw_dyn_info_t *di, unw_proc_info_t *pi,
					      int need_unwind_info, void *arg);

#define VDSO_MAX (1u << 20)
#define NO_FILE ((struct unwind_file *)1)
#define STACK_SPAN (8u << 20) /* reads this far above sp are "beyond the copy" */
/*
 * Processes whose unwinding state is kept: libunwind's address space (6.4 KB
 * with its CFI cache) and the held maps (about 1 KB) each. On a churning box
 * a new process is unwound 100-200 times a second, most of them gone the
 * next moment: idle rounds alone kept 10,000 (70 MB) live. Past this bound
 * the process unwound longest ago goes; a live one comes back at the cost
 * of one maps read.
 */
#define UNWIND_PROCS_MAX 512

struct uw_proc {
	unw_addr_space_t as;	   /* per process, so libunwind may cache its CFI by ip */
	struct process_maps *maps; /* held; each mapping's slot: its file, or NO_FILE */
	unsigned maps_user;
	uint64_t generation; /* of the maps libunwind's cache was filled from */
	uint64_t round;
};

struct unwinder {
	const char *proc_root;	 /* the maps cache's */
	struct maps_cache *maps; /* shared with the symbolizer, or our own */
	bool own_maps;
	unsigned maps_user;
	struct unwind_files *files;
	struct u64map *procs; /* pid -> struct uw_proc */
	uint64_t round;
	struct unwinder_stats stats;
};

/* One unwind: what the accessors read from. */
struct uw_ctx {
	struct unwinder *u;
	uint32_t pid;
	struct uw_proc *proc;
	const uint64_t *regs;
	const uint8_t *stack;
	size_t len;
	bool beyond_copy; /* a read fell past the copied stack */
	bool no_info;	  /* an ip had no unwind table */
	/* The mapping the last file read hit: most reads fall in the same one. */
	const struct proc_map *last_map;
	struct unwind_file *last_file;
};

static const char *const result_names[UNWIND_RESULT_MAX] = {
	"ok", "short_copy", "no_process", "no_info", "stack_end", "bad_frame", "depth",
};

const char *unwind_result_name(enum unwind_result r)
{
	return r < UNWIND_RESULT_MAX ? result_names[r] : "unknown";
}

static unw_accessors_t accessors;

/* ---- signal masks ------------------------------------------------------- */

static __thread bool in_unwind;

/*
 * libunwind blocks every signal around each of its locks, two
 * rt_sigprocmask syscalls per frame unwound: two thirds of the cost of an
 * unwind. threadtop takes its signals through a signalfd and unwinds on one
 * thread, so while that thread unwinds the mask is left alone; any other
 * caller gets glibc's pthread_sigmask, which is what sigprocmask is.
 */
int sigprocmask(int how, const sigset_t *set, sigset_t *old)
{
	int err;

	if (in_unwind) {
		if (old)
			sigemptyset(old);
		return 0;
	}
	err = pthread_sigmask(how, set, old);
	if (err) {
		errno = err;
		return -1;
	}
	return 0;
}

/* ---- processes and files ----------------------------------------------- */

static void proc_free(void *value)
{
	struct uw_proc *p = value;

	if (!p)
		return;
	if (p->as)
		unw_destroy_addr_space(p->as);
	maps_cache__release(p->maps, p->maps_user);
	free(p);
}

/* After a re-read of the maps (ours or another user's) code may have moved:
 * forget what libunwind cached. */
static void follow_generation(struct uw_ctx *c)
{
	uint64_t gen = process_maps__generation(c->proc->maps);

	if (gen == c->proc->generation)
		return;
	c->proc->generation = gen;
	c->last_map = NULL;
	if (c->proc->as)
		unw_flush_cache(c->proc->as, 0, 0);
}

static uint64_t proc_last_round(const void *p)
{
	return ((const struct uw_proc *)p)->round;
}

static struct uw_proc *get_proc(struct unwinder *u, uint32_t pid)
{
	struct uw_proc *p = u64map__get(u->procs, pid);

	if (!p) {
		u64map__trim(u->procs, UNWIND_PROCS_MAX - 1, proc_last_round, proc_free);
		p = xcalloc(1, sizeof(*p));
		p->as = unw_create_addr_space(&accessors, 0);
		if (p->as)
			unw_set_caching_policy(p->as, UNW_CACHE_GLOBAL);
		p->maps = maps_cache__hold(u->maps, pid, u->maps_user);
		p->maps_user = u->maps_user;
		p->generation = process_maps__generation(p->maps);
		u64map__put(u->procs, pid, p);
	}
	p->round = u->round;
	return p;
}

static const struct proc_map *find_map(struct uw_ctx *c, uint64_t addr)
{
	const struct proc_map *m = process_maps__find(c->proc->maps, addr); /* dlopen'd since? */

	follow_generation(c);
	return m;
}

static struct unwind_file *open_vdso(struct uw_ctx *c, const struct proc_map *m)
{
	void *buf = proc_map__copy_mem(c->u->proc_root, c->pid, m, VDSO_MAX);
	struct unwind_file *f;

	if (!buf)
		return NULL;
	f = unwind_files__get_mem(c->u->files, buf, m->end - m->start, "[vdso]");
	free(buf);
	return f;
}

/* The file behind mapping m, mapped once; NULL for anonymous memory. */
static struct unwind_file *map_file(struct uw_ctx *c, const struct proc_map *m)
{
	void **slot = process_maps__slot(c->proc->maps, c->proc->maps_user, m);
	struct unwind_file *f = NULL;
	int fd;

	if (!slot)
		return NULL;
	if (*slot)
		return *slot == NO_FILE ? NULL : *slot;
	if ((m->flags & PROC_MAP_PSEUDO) && !strcmp(m->path, "[vdso]")) {
		f = open_vdso(c, m);
	} else if (!(m->flags & (PROC_MAP_PSEUDO | PROC_MAP_ANON))) {
		f = unwind_files__find(c->u->files, m->dev, m->inode);
		fd = f ? -1 : proc_map__open(c->u->proc_root, c->pid, m);
		if (fd >= 0) {
			f = unwind_files__get_fd(c->u->files, fd, m->dev, m->inode);
			close(fd);
		}
	}
	*slot = f ? f : NO_FILE;
	return f;
}

/* ---- libunwind accessors ------------------------------------------------ */

static int find_proc_info(unw_addr_space_t as, unw_word_t ip, unw_proc_info_t *pi,
			  int need_unwind_info, void *arg)
{
	struct uw_ctx *c = arg;
	const struct proc_map *m = find_map(c, ip);
	struct unwind_file *f = m ? map_file(c, m) : NULL;
	struct unwind_table t;
	unw_dyn_info_t di;
	uint64_t vaddr;

	if (!f || unwind_file__table(f, &t) ||
	    unwind_file__offset_to_vaddr(f, ip - m->start + m->offset, &vaddr)) {
		c->no_info = true;
		return -UNW_ENOINFO;
	}
	/* The load bias turns the file's virtual addresses into the process's. */
	uint64_t bias = ip - vaddr;

	memset(&di, 0, sizeof(di));
	di.format = UNW_INFO_FORMAT_REMOTE_TABLE;
	di.start_ip = m->start;
	di.end_ip = m->end;
	di.u.rti.segbase = bias + t.hdr_vaddr;
	di.u.rti.table_data = bias + t.table_vaddr;
	di.u.rti.table_len = t.fde_count * 8 / sizeof(unw_word_t);
	int ret = UNW_OBJ(dwarf_search_unwind_table)(as, ip, &di, pi, need_unwind_info, arg);

	if (ret < 0)
		c->no_info = true;
	return ret;
}

static void put_unwind_info(unw_addr_space_t as, unw_proc_info_t *pi, void *arg)
{
	/* libunwind frees what dwarf_search_unwind_table allocated. */
}

static int get_dyn_info_list_addr(unw_addr_space_t as, unw_word_t *dilap, void *arg)
{
	return -UNW_ENOINFO;
}

static int access_mem(unw_addr_space_t as, unw_word_t addr, unw_word_t *valp, int write, void *arg)
{
	struct uw_ctx *c = arg;
	uint64_t sp = c->regs[TT_UREG_SP];
	const struct proc_map *m;
	struct unwind_file *f;

	if (write)
		return -UNW_EINVAL;
	if (addr >= sp && addr - sp <= c->len && c->len - (addr - sp) >= sizeof(*valp)) {
		memcpy(valp, c->stack + (addr - sp), sizeof(*valp));
		return 0;
	}
	/*
	 * Files first: a library may be mapped just above a thread's stack, so
	 * "above sp" alone does not mean "the stack".
	 */
	m = c->last_map;
	if (m && addr >= m->start && addr < m->end) {
		f = c->last_file;
	} else {
		m = find_map(c, addr);
		f = m ? map_file(c, m) : NULL;
		c->last_map = f ? m : NULL;
		c->last_file = f;
	}
	if (f)
		return unwind_file__read(f, addr - m->start + m->offset, valp, sizeof(*valp))
			       ? -UNW_EINVAL
			       : 0;
	if (addr >= sp && addr - sp < STACK_SPAN)
		c->beyond_copy = true;
	return -UNW_EINVAL;
}

static int access_reg(unw_addr_space_t as, unw_regnum_t reg, unw_word_t *valp, int write, void *arg)
{
	const struct uw_ctx *c = arg;
	int r;

	if (write)
		return -UNW_EREADONLYREG;
	switch (reg) {
	case UNW_X86_64_RIP:
		r = TT_UREG_IP;
		break;
	case UNW_X86_64_RSP:
		r = TT_UREG_SP;
		break;
	case UNW_X86_64_RBP:
		r = TT_UREG_BP;
		break;
	case UNW_X86_64_RBX:
		r = TT_UREG_BX;
		break;
	case UNW_X86_64_R12:
		r = TT_UREG_R12;
		break;
	case UNW_X86_64_R13:
		r = TT_UREG_R13;
		break;
	case UNW_X86_64_R14:
		r = TT_UREG_R14;
		break;
	case UNW_X86_64_R15:
		r = TT_UREG_R15;
		break;
	default:
		return -UNW_EBADREG;
	}
	*valp = c->regs[r];
	return 0;
}

static int access_fpreg(unw_addr_space_t as, unw_regnum_t reg, unw_fpreg_t *val, int write,
			void *arg)
{
	return -UNW_EINVAL;
}

static int resume(unw_addr_space_t as, unw_cursor_t *cu, void *arg)
{
	return -UNW_EINVAL;
}

static int get_proc_name(unw_addr_space_t as, unw_word_t addr, char *bufp, size_t buf_len,
			 unw_word_t *offp, void *arg)
{
	return -UNW_EINVAL;
}

static unw_accessors_t accessors = {
	.find_proc_info = find_proc_info,
	.put_unwind_info = put_unwind_info,
	.get_dyn_info_list_addr = get_dyn_info_list_addr,
	.access_mem = access_mem,
	.access_reg = access_reg,
	.access_fpreg = access_fpreg,
	.resume = resume,
	.get_proc_name = get_proc_name,
};

/* ---- the unwinder ------------------------------------------------------- */

struct unwinder *unwinder__new(struct maps_cache *maps)
{
	struct maps_cache *own = maps ? NULL : maps_cache__new(NULL);
	struct unwinder *u;
	int user = maps_cache__add_user(maps ? maps : own);

	if (user < 0) {
		errno = -user;
		return NULL;
	}
	u = xcalloc(1, sizeof(*u));
	u->maps = maps ? maps : own;
	u->own_maps = own != NULL;
	u->maps_user = (unsigned)user;
	u->proc_root = maps_cache__proc_root(u->maps);
	u->files = unwind_files__new();
	u->procs = u64map__new();
	return u;
}

void unwinder__free(struct unwinder *u)
{
	if (!u)
		return;
	u64map__free_all(u->procs, proc_free);
	unwind_files__free(u->files);
	if (u->own_maps)
		maps_cache__free(u->maps);
	free(u);
}

static enum unwind_result walk(struct uw_ctx *c, uint64_t *ips, size_t max, size_t *nr)
{
	unw_word_t ip, sp, prev_sp = c->regs[TT_UREG_SP];
	unw_cursor_t cursor;
	int ret;

	if (!c->proc->as || unw_init_remote(&cursor, c->proc->as, c) < 0)
		return UNWIND_BAD_FRAME;
	while (*nr < max) {
		ret = unw_step(&cursor);
		if (ret == 0)
			return UNWIND_OK;
		if (ret < 0) {
			if (c->beyond_copy)
				return UNWIND_STACK_END;
			return c->no_info ? UNWIND_NO_INFO : UNWIND_BAD_FRAME;
		}
		if (unw_get_reg(&cursor, UNW_REG_IP, &ip) < 0 ||
		    unw_get_reg(&cursor, UNW_REG_SP, &sp) < 0)
			return UNWIND_BAD_FRAME;
		if (!ip)
			return UNWIND_OK; /* the outermost frame's return address */
		/* Callers live higher on the stack: anything else is a loop. */
		if (sp <= prev_sp)
			return UNWIND_BAD_FRAME;
		prev_sp = sp;
		ips[(*nr)++] = ip;
	}
	return UNWIND_DEPTH;
}

enum unwind_result unwinder__unwind(struct unwinder *u, uint32_t pid,
				    const uint64_t regs[TT_UREG_NR], const void *stack, size_t len,
				    uint64_t *ips, size_t max, size_t *ret_nr)
{
	struct uw_ctx c = {.u = u, .pid = pid, .regs = regs, .stack = stack, .len = len};
	uint64_t start = monotonic_ns();
	enum unwind_result r;
	size_t nr = 0;

	*ret_nr = 0;
	if (!max)
		return UNWIND_DEPTH;
	u->stats.samples++;
	if (regs[TT_UREG_IP])
		ips[nr++] = regs[TT_UREG_IP];
	if (!regs[TT_UREG_IP] || !regs[TT_UREG_SP] || len < sizeof(uint64_t)) {
		r = UNWIND_SHORT_COPY;
		goto out;
	}
	c.proc = get_proc(u, pid);
	/* No maps: gone when read, or its pid is a new process's now (a re-read, once a second). */
	if (!process_maps__maps(c.proc->maps))
		process_maps__find(c.proc->maps, regs[TT_UREG_IP]);
	follow_generation(&c);
	if (!process_maps__maps(c.proc->maps)) {
		r = UNWIND_NO_PROCESS;
		goto out;
	}
	in_unwind = true;
	r = walk(&c, ips, max, &nr);
	in_unwind = false;
out:
	*ret_nr = nr;
	u->stats.frames += nr;
	u->stats.result[r]++;
	u->stats.ns += monotonic_ns() - start;
	return r;
}

/* Rounds (the source's flushes, once an interval) between two drops of the files' pages. */
#define DROP_PAGES_ROUNDS 60

size_t unwinder__expire(struct unwinder *u, unsigned idle_rounds)
{
	if (++u->round % DROP_PAGES_ROUNDS == 0)
		unwind_files__drop_pages(u->files);
	return u64map__expire(u->procs, u->round, idle_rounds, proc_last_round, proc_free);
}

void unwinder__stats(const struct unwinder *u, struct unwinder_stats *ret)
{
	*ret = u->stats;
	ret->files = unwind_files__count(u->files);
	ret->maps_reads = maps_cache__reads(u->maps);
}
