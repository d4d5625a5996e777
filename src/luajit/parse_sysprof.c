/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * luajit-parse-sysprof: reads a sysprof stream (symtab "ljs" v3 + events
 * "ljp" v2, as written by libthreadtop-sysprof or Tarantool's LuaJIT) and
 * prints folded stacks for flamegraph.pl: "root;...;leaf count" per line.
 *
 * Lua frames are spliced into the host stack at lua_pcall/lua_call/
 * lua_cpcall/lua_resume; a Lua-called C function ends a Lua segment and the
 * next segment starts at the next entry, so Lua-C-Lua-C stacks are stitched.
 * VM-internal host frames of a stripped libluajit ("[object]") are dropped
 * once Lua frames were spliced. JIT-compiled samples show as "TRACE [n]
 * chunk:line" on their stacks. --states prints the VM-state split instead.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lj_stitch.h"
#include "parse_sysprof.h"

#define MAX_FRAMES 1024
#define MAX_FILE (1ull << 32)

enum { VM_TRACE = 9, EV_LFUNC = 10, EV_CFUNC = 11, EV_TRACE = 12, EV_END = 0x80 };

static const char *const vmst_names[] = {"INTERP", "LFUNC",  "FFUNC", "CFUNC", "GC",
					 "EXIT",   "RECORD", "OPT",   "ASM",   "TRACE"};

struct csym {
	uint64_t addr;
	char *name;
	/* 0: an ELF symbol or object marker; else announced in the event stream
	 * (a builtin or a Lua name), 1 + the order of the announcements */
	unsigned from_event;
};

struct lfunc {
	uint64_t id;
	char *chunk;
};

struct trace {
	uint64_t no, addr, line;
};

struct reader {
	const uint8_t *p, *end;
	int bad;
};

struct frame {
	char *name;
	int entry, internal, lua, cfunc, trace;
	int marker; /* 1 + the state this leaf marks (libthreadtop-sysprof), 0 if none */
};

struct stacks {
	char **keys;
	uint64_t *counts;
	size_t cap, len;
};

static struct csym *csyms;
static size_t ncsyms, capcsyms;
static int csyms_dirty;
static unsigned nannounced;
/* A parse reads the stream twice: first only for the names announced in
 * its events, then for the rest. A sample is then named with what the
 * whole stream says, also one taken before its function's name came (the
 * library names a Lua function when a caller first gives it a name). */
static int names_pass;
static struct lfunc *lfuncs;
static size_t nlfuncs, caplfuncs;
static struct trace *traces;
static size_t ntraces, captraces;
static uint64_t state_counts[10];
static int fidelity;
static int raw; /* --raw: host | guest, unmerged */

static void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);

	if (!q) {
		fprintf(stderr, "luajit-parse-sysprof: out of memory\n");
		exit(1);
	}
	return q;
}

static char *xstrndup(const char *s, size_t n)
{
	char *d = xrealloc(NULL, n + 1);

	memcpy(d, s, n);
	d[n] = '\0';
	return d;
}

/* --- reading -------------------------------------------------------------- */

static uint8_t rd_byte(struct reader *r)
{
	if (r->p >= r->end) {
		r->bad = 1;
		return EV_END;
	}
	return *r->p++;
}

static uint64_t rd_uleb(struct reader *r)
{
	uint64_t v = 0;
	int shift = 0;
	uint8_t b;

	do {
		b = rd_byte(r);
		if (r->bad)
			return 0;
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
	} while (b & 0x80);
	return v;
}

static char *rd_str(struct reader *r)
{
	uint64_t len = rd_uleb(r);
	char *s;

	if (r->bad || len > (uint64_t)(r->end - r->p)) {
		r->bad = 1;
		return NULL;
	}
	s = xstrndup((const char *)r->p, (size_t)len);
	r->p += len;
	return s;
}

/* --- symbols --------------------------------------------------------------- */

