// SPDX-License-Identifier: GPL-2.0-only
/*
 * Tests of the symbolizer: this process (its own functions, libc, an
 * anonymous executable region with a perf map), fixture /proc trees (kernel
 * symbols, unknown files), and the symchain workloads as child processes:
 * PIE at a random base, non-PIE, a stripped copy (module+0x...), a binary
 * deleted after start, and the shared library in the middle of the chain.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <inttypes.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "dwarf_inline.h"
#include "elf_symbols.h"
#include "symbolizer.h"

static pid_t live_child; /* killed by the teardown even when a test fails */

__attribute__((noinline)) int sym_test_target_fn(int x);
__attribute__((noinline)) int sym_test_target_fn(int x)
{
	return x * 7 + 3;
}

static const struct sym_frame *resolve(struct symbolizer *s, uint32_t pid, uint64_t addr,
				       bool kernel)
{
	const struct sym_frame *f = NULL;

	assert_int_equal(symbolizer__resolve(s, pid, addr, kernel, &f), 0);
	assert_non_null(f);
	assert_non_null(f->name);
	assert_non_null(f->module);
	return f;
}

/* Whether libc's separate debuginfo (libc6-dbg) is installed. */
static bool libc_debug_installed(void)
{
	struct elf_syms *es = elf_syms__from_path("/lib/x86_64-linux-gnu/libc.so.6");
	char hex[2 * ELF_BUILD_ID_MAX + 1], path[PATH_MAX];

	if (!es)
		return false;
	elf_syms__build_id_hex(es, hex, sizeof(hex));
	elf_syms__free(es);
	snprintf(path, sizeof(path), "/usr/lib/debug/.build-id/%.2s/%s.debug", hex, hex + 2);
	return !access(path, R_OK);
}

static void test_self(void **state)
{
	struct symbolizer *s = symbolizer__new(NULL);
	uint32_t pid = (uint32_t)getpid();
	const struct sym_frame *f, *again;
	struct symbolizer_stats st;
	char exe[PATH_MAX], *base;
	void *libc;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	assert_true(n > 0);
	exe[n] = '\0';
	base = strrchr(exe, '/') + 1;
	f = resolve(s, pid, (uint64_t)(uintptr_t)sym_test_target_fn + 2, false);
	assert_string_equal(f->name, "sym_test_target_fn");
	assert_string_equal(f->module, base);
	assert_int_equal(f->offset, 2);
	assert_int_equal(f->flags & (SYM_FRAME_UNKNOWN | SYM_FRAME_KERNEL), 0);
	again = resolve(s, pid, (uint64_t)(uintptr_t)sym_test_target_fn + 2, false);
	assert_ptr_equal(f, again); /* once per unique address */

	/* libc: qsort has one name; through debuginfo when libc6-dbg is installed. */
	libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
	assert_non_null(libc);
	/* dlsym, not &qsort: under ASan that is the interceptor. */
	f = resolve(s, pid, (uint64_t)(uintptr_t)dlsym(libc, "qsort"), false);
	dlclose(libc);
	assert_string_equal(f->name, "qsort");
	assert_string_equal(f->module, "libc.so.6");
	assert_int_equal(f->offset, 0);
	if (libc_debug_installed())
		assert_true(f->flags & SYM_FRAME_DEBUGINFO);

	/* Nothing mapped there. */
	f = resolve(s, pid, 0x10, false);
	assert_true(f->flags & SYM_FRAME_UNKNOWN);
	assert_string_equal(f->name, "[unknown]+0x10");

	symbolizer__stats(s, &st);
	assert_int_equal(st.lookups, 4);
	assert_int_equal(st.cache_hits, 1);
	assert_true(st.files >= 2);
	assert_int_equal(st.procs, 1);
	symbolizer__forget_pid(s, pid);
	symbolizer__stats(s, &st);
	assert_int_equal(st.procs, 0);
	symbolizer__free(s);
}

struct parked {
	int ready[2], stop[2];
	pid_t tid;
};

