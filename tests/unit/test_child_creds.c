// SPDX-License-Identifier: GPL-2.0-only
/* Unit tests for the credentials of threadtop's children (src/lib/child_creds.c). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "child_creds.h"

static void as_root_keeps_everything(void **state)
{
	struct child_creds c;
	char err[256];

	assert_int_equal(child_creds_resolve(&c, true, err, sizeof(err)), 0);
	assert_true(c.as_root);
	assert_false(c.change_ids);
	assert_int_equal(child_creds_apply(&c), 0); /* nothing to do */
}

static void resolve_as_root(void **state)
{
	struct child_creds c;
	char err[256];

	if (geteuid() != 0) {
		assert_int_equal(child_creds_resolve(&c, false, err, sizeof(err)), 0);
		assert_false(c.change_ids); /* no ids to change: only capabilities go */
		skip();
	}
	setenv("SUDO_UID", "3999991", 1);
	setenv("SUDO_GID", "3999992", 1);
	assert_int_equal(child_creds_resolve(&c, false, err, sizeof(err)), 0);
	assert_true(c.change_ids);
	assert_int_equal(c.uid, 3999991);
	assert_int_equal(c.gid, 3999992);
	assert_int_equal(c.nr_groups, 1); /* no such user: its primary group alone */
	assert_int_equal(c.groups[0], 3999992);
	assert_string_equal(c.user, "uid 3999991");
	/* SUDO_UID=0 would hand root back: only --cmd-as-root means that. */
	setenv("SUDO_UID", "0", 1);
	assert_int_equal(child_creds_resolve(&c, false, err, sizeof(err)), -EPERM);
	assert_non_null(strstr(err, "--cmd-as-root"));
	unsetenv("SUDO_UID");
	unsetenv("SUDO_GID");
	assert_int_equal(child_creds_resolve(&c, false, err, sizeof(err)), 0);
	assert_true(c.change_ids);
	assert_int_not_equal(c.uid, 0);
	assert_int_not_equal(c.gid, 0);
}

/* In a child: after apply, nothing of root is left (checked by apply, and here). */
static void apply_in_child(void **state)
{
	struct child_creds c;
	char err[256];
	int status;
	pid_t pid;

	if (geteuid() != 0)
		skip();
	setenv("SUDO_UID", "3999991", 1);
	setenv("SUDO_GID", "3999992", 1);
	assert_int_equal(child_creds_resolve(&c, false, err, sizeof(err)), 0);
	unsetenv("SUDO_UID");
	unsetenv("SUDO_GID");
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		uid_t r, e, s;

		if (child_creds_apply(&c) < 0)
			_exit(1);
		if (getresuid(&r, &e, &s) < 0 || r != 3999991 || e != 3999991 || s != 3999991)
			_exit(2);
		if (setuid(0) == 0 || prctl(PR_CAPBSET_READ, 0, 0, 0, 0) != 0)
			_exit(3); /* no way back */
		if (prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != 1)
			_exit(4);
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(as_root_keeps_everything),
		cmocka_unit_test(resolve_as_root),
		cmocka_unit_test(apply_in_child),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