static void add_csym(uint64_t addr, char *name, int from_event)
{
	if (ncsyms == capcsyms) {
		capcsyms = capcsyms ? capcsyms * 2 : 4096;
		csyms = xrealloc(csyms, capcsyms * sizeof(*csyms));
	}
	/* The session's description is not a symbol: an address below every
	 * object (JIT code) must not be named after it. */
	if (addr == 1 && !strncmp(name, "[threadtop-sysprof fidelity=", 28)) {
		fidelity = atoi(name + 28);
		free(name);
		return;
	}
	if (names_pass != !!from_event) { /* the other pass keeps it */
		free(name);
		return;
	}
	csyms[ncsyms++] = (struct csym){addr, name, from_event ? ++nannounced : 0};
	csyms_dirty = 1;
}

static int csym_cmp(const void *a, const void *b)
{
	const struct csym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* Announced names sort last, the latest last: it wins. */
	return x->from_event < y->from_event ? -1 : x->from_event > y->from_event;
}

/* Largest symbol at or below addr (an announced name wins a tie), or NULL. */
static struct csym *csym_floor(uint64_t addr)
{
	size_t lo = 0, hi = ncsyms;

	if (csyms_dirty) {
		qsort(csyms, ncsyms, sizeof(*csyms), csym_cmp);
		csyms_dirty = 0;
	}
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (csyms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? &csyms[lo - 1] : NULL;
}

static struct lfunc *lfunc_find(uint64_t id)
{
	size_t i;

	for (i = nlfuncs; i-- > 0;)
		if (lfuncs[i].id == id)
			return &lfuncs[i];
	return NULL;
}

static int parse_sym_lfunc(struct reader *r)
{
	uint64_t id = rd_uleb(r);
	char *chunk = rd_str(r);

	rd_uleb(r); /* first line: frames carry their own */
	if (r->bad || names_pass) {
		free(chunk);
		return r->bad ? -1 : 0;
	}
	if (nlfuncs == caplfuncs) {
		caplfuncs = caplfuncs ? caplfuncs * 2 : 1024;
		lfuncs = xrealloc(lfuncs, caplfuncs * sizeof(*lfuncs));
	}
	lfuncs[nlfuncs++] = (struct lfunc){id, chunk};
	return 0;
}

static int parse_sym_cfunc(struct reader *r, int from_event)
{
	uint64_t addr = rd_uleb(r);
	char *name = rd_str(r);

	if (r->bad)
		return -1;
	add_csym(addr, name, from_event);
	return 0;
}

static int parse_sym_trace(struct reader *r)
{
	struct trace t;

	t.no = rd_uleb(r);
	t.addr = rd_uleb(r);
	t.line = rd_uleb(r);
	if (r->bad)
		return -1;
	if (names_pass)
		return 0;
	if (ntraces == captraces) {
		captraces = captraces ? captraces * 2 : 256;
		traces = xrealloc(traces, captraces * sizeof(*traces));
	}
	traces[ntraces++] = t;
	return 0;
}

static int parse_symtab(struct reader *r, const char **why)
{
	if (r->end - r->p < 7 || memcmp(r->p, "ljs", 3) != 0) {
		*why = "bad symtab prologue";
		return -1;
	}
	if (r->p[3] != 3) {
		*why = "symtab version mismatch (expected 3)";
		return -1;
	}
	r->p += 7;
	for (;;) {
		uint8_t h = rd_byte(r);
		int rc = 0;

		if (r->bad)
			break;
		if (h & 0x80)
			return 0;
		switch (h & 3) {
		case 0:
			rc = parse_sym_lfunc(r);
			break;
		case 1:
			rc = parse_sym_cfunc(r, 0);
			break;
		case 2:
			rc = parse_sym_trace(r);
			break;
		default:
			rc = -1;
		}
		if (rc < 0)
			break;
	}
	*why = "truncated symtab";
	return -1;
}

/* --- naming ---------------------------------------------------------------- */

static void sanitize(char *s)
{
	for (; *s; s++)
		if (*s == ';' || *s == '\n' || *s == '\r' || *s == '\t')
			*s = '_';
}

static char *fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));
static char *fmt(const char *f, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, f);
	n = vsnprintf(NULL, 0, f, ap);
	va_end(ap);
	s = xrealloc(NULL, (size_t)n + 1);
	va_start(ap, f);
	vsnprintf(s, (size_t)n + 1, f, ap);
	va_end(ap);
	sanitize(s);
	return s;
}

