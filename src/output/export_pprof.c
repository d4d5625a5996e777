// SPDX-License-Identifier: GPL-2.0-only
/*
 * pprof export (proto/profile.proto, gzipped): sample types per kind of
 * samples in the profile (thread samples and time, on-CPU samples and CPU
 * time, off-CPU switches and time, block I/O requests, time and bytes by
 * the stacks that made them), labels pid, tid, comm, process,
 * state and syscall on every sample (and container, the cgroup's name,
 * when known), one location and function per frame,
 * one mapping per module (kernel frames in "[kernel]"), leaf first. A frame
 * with functions inlined into it is one location with a line per function,
 * innermost first, as pprof models inlining. Read by
 * pprof, Pyroscope, Parca, Grafana and speedscope.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "export_internal.h"
#include "profile.pb-c.h"
#include "escape.h"
#include "hash.h"
#include "strtab.h"
#include "syscalls.h"
#include "u64map.h"
#include "util.h"

#define NR_LABELS (7 + TT_LABEL_SLOTS)

/*
 * The values each kind of samples adds, type and unit names: its count, its
 * time (the kind's default) and, for block I/O, bytes.
 */
#define MAX_VALUES 3
static const char *const value_names[PROFILE_KIND_MAX][MAX_VALUES][2] = {
	[PROFILE_THREADS] = {{"thread_samples", "count"}, {"thread_time", "nanoseconds"}},
	[PROFILE_ONCPU] = {{"samples", "count"}, {"cpu", "nanoseconds"}},
	[PROFILE_OFFCPU] = {{"offcpu_switches", "count"}, {"offcpu", "nanoseconds"}},
	[PROFILE_IO] = {{"io_requests", "count"},
			{"io_time", "nanoseconds"},
			{"io_bytes", "bytes"}},
};

struct pprof {
	struct strtab *strings;
	Tt__Pprof__Profile prof;
	Tt__Pprof__ValueType *types, period_type;
	Tt__Pprof__Sample *samples;
	Tt__Pprof__Label *labels;
	Tt__Pprof__Location *locations;
	Tt__Pprof__Location *inl_locations; /* frames with inlined functions, after the others */
	size_t nr_inl, cap_inl;
	struct u64map *inl_index; /* hash of a run of frames -> inl_locations index + 1, probed */
	Tt__Pprof__Line *lines;
	Tt__Pprof__Function *functions;
	Tt__Pprof__Mapping *mappings;
	size_t nr_mappings;
	int64_t *values, comment;
	uint64_t *location_ids;
	int value_of_kind[PROFILE_KIND_MAX]; /* index of the kind's first value, -1 = none */
};

/* Index of s in the string table; protobuf strings must be valid UTF-8. */
static int64_t str(struct pprof *pp, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t len = strlen(s), o = 0;
	char *clean;
	uint32_t id;

	if (!len)
		return 0;
	for (size_t i = 0; i < len;) {
		size_t n = utf8_valid_len(p + i, len - i);

		if (!n)
			break;
		i += n;
		if (i == len)
			return strtab__intern(pp->strings, s, len, NULL);
	}
	clean = xmalloc(len * 3 + 1);
	for (size_t i = 0; i < len;) {
		size_t n = utf8_valid_len(p + i, len - i);

		if (n) {
			memcpy(clean + o, p + i, n);
			o += n, i += n;
		} else {
			memcpy(clean + o, "\xef\xbf\xbd", 3); /* U+FFFD */
			o += 3, i++;
		}
	}
	id = strtab__intern(pp->strings, clean, o, NULL);
	free(clean);
	return id;
}

/*
 * The mapping of fr: its file's full path, address range, file offset and
 * build-id where the symbolizer knew them (a build-id + address symbolizer
 * such as Parca's or Pyroscope's places the address with these), else the
 * module name alone. One mapping per (file, start).
 */
