// SPDX-License-Identifier: GPL-2.0-only
/*
 * Tests of the shared process maps: two users of a process cost one read of
 * its maps file; a re-read after a miss (a library mapped since) happens once
 * and serves both, with a new generation and cleared slots; the maps go with
 * the last holder; a process with no maps file. Then the real users, the
 * symbolizer and the DWARF unwinder, on one cache over a fixture /proc tree
 * whose maps file the test rewrites, and the unwinder meeting a pid whose
 * maps file appears later (a reused pid). Then an exec (a new executable
 * behind /proc/PID/exe), a process that exits, and the symbolizer naming
 * through both.
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "maps_cache.h"
#include "symbolizer.h"
#include "unwind_dwarf.h"

#define PID 4242
#define APP_TEXT 0x55d0c0002000ull /* mapped from the start */
#define LIB_TEXT 0x7f0000100000ull /* mapped by the second maps file only */

static const char maps_v1[] = "55d0c0000000-55d0c0002000 r--p 00000000 fe:00 1001 /usr/bin/app\n"
			      "55d0c0002000-55d0c0008000 r-xp 00002000 fe:00 1001 /usr/bin/app\n"
			      "7ffc00000000-7ffc00021000 rw-p 00000000 00:00 0 [stack]\n";
static const char maps_v2[] =
	"55d0c0000000-55d0c0002000 r--p 00000000 fe:00 1001 /usr/bin/app\n"
	"55d0c0002000-55d0c0008000 r-xp 00002000 fe:00 1001 /usr/bin/app\n"
	"7f0000100000-7f0000200000 r-xp 00000000 fe:01 2002 /usr/lib/dlopened.so\n"
	"7ffc00000000-7ffc00021000 rw-p 00000000 00:00 0 [stack]\n";

/* After an exec: the executable's text is another file's. */
static const char maps_exec[] =
	"55d0c0000000-55d0c0002000 r--p 00000000 fe:00 1009 /usr/bin/other\n"
	"55d0c0002000-55d0c0008000 r-xp 00002000 fe:00 1009 /usr/bin/other\n"
	"7f0000100000-7f0000200000 r-xp 00000000 fe:01 2002 /usr/lib/dlopened.so\n"
	"7f0000300000-7f0000400000 r-xp 00000000 fe:01 2003 /usr/lib/libnew.so\n";
#define NEW_TEXT 0x7f0000300000ull /* mapped after the exec only */

/* A /proc tree with one process, PID, whose maps file is text. */
struct fake_proc {
	char root[32];
	char dir[64];
	char maps[80];
	char exe[80]; /* its /proc/PID/exe: a symlink the tests point at exe_a or exe_b */
	char exe_a[80], exe_b[80];
};

/* Points PID's exe at file (an exec when it changes). */
static void set_exe(const struct fake_proc *fp, const char *file)
{
	unlink(fp->exe);
	assert_int_equal(symlink(file, fp->exe), 0);
}

static void write_maps(const struct fake_proc *fp, const char *text)
{
	FILE *f = fopen(fp->maps, "w");

	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
}

static int setup(void **state)
{
	struct fake_proc *fp = calloc(1, sizeof(*fp));

	if (!fp)
		return -1;
	strcpy(fp->root, "/tmp/tt-maps-XXXXXX");
	if (!mkdtemp(fp->root))
		return -1;
	snprintf(fp->dir, sizeof(fp->dir), "%s/%d", fp->root, PID);
	snprintf(fp->maps, sizeof(fp->maps), "%s/maps", fp->dir);
	snprintf(fp->exe, sizeof(fp->exe), "%s/exe", fp->dir);
	snprintf(fp->exe_a, sizeof(fp->exe_a), "%s/exe_a", fp->root);
	snprintf(fp->exe_b, sizeof(fp->exe_b), "%s/exe_b", fp->root);
	if (mkdir(fp->dir, 0700))
		return -1;
	for (const char *f = fp->exe_a; f; f = f == fp->exe_a ? fp->exe_b : NULL) {
		FILE *x = fopen(f, "w");

		if (!x || fclose(x))
			return -1;
	}
	*state = fp;
	return 0;
}