/* Chunk names: "@file" -> "@file", "=name" -> "=name", code -> [string "..."]. */
static char *chunk_name(const char *chunk)
{
	char buf[48];
	size_t i;

	if (chunk[0] == '@' || chunk[0] == '=' || !strncmp(chunk, "TRACE [", 7))
		return fmt("%s", chunk);
	for (i = 0; chunk[i] && chunk[i] != '\n' && i < 40; i++)
		buf[i] = chunk[i];
	buf[i] = '\0';
	return fmt("[string \"%s%s\"]", buf, chunk[i] ? "..." : "");
}

/* The state a marker chunk stands for ("[gc]" ...), or -1. */
static int marker_state(const char *chunk)
{
	static const char *const m[] = {"[interp]", NULL,	NULL,	 NULL,	 "[gc]",
					"[exit]",   "[record]", "[opt]", "[asm]"};
	size_t i;

	for (i = 0; i < sizeof(m) / sizeof(m[0]); i++)
		if (m[i] && !strcmp(chunk, m[i]))
			return (int)i;
	return -1;
}

static void name_lua(struct frame *f, uint64_t id, uint64_t line)
{
	struct lfunc *lf = lfunc_find(id);
	struct csym *nm;
	char *chunk;

	memset(f, 0, sizeof(*f));
	f->lua = 1;
	if (!lf) {
		f->name = fmt("LFUNC %#llx:%llu", (unsigned long long)id, (unsigned long long)line);
		return;
	}
	f->marker = marker_state(lf->chunk) + 1;
	if (f->marker) { /* a state marker leaf, not a function */
		f->name = fmt("%s", lf->chunk);
		return;
	}
	chunk = chunk_name(lf->chunk);
	if (!strncmp(lf->chunk, "TRACE [", 7)) {
		f->trace = 1;
		f->name = fmt("%s:%llu", chunk, (unsigned long long)line);
	} else {
		nm = csym_floor(id);
		if (nm && nm->addr == id && nm->from_event)
			f->name = fmt("%s %s:%llu", nm->name, chunk, (unsigned long long)line);
		else
			f->name = fmt("%s:%llu", chunk, (unsigned long long)line);
	}
	free(chunk);
}

static int is_entry(const char *n)
{
	return !strcmp(n, "lua_pcall") || !strcmp(n, "lua_call") || !strcmp(n, "lua_cpcall") ||
	       !strcmp(n, "lua_resume") || !strcmp(n, "lua_callk") || !strcmp(n, "lua_pcallk");
}

/* Host addresses resolve against the ELF symbols and object markers only:
 * names announced in the stream (builtins, Lua names) have no extent. */
static struct csym *csym_floor_elf(uint64_t addr)
{
	struct csym *s = csym_floor(addr);
	size_t i;

	if (!s)
		return NULL;
	for (i = (size_t)(s - csyms) + 1; i-- > 0;)
		if (!csyms[i].from_event)
			return &csyms[i];
	return NULL;
}

/* Marker of the object holding the VM (the one lua_pcall is in): its
 * unnamed frames are dropped once Lua frames were spliced in. */
static const char *vm_marker;

static void find_vm_marker(const struct csym *entry)
{
	size_t i;

	for (i = (size_t)(entry - csyms) + 1; i-- > 0;)
		if (!csyms[i].from_event && csyms[i].name[0] == '[' &&
		    strcmp(csyms[i].name, "[anon]") != 0) {
			vm_marker = csyms[i].name;
			return;
		}
}

