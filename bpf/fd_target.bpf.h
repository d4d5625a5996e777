/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * What the fd argument of a sampled syscall names (issue #30), for the
 * thread sampler (threads.bpf.c includes this after ring_room): read from
 * the task's fd table at sample time, described once in a TT_EV_FD_TARGET
 * record (fd_target.shared.h) under a small id, which the samples carry.
 *
 * The set tt_fd_ids remembers each target sent, keyed by what names it: the
 * file's dentry and mount (its path, for every process and fd that opened
 * it: a path is walked up to the root of the mount namespace, as a task of
 * another namespace sees it), its inode, and for a socket its addresses.
 * A known target costs a sample a few loads and a look-up; a new one the
 * walk of its path (TT_FD_PATH_DEPTH components and TT_FD_NAME_MAX bytes at
 * most) and a ring record. When the ring is short of room for the record
 * and a batch of samples, or refuses the record, the sample goes without a
 * target (counted) and nothing is remembered: the samples come first.
 *
 * All of it runs in one global function, checked by the verifier once and
 * not on every path of the sampler, with probe reads only (the task comes
 * as a number: kernel 6.1's global functions take no task pointers) and
 * helpers Linux 6.1 has.
 */
#ifndef THREADTOP_FD_TARGET_BPF_H
#define THREADTOP_FD_TARGET_BPF_H

#include <bpf/bpf_endian.h>

#include "fd_target.shared.h"

/* Set by the loader: false leaves targets out (THREADTOP_TEST_NO_FD_TARGETS, to measure them). */
const volatile bool tt_fd_targets = true;

/* tt_fd_args[nr]: 1 + the fd argument of syscall nr, 0 for none (fd_target.shared.h). */
static const __u8 tt_fd_args[TT_FD_SYSCALL_NR_MAX] = {TT_FD_SYSCALLS(TT_FD_ARG_ENTRY)};

/*
 * What names a target (see above); aux: a socket's addresses, or a file's
 * unlinking (bit 0) and inode generation (a reused inode number differs).
 */
struct fdt_key {
	__u64 dentry;
	__u64 mnt;
	__u64 ino;
	__u64 aux;
};

/* Targets sent, by what names them -> their id. Shared by the two samplers (bpf_load.c). */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, TT_FD_IDS_MAX);
	__type(key, struct fdt_key);
	__type(value, __u32);
} tt_fd_ids SEC(".maps");

/* The last target id handed out (shared as tt_fd_ids). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} tt_fd_next SEC(".maps");

#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wgnu-variable-sized-type-not-at-end"
struct fdt_buf {
	struct tt_fd_target rec;
	char slack[TT_FD_NAME_MAX]; /* a component copied at the end of name may run on here */
	__u64 names[TT_FD_PATH_DEPTH];
	__u32 lens[TT_FD_PATH_DEPTH];
	__u64 task; /* the sampled task's address, for fd_target_of */
	/* The walk of a path (fdt_up, fdt_down): where it is, what it found. */
	__u64 w_dentry, w_mnt;
	__u32 n, total, pos, whole;
};
#pragma clang diagnostic pop

/* One pass runs at a time (a plain array: a sleepable pass may change CPUs). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct fdt_buf);
} tt_fd_buf SEC(".maps");

/* For the log: targets sent, found known, and gone without (ring short or refused). */
__u64 tt_fd_sent = 0;
__u64 tt_fd_known = 0;
__u64 tt_fd_skipped = 0;

#define FDT_ROOM (sizeof(struct tt_fd_target) + 16)

/* Magic numbers of the pseudo file systems (include/uapi/linux/magic.h). */
#define PIPEFS_MAGIC 0x50495045
#define ANON_INODE_FS_MAGIC 0x09041934
#define FDT_MNT_INTERNAL 0x4000
#define FDT_S_IFMT 00170000
#define FDT_S_IFSOCK 0140000
#define FDT_AF_UNIX 1
#define FDT_AF_INET 2
#define FDT_AF_INET6 10

/*
 * One step of the walk up from a file (bpf_loop: checked once, not once per
 * step): the next component, or a mount crossed. The walk's state is in b.
 */
