// SPDX-License-Identifier: GPL-2.0-only
/*
 * The SVG flame graph: the samples of one kind merged into a tree of frames
 * (process at the root, then thread or state when asked, then the stack),
 * laid out with the root at the bottom and children in name order, each
 * frame a <g> with its name, details, rectangle and label, as wide as its
 * time (a LuaJIT sample weighs its interval, a CPU-clock one its period)
 * and counted in samples (on-CPU: the CPU clock's). The inline
 * script (export_svg_script.c) adds hover details, click to zoom and
 * search; nothing is loaded from elsewhere. Names are escaped for XML and
 * control characters shown as escapes, so no frame name can break the file.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "export_internal.h"
#include "escape.h"
#include "hash.h"
#include "u64map.h"
#include "util.h"

#define IMAGE_W 1200
#define PAD 10
#define FRAME_H 16
#define HEAD_H 40
#define FOOT_H 30
#define CHAR_W 7  /* px per character at 12px monospace, as the script assumes */
#define MIN_W 0.1 /* px: narrower frames (and their callees) are left out */
#define NAME_MAX_OUT 2048

struct node {
	char *name;
	unsigned flags;
	uint64_t value;
	/* What widths and shares are of: time, in units of value (on-CPU: CPU-clock
	 * samples, of which a LuaJIT sample is its interval's fraction; exact for
	 * the CPU clock's own). */
	double weight;
	uint32_t parent;		    /* index */
	uint32_t first_child, next_sibling; /* index + 1, 0 = none */
	uint32_t depth;
};

struct tree {
	struct node *nodes;
	size_t nr, cap;
	struct u64map *index; /* hash of (parent, name, flags) -> index + 1, probed */
	uint32_t cur;	      /* where the sample being added has got to */
	uint64_t value;	      /* of that sample */
	double weight;	      /* of that sample */
	uint32_t max_depth;
};

static uint64_t hash_child(uint32_t parent, const char *name, unsigned flags)
{
	return hash_bytes(HASH_INIT ^ ((uint64_t)parent << 32 | flags), name, strlen(name));
}

static uint32_t new_node(struct tree *t, const char *name, unsigned flags, uint32_t parent,
			 uint32_t depth)
{
	xgrow((void **)&t->nodes, &t->cap, t->nr + 1, sizeof(*t->nodes));
	t->nodes[t->nr] = (struct node){
		.name = xstrdup(name), .flags = flags, .parent = parent, .depth = depth};
	if (depth > t->max_depth)
		t->max_depth = depth;
	return (uint32_t)t->nr++;
}

static void put_frame(const char *name, unsigned flags, void *arg)
{
	struct tree *t = arg;
	char inlined[1024];
	uint64_t h;
	uint32_t child;

	if (flags & PROFILE_FRAME_INLINED) { /* shown as perf shows it */
		snprintf(inlined, sizeof(inlined), "%s [inlined]", name);
		name = inlined;
	}
	h = hash_child(t->cur, name, flags);

	for (;; h++) {
		size_t idx = (size_t)(uintptr_t)u64map__get(t->index, h);
		struct node *n;

		if (!idx) {
			child = new_node(t, name, flags, t->cur, t->nodes[t->cur].depth + 1);
			u64map__put(t->index, h, (void *)(uintptr_t)(child + 1));
			t->nodes[child].next_sibling = t->nodes[t->cur].first_child;
			t->nodes[t->cur].first_child = child + 1;
			break;
		}
		n = &t->nodes[idx - 1];
		if (n->parent == t->cur && n->flags == flags && !strcmp(n->name, name)) {
			child = (uint32_t)(idx - 1);
			break;
		}
	}
	t->nodes[child].value += t->value;
	t->nodes[child].weight += t->weight;
	t->cur = child;
}

/*
 * Name as shown: control characters escaped, then XML-escaped; at most
 * max_chars characters (cut ones end in ".."), or all when max_chars < 0.
 */