static void name_host(struct frame *f, uint64_t addr, int exact)
{
	struct csym *s = csym_floor_elf(exact ? addr : addr - 1);

	memset(f, 0, sizeof(*f));
	if (!s || addr == 0) {
		f->name = fmt("[unknown]");
		f->internal = 1;
		return;
	}
	f->name = fmt("%s", s->name);
	f->internal = s->name[0] == '[';
	f->entry = is_entry(s->name);
	if (f->entry && !vm_marker)
		find_vm_marker(s);
}

/* VM-internal frames, JIT code and unresolved addresses add nothing
 * below Lua frames; frames of other objects ([libc.so.6]) stay. */
static int vm_internal(const struct frame *h)
{
	return h->internal && (!strcmp(h->name, "[anon]") || !strcmp(h->name, "[unknown]") ||
			       (vm_marker && !strcmp(h->name, vm_marker)));
}

/* Does an ELF symbol (not a name announced by the profiler) start at addr? */
static int has_elf_symbol(uint64_t addr)
{
	struct csym *s = csym_floor(addr);
	size_t i;

	if (!s)
		return 0;
	for (i = (size_t)(s - csyms) + 1; i-- > 0 && csyms[i].addr == addr;)
		if (!csyms[i].from_event && csyms[i].name[0] != '[')
			return 1;
	return 0;
}

/* A C function on the Lua stack. One with an ELF symbol has its own host
 * frame, where the next Lua segment is stitched; builtins of a stripped
 * VM (named by the profiler) are shown inline with the Lua frames. */
static void name_cfunc(struct frame *f, uint64_t addr)
{
	struct csym *s = csym_floor(addr);

	memset(f, 0, sizeof(*f));
	f->cfunc = 1;
	f->lua = !has_elf_symbol(addr);
	if (s && s->addr == addr)
		f->name = fmt("%s", s->name);
	else if (s && s->name[0] == '[')
		f->name = fmt("%s", s->name);
	else
		f->name = fmt("CFUNC %#llx", (unsigned long long)addr);
}

/* --- stacks ---------------------------------------------------------------- */

static struct stacks out;

static uint64_t str_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 1099511628211ull;
	return h;
}

static void stack_add(char *key)
{
	size_t j;

	if ((out.len + 1) * 2 > out.cap) {
		size_t cap = out.cap ? out.cap * 2 : 1024, i;
		char **keys = calloc(cap, sizeof(*keys));
		uint64_t *counts = calloc(cap, sizeof(*counts));

		if (!keys || !counts) {
			fprintf(stderr, "luajit-parse-sysprof: out of memory\n");
			exit(1);
		}
		for (i = 0; i < out.cap; i++) {
			if (!out.keys[i])
				continue;
			for (j = str_hash(out.keys[i]) & (cap - 1); keys[j];
			     j = (j + 1) & (cap - 1))
				;
			keys[j] = out.keys[i];
			counts[j] = out.counts[i];
		}
		free(out.keys);
		free(out.counts);
		out.keys = keys;
		out.counts = counts;
		out.cap = cap;
	}
	for (j = str_hash(key) & (out.cap - 1); out.keys[j]; j = (j + 1) & (out.cap - 1)) {
		if (!strcmp(out.keys[j], key)) {
			out.counts[j]++;
			free(key);
			return;
		}
	}
	out.keys[j] = key;
	out.counts[j] = 1;
	out.len++;
}

struct buf {
	char *s;
	size_t len, cap;
	const char *last;
};

static void emit(struct buf *b, const char *name)
{
	size_t n = strlen(name);

	if (b->last && name[0] == '[' && !strcmp(b->last, name))
		return; /* collapse runs of the same unresolved object */
	if (b->len + n + 2 > b->cap) {
		b->cap = (b->len + n + 2) * 2;
		b->s = xrealloc(b->s, b->cap);
	}
	if (b->len)
		b->s[b->len++] = ';';
	memcpy(b->s + b->len, name, n);
	b->len += n;
	b->s[b->len] = '\0';
	b->last = name;
}

