// SPDX-License-Identifier: GPL-2.0-only
/*
 * Address to name (see symbolizer.h): per-process maps and per-address frame
 * caches on top of the shared DSO cache, kallsyms and perf-PID.map files.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "demangle.h"
#include "dso_cache.h"
#include "kallsyms.h"
#include "maps_cache.h"
#include "perfmap.h"
#include "procfs.h"
#include "proc_maps.h"
#include "symbolizer.h"
#include "u64map.h"
#include "util.h"

#define PERFMAP_RECHECK_NS (1 * NSEC_PER_SEC) /* and one perf map stat */
#define VDSO_MAX (1u << 20)
#define DSO_FAILED ((struct dso *)1)

/* A cached frame; name and module strings follow it. */
struct frame_ent {
	struct sym_frame f;
	/* In no mapping when named: looked up again (at most once per maps
	 * re-read interval, or at once when they were read again since), as a
	 * library may have been mapped after the maps were read. */
	bool unmapped;
	uint64_t generation;	   /* of the maps it was last looked up in */
	uint64_t checked_ns;	   /* when */
	struct frame_ent *retired; /* next in sym_proc's retired list */
	char strings[];
};

struct sym_proc {
	uint32_t pid;
	struct process_maps *maps; /* held; each mapping's slot: its dso, or DSO_FAILED */
	unsigned maps_user;	   /* our user id in the maps cache */
	struct perfmap *perfmap;
	uint64_t perfmap_ns; /* when the perf map file was last checked */
	struct timespec perfmap_mtime;
	off_t perfmap_size;
	struct u64map *frames; /* addr -> struct frame_ent */
	/* Frames replaced in the cache, freed with the process: a frame lives
	 * until symbolizer__forget_pid (symbolizer.h). */
	struct frame_ent *retired;
	uint64_t images; /* process_maps__images the frames were named under */
	/* Every file it took from the cache, its slots' and those its frames'
	 * inline chains point into (a maps re-read clears the slots, not the
	 * frames): what keeps the files alive across sweeps. */
	struct u64map *dsos; /* (uintptr_t)dso -> dso */
	uint64_t round;	     /* the symbolizer round it was last used in */
};

struct symbolizer {
	char *proc_root, *tmp_dir;
	struct maps_cache *maps; /* shared with the unwinder, or our own */
	bool own_maps;
	unsigned maps_user;
	struct dso_cache *dsos;
	struct u64map *procs; /* pid -> struct sym_proc */
	struct ksyms *ksyms;
	int ksyms_err;		     /* negative errno once loading failed */
	struct ksyms_job *ksyms_job; /* reading them in the background, NULL = not */
	struct u64map *kframes;
	char kernel_build_id[41]; /* from /sys/kernel/notes; "" when unknown */
	uint64_t ktext_start, ktext_end;
	uint64_t round; /* symbolizer__expire calls */
	uint64_t sweep; /* dso_cache__sweep calls */
	bool forgot;	/* a process went since the last sweep */
	struct frame_namer namer;
	struct frame_namer namer_nowait; /* symbolizer__namer_nowait */
	struct symbolizer_stats stats;
};

static void ksyms_join(struct symbolizer *s);

struct symbolizer *symbolizer__new(const struct symbolizer_opts *opts)
{
	struct maps_cache *maps = opts ? opts->maps : NULL;
	struct symbolizer *s;
	int user;

	if (!maps)
		maps = maps_cache__new(
			&(struct maps_cache_opts){.proc_root = opts ? opts->proc_root : NULL});
	user = maps_cache__add_user(maps);
	if (user < 0) {
		errno = -user;
		return NULL;
	}
	s = xcalloc(1, sizeof(*s));
	s->maps = maps;
	s->own_maps = !opts || !opts->maps;
	s->maps_user = (unsigned)user;
	s->proc_root = xstrdup(maps_cache__proc_root(s->maps));
	s->tmp_dir = xstrdup(opts && opts->tmp_dir ? opts->tmp_dir : "/tmp");
	s->dsos = dso_cache__new(opts ? opts->debug_root : NULL);
	s->procs = u64map__new();
	s->kframes = u64map__new();
	return s;
}

