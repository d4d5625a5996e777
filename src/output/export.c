// SPDX-License-Identifier: GPL-2.0-only
/*
 * The export dispatcher (see export.h): picks the format, builds the
 * profile once, and writes each file through safe_file, one per kind of
 * samples for the one-profile formats (folded, SVG).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "export_internal.h"
#include "escape.h"
#include "safe_file.h"
#include "user_file.h"
#include "util.h"

static const struct {
	const char *name;
	const char *ext; /* the default extension; others in export_format_of_path */
	int (*write)(const struct export_ctx *x, FILE *f);
	bool per_kind; /* one profile per file */
} formats[EXPORT_FORMAT_MAX] = {
	[EXPORT_AUTO] = {"auto", "", NULL, false},
	[EXPORT_FOLDED] = {"folded", ".folded", export_folded, true},
	[EXPORT_PPROF] = {"pprof", ".pb.gz", export_pprof, false},
	[EXPORT_SPEEDSCOPE] = {"speedscope", ".speedscope.json", export_speedscope, false},
	[EXPORT_JSON] = {"json", ".json", export_json, false},
	[EXPORT_SVG] = {"svg", ".svg", export_svg, true},
};

const char *export_format_name(enum export_format f)
{
	return f < EXPORT_FORMAT_MAX ? formats[f].name : "unknown";
}

int export_format_parse(const char *name, enum export_format *ret)
{
	for (int f = EXPORT_FOLDED; f < EXPORT_FORMAT_MAX; f++) {
		if (!strcmp(name, formats[f].name)) {
			*ret = (enum export_format)f;
			return 0;
		}
	}
	return -EINVAL;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n >= k && !strcasecmp(s + n - k, suffix);
}

enum export_format export_format_of_path(const char *path)
{
	/* Longest suffixes first: ".speedscope.json" before ".json". */
	if (ends_with(path, ".speedscope.json"))
		return EXPORT_SPEEDSCOPE;
	if (ends_with(path, ".json"))
		return EXPORT_JSON;
	if (ends_with(path, ".pb.gz") || ends_with(path, ".pprof") || ends_with(path, ".pb"))
		return EXPORT_PPROF;
	if (ends_with(path, ".folded") || ends_with(path, ".collapsed") || ends_with(path, ".txt"))
		return EXPORT_FOLDED;
	if (ends_with(path, ".svg"))
		return EXPORT_SVG;
	return EXPORT_AUTO;
}

void export_result__release(struct export_result *r)
{
	for (size_t i = 0; i < r->nr; i++)
		free(r->paths[i]);
	r->nr = 0;
}

void export_plain_name(const char *name, char *out, size_t cap)
{
	escape_for_terminal(name, strlen(name), out, cap);
	for (char *p = out; *p; p++)
		if (*p == ';')
			*p = ':';
}

/*
 * The root frame of --export-by label:NAME: "NAME=value", "[no NAME]" for a
 * sample without that label, "[labels unknown]" for samples that carry no
 * labels (LuaJIT samples, CPU stacks of recordings made before they did).
 */
static void put_label_root(const struct export_ctx *x, const struct profile_sample *s,
			   void (*put)(const char *name, unsigned flags, void *arg), void *arg)
{
	const char *names[TT_LABEL_SLOTS], *values[TT_LABEL_SLOTS];
	const char *want = x->o->by_label ? x->o->by_label : "";
	char buf[TT_COMM_LEN + TT_LABEL_VALUE_LEN + 24];

	if (s->labels_unknown) {
		put("[labels unknown]", PROFILE_FRAME_SYNTH, arg);
		return;
	}
	snprintf(buf, sizeof(buf), "[no %s]", want);
	if (s->labels_id && model__labels(x->m, s->labels_id, names, values) > 0) {
		for (unsigned i = 0; i < TT_LABEL_SLOTS; i++)
			if (names[i] && values[i] && !strcmp(names[i], want))
				snprintf(buf, sizeof(buf), "%s=%s", want, values[i]);
	}
	put(buf, PROFILE_FRAME_SYNTH, arg);
}

void export_walk_frames(const struct export_ctx *x, const struct profile_sample *s,
			void (*put)(const char *name, unsigned flags, void *arg), void *arg)
{
	char buf[64];

	if (x->o->by == EXPORT_BY_LABEL)
		put_label_root(x, s, put, arg);
	put(s->pcomm && *s->pcomm ? s->pcomm : "[unknown]", PROFILE_FRAME_SYNTH, arg);
	if (x->o->by == EXPORT_BY_TID) {
		snprintf(buf, sizeof(buf), "%s [%u]", s->comm ? s->comm : "?", s->tid);
		put(buf, PROFILE_FRAME_SYNTH, arg);
	} else if (x->o->by == EXPORT_BY_STATE && s->state < TT_ST_UNKNOWN) {
		snprintf(buf, sizeof(buf), "state %c", TT_STATE_LETTERS[s->state]);
		put(buf, PROFILE_FRAME_SYNTH, arg);
	}
	for (uint32_t i = 0; i < s->nr_frames; i++) {
		const struct profile_frame *fr = &x->p->frames[s->frames[i]];

		put(fr->name, fr->flags, arg);
	}
}

/* path with ".KIND" before its extension: "out.folded" -> "out.offcpu.folded". */
static char *sibling_path(const char *path, enum export_format fmt, enum profile_kind kind)
{
	const char *ext = formats[fmt].ext;
	size_t n = strlen(path), k = strlen(ext);
	char *out = xmalloc(n + 16);

	if (!ends_with(path, ext))
		k = 0;
	snprintf(out, n + 16, "%.*s.%s%s", (int)(n - k), path, profile_kind_name(kind),
		 path + n - k);
	return out;
}

