// SPDX-License-Identifier: GPL-2.0-only
/* The fd-argument table and the text of fd targets (see fd_target.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "fd_target.h"

static const __u8 fd_args[TT_FD_SYSCALL_NR_MAX] = {TT_FD_SYSCALLS(TT_FD_ARG_ENTRY)};

int fd_target_arg(int nr)
{
	if (nr < 0 || nr >= TT_FD_SYSCALL_NR_MAX || !fd_args[nr])
		return -1;
	return fd_args[nr] - 1;
}

int fd_target_check(const struct tt_fd_target *rec, size_t size)
{
	if (size < offsetof(struct tt_fd_target, name) || rec->hdr.type != TT_EV_FD_TARGET ||
	    rec->hdr.version != 1 || rec->hdr.size != size || !rec->id ||
	    rec->len > TT_FD_NAME_MAX || size != offsetof(struct tt_fd_target, name) + rec->len ||
	    rec->kind == TT_FDT_NONE || rec->kind >= TT_FDT_KIND_MAX)
		return -EINVAL;
	return 0;
}

/* Appends to out at *pos, as snprintf would (the length counts what did not fit). */
static void put(char *out, size_t cap, size_t *pos, const char *s, size_t len)
{
	if (*pos < cap) {
		size_t room = cap - 1 - *pos;

		memcpy(out + *pos, s, len < room ? len : room);
		out[*pos + (len < room ? len : room)] = '\0';
	}
	*pos += len;
}

static void puts_(char *out, size_t cap, size_t *pos, const char *s)
{
	put(out, cap, pos, s, strlen(s));
}

/* The record's name with each NUL as '@' (an abstract socket's name starts with one). */
static void put_name(char *out, size_t cap, size_t *pos, const struct tt_fd_target *rec)
{
	for (size_t i = 0; i < rec->len; i++)
		put(out, cap, pos, rec->name[i] ? &rec->name[i] : "@", 1);
}

static void put_inet(char *out, size_t cap, size_t *pos, int family, const __u8 *addr,
		     unsigned port)
{
	char a[INET6_ADDRSTRLEN], buf[INET6_ADDRSTRLEN + 16];

	if (!inet_ntop(family, addr, a, sizeof(a)))
		snprintf(a, sizeof(a), "?");
	snprintf(buf, sizeof(buf), family == AF_INET6 ? "[%s]:%u" : "%s:%u", a, port);
	puts_(out, cap, pos, buf);
}

static const char *inet_proto(const struct tt_fd_target *rec)
{
	bool v6 = rec->family == AF_INET6;

	switch (rec->type & 0xff) {
	case 1: /* SOCK_STREAM */
		return v6 ? "tcp6" : "tcp";
	case 2: /* SOCK_DGRAM */
		return v6 ? "udp6" : "udp";
	case 3: /* SOCK_RAW */
		return v6 ? "raw6" : "raw";
	default:
		return v6 ? "inet6" : "inet";
	}
}

static const char *family_name(unsigned family)
{
	switch (family) {
	case 16:
		return "netlink";
	case 17:
		return "packet";
	case 38:
		return "alg";
	case 40:
		return "vsock";
	default:
		return NULL;
	}
}

#define TCP_LISTEN 10

size_t fd_target_format(const struct tt_fd_target *rec, char *out, size_t cap)
{
	static const __u8 zero[16];
	size_t pos = 0;
	char buf[64];

	if (cap)
		out[0] = '\0';
	switch (rec->kind) {
	case TT_FDT_PATH:
		if (rec->flags & TT_FDT_TRUNCATED)
			puts_(out, cap, &pos, "...");
		put_name(out, cap, &pos, rec);
		if (rec->flags & TT_FDT_DELETED)
			puts_(out, cap, &pos, " (deleted)");
		break;
	case TT_FDT_PIPE:
		snprintf(buf, sizeof(buf), "pipe:[%llu]", (unsigned long long)rec->ino);
		puts_(out, cap, &pos, buf);
		break;
	case TT_FDT_INET: {
		int family = rec->family == 10 ? AF_INET6 : AF_INET;
		size_t alen = family == AF_INET6 ? 16 : 4;

		puts_(out, cap, &pos, inet_proto(rec));
		puts_(out, cap, &pos, " ");
		put_inet(out, cap, &pos, family, rec->laddr, rec->lport);
		if (rec->rport || memcmp(rec->raddr, zero, alen)) {
			puts_(out, cap, &pos, "->");
			put_inet(out, cap, &pos, family, rec->raddr, rec->rport);
		} else if ((rec->type & 0xff) == 1 && rec->type >> 8 == TCP_LISTEN) {
			puts_(out, cap, &pos, " (listening)");
		}
		break;
	}
	case TT_FDT_UNIX:
		puts_(out, cap, &pos, "unix");
		if (rec->len) {
			puts_(out, cap, &pos, rec->flags & TT_FDT_PEER ? " ->" : " ");
			put_name(out, cap, &pos, rec);
		}
		break;
	case TT_FDT_SOCKET:
		if (family_name(rec->family))
			snprintf(buf, sizeof(buf), "%s socket:[%llu]", family_name(rec->family),
				 (unsigned long long)rec->ino);
		else
			snprintf(buf, sizeof(buf), "socket:[%llu] family %u",
				 (unsigned long long)rec->ino, rec->family);
		puts_(out, cap, &pos, buf);
		break;
	case TT_FDT_ANON:
		puts_(out, cap, &pos, "anon_inode:");
		put_name(out, cap, &pos, rec);
		break;
	default: /* TT_FDT_OTHER: an internal file system's file (memfd:..., ...) */
		if (rec->len) {
			put_name(out, cap, &pos, rec);
		} else {
			snprintf(buf, sizeof(buf), "inode:[%llu]", (unsigned long long)rec->ino);
			puts_(out, cap, &pos, buf);
		}
		break;
	}
	return pos;
}