static void free_frames(struct u64map *frames)
{
	size_t pos = 0;
	uint64_t key;
	void *val;

	while (u64map__next(frames, &pos, &key, &val))
		free(val);
	u64map__free(frames);
}

static void proc_free(struct sym_proc *p)
{
	if (!p)
		return;
	maps_cache__release(p->maps, p->maps_user);
	perfmap__free(p->perfmap);
	free_frames(p->frames);
	for (struct frame_ent *e = p->retired, *next; e; e = next) {
		next = e->retired;
		free(e);
	}
	u64map__free(p->dsos);
	free(p);
}

void symbolizer__free(struct symbolizer *s)
{
	size_t pos = 0;
	uint64_t key;
	void *val;

	if (!s)
		return;
	while (u64map__next(s->procs, &pos, &key, &val))
		proc_free(val);
	u64map__free(s->procs);
	free_frames(s->kframes);
	ksyms_join(s);
	ksyms__free(s->ksyms);
	dso_cache__free(s->dsos);
	if (s->own_maps)
		maps_cache__free(s->maps);
	free(s->proc_root);
	free(s->tmp_dir);
	free(s);
}

void symbolizer__forget_pid(struct symbolizer *s, uint32_t pid)
{
	struct sym_proc *p = u64map__remove(s->procs, pid);

	s->forgot |= p != NULL;
	proc_free(p);
}

static struct sym_frame *new_frame_map(struct u64map *cache, uint64_t addr, const char *name,
				       const char *module, const char *build_id, const char *path,
				       uint64_t offset, unsigned flags)
{
	size_t nl = strlen(name), ml = strlen(module), bl = strlen(build_id), pl = strlen(path);
	struct frame_ent *e = xcalloc(1, sizeof(*e) + nl + ml + bl + pl + 4);

	memcpy(e->strings, name, nl + 1);
	memcpy(e->strings + nl + 1, module, ml + 1);
	memcpy(e->strings + nl + ml + 2, build_id, bl + 1);
	memcpy(e->strings + nl + ml + bl + 3, path, pl + 1);
	e->f.name = e->strings;
	e->f.module = e->strings + nl + 1;
	e->f.build_id = e->strings + nl + ml + 2;
	e->f.path = e->strings + nl + ml + bl + 3;
	e->f.offset = offset;
	e->f.flags = flags;
	e->f.inlined = NULL;
	e->f.nr_inlined = 0;
	u64map__put(cache, addr, e);
	return &e->f;
}

static struct sym_frame *new_frame_bid(struct u64map *cache, uint64_t addr, const char *name,
				       const char *module, const char *build_id, uint64_t offset,
				       unsigned flags)
{
	return new_frame_map(cache, addr, name, module, build_id, "", offset, flags);
}

static const struct sym_frame *new_frame(struct u64map *cache, uint64_t addr, const char *name,
					 const char *module, uint64_t offset, unsigned flags)
{
	return new_frame_bid(cache, addr, name, module, "", offset, flags);
}

/* ---- kernel ------------------------------------------------------------- */

/*
 * /proc/kallsyms read on a thread of its own: 50-400 ms of start-up (more
 * on a loaded box) that the first rows do not need. The thread only reads
 * the file into its own table; the symbolizer takes it at the first kernel
 * frame (waiting if it is not done yet).
 */
struct ksyms_job {
	pthread_t thread;
	const char *proc_root; /* the symbolizer's, which outlives the job */
	struct ksyms *ksyms;
	int err;
	atomic_bool done; /* ksyms and err are set: the join does not wait */
};

static void *ksyms_job_main(void *arg)
{
	struct ksyms_job *job = arg;

	job->ksyms = ksyms__load(job->proc_root);
	job->err = job->ksyms ? 0 : -errno;
	atomic_store(&job->done, true);
	return NULL;
}