/* A thread that tells its tid and waits for its stop pipe to close. */
static void *park(void *arg)
{
	struct parked *p = arg;
	char c;

	p->tid = (pid_t)syscall(SYS_gettid);
	if (write(p->ready[1], "x", 1) != 1 || read(p->stop[0], &c, 1) < 0)
		return NULL;
	return NULL;
}

/*
 * A file goes from the cache once no cached process took it: two "processes"
 * (this one and one of its threads, whose /proc/TID/maps are the same),
 * the first taking this binary and libc, the second libc only.
 */
static void test_files_age(void **state)
{
	struct symbolizer *s = symbolizer__new(NULL);
	uint32_t pid = (uint32_t)getpid();
	uint64_t qsort_ip, fn_ip = (uint64_t)(uintptr_t)sym_test_target_fn;
	struct symbolizer_stats st;
	struct parked p = {0};
	const struct sym_frame *f;
	pthread_t thread;
	void *libc;
	char c;

	libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
	assert_non_null(libc);
	qsort_ip = (uint64_t)(uintptr_t)dlsym(libc, "qsort");
	dlclose(libc);
	assert_int_equal(pipe(p.ready), 0);
	assert_int_equal(pipe(p.stop), 0);
	assert_int_equal(pthread_create(&thread, NULL, park, &p), 0);
	assert_int_equal(read(p.ready[0], &c, 1), 1);

	assert_string_equal(resolve(s, pid, fn_ip, false)->name, "sym_test_target_fn");
	assert_string_equal(resolve(s, pid, qsort_ip, false)->name, "qsort");
	f = resolve(s, (uint32_t)p.tid, qsort_ip, false);
	assert_string_equal(f->name, "qsort");
	symbolizer__stats(s, &st);
	assert_int_equal(st.files, 2);
	assert_int_equal(st.files_freed, 0);

	/* Nothing went: nothing is swept. */
	assert_int_equal(symbolizer__expire(s, 10), 0);
	symbolizer__stats(s, &st);
	assert_int_equal(st.files, 2);

	/* The process goes: this binary with it; libc stays for the thread. */
	symbolizer__forget_pid(s, pid);
	assert_int_equal(symbolizer__expire(s, 10), 0);
	symbolizer__stats(s, &st);
	assert_int_equal(st.files, 1);
	assert_int_equal(st.files_freed, 1);
	assert_string_equal(resolve(s, (uint32_t)p.tid, qsort_ip, false)->name, "qsort");
	assert_ptr_equal(resolve(s, (uint32_t)p.tid, qsort_ip, false), f);

	/* The thread expires (idle for more than one round): libc goes too. */
	assert_int_equal(symbolizer__expire(s, 1), 0);
	assert_int_equal(symbolizer__expire(s, 1), 1);
	symbolizer__stats(s, &st);
	assert_int_equal(st.files, 0);
	assert_int_equal(st.files_freed, 2);

	/* Asked again, a file is read again. */
	assert_string_equal(resolve(s, pid, fn_ip, false)->name, "sym_test_target_fn");
	symbolizer__stats(s, &st);
	assert_int_equal(st.files, 1);
	symbolizer__free(s);
	close(p.stop[1]);
	pthread_join(thread, NULL);
	close(p.stop[0]);
	close(p.ready[0]);
	close(p.ready[1]);
}

