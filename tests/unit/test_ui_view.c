// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for the TUI's view logic without a terminal: the breadcrumb
 * stack and the filter it builds, selection and scrolling, sort steps, and
 * key dispatch (panes, drill-down and back, search, filter, pickers, hide
 * flags, pause, help, quit) against a fake pane.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "keys.h"
#include "panes.h"
#include "rows.h"
#include "view.h"

/* A fake pane: rows are names; drilling row i narrows to tid 100 + i. */
static const char *const names[] = {"nginx", "postgres", "redis", "nginx-worker", "sshd"};
#define NR_NAMES 5

static bool fake_drill(void *ctx, size_t i, struct crumb *c)
{
	c->tid = 100 + (uint32_t)i;
	snprintf(c->label, sizeof(c->label), "tid %zu %s", 100 + i, names[i]);
	return true;
}

static bool fake_match(void *ctx, size_t i, const char *text)
{
	return strstr(names[i], text) != NULL;
}

static int tree_ops;
static void fake_tree(void *ctx, size_t i, int op)
{
	tree_ops++;
}

static const int fake_cols[] = {COL_PID, COL_COMM, COL_CPU, COL_ACTIVE};

static struct view_env env(size_t page)
{
	return (struct view_env){
		.nr_rows = NR_NAMES,
		.page = page,
		.cols = fake_cols,
		.nr_cols = 4,
		.drill = fake_drill,
		.match = fake_match,
		.tree = fake_tree,
	};
}

static void breadcrumb_stack(void **state)
{
	struct view v;
	struct crumb c = {.syscall = MODEL_ANY_SYSCALL};
	struct model_filter f;
	char buf[512];

	view_init(&v);
	assert_string_equal(view_breadcrumb(&v, buf, sizeof(buf)), "all");
	c.pid = 4242;
	snprintf(c.label, sizeof(c.label), "pid 4242 nginx");
	assert_true(view_push(&v, &c, PANE_GROUP));
	assert_int_equal(v.pane, PANE_GROUP);
	memset(&c, 0, sizeof(c));
	c.syscall = MODEL_ANY_SYSCALL;
	c.state_mask = 1u << TT_ST_S;
	snprintf(c.label, sizeof(c.label), "S");
	assert_true(view_push(&v, &c, PANE_GROUP));
	memset(&c, 0, sizeof(c));
	c.syscall = 232;
	snprintf(c.label, sizeof(c.label), "epoll_wait");
	assert_true(view_push(&v, &c, PANE_THREADS));
	assert_string_equal(view_breadcrumb(&v, buf, sizeof(buf)),
			    "all > pid 4242 nginx > S > epoll_wait");

	/* The crumbs merge into one filter. */
	view_filter(&v, &f);
	assert_int_equal(f.pid, 4242);
	assert_int_equal(f.state_mask, 1u << TT_ST_S);
	assert_int_equal(f.syscall, 232);
	assert_int_equal(f.tid, 0);

	/* Pops go back to the pane each step came from. */
	assert_true(view_pop(&v));
	assert_int_equal(v.pane, PANE_GROUP);
	assert_true(view_pop(&v));
	assert_true(view_pop(&v));
	assert_int_equal(v.pane, PANE_THREADS);
	assert_false(view_pop(&v));
	view_filter(&v, &f);
	assert_int_equal(f.pid, 0);
	assert_int_equal(f.syscall, MODEL_ANY_SYSCALL);

	/* The stack is bounded. */
	for (int i = 0; i < VIEW_MAX_CRUMBS; i++)
		assert_true(view_push(&v, &c, PANE_THREADS));
	assert_false(view_push(&v, &c, PANE_THREADS));
	assert_non_null(strstr(v.status, "levels"));
}

