// SPDX-License-Identifier: GPL-2.0-only
/* fd targets from /proc (see proc_targets.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fd_target.h"
#include "proc_targets.h"
#include "u64map.h"
#include "util.h"

struct proc_targets {
	int root_fd;
	uint32_t pass, built_pass; /* the socket tables are of built_pass */
	uint64_t netns;		   /* and of this network namespace (its inode) */
	struct u64map *socks;	   /* socket inode -> struct tt_fd_target */
};

struct proc_targets *proc_targets__new(int root_fd)
{
	struct proc_targets *pt = xcalloc(1, sizeof(*pt));

	pt->root_fd = root_fd;
	pt->pass = 1;
	return pt;
}

void proc_targets__free(struct proc_targets *pt)
{
	if (!pt)
		return;
	u64map__free_all(pt->socks, free);
	free(pt);
}

void proc_targets__pass(struct proc_targets *pt)
{
	if (pt)
		pt->pass++;
}

/* hex ("0100007F", 8 digits per 4 bytes, each group a host-order u32) into addr. */
static void parse_addr(const char *hex, __u8 *addr, size_t bytes)
{
	for (size_t i = 0; i < bytes / 4; i++) {
		char group[9];
		uint32_t v;

		memcpy(group, hex + i * 8, 8);
		group[8] = '\0';
		v = (uint32_t)strtoul(group, NULL, 16);
		memcpy(addr + i * 4, &v, 4);
	}
}

/*
 * Sockets kept from one namespace's tables: a busy server lists hundreds of
 * thousands; those past the bound stay socket:[ino], as other families do.
 */
#define PROC_SOCKETS_MAX 65536

static void keep(struct proc_targets *pt, unsigned long ino, const struct tt_fd_target *r)
{
	struct tt_fd_target *copy;

	if (!ino || u64map__count(pt->socks) >= PROC_SOCKETS_MAX || u64map__get(pt->socks, ino))
		return;
	copy = xmalloc(sizeof(*copy));
	*copy = *r;
	u64map__put(pt->socks, ino, copy);
}

/* Table /proc/PID/net/NAME of process pid's network namespace, or NULL. */
static FILE *open_table(const struct proc_targets *pt, int pid, const char *name)
{
	char path[64];
	FILE *f;
	int fd;

	snprintf(path, sizeof(path), "%d/net/%s", pid, name);
	fd = openat(pt->root_fd, path, O_RDONLY | O_CLOEXEC);
	f = fd >= 0 ? fdopen(fd, "re") : NULL;
	if (!f && fd >= 0)
		close(fd);
	return f;
}

/* One of tcp, tcp6, udp, udp6 of process pid's network namespace. */
static void read_inet(struct proc_targets *pt, int pid, const char *table, int family, int type)
{
	size_t bytes = family == 10 ? 16 : 4;
	char line[512], la[40], ra[40];
	unsigned lport, rport, st;
	unsigned long ino;
	FILE *f = open_table(pt, pid, table);

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		struct tt_fd_target r = {.kind = TT_FDT_INET};

		if (sscanf(line,
			   " %*d: %39[0-9A-Fa-f]:%x %39[0-9A-Fa-f]:%x %x %*s %*s %*s %*s %*s %lu",
			   la, &lport, ra, &rport, &st, &ino) != 6 ||
		    strlen(la) != bytes * 2 || strlen(ra) != bytes * 2)
			continue;
		r.family = (__u16)family;
		r.type = (__u16)(type | (type == 1 ? st << 8 : 0));
		r.lport = (__u16)lport;
		r.rport = (__u16)rport;
		parse_addr(la, r.laddr, bytes);
		parse_addr(ra, r.raddr, bytes);
		keep(pt, ino, &r);
	}
	fclose(f);
}

static void read_unix(struct proc_targets *pt, int pid)
{
	char line[512 + TT_FD_NAME_MAX], name[TT_FD_NAME_MAX + 1];
	unsigned long ino;
	FILE *f = open_table(pt, pid, "unix");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		struct tt_fd_target r = {.kind = TT_FDT_UNIX, .family = 1};
		int n;

		name[0] = '\0';
		n = sscanf(line, "%*s %*s %*s %*s %*x %*x %lu %256[^\n]", &ino, name);
		if (n < 1)
			continue;
		r.len = (__u16)strlen(name);
		memcpy(r.name, name, r.len);
		keep(pt, ino, &r);
	}
	fclose(f);
}

/* The socket of inode ino, as pid's network namespace lists it; NULL when not listed. */
static const struct tt_fd_target *socket_of(struct proc_targets *pt, int pid, unsigned long ino)
{
	char path[64];
	struct stat st;

	snprintf(path, sizeof(path), "%d/ns/net", pid);
	if (fstatat(pt->root_fd, path, &st, 0))
		st.st_ino = 0;
	if (!pt->socks || pt->built_pass != pt->pass || pt->netns != (uint64_t)st.st_ino) {
		u64map__free_all(pt->socks, free);
		pt->socks = u64map__new();
		pt->built_pass = pt->pass;
		pt->netns = st.st_ino;
		read_inet(pt, pid, "tcp", 2, 1);
		read_inet(pt, pid, "tcp6", 10, 1);
		read_inet(pt, pid, "udp", 2, 2);
		read_inet(pt, pid, "udp6", 10, 2);
		read_unix(pt, pid);
	}
	return u64map__get(pt->socks, ino);
}

size_t proc_targets__text(struct proc_targets *pt, int pid, unsigned long long fd, char *buf,
			  size_t cap)
{
	const struct tt_fd_target *sock;
	char path[64], link[TT_MAX_STRING_LEN];
	unsigned long ino;
	ssize_t n;
	size_t len;

	if (!cap)
		return 0;
	buf[0] = '\0';
	if (fd > INT32_MAX)
		return 0;
	snprintf(path, sizeof(path), "%d/fd/%llu", pid, fd);
	n = readlinkat(pt->root_fd, path, link, sizeof(link) - 1);
	if (n <= 0)
		return 0;
	link[n] = '\0';
	if (sscanf(link, "socket:[%lu]", &ino) == 1 && (sock = socket_of(pt, pid, ino))) {
		len = fd_target_format(sock, buf, cap);
		return len < cap ? len : cap - 1;
	}
	len = (size_t)n < cap ? (size_t)n : cap - 1;
	memcpy(buf, link, len);
	buf[len] = '\0';
	return len;
}
