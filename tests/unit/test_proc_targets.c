// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for the /proc source's fd targets (proc_targets.c) on a fixture
 * /proc tree made here: fd links to a hostile path, a pipe, sockets listed
 * in net/tcp, tcp6, udp and unix, one listed nowhere, and an fd that is not
 * there. The texts are the BPF source's (fd_target.c formats both).
 */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "proc_targets.h"
#include "scratch_dir.h"

static void put(const char *name, const char *text)
{
	FILE *f = fopen(path_of(name), "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int setup(void **state)
{
	(void)state;
	if (scratch_setup("tt_proc_targets"))
		return -1;
	mkdir(path_of("42"), 0755);
	mkdir(path_of("42/fd"), 0755);
	mkdir(path_of("42/net"), 0755);
	mkdir(path_of("42/ns"), 0755);
	put("42/ns/net", "");
	if (symlink("/tmp/fi\033[31mfo\nx", path_of("42/fd/3")) ||
	    symlink("pipe:[1234]", path_of("42/fd/4")) ||
	    symlink("socket:[777]", path_of("42/fd/5")) ||
	    symlink("socket:[778]", path_of("42/fd/6")) ||
	    symlink("socket:[779]", path_of("42/fd/7")) ||
	    symlink("socket:[780]", path_of("42/fd/8")) ||
	    symlink("socket:[999]", path_of("42/fd/9")))
		return -1;
	put("42/net/tcp",
	    "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  "
	    "timeout inode\n"
	    "   0: 0100007F:1388 0100007F:A028 01 00000000:00000000 00:00000000 00000000     0        "
	    "0 777 1 0000000000000000 20 4 30 10 -1\n"
	    "   1: 00000000:0016 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        "
	    "0 781 1 0000000000000000 100 0 0 10 0\n");
	put("42/net/tcp6",
	    "  sl  local_address                         remote_address                        st "
	    "tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"
	    "   0: 00000000000000000000000001000000:0050 00000000000000000000000001000000:C350 01 "
	    "00000000:00000000 00:00000000 00000000     0        0 778 1 0000000000000000 20 4 0 10 "
	    "-1\n");
	put("42/net/udp",
	    "   sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  "
	    "timeout inode ref pointer drops\n"
	    "  123: 3500007F:0035 00000000:0000 07 00000000:00000000 00:00000000 00000000   101        "
	    "0 779 2 0000000000000000 0\n");
	put("42/net/unix",
	    "Num       RefCount Protocol Flags    Type St Inode Path\n"
	    "0000000000000000: 00000002 00000000 00010000 0001 01 780 /run/x.sock\n");
	return 0;
}

static const char *text(struct proc_targets *pt, unsigned long long fd)
{
	static char buf[256];

	proc_targets__text(pt, 42, fd, buf, sizeof(buf));
	return buf;
}

static void targets(void **state)
{
	int root = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct proc_targets *pt;
	char small[8], fixture[512];

	(void)state;

	assert_true(root >= 0);
	read_all(path_of("42/net/unix"), fixture, sizeof(fixture));
	assert_non_null(strstr(fixture, " 780 /run/x.sock"));
	pt = proc_targets__new(root);
	assert_non_null(pt);
	/* Raw: the views escape it. */
	assert_string_equal(text(pt, 3), "/tmp/fi\033[31mfo\nx");
	assert_string_equal(text(pt, 4), "pipe:[1234]");
	assert_string_equal(text(pt, 5), "tcp 127.0.0.1:5000->127.0.0.1:41000");
	assert_string_equal(text(pt, 6), "tcp6 [::1]:80->[::1]:50000");
	assert_string_equal(text(pt, 7), "udp 127.0.0.53:53");
	assert_string_equal(text(pt, 8), "unix /run/x.sock");
	assert_string_equal(text(pt, 9), "socket:[999]"); /* listed nowhere: the link */
	assert_int_equal(proc_targets__text(pt, 42, 10, small, sizeof(small)), 0);
	assert_string_equal(small, "");
	assert_int_equal(proc_targets__text(pt, 42, ~0ull, small, sizeof(small)), 0);
	assert_int_equal(proc_targets__text(pt, 43, 3, small, sizeof(small)), 0);
	/* Cut to the room, NUL-terminated. */
	assert_int_equal(proc_targets__text(pt, 42, 4, small, sizeof(small)), 7);
	assert_string_equal(small, "pipe:[1");
	/* A new pass reads the tables again. */
	proc_targets__pass(pt);
	assert_string_equal(text(pt, 5), "tcp 127.0.0.1:5000->127.0.0.1:41000");
	proc_targets__free(pt);
	proc_targets__free(NULL);
	close(root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(targets),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