static int teardown(void **state)
{
	struct fake_proc *fp = *state;

	unlink(fp->maps);
	unlink(fp->exe);
	unlink(fp->exe_a);
	unlink(fp->exe_b);
	rmdir(fp->dir);
	rmdir(fp->root);
	free(fp);
	return 0;
}

static void test_one_read_two_users(void **state)
{
	struct fake_proc *fp = *state;
	struct maps_cache *c;
	struct process_maps *a, *b;
	const struct proc_map *m;
	void **slot_a, **slot_b;
	int ua, ub;

	write_maps(fp, maps_v1);
	/* A re-read interval no test outlasts: a miss must not read again. */
	c = maps_cache__new(
		&(struct maps_cache_opts){.proc_root = fp->root, .reread_ns = UINT64_MAX / 2});
	ua = maps_cache__add_user(c);
	ub = maps_cache__add_user(c);
	assert_true(ua >= 0 && ub >= 0 && ua != ub);
	assert_string_equal(maps_cache__proc_root(c), fp->root);

	a = maps_cache__hold(c, PID, (unsigned)ua);
	b = maps_cache__hold(c, PID, (unsigned)ub);
	assert_ptr_equal(a, b);
	assert_int_equal(maps_cache__reads(c), 1);
	assert_int_equal(process_maps__generation(a), 1);
	assert_int_equal(process_maps__pid(a), PID);
	assert_int_equal(proc_maps__count(process_maps__maps(a)), 3);

	/* One slot per mapping per user. */
	m = process_maps__find(a, APP_TEXT + 0x10);
	assert_non_null(m);
	assert_string_equal(m->path, "/usr/bin/app");
	slot_a = process_maps__slot(a, (unsigned)ua, m);
	slot_b = process_maps__slot(b, (unsigned)ub, m);
	assert_non_null(slot_a);
	assert_non_null(slot_b);
	assert_ptr_not_equal(slot_a, slot_b);
	assert_null(*slot_a);
	*slot_a = fp;
	assert_null(*process_maps__slot(b, (unsigned)ub, m));
	assert_ptr_equal(*process_maps__slot(a, (unsigned)ua, m), fp);

	/* A library mapped since: within the interval, a miss reads nothing. */
	write_maps(fp, maps_v2);
	assert_null(process_maps__find(a, LIB_TEXT));
	assert_null(process_maps__find(b, LIB_TEXT));
	assert_int_equal(maps_cache__reads(c), 1);
	assert_int_equal(process_maps__generation(a), 1);

	/* Held by b alone, the maps stay; released by both, they go. */
	maps_cache__release(a, (unsigned)ua);
	assert_int_equal(process_maps__generation(b), 1);
	maps_cache__release(b, (unsigned)ub);
	b = maps_cache__hold(c, PID, (unsigned)ub);
	assert_int_equal(maps_cache__reads(c), 2);
	assert_non_null(process_maps__find(b, LIB_TEXT)); /* a fresh read has it */
	maps_cache__release(b, (unsigned)ub);
	maps_cache__release(NULL, 0);
	maps_cache__free(c);
}

static void test_reread_once_for_both(void **state)
{
	struct fake_proc *fp = *state;
	struct maps_cache *c;
	struct process_maps *a, *b;
	const struct proc_map *m;
	void **slot;
	int ua, ub;

	write_maps(fp, maps_v1);
	/* Any miss may re-read: the second user must still find the new maps read. */
	c = maps_cache__new(&(struct maps_cache_opts){.proc_root = fp->root, .reread_ns = 1});
	ua = maps_cache__add_user(c);
	ub = maps_cache__add_user(c);
	a = maps_cache__hold(c, PID, (unsigned)ua);
	b = maps_cache__hold(c, PID, (unsigned)ub);
	m = process_maps__find(b, APP_TEXT);
	*process_maps__slot(b, (unsigned)ub, m) = fp;
	assert_int_equal(maps_cache__reads(c), 1);

	write_maps(fp, maps_v2); /* dlopen */
	m = process_maps__find(a, LIB_TEXT);
	assert_non_null(m);
	assert_string_equal(m->path, "/usr/lib/dlopened.so");
	assert_int_equal(maps_cache__reads(c), 2);
	assert_int_equal(process_maps__generation(a), 2);
	/* b sees the new generation without reading, and its old slots are gone. */
	assert_ptr_equal(process_maps__find(b, LIB_TEXT), m);
	assert_int_equal(maps_cache__reads(c), 2);
	assert_int_equal(process_maps__generation(b), 2);
	slot = process_maps__slot(b, (unsigned)ub, process_maps__find(b, APP_TEXT));
	assert_non_null(slot);
	assert_null(*slot);
	assert_int_equal(maps_cache__reads(c), 2);
	maps_cache__free(c); /* still held: freed anyway */
}