static void queries(void **state)
{
	struct view v;
	struct model_query q;

	view_init(&v);
	view_query(&v, PANE_THREADS, &q);
	assert_int_equal(q.dims, DIM_BIT(DIM_TID));
	assert_int_equal(q.window, WIN_LAST);
	view_query(&v, PANE_SYSCALLS, &q);
	assert_int_equal(q.dims, DIM_BIT(DIM_SYSCALL));
	view_query(&v, PANE_GROUP, &q);
	assert_int_equal(q.dims, DIM_BIT(DIM_STATE) | DIM_BIT(DIM_SYSCALL));
	/* Stacks: on-CPU is running samples only; off-CPU is the rest but idle. */
	view_query(&v, PANE_STACKS, &q);
	assert_int_equal(q.filter.state_mask, 1u << TT_ST_R);
	v.offcpu = true;
	view_query(&v, PANE_STACKS, &q);
	assert_false(q.filter.state_mask & (1u << TT_ST_R));
	assert_true(q.filter.state_mask & (1u << TT_ST_D));
	assert_false(q.filter.state_mask & (1u << TT_ST_I));
	v.hide_kthreads = true;
	view_query(&v, PANE_THREADS, &q);
	assert_true(q.filter.hide_kthreads);
	assert_false(q.filter.hide_user_threads);
}

static void selection_and_scroll(void **state)
{
	struct view v;

	view_init(&v);
	view_move(&v, 1, 100, 10);
	assert_int_equal(v.per_pane[0].sel, 1);
	view_move(&v, 20, 100, 10);
	assert_int_equal(v.per_pane[0].sel, 21);
	assert_int_equal(v.per_pane[0].top, 12); /* the selection is the last row shown */
	view_move(&v, -1000, 100, 10);
	assert_int_equal(v.per_pane[0].sel, 0);
	assert_int_equal(v.per_pane[0].top, 0);
	view_select(&v, 500, 100, 10);
	assert_int_equal(v.per_pane[0].sel, 99);
	assert_int_equal(v.per_pane[0].top, 90);
	/* Rows went away: selection and scroll follow. */
	view_clamp(&v, 5, 10);
	assert_int_equal(v.per_pane[0].sel, 4);
	assert_int_equal(v.per_pane[0].top, 0);
	view_clamp(&v, 0, 10);
	assert_int_equal(v.per_pane[0].sel, 0);
}

static void sorting(void **state)
{
	struct view v;
	struct view_env e = env(3);

	view_init(&v);
	assert_int_equal(v.per_pane[PANE_THREADS].sort_col, COL_ACTIVE);
	assert_int_equal(keys_dispatch(&v, &e, '<'), RX_RESORT);
	assert_int_equal(v.per_pane[0].sort_col, COL_CPU);
	keys_dispatch(&v, &e, '>');
	keys_dispatch(&v, &e, '>'); /* wraps */
	assert_int_equal(v.per_pane[0].sort_col, COL_PID);
	keys_dispatch(&v, &e, 'I');
	assert_true(v.per_pane[0].reverse);
	view_sort_by(&v, COL_PID); /* same column again: reverse flips */
	assert_false(v.per_pane[0].reverse);
	view_sort_by(&v, COL_COMM);
	assert_int_equal(v.per_pane[0].sort_col, COL_COMM);
	assert_false(v.per_pane[0].reverse);
	/* F6 picker: starts on the sort column, Enter picks. */
	keys_dispatch(&v, &e, UK_F6);
	assert_int_equal(v.mode, MODE_SORT);
	assert_int_equal(v.picker_sel, 1);
	keys_dispatch(&v, &e, UK_DOWN);
	assert_int_equal(keys_dispatch(&v, &e, UK_ENTER), RX_REQUERY);
	assert_int_equal(v.mode, MODE_NORMAL);
	assert_int_equal(v.per_pane[0].sort_col, COL_CPU);
}