static int resolve_format(const char *path, const struct export_opts *o, enum export_format *ret,
			  char *err, size_t errlen)
{
	enum export_format f = o->format ? o->format : export_format_of_path(path);

	if (f == EXPORT_AUTO || f >= EXPORT_FORMAT_MAX) {
		snprintf(err, errlen,
			 "export %s: cannot tell the format from the name: use an extension "
			 "(.folded .pb.gz .speedscope.json .json .svg) or --export-format",
			 path);
		return -EINVAL;
	}
	*ret = f;
	return 0;
}

static void explain(int e, const char *path, char *err, size_t errlen)
{
	if (e == -EEXIST)
		snprintf(err, errlen, "export %s: the file exists; use --force to replace it",
			 path);
	else if (e == -ENOSPC || e == -EDQUOT || e == -EFBIG)
		snprintf(err, errlen,
			 "export %s: %s: nothing was written; free space or choose another place",
			 path, strerror(-e));
	else
		snprintf(err, errlen, "export %s: %s", path, user_file_reason(e, USER_FILE_CREATE));
}

int export__check(const char *path, const struct export_opts *o, char *err, size_t errlen)
{
	enum export_format f;
	int e = resolve_format(path, o, &f, err, errlen);

	if (e)
		return e;
	e = safe_file_check(path, o->force);
	if (e)
		explain(e, path, err, errlen);
	return e;
}

static int write_one(const struct export_ctx *x, enum export_format fmt, const char *path,
		     size_t *ret_size, char *err, size_t errlen)
{
	struct safe_file *sf = safe_file__open(path, x->o->force);
	int e;

	if (!sf) {
		explain(-errno, path, err, errlen);
		return -errno;
	}
	e = formats[fmt].write(x, safe_file__stream(sf));
	if (e) {
		safe_file__abort(sf);
		explain(e, path, err, errlen);
		return e;
	}
	e = safe_file__commit(sf, ret_size);
	if (e)
		explain(e, path, err, errlen);
	return e;
}

/* The host name exports name: gethostname's, "localhost" when it fails. */
static const char *host_name(const struct export_opts *o, char *buf, size_t len)
{
	if (o->host)
		return o->host;
	if (gethostname(buf, len) < 0)
		snprintf(buf, len, "localhost");
	buf[len - 1] = '\0';
	return buf;
}

int export__write_stream(struct model *m, const struct profile *p, int kind, enum export_format fmt,
			 const struct export_opts *o, FILE *f)
{
	struct profile_opts po = {o->window, o->filter, o->namer, o->cpu_hz};
	struct export_ctx x = {.m = m, .o = o, .kind = (enum profile_kind)kind};
	struct utsname uts;
	char hostname[256];
	int e;

	if (fmt <= EXPORT_AUTO || fmt >= EXPORT_FORMAT_MAX || kind < 0 || kind >= PROFILE_KIND_MAX)
		return -EINVAL;
	x.host = host_name(o, hostname, sizeof(hostname));
	x.kernel = o->kernel ? o->kernel : uname(&uts) == 0 ? uts.release : "unknown";
	x.realtime_ns = o->realtime_ns ? o->realtime_ns : realtime_ns();
	x.p = p ? p : profile__build(m, &po);
	e = formats[fmt].write(&x, f);
	if (!p)
		profile__free((struct profile *)x.p);
	return e;
}

int export__write(struct model *m, const char *path, const struct export_opts *o,
		  struct export_result *ret, char *err, size_t errlen)
{
	struct profile_opts po = {o->window, o->filter, o->namer, o->cpu_hz};
	struct export_ctx x = {.m = m,
			       .o = o,
			       .host = o->host,
			       .kernel = o->kernel,
			       .realtime_ns = o->realtime_ns};
	struct utsname uts;
	enum profile_kind kinds[PROFILE_KIND_MAX];
	char hostname[256];
	enum export_format fmt;
	size_t nk = 0;
	int e;

	memset(ret, 0, sizeof(*ret));
	e = resolve_format(path, o, &fmt, err, errlen);
	if (e)
		return e;
	x.host = host_name(o, hostname, sizeof(hostname));
	if (!x.kernel)
		x.kernel = uname(&uts) == 0 ? uts.release : "unknown";
	if (!x.realtime_ns)
		x.realtime_ns = realtime_ns();
	x.p = profile__build(m, &po);
	x.kind = profile__main_kind(x.p);
	kinds[nk++] = x.kind;
	if (formats[fmt].per_kind) {
		for (int k = 0; k < PROFILE_KIND_MAX; k++)
			if (k != (int)x.kind && (x.p->kinds & (1u << k)))
				kinds[nk++] = (enum profile_kind)k;
	}
	/* Check every name first, so a refusal leaves nothing half done. */
	for (size_t i = 0; i < nk && !e; i++) {
		char *p = i ? sibling_path(path, fmt, kinds[i]) : xstrdup(path);

		e = safe_file_check(p, o->force);
		if (e)
			explain(e, p, err, errlen);
		free(p);
	}
	for (size_t i = 0; i < nk && !e; i++) {
		char *p = i ? sibling_path(path, fmt, kinds[i]) : xstrdup(path);

		x.kind = kinds[i];
		e = write_one(&x, fmt, p, &ret->sizes[ret->nr], err, errlen);
		if (e) {
			free(p);
			break;
		}
		ret->paths[ret->nr++] = p;
	}
	if (e) {
		/* All or nothing: remove the files of this export already placed
		 * (unless they replaced older ones: those are gone either way). */
		for (size_t i = 0; i < ret->nr && !o->force; i++)
			unlink(ret->paths[i]);
		export_result__release(ret);
	}
	profile__free((struct profile *)x.p);
	return e;
}