static uint64_t mapping_of(struct pprof *pp, const struct profile_frame *fr)
{
	const char *name = fr->path			      ? fr->path
			   : fr->module			      ? fr->module
			   : fr->flags & PROFILE_FRAME_KERNEL ? "[kernel.kallsyms]"
							      : NULL;
	int64_t file;

	if (!name)
		return 0;
	file = str(pp, name);
	for (size_t i = 0; i < pp->nr_mappings; i++)
		if (pp->mappings[i].filename == file &&
		    pp->mappings[i].memory_start == fr->map_start)
			return pp->mappings[i].id;
	Tt__Pprof__Mapping *m = &pp->mappings[pp->nr_mappings++];

	tt__pprof__mapping__init(m);
	m->id = pp->nr_mappings;
	m->filename = file;
	m->memory_start = fr->map_start;
	m->memory_limit = fr->map_limit;
	m->file_offset = fr->map_offset;
	m->build_id = fr->build_id ? str(pp, fr->build_id) : 0;
	m->has_functions = true;
	return m->id;
}

/*
 * The main binary's mapping goes first (go tool pprof names a profile by
 * it): the mapping of the busiest "main" frame, else of the busiest
 * sample's outermost user frame.
 */
static void main_mapping_first(struct pprof *pp, const struct profile *p)
{
	uint64_t best_main = 0, best_root = 0;
	const struct profile_frame *main_fr = NULL, *root = NULL;

	for (size_t i = 0; i < p->nr_samples; i++) {
		const struct profile_sample *s = &p->samples[i];
		bool first = true;

		for (uint32_t k = 0; k < s->nr_frames; k++) {
			const struct profile_frame *fr = &p->frames[s->frames[k]];

			if (fr->flags & (PROFILE_FRAME_SYNTH | PROFILE_FRAME_INLINED |
					 PROFILE_FRAME_KERNEL | PROFILE_FRAME_LUA) ||
			    !fr->path)
				continue;
			if (first && s->ns > best_root) {
				best_root = s->ns;
				root = fr;
			}
			first = false;
			if (!strcmp(fr->name, "main") && s->ns > best_main) {
				best_main = s->ns;
				main_fr = fr;
			}
		}
	}
	if (main_fr || root)
		mapping_of(pp, main_fr ? main_fr : root);
}

static void build_frames(struct pprof *pp, const struct profile *p)
{
	pp->locations = xcalloc(p->nr_frames + 1, sizeof(*pp->locations));
	pp->lines = xcalloc(p->nr_frames + 1, sizeof(*pp->lines));
	pp->functions = xcalloc(p->nr_frames + 1, sizeof(*pp->functions));
	pp->mappings = xcalloc(p->nr_frames + 1, sizeof(*pp->mappings));
	main_mapping_first(pp, p);
	for (size_t i = 0; i < p->nr_frames; i++) {
		const struct profile_frame *fr = &p->frames[i];
		Tt__Pprof__Function *fn = &pp->functions[i];
		Tt__Pprof__Location *loc = &pp->locations[i];
		Tt__Pprof__Line *line = &pp->lines[i];

		tt__pprof__function__init(fn);
		fn->id = i + 1;
		fn->name = fn->system_name = str(pp, fr->name);
		fn->filename = fr->src_file ? str(pp, fr->src_file)
			       : fr->module ? str(pp, fr->module)
					    : 0;
		tt__pprof__line__init(line);
		line->function_id = fn->id;
		line->line = fr->src_line;
		tt__pprof__location__init(loc);
		loc->id = i + 1;
		loc->address = fr->addr;
		loc->mapping_id = mapping_of(pp, fr);
		loc->n_line = 1;
		loc->line = xmalloc(sizeof(*loc->line));
		loc->line[0] = line;
	}
}

/*
 * The location of frames[0..n) (root first): a frame and the functions
 * inlined into it. One frame is its own location; a longer run gets a
 * location of its own, its lines leaf first, made once per distinct run.
 */