/* Anonymous executable memory named by a perf-PID.map, as a JIT writes. */
static void test_jit(void **state)
{
	char dir[] = "/tmp/tt-sym-XXXXXX", path[PATH_MAX];
	struct symbolizer_opts opts = {.tmp_dir = dir};
	uint32_t pid = (uint32_t)getpid();
	const struct sym_frame *f;
	struct symbolizer *s;
	uint64_t base;
	void *code;
	FILE *pm;

	code = mmap(NULL, 8192, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(code != MAP_FAILED);
	base = (uint64_t)(uintptr_t)code;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/perf-%u.map", dir, pid);
	pm = fopen(path, "w");
	assert_non_null(pm);
	fprintf(pm, "%llx 100 lua_trace_7 file.lua:3\n", (unsigned long long)base + 0x100);
	fclose(pm);

	s = symbolizer__new(&opts);
	f = resolve(s, pid, base + 0x180, false);
	assert_string_equal(f->name, "lua_trace_7 file.lua:3");
	assert_true(f->flags & SYM_FRAME_JIT);
	assert_int_equal(f->offset, 0x80);
	f = resolve(s, pid, base + 0x1010, false);
	assert_true(f->flags & SYM_FRAME_UNKNOWN);
	assert_string_equal(f->name, "[anon]+0x1010");
	symbolizer__free(s);
	if (geteuid() == 0) {
		/* Planted for a root process by another user (nobody): not trusted. */
		assert_int_equal(chown(path, 65534, 65534), 0);
		s = symbolizer__new(&opts);
		f = resolve(s, pid, base + 0x180, false);
		assert_false(f->flags & SYM_FRAME_JIT);
		assert_string_equal(f->name, "[anon]+0x180");
		symbolizer__free(s);
	}
	unlink(path);
	rmdir(dir);
	munmap(code, 8192);
}

/* A fixture /proc: kallsyms, and a process whose files do not exist here. */
static void test_fixture_proc(void **state)
{
	struct symbolizer_opts opts = {.proc_root = TT_FIXTURES "/sym/proc", .debug_root = ""};
	struct symbolizer *s = symbolizer__new(&opts);
	const struct sym_frame *f;
	struct symbolizer_stats st;

	f = resolve(s, 0, 0xffffffff81004010ull, true);
	assert_string_equal(f->name, "schedule");
	assert_string_equal(f->module, "[kernel]");
	assert_int_equal(f->offset, 0x10);
	assert_int_equal(f->flags, SYM_FRAME_KERNEL);
	f = resolve(s, 0, 0xffffffffc0100404ull, true);
	assert_string_equal(f->name, "ext4_sync_fs");
	assert_string_equal(f->module, "[ext4]");
	f = resolve(s, 0, 0x1234, true);
	assert_int_equal(f->flags, SYM_FRAME_KERNEL | SYM_FRAME_UNKNOWN);
	assert_string_equal(f->name, "[kernel]+0x1234");

	/* /usr/bin/app is not in the fixture: module+file offset. */
	f = resolve(s, 4242, 0x55d0c0002010ull, false);
	assert_true(f->flags & SYM_FRAME_UNKNOWN);
	assert_string_equal(f->name, "app+0x2010");
	f = resolve(s, 4242, 0x7f0000300010ull, false);
	assert_string_equal(f->name, "gone+0x1010");
	f = resolve(s, 4242, 0x55d0c1000010ull, false);
	assert_string_equal(f->name, "[heap]+0x10");
	f = resolve(s, 4242, 0x7ffd00000010ull, false); /* [vdso]: no mem file here */
	assert_string_equal(f->name, "[vdso]+0x10");
	/* A pid with no maps at all (gone before they were read) still gets
	 * names, which say why no file is known. */
	f = resolve(s, 777, 0x401000, false);
	assert_string_equal(f->name, "[exited]+0x401000");
	assert_string_equal(f->module, "[exited]");
	assert_true(f->flags & SYM_FRAME_UNKNOWN);
	symbolizer__stats(s, &st);
	assert_int_equal(st.kernel_symbols, 8);
	assert_int_equal(st.procs, 2);
	/* A process goes once unused for more than the idle rounds. */
	assert_int_equal(symbolizer__expire(s, 1), 0);
	resolve(s, 777, 0x401000, false);
	assert_int_equal(symbolizer__expire(s, 1), 1); /* 4242 */
	symbolizer__stats(s, &st);
	assert_int_equal(st.procs, 1);
	symbolizer__free(s);
}

/* The line of /proc/self/maps whose range holds addr, split before its path. */
static void self_map_line(uint64_t addr, char *fields, size_t len, char *path, size_t path_len)
{
	char line[PATH_MAX + 256], range[64], perms[8], off[32], dev[16], ino[32], p[PATH_MAX];
	FILE *f = fopen("/proc/self/maps", "r");
	uint64_t start, end;

	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		int n = sscanf(line, "%63s %7s %31s %15s %31s %4095s", range, perms, off, dev, ino,
			       p);

		if (n != 6 || sscanf(range, "%" SCNx64 "-%" SCNx64, &start, &end) != 2 ||
		    addr < start || addr >= end)
			continue;
		snprintf(fields, len, "%s %s %s %s %s", range, perms, off, dev, ino);
		snprintf(path, path_len, "%s", p);
		fclose(f);
		return;
	}
	fclose(f);
	fail_msg("no mapping of %#" PRIx64 " in /proc/self/maps", addr);
}