static void kernel_loaded(struct symbolizer *s);

static void ksyms_join(struct symbolizer *s)
{
	struct ksyms_job *job = s->ksyms_job;

	if (!job)
		return;
	pthread_join(job->thread, NULL);
	s->ksyms_job = NULL;
	s->ksyms = job->ksyms;
	s->ksyms_err = job->err;
	kernel_loaded(s);
	free(job);
}

void symbolizer__load_kernel_background(struct symbolizer *s)
{
	struct ksyms_job *job;

	if (s->ksyms || s->ksyms_err || s->ksyms_job)
		return;
	job = xcalloc(1, sizeof(*job));
	job->proc_root = s->proc_root;
	atomic_init(&job->done, false);
	if (thread_start_quiet(&job->thread, ksyms_job_main, job)) {
		free(job);
		symbolizer__load_kernel(s);
		return;
	}
	s->ksyms_job = job;
}

/*
 * The running kernel's GNU build-id, from the ELF notes in /sys/kernel/notes
 * (what perf buildid-list -k reads), in hex into out; "" when unreadable.
 */
static void kernel_build_id(char *out, size_t len)
{
	unsigned char buf[4096];
	size_t o = 0, n;
	int fd = open("/sys/kernel/notes", O_RDONLY | O_CLOEXEC);
	ssize_t got;

	out[0] = '\0';
	if (fd < 0)
		return;
	got = read(fd, buf, sizeof(buf));
	close(fd);
	n = got > 0 ? (size_t)got : 0;
	while (o + 12 <= n) {
		uint32_t namesz, descsz, type;
		size_t name_at = o + 12, desc_at;

		memcpy(&namesz, buf + o, 4);
		memcpy(&descsz, buf + o + 4, 4);
		memcpy(&type, buf + o + 8, 4);
		desc_at = name_at + ((namesz + 3u) & ~3u);
		if (namesz > n || descsz > n || desc_at + descsz > n)
			return;
		if (type == 3 && namesz == 4 && !memcmp(buf + name_at, "GNU", 4) && descsz &&
		    descsz * 2 < len) {
			for (uint32_t i = 0; i < descsz; i++)
				snprintf(out + 2 * i, 3, "%02x", buf[desc_at + i]);
			return;
		}
		o = desc_at + ((descsz + 3u) & ~3u);
	}
}

/* What the kernel's symbols give once read, here or by the background job. */
static void kernel_loaded(struct symbolizer *s)
{
	s->stats.kernel_symbols = ksyms__count(s->ksyms);
	ksyms__text_range(s->ksyms, &s->ktext_start, &s->ktext_end);
	kernel_build_id(s->kernel_build_id, sizeof(s->kernel_build_id));
}

void symbolizer__load_kernel(struct symbolizer *s)
{
	ksyms_join(s);
	if (s->ksyms || s->ksyms_err)
		return;
	s->ksyms = ksyms__load(s->proc_root);
	if (!s->ksyms)
		s->ksyms_err = -errno;
	kernel_loaded(s);
}

static const struct sym_frame *resolve_kernel(struct symbolizer *s, uint64_t addr)
{
	struct sym_frame *f;
	const struct ksym *k;
	char name[64], module[80];

	symbolizer__load_kernel(s);
	k = ksyms__find(s->ksyms, addr);
	if (!k) {
		s->stats.unknown++;
		snprintf(name, sizeof(name), "[kernel]+0x%" PRIx64, addr);
		return new_frame(s->kframes, addr, name, "[kernel]", addr,
				 SYM_FRAME_KERNEL | SYM_FRAME_UNKNOWN);
	}
	if (strcmp(k->module, "vmlinux")) {
		snprintf(module, sizeof(module), "[%.64s]", k->module);
		return new_frame(s->kframes, addr, k->name, module, addr - k->addr,
				 SYM_FRAME_KERNEL);
	}
	f = new_frame_bid(s->kframes, addr, k->name, "[kernel]", s->kernel_build_id, addr - k->addr,
			  SYM_FRAME_KERNEL);
	/* perf's name for the kernel's mapping; a static string */
	f->path = "[kernel.kallsyms]";
	f->map_start = s->ktext_start;
	f->map_limit = s->ktext_end;
	f->map_offset = s->ktext_start;
	return f;
}