static uint64_t run_location(struct pprof *pp, const struct profile *p, const uint32_t *frames,
			     uint32_t n)
{
	uint64_t h = HASH_INIT;
	Tt__Pprof__Location *loc;

	if (n == 1)
		return frames[0] + 1;
	for (uint32_t i = 0; i < n; i++)
		h = hash_word(h, frames[i]);
	for (;; h++) {
		size_t idx = (size_t)(uintptr_t)u64map__get(pp->inl_index, h);

		if (!idx)
			break;
		loc = &pp->inl_locations[idx - 1];
		if (loc->n_line == n) {
			uint32_t i = 0;

			while (i < n && loc->line[i]->function_id == frames[n - 1 - i] + 1)
				i++;
			if (i == n)
				return loc->id;
		}
	}
	xgrow((void **)&pp->inl_locations, &pp->cap_inl, pp->nr_inl + 1,
	      sizeof(*pp->inl_locations));
	loc = &pp->inl_locations[pp->nr_inl++];
	*loc = pp->locations[frames[0]]; /* the address and mapping of the real frame */
	loc->id = p->nr_frames + pp->nr_inl;
	loc->n_line = n;
	loc->line = xmalloc(n * sizeof(*loc->line));
	for (uint32_t i = 0; i < n; i++)
		loc->line[i] = &pp->lines[frames[n - 1 - i]];
	u64map__put(pp->inl_index, h, (void *)(uintptr_t)pp->nr_inl);
	return loc->id;
}

/* What each mapping's locations hold: inlined functions, file names, lines. */
static void mark_mappings(struct pprof *pp, const struct profile *p)
{
	for (size_t i = 0; i < pp->nr_inl; i++) {
		uint64_t id = pp->inl_locations[i].mapping_id;

		if (id)
			pp->mappings[id - 1].has_inline_frames = true;
	}
	for (size_t i = 0; i < p->nr_frames; i++) {
		uint64_t id = pp->locations[i].mapping_id;

		if (id && p->frames[i].src_line) {
			pp->mappings[id - 1].has_filenames = true;
			pp->mappings[id - 1].has_line_numbers = true;
		}
	}
}

static void label(struct pprof *pp, Tt__Pprof__Label *l, const char *key, const char *s,
		  int64_t num)
{
	tt__pprof__label__init(l);
	l->key = str(pp, key);
	if (s)
		l->str = str(pp, s);
	else
		l->num = num;
}

