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

const struct ui_column ui_columns[COL_MAX] = {
	[COL_PID] = {"PID", 7, COLK_NUMBER, 0, 0, "pid"},
	[COL_TID] = {"TID", 7, COLK_NUMBER, 90, 0, "tid"},
	[COL_COMM] = {"COMM", 15, COLK_TEXT, 95, 0, "comm"},
	[COL_STATE] = {"S", 2, COLK_TEXT, 80, 0, "state"},
	[COL_CPU] = {"%CPU", 6, COLK_NUMBER, 85, 0, "cpu"},
	[COL_ACTIVE] = {"ACTIVE", 7, COLK_NUMBER, 88, 0, "active"},
	[COL_MIX] = {"STATEMIX", 8, COLK_BAR, 20, 0, "statemix"},
	[COL_SYSCALL] = {"SYSCALL", 15, COLK_TEXT, 60, 0, "syscall"},
	[COL_FRAME] = {"TOP FRAME", 0, COLK_TEXT, 70, 14, "frame"},
	[COL_SAMPLES] = {"SAMPLES", 8, COLK_NUMBER, 55, 0, "samples"},
	[COL_SHARE] = {"SHARE", 16, COLK_BAR, 50, 0, "share"},
	[COL_THREADS] = {"THR", 5, COLK_NUMBER, 52, 0, "threads"},
	[COL_WCHAN] = {"WCHAN", 20, COLK_TEXT, 35, 0, "wchan"},
	[COL_KLEAF] = {"KERNEL LEAF", 18, COLK_TEXT, 35, 0, "kleaf"},
	[COL_ULEAF] = {"USER LEAF", 18, COLK_TEXT, 35, 0, "uleaf"},
	[COL_CGROUP] = {"CGROUP", 24, COLK_TEXT, 25, 0, "cgroup"},
	[COL_CMD] = {"COMMAND", 0, COLK_TEXT, 65, 14, "cmd"},
	[COL_COUNT] = {"CALLS", 9, COLK_NUMBER, 60, 0, "calls"},
	[COL_TIME] = {"TIME ms", 9, COLK_NUMBER, 58, 0, "time_ms"},
	[COL_P50] = {"p50", 7, COLK_NUMBER, 45, 0, "p50"},
	[COL_P99] = {"p99", 7, COLK_NUMBER, 46, 0, "p99"},
	[COL_HIST] = {"256ns..4s", 12, COLK_BAR, 20, 0, "hist"},
	[COL_LABELS] = {"LABELS", 24, COLK_TEXT, 40, 0, "labels"},
	[COL_USER] = {"USER", 8, COLK_TEXT, 42, 0, "user"},
	[COL_NICE] = {"NI", 3, COLK_NUMBER, 10, 0, "nice"},
	[COL_RES] = {"RES", 6, COLK_NUMBER, 45, 0, "res"},
	[COL_TIMEP] = {"TIME+", 9, COLK_NUMBER, 30, 0, "time"},
};

int rows_col_by_key(const char *key)
{
	for (int c = 0; c < COL_MAX; c++)
		if (ui_columns[c].key && !strcmp(ui_columns[c].key, key))
			return c;
	return -1;
}

/* "12.3M" from bytes, top's units (KiB, MiB, ...). */
static void fmt_bytes(uint64_t bytes, char *buf, size_t len)
{
	static const char units[] = "KMGTP";
	double v = (double)bytes / 1024;
	int u = 0;

	while (v >= 1024 && u < 4)
		v /= 1024, u++;
	snprintf(buf, len, v < 100 && u ? "%.1f%c" : "%.0f%c", v, units[u]);
}

/* TIME+ as top writes it: "12:34.56" (minutes), "123:45" past 100 minutes, hours past 100. */
static void fmt_timep(uint64_t ns, char *buf, size_t len)
{
	uint64_t cs = ns / 10000000ull, s = cs / 100, m = s / 60;

	if (m < 100)
		snprintf(buf, len, "%llu:%02llu.%02llu", (unsigned long long)m,
			 (unsigned long long)(s % 60), (unsigned long long)(cs % 100));
	else if (m < 6000)
		snprintf(buf, len, "%llu:%02llu", (unsigned long long)m,
			 (unsigned long long)(s % 60));
	else
		snprintf(buf, len, "%lluh", (unsigned long long)(m / 60));
}

uint64_t sc_percentile(const struct sc_stat *s, double pct)
{
	uint64_t n = 0, want;

	for (int b = 0; b < TT_SYSCALL_HIST_BUCKETS; b++)
		n += s->hist[b];
	if (!n)
		return 0;
	want = (uint64_t)((double)n * pct / 100.0 + 0.5);
	if (!want)
		want = 1;
	n = 0;
	for (int b = 0; b < TT_SYSCALL_HIST_BUCKETS; b++) {
		n += s->hist[b];
		if (n >= want)
			return 2ull << b;
	}
	return 2ull << (TT_SYSCALL_HIST_BUCKETS - 1);
}

