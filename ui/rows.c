// SPDX-License-Identifier: GPL-2.0-only
/*
 * Columns over model rows (see rows.h): cell text, comparison, matching.
 * Rows carry ids, not model pointers, for strings that must outlive one
 * refresh (cmdline, wchan); those are looked up in the model's dictionary.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rows.h"
#include "hash.h"
#include "lj_model.h"
#include "escape.h"
#include "threadtop/frame_namer.h"
#include "procfs.h"
#include "syscalls.h"
#include "util.h"

static const struct sc_stat *sc_of(const struct rows_ctx *c, const struct model_row *r)
{
	if (!c->sc || r->syscall < 0 || r->syscall >= UI_SC_MAX)
		return NULL;
	return &c->sc[r->syscall];
}

static const char *dict(const struct rows_ctx *c, uint32_t id)
{
	return c->m && id ? model__string(c->m, id) : NULL;
}

static bool is_thread_row(const struct rows_ctx *c)
{
	return c->dims & DIM_BIT(DIM_TID);
}

static unsigned row_state(const struct rows_ctx *c, const struct model_row *r)
{
	unsigned best = TT_ST_UNKNOWN;

	if (is_thread_row(c))
		return r->cur_state;
	if (c->dims & DIM_BIT(DIM_STATE))
		return r->state;
	for (unsigned s = 0; s < TT_ST_MAX; s++)
		if (r->state_samples[s] &&
		    (best == TT_ST_UNKNOWN || r->state_samples[s] > r->state_samples[best]))
			best = s;
	return best;
}

static int row_syscall(const struct rows_ctx *c, const struct model_row *r)
{
	if (is_thread_row(c))
		return r->cur_syscall;
	return c->dims & DIM_BIT(DIM_SYSCALL) ? r->syscall : TT_SYSCALL_NONE;
}

static const char *syscall_text(int nr, char *buf, size_t len)
{
	if (nr == TT_SYSCALL_NONE)
		return "-";
	return syscall_label(nr, buf, len);
}

/*
 * The top frame of a row: (ip, kernel) of the leaf, else the wait channel. A
 * thread that runs or waits for a CPU shows its hottest user function over
 * the window (perf top's name for its work), one off CPU its kernel leaf.
 */
static uint64_t row_frame_ip(const struct rows_ctx *c, const struct model_row *r, bool *kernel,
			     unsigned *inlined)
{
	uint64_t kleaf = is_thread_row(c) ? model__stack_leaf(c->m, r->cur_kstack_id) : r->kleaf_ip;

	*inlined = 0;
	if (is_thread_row(c) && r->top_uip) {
		*kernel = false;
		*inlined = r->top_uinlined;
		return r->top_uip;
	}

	*kernel = kleaf != 0;
	if (kleaf)
		return kleaf;
	return is_thread_row(c) ? model__stack_leaf(c->m, r->cur_ustack_id) : r->uleaf_ip;
}

static const char *row_wchan(const struct rows_ctx *c, const struct model_row *r)
{
	return dict(c, is_thread_row(c) ? r->cur_wchan_id : r->wchan_id);
}

/* What the fd of the row's syscall names: the thread's latest, or the group's. */
static const char *row_target(const struct rows_ctx *c, const struct model_row *r)
{
	return dict(c, is_thread_row(c) ? r->cur_target_id : r->target_id);
}

/* A leaf dimension's function (the kernel's or the user's), as the row groups it; NULL if none. */
static char *leaf_name(const struct rows_ctx *c, const struct model_row *r, bool kernel, char *buf,
		       size_t len)
{
	uint64_t ip = kernel ? r->kleaf_ip : r->uleaf_ip;

	if (!ip)
		return NULL;
	/* named in a process of the row, though its dims have no pid */
	return rows_frame_inlined(c->m, r->pid ? r->pid : r->leaf_pid, ip, kernel,
				  kernel ? r->kleaf_inlined : r->uleaf_inlined, buf, len);
}

char *rows_frame(const struct model *m, uint64_t ip, bool kernel, char *buf, size_t len)
{
	return rows_frame_pid(m, 0, ip, kernel, buf, len);
}

char *rows_frame_pid(const struct model *m, uint32_t pid, uint64_t ip, bool kernel, char *buf,
		     size_t len)
{
	return rows_frame_inlined(m, pid, ip, kernel, 0, buf, len);
}

