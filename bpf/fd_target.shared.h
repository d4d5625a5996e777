/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * What a sampled syscall's fd argument names (issue #30): the one table of
 * which argument of which syscall is an fd, read by the thread sampler
 * (fd_target.bpf.h) and by user space (the /proc source, the tests), and
 * the record in which the sampler describes what it found in the task's fd
 * table. No includes: the includer brings __u32 and friends.
 */
#ifndef THREADTOP_BPF_FD_TARGET_SHARED_H
#define THREADTOP_BPF_FD_TARGET_SHARED_H

/*
 * X(nr, arg, name): x86-64 syscall nr takes an fd as argument arg (0-5).
 * epoll_wait and epoll_pwait's is the epoll fd; sendfile and splice's the
 * one they write to (a socket or pipe, more often the one waited on).
 */
#define TT_FD_SYSCALLS(X)          \
	X(0, 0, read)              \
	X(1, 0, write)             \
	X(16, 0, ioctl)            \
	X(17, 0, pread64)          \
	X(18, 0, pwrite64)         \
	X(19, 0, readv)            \
	X(20, 0, writev)           \
	X(40, 0, sendfile)         \
	X(42, 0, connect)          \
	X(43, 0, accept)           \
	X(44, 0, sendto)           \
	X(45, 0, recvfrom)         \
	X(46, 0, sendmsg)          \
	X(47, 0, recvmsg)          \
	X(72, 0, fcntl)            \
	X(73, 0, flock)            \
	X(74, 0, fsync)            \
	X(75, 0, fdatasync)        \
	X(77, 0, ftruncate)        \
	X(187, 0, readahead)       \
	X(232, 0, epoll_wait)      \
	X(275, 1, splice)          \
	X(276, 1, tee)             \
	X(277, 0, sync_file_range) \
	X(278, 0, vmsplice)        \
	X(281, 0, epoll_pwait)     \
	X(285, 0, fallocate)       \
	X(288, 0, accept4)         \
	X(295, 0, preadv)          \
	X(296, 0, pwritev)         \
	X(299, 0, recvmmsg)        \
	X(306, 0, syncfs)          \
	X(307, 0, sendmmsg)        \
	X(327, 0, preadv2)         \
	X(328, 0, pwritev2)        \
	X(426, 0, io_uring_enter)  \
	X(441, 0, epoll_pwait2)

/* Syscall numbers the table covers: tt_fd_args[nr] for nr below this. */
#define TT_FD_SYSCALL_NR_MAX 512

/* An initialiser of a table by syscall number: 1 + the fd argument, 0 for none. */
#define TT_FD_ARG_ENTRY(nr, arg, name) [nr] = (arg) + 1,

/* What a target is (tt_fd_target.kind). */
enum tt_fd_kind {
	TT_FDT_NONE = 0,
	TT_FDT_PATH = 1, /* a file of a mounted file system, FIFOs and devices too: name */
	TT_FDT_PIPE = 2, /* an anonymous pipe: ino */
	TT_FDT_INET = 3, /* an AF_INET or AF_INET6 socket: family, type, ports, addresses */
	TT_FDT_UNIX =
		4, /* an AF_UNIX socket: name its path (or @abstract), peer set when the peer's */
	TT_FDT_SOCKET = 5, /* a socket of another family: family, type */
	TT_FDT_ANON = 6,   /* an anon inode: name ("[eventfd]", "[eventpoll]", ...) */
	TT_FDT_OTHER = 7,  /* a file of an internal file system: name its dentry's, ino */
	TT_FDT_KIND_MAX,
};

/* Bounds of the kernel's resolution: path components walked, and bytes of name. */
#define TT_FD_PATH_DEPTH 16
#define TT_FD_NAME_MAX 256

/* Targets the sampler remembers as sent (tt_fd_ids, least recently used first out). */
#define TT_FD_IDS_MAX 16384

/* tt_fd_target.flags */
#define TT_FDT_TRUNCATED \
	(1u << 0)	      /* the path went deeper or longer than the bounds: name is its tail */
#define TT_FDT_PEER (1u << 1) /* TT_FDT_UNIX: name is the peer's (the socket has none) */
#define TT_FDT_DELETED (1u << 2) /* the file was unlinked */

/*
 * TT_EV_FD_TARGET: what kernel target id (the id that thread samples carry
 * in syscall_target_id until the BPF source has translated it into a
 * TT_EV_STRING id) names. Sent by the thread sampler before the batch of
 * the first sample naming it, once per target while it stays in the
 * sampler's set (fd_target.bpf.h). Live only: the BPF source formats it
 * (fd_target.c) and consumes it, so it never reaches the model or a
 * recording. The record is cut after len bytes of name.
 */
struct tt_fd_target {
	struct tt_event_header hdr;
	__u32 id;
	__u16 kind;   /* enum tt_fd_kind */
	__u16 len;    /* bytes of name, no NUL, at most TT_FD_NAME_MAX */
	__u64 ino;    /* the inode's number */
	__u16 family; /* sockets: AF_* */
	__u16 type;   /* sockets: SOCK_STREAM, SOCK_DGRAM, ...; TCP: state << 8 too */
	__u16 lport;  /* inet: host order */
	__u16 rport;
	__u8 laddr[16]; /* inet: network order, the first 4 bytes for AF_INET */
	__u8 raddr[16];
	__u32 flags; /* TT_FDT_* */
	__u32 reserved;
	char name[TT_FD_NAME_MAX];
};

#endif /* THREADTOP_BPF_FD_TARGET_SHARED_H */