/* Writes <root>/<pid>/maps: one line, fields then path. */
static void write_proc(const char *root, int pid, const char *fields, const char *path)
{
	char p[PATH_MAX];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%d", root, pid);
	assert_int_equal(mkdir(p, 0700), 0);
	snprintf(p, sizeof(p), "%s/%d/maps", root, pid);
	f = fopen(p, "w");
	assert_non_null(f);
	fprintf(f, "%s %s\n", fields, path);
	assert_int_equal(fclose(f), 0);
}

/*
 * Processes that have exited (a fixture /proc with their maps only: no
 * map_files, root or exe): a file still at its path, the same device and
 * inode, is opened there; one out of reach is the copy read for another
 * process, once there is one (before, module+offset).
 */
static void test_exited_files(void **state)
{
	char root[] = "/tmp/tt-sym-exited-XXXXXX", fields[256], path[PATH_MAX], p[PATH_MAX];
	uint64_t addr = (uint64_t)(uintptr_t)sym_test_target_fn + 1;
	struct symbolizer *s;
	const struct sym_frame *f;

	assert_non_null(mkdtemp(root));
	self_map_line(addr, fields, sizeof(fields), path, sizeof(path));
	write_proc(root, 5001, fields, "/nonexistent/tt-moved-away");
	write_proc(root, 5002, fields, path);
	write_proc(root, 5003, fields, "/nonexistent/tt-moved-away");
	s = symbolizer__new(&(struct symbolizer_opts){.proc_root = root, .debug_root = ""});

	f = resolve(s, 5001, addr, false);
	assert_true(f->flags & SYM_FRAME_UNKNOWN);
	assert_string_equal(f->module, "tt-moved-away");
	f = resolve(s, 5002, addr, false); /* by its path */
	assert_string_equal(f->name, "sym_test_target_fn");
	assert_int_equal(f->offset, 1);
	f = resolve(s, 5003, addr, false); /* the copy 5002's read */
	assert_string_equal(f->name, "sym_test_target_fn");
	symbolizer__free(s);

	for (int pid = 5001; pid <= 5003; pid++) {
		snprintf(p, sizeof(p), "%s/%d/maps", root, pid);
		unlink(p);
		snprintf(p, sizeof(p), "%s/%d", root, pid);
		rmdir(p);
	}
	rmdir(root);
}

struct child {
	pid_t pid;
	uint64_t exe_1, lib_2, lib_3, exe_leaf;
};