char *rows_frame_inlined(const struct model *m, uint32_t pid, uint64_t ip, bool kernel,
			 unsigned inlined, char *buf, size_t len)
{
	struct frame_name fn;
	const char *s;
	char name[256];

	model__frame_name(m, pid, ip, kernel, &fn);
	s = inlined && fn.inlined && inlined <= fn.nr_inlined ? fn.inlined[inlined - 1] : fn.name;
	escape_for_terminal(s, strlen(s), name, sizeof(name));
	snprintf(buf, len, "%s%s", name,
		 kernel		       ? " [k]"
		 : s != fn.name	       ? " [inlined]"
		 : lj_frame_is_lua(ip) ? " [lua]"
				       : "");
	return buf;
}

char *rows_share(uint64_t part, uint64_t total, char *buf, size_t len)
{
	snprintf(buf, len, "%.1f%%", total ? 100.0 * (double)part / (double)total : 0.0);
	return buf;
}

static char *esc(const char *s, char *buf, size_t len)
{
	if (!s)
		s = "-";
	return escape_for_terminal(s, strlen(s), buf, len);
}

/*
 * What a thread waits on: the fd target of its syscall and, in D, the block
 * request it made that is in flight (--io): "/data/f (vda read 4.0K 1.2ms)".
 */
static void target_cell(const struct rows_ctx *c, const struct model_row *r, char *buf, size_t len)
{
	const char *fd = row_target(c, r);
	char disk[TT_IO_DISK_LEN * 4 + 1], size[16], age[16], path[256];
	struct model_io_wait w;

	if (!is_thread_row(c) || !c->m || model__thread_io_wait(c->m, r->tid, &w) < 0) {
		esc(fd, buf, len);
		return;
	}
	if (w.disk[0])
		esc(w.disk, disk, sizeof(disk));
	else
		snprintf(disk, sizeof(disk), "%u:%u", w.major, w.minor);
	cols_fmt_bytes(w.bytes, size, sizeof(size));
	cols_fmt_ns(w.age_ns, age, sizeof(age));
	if (!fd) {
		snprintf(buf, len, "%s %s %s %s", disk, model_io_op_name(w.op), size, age);
		return;
	}
	esc(fd, path, sizeof(path));
	snprintf(buf, len, "%s (%s %s %s %s)", path, disk, model_io_op_name(w.op), size, age);
}

char *rows_labels(const struct model *m, uint32_t labels_id, char *buf, size_t len)
{
	const char *names[TT_LABEL_SLOTS], *values[TT_LABEL_SLOTS];
	size_t o = 0;

	snprintf(buf, len, "-");
	if (!m || !labels_id || model__labels(m, labels_id, names, values) <= 0)
		return buf;
	for (unsigned i = 0; i < TT_LABEL_SLOTS && o + 1 < len; i++) {
		char name[TT_COMM_LEN * 4 + 1], value[TT_LABEL_VALUE_LEN * 4 + 1];

		if (!values[i])
			continue;
		esc(names[i] ? names[i] : "?", name, sizeof(name));
		esc(values[i], value, sizeof(value));
		o += (size_t)snprintf(buf + o, len - o, "%s%s=%s", o ? " " : "", name, value);
	}
	return buf;
}

/* The labels a row shows: its group's, else (a thread row) the thread's current ones. */
static uint32_t row_labels(const struct rows_ctx *c, const struct model_row *r)
{
	if (c->dims & DIM_BIT(DIM_LABELS) || !is_thread_row(c))
		return r->labels_id;
	return c->m ? model__thread_labels(c->m, r->tid) : 0;
}