static void build_samples(struct pprof *pp, const struct model *m, const struct profile *p,
			  size_t nr_values)
{
	size_t nr_loc = 0, li = 0;

	for (size_t i = 0; i < p->nr_samples; i++)
		nr_loc += p->samples[i].nr_frames;
	pp->samples = xcalloc(p->nr_samples + 1, sizeof(*pp->samples));
	pp->labels = xcalloc(p->nr_samples * NR_LABELS + 1, sizeof(*pp->labels));
	pp->values = xcalloc(p->nr_samples * nr_values + 1, sizeof(*pp->values));
	pp->location_ids = xcalloc(nr_loc + 1, sizeof(*pp->location_ids));
	for (size_t i = 0; i < p->nr_samples; i++) {
		const struct profile_sample *s = &p->samples[i];
		Tt__Pprof__Sample *ps = &pp->samples[i];
		Tt__Pprof__Label *l = &pp->labels[i * NR_LABELS];
		int64_t *v = &pp->values[i * nr_values];
		size_t nl = 0;
		char name[32];

		tt__pprof__sample__init(ps);
		ps->location_id = &pp->location_ids[li];
		for (uint32_t k = s->nr_frames; k > 0;) { /* leaf first */
			uint32_t start = k - 1;		  /* the run's first frame: not inlined */

			while (start > 0 &&
			       p->frames[s->frames[start]].flags & PROFILE_FRAME_INLINED)
				start--;
			pp->location_ids[li++] = run_location(pp, p, &s->frames[start], k - start);
			k = start;
		}
		ps->n_location_id = (size_t)(&pp->location_ids[li] - ps->location_id);
		v[pp->value_of_kind[s->kind]] = (int64_t)s->count;
		v[pp->value_of_kind[s->kind] + 1] = (int64_t)s->ns;
		if (s->kind == PROFILE_IO)
			v[pp->value_of_kind[s->kind] + 2] = (int64_t)s->bytes;
		ps->value = v;
		ps->n_value = nr_values;
		label(pp, &l[nl++], "pid", NULL, s->pid);
		label(pp, &l[nl++], "tid", NULL, s->tid);
		label(pp, &l[nl++], "comm", s->comm ? s->comm : "", 0);
		label(pp, &l[nl++], "process", s->pcomm ? s->pcomm : "", 0);
		if (s->state < TT_ST_UNKNOWN) {
			char letter[2] = {TT_STATE_LETTERS[s->state], '\0'};

			label(pp, &l[nl++], "state", letter, 0);
		}
		if (s->syscall != TT_SYSCALL_NONE)
			label(pp, &l[nl++], "syscall",
			      syscall_label(s->syscall, name, sizeof(name)), 0);
		if (model__cgroup_name(m, s->cgroup_id)) /* a container, pod or unit */
			label(pp, &l[nl++], "container", model__cgroup_name(m, s->cgroup_id), 0);
		if (s->labels_id) {
			const char *names[TT_LABEL_SLOTS] = {0}, *values[TT_LABEL_SLOTS] = {0};

			model__labels(m, s->labels_id, names, values);
			for (int k = 0; k < TT_LABEL_SLOTS; k++)
				if (names[k] && values[k])
					label(pp, &l[nl++], names[k], values[k], 0);
		}
		ps->label = xmalloc(nl * sizeof(*ps->label));
		for (size_t k = 0; k < nl; k++)
			ps->label[k] = &l[k];
		ps->n_label = nl;
	}
}

/* Pointer arrays the generated code wants, over our flat arrays. */
#define POINTERS(arr, n)                                         \
	({                                                       \
		void **ptrs_ = xcalloc((n) + 1, sizeof(void *)); \
		for (size_t i_ = 0; i_ < (n); i_++)              \
			ptrs_[i_] = &(arr)[i_];                  \
		ptrs_;                                           \
	})

static int gzip_to(FILE *f, const uint8_t *data, size_t len)
{
	z_stream z = {0};
	uint8_t out[1 << 16];
	int zr;

	if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) !=
	    Z_OK)
		return -ENOMEM;
	z.next_in = (uint8_t *)data;
	z.avail_in = (uInt)len;
	do {
		z.next_out = out;
		z.avail_out = sizeof(out);
		zr = deflate(&z, Z_FINISH);
		if (zr == Z_STREAM_ERROR) {
			deflateEnd(&z);
			return -EIO;
		}
		fwrite(out, 1, sizeof(out) - z.avail_out, f);
	} while (zr != Z_STREAM_END);
	deflateEnd(&z);
	return 0;
}