static void panes_and_quit(void **state)
{
	struct view v;
	struct view_env e = env(3);

	view_init(&v);
	assert_int_equal(keys_dispatch(&v, &e, UK_TAB), RX_REQUERY);
	assert_int_equal(v.pane, PANE_GROUP);
	keys_dispatch(&v, &e, UK_BTAB);
	keys_dispatch(&v, &e, UK_BTAB);
	assert_int_equal(v.pane, PANE_MAX - 1); /* wraps to the last pane */
	keys_dispatch(&v, &e, '6');
	assert_int_equal(v.pane, PANE_LUAJIT);
	keys_dispatch(&v, &e, '7');
	assert_int_equal(v.pane, PANE_USE);
	keys_dispatch(&v, &e, '8');
	assert_int_equal(v.pane, PANE_TRACES);
	assert_int_equal(keys_dispatch(&v, &e, '9'), PANE_MAX < 9 ? RX_NONE : RX_REQUERY);
	assert_int_equal(v.pane, PANE_IO);
	keys_dispatch(&v, &e, '3');
	assert_int_equal(v.pane, PANE_SYSCALLS);
	keys_dispatch(&v, &e, UK_F5); /* htop's tree, no longer the Stacks pane (that is 4) */
	assert_int_equal(v.pane, PANE_THREADS);
	assert_true(v.tree);
	assert_int_equal(keys_dispatch(&v, &e, 'q'), RX_QUIT);
	assert_int_equal(keys_dispatch(&v, &e, UK_F10), RX_QUIT);
}

static void drill_down_and_back(void **state)
{
	struct view v;
	struct view_env e = env(3);
	struct model_filter f;
	char buf[256];

	view_init(&v);
	keys_dispatch(&v, &e, UK_DOWN);
	keys_dispatch(&v, &e, UK_DOWN);
	assert_int_equal(keys_dispatch(&v, &e, UK_ENTER), RX_REQUERY);
	assert_string_equal(view_breadcrumb(&v, buf, sizeof(buf)), "all > tid 102 redis");
	assert_int_equal(v.pane, PANE_GROUP); /* a thread opens its breakdown */
	view_filter(&v, &f);
	assert_int_equal(f.tid, 102);
	assert_int_equal(keys_dispatch(&v, &e, UK_BACKSPACE), RX_REQUERY);
	assert_int_equal(v.pane, PANE_THREADS);
	assert_int_equal(v.nr_crumbs, 0);
	/* Esc at the top does nothing... */
	assert_int_equal(keys_dispatch(&v, &e, UK_ESC), RX_NONE);
	/* ...unless a filter is set, which it clears. */
	snprintf(v.filter, sizeof(v.filter), "x");
	assert_int_equal(keys_dispatch(&v, &e, UK_ESC), RX_REQUERY);
	assert_string_equal(v.filter, "");
}