/* Starts a symchain variant in "wait" mode and reads its address line. */
static void start_child(const char *path, struct child *c)
{
	char line[512];
	int fds[2];
	FILE *f;
	int n;

	assert_int_equal(pipe(fds), 0);
	c->pid = fork();
	assert_true(c->pid >= 0);
	live_child = c->pid;
	if (!c->pid) {
		dup2(fds[1], 1);
		close(fds[0]);
		execl(path, path, "wait", (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	f = fdopen(fds[0], "r");
	assert_non_null(fgets(line, sizeof(line), f));
	fclose(f);
	n = sscanf(line,
		   "symchain %*d chain_exe_1=%" SCNx64 " chain_lib_2=%" SCNx64
		   " chain_lib_3=%" SCNx64 " chain_exe_leaf=%" SCNx64,
		   &c->exe_1, &c->lib_2, &c->lib_3, &c->exe_leaf);
	assert_int_equal(n, 4);
}

static void stop_child(struct child *c)
{
	kill(c->pid, SIGKILL);
	waitpid(c->pid, NULL, 0);
	live_child = 0;
}

static int kill_child(void **state)
{
	if (live_child > 0) {
		kill(live_child, SIGKILL);
		waitpid(live_child, NULL, 0);
	}
	live_child = 0;
	return 0;
}

static void check_variant(const char *name, const char *lib, bool stripped, bool deleted)
{
	char path[PATH_MAX], copy[PATH_MAX], cmd[PATH_MAX * 2 + 16];
	struct symbolizer *s = symbolizer__new(NULL);
	const struct sym_frame *f;
	struct child c;

	snprintf(path, sizeof(path), "%s/%s", TT_WORKLOADS, name);
	if (deleted) {
		snprintf(copy, sizeof(copy), "/tmp/tt-sym-deleted-%d", (int)getpid());
		snprintf(cmd, sizeof(cmd), "cp %s %s", path, copy);
		assert_int_equal(system(cmd), 0);
		start_child(copy, &c);
		assert_int_equal(unlink(copy), 0);
		snprintf(path, sizeof(path), "%s", copy);
	} else {
		start_child(path, &c);
	}
	f = resolve(s, (uint32_t)c.pid, c.lib_2 + 1, false);
	assert_string_equal(f->name, "chain_lib_2");
	assert_string_equal(f->module, lib);
	f = resolve(s, (uint32_t)c.pid, c.lib_3, false);
	assert_string_equal(f->name, "chain_lib_3");
	f = resolve(s, (uint32_t)c.pid, c.exe_1 + 4, false);
	if (stripped) {
		char want[64];

		assert_true(f->flags & SYM_FRAME_UNKNOWN);
		assert_string_equal(f->module, strrchr(path, '/') + 1);
		snprintf(want, sizeof(want), "%s+0x%llx", f->module, (unsigned long long)f->offset);
		assert_string_equal(f->name, want);
	} else {
		assert_string_equal(f->name, "chain_exe_1");
		assert_int_equal(f->offset, 4);
		f = resolve(s, (uint32_t)c.pid, c.exe_leaf, false);
		assert_string_equal(f->name, "chain_exe_leaf");
	}
	stop_child(&c);
	symbolizer__free(s);
}

static void test_pie(void **state)
{
	check_variant("symchain_nofp", "libttchain_nofp.so", false, false);
}

static void test_nopie(void **state)
{
	check_variant("symchain_nopie", "libttchain_nopie.so", false, false);
}

static void test_stripped(void **state)
{
	check_variant("symchain_stripped", "libttchain_nofp.so", true, false);
}

static void test_deleted(void **state)
{
	check_variant("symchain_nofp", "libttchain_nofp.so", false, true);
}

/* The first line of "addr2line -f -i" for vaddr of path, or "" when it is not installed. */
static void addr2line_first(const char *path, uint64_t vaddr, char *out, size_t len)
{
	char cmd[PATH_MAX + 96];
	FILE *p;

	out[0] = '\0';
	snprintf(cmd, sizeof(cmd), "addr2line -f -i -e '%s' %#" PRIx64 " 2>/dev/null", path, vaddr);
	p = popen(cmd, "r");
	if (!p)
		return;
	if (!fgets(out, (int)len, p))
		out[0] = '\0';
	out[strcspn(out, "\n")] = '\0';
	pclose(p);
}

/*
 * The inline_hot workload (-O2 -g): its hot loop is inline_hot() inlined
 * into inline_mid() inlined into inline_outer(), so the loop's address is
 * inline_outer with [inline_mid, inline_hot] inlined, outermost first;
 * inline_outer's own prologue has no inline chain. addr2line -i, when
 * installed, agrees on the innermost function.
 */
static void test_inlined(void **state)
{
	struct symbolizer *s = symbolizer__new(NULL);
	uint64_t outer = 0, hot_pc = 0, hot_vaddr = 0;
	char path[PATH_MAX], line[512];
	const struct sym_frame *f;
	struct symbolizer_stats st;
	int fds[2];
	FILE *in;

	snprintf(path, sizeof(path), "%s/inline_hot", TT_WORKLOADS);
	assert_int_equal(pipe(fds), 0);
	live_child = fork();
	assert_true(live_child >= 0);
	if (!live_child) {
		dup2(fds[1], 1);
		close(fds[0]);
		execl(path, path, "wait", (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	in = fdopen(fds[0], "r");
	assert_non_null(fgets(line, sizeof(line), in));
	fclose(in);
	assert_int_equal(sscanf(line,
				"inline_hot %*d outer=%" SCNx64 " hot_pc=%" SCNx64
				" hot_vaddr=%" SCNx64,
				&outer, &hot_pc, &hot_vaddr),
			 3);

	f = resolve(s, (uint32_t)live_child, hot_pc, false);
	assert_string_equal(f->name, "inline_outer");
	assert_int_equal(f->nr_inlined, 2);
	assert_string_equal(f->inlined[0], "inline_mid");
	assert_string_equal(f->inlined[1], "inline_hot");
	/* Cached: the same chain, shared. */
	assert_ptr_equal(resolve(s, (uint32_t)live_child, hot_pc, false)->inlined, f->inlined);
	f = resolve(s, (uint32_t)live_child, outer, false);
	assert_string_equal(f->name, "inline_outer");
	assert_int_equal(f->nr_inlined, 0);
	assert_null(f->inlined);
	symbolizer__stats(s, &st);
	assert_int_equal(st.dwarf_files, 1);
	assert_int_equal(st.inlined, 1);

	addr2line_first(path, hot_vaddr, line, sizeof(line));
	if (line[0])
		assert_string_equal(line, "inline_hot");
	kill_child(state);
	symbolizer__free(s);

	/* A file with DWARF holds no fd, even before its first look-up. */
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct dwarf_inline *di;
	const char *const *names;

	assert_true(fd >= 0);
	di = dwarf_inline__from_fd(fd, NULL);
	assert_int_equal(fcntl(fd, F_GETFD), -1);
	assert_int_equal(errno, EBADF);
	assert_int_equal(dwarf_inline__find(di, hot_vaddr, &names), 2);
	assert_string_equal(names[1], "inline_hot");
	dwarf_inline__free(di);
}

/* The vdso of a child: its clock_gettime is named from the in-memory ELF. */
static void test_vdso(void **state)
{
	struct symbolizer *s = symbolizer__new(NULL);
	char line[256], *p;
	uint64_t start = 0;
	const struct sym_frame *f;
	FILE *maps = fopen("/proc/self/maps", "r");

	assert_non_null(maps);
	while (fgets(line, sizeof(line), maps))
		if ((p = strstr(line, "[vdso]")))
			start = strtoull(line, NULL, 16);
	fclose(maps);
	if (!start) {
		skip();
		return;
	}
	/* Scan the first page for some named function. */
	for (uint64_t a = start; a < start + 8192; a += 16) {
		f = resolve(s, (uint32_t)getpid(), a, false);
		if (!(f->flags & SYM_FRAME_UNKNOWN)) {
			assert_string_equal(f->module, "[vdso]");
			assert_non_null(strstr(f->name, "_vdso_") ? f->name
								  : strstr(f->name, "time"));
			symbolizer__free(s);
			return;
		}
	}
	fail_msg("no vdso symbol found");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_self),
		cmocka_unit_test(test_files_age),
		cmocka_unit_test(test_jit),
		cmocka_unit_test(test_fixture_proc),
		cmocka_unit_test(test_exited_files),
		cmocka_unit_test_teardown(test_pie, kill_child),
		cmocka_unit_test_teardown(test_nopie, kill_child),
		cmocka_unit_test_teardown(test_stripped, kill_child),
		cmocka_unit_test_teardown(test_deleted, kill_child),
		cmocka_unit_test(test_vdso),
		cmocka_unit_test_teardown(test_inlined, kill_child),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
