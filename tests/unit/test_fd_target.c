// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for fd targets (issue #30): the one table of which syscall
 * argument is an fd (against the syscall names), the checks and the text
 * of the thread sampler's TT_EV_FD_TARGET records, and that hostile file
 * names come out of the one escaping function harmless.
 */
#include <arpa/inet.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "escape.h"
#include "fd_target.h"
#include "syscalls.h"

#define NAME_OF(nr, arg, name) {nr, arg, #name},

static const struct {
	int nr, arg;
	const char *name;
} table[] = {TT_FD_SYSCALLS(NAME_OF)};

static void fd_argument_table(void **state)
{
	/* Every entry names the syscall of its number, and the argument is one of six. */
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		assert_non_null(syscall_name(table[i].nr));
		assert_string_equal(syscall_name(table[i].nr), table[i].name);
		assert_true(table[i].nr < TT_FD_SYSCALL_NR_MAX);
		assert_int_equal(fd_target_arg(table[i].nr), table[i].arg);
	}
	assert_int_equal(fd_target_arg(0), 0);	  /* read */
	assert_int_equal(fd_target_arg(45), 0);	  /* recvfrom */
	assert_int_equal(fd_target_arg(232), 0);  /* epoll_wait's epfd */
	assert_int_equal(fd_target_arg(275), 1);  /* splice: fd_out */
	assert_int_equal(fd_target_arg(39), -1);  /* getpid */
	assert_int_equal(fd_target_arg(202), -1); /* futex */
	assert_int_equal(fd_target_arg(-1), -1);
	assert_int_equal(fd_target_arg(TT_FD_SYSCALL_NR_MAX), -1);
	assert_int_equal(fd_target_arg(100000), -1);
}

static size_t make(struct tt_fd_target *r, enum tt_fd_kind kind, const char *name, size_t len)
{
	memset(r, 0, sizeof(*r));
	r->hdr.type = TT_EV_FD_TARGET;
	r->hdr.version = 1;
	r->id = 7;
	r->kind = (__u16)kind;
	r->len = (__u16)len;
	if (len)
		memcpy(r->name, name, len);
	r->hdr.size = (__u32)(offsetof(struct tt_fd_target, name) + len);
	return r->hdr.size;
}

static const char *text(const struct tt_fd_target *r)
{
	static char buf[TT_MAX_STRING_LEN];

	fd_target_format(r, buf, sizeof(buf));
	return buf;
}

static void records_checked(void **state)
{
	char longest[TT_FD_NAME_MAX];
	struct tt_fd_target r;
	size_t size = make(&r, TT_FDT_PATH, "/x", 2);

	assert_int_equal(fd_target_check(&r, size), 0);
	assert_int_not_equal(fd_target_check(&r, size + 1), 0); /* hdr.size says otherwise */
	assert_int_not_equal(fd_target_check(&r, 8), 0);
	r.len = 3;
	assert_int_not_equal(fd_target_check(&r, size), 0);
	size = make(&r, TT_FDT_PATH, "/x", 2);
	r.kind = TT_FDT_NONE;
	assert_int_not_equal(fd_target_check(&r, size), 0);
	r.kind = TT_FDT_KIND_MAX;
	assert_int_not_equal(fd_target_check(&r, size), 0);
	r.kind = TT_FDT_PATH;
	r.id = 0;
	assert_int_not_equal(fd_target_check(&r, size), 0);
	r.id = 7;
	r.hdr.version = 2;
	assert_int_not_equal(fd_target_check(&r, size), 0);
	/* The longest name there is. */
	memset(longest, 'a', sizeof(longest));
	size = make(&r, TT_FDT_PATH, longest, TT_FD_NAME_MAX);
	assert_int_equal(fd_target_check(&r, size), 0);
	assert_int_equal(strlen(text(&r)), TT_FD_NAME_MAX);
}

