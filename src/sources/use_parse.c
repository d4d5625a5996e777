// SPDX-License-Identifier: GPL-2.0-only
/*
 * Text parsers for the USE metrics (see use_parse.h). Every parser walks a
 * NUL-terminated buffer line by line, bounded by the buffer, and ignores the
 * lines and fields it does not know, so newer kernels that add fields still
 * parse.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "use_parse.h"

uint64_t use_counter_delta(uint64_t prev, uint64_t cur)
{
	if (cur >= prev)
		return cur - prev;
	if (prev <= UINT32_MAX)
		return cur + ((uint64_t)UINT32_MAX + 1 - prev); /* a 32-bit counter wrapped */
	return 0;						/* reset (device re-added) */
}

/* The next line of *p (without its '\n') into [*ret_start, *ret_end); false at the end. */
static bool next_line(const char **p, const char **ret_start, const char **ret_end)
{
	const char *s = *p, *nl;

	if (!*s)
		return false;
	nl = strchr(s, '\n');
	*ret_start = s;
	*ret_end = nl ? nl : s + strlen(s);
	*p = nl ? nl + 1 : *ret_end;
	return true;
}

/* Reads up to max unsigned decimal fields from [p, end) into v; returns how many. */
static int read_fields(const char *p, const char *end, uint64_t *v, int max)
{
	int n = 0;

	while (n < max) {
		char *next;

		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		if (p >= end || *p < '0' || *p > '9')
			break;
		errno = 0;
		v[n] = strtoull(p, &next, 10);
		if (errno || next == p || next > end)
			break;
		p = next;
		n++;
	}
	return n;
}

static bool starts(const char *line, const char *end, const char *word)
{
	size_t len = strlen(word);

	return (size_t)(end - line) >= len && !memcmp(line, word, len);
}

int use_parse_stat(const char *buf, struct use_cpu_times *all, struct use_cpu_times *cpus,
		   size_t cap, unsigned *ret_running)
{
	const char *p = buf, *line, *end;
	int needed = 0;
	bool have_all = false;

	for (size_t i = 0; i < cap; i++)
		cpus[i].valid = false;
	*ret_running = 0;
	while (next_line(&p, &line, &end)) {
		if (starts(line, end, "cpu")) {
			struct use_cpu_times t = {.valid = true};
			const char *q = line + 3;
			uint64_t v[8] = {0};
			long cpu = -1;

			if (q < end && *q >= '0' && *q <= '9') {
				char *after;

				cpu = strtol(q, &after, 10);
				if (cpu < 0 || cpu > 65535 || after > end)
					return -EINVAL;
				q = after;
			}
			/* Old kernels have fewer than eight; four is the minimum. */
			if (read_fields(q, end, v, 8) < 4)
				return -EINVAL;
			for (int i = 0; i < 8; i++)
				t.total += v[i];
			t.busy = t.total - v[3] - v[4];
			if (cpu < 0) {
				*all = t;
				have_all = true;
			} else {
				if ((size_t)cpu < cap)
					cpus[cpu] = t;
				if (cpu + 1 > needed)
					needed = (int)cpu + 1;
			}
		} else if (starts(line, end, "procs_running ")) {
			uint64_t v;

			if (read_fields(line + 14, end, &v, 1) == 1)
				*ret_running = (unsigned)v;
		}
	}
	return have_all ? needed : -EINVAL;
}

int use_parse_loadavg(const char *buf, unsigned *ret_running)
{
	const char *slash = strchr(buf, '/'), *p;
	uint64_t v;

	if (!slash)
		return -EINVAL;
	for (p = slash; p > buf && p[-1] >= '0' && p[-1] <= '9'; p--)
		;
	if (p == slash || read_fields(p, slash, &v, 1) != 1)
		return -EINVAL;
	*ret_running = (unsigned)v;
	return 0;
}

int use_parse_loadavg_all(const char *buf, double *ret_avg3, unsigned *ret_tasks)
{
	double a[3];
	unsigned running, tasks;

	if (sscanf(buf, "%lf %lf %lf %u/%u", &a[0], &a[1], &a[2], &running, &tasks) != 5 ||
	    a[0] < 0 || a[1] < 0 || a[2] < 0)
		return -EINVAL;
	memcpy(ret_avg3, a, sizeof(a));
	*ret_tasks = tasks;
	return 0;
}

int use_parse_uptime(const char *buf, double *ret_s)
{
	double up;

	if (sscanf(buf, "%lf", &up) != 1 || !(up >= 0))
		return -EINVAL;
	*ret_s = up;
	return 0;
}

/* "Key:   1234 kB" lines: the value of key, or false. */
static bool kv_value(const char *line, const char *end, const char *key, uint64_t *ret)
{
	size_t len = strlen(key);

	if ((size_t)(end - line) <= len || memcmp(line, key, len) || line[len] != ':')
		return false;
	return read_fields(line + len + 1, end, ret, 1) == 1;
}