/*
 * host[] and guest[] are root first; the same stitching as threadtop's live
 * view (src/model/lj_stitch.c): Lua frames above the first VM entry, a
 * C function called from Lua continues at its own host frame or at the next
 * VM entry, the VM's own frames dropped once Lua frames were spliced.
 */
static char *merge(struct frame *host, int nh, struct frame *guest, int ng)
{
	static struct lj_stitch_frame hs[MAX_FRAMES], gs[MAX_FRAMES];
	static uint32_t refs[2 * MAX_FRAMES];
	struct buf b = {0};
	size_t n, i;

	for (i = 0; i < (size_t)nh; i++) {
		unsigned fl = lj_stitch_host_flags(host[i].name, NULL, NULL);

		if (vm_internal(&host[i]))
			fl |= LJ_SF_VM;
		hs[i] = (struct lj_stitch_frame){host[i].name, fl};
	}
	for (i = 0; i < (size_t)ng; i++)
		gs[i] = (struct lj_stitch_frame){guest[i].name, guest[i].cfunc ? LJ_SF_CFUNC : 0};
	n = lj_stitch(hs, (size_t)nh, gs, (size_t)ng, refs, sizeof(refs) / sizeof(refs[0]));
	for (i = 0; i < n; i++) {
		uint32_t r = refs[i];

		emit(&b, r & LJ_STITCH_GUEST ? guest[r & ~LJ_STITCH_GUEST].name : host[r].name);
	}
	if (!b.s)
		return fmt("[empty]");
	return b.s;
}

static void free_frames(struct frame *f, int n)
{
	int i;

	for (i = 0; i < n; i++)
		free(f[i].name);
}

static struct frame host[MAX_FRAMES], guest[MAX_FRAMES];

static int parse_sample(struct reader *r, uint8_t vmst)
{
	int nh = 0, ng = 0, i, st = vmst;
	struct frame tmp;

	if (vmst == VM_TRACE) {
		struct trace *t = NULL;
		uint64_t no = rd_uleb(r), addr = rd_uleb(r), line = rd_uleb(r);
		size_t k;
		char *chunk = NULL;
		struct lfunc *lf = lfunc_find(addr);

		if (r->bad)
			return -1;
		for (k = ntraces; k-- > 0;)
			if (traces[k].no == no) {
				t = &traces[k];
				break;
			}
		(void)t;
		chunk = lf ? chunk_name(lf->chunk) : fmt("?");
		guest[0] =
			(struct frame){.name = fmt("TRACE [%llu] %s:%llu", (unsigned long long)no,
						   chunk, (unsigned long long)line),
				       .lua = 1,
				       .trace = 1};
		free(chunk);
		ng = 1;
	} else if (vmst == 1 || vmst == 2 || vmst == 3) {
		for (;;) {
			uint8_t t = rd_byte(r);

			if (r->bad)
				goto bad;
			if (t == EV_END)
				break;
			if (ng >= MAX_FRAMES)
				goto bad;
			if (t == 1) {
				uint64_t id = rd_uleb(r), line = rd_uleb(r);

				name_lua(&guest[ng++], id, line);
			} else if (t == 2) {
				name_cfunc(&guest[ng++], rd_uleb(r));
			} else if (t == 3) {
				guest[ng++] = (struct frame){
					.name = fmt("FFUNC #%llu", (unsigned long long)rd_uleb(r)),
					.lua = 1};
			} else {
				goto bad;
			}
		}
		if (ng && guest[0].trace)
			st = VM_TRACE;
		if (ng && guest[0].marker) { /* the marker says the state, and goes */
			st = guest[0].marker - 1;
			free(guest[0].name);
			memmove(guest, guest + 1, (size_t)(ng - 1) * sizeof(*guest));
			ng--;
		}
	}
	if (vmst != VM_TRACE) {
		for (;;) {
			uint64_t addr = rd_uleb(r);

			if (r->bad)
				goto bad;
			if (!addr)
				break;
			if (nh >= MAX_FRAMES)
				goto bad;
			name_host(&host[nh], addr, nh == 0);
			nh++;
		}
	}
	if (names_pass) {
		free_frames(host, nh);
		free_frames(guest, ng);
		return 0;
	}
	/* The stream is leaf first; merge wants root first. */
	for (i = 0; i < nh / 2; i++) {
		tmp = host[i];
		host[i] = host[nh - 1 - i];
		host[nh - 1 - i] = tmp;
	}
	for (i = 0; i < ng / 2; i++) {
		tmp = guest[i];
		guest[i] = guest[ng - 1 - i];
		guest[ng - 1 - i] = tmp;
	}
	state_counts[st]++;
	if (raw) {
		struct buf b = {0};

		for (i = 0; i < nh; i++)
			emit(&b, host[i].name);
		emit(&b, "|");
		for (i = 0; i < ng; i++)
			emit(&b, guest[i].name);
		stack_add(b.s ? b.s : fmt("[empty]"));
	} else {
		stack_add(merge(host, nh, guest, ng));
	}
	free_frames(host, nh);
	free_frames(guest, ng);
	return 0;
bad:
	free_frames(host, nh);
	free_frames(guest, ng);
	return -1;
}