static long fdt_up(__u32 i, void *ctx)
{
	__u32 zero = 0, n, len;
	struct fdt_buf *b = bpf_map_lookup_elem(&tt_fd_buf, &zero);
	struct dentry *dentry, *parent, *root;
	struct vfsmount *vfsmnt;
	struct mount *mnt, *up;

	if (!b)
		return 1;
	dentry = (void *)b->w_dentry;
	mnt = (void *)b->w_mnt;
	vfsmnt = (void *)mnt + bpf_core_field_offset(struct mount, mnt);
	parent = BPF_CORE_READ(dentry, d_parent);
	root = BPF_CORE_READ(vfsmnt, mnt_root);
	if (dentry == root || dentry == parent) {
		up = BPF_CORE_READ(mnt, mnt_parent);
		if (dentry != root || up == mnt || !up) {
			b->whole = 1; /* the namespace's root, or an unmounted tree's */
			return 1;
		}
		b->w_dentry = (__u64)BPF_CORE_READ(mnt, mnt_mountpoint);
		b->w_mnt = (__u64)up;
		return 0;
	}
	n = b->n;
	len = BPF_CORE_READ(dentry, d_name.len);
	if (n >= TT_FD_PATH_DEPTH || len > TT_FD_NAME_MAX - 1 ||
	    b->total + len + 1 > TT_FD_NAME_MAX)
		return 1;
	b->names[n & (TT_FD_PATH_DEPTH - 1)] = (__u64)BPF_CORE_READ(dentry, d_name.name);
	b->lens[n & (TT_FD_PATH_DEPTH - 1)] = len;
	b->n = n + 1;
	b->total += len + 1;
	b->w_dentry = (__u64)parent;
	return 0;
}

/* One step down again, root first: "/" and the i-th component from the root. */
static long fdt_down(__u32 i, void *ctx)
{
	__u32 zero = 0, k, len, pos;
	struct fdt_buf *b = bpf_map_lookup_elem(&tt_fd_buf, &zero);

	if (!b || i >= b->n)
		return 1;
	k = (b->n - 1 - i) & (TT_FD_PATH_DEPTH - 1);
	len = b->lens[k] & (TT_FD_NAME_MAX - 1);
	pos = b->pos;
	if (pos >= TT_FD_NAME_MAX)
		return 1;
	b->rec.name[pos] = '/';
	pos++;
	bpf_probe_read_kernel(&b->rec.name[pos & (TT_FD_NAME_MAX - 1)], len, (void *)b->names[k]);
	b->pos = pos + len;
	return 0;
}

/*
 * The file's path into b->rec.name, from the root of its mount namespace
 * (TT_FD_PATH_DEPTH components and 8 mount crossings at most); its length.
 */
static __always_inline __u32 fdt_path(struct fdt_buf *b, struct dentry *dentry,
				      struct vfsmount *vfsmnt)
{
	b->w_dentry = (__u64)dentry;
	b->w_mnt = (__u64)((void *)vfsmnt - bpf_core_field_offset(struct mount, mnt));
	b->n = b->total = b->pos = 0;
	b->whole = 0;
	bpf_loop(TT_FD_PATH_DEPTH + 8, fdt_up, NULL, 0);
	if (!b->whole)
		b->rec.flags |= TT_FDT_TRUNCATED;
	if (!b->n) {
		b->rec.name[0] = '/';
		return 1;
	}
	bpf_loop(TT_FD_PATH_DEPTH, fdt_down, NULL, 0);
	return b->pos < TT_FD_NAME_MAX ? b->pos : TT_FD_NAME_MAX;
}

/* The name of a dentry (an anon inode's "[eventfd]") into b->rec.name; its length. */
static __always_inline __u32 fdt_dname(struct fdt_buf *b, struct dentry *dentry)
{
	long n = bpf_probe_read_kernel_str(b->rec.name, TT_FD_NAME_MAX,
					   BPF_CORE_READ(dentry, d_name.name));

	return n > 1 ? (__u32)(n - 1) : 0;
}