static void xml_text_cut(FILE *f, const char *s, int max_chars)
{
	char buf[NAME_MAX_OUT];
	size_t chars = 0, cut = 0;

	escape_for_terminal(s, strlen(s), buf, sizeof(buf));
	if (max_chars >= 0) {
		for (const unsigned char *p = (const unsigned char *)buf; *p; p++)
			chars += (*p & 0xc0) != 0x80;
		if (chars > (size_t)max_chars) {
			/* Byte offset of character max_chars - 2: keep whole characters. */
			size_t c = 0;

			for (cut = 0; buf[cut]; cut++) {
				if ((buf[cut] & 0xc0) != 0x80 && c++ == (size_t)max_chars - 2)
					break;
			}
			strcpy(buf + cut, "..");
		}
	}
	for (const char *p = buf; *p; p++) {
		switch (*p) {
		case '&':
			fputs("&amp;", f);
			break;
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		case '\'':
			fputs("&apos;", f);
			break;
		default:
			fputc(*p, f);
		}
	}
}

static void xml_text(FILE *f, const char *s)
{
	xml_text_cut(f, s, -1);
}

/* Warm colours for user code, orange for the kernel, grey-blue for threadtop's own frames. */
static void colour(const struct node *n, char *buf, size_t len)
{
	uint64_t h = hash_child(0, n->name, 0);
	unsigned a = (unsigned)(h & 0xff), b = (unsigned)((h >> 8) & 0xff);

	if (n->flags & PROFILE_FRAME_SYNTH)
		snprintf(buf, len, "rgb(%u,%u,%u)", 150 + a % 40, 160 + a % 40, 200 + b % 40);
	else if (n->flags & PROFILE_FRAME_KERNEL)
		snprintf(buf, len, "rgb(%u,%u,%u)", 220 + a % 30, 120 + b % 60, 40u);
	else if (n->flags & PROFILE_FRAME_LUA) /* green, as flamegraph.pl's "java" palette */
		snprintf(buf, len, "rgb(%u,%u,%u)", 50 + a % 60, 180 + b % 60, 60 + a % 50);
	else if (n->flags & PROFILE_FRAME_INLINED) /* aqua, as flamegraph.pl's inlined frames */
		snprintf(buf, len, "rgb(%u,%u,%u)", 80 + a % 50, 200 + b % 40, 200 + a % 40);
	else
		snprintf(buf, len, "rgb(%u,%u,%u)", 225 + a % 30, 60 + b % 150, 50 + a % 40);
}

struct layout {
	const struct export_ctx *x;
	FILE *f;
	double scale; /* px per unit of weight */
	double total; /* the weight of all */
	int height;
};

static void details(const struct layout *l, const struct node *n, char *buf, size_t len)
{
	double pct = l->total > 0 ? 100.0 * n->weight / l->total : 0;

	if (l->x->kind == PROFILE_OFFCPU || l->x->kind == PROFILE_IO)
		snprintf(buf, len, " (%.3f ms, %.2f%%)", (double)n->value / 1e6, pct);
	else
		snprintf(buf, len, " (%" PRIu64 " sample%s, %.2f%%)", n->value,
			 n->value == 1 ? "" : "s", pct);
}

static int cmp_names(const void *a, const void *b)
{
	const struct node *x = *(const struct node *const *)a, *y = *(const struct node *const *)b;

	return strcmp(x->name, y->name);
}

static void emit(const struct layout *l, const struct tree *t, const struct node *n, double x)
{
	double w = n->weight * l->scale;
	double y = l->height - FOOT_H - (double)(n->depth + 1) * FRAME_H;
	const struct node **kids = NULL;
	size_t nr = 0, cap = 0;
	char fill[32], info[96];

	if (w < MIN_W)
		return;
	colour(n, fill, sizeof(fill));
	details(l, n, info, sizeof(info));
	fputs("<g class=\"f\" data-name=\"", l->f);
	xml_text(l->f, n->name);
	fputs("\" data-info=\"", l->f);
	xml_text(l->f, n->name);
	fprintf(l->f, "%s\"><title>", info);
	xml_text(l->f, n->name);
	fprintf(l->f,
		"%s</title><rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%d\" fill=\"%s\" "
		"rx=\"2\"/><text x=\"%.2f\" y=\"%.1f\">",
		info, x, y, w, FRAME_H - 1, fill, x + 3, y + FRAME_H - 4.5);
	/* The label the script would give, for viewers that run no script. */
	if ((int)((w - 6) / CHAR_W) >= 3)
		xml_text_cut(l->f, n->name, (int)((w - 6) / CHAR_W));
	fputs("</text></g>\n", l->f);
	for (uint32_t c = n->first_child; c; c = t->nodes[c - 1].next_sibling) {
		xgrow((void **)&kids, &cap, nr + 1, sizeof(*kids));
		kids[nr++] = &t->nodes[c - 1];
	}
	if (nr)
		qsort(kids, nr, sizeof(*kids), cmp_names);
	for (size_t i = 0; i < nr; i++) {
		emit(l, t, kids[i], x);
		x += kids[i]->weight * l->scale;
	}
	free(kids);
}