static int parse_events(struct reader *r, const char **why)
{
	if (r->end - r->p < 7 || memcmp(r->p, "ljp", 3) != 0) {
		*why = "bad event stream prologue";
		return -1;
	}
	if (r->p[3] != 2) {
		*why = "event stream version mismatch (expected 2)";
		return -1;
	}
	r->p += 7;
	for (;;) {
		uint8_t h = rd_byte(r);
		int rc;

		if (r->bad) {
			*why = "truncated stream (no end marker)";
			return -1;
		}
		if (h == EV_END)
			return 0;
		if (h == EV_LFUNC)
			rc = parse_sym_lfunc(r);
		else if (h == EV_CFUNC)
			rc = parse_sym_cfunc(r, 1);
		else if (h == EV_TRACE)
			rc = parse_sym_trace(r);
		else if (h <= VM_TRACE)
			rc = parse_sample(r, h);
		else {
			*why = "unknown event";
			return -1;
		}
		if (rc < 0) {
			*why = r->bad ? "truncated stream" : "malformed sample";
			return -1;
		}
	}
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Frees everything a parse left behind and resets the state for the next. */
static void cleanup(void)
{
	size_t i;

	for (i = 0; i < out.cap; i++)
		free(out.keys[i]);
	free(out.keys);
	free(out.counts);
	memset(&out, 0, sizeof(out));
	for (i = 0; i < ncsyms; i++)
		free(csyms[i].name);
	free(csyms);
	csyms = NULL;
	ncsyms = capcsyms = 0;
	csyms_dirty = 0;
	nannounced = 0;
	names_pass = 0;
	for (i = 0; i < nlfuncs; i++)
		free(lfuncs[i].chunk);
	free(lfuncs);
	lfuncs = NULL;
	nlfuncs = caplfuncs = 0;
	free(traces);
	traces = NULL;
	ntraces = captraces = 0;
	memset(state_counts, 0, sizeof(state_counts));
	fidelity = 0;
	vm_marker = NULL;
}

int tt_sysprof_parse(const uint8_t *data, size_t len, int states, FILE *f, const char **ret_why,
		     size_t *ret_offset)
{
	struct reader r = {data, data + len, 0};
	const char *why = "";
	size_t j, n;
	char **keys;
	int i;

	/* The names first; this pass's errors are the next one's, reported there. */
	names_pass = 1;
	if (parse_symtab(&r, &why) == 0)
		parse_events(&r, &why);
	names_pass = 0;
	vm_marker = NULL;
	r = (struct reader){data, data + len, 0};
	if (parse_symtab(&r, &why) < 0) {
		*ret_why = why;
		*ret_offset = (size_t)(r.p - data);
		cleanup();
		return 1;
	}
	if (parse_events(&r, &why) < 0) {
		*ret_why = why;
		*ret_offset = (size_t)(r.p - data);
		cleanup();
		return 2;
	}
	if (states) {
		uint64_t total = 0;

		for (i = 0; i < 10; i++) {
			fprintf(f, "%s %llu\n", vmst_names[i], (unsigned long long)state_counts[i]);
			total += state_counts[i];
		}
		fprintf(f, "samples %llu\nfidelity %d\n", (unsigned long long)total, fidelity);
		cleanup();
		return 0;
	}
	keys = xrealloc(NULL, (out.len + 1) * sizeof(*keys));
	for (j = 0, n = 0; j < out.cap; j++)
		if (out.keys[j])
			keys[n++] = out.keys[j];
	qsort(keys, n, sizeof(*keys), cmp_str);
	for (j = 0; j < n; j++) {
		size_t k;

		for (k = str_hash(keys[j]) & (out.cap - 1); out.keys[k] != keys[j];
		     k = (k + 1) & (out.cap - 1))
			;
		fprintf(f, "%s %llu\n", keys[j], (unsigned long long)out.counts[k]);
	}
	free(keys);
	cleanup();
	return 0;
}

#ifndef TT_SYSPROF_PARSE_NO_MAIN
static void usage(FILE *f)
{
	fprintf(f, "usage: luajit-parse-sysprof [--states|--raw] FILE\n"
		   "Prints folded stacks (flamegraph.pl input) of a sysprof stream; with\n"
		   "--states the number of samples per VM state; with --raw the host and\n"
		   "guest stacks of each sample unmerged (host | guest, root first).\n");
}

static uint8_t *read_file(const char *path, size_t *ret_len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *data = NULL;
	size_t len = 0, cap = 0, n;

	if (!f)
		return NULL;
	for (;;) {
		if (len == cap) {
			if (cap >= MAX_FILE) {
				errno = EFBIG;
				break;
			}
			cap = cap ? cap * 2 : 1 << 20;
			data = xrealloc(data, cap);
		}
		n = fread(data + len, 1, cap - len, f);
		len += n;
		if (n == 0)
			break;
	}
	if (ferror(f) || len >= MAX_FILE) {
		int err = ferror(f) ? EIO : EFBIG;

		fclose(f);
		free(data);
		errno = err;
		return NULL;
	}
	fclose(f);
	*ret_len = len;
	return data ? data : xrealloc(NULL, 1);
}

int main(int argc, char **argv)
{
	const char *path = NULL, *why = "";
	int states = 0, i, rc;
	uint8_t *data;
	size_t len = 0, off = 0;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--states") || !strcmp(argv[i], "-s")) {
			states = 1;
		} else if (!strcmp(argv[i], "--raw")) {
			raw = 1;
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			fprintf(stderr, "luajit-parse-sysprof: unrecognized option %s\n", argv[i]);
			usage(stderr);
			return 2;
		} else if (!path) {
			path = argv[i];
		} else {
			usage(stderr);
			return 2;
		}
	}
	if (!path) {
		usage(stderr);
		return 2;
	}
	data = read_file(path, &len);
	if (!data) {
		fprintf(stderr, "Failed to open %s: %s\n", path, strerror(errno));
		return 1;
	}
	rc = tt_sysprof_parse(data, len, states, stdout, &why, &off);
	free(data);
	if (rc == 1)
		fprintf(stderr, "Failed to parse symtab from %s: %s\n", path, why);
	else if (rc == 2)
		fprintf(stderr, "Failed to parse profile data from %s: %s at offset %zu\n", path,
			why, off);
	return rc ? 1 : 0;
}
#endif