/* A socket's family, type and addresses into b->rec; what tells its addresses apart. */
static __always_inline __u64 fdt_socket(struct fdt_buf *b, struct file *file)
{
	struct socket *sock = BPF_CORE_READ(file, private_data);
	struct sock *sk = BPF_CORE_READ(sock, sk);
	struct tt_fd_target *r = &b->rec;
	__u64 aux;

	r->kind = TT_FDT_SOCKET;
	r->family = BPF_CORE_READ(sk, __sk_common.skc_family);
	r->type = BPF_CORE_READ(sock, type) & 0xff;
	if (r->family == FDT_AF_INET || r->family == FDT_AF_INET6) {
		r->kind = TT_FDT_INET;
		r->type |= (__u16)BPF_CORE_READ(sk, __sk_common.skc_state) << 8;
		r->lport = BPF_CORE_READ(sk, __sk_common.skc_num);
		r->rport = bpf_ntohs(BPF_CORE_READ(sk, __sk_common.skc_dport));
		if (r->family == FDT_AF_INET) {
			BPF_CORE_READ_INTO(&r->laddr, sk, __sk_common.skc_rcv_saddr);
			BPF_CORE_READ_INTO(&r->raddr, sk, __sk_common.skc_daddr);
		} else {
			BPF_CORE_READ_INTO(&r->laddr, sk, __sk_common.skc_v6_rcv_saddr);
			BPF_CORE_READ_INTO(&r->raddr, sk, __sk_common.skc_v6_daddr);
		}
		aux = (__u64)r->lport << 48 | (__u64)r->rport << 32 | r->type;
		for (int i = 0; i < 16; i += 8)
			aux = (aux ^ *(__u64 *)&r->laddr[i]) * 0x9e3779b97f4a7c15ULL ^
			      *(__u64 *)&r->raddr[i];
		return aux;
	}
	if (r->family == FDT_AF_UNIX) {
		struct unix_sock *u = (void *)sk;
		struct unix_address *addr = BPF_CORE_READ(u, addr);
		int len;

		r->kind = TT_FDT_UNIX;
		if (!addr) {
			struct unix_sock *peer = (void *)BPF_CORE_READ(u, peer);

			addr = peer ? BPF_CORE_READ(peer, addr) : NULL;
			if (addr)
				r->flags |= TT_FDT_PEER;
		}
		if (!addr)
			return 1;
		len = BPF_CORE_READ(addr, len) - 2; /* after sun_family */
		if (len > 0) {
			len &= TT_FD_NAME_MAX - 1;
			bpf_probe_read_kernel(
				r->name, len,
				(void *)addr + bpf_core_field_offset(struct unix_address, name) +
					2);
			r->len = len;
		}
		return (__u64)addr;
	}
	return 2;
}

/*
 * The target id of fd in the fd table of the task in tt_fd_buf, sending its
 * record first when it is new; 0 when there is none to give. The task comes
 * through the map: a pointer argument would have to be a trusted one.
 */