static const char *const kind_titles[PROFILE_KIND_MAX] = {
	[PROFILE_THREADS] = "thread samples (all states)",
	[PROFILE_ONCPU] = "on-CPU samples",
	[PROFILE_OFFCPU] = "off-CPU time",
	[PROFILE_IO] = "block I/O time (made to completed, by the stacks that made the requests)",
};

int export_svg(const struct export_ctx *x, FILE *f)
{
	struct tree t = {.index = u64map__new()};
	struct layout l = {.x = x, .f = f};
	char when[40];

	new_node(&t, "all", PROFILE_FRAME_SYNTH, 0, 0);
	for (size_t i = 0; i < x->p->nr_samples; i++) {
		const struct profile_sample *s = &x->p->samples[i];

		if (s->kind != x->kind)
			continue;
		t.cur = 0;
		t.value = profile_sample_weight(s);
		t.weight = s->kind == PROFILE_ONCPU && x->p->cpu_period_ns
				   ? (double)s->ns / (double)x->p->cpu_period_ns
				   : (double)t.value;
		t.nodes[0].value += t.value;
		t.nodes[0].weight += t.weight;
		export_walk_frames(x, s, put_frame, &t);
	}
	l.total = t.nodes[0].weight;
	l.scale = l.total > 0 ? (double)(IMAGE_W - 2 * PAD) / l.total : 0;
	l.height = HEAD_H + FOOT_H + (int)(t.max_depth + 1) * FRAME_H;

	fprintf(f,
		"<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
		"xmlns=\"http://www.w3.org/2000/svg\" onload=\"init(evt)\">\n"
		"<style>\n"
		"text { font-family: monospace; font-size: 12px; fill: #000; }\n"
		"#title { font-size: 16px; }\n"
		".btn { cursor: pointer; fill: #246; text-decoration: underline; }\n"
		".f { cursor: pointer; }\n"
		".f:hover rect { stroke: #000; stroke-width: 0.5; }\n"
		".caller rect { opacity: 0.6; }\n"
		"</style>\n"
		"<script type=\"text/ecmascript\"><![CDATA[\n%s]]></script>\n"
		"<rect x=\"0\" y=\"0\" width=\"100%%\" height=\"100%%\" fill=\"#f6f6f2\"/>\n",
		IMAGE_W, l.height, IMAGE_W, l.height, export_svg_script);
	fprintf(f, "<text id=\"title\" x=\"%d\" y=\"24\" text-anchor=\"middle\">", IMAGE_W / 2);
	fputs("threadtop on ", f);
	xml_text(f, x->host);
	fprintf(f, ": %s, %s, %.1f s</text>\n", kind_titles[x->kind],
		format_rfc3339(x->realtime_ns, when, sizeof(when)),
		(double)x->p->duration_ns / 1e9);
	fprintf(f,
		"<text id=\"reset\" class=\"btn\" x=\"%d\" y=\"24\">Reset zoom</text>\n"
		"<text id=\"search\" class=\"btn\" x=\"%d\" y=\"24\">Search</text>\n"
		"<text id=\"details\" x=\"%d\" y=\"%d\"> </text>\n"
		"<text id=\"matched\" x=\"%d\" y=\"%d\" text-anchor=\"end\"> </text>\n"
		"<g id=\"frames\">\n",
		PAD, IMAGE_W - PAD - 100, PAD, l.height - 10, IMAGE_W - PAD, l.height - 10);
	if (l.total > 0)
		emit(&l, &t, &t.nodes[0], PAD);
	fputs("</g>\n</svg>\n", f);

	for (size_t i = 0; i < t.nr; i++)
		free(t.nodes[i].name);
	free(t.nodes);
	u64map__free(t.index);
	return 0;
}