/* A refresh reads what was mapped with no address to miss, at most once per interval. */
static void test_refresh(void **state)
{
	struct fake_proc *fp = *state;
	struct maps_cache *c;
	struct process_maps *pm;
	int u;

	write_maps(fp, maps_v1);
	c = maps_cache__new(
		&(struct maps_cache_opts){.proc_root = fp->root, .reread_ns = UINT64_MAX / 2});
	u = maps_cache__add_user(c);
	pm = maps_cache__hold(c, PID, (unsigned)u);
	write_maps(fp, maps_v2);		 /* dlopen */
	assert_false(process_maps__refresh(pm)); /* within the interval: nothing read */
	assert_int_equal(maps_cache__reads(c), 1);
	assert_int_equal(proc_maps__count(process_maps__maps(pm)), 3);
	maps_cache__free(c);

	c = maps_cache__new(&(struct maps_cache_opts){.proc_root = fp->root, .reread_ns = 1});
	u = maps_cache__add_user(c);
	pm = maps_cache__hold(c, PID, (unsigned)u);
	write_maps(fp, maps_exec);
	assert_true(process_maps__refresh(pm));
	assert_int_equal(maps_cache__reads(c), 2);
	assert_int_equal(process_maps__generation(pm), 2);
	assert_int_equal(proc_maps__count(process_maps__maps(pm)), 4);
	maps_cache__free(c);
}

static void test_no_process(void **state)
{
	struct fake_proc *fp = *state;
	struct maps_cache *c = maps_cache__new(&(struct maps_cache_opts){.proc_root = fp->root});
	struct process_maps *pm;
	int u = maps_cache__add_user(c);

	pm = maps_cache__hold(c, 777, (unsigned)u);
	assert_non_null(pm);
	assert_null(process_maps__maps(pm));
	assert_null(process_maps__find(pm, APP_TEXT));
	assert_int_equal(maps_cache__reads(c), 1);
	maps_cache__release(pm, (unsigned)u);
	/* Users are few and numbered. */
	for (int i = 1; i < MAPS_CACHE_MAX_USERS; i++)
		assert_int_equal(maps_cache__add_user(c), i);
	assert_int_equal(maps_cache__add_user(c), -ENOSPC);
	errno = 0;
	assert_null(symbolizer__new(&(struct symbolizer_opts){.maps = c}));
	assert_int_equal(errno, ENOSPC);
	assert_null(unwinder__new(c));
	maps_cache__free(c);
	maps_cache__free(NULL);
}

/* A sample of PID with its ip at addr: the unwinder holds the process's maps. */
static void unwind_at(struct unwinder *u, uint64_t addr)
{
	uint64_t regs[TT_UREG_NR] = {0}, ips[8];
	uint8_t stack[64] = {0};
	size_t nr;

	regs[TT_UREG_IP] = addr;
	regs[TT_UREG_SP] = 0x7ffc00010000ull;
	regs[TT_UREG_BP] = 0x7ffc00010100ull;
	unwinder__unwind(u, PID, regs, stack, sizeof(stack), ips, 8, &nr);
	assert_int_equal(ips[0], addr);
}