/* ---- processes ---------------------------------------------------------- */

static struct sym_proc *get_proc(struct symbolizer *s, uint32_t pid)
{
	struct sym_proc *p = u64map__get(s->procs, pid);

	if (p) {
		p->round = s->round;
		return p;
	}
	p = xcalloc(1, sizeof(*p));
	p->pid = pid;
	p->round = s->round;
	p->frames = u64map__new();
	p->dsos = u64map__new();
	p->maps = maps_cache__hold(s->maps, pid, s->maps_user);
	p->maps_user = s->maps_user;
	p->images = process_maps__images(p->maps);
	u64map__put(s->procs, pid, p);
	return p;
}

/* Moves a cached frame out of the cache (it is named again), keeping it alive. */
static void retire_frame(struct sym_proc *p, struct frame_ent *e)
{
	e->retired = p->retired;
	p->retired = e;
}

/*
 * The process exec'd since its frames were named (its maps were read before:
 * a "threadtop run" child met before it ran its command): every name by
 * address is of the old image, so all are named again.
 */
static void follow_exec(struct sym_proc *p)
{
	uint64_t images = process_maps__images(p->maps), key;
	size_t pos = 0;
	void *val;

	if (images == p->images)
		return;
	p->images = images;
	while (u64map__next(p->frames, &pos, &key, &val))
		retire_frame(p, val);
	u64map__free(p->frames);
	p->frames = u64map__new();
}

/*
 * The pid of the process inside its own pid namespace (perf maps use it) and
 * its effective uid (whose perf maps it trusts); root when status is unread,
 * so that only root's maps are trusted then.
 */
static uint32_t proc_ids(struct symbolizer *s, uint32_t pid, unsigned *ret_uid)
{
	char path[PATH_MAX], buf[4096];
	uint32_t nspid = pid;
	int dirfd;

	*ret_uid = 0;
	snprintf(path, sizeof(path), "%s/%u", s->proc_root, pid);
	dirfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0)
		return pid;
	if (read_file_at(dirfd, "status", buf, sizeof(buf)) > 0) {
		nspid = procfs_parse_nspid(buf, pid);
		*ret_uid = procfs_parse_euid(buf, 0);
	}
	close(dirfd);
	return nspid;
}

/* (Re)loads the process's perf map when it appeared or changed. */
static void refresh_perfmap(struct symbolizer *s, struct sym_proc *p)
{
	char path[PATH_MAX];
	uint64_t now = monotonic_ns();
	unsigned uid;
	uint32_t nspid;
	struct stat st;
	bool found;

	if (p->perfmap_ns && now - p->perfmap_ns < PERFMAP_RECHECK_NS)
		return;
	p->perfmap_ns = now;
	nspid = proc_ids(s, p->pid, &uid);
	/* Inside the process's root (a container's /tmp), named by its own pid. */
	snprintf(path, sizeof(path), "%s/%u/root%s/perf-%u.map", s->proc_root, p->pid, s->tmp_dir,
		 nspid);
	found = !stat(path, &st) && S_ISREG(st.st_mode);
	if (!found) {
		snprintf(path, sizeof(path), "%s/perf-%u.map", s->tmp_dir, p->pid);
		found = !stat(path, &st) && S_ISREG(st.st_mode);
	}
	if (!found)
		return;
	if (p->perfmap && st.st_size == p->perfmap_size &&
	    st.st_mtim.tv_sec == p->perfmap_mtime.tv_sec &&
	    st.st_mtim.tv_nsec == p->perfmap_mtime.tv_nsec)
		return;
	perfmap__free(p->perfmap);
	p->perfmap = perfmap__read(path, uid); /* NULL: someone else's, not trusted */
	p->perfmap_size = st.st_size;
	p->perfmap_mtime = st.st_mtim;
}

