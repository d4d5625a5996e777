/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The files side of the export tests (test_export*.c): a scratch directory
 * per test group, the export options they share, writing one file with its
 * result checked, and reading it back plain or gunzipped. Include after
 * cmocka.h; the model and namer are in export_fixture.h.
 */
#ifndef TT_EXPORT_FILES_H
#define TT_EXPORT_FILES_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "export.h"
#include "threadtop/frame_namer.h"
#include "model.h"
#include "util.h"

/* Every file the tests write is smaller than this. */
#define FX_FILE_MAX (1 << 20)

static char fx_dir[64];

/* Makes the scratch directory from a mkdtemp template ("/tmp/name.XXXXXX"). */
static inline int fx_dir_make(const char *template)
{
	snprintf(fx_dir, sizeof(fx_dir), "%s", template);
	return mkdtemp(fx_dir) ? 0 : -1;
}

static inline int fx_dir_remove(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", fx_dir);
	return system(cmd);
}

/* NAME in the scratch directory; the buffer is overwritten by the next call. */
static inline char *fx_path(const char *name)
{
	static char buf[128];

	snprintf(buf, sizeof(buf), "%s/%s", fx_dir, name);
	return buf;
}

/* The options of a batch export of the fixture's session, split BY, named by NAMER. */
static inline struct export_opts fx_opts(enum export_by by, const struct frame_namer *namer)
{
	return (struct export_opts){
		.by = by,
		.window = WIN_SESSION,
		.namer = namer,
		.source = "proc",
		.hz = 20,
		.host = "testhost",
		.realtime_ns = 1700000000ull * NSEC_PER_SEC,
	};
}

/*
 * Exports M to NAME in the scratch directory; when that succeeds, checks
 * it wrote that one file and it is not empty. Returns export__write's result.
 */
static inline int fx_export(struct model *m, const char *name, const struct export_opts *o,
			    char *err, size_t len)
{
	struct export_result res;
	int e = export__write(m, fx_path(name), o, &res, err, len);

	if (!e) {
		assert_int_equal(res.nr, 1);
		assert_string_equal(res.paths[0], fx_path(name));
		assert_true(res.sizes[0] > 0);
		export_result__release(&res);
	}
	return e;
}

/* A text file whole, NUL-terminated, not empty; the caller frees it. */
static inline char *fx_slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = calloc(1, FX_FILE_MAX);
	size_t n;

	assert_non_null(f);
	n = fread(buf, 1, FX_FILE_MAX - 1, f);
	assert_true(n > 0 && n < FX_FILE_MAX - 1);
	fclose(f);
	return buf;
}

/* A gzipped file, decompressed whole and not empty; the caller frees it. */
static inline uint8_t *fx_gunzip(const char *path, size_t *ret_len)
{
	gzFile gz = gzopen(path, "rb");
	uint8_t *buf = calloc(1, FX_FILE_MAX);
	int n;

	assert_non_null(gz);
	assert_int_equal(gzdirect(gz), 0); /* gzread passes plain files through */
	n = gzread(gz, buf, FX_FILE_MAX - 1);
	assert_true(n > 0 && n < FX_FILE_MAX - 1);
	gzclose(gz);
	*ret_len = (size_t)n;
	return buf;
}

#endif /* TT_EXPORT_FILES_H */