static void test_symbolizer_and_unwinder(void **state)
{
	struct fake_proc *fp = *state;
	struct maps_cache *c;
	struct symbolizer *s;
	struct unwinder *u;
	struct symbolizer_stats ss;
	struct unwinder_stats us;
	const struct sym_frame *f;

	write_maps(fp, maps_v1);
	c = maps_cache__new(&(struct maps_cache_opts){.proc_root = fp->root, .reread_ns = 1});
	u = unwinder__new(c);
	s = symbolizer__new(&(struct symbolizer_opts){.debug_root = "", .maps = c});
	assert_non_null(u);
	assert_non_null(s);

	/* A new process: the unwinder reads its maps, the symbolizer uses that read. */
	unwind_at(u, APP_TEXT + 0x10);
	assert_int_equal(maps_cache__reads(c), 1);
	assert_int_equal(symbolizer__resolve(s, PID, APP_TEXT + 0x10, false, &f), 0);
	assert_string_equal(f->name, "app+0x2010");
	assert_int_equal(maps_cache__reads(c), 1);

	/* A library mapped since: the symbolizer's miss re-reads, once for both. */
	write_maps(fp, maps_v2);
	assert_int_equal(symbolizer__resolve(s, PID, LIB_TEXT + 0x20, false, &f), 0);
	assert_string_equal(f->name, "dlopened.so+0x20");
	assert_int_equal(maps_cache__reads(c), 2);
	unwind_at(u, LIB_TEXT + 0x20);
	assert_int_equal(maps_cache__reads(c), 2);

	symbolizer__stats(s, &ss);
	unwinder__stats(u, &us);
	assert_int_equal(ss.maps_reads, 2);
	assert_int_equal(us.maps_reads, 2);
	/* Each drops its own hold; the maps go with the last. */
	symbolizer__forget_pid(s, PID);
	unwind_at(u, APP_TEXT);
	assert_int_equal(maps_cache__reads(c), 2);
	assert_int_equal(unwinder__expire(u, 1), 0);
	assert_int_equal(unwinder__expire(u, 1), 1);
	assert_int_equal(symbolizer__resolve(s, PID, APP_TEXT, false, &f), 0);
	assert_int_equal(maps_cache__reads(c), 3);
	symbolizer__free(s);
	unwinder__free(u);
	maps_cache__free(c);
}

/* A pid met before its maps file existed (gone, or reused since): read again. */
static void test_unwinder_rereads_missing(void **state)
{
	struct fake_proc *fp = *state;
	uint64_t regs[TT_UREG_NR] = {0}, ips[8];
	uint8_t stack[64] = {0};
	struct maps_cache *c;
	struct unwinder *u;
	uint64_t reads;
	size_t nr;

	c = maps_cache__new(&(struct maps_cache_opts){.proc_root = fp->root, .reread_ns = 1});
	u = unwinder__new(c);
	regs[TT_UREG_IP] = APP_TEXT;
	regs[TT_UREG_SP] = 0x7ffc00010000ull;
	assert_int_equal(unwinder__unwind(u, PID, regs, stack, sizeof(stack), ips, 8, &nr),
			 UNWIND_NO_PROCESS);
	reads = maps_cache__reads(c); /* the first, and a retry: 1 ns is a short interval */
	write_maps(fp, maps_v1);
	assert_int_not_equal(unwinder__unwind(u, PID, regs, stack, sizeof(stack), ips, 8, &nr),
			     UNWIND_NO_PROCESS);
	assert_int_equal(maps_cache__reads(c), reads + 1);
	unwinder__free(u);
	maps_cache__free(c);
}

/*
 * An exec since the read (the executable is another file): a miss reads the
 * maps again at once, whatever the interval, and counts a new image; a
 * miss with the same executable still waits for the interval.
 */
static void test_exec_rereads(void **state)
{
	struct fake_proc *fp = *state;
	struct maps_cache *c;
	struct process_maps *pm;
	const struct proc_map *m;
	int u;

	write_maps(fp, maps_v1);
	set_exe(fp, fp->exe_a);
	c = maps_cache__new(
		&(struct maps_cache_opts){.proc_root = fp->root, .reread_ns = UINT64_MAX / 2});
	u = maps_cache__add_user(c);
	pm = maps_cache__hold(c, PID, (unsigned)u);
	assert_int_equal(process_maps__images(pm), 0);
	write_maps(fp, maps_v2); /* dlopen: the same executable */
	assert_null(process_maps__find(pm, LIB_TEXT));
	assert_int_equal(maps_cache__reads(c), 1);

	write_maps(fp, maps_exec);
	set_exe(fp, fp->exe_b);
	m = process_maps__find(pm, LIB_TEXT);
	assert_non_null(m);
	assert_string_equal(m->path, "/usr/lib/dlopened.so");
	assert_int_equal(maps_cache__reads(c), 2);
	assert_int_equal(process_maps__generation(pm), 2);
	assert_int_equal(process_maps__images(pm), 1);
	assert_string_equal(process_maps__find(pm, APP_TEXT)->path, "/usr/bin/other");
	assert_false(process_maps__gone(pm));
	maps_cache__free(c);
}

