// SPDX-License-Identifier: GPL-2.0-only
/* Unit tests for label definitions: command-line specs and labels files. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "labels.h"

static struct label_set set;
static char err[512];

static int setup(void **state)
{
	memset(&set, 0, sizeof(set));
	err[0] = '\0';
	return 0;
}

static void set_forms(void **state)
{
	const struct label_def *d;

	assert_int_equal(
		label_set__add(
			&set, LABEL_SET,
			"wait=/usr/lib/postgresql/15/bin/postgres:pgstat_report_wait_start:arg1",
			err, sizeof(err)),
		0);
	d = &set.defs[0];
	assert_string_equal(d->name, "wait");
	assert_string_equal(d->binary, "/usr/lib/postgresql/15/bin/postgres");
	assert_string_equal(d->function, "pgstat_report_wait_start");
	assert_int_equal(d->arg_kind, LABEL_ARG_NUMBER);
	assert_int_equal(d->argn, 1);
	assert_int_equal(d->slot, 0);

	assert_int_equal(
		label_set__add(&set, LABEL_SCOPE, "req=pid:4242:handle:str:arg2", err, sizeof(err)),
		0);
	d = &set.defs[1];
	assert_string_equal(d->binary, "/proc/4242/exe");
	assert_int_equal(d->pid, 4242);
	assert_int_equal(d->arg_kind, LABEL_ARG_STRING);
	assert_int_equal(d->argn, 2);
	assert_int_equal(d->slot, 1);

	assert_int_equal(
		label_set__add(&set, LABEL_SET, "wait=/bin/x:f:IO: disk", err, sizeof(err)), 0);
	d = &set.defs[2];
	assert_int_equal(d->arg_kind, LABEL_ARG_LITERAL);
	assert_string_equal(d->literal, "IO: disk");
	assert_int_equal(d->slot, 0); /* same name, same slot */

	assert_int_equal(
		label_set__add(&set, LABEL_CLEAR, "wait=/bin/x:end_wait", err, sizeof(err)), 0);
	assert_int_equal(set.defs[3].arg_kind, LABEL_ARG_NONE);
	assert_int_equal(set.nr_names, 2);
	assert_int_equal(label_set__slot(&set, "req"), 1);
	assert_int_equal(label_set__slot(&set, "nope"), -1);
}

static void errors_name_the_part(void **state)
{
	static const struct {
		enum label_kind kind;
		const char *spec, *why;
	} bad[] = {
		{LABEL_SET, "noequals", "NAME must be"},
		{LABEL_SET, "9x=/bin/a:f:arg1", "NAME must be"},
		{LABEL_SET, "averyveryverylongname=/bin/a:f:arg1", "NAME must be"},
		{LABEL_SET, "w=relative:f:arg1", "absolute path"},
		{LABEL_SET, "w=/bin/a", "expected NAME=BINARY:FUNCTION"},
		{LABEL_SET, "w=:f:arg1", "path is empty"},
		{LABEL_SET, "w=pid:x:f:arg1", "pid:PID"},
		{LABEL_SET, "w=pid:0:f:arg1", "pid:PID"},
		{LABEL_SET, "w=/bin/a:f", "a value is needed"},
		{LABEL_SET, "w=/bin/a:f:", "a value is needed"},
		{LABEL_SET, "w=/bin/a:f;rm:arg1", "FUNCTION must be"},
		{LABEL_SET, "w=/bin/a::arg1", "FUNCTION must be"},
		{LABEL_SET, "w=/bin/a:f:str:arg7", "str: needs"},
		{LABEL_CLEAR, "w=/bin/a:f:arg1", "takes no value"},
		{LABEL_SET,
		 "w=/bin/a:f:0123456789012345678901234567890123456789012345678901234567890123",
		 "at most 63"},
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		assert_int_equal(label_set__add(&set, bad[i].kind, bad[i].spec, err, sizeof(err)),
				 -EINVAL);
		if (!strstr(err, bad[i].why))
			fail_msg("'%s': got '%s', want '%s'", bad[i].spec, err, bad[i].why);
	}
	assert_int_equal(set.nr_defs, 0);
}

static void limits(void **state)
{
	char spec[64];

	for (int i = 0; i < LABEL_MAX_SLOTS; i++) {
		snprintf(spec, sizeof(spec), "n%d=/bin/a:f:arg1", i);
		assert_int_equal(label_set__add(&set, LABEL_SET, spec, err, sizeof(err)), 0);
	}
	assert_int_equal(label_set__add(&set, LABEL_SET, "extra=/bin/a:f:arg1", err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "more than 4"));
	while (set.nr_defs < LABEL_MAX_DEFS)
		assert_int_equal(
			label_set__add(&set, LABEL_SET, "n0=/bin/a:f:arg1", err, sizeof(err)), 0);
	assert_int_equal(label_set__add(&set, LABEL_SET, "n0=/bin/a:f:arg1", err, sizeof(err)),
			 -E2BIG);
}

static void labels_file(void **state)
{
	const char *text = "# PostgreSQL wait events\n"
			   "\n"
			   "set   wait=/usr/bin/pg:begin_wait:str:arg1  \n"
			   "clear wait=/usr/bin/pg:end_wait\n"
			   "scope phase=/usr/sbin/nginx:ngx_http_core_run_phases:run\n";

	assert_int_equal(
		label_set__parse_file(&set, "pg.labels", text, strlen(text), err, sizeof(err)), 0);
	assert_int_equal(set.nr_defs, 3);
	assert_int_equal(set.defs[0].kind, LABEL_SET);
	assert_int_equal(set.defs[1].kind, LABEL_CLEAR);
	assert_int_equal(set.defs[2].kind, LABEL_SCOPE);
	assert_string_equal(set.defs[2].literal, "run");

	text = "set wait=/usr/bin/pg:begin_wait:arg1\nbogus line\n";
	assert_int_equal(
		label_set__parse_file(&set, "x.labels", text, strlen(text), err, sizeof(err)),
		-EINVAL);
	assert_string_equal(err, "x.labels:2: expected set, clear or scope");
	text = "set w=/b:f:arg1\nset w=relative:f:arg1\n";
	assert_int_equal(label_set__parse_file(&set, "y", text, strlen(text), err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "y:2: --label 'w=relative:f:arg1': "));
	assert_int_equal(label_set__load_file(&set, "/nonexistent/x.labels", err, sizeof(err)),
			 -ENOENT);
	assert_non_null(strstr(err, "/nonexistent/x.labels: No such file"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(set_forms, setup),
		cmocka_unit_test_setup(errors_name_the_part, setup),
		cmocka_unit_test_setup(limits, setup),
		cmocka_unit_test_setup(labels_file, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