static void search_and_filter(void **state)
{
	struct view v;
	struct view_env e = env(3);

	view_init(&v);
	keys_dispatch(&v, &e, '/');
	assert_int_equal(v.mode, MODE_SEARCH);
	keys_dispatch(&v, &e, 'd');
	assert_int_equal(v.per_pane[0].sel, 2); /* "redis" is the first match from the top */
	keys_dispatch(&v, &e, 'i');
	assert_int_equal(v.per_pane[0].sel, 2);
	keys_dispatch(&v, &e, UK_BACKSPACE);
	keys_dispatch(&v, &e, UK_BACKSPACE);
	keys_dispatch(&v, &e, 'n');
	keys_dispatch(&v, &e, 'g');
	keys_dispatch(&v, &e, 'i');
	assert_int_equal(v.per_pane[0].sel, 3); /* from redis on: nginx-worker */
	keys_dispatch(&v, &e, UK_ENTER);
	assert_int_equal(v.mode, MODE_NORMAL);
	assert_string_equal(v.search, "ngi");
	keys_dispatch(&v, &e, 'n'); /* next match wraps around to nginx */
	assert_int_equal(v.per_pane[0].sel, 0);
	keys_dispatch(&v, &e, '/');
	keys_dispatch(&v, &e, 'z');
	assert_non_null(strstr(v.status, "not found: z"));
	keys_dispatch(&v, &e, UK_ESC);
	assert_int_equal(v.mode, MODE_NORMAL);

	/* Filter: live as typed; Enter keeps it; Esc in the prompt clears it. */
	assert_int_equal(keys_dispatch(&v, &e, '\\'), RX_REDRAW);
	assert_int_equal(keys_dispatch(&v, &e, 'p'), RX_REQUERY);
	keys_dispatch(&v, &e, 'g');
	assert_string_equal(v.filter, "pg");
	keys_dispatch(&v, &e, UK_ENTER);
	assert_string_equal(v.filter, "pg");
	keys_dispatch(&v, &e, UK_F4);
	assert_string_equal(v.edit, "pg");
	keys_dispatch(&v, &e, UK_ESC);
	assert_string_equal(v.filter, "");

	/* A shell's line keys: ^W takes the last word, ^U the whole line, live. */
	keys_dispatch(&v, &e, '\\');
	keys_dispatch(&v, &e, 'a');
	keys_dispatch(&v, &e, ' ');
	keys_dispatch(&v, &e, 'p');
	keys_dispatch(&v, &e, 'g');
	assert_string_equal(v.filter, "a pg");
	assert_int_equal(keys_dispatch(&v, &e, 0x17), RX_REQUERY);
	assert_string_equal(v.filter, "a ");
	keys_dispatch(&v, &e, 'x');
	assert_int_equal(keys_dispatch(&v, &e, 0x15), RX_REQUERY);
	assert_string_equal(v.filter, "");
	assert_string_equal(v.edit, "");
	keys_dispatch(&v, &e, UK_ENTER);
	assert_int_equal(v.mode, MODE_NORMAL);
}