/* "850ns", "12us", "3.4ms", "1.2s". */
static void fmt_ns(uint64_t ns, char *buf, size_t len)
{
	if (ns < 1000)
		snprintf(buf, len, "%" PRIu64 "ns", ns);
	else if (ns < 1000000)
		snprintf(buf, len, "%" PRIu64 "us", ns / 1000);
	else if (ns < 1000000000)
		snprintf(buf, len, "%.1fms", (double)ns / 1e6);
	else
		snprintf(buf, len, "%.1fs", (double)ns / 1e9);
}

static const struct sc_stat *sc_of(const struct rows_ctx *c, const struct model_row *r)
{
	if (!c->sc || r->syscall < 0 || r->syscall >= UI_SC_MAX)
		return NULL;
	return &c->sc[r->syscall];
}

static bool is_sc_col(int col)
{
	return col == COL_COUNT || col == COL_TIME || col == COL_P50 || col == COL_P99 ||
	       col == COL_HIST;
}

/* What a syscall column shows and sorts by (COL_HIST: the total; it shows the mean). */
static uint64_t sc_value(const struct sc_stat *s, int col)
{
	if (col == COL_COUNT)
		return s->count;
	if (col == COL_TIME || col == COL_HIST)
		return s->total_ns;
	return sc_percentile(s, col == COL_P50 ? 50 : 99);
}

static void sc_cell(const struct sc_stat *s, int col, char *buf, size_t len)
{
	uint64_t v;

	if (!s || !s->count) {
		snprintf(buf, len, "-");
		return;
	}
	v = sc_value(s, col);
	if (col == COL_COUNT)
		snprintf(buf, len, "%" PRIu64, v);
	else if (col == COL_TIME)
		snprintf(buf, len, "%.1f", (double)v / 1e6);
	else
		fmt_ns(col == COL_HIST ? v / s->count : v, buf, len); /* HIST: the mean */
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

/* The top frame of a row: (ip, kernel) of the leaf, else the wait channel. */
static uint64_t row_frame_ip(const struct rows_ctx *c, const struct model_row *r, bool *kernel)
{
	uint64_t kleaf = is_thread_row(c) ? model__stack_leaf(c->m, r->cur_kstack_id) : r->kleaf_ip;

	*kernel = kleaf != 0;
	if (kleaf)
		return kleaf;
	return is_thread_row(c) ? model__stack_leaf(c->m, r->cur_ustack_id) : r->uleaf_ip;
}

static const char *row_wchan(const struct rows_ctx *c, const struct model_row *r)
{
	return dict(c, is_thread_row(c) ? r->cur_wchan_id : r->wchan_id);
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

static char *esc(const char *s, char *buf, size_t len)
{
	if (!s)
		s = "-";
	return escape_for_terminal(s, strlen(s), buf, len);
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
	uint64_t ip;

	buf[0] = '\0';
	if (is_sc_col(col)) {
		sc_cell(sc_of(c, r), col, buf, len);
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
		ip = row_frame_ip(c, r, &kernel);
		if (ip)
			rows_frame_pid(c->m, r->pid, ip, kernel, buf, len);
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
	case COL_KLEAF:
	case COL_ULEAF:
		ip = col == COL_KLEAF ? r->kleaf_ip : r->uleaf_ip;
		if (ip)
			rows_frame_pid(c->m, r->pid, ip, col == COL_KLEAF, buf, len);
		else
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
			fmt_bytes(r->rss_bytes, buf, len);
		else
			snprintf(buf, len, "-");
		break;
	case COL_TIMEP:
		fmt_timep(r->cpu_total_ns, buf, len);
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

bool rows_col_descends(int col)
{
	switch (col) {
	case COL_PID:
	case COL_TID:
	case COL_COMM:
	case COL_STATE:
	case COL_SYSCALL:
	case COL_FRAME:
	case COL_WCHAN:
	case COL_KLEAF:
	case COL_ULEAF:
	case COL_CGROUP:
	case COL_CMD:
	case COL_LABELS:
	case COL_USER:
	case COL_NICE:
		return false;
	default:
		return true;
	}
}

static int cmp_syscall(int a, int b)
{
	const char *x = a == TT_SYSCALL_NONE ? NULL : syscall_name(a);
	const char *y = b == TT_SYSCALL_NONE ? NULL : syscall_name(b);

	/* Threads in no syscall sort after those in one. */
	if (!x || !y)
		return CMP(!x, !y);
	return strcmp(x, y);
}

int rows_compare(const struct rows_ctx *c, const struct model_row *a, const struct model_row *b,
		 int col)
{
	uint64_t ia, ib;
	bool ka, kb;
	int r = 0;

	if (is_sc_col(col)) {
		const struct sc_stat *x = sc_of(c, a), *y = sc_of(c, b);

		return x && y ? CMP(sc_value(y, col), sc_value(x, col)) : 0;
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
		ia = row_frame_ip(c, a, &ka);
		ib = row_frame_ip(c, b, &kb);
		if (ia || ib)
			r = ia && ib ? CMP(ia, ib) : CMP(!ia, !ib);
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
	case COL_KLEAF:
		r = CMP(a->kleaf_ip, b->kleaf_ip);
		break;
	case COL_ULEAF:
		r = CMP(a->uleaf_ip, b->uleaf_ip);
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