int use_parse_meminfo(const char *buf, struct use_meminfo *ret)
{
	const char *p = buf, *line, *end;
	uint64_t free_kb = 0, buffers = 0, cached = 0;
	struct use_meminfo m = {0};
	bool have_avail = false;

	while (next_line(&p, &line, &end)) {
		if (kv_value(line, end, "MemAvailable", &m.available_kb))
			have_avail = true;
		else if (kv_value(line, end, "MemTotal", &m.total_kb) ||
			 kv_value(line, end, "MemFree", &free_kb) ||
			 kv_value(line, end, "Buffers", &buffers) ||
			 kv_value(line, end, "Cached", &cached) ||
			 kv_value(line, end, "SwapTotal", &m.swap_total_kb) ||
			 kv_value(line, end, "SwapFree", &m.swap_free_kb))
			continue;
	}
	if (!m.total_kb)
		return -EINVAL;
	if (!have_avail)
		m.available_kb = free_kb + buffers + cached;
	if (m.available_kb > m.total_kb)
		m.available_kb = m.total_kb;
	*ret = m;
	return 0;
}

/* "key value" lines of vmstat: the value when the line's key is key. */
static bool word_value(const char *line, const char *end, const char *key, uint64_t *ret)
{
	size_t len = strlen(key);

	if ((size_t)(end - line) <= len || memcmp(line, key, len) || line[len] != ' ')
		return false;
	return read_fields(line + len, end, ret, 1) == 1;
}

int use_parse_vmstat(const char *buf, struct use_vmstat *ret)
{
	const char *p = buf, *line, *end;
	struct use_vmstat vm = {0};
	bool have_swp = false;
	uint64_t v;

	while (next_line(&p, &line, &end)) {
		if (word_value(line, end, "pswpin", &vm.pswpin))
			have_swp = true;
		else if (word_value(line, end, "pswpout", &vm.pswpout) ||
			 word_value(line, end, "pgscan_kswapd", &vm.pgscan_kswapd) ||
			 word_value(line, end, "pgscan_direct", &vm.pgscan_direct))
			continue;
		else if (word_value(line, end, "oom_kill", &vm.oom_kill))
			vm.has_oom_kill = true;
		else if (starts(line, end, "allocstall")) {
			const char *sp = memchr(line, ' ', (size_t)(end - line));

			if (sp && read_fields(sp, end, &v, 1) == 1)
				vm.allocstall += v;
		}
	}
	if (!have_swp)
		return -EINVAL;
	*ret = vm;
	return 0;
}

/* Copies the whitespace-delimited word at *p into name; advances *p. */
static int read_name(const char **p, const char *end, char *name)
{
	const char *s = *p;
	size_t len = 0;

	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	while (s + len < end && s[len] != ' ' && s[len] != '\t' && s[len] != ':')
		len++;
	if (!len || len >= USE_NAME_LEN)
		return -EINVAL;
	memcpy(name, s, len);
	name[len] = '\0';
	*p = s + len;
	return 0;
}

int use_parse_diskstats(const char *buf, struct use_disk_stat *out, size_t cap)
{
	const char *p = buf, *line, *end;
	int nr = 0;

	while (next_line(&p, &line, &end)) {
		struct use_disk_stat d = {0};
		uint64_t majmin[2], v[15] = {0};
		const char *q = line;
		int n;

		if (line == end)
			continue;
		if (read_fields(q, end, majmin, 2) != 2)
			return -EINVAL;
		/* Skip the two numbers read above to reach the name. */
		for (int i = 0; i < 2; i++) {
			while (q < end && (*q == ' ' || *q == '\t'))
				q++;
			while (q < end && *q >= '0' && *q <= '9')
				q++;
		}
		if (read_name(&q, end, d.name) < 0)
			return -EINVAL;
		n = read_fields(q, end, v, 15);
		if (n < 11)
			return -EINVAL;
		/* 1 reads 2 merged 3 sectors 4 ms, 5-8 the same for writes, 9 in flight,
		 * 10 io ms, 11 weighted ms, 12-15 discards (4.18+). */
		d.ios = v[0] + v[4] + (n >= 15 ? v[11] : 0);
		d.io_time_ms = v[3] + v[7] + (n >= 15 ? v[14] : 0);
		d.in_flight = v[8];
		d.busy_ms = v[9];
		d.weighted_ms = v[10];
		if ((size_t)nr < cap)
			out[nr] = d;
		nr++;
	}
	return nr;
}

int use_parse_net_dev(const char *buf, struct use_net_stat *out, size_t cap)
{
	const char *p = buf, *line, *end;
	int nr = 0;

	while (next_line(&p, &line, &end)) {
		const char *colon = memchr(line, ':', (size_t)(end - line)), *q = line;
		struct use_net_stat s = {0};
		uint64_t v[16];

		/* The two header lines have '|' and no "name:" prefix. */
		if (!colon || memchr(line, '|', (size_t)(end - line)))
			continue;
		if (read_name(&q, colon, s.name) < 0)
			return -EINVAL;
		if (read_fields(colon + 1, end, v, 16) != 16)
			return -EINVAL;
		/* rx: bytes packets errs drop fifo frame compressed multicast,
		 * tx: bytes packets errs drop fifo colls carrier compressed */
		s.rx_bytes = v[0];
		s.tx_bytes = v[8];
		s.drops = v[3] + v[4] + v[11] + v[12];
		s.errors = v[2] + v[5] + v[10] + v[14];
		if ((size_t)nr < cap)
			out[nr] = s;
		nr++;
	}
	return nr;
}