/*
 * The process exits: a miss then reads nothing new, and the maps read while
 * it lived stay (its stacks still arriving are in them), same generation.
 */
static void test_exited_keeps_maps(void **state)
{
	struct fake_proc *fp = *state;
	struct maps_cache *c;
	struct process_maps *pm;
	int u;

	write_maps(fp, maps_v1);
	c = maps_cache__new(&(struct maps_cache_opts){.proc_root = fp->root, .reread_ns = 1});
	u = maps_cache__add_user(c);
	pm = maps_cache__hold(c, PID, (unsigned)u);
	assert_non_null(process_maps__find(pm, APP_TEXT));
	unlink(fp->maps); /* gone */
	assert_null(process_maps__find(pm, LIB_TEXT));
	assert_int_equal(maps_cache__reads(c), 2);
	assert_true(process_maps__gone(pm));
	assert_int_equal(process_maps__generation(pm), 1);
	assert_int_equal(proc_maps__count(process_maps__maps(pm)), 3);
	assert_string_equal(process_maps__find(pm, APP_TEXT + 0x30)->path, "/usr/bin/app");
	maps_cache__free(c);
}

static const struct sym_frame *sym_at(struct symbolizer *s, uint64_t addr)
{
	const struct sym_frame *f = NULL;

	assert_int_equal(symbolizer__resolve(s, PID, addr, false, &f), 0);
	assert_non_null(f);
	return f;
}

/*
 * The symbolizer over a process whose maps change under it: an address in
 * no mapping is named again once a library maps it; the names of the image
 * before an exec go at the exec (a "threadtop run" child met before it ran
 * its command: its first stacks were [unknown] for good); a process that
 * exited keeps the maps it had, and an address they do not hold says so.
 */
static void test_symbolizer_follows_maps(void **state)
{
	struct fake_proc *fp = *state;
	struct maps_cache *c;
	struct symbolizer *s;

	write_maps(fp, maps_v1);
	set_exe(fp, fp->exe_a);
	c = maps_cache__new(&(struct maps_cache_opts){.proc_root = fp->root, .reread_ns = 1});
	s = symbolizer__new(&(struct symbolizer_opts){.debug_root = "", .maps = c});

	assert_string_equal(sym_at(s, LIB_TEXT + 0x20)->name, "[unknown]+0x7f0000100020");
	write_maps(fp, maps_v2); /* dlopen */
	assert_string_equal(sym_at(s, LIB_TEXT + 0x20)->name, "dlopened.so+0x20");
	assert_string_equal(sym_at(s, APP_TEXT + 0x10)->name, "app+0x2010");

	/* The new image's first address is in no mapping of the old: the miss
	 * finds the exec, and the old image's names go. */
	write_maps(fp, maps_exec);
	set_exe(fp, fp->exe_b);
	assert_string_equal(sym_at(s, NEW_TEXT + 0x40)->name, "libnew.so+0x40");
	assert_string_equal(sym_at(s, APP_TEXT + 0x10)->name, "other+0x2010");

	unlink(fp->maps); /* exited */
	unlink(fp->exe);
	assert_string_equal(sym_at(s, APP_TEXT + 0x50)->name, "other+0x2050");
	assert_string_equal(sym_at(s, 0x10000)->name, "[exited]+0x10000");
	symbolizer__free(s);
	maps_cache__free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_one_read_two_users, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reread_once_for_both, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refresh, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_process, setup, teardown),
		cmocka_unit_test_setup_teardown(test_symbolizer_and_unwinder, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unwinder_rereads_missing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_exec_rereads, setup, teardown),
		cmocka_unit_test_setup_teardown(test_exited_keeps_maps, setup, teardown),
		cmocka_unit_test_setup_teardown(test_symbolizer_follows_maps, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