static void toggles_help_picker(void **state)
{
	struct view v;
	struct view_env e = env(3);

	view_init(&v);
	keys_dispatch(&v, &e, 'H');
	keys_dispatch(&v, &e, 'K');
	assert_true(v.procs && v.hide_kthreads);
	assert_true(view_procs(&v));
	/* Narrowed to a process, the Threads pane shows its threads again. */
	{
		struct crumb c = {.pid = 42, .syscall = MODEL_ANY_SYSCALL};
		struct model_query q;

		view_query(&v, PANE_THREADS, &q);
		assert_int_equal(q.dims, DIM_BIT(DIM_PID));
		assert_true(view_push(&v, &c, PANE_THREADS));
		assert_false(view_procs(&v));
		view_query(&v, PANE_THREADS, &q);
		assert_int_equal(q.dims, DIM_BIT(DIM_TID));
		assert_true(view_pop(&v));
	}
	keys_dispatch(&v, &e, 'H');
	assert_false(v.procs);
	/* F5: htop's tree, from any pane; the Stacks pane stays on 4. */
	keys_dispatch(&v, &e, '3');
	keys_dispatch(&v, &e, UK_F5);
	assert_int_equal(v.pane, PANE_THREADS);
	assert_true(v.tree && v.procs);
	keys_dispatch(&v, &e, 'H');
	keys_dispatch(&v, &e, 't');
	assert_false(v.tree);
	/* i: the idle rows of the Group and Syscalls panes. */
	assert_false(v.show_idle);
	keys_dispatch(&v, &e, 'i');
	assert_true(v.show_idle);
	keys_dispatch(&v, &e, 'i');
	/* F2 Setup: Space switches a column; closing asks the front end to save. */
	{
		uint32_t before = v.cols_on[0];

		keys_dispatch(&v, &e, UK_F2);
		assert_int_equal(v.mode, MODE_SETUP);
		keys_dispatch(&v, &e, UK_DOWN);
		keys_dispatch(&v, &e, ' ');
		assert_int_equal(v.cols_on[0], before ^ 2u);
		assert_true(v.setup_changed);
		keys_dispatch(&v, &e, UK_ESC);
		assert_int_equal(v.mode, MODE_NORMAL);
	}
	/* d: a new interval at the prompt; nonsense is refused with a message. */
	v.delay_s = 1;
	keys_dispatch(&v, &e, 'd');
	assert_int_equal(v.mode, MODE_DELAY);
	assert_string_equal(v.edit, "1");
	keys_dispatch(&v, &e, UK_BACKSPACE);
	keys_dispatch(&v, &e, '2');
	keys_dispatch(&v, &e, 'x'); /* not a digit: ignored */
	keys_dispatch(&v, &e, '.');
	keys_dispatch(&v, &e, '5');
	keys_dispatch(&v, &e, UK_ENTER);
	assert_true(v.delay_asked == 2.5);
	v.delay_asked = 0;
	keys_dispatch(&v, &e, 's');
	keys_dispatch(&v, &e, UK_BACKSPACE);
	keys_dispatch(&v, &e, '0');
	keys_dispatch(&v, &e, UK_ENTER);
	assert_true(v.delay_asked == 0);
	assert_non_null(strstr(v.status, "interval not changed"));
	keys_dispatch(&v, &e, 'p');
	assert_true(v.paused);
	keys_dispatch(&v, &e, UK_F8);
	assert_false(v.paused);
	keys_dispatch(&v, &e, 'w');
	assert_int_equal(v.window, WIN_MINUTE);
	keys_dispatch(&v, &e, UK_F7);
	keys_dispatch(&v, &e, UK_F7);
	assert_int_equal(v.window, WIN_LAST);

	/* Help: any key closes it, and does nothing else (q does not quit). */
	keys_dispatch(&v, &e, '?');
	assert_int_equal(v.mode, MODE_HELP);
	assert_int_equal(keys_dispatch(&v, &e, 'q'), RX_REDRAW);
	assert_int_equal(v.mode, MODE_NORMAL);

	/* Group picker: Space toggles a dimension (state is first). */
	keys_dispatch(&v, &e, 'g');
	assert_int_equal(v.pane, PANE_GROUP);
	assert_int_equal(v.mode, MODE_GROUP);
	keys_dispatch(&v, &e, ' ');
	assert_false(v.group_dims & DIM_BIT(DIM_STATE));
	keys_dispatch(&v, &e, UK_DOWN);
	keys_dispatch(&v, &e, ' ');
	assert_true(v.group_dims & DIM_BIT(DIM_COMM));
	keys_dispatch(&v, &e, UK_ESC);
	assert_int_equal(v.mode, MODE_NORMAL);

	/* Tree keys act only in the Stacks pane. */
	tree_ops = 0;
	assert_int_equal(keys_dispatch(&v, &e, '+'), RX_NONE);
	keys_dispatch(&v, &e, '4');
	assert_int_equal(keys_dispatch(&v, &e, '+'), RX_RESORT);
	keys_dispatch(&v, &e, UK_LEFT);
	keys_dispatch(&v, &e, '*');
	keys_dispatch(&v, &e, 'E');
	assert_int_equal(tree_ops, 4);
	assert_true(v.tree_touched);
	keys_dispatch(&v, &e, 'o');
	assert_true(v.offcpu);
}

static void help_lists_keys(void **state)
{
	static const char *const must[] = {"Tab", "Enter", "Esc", "/",	"\\", "F6", "I",
					   "H",	  "K",	   "p",	  "F1", "q",  "g",  "+",
					   "w",	  "d",	   "F5",  "F2", "i",  "t"};

	for (size_t i = 0; i < sizeof(must) / sizeof(must[0]); i++) {
		bool found = false;

		for (size_t k = 0; k < keys_help_lines() && !found; k++)
			found = strstr(keys_help_line(k)->keys, must[i]) != NULL;
		assert_true(found);
	}
}

