// SPDX-License-Identifier: GPL-2.0-only
/* Parsers for /proc/PID/task/TID/{stat,syscall,cmdline} and status text (see procfs.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "procfs.h"

/* Parses an unsigned decimal or (base 16) hex field; advances *p past it. */
static int parse_u64(const char **p, int base, uint64_t *ret)
{
	char *end;

	while (**p == ' ')
		(*p)++;
	if (**p == '\0' || **p == '-')
		return -EINVAL;
	errno = 0;
	*ret = strtoull(*p, &end, base);
	if (end == *p || errno)
		return -EINVAL;
	*p = end;
	return 0;
}

static int parse_i64(const char **p, int64_t *ret)
{
	char *end;

	while (**p == ' ')
		(*p)++;
	errno = 0;
	*ret = strtoll(*p, &end, 10);
	if (end == *p || errno)
		return -EINVAL;
	*p = end;
	return 0;
}

/* Moves *p past one space-separated field; -EINVAL at the end of the text. */
static int skip_field(const char **p)
{
	while (**p == ' ')
		(*p)++;
	if (!**p || **p == '\n')
		return -EINVAL;
	while (**p && **p != ' ' && **p != '\n')
		(*p)++;
	return 0;
}

int procfs_parse_stat(const char *buf, struct proc_task_stat *ret)
{
	const char *open = strchr(buf, '('), *close = strrchr(buf, ')'), *p;
	struct proc_task_stat st = {0};
	size_t comm_len;

	if (!open || !close || close < open || close[1] != ' ' || !close[2])
		return -EINVAL;
	comm_len = (size_t)(close - open - 1);
	if (comm_len >= TT_COMM_LEN)
		comm_len = TT_COMM_LEN - 1;
	memcpy(st.comm, open + 1, comm_len);
	st.state = close[2];
	p = close + 3;
	/* Fields 4 (ppid) to 39 (processor); parse the ones we keep. */
	for (int field = 4; field <= 39; field++) {
		uint64_t u;
		int64_t v;
		int err;

		switch (field) {
		case 4:
		case 19:
		case 24:
		case 39:
			err = parse_i64(&p, &v);
			if (field == 4)
				st.ppid = (int)v;
			else if (field == 19)
				st.nice = (int)v;
			else if (field == 24)
				st.rss_pages = v > 0 ? (uint64_t)v : 0;
			else
				st.processor = (int)v;
			break;
		case 9:
		case 14:
		case 15:
		case 20:
		case 22:
			err = parse_u64(&p, 10, &u);
			if (field == 9)
				st.flags = (unsigned)u;
			else if (field == 14)
				st.utime_ticks = u;
			else if (field == 15)
				st.stime_ticks = u;
			else if (field == 20)
				st.num_threads = (unsigned)u;
			else
				st.start_ticks = u;
			break;
		default:
			err = skip_field(&p);
		}
		if (err)
			return -EINVAL;
	}
	*ret = st;
	return 0;
}

int procfs_parse_syscall(const char *buf, struct proc_syscall *ret)
{
	struct proc_syscall sc = {.nr = TT_SYSCALL_NONE};
	const char *p = buf;
	int64_t nr;

	if (strncmp(buf, "running", 7) == 0) {
		sc.running = true;
		*ret = sc;
		return 0;
	}
	if (parse_i64(&p, &nr) < 0 || nr < -1 || nr > 4095)
		return -EINVAL;
	if (nr >= 0) {
		sc.nr = (int)nr;
		for (int i = 0; i < 6; i++) {
			while (*p == ' ')
				p++;
			if (strncmp(p, "0x", 2) != 0 || parse_u64(&p, 16, &sc.args[i]) < 0)
				return -EINVAL;
		}
	}
	if (parse_u64(&p, 16, &sc.sp) < 0 || parse_u64(&p, 16, &sc.pc) < 0)
		return -EINVAL;
	*ret = sc;
	return 0;
}

size_t procfs_join_cmdline(const char *buf, size_t len, char *out, size_t cap)
{
	size_t n = 0;

	if (cap == 0)
		return 0;
	/* Trailing NULs end the last argument; they are not separators. */
	while (len > 0 && buf[len - 1] == '\0')
		len--;
	for (size_t i = 0; i < len && n < cap - 1; i++)
		out[n++] = buf[i] == '\0' ? ' ' : buf[i];
	out[n] = '\0';
	return n;
}

enum tt_state procfs_state(char letter)
{
	switch (letter) {
	case 'R':
		return TT_ST_R;
	case 'S':
		return TT_ST_S;
	case 'D':
		return TT_ST_D;
	case 'T':
		return TT_ST_T;
	case 't':
		return TT_ST_t;
	case 'Z':
		return TT_ST_Z;
	case 'X':
	case 'x':
		return TT_ST_X;
	case 'I':
		return TT_ST_I;
	case 'P':
		return TT_ST_P;
	default:
		return TT_ST_UNKNOWN;
	}
}

char tt_state_letter(unsigned state)
{
	return state < TT_ST_MAX ? TT_STATE_LETTERS[state] : '?';
}

uint32_t procfs_parse_nspid(const char *status, uint32_t fallback)
{
	const char *line = !strncmp(status, "NSpid:", 6) ? status : strstr(status, "\nNSpid:");
	const char *p, *last = NULL;
	unsigned long v;
	char *end;

	if (!line)
		return fallback;
	p = strchr(line, ':') + 1;
	/* The last number of the line: the innermost namespace. */
	while (*p && *p != '\n') {
		if (*p >= '0' && *p <= '9') {
			last = p;
			while (*p >= '0' && *p <= '9')
				p++;
		} else {
			p++;
		}
	}
	if (!last)
		return fallback;
	errno = 0;
	v = strtoul(last, &end, 10);
	if (errno || v == 0 || v > UINT32_MAX)
		return fallback;
	return (uint32_t)v;
}

int procfs_parse_statm_rss(const char *buf, uint64_t *pages)
{
	unsigned long long v;
	char *end;

	errno = 0;
	if (*buf < '0' || *buf > '9')
		return -EINVAL;
	strtoull(buf, &end, 10); /* the size */
	if (errno || *end != ' ' || end[1] < '0' || end[1] > '9')
		return -EINVAL;
	buf = end + 1;
	v = strtoull(buf, &end, 10);
	if (errno || (*end != ' ' && *end != '\n' && *end))
		return -EINVAL;
	*pages = v;
	return 0;
}

uint32_t procfs_parse_euid(const char *status, uint32_t fallback)
{
	const char *line = !strncmp(status, "Uid:", 4) ? status : strstr(status, "\nUid:");
	unsigned long v;
	char *end;

	if (!line)
		return fallback;
	line = strchr(line, ':') + 1;
	errno = 0;
	strtoul(line, &end, 10); /* the real uid */
	if (errno || end == line || (*end != '\t' && *end != ' '))
		return fallback;
	line = end;
	v = strtoul(line, &end, 10);
	if (errno || end == line || v > UINT32_MAX)
		return fallback;
	return (uint32_t)v;
}