static struct dso *open_vdso(struct symbolizer *s, struct sym_proc *p, const struct proc_map *m)
{
	void *buf = proc_map__copy_mem(s->proc_root, p->pid, m, VDSO_MAX);
	struct dso *d;

	if (!buf)
		return NULL;
	d = dso_cache__get_mem(s->dsos, buf, m->end - m->start, "[vdso]");
	free(buf);
	return d;
}

static struct dso *mapping_dso(struct symbolizer *s, struct sym_proc *p, const struct proc_map *m)
{
	char root[PATH_MAX];
	void **slot = process_maps__slot(p->maps, p->maps_user, m);
	struct dso *d = NULL;
	int fd;

	if (!slot) /* no maps (the process is gone): m cannot be one of them */
		return NULL;
	if (*slot)
		return *slot == DSO_FAILED ? NULL : *slot;
	if ((m->flags & PROC_MAP_PSEUDO) && !strcmp(m->path, "[vdso]")) {
		d = open_vdso(s, p, m);
	} else if (!(m->flags & (PROC_MAP_PSEUDO | PROC_MAP_ANON))) {
		fd = proc_map__open(s->proc_root, p->pid, m);
		if (fd >= 0) {
			snprintf(root, sizeof(root), "%s/%u/root", s->proc_root, p->pid);
			d = dso_cache__get_fd(s->dsos, fd, m->dev, m->inode, m->path, root);
			close(fd);
		} else {
			/* Exited, its file out of reach: the copy read for another process. */
			d = dso_cache__find_file(s->dsos, m->dev, m->inode);
		}
	}
	if (d)
		u64map__put(p->dsos, (uintptr_t)d, d);
	else
		s->stats.file_errors++;
	*slot = d ? d : DSO_FAILED;
	return d;
}

/* Adds the functions inlined at vaddr of d and the source line there to f (a frame of the cache). */
static const struct sym_frame *with_inlined(struct symbolizer *s, struct sym_frame *f,
					    struct dso *d, uint64_t vaddr)
{
	f->nr_inlined = (unsigned)dso__inlined(d, vaddr, &f->inlined);
	if (f->nr_inlined)
		s->stats.inlined++;
	f->src_line = dso__line(d, vaddr, &f->src_file);
	return f;
}

/* The mapping of a user frame: its range (the path is in the frame's strings). */
static struct sym_frame *with_mapping(struct sym_frame *f, const struct proc_map *m)
{
	f->map_start = m->start;
	f->map_limit = m->end;
	f->map_offset = m->offset;
	return f;
}

static const char *map_name(const struct proc_map *m)
{
	const char *slash;

	if (m->flags & PROC_MAP_ANON)
		return "[anon]";
	slash = strrchr(m->path, '/');
	return slash && slash[1] ? slash + 1 : m->path;
}

/* A frame in no mapping: marked to be named again once the maps are read again. */
static const struct sym_frame *unmapped_frame(struct sym_proc *p, const struct sym_frame *f)
{
	struct frame_ent *e = (struct frame_ent *)f; /* f is the first member */

	e->unmapped = true;
	e->generation = process_maps__generation(p->maps);
	e->checked_ns = monotonic_ns();
	return f;
}

/*
 * The cached frame of addr, or NULL when there is none or it must be named
 * again: it was in no mapping, and now is (the maps read again since, or
 * due to be on a miss), or the process exec'd.
 */
static struct frame_ent *cached_frame(struct symbolizer *s, struct sym_proc *p, uint64_t addr)
{
	struct frame_ent *e = u64map__get(p->frames, addr);
	uint64_t now;
	bool mapped;

