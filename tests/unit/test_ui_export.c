// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for the TUI's export key (ui/export_key.c) on a virtual
 * terminal: x opens a prompt with a default name, Enter writes what the
 * view shows (drill-down included), the status line says where and how big,
 * an existing file is refused, Esc cancels.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>
#include <glob.h>

#include <cmocka.h>

#include "export_fixture.h"
#include "keys.h"
#include "screen.h"
#include "tui_internal.h"

static char dir[64];

static int setup(void **state)
{
	struct screen_opts so = {.headless = true, .rows = 40, .cols = 120};

	strcpy(dir, "/tmp/tt_ui_export.XXXXXX");
	if (!mkdtemp(dir) || chdir(dir) < 0)
		return -1;
	return screen_open(&so);
}

static int teardown(void **state)
{
	char cmd[128];

	screen_close();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd);
}

static void type(struct tui *t, const char *s)
{
	for (; *s; s++)
		tui__key(t, *s);
}

static void clear_prompt(struct tui *t)
{
	for (int i = 0; i < 300; i++)
		tui__key(t, UK_BACKSPACE);
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = calloc(1, 1 << 16);

	assert_non_null(f);
	fread(buf, 1, (1 << 16) - 1, f);
	fclose(f);
	return buf;
}

static void export_key(void **state)
{
	struct model *m = fx_model();
	struct tui *t = tui__new(m, "proc", 20, 1.0);
	struct crumb c = {.syscall = MODEL_ANY_SYSCALL, .tid = 101, .label = "worker"};
	glob_t g;
	char *text;

	t->view.window = WIN_SESSION;
	tui__frame(t);

	/* x, Enter: the default name, JSON outside the Stacks pane. */
	tui__key(t, 'e');
	tui__key(t, UK_ENTER);
	assert_int_equal(glob("threadtop-*-*-*.json", 0, NULL, &g), 0);
	assert_int_equal(g.gl_pathc, 1);
	assert_non_null(strstr(t->view.status, "exported threadtop-"));
	assert_non_null(strstr(t->view.status, " bytes)"));
	globfree(&g);

	/* A name typed, and the drill-down applies: only the worker's samples. */
	view_push(&t->view, &c, PANE_THREADS);
	tui__key(t, 'x');
	clear_prompt(t);
	type(t, "w.folded");
	tui__key(t, UK_ENTER);
	assert_string_equal(t->view.status, "exported w.folded (25 bytes)");
	text = slurp("w.folded");
	assert_string_equal(text, "app;0x402000;0x401000 30\n");
	free(text);

	/* The same name again: refused, the file kept. */
	tui__key(t, 'x');
	clear_prompt(t);
	type(t, "w.folded");
	tui__key(t, UK_ENTER);
	assert_non_null(strstr(t->view.status, "exists"));

	/* Esc cancels; keys go back to the view. */
	tui__key(t, 'x');
	clear_prompt(t);
	type(t, "never.json");
	tui__key(t, UK_ESC);
	assert_int_equal(access("never.json", F_OK), -1);
	assert_true(tui__key(t, UK_DOWN));
	assert_false(tui__key(t, 'q'));

	tui__free(t);
	model__free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(export_key),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