/* Every pane is in the table with what the front end calls unchecked, and
 * the help screen holds the panes' own keys where the common ones leave room. */
static void pane_table(void **state)
{
	size_t lines = keys_help_lines();

	for (int p = 0; p < PANE_MAX; p++) {
		assert_non_null(ui_panes[p]);
		assert_non_null(ui_panes[p]->name);
		assert_non_null(ui_panes[p]->draw);
		assert_true(!ui_panes[p]->table || ui_panes[p]->table->pane == (enum ui_pane)p);
	}
	assert_string_equal(view_pane_name(PANE_LUAJIT), "LuaJIT");
	/* Threads 2, Group 1, Stacks 8, LuaJIT 1, I/O 1 */
	assert_int_equal(lines, keys_help_count - 1 + 13);
	for (size_t i = 0; i < lines; i++)
		assert_non_null(keys_help_line(i)->keys);
	assert_null(keys_help_line(lines));
	assert_string_equal(keys_help_line(11)->keys, "H"); /* after the column title */
	assert_string_equal(keys_help_line(13)->keys, "g");
	assert_string_equal(keys_help_line(15)->keys, "f"); /* the Stacks pane's hot functions */
	assert_string_equal(keys_help_line(17)->keys, "a"); /* a hot function's source lines */
	assert_string_equal(keys_help_line(20)->keys, "o");
	assert_string_equal(keys_help_line(21)->keys, "c"); /* the Stacks pane's process roots */
	assert_string_equal(keys_help_line(23)->keys, "Enter (I/O pane)"); /* the last pane's */
	assert_string_equal(keys_help_line(24)->keys, "w or F7");
}

/* A hot function's narrowing shows the call tree; Esc comes back to the hot functions. */
static void hot_functions_drill(void **state)
{
	struct view v;
	struct crumb c = {.syscall = MODEL_ANY_SYSCALL, .stack_ip = 0x1000, .to_tree = true};

	(void)state;
	view_init(&v);
	v.pane = PANE_STACKS;
	v.stacks_hot = true;
	assert_true(view_push(&v, &c, PANE_STACKS));
	assert_false(v.stacks_hot);
	assert_true(view_pop(&v));
	assert_true(v.stacks_hot);
	assert_int_equal(v.pane, PANE_STACKS);
	/* A narrowing from elsewhere leaves the mode as it is. */
	c.to_tree = false;
	v.pane = PANE_THREADS;
	assert_true(view_push(&v, &c, PANE_STACKS));
	assert_true(v.stacks_hot);
	assert_true(view_pop(&v));
	assert_true(v.stacks_hot);
}

/* A hot function's source lines (a) are a level of their own: Esc, the hot functions. */
static void hot_function_lines(void **state)
{
	struct view v;
	struct crumb c = {.syscall = MODEL_ANY_SYSCALL, .stack_ip = 0x1000, .to_lines = true};

	(void)state;
	view_init(&v);
	v.pane = PANE_STACKS;
	v.stacks_hot = true;
	assert_true(view_push(&v, &c, PANE_STACKS));
	assert_true(v.stacks_lines);
	assert_false(v.stacks_hot);
	assert_true(view_pop(&v));
	assert_false(v.stacks_lines);
	assert_true(v.stacks_hot);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(breadcrumb_stack),	cmocka_unit_test(queries),
		cmocka_unit_test(hot_functions_drill),	cmocka_unit_test(hot_function_lines),
		cmocka_unit_test(selection_and_scroll), cmocka_unit_test(sorting),
		cmocka_unit_test(panes_and_quit),	cmocka_unit_test(drill_down_and_back),
		cmocka_unit_test(search_and_filter),	cmocka_unit_test(toggles_help_picker),
		cmocka_unit_test(help_lists_keys),	cmocka_unit_test(pane_table),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