char *rows_cell(const struct rows_ctx *c, const struct model_row *r, int col, char *buf, size_t len)
{
	char tmp[64];
	const char *s;
	bool kernel;
	unsigned inlined;
	uint64_t ip;

	buf[0] = '\0';
	if (cols_is_sc(col)) {
		cols_sc_cell(sc_of(c, r), col, buf, len);
		return buf;
	}
	switch (col) {
	case COL_PID:
		if (r->pid)
			snprintf(buf, len, "%u", r->pid);
		else
			snprintf(buf, len, "-");
		break;
	case COL_TID:
		snprintf(buf, len, "%u", r->tid);
		break;
	case COL_COMM:
		esc(r->comm, buf, len);
		break;
	case COL_STATE:
		snprintf(buf, len, "%c", tt_state_letter(row_state(c, r)));
		break;
	case COL_CPU:
		if (c->cpu_valid)
			snprintf(buf, len, "%.1f", r->cpu_pct);
		else
			snprintf(buf, len, "-");
		break;
	case COL_ACTIVE:
		snprintf(buf, len, "%.2f", r->avg_active);
		break;
	case COL_MIX:
		snprintf(buf, len, "%.0f%%",
			 r->samples ? 100.0 * (double)r->state_samples[TT_ST_R] / (double)r->samples
				    : 0.0);
		break;
	case COL_SYSCALL:
		if (!is_thread_row(c) && c->dims & DIM_BIT(DIM_SYSCALL) &&
		    r->syscall == TT_SYSCALL_NONE)
			snprintf(buf, len, "(no syscall)");
		else
			snprintf(buf, len, "%s", syscall_text(row_syscall(c, r), tmp, sizeof(tmp)));
		break;
	case COL_FRAME:
		ip = row_frame_ip(c, r, &kernel, &inlined);
		if (ip)
			rows_frame_inlined(c->m, r->pid, ip, kernel, inlined, buf, len);
		else
			esc(row_wchan(c, r), buf, len);
		break;
	case COL_SAMPLES:
		snprintf(buf, len, "%" PRIu64, r->samples);
		break;
	case COL_SHARE:
		snprintf(buf, len, "%.1f%%",
			 c->total_samples ? 100.0 * (double)r->samples / (double)c->total_samples
					  : 0.0);
		break;
	case COL_THREADS:
		snprintf(buf, len, "%u", r->nr_threads);
		break;
	case COL_WCHAN:
		esc(row_wchan(c, r), buf, len);
		break;
	case COL_TARGET:
		target_cell(c, r, buf, len);
		break;
	case COL_KLEAF:
	case COL_ULEAF:
		if (!leaf_name(c, r, col == COL_KLEAF, buf, len))
			snprintf(buf, len, "-");
		break;
	case COL_CGROUP: /* the container, pod or unit its naming shows, else the id */
		if (model__cgroup_name(c->m, r->cgroup_id))
			esc(model__cgroup_name(c->m, r->cgroup_id), buf, len);
		else
			snprintf(buf, len, "%" PRIu64, r->cgroup_id);
		break;
	case COL_LABELS:
		if (!is_thread_row(c) && !row_labels(c, r))
			snprintf(buf, len, "(no labels)");
		else
			rows_labels(c->m, row_labels(c, r), buf, len);
		break;
	case COL_USER:
		s = dict(c, r->user_id);
		if (s)
			esc(s, buf, len);
		else if (r->proc_known)
			snprintf(buf, len, "%u", r->uid);
		else
			snprintf(buf, len, "-");
		break;
	case COL_NICE:
		if (r->proc_known)
			snprintf(buf, len, "%d", r->nice);
		else
			snprintf(buf, len, "-");
		break;
	case COL_RES:
		if (r->proc_known && r->rss_bytes)
			cols_fmt_bytes(r->rss_bytes, buf, len);
		else
			snprintf(buf, len, "-");
		break;
	case COL_TIMEP:
		cols_fmt_timep(r->cpu_total_ns, buf, len);
		break;
	case COL_CMD:
		s = dict(c, r->cmdline_id);
		if (s && *s) {
			esc(s, buf, len);
		} else if (r->comm) {
			esc(r->comm, tmp, sizeof(tmp));
			snprintf(buf, len, "[%s]", tmp);
		}
		break;
	default:
		break;
	}
	return buf;
}

#define CMP(a, b) (((a) > (b)) - ((a) < (b)))

static int cmp_syscall(int a, int b)
{
	const char *x = a == TT_SYSCALL_NONE ? NULL : syscall_name(a);
	const char *y = b == TT_SYSCALL_NONE ? NULL : syscall_name(b);

	/* Threads in no syscall sort after those in one. */
	if (!x || !y)
		return CMP(!x, !y);
	return strcmp(x, y);
}

/*
 * The Group pane's leaf-function rows by the function's name, as they read
 * (by address they came out in no order a reader sees); rows without a
 * leaf last, the same name by address.
 */
static int leaf_cmp(const struct rows_ctx *c, const struct model_row *a, const struct model_row *b,
		    bool kernel)
{
	uint64_t ia = kernel ? a->kleaf_ip : a->uleaf_ip, ib = kernel ? b->kleaf_ip : b->uleaf_ip;
	char x[256], y[256];
	int r;

	if (!ia || !ib)
		return CMP(!ia, !ib);
	leaf_name(c, a, kernel, x, sizeof(x));
	leaf_name(c, b, kernel, y, sizeof(y));
	r = strcmp(x, y);
	return r ? r : CMP(ia, ib);
}