	if (!e || !e->unmapped)
		return e;
	now = monotonic_ns();
	if (e->generation == process_maps__generation(p->maps) &&
	    now - e->checked_ns < maps_cache__reread_ns(s->maps))
		return e;
	mapped = process_maps__find(p->maps, addr) != NULL; /* may read them again */
	follow_exec(p);					    /* which may drop every frame */
	e = u64map__get(p->frames, addr);
	if (e && mapped) {
		u64map__remove(p->frames, addr);
		retire_frame(p, e);
		return NULL;
	}
	if (e) {
		e->generation = process_maps__generation(p->maps);
		e->checked_ns = now;
	}
	return e;
}

static const struct sym_frame *resolve_user(struct symbolizer *s, uint32_t pid, uint64_t addr)
{
	struct sym_proc *p = get_proc(s, pid);
	struct frame_ent *cached;
	const struct proc_map *m;
	const struct elf_sym *sym;
	char name[PATH_MAX + 32];
	uint64_t off, vaddr;
	struct dso *d;

	follow_exec(p);
	cached = cached_frame(s, p, addr);
	if (cached) {
		s->stats.cache_hits++;
		return &cached->f;
	}
	m = process_maps__find(p->maps, addr); /* re-read when new (dlopen, JIT) or exec'd */
	follow_exec(p);
	if (!m || (m->flags & PROC_MAP_ANON) ||
	    ((m->flags & PROC_MAP_PSEUDO) && strcmp(m->path, "[vdso]"))) {
		const struct perfmap_sym *js;

		refresh_perfmap(s, p);
		js = perfmap__find(p->perfmap, addr);
		if (js)
			return new_frame(p->frames, addr, js->name, "[jit]", addr - js->start,
					 SYM_FRAME_JIT);
		s->stats.unknown++;
		if (!m) {
			/* Exited, and in no maps read while it lived: no file can be told. */
			const char *what = process_maps__gone(p->maps) ? SYM_EXITED : "[unknown]";

			snprintf(name, sizeof(name), "%s+0x%" PRIx64, what, addr);
			return unmapped_frame(
				p, new_frame(p->frames, addr, name, what, addr, SYM_FRAME_UNKNOWN));
		}
		snprintf(name, sizeof(name), "%s+0x%" PRIx64, map_name(m), addr - m->start);
		return new_frame(p->frames, addr, name, map_name(m), addr - m->start,
				 SYM_FRAME_UNKNOWN);
	}
	off = addr - m->start + m->offset;
	d = mapping_dso(s, p, m);
	if (d) {
		dso__lookup(d, off, &sym, &vaddr);
		if (sym) {
			struct sym_frame *f = new_frame_map(
				p->frames, addr,
				demangle(sym->name, name, sizeof(name)) ?: sym->name, dso__name(d),
				dso__build_id(d), m->path, vaddr - sym->addr,
				dso__debuginfo(d) ? SYM_FRAME_DEBUGINFO : 0);

			return with_inlined(s, with_mapping(f, m), d, vaddr);
		}
		off = vaddr;
	}
	s->stats.unknown++;
	snprintf(name, sizeof(name), "%s+0x%" PRIx64, map_name(m), off);
	return with_mapping(new_frame_map(p->frames, addr, name, map_name(m),
					  d ? dso__build_id(d) : "", m->path, off,
					  SYM_FRAME_UNKNOWN),
			    m);
}

void symbolizer__prepare(struct symbolizer *s, uint32_t pid, uint64_t addr)
{
	struct sym_proc *p;
	const struct proc_map *m;

	if (!s)
		return;
	p = get_proc(s, pid);
	if (u64map__get(p->frames, addr))
		return;
	m = process_maps__find(p->maps, addr);
	if (m && !(m->flags & (PROC_MAP_PSEUDO | PROC_MAP_ANON)))
		mapping_dso(s, p, m);
}

int symbolizer__resolve(struct symbolizer *s, uint32_t pid, uint64_t addr, bool kernel,
			const struct sym_frame **ret)
{
	const struct sym_frame *f;

	if (!s || !ret)
		return -EINVAL;
	s->stats.lookups++;
	if (kernel) {
		f = u64map__get(s->kframes, addr);
		if (f)
			s->stats.cache_hits++;
		else
			f = resolve_kernel(s, addr);
	} else {
		f = resolve_user(s, pid, addr);
	}
	*ret = f;
	return 0;
}