static void paths(void **state)
{
	static const char hostile[] = "/tmp/fi\033[31mfo\nx";
	struct tt_fd_target r;
	char esc[256];

	make(&r, TT_FDT_PATH, "/var/log/syslog", 15);
	assert_string_equal(text(&r), "/var/log/syslog");
	r.flags = TT_FDT_DELETED;
	assert_string_equal(text(&r), "/var/log/syslog (deleted)");
	r.flags = TT_FDT_TRUNCATED;
	assert_string_equal(text(&r), ".../var/log/syslog");
	/* Raw in the text (the string dictionary keeps the name as it is)... */
	make(&r, TT_FDT_PATH, hostile, sizeof(hostile) - 1);
	assert_string_equal(text(&r), hostile);
	/* ...harmless once escaped, as every view does. */
	escape_for_terminal(text(&r), strlen(text(&r)), esc, sizeof(esc));
	assert_null(strchr(esc, '\033'));
	assert_null(strchr(esc, '\n'));
	assert_string_equal(esc, "/tmp/fi\\e[31mfo\\nx");
}

static void sockets(void **state)
{
	struct tt_fd_target r;

	make(&r, TT_FDT_INET, NULL, 0);
	r.family = 2;
	r.type = 1 | 1 << 8; /* a stream, TCP_ESTABLISHED */
	r.lport = 5000;
	r.rport = 41000;
	inet_pton(AF_INET, "127.0.0.1", r.laddr);
	inet_pton(AF_INET, "10.1.2.3", r.raddr);
	assert_string_equal(text(&r), "tcp 127.0.0.1:5000->10.1.2.3:41000");
	/* Listening: no remote end. */
	memset(r.raddr, 0, sizeof(r.raddr));
	r.rport = 0;
	r.type = 1 | 10 << 8;
	memset(r.laddr, 0, sizeof(r.laddr));
	assert_string_equal(text(&r), "tcp 0.0.0.0:5000 (listening)");
	r.type = 2;
	assert_string_equal(text(&r), "udp 0.0.0.0:5000");
	r.family = 10;
	r.type = 1 | 1 << 8;
	inet_pton(AF_INET6, "::1", r.laddr);
	inet_pton(AF_INET6, "fe80::1:2", r.raddr);
	r.rport = 80;
	assert_string_equal(text(&r), "tcp6 [::1]:5000->[fe80::1:2]:80");

	make(&r, TT_FDT_UNIX, "/run/x.sock", 11);
	assert_string_equal(text(&r), "unix /run/x.sock");
	r.flags = TT_FDT_PEER;
	assert_string_equal(text(&r), "unix ->/run/x.sock");
	make(&r, TT_FDT_UNIX, "\0abs\0x", 6);
	assert_string_equal(text(&r), "unix @abs@x");
	make(&r, TT_FDT_UNIX, NULL, 0);
	assert_string_equal(text(&r), "unix");
	make(&r, TT_FDT_SOCKET, NULL, 0);
	r.family = 16;
	r.ino = 99;
	assert_string_equal(text(&r), "netlink socket:[99]");
	r.family = 44;
	assert_string_equal(text(&r), "socket:[99] family 44");
}

static void pseudo_files(void **state)
{
	struct tt_fd_target r;
	char small[8];

	make(&r, TT_FDT_PIPE, NULL, 0);
	r.ino = 1234;
	assert_string_equal(text(&r), "pipe:[1234]");
	make(&r, TT_FDT_ANON, "[eventfd]", 9);
	assert_string_equal(text(&r), "anon_inode:[eventfd]");
	make(&r, TT_FDT_OTHER, "memfd:jit", 9);
	assert_string_equal(text(&r), "memfd:jit");
	make(&r, TT_FDT_OTHER, NULL, 0);
	r.ino = 5;
	assert_string_equal(text(&r), "inode:[5]");
	/* Short room: cut, NUL-terminated, the length it would have had. */
	make(&r, TT_FDT_ANON, "[eventpoll]", 11);
	assert_int_equal(fd_target_format(&r, small, sizeof(small)),
			 strlen("anon_inode:[eventpoll]"));
	assert_string_equal(small, "anon_in");
	assert_int_equal(fd_target_format(&r, small, 0), strlen("anon_inode:[eventpoll]"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(fd_argument_table),
		cmocka_unit_test(records_checked),
		cmocka_unit_test(paths),
		cmocka_unit_test(sockets),
		cmocka_unit_test(pseudo_files),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