int rows_compare(const struct rows_ctx *c, const struct model_row *a, const struct model_row *b,
		 int col)
{
	uint64_t ia, ib;
	bool ka, kb;
	unsigned la, lb;
	int r = 0;

	if (cols_is_sc(col)) {
		const struct sc_stat *x = sc_of(c, a), *y = sc_of(c, b);

		return x && y ? CMP(cols_sc_value(y, col), cols_sc_value(x, col)) : 0;
	}
	switch (col) {
	case COL_PID:
		r = CMP(a->pid, b->pid);
		break;
	case COL_TID:
		r = CMP(a->tid, b->tid);
		break;
	case COL_COMM:
		r = text_cmp(a->comm, b->comm);
		break;
	case COL_STATE:
		r = CMP(tt_state_letter(row_state(c, a)), tt_state_letter(row_state(c, b)));
		break;
	case COL_CPU:
		r = CMP(b->cpu_pct, a->cpu_pct);
		break;
	case COL_ACTIVE:
		r = CMP(b->avg_active, a->avg_active);
		if (!r)
			r = CMP(b->samples, a->samples);
		break;
	case COL_MIX:
		r = CMP((double)b->state_samples[TT_ST_R] / (double)(b->samples ? b->samples : 1),
			(double)a->state_samples[TT_ST_R] / (double)(a->samples ? a->samples : 1));
		break;
	case COL_SYSCALL:
		r = cmp_syscall(row_syscall(c, a), row_syscall(c, b));
		break;
	case COL_FRAME:
		ia = row_frame_ip(c, a, &ka, &la);
		ib = row_frame_ip(c, b, &kb, &lb);
		if (ia || ib)
			r = ia && ib ? (ia != ib ? CMP(ia, ib) : CMP(la, lb)) : CMP(!ia, !ib);
		else
			r = text_cmp(row_wchan(c, a), row_wchan(c, b));
		break;
	case COL_SAMPLES:
	case COL_SHARE:
		r = CMP(b->samples, a->samples);
		break;
	case COL_THREADS:
		r = CMP(b->nr_threads, a->nr_threads);
		break;
	case COL_WCHAN:
		r = text_cmp(row_wchan(c, a), row_wchan(c, b));
		break;
	case COL_TARGET:
		r = text_cmp(row_target(c, a), row_target(c, b));
		break;
	case COL_KLEAF:
	case COL_ULEAF:
		r = leaf_cmp(c, a, b, col == COL_KLEAF);
		break;
	case COL_CGROUP:
		r = CMP(a->cgroup_id, b->cgroup_id);
		break;
	case COL_CMD:
		r = text_cmp(dict(c, a->cmdline_id), dict(c, b->cmdline_id));
		break;
	case COL_USER:
		r = text_cmp(dict(c, a->user_id), dict(c, b->user_id));
		if (!r)
			r = CMP(a->uid, b->uid);
		break;
	case COL_NICE:
		r = CMP(a->nice, b->nice);
		break;
	case COL_RES:
		r = CMP(b->rss_bytes, a->rss_bytes);
		break;
	case COL_TIMEP:
		r = CMP(b->cpu_total_ns, a->cpu_total_ns);
		break;
	case COL_LABELS: {
		char x[256], y[256];

		ia = row_labels(c, a);
		ib = row_labels(c, b);
		/* Rows with labels first, then by their text. */
		r = ia && ib ? strcmp(rows_labels(c->m, (uint32_t)ia, x, sizeof(x)),
				      rows_labels(c->m, (uint32_t)ib, y, sizeof(y)))
			     : CMP(!ia, !ib);
		break;
	}
	default:
		break;
	}
	return r;
}

static _Thread_local const struct rows_ctx *sort_ctx;
static _Thread_local int sort_col;
static _Thread_local bool sort_reverse;

static int qsort_cmp(const void *pa, const void *pb)
{
	const struct model_row *a = pa, *b = pb;
	int r = rows_compare(sort_ctx, a, b, sort_col);

	if (sort_reverse)
		r = -r;
	if (!r)
		r = CMP(b->samples, a->samples);
	if (!r)
		r = CMP(a->pid, b->pid);
	if (!r)
		r = CMP(a->tid, b->tid);
	if (!r)
		r = CMP(rows_key(a), rows_key(b));
	return r;
}

void rows_sort(const struct rows_ctx *c, struct model_row *rows, size_t nr, int col, bool reverse)
{
	sort_ctx = c;
	sort_col = col;
	sort_reverse = reverse;
	if (nr > 1)
		qsort(rows, nr, sizeof(*rows), qsort_cmp);
}

static _Thread_local const struct model_row *heap_rows;

