// SPDX-License-Identifier: GPL-2.0-only
/*
 * Parser and validator of label definitions (see labels.h). Everything here
 * comes from the user or a file they were sent: every field is bounded and
 * checked, and an error says which part is wrong.
 */
#include <ctype.h>
#include <stdbool.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "threadtop/events.h"
#include "labels.h"
#include "line_reader.h"
#include "user_file.h"
#include "util.h"

_Static_assert(LABEL_MAX_SLOTS == TT_LABEL_SLOT_ID_LAST - TT_LABEL_SLOT_ID_BASE + 1,
	       "slots are the label slot id space of events.h");

#define LABELS_FILE_MAX (1u << 20)

static const char *const kind_names[] = {"--label", "--label-clear", "--label-scope"};

static int fail(char *err, size_t errlen, enum label_kind kind, const char *spec, const char *why)
{
	snprintf(err, errlen, "%s '%.80s': %s", kind_names[kind], spec, why);
	return -EINVAL;
}

static bool valid_name(const char *s, size_t len)
{
	if (len == 0 || len >= LABEL_NAME_LEN || !(isalpha((unsigned char)s[0]) || s[0] == '_'))
		return false;
	for (size_t i = 1; i < len; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_')
			return false;
	return true;
}

static bool valid_function(const char *s, size_t len)
{
	if (len == 0 || len >= LABEL_FUNC_LEN)
		return false;
	for (size_t i = 0; i < len; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_' && s[i] != '.' && s[i] != '@' &&
		    s[i] != '$')
			return false;
	return true;
}

/* "argN" with N from 1 to 6: returns N, or 0. */
static int parse_argn(const char *s)
{
	if (strncmp(s, "arg", 3) == 0 && s[3] >= '1' && s[3] <= '6' && s[4] == '\0')
		return s[3] - '0';
	return 0;
}

static int parse_binary(struct label_def *d, const char **p, enum label_kind kind, const char *spec,
			char *err, size_t errlen)
{
	const char *colon;
	size_t len;

	if (strncmp(*p, "pid:", 4) == 0) {
		char *end;
		long pid;

		errno = 0;
		pid = strtol(*p + 4, &end, 10);
		if (errno || end == *p + 4 || *end != ':' || pid < 1 || pid > 4194304)
			return fail(err, errlen, kind, spec, "pid:PID needs a process id");
		d->pid = (int)pid;
		snprintf(d->binary, sizeof(d->binary), "/proc/%ld/exe", pid);
		*p = end + 1;
		return 0;
	}
	colon = strchr(*p, ':');
	if (!colon)
		return fail(err, errlen, kind, spec, "expected NAME=BINARY:FUNCTION");
	len = (size_t)(colon - *p);
	if (len == 0)
		return fail(err, errlen, kind, spec, "the binary path is empty");
	if (len >= LABEL_PATH_LEN)
		return fail(err, errlen, kind, spec, "the binary path is longer than 255 bytes");
	if (**p != '/')
		return fail(err, errlen, kind, spec,
			    "the binary must be an absolute path or pid:PID");
	memcpy(d->binary, *p, len);
	d->binary[len] = '\0';
	*p = colon + 1;
	return 0;
}

static int assign_slot(struct label_set *set, struct label_def *d, enum label_kind kind,
		       const char *spec, char *err, size_t errlen)
{
	int slot = label_set__slot(set, d->name);

	if (slot < 0) {
		if (set->nr_names == LABEL_MAX_SLOTS)
			return fail(err, errlen, kind, spec, "more than 4 distinct label names");
		slot = (int)set->nr_names++;
		memcpy(set->names[slot], d->name, LABEL_NAME_LEN);
	}
	d->slot = slot;
	return 0;
}

int label_set__add(struct label_set *set, enum label_kind kind, const char *spec, char *err,
		   size_t errlen)
{
	struct label_def d = {.kind = kind};
	const char *eq = strchr(spec, '='), *p, *colon;
	size_t len;
	int ret;

	if (set->nr_defs == LABEL_MAX_DEFS) {
		snprintf(err, errlen, "%s: more than %d label definitions", kind_names[kind],
			 LABEL_MAX_DEFS);
		return -E2BIG;
	}
	if (!eq || !valid_name(spec, (size_t)(eq - spec)))
		return fail(err, errlen, kind, spec,
			    "NAME must be 1 to 15 letters, digits or _, then '='");
	memcpy(d.name, spec, (size_t)(eq - spec));
	p = eq + 1;
	ret = parse_binary(&d, &p, kind, spec, err, errlen);
	if (ret)
		return ret;
	colon = strchr(p, ':');
	len = colon ? (size_t)(colon - p) : strlen(p);
	if (!valid_function(p, len))
		return fail(err, errlen, kind, spec, "FUNCTION must be a symbol name");
	memcpy(d.function, p, len);
	if (kind == LABEL_CLEAR) {
		if (colon)
			return fail(err, errlen, kind, spec, "a clear takes no value");
		d.arg_kind = LABEL_ARG_NONE;
	} else {
		const char *arg = colon ? colon + 1 : NULL;

		if (!arg || !*arg)
			return fail(err, errlen, kind, spec,
				    "a value is needed: argN, str:argN or a literal");
		if ((d.argn = parse_argn(arg))) {
			d.arg_kind = LABEL_ARG_NUMBER;
		} else if (strncmp(arg, "str:", 4) == 0) {
			d.argn = parse_argn(arg + 4);
			if (!d.argn)
				return fail(err, errlen, kind, spec, "str: needs arg1 to arg6");
			d.arg_kind = LABEL_ARG_STRING;
		} else {
			if (strlen(arg) >= LABEL_VALUE_LEN)
				return fail(err, errlen, kind, spec,
					    "a literal is at most 63 bytes");
			d.arg_kind = LABEL_ARG_LITERAL;
			strcpy(d.literal, arg);
		}
	}
	ret = assign_slot(set, &d, kind, spec, err, errlen);
	if (ret)
		return ret;
	set->defs[set->nr_defs++] = d;
	return 0;
}

int label_set__slot(const struct label_set *set, const char *name)
{
	for (size_t i = 0; i < set->nr_names; i++)
		if (!strcmp(set->names[i], name))
			return (int)i;
	return -1;
}

int label_set__parse_file(struct label_set *set, const char *name, const char *text, size_t len,
			  char *err, size_t errlen)
{
	struct line_reader lr;
	const char *src;
	int lineno = 0;
	size_t n;

	line_reader__init_mem(&lr, text, len, LINE_READER_NO_LIMIT);
	while (line_reader__next(&lr, &src, &n) > 0) {
		char line[1024], why[512];
		char *p = line, *end;
		enum label_kind kind;
		int ret;

		lineno++;
		if (n >= sizeof(line)) {
			snprintf(err, errlen, "%s:%d: line longer than %zu bytes", name, lineno,
				 sizeof(line) - 1);
			return -EINVAL;
		}
		memcpy(line, src, n);
		line[n] = '\0';
		if (memchr(line, '\0', n)) {
			snprintf(err, errlen, "%s:%d: NUL byte in the line", name, lineno);
			return -EINVAL;
		}
		while (isspace((unsigned char)*p))
			p++;
		end = p + strlen(p);
		while (end > p && isspace((unsigned char)end[-1]))
			*--end = '\0';
		if (!*p || *p == '#')
			continue;
		if (!strncmp(p, "set ", 4))
			kind = LABEL_SET, p += 4;
		else if (!strncmp(p, "clear ", 6))
			kind = LABEL_CLEAR, p += 6;
		else if (!strncmp(p, "scope ", 6))
			kind = LABEL_SCOPE, p += 6;
		else {
			snprintf(err, errlen, "%s:%d: expected set, clear or scope", name, lineno);
			return -EINVAL;
		}
		while (*p == ' ')
			p++;
		ret = label_set__add(set, kind, p, why, sizeof(why));
		if (ret) {
			snprintf(err, errlen, "%s:%d: %s", name, lineno, why);
			return ret;
		}
	}
	return 0;
}

int label_set__load_file(struct label_set *set, const char *path, char *err, size_t errlen)
{
	char *text;
	ssize_t n;
	int ret, fd = user_file_open(path, USER_FILE_READ, false, 0);

	if (fd < 0) {
		snprintf(err, errlen, "--labels %s: %s", path,
			 user_file_reason(fd, USER_FILE_READ));
		return fd;
	}
	text = xmalloc(LABELS_FILE_MAX + 1);
	n = read_fd(fd, text, LABELS_FILE_MAX + 1);
	close(fd);
	if (n < 0) {
		snprintf(err, errlen, "--labels %s: %s", path, strerror((int)-n));
		free(text);
		return (int)n;
	}
	if ((size_t)n == LABELS_FILE_MAX) {
		snprintf(err, errlen, "--labels %s: larger than 1 MiB", path);
		free(text);
		return -EFBIG;
	}
	ret = label_set__parse_file(set, path, text, (size_t)n, err, errlen);
	free(text);
	return ret;
}
