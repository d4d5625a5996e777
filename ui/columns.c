// SPDX-License-Identifier: GPL-2.0-only
/*
 * The columns of the table panes (see rows.h): their table (title, width,
 * kind, the priority and minimum width that fit 80 columns, the name the rc
 * file knows them by), which of them sort largest first, and how their
 * figures read: RES and TIME+ as top writes them, latencies, the exact
 * --syscalls cells. rows.c makes the cells of model rows with these.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "rows.h"

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
	[COL_SELF] = {"SELF%", 6, COLK_NUMBER, 0, 0, "self"},
	[COL_TOTAL] = {"TOTAL%", 7, COLK_NUMBER, 0, 0, "total"},
	[COL_FUNCTION] = {"FUNCTION", 0, COLK_TEXT, 0, 24, "function"},
	[COL_MODULE] = {"MODULE", 18, COLK_TEXT, 45, 0, "module"},
	[COL_PROCS] = {"PROCESSES", 22, COLK_TEXT, 40, 0, "processes"},
	/* Takes a share of the rest; the first out where 80 columns do not hold it beside the others. */
	[COL_TARGET] = {"FD TARGET", 0, COLK_TEXT, 15, 16, "fd_target"},
	/* The I/O pane's; at 80 columns its devices keep reads and writes, its threads p50 and p99. */
	[COL_DEVICE] = {"DEVICE", 12, COLK_TEXT, 0, 0, "device"},
	[COL_IOPS] = {"IOPS", 8, COLK_NUMBER, 0, 0, "iops"},
	[COL_MBS] = {"MB/s", 7, COLK_NUMBER, 90, 0, "mbs"},
	[COL_READS] = {"READS", 8, COLK_NUMBER, 44, 0, "reads"},
	[COL_WRITES] = {"WRITES", 8, COLK_NUMBER, 43, 0, "writes"},
	[COL_MEAN] = {"MEAN", 7, COLK_NUMBER, 42, 0, "mean"},
};

size_t cols_fit(const struct ui_column *cs, size_t n, int cols, int *ret_x, int *ret_idx)
{
	bool keep[64];
	int fixed = 0, flex = 0, x = 0, left;
	size_t kept = 0;

	if (n > sizeof(keep))
		n = sizeof(keep);
	for (size_t i = 0; i < n; i++)
		keep[i] = true;
	/* A missing column reads better than names cut to a few letters. */
	for (;;) {
		int need = 0, drop = -1;

		for (size_t i = 0; i < n; i++)
			if (keep[i])
				need += (cs[i].width ? cs[i].width : cs[i].min_width) + 1;
		if (need <= cols + 1) /* the last column needs no separator */
			break;
		for (size_t i = 0; i < n; i++)
			if (keep[i] && cs[i].priority &&
			    (drop < 0 || cs[i].priority <= cs[drop].priority))
				drop = (int)i;
		if (drop < 0)
			break;
		keep[drop] = false;
	}
	for (size_t i = 0; i < n; i++) {
		if (!keep[i])
			continue;
		if (cs[i].width)
			fixed += cs[i].width + 1;
		else
			flex++;
	}
	left = cols - fixed;
	for (size_t i = 0; i < n; i++) {
		int w = cs[i].width;

		if (!keep[i])
			continue;
		if (!w)
			w = flex ? (left - (flex - 1)) / flex : 0;
		if (w < 1)
			w = 1;
		ret_x[kept] = x;
		ret_idx[kept] = (int)i;
		x += w + 1;
		kept++;
	}
	ret_x[kept] = x;
	return kept;
}

int rows_col_by_key(const char *key)
{
	for (int c = 0; c < COL_MAX; c++)
		if (ui_columns[c].key && !strcmp(ui_columns[c].key, key))
			return c;
	return -1;
}

/* "12.3M" from bytes, top's units (KiB, MiB, ...). */
void cols_fmt_bytes(uint64_t bytes, char *buf, size_t len)
{
	static const char units[] = "KMGTP";
	double v = (double)bytes / 1024;
	int u = 0;

	while (v >= 1024 && u < 4)
		v /= 1024, u++;
	snprintf(buf, len, v < 100 && u ? "%.1f%c" : "%.0f%c", v, units[u]);
}

/* TIME+ as top writes it: "12:34.56" (minutes), "123:45" past 100 minutes, hours past 100. */
void cols_fmt_timep(uint64_t ns, char *buf, size_t len)
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
	return model_log2_percentile(s->hist, TT_SYSCALL_HIST_BUCKETS, pct);
}

void cols_fmt_ns(uint64_t ns, char *buf, size_t len)
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

bool cols_is_sc(int col)
{
	return col == COL_COUNT || col == COL_TIME || col == COL_P50 || col == COL_P99 ||
	       col == COL_HIST;
}

/* What a syscall column shows and sorts by (COL_HIST: the total; it shows the mean). */
uint64_t cols_sc_value(const struct sc_stat *s, int col)
{
	if (col == COL_COUNT)
		return s->count;
	if (col == COL_TIME || col == COL_HIST)
		return s->total_ns;
	return sc_percentile(s, col == COL_P50 ? 50 : 99);
}

void cols_sc_cell(const struct sc_stat *s, int col, char *buf, size_t len)
{
	uint64_t v;

	if (!s || !s->count) {
		snprintf(buf, len, "-");
		return;
	}
	v = cols_sc_value(s, col);
	if (col == COL_COUNT)
		snprintf(buf, len, "%" PRIu64, v);
	else if (col == COL_TIME)
		snprintf(buf, len, "%.1f", (double)v / 1e6);
	else
		cols_fmt_ns(col == COL_HIST ? v / s->count : v, buf, len); /* HIST: the mean */
}

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
	case COL_TARGET:
	case COL_KLEAF:
	case COL_ULEAF:
	case COL_CGROUP:
	case COL_CMD:
	case COL_LABELS:
	case COL_USER:
	case COL_NICE:
	case COL_DEVICE:
		return false;
	default:
		return true;
	}
}