void symbolizer__stats(const struct symbolizer *s, struct symbolizer_stats *ret)
{
	struct dso_cache_stats ds;
	uint64_t key;
	void *val;

	dso_cache__stats(s->dsos, &ds);
	*ret = s->stats;
	ret->files = ds.files;
	ret->debug_files = ds.debug_files;
	ret->dwarf_files = ds.dwarf_files;
	ret->files_freed = ds.files_freed;
	ret->procs = u64map__count(s->procs);
	ret->maps_reads = maps_cache__reads(s->maps);
	ret->maps_procs = maps_cache__count(s->maps);
	ret->frames = u64map__count(s->kframes);
	for (size_t pos = 0; u64map__next(s->procs, &pos, &key, &val);)
		ret->frames += u64map__count(((const struct sym_proc *)val)->frames);
}

static uint64_t proc_last_round(const void *p)
{
	return ((const struct sym_proc *)p)->round;
}

static void proc_free_value(void *p)
{
	proc_free(p);
}

/* Frees the files no cached process took (the last that did has expired). */
static void sweep_files(struct symbolizer *s)
{
	size_t pos = 0, dpos;
	struct sym_proc *p;
	struct dso *d;
	uint64_t key;

	s->sweep++;
	s->forgot = false;
	while (u64map__next(s->procs, &pos, &key, (void **)&p))
		for (dpos = 0; u64map__next(p->dsos, &dpos, &key, (void **)&d);)
			dso__mark(d, s->sweep);
	dso_cache__sweep(s->dsos, s->sweep);
}

size_t symbolizer__expire(struct symbolizer *s, unsigned idle_rounds)
{
	size_t gone =
		u64map__expire(s->procs, ++s->round, idle_rounds, proc_last_round, proc_free_value);

	if (gone || s->forgot)
		sweep_files(s);
	return gone;
}

static int namer_name(void *ctx, uint32_t pid, uint64_t addr, bool kernel, struct frame_name *ret)
{
	const struct sym_frame *f;
	int err;

	if (!kernel && !pid)
		return -ENOENT; /* whose address space? the caller falls back to hex */
	err = symbolizer__resolve(ctx, pid, addr, kernel, &f);
	if (err)
		return err;
	*ret = (struct frame_name){
		.name = f->name,
		.module = f->module,
		.kernel = kernel,
		.build_id = f->build_id && f->build_id[0] ? f->build_id : NULL,
		.inlined = f->inlined,
		.nr_inlined = f->nr_inlined,
		.path = f->path && f->path[0] ? f->path : NULL,
		.map_start = f->map_start,
		.map_limit = f->map_limit,
		.map_offset = f->map_offset,
		.src_file = f->src_file,
		.src_line = f->src_line,
	};
	return 0;
}

const struct frame_namer *symbolizer__namer(struct symbolizer *s)
{
	s->namer = (struct frame_namer){namer_name, s};
	return &s->namer;
}

bool symbolizer__kernel_pending(const struct symbolizer *s)
{
	return s->ksyms_job && !atomic_load(&s->ksyms_job->done);
}

/* While kallsyms is read in the background: a placeholder, cached nowhere. */
static int namer_name_nowait(void *ctx, uint32_t pid, uint64_t addr, bool kernel,
			     struct frame_name *ret)
{
	struct symbolizer *s = ctx;

	if (kernel && symbolizer__kernel_pending(s)) {
		*ret = (struct frame_name){
			.name = SYM_KERNEL_LOADING, .module = "[kernel]", .kernel = true};
		return 0;
	}
	return namer_name(ctx, pid, addr, kernel, ret);
}

const struct frame_namer *symbolizer__namer_nowait(struct symbolizer *s)
{
	s->namer_nowait = (struct frame_namer){namer_name_nowait, s};
	return &s->namer_nowait;
}
