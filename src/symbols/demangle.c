// SPDX-License-Identifier: GPL-2.0-only
/*
 * C++ demangling (see demangle.h) with libstdc++'s C-callable
 * __cxa_demangle, declared here: its header is C++ only.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "demangle.h"

char *__cxa_demangle(const char *mangled, char *out, size_t *len, int *status);

#define MANGLED_MAX 4096 /* longer names are left as they are */

const char *demangle(const char *name, char *buf, size_t len)
{
	char mangled[MANGLED_MAX];
	const char *at;
	char *out;
	size_t n;
	int status = -1;

	if (!name || !buf || !len || strncmp(name, "_Z", 2))
		return NULL;
	at = strchr(name, '@'); /* a symbol version: not part of the mangling */
	n = at ? (size_t)(at - name) : strlen(name);
	if (n >= sizeof(mangled))
		return NULL;
	memcpy(mangled, name, n);
	mangled[n] = '\0';
	out = __cxa_demangle(mangled, NULL, NULL, &status);
	if (!out || status != 0) {
		free(out);
		return NULL;
	}
	snprintf(buf, len, "%s%s", out, at ? at : "");
	free(out);
	return buf;
}