/* qsort_cmp of the rows at two indices. */
static int index_cmp(uint32_t a, uint32_t b)
{
	return qsort_cmp(&heap_rows[a], &heap_rows[b]);
}

static int qsort_index_cmp(const void *pa, const void *pb)
{
	return index_cmp(*(const uint32_t *)pa, *(const uint32_t *)pb);
}

/* Restores the heap of h[0, k) below i: each index after (in the order) its children. */
static void sift_down(uint32_t *h, size_t k, size_t i)
{
	for (;;) {
		size_t c = 2 * i + 1;
		uint32_t tmp;

		if (c >= k)
			return;
		if (c + 1 < k && index_cmp(h[c + 1], h[c]) > 0)
			c++;
		if (index_cmp(h[c], h[i]) <= 0)
			return;
		tmp = h[i];
		h[i] = h[c];
		h[c] = tmp;
		i = c;
	}
}

size_t rows_sort_first(const struct rows_ctx *c, struct model_row *rows, size_t nr, int col,
		       bool reverse, size_t k)
{
	struct model_row *first;
	uint32_t *h;
	bool *kept;
	size_t j = 0;

	if (!k)
		return 0;
	/* Most of them, or too many for a heap of 32-bit indices: a whole sort. */
	if (k >= nr / 4 || nr > UINT32_MAX) {
		rows_sort(c, rows, nr, col, reverse);
		return nr;
	}
	sort_ctx = c;
	sort_col = col;
	sort_reverse = reverse;
	heap_rows = rows;
	/* The k first so far, the last of them on top; each other row against it. */
	h = xmalloc(k * sizeof(*h));
	for (size_t i = 0; i < k; i++)
		h[i] = (uint32_t)i;
	for (size_t i = k / 2; i-- > 0;)
		sift_down(h, k, i);
	for (size_t i = k; i < nr; i++) {
		if (index_cmp((uint32_t)i, h[0]) >= 0)
			continue;
		h[0] = (uint32_t)i;
		sift_down(h, k, 0);
	}
	qsort(h, k, sizeof(*h), qsort_index_cmp);
	/* Gather them in order at the front; rows there that are not of them go where they were. */
	first = xmalloc(k * sizeof(*first));
	kept = xcalloc(k, sizeof(*kept));
	for (size_t i = 0; i < k; i++) {
		first[i] = rows[h[i]];
		if (h[i] < k)
			kept[h[i]] = true;
	}
	for (size_t i = 0; i < k; i++) {
		if (kept[i])
			continue;
		while (h[j] < k)
			j++;
		rows[h[j++]] = rows[i];
	}
	memcpy(rows, first, k * sizeof(*rows));
	free(kept);
	free(first);
	free(h);
	return k;
}

bool rows_match(const struct rows_ctx *c, const struct model_row *r, const int *cols,
		size_t nr_cols, const char *text)
{
	char buf[512];

	if (!text || !*text)
		return true;
	for (size_t i = 0; i < nr_cols; i++) {
		if (ui_columns[cols[i]].kind == COLK_BAR)
			continue;
		if (strcasestr(rows_cell(c, r, cols[i], buf, sizeof(buf)), text))
			return true;
	}
	return false;
}

size_t rows_filter(const struct rows_ctx *c, struct model_row *rows, size_t nr, const int *cols,
		   size_t nr_cols, const char *text)
{
	size_t out = 0;

	if (!text || !*text)
		return nr;
	for (size_t i = 0; i < nr; i++)
		if (rows_match(c, &rows[i], cols, nr_cols, text))
			rows[out++] = rows[i];
	return out;
}

bool rows_idle(const struct model_row *r)
{
	if (!r->samples)
		return false; /* a row of exact figures alone (--syscalls): not a sleeper */
	for (unsigned s = 0; s < TT_ST_MAX; s++)
		if (r->state_samples[s] && model_state_active(s))
			return false;
	return true;
}

size_t rows_drop_idle(struct model_row *rows, size_t nr)
{
	size_t out = 0;

	for (size_t i = 0; i < nr; i++)
		if (!rows_idle(&rows[i]))
			rows[out++] = rows[i];
	return out;
}

uint64_t rows_key(const struct model_row *r)
{
	uint64_t h = HASH_INIT;
	uint64_t parts[] = {r->pid,	 r->tid,      (uint64_t)(uint32_t)r->syscall,
			    r->state,	 r->wchan_id, r->cgroup_id,
			    r->kleaf_ip, r->uleaf_ip, r->labels_id};

	for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++)
		h = hash_word(h, parts[i]);
	return r->comm ? hash_bytes(h, r->comm, strlen(r->comm)) : h;
}
