// SPDX-License-Identifier: GPL-2.0-only
/* Unit tests for option parsing (src/app/cli.c). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "cli.h"
#include "export.h"

static int parse(struct options *o, char *errbuf, size_t len, ...)
{
	char *argv[32] = {"threadtop"};
	int argc = 1, r;
	FILE *err = fmemopen(errbuf, len, "w");
	FILE *out = fopen("/dev/null", "w");
	va_list ap;

	va_start(ap, len);
	while ((argv[argc] = va_arg(ap, char *)))
		argc++;
	va_end(ap);
	r = cli_parse(argc, argv, o, out, err);
	fclose(err);
	fclose(out);
	return r;
}

static void defaults(void **state)
{
	struct options o;
	char err[2048] = "";

	assert_int_equal(parse(&o, err, sizeof(err), NULL), CLI_RUN);
	assert_false(o.batch);
	assert_true(o.delay_s == 1.0);
	assert_int_equal(o.count, 0);
	assert_int_equal(o.hz, 20);
	assert_int_equal(o.format, FORMAT_TEXT);
	assert_int_equal(o.source, SOURCE_AUTO);
	assert_int_equal(o.nr_pids, 0);
	assert_true(o.unwind_budget_pct == 1.0);
}

static void batch_options(void **state)
{
	struct options o;
	char err[2048] = "";

	assert_int_equal(parse(&o, err, sizeof(err), "-b", "-d", "0.5", "-n", "3", "--format",
			       "json", "-p", "12,34", "-p", "56", "-F", "99", "--source", "proc",
			       NULL),
			 CLI_RUN);
	assert_true(o.batch);
	assert_true(o.delay_s == 0.5);
	assert_int_equal(o.count, 3);
	assert_int_equal(o.format, FORMAT_JSON);
	assert_int_equal(o.nr_pids, 3);
	assert_int_equal(o.pids[0], 12);
	assert_int_equal(o.pids[2], 56);
	assert_int_equal(o.hz, 99);
	assert_int_equal(o.source, SOURCE_PROC);
}

static void errors(void **state)
{
	struct options o;
	char err[2048];

	assert_int_equal(parse(&o, err, sizeof(err), "--bogus", NULL), -EINVAL);
	assert_non_null(strstr(err, "unknown option --bogus"));
	assert_non_null(strstr(err, "try 'threadtop --help'"));
	assert_null(strstr(err, "Usage:")); /* one line, not the whole help */
	assert_int_equal(parse(&o, err, sizeof(err), "-p", "12,x", NULL), -EINVAL);
	assert_non_null(strstr(err, "'x' is not a process id"));
	assert_int_equal(parse(&o, err, sizeof(err), "-F", "0", NULL), -EINVAL);
	assert_int_equal(parse(&o, err, sizeof(err), "-F", "1001", NULL), -EINVAL);
	assert_int_equal(parse(&o, err, sizeof(err), "-d", "abc", NULL), -EINVAL);
	assert_int_equal(parse(&o, err, sizeof(err), "-n", "0", NULL), -EINVAL);
	assert_int_equal(parse(&o, err, sizeof(err), "--format", "xml", NULL), -EINVAL);
	assert_int_equal(parse(&o, err, sizeof(err), "-d", NULL), -EINVAL);
	assert_non_null(strstr(err, "needs a value"));
	assert_int_equal(parse(&o, err, sizeof(err), "--unwind-budget", "0", NULL), -EINVAL);
	assert_non_null(strstr(err, "--unwind-budget 0: need a percentage of one core"));
	assert_int_equal(parse(&o, err, sizeof(err), "--unwind-budget", "101", NULL), -EINVAL);
	assert_int_equal(parse(&o, err, sizeof(err), "--unwind-budget", "0.1", NULL), CLI_RUN);
	assert_true(o.unwind_budget_pct == 0.1);
	assert_int_equal(parse(&o, err, sizeof(err), "stray", NULL), -EINVAL);
	assert_int_equal(parse(&o, err, sizeof(err), "-h", NULL), CLI_EXIT_OK);
	assert_int_equal(parse(&o, err, sizeof(err), "-V", NULL), CLI_EXIT_OK);
}

/* NaN passes both "v < min" and "v > max" as false: every float option must refuse it. */
static void non_finite_and_empty_items(void **state)
{
	static const char *const floats[] = {"-d", "--retain", "--cmd-timeout", "--unwind-budget"};
	static const char *const bad[] = {"nan",      "NaN",   "-nan",	   "inf", "-inf",
					  "infinity", "1e999", "nan(0x1)", "+INF"};
	static const char *const lists[] = {",", "1,,2", ",1", "1,", ""};
	struct options o;
	char err[2048];

	for (size_t i = 0; i < sizeof(floats) / sizeof(floats[0]); i++)
		for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
			err[0] = '\0';
			assert_int_equal(parse(&o, err, sizeof(err), floats[i], bad[k], NULL),
					 -EINVAL);
			assert_non_null(strstr(err, floats[i]));
		}
	for (size_t i = 0; i < sizeof(lists) / sizeof(lists[0]); i++) {
		o.nr_pids = 0;
		assert_int_equal(parse(&o, err, sizeof(err), "-p", lists[i], NULL), -EINVAL);
		assert_non_null(strstr(err, "empty item"));
	}
	/* The finite values next to them still parse. */
	assert_int_equal(parse(&o, err, sizeof(err), "-d", "0.5", "--retain", "10", "--cmd-timeout",
			       "2", "--unwind-budget", "5", "-p", "1,2", NULL),
			 CLI_RUN);
	assert_true(o.cmd_timeout_s == 2.0);
	assert_int_equal(o.nr_pids, 2);
}

static void export_options(void **state)
{
	struct options o;
	char err[4096] = "";

	assert_int_equal(parse(&o, err, sizeof(err), "--export", "a.folded", "--export", "b.json",
			       "--export-by", "state", "--force", NULL),
			 CLI_RUN);
	assert_int_equal(o.nr_exports, 2);
	assert_string_equal(o.exports[0], "a.folded");
	assert_string_equal(o.exports[1], "b.json");
	assert_int_equal(o.export_by, EXPORT_BY_STATE);
	assert_int_equal(o.export_format, EXPORT_AUTO);
	assert_true(o.force);
	assert_int_equal(
		parse(&o, err, sizeof(err), "--export", "x.out", "--export-format", "svg", NULL),
		CLI_RUN);
	assert_int_equal(o.export_format, EXPORT_SVG);
	assert_false(o.force);
	assert_int_equal(parse(&o, err, sizeof(err), "--export", "x.out", NULL), -EINVAL);
	assert_non_null(strstr(err, "unknown extension"));
	assert_int_equal(parse(&o, err, sizeof(err), "--export-format", "png", NULL), -EINVAL);
	assert_int_equal(parse(&o, err, sizeof(err), "--export-by", "cpu", NULL), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(defaults),	  cmocka_unit_test(batch_options),
		cmocka_unit_test(errors),	  cmocka_unit_test(non_finite_and_empty_items),
		cmocka_unit_test(export_options),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