/* Index of name among the space-separated words of [line, end), or -1. */
static int word_index(const char *line, const char *end, const char *name)
{
	size_t len = strlen(name);
	int idx = 0;

	for (const char *q = line; q < end;) {
		const char *w;

		while (q < end && *q == ' ')
			q++;
		w = q;
		while (q < end && *q != ' ')
			q++;
		if (q == w)
			break;
		if ((size_t)(q - w) == len && !memcmp(w, name, len))
			return idx;
		idx++;
	}
	return -1;
}

/* The idx-th space-separated word of [line, end) as a signed number (MaxConn is -1). */
static bool word_at(const char *line, const char *end, int idx, uint64_t *ret)
{
	const char *q = line;
	char *next;
	long long v;

	for (int i = 0; i < idx; i++) {
		while (q < end && *q == ' ')
			q++;
		while (q < end && *q != ' ')
			q++;
	}
	while (q < end && *q == ' ')
		q++;
	if (q >= end)
		return false;
	errno = 0;
	v = strtoll(q, &next, 10);
	if (errno || next == q || next > end)
		return false;
	*ret = v < 0 ? 0 : (uint64_t)v;
	return true;
}

int use_parse_snmp_tcp(const char *buf, struct use_tcp_stat *ret)
{
	const char *p = buf, *line, *end, *hdr = NULL, *hdr_end = NULL;
	struct use_tcp_stat t = {0};

	while (next_line(&p, &line, &end)) {
		int out_i, re_i, in_i, cs_i;
		uint64_t v = 0;

		if (!starts(line, end, "Tcp: "))
			continue;
		if (!hdr) {
			hdr = line + 5;
			hdr_end = end;
			continue;
		}
		out_i = word_index(hdr, hdr_end, "OutSegs");
		re_i = word_index(hdr, hdr_end, "RetransSegs");
		in_i = word_index(hdr, hdr_end, "InErrs");
		cs_i = word_index(hdr, hdr_end, "InCsumErrors");
		if (out_i < 0 || re_i < 0 || !word_at(line + 5, end, out_i, &t.out_segs) ||
		    !word_at(line + 5, end, re_i, &t.retrans_segs))
			return -EINVAL;
		if (in_i >= 0 && word_at(line + 5, end, in_i, &v))
			t.in_errs += v;
		if (cs_i >= 0 && word_at(line + 5, end, cs_i, &v))
			t.in_errs += v;
		*ret = t;
		return 0;
	}
	return -EINVAL;
}

/* "total=N" on a PSI line. */
static bool psi_total(const char *line, const char *end, uint64_t *ret)
{
	for (const char *q = line; q + 6 <= end; q++)
		if (!memcmp(q, "total=", 6))
			return read_fields(q + 6, end, ret, 1) == 1;
	return false;
}

int use_parse_psi(const char *buf, struct use_psi *ret)
{
	const char *p = buf, *line, *end;
	struct use_psi psi = {0};
	bool have_some = false;

	while (next_line(&p, &line, &end)) {
		if (starts(line, end, "some ") && psi_total(line, end, &psi.some_us))
			have_some = true;
		else if (starts(line, end, "full ") && psi_total(line, end, &psi.full_us))
			psi.has_full = true;
	}
	if (!have_some)
		return -EINVAL;
	*ret = psi;
	return 0;
}

int use_parse_cg_cpu_stat(const char *buf, struct use_cg_cpu *ret)
{
	const char *p = buf, *line, *end;
	struct use_cg_cpu cg = {0};
	bool have_usage = false;

	while (next_line(&p, &line, &end)) {
		if (word_value(line, end, "usage_usec", &cg.usage_us))
			have_usage = true;
		else if (word_value(line, end, "nr_throttled", &cg.nr_throttled))
			cg.has_throttling = true;
		else if (word_value(line, end, "throttled_usec", &cg.throttled_us))
			continue;
	}
	if (!have_usage)
		return -EINVAL;
	*ret = cg;
	return 0;
}

int use_parse_cg_cpu_max(const char *buf, double *ret_cpus)
{
	const char *end = buf + strlen(buf);
	uint64_t v[2];

	if (!strncmp(buf, "max ", 4)) {
		*ret_cpus = 0;
		return 0;
	}
	if (read_fields(buf, end, v, 2) != 2 || !v[1])
		return -EINVAL;
	*ret_cpus = (double)v[0] / (double)v[1];
	return 0;
}

int use_parse_counter(const char *buf, uint64_t *ret)
{
	char *end;
	uint64_t v;

	while (*buf == ' ')
		buf++;
	if (*buf < '0' || *buf > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(buf, &end, 0);
	if (errno || end == buf || (*end && *end != '\n' && *end != ' '))
		return -EINVAL;
	*ret = v;
	return 0;
}

double use_parse_link_speed(const char *buf)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(buf, &end, 10);
	if (errno || end == buf || v <= 0)
		return 0;
	return (double)v;
}