__noinline __u32 fd_target_of(__u64 fd)
{
	struct fdt_key key = {};
	struct task_struct *t;
	struct vfsmount *vfsmnt;
	struct dentry *dentry;
	struct fdtable *fdt;
	struct file **fds, *file;
	struct inode *inode;
	struct fdt_buf *b;
	__u32 zero = 0, *known, id, size;
	__u64 *next, magic;
	__u16 mode;

	b = bpf_map_lookup_elem(&tt_fd_buf, &zero);
	if (!b)
		return 0;
	t = (void *)b->task;
	fdt = BPF_CORE_READ(t, files, fdt);
	if (!fdt || fd >= BPF_CORE_READ(fdt, max_fds))
		return 0;
	fds = BPF_CORE_READ(fdt, fd);
	if (bpf_probe_read_kernel(&file, sizeof(file), fds + fd) || !file)
		return 0;
	__builtin_memset(&b->rec, 0, sizeof(b->rec) - sizeof(b->rec.name));
	dentry = BPF_CORE_READ(file, f_path.dentry);
	vfsmnt = BPF_CORE_READ(file, f_path.mnt);
	inode = BPF_CORE_READ(file, f_inode);
	mode = BPF_CORE_READ(inode, i_mode);
	magic = BPF_CORE_READ(inode, i_sb, s_magic);
	key.dentry = (__u64)dentry;
	key.mnt = (__u64)vfsmnt;
	key.ino = BPF_CORE_READ(inode, i_ino);
	b->rec.ino = key.ino;
	if ((mode & FDT_S_IFMT) == FDT_S_IFSOCK)
		key.aux = fdt_socket(b, file);
	else /* an unlinked file is another name (" (deleted)"); a reused inode number another file */
		key.aux = (!BPF_CORE_READ(dentry, d_hash.pprev) &&
			   dentry != BPF_CORE_READ(dentry, d_parent)) |
			  (__u64)BPF_CORE_READ(inode, i_generation) << 1;
	known = bpf_map_lookup_elem(&tt_fd_ids, &key);
	if (known) {
		tt_fd_known++;
		return *known;
	}
	if (!ring_room(FDT_ROOM + BATCH_ROOM)) {
		tt_fd_skipped++;
		count_drop(TT_DROP_RINGBUF_FULL);
		return 0;
	}
	if (b->rec.kind == TT_FDT_NONE) {
		if (magic == PIPEFS_MAGIC) {
			b->rec.kind = TT_FDT_PIPE;
		} else if (magic == ANON_INODE_FS_MAGIC) {
			b->rec.kind = TT_FDT_ANON;
			b->rec.len = fdt_dname(b, dentry);
		} else if (BPF_CORE_READ(vfsmnt, mnt_flags) & FDT_MNT_INTERNAL) {
			b->rec.kind = TT_FDT_OTHER;
			b->rec.len = fdt_dname(b, dentry);
		} else {
			b->rec.kind = TT_FDT_PATH;
			if (key.aux & 1)
				b->rec.flags |= TT_FDT_DELETED;
			b->rec.len = fdt_path(b, dentry, vfsmnt);
		}
	}
	next = bpf_map_lookup_elem(&tt_fd_next, &zero);
	if (!next)
		return 0;
	id = (__u32)__sync_fetch_and_add(next, 1) + 1;
	if (!id)
		id = (__u32)__sync_fetch_and_add(next, 1) + 1; /* 0 is "none" */
	size = offsetof(struct tt_fd_target, name) + (b->rec.len & (TT_FD_NAME_MAX - 1));
	if (b->rec.len >= TT_FD_NAME_MAX)
		size = sizeof(b->rec);
	b->rec.hdr.type = TT_EV_FD_TARGET;
	b->rec.hdr.version = 1;
	b->rec.hdr.size = size;
	b->rec.hdr.time_ns = tt_pass_ns ?: bpf_ktime_get_ns();
	b->rec.id = id;
	if (size > sizeof(b->rec) || emit(&b->rec, size)) {
		tt_fd_skipped++;
		return 0;
	}
	tt_fd_sent++;
	bpf_map_update_elem(&tt_fd_ids, &key, &id, BPF_ANY);
	return id;
}

/* The target of the fd argument of sample s's syscall, when it has one. */
static __always_inline void fd_target_note(struct task_struct *task, struct tt_thread_sample *s)
{
	__u32 nr = (__u32)s->syscall_nr, arg, zero = 0;
	struct fdt_buf *b;

	if (!tt_fd_targets || !(s->flags & TT_SAMPLE_HAS_ARGS) || nr >= TT_FD_SYSCALL_NR_MAX)
		return;
	/* 0 (no fd) wraps: one unsigned check, after the subtraction, as Linux 6.1 needs it. */
	arg = (__u32)tt_fd_args[nr] - 1;
	barrier_var(arg);
	if (arg > 5)
		return;
	b = bpf_map_lookup_elem(&tt_fd_buf, &zero);
	if (!b)
		return;
	b->task = (__u64)task;
	s->syscall_target_id = fd_target_of(s->syscall_args[arg]);
}

#endif /* THREADTOP_FD_TARGET_BPF_H */