int export_pprof(const struct export_ctx *x, FILE *f)
{
	const struct profile *p = x->p;
	struct pprof pp = {.strings = strtab__new(), .inl_index = u64map__new()};
	Tt__Pprof__Profile *prof = &pp.prof;
	size_t nr_values = 0, len;
	char comment[512];
	uint8_t *buf;
	int err;

	tt__pprof__profile__init(prof);
	pp.types = xcalloc(MAX_VALUES * PROFILE_KIND_MAX, sizeof(*pp.types));
	for (int k = 0; k < PROFILE_KIND_MAX; k++) {
		pp.value_of_kind[k] = -1;
		if (!(p->kinds & (1u << k)))
			continue;
		pp.value_of_kind[k] = (int)nr_values;
		for (int v = 0; v < MAX_VALUES && value_names[k][v][0]; v++) {
			tt__pprof__value_type__init(&pp.types[nr_values]);
			pp.types[nr_values].type = str(&pp, value_names[k][v][0]);
			pp.types[nr_values].unit = str(&pp, value_names[k][v][1]);
			nr_values++;
		}
	}
	build_frames(&pp, p);
	build_samples(&pp, x->m, p, nr_values);
	mark_mappings(&pp, p);

	prof->n_sample_type = nr_values;
	prof->sample_type = (Tt__Pprof__ValueType **)POINTERS(pp.types, nr_values);
	prof->n_sample = p->nr_samples;
	prof->sample = (Tt__Pprof__Sample **)POINTERS(pp.samples, p->nr_samples);
	prof->n_location = p->nr_frames + pp.nr_inl;
	prof->location = xcalloc(prof->n_location + 1, sizeof(*prof->location));
	for (size_t i = 0; i < p->nr_frames; i++)
		prof->location[i] = &pp.locations[i];
	for (size_t i = 0; i < pp.nr_inl; i++)
		prof->location[p->nr_frames + i] = &pp.inl_locations[i];
	prof->n_function = p->nr_frames;
	prof->function = (Tt__Pprof__Function **)POINTERS(pp.functions, p->nr_frames);
	prof->n_mapping = pp.nr_mappings;
	prof->mapping = (Tt__Pprof__Mapping **)POINTERS(pp.mappings, pp.nr_mappings);
	tt__pprof__value_type__init(&pp.period_type);
	pp.period_type.type = str(&pp, value_names[x->kind][1][0]);
	pp.period_type.unit = str(&pp, "nanoseconds");
	prof->period_type = &pp.period_type;
	/* The period of the kind shown first: what one of its samples stands for. */
	if (x->kind == PROFILE_ONCPU)
		prof->period = (int64_t)p->cpu_period_ns;
	else if (x->kind == PROFILE_THREADS)
		prof->period = (int64_t)p->weight_us * 1000;
	else
		prof->period = 1; /* off-CPU and I/O time is measured, not sampled */
	prof->default_sample_type = pp.types[pp.value_of_kind[x->kind] + 1].type;
	prof->duration_nanos = (int64_t)p->duration_ns;
	prof->time_nanos = (int64_t)(x->realtime_ns - p->duration_ns);
	snprintf(comment, sizeof(comment), "threadtop %s on %s (Linux %s), source %s", TT_VERSION,
		 x->host, x->kernel, x->o->source ? x->o->source : "unknown");
	pp.comment = str(&pp, comment);
	prof->comment = &pp.comment;
	prof->n_comment = 1;

	/* The string table last: every string is interned by now. */
	for (uint32_t id = 1; strtab__get(pp.strings, id, NULL); id++)
		prof->n_string_table = id + 1;
	if (!prof->n_string_table)
		prof->n_string_table = 1;
	prof->string_table = xcalloc(prof->n_string_table, sizeof(char *));
	prof->string_table[0] = "";
	for (size_t id = 1; id < prof->n_string_table; id++)
		prof->string_table[id] = (char *)strtab__get(pp.strings, (uint32_t)id, NULL);

	len = tt__pprof__profile__get_packed_size(prof);
	buf = xmalloc(len ? len : 1);
	tt__pprof__profile__pack(prof, buf);
	err = gzip_to(f, buf, len);

	free(buf);
	free(prof->string_table);
	for (size_t i = 0; i < p->nr_samples; i++)
		free(pp.samples[i].label);
	for (size_t i = 0; i < p->nr_frames; i++)
		free(pp.locations[i].line);
	for (size_t i = 0; i < pp.nr_inl; i++)
		free(pp.inl_locations[i].line);
	free(pp.inl_locations);
	u64map__free(pp.inl_index);
	free(prof->sample_type);
	free(prof->sample);
	free(prof->location);
	free(prof->function);
	free(prof->mapping);
	free(pp.types);
	free(pp.samples);
	free(pp.labels);
	free(pp.values);
	free(pp.location_ids);
	free(pp.locations);
	free(pp.lines);
	free(pp.functions);
	free(pp.mappings);
	strtab__free(pp.strings);
	return err;
}
