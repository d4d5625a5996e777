// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * --io: block I/O requests per thread, device and direction: count, bytes,
 * time from the request's making to its completion (queue and device time),
 * its log2 histogram and the queue's part. A request is its maker's: the
 * thread current at block_io_start (Linux 6.5+: where a bio becomes a
 * request, in the context that submitted it), else at block_rq_issue (which
 * also runs in kblockd's workers or in interrupts, dispatching what others
 * made). The work of an io_uring worker thread (iou-wrk-TID) is the thread's
 * it serves, which made the io_uring request. tt_io_inflight holds each
 * request from its making in a slot of its own; block_rq_issue notes when
 * it was made and issued, its device and direction; block_rq_complete frees
 * the slot and adds the request to tt_io_stats (whose values only grow;
 * user space sends the differences each interval). Completions run in
 * interrupt context on any CPU, so the sums are added atomically. The
 * thread that made a request itself has it noted in tt_io_live, which names
 * the request a sample of it in D waits on (io_wait.bpf.h). The sums are
 * also kept apart by the stacks where each request was made (note_stacks:
 * walked once per path of each thread), for the exports' requests, time and
 * bytes by stack.
 *
 * The slots are an array, not a hash map: every request takes three or
 * four map operations, and a hash map's insert and delete (a bucket lock,
 * an element from a free list) cost more than the rest of the programs
 * (all three programs: 704 ns a request with a hash map, 414 with the
 * array, at fio's queue depth 32: benchmarks.md). A
 * request's slot is the first of TT_IO_INFLIGHT_PROBES after its address's
 * hash that holds it, else the first free one, claimed by compare-and-swap
 * (two CPUs making requests at once never share one); it is its request's
 * until the completion frees it, and a request address is used again only
 * after the request is freed, which follows its completion.
 */
#define TT_IO_TRACER /* io_wait.bpf.h: the maps, not the sampler's part */
#include "io_wait.bpf.h"
#include "site_copy.bpf.h"

#define REQ_OP_MASK 0xff /* include/linux/blk_types.h: the op in cmd_flags' low bits */
#define REQ_OP_READ 0
#define REQ_OP_WRITE 1
#define PF_IO_WORKER 0x00000010 /* include/linux/sched.h: io_uring's io-wq and SQPOLL threads */

/*
 * io_uring/io-wq.c's worker (task_struct.worker_private of an io-wq thread,
 * Linux 5.17+) and the io-wq it belongs to, whose task is the thread that
 * queued the work (each thread submitting to io_uring has its own io-wq).
 * Before 6.4 a worker belongs to a per-node io_wqe, which points to the io-wq.
 */
struct io_wq___tt {
	struct task_struct *task;
} __attribute__((preserve_access_index));

struct io_wqe___tt {
	struct io_wq___tt *wq;
} __attribute__((preserve_access_index));

struct io_worker___tt {
	struct io_wq___tt *wq;	 /* 6.4+ */
	struct io_wqe___tt *wqe; /* before */
} __attribute__((preserve_access_index));

/* Set by the loader: io_start is loaded (the kernel has block_io_start). */
const volatile bool tt_io_made = false;

/*
 * The paths a thread made requests by, IO_PATHS of them, replaced in turn:
 * walking a request's stacks costs 3 us in the kernel's unwinder and up to
 * 10 us more where a user stack has no frame pointers (127 frames of
 * garbage), 20 times the rest of --io a request, so they are walked for the
 * first request of each path and reused for the next ones. A path is what
 * sets a request's stacks apart without walking them: the user call site
 * (the system call, its place in the code and on the stack, its fd), the
 * request's flags (direction, sync, metadata, readahead) and the function
 * its bio completes in (direct I/O, buffered, a buffer head's, a flush).
 */
#define IO_PATHS 4

struct io_paths {
	__u64 key[IO_PATHS];
	__u64 site[IO_PATHS]; /* its user stack's copy was sent (tt_io_key.site), 0 = none */
	__u32 kstack_id[IO_PATHS];
	__u32 ustack_id[IO_PATHS];
	__u32 need_copy[IO_PATHS]; /* a copy is still to be sent (none could be then) */
	__u32 next;		   /* the slot replaced next */
	__u32 gen;		   /* tt_io_paths_gen when the stacks were walked */
};

/*
 * Moved on by user space when it empties the stack dedup set: every path's
 * stacks are walked again (new ids), so that a cached id goes on no record
 * past the horizon of events.h.
 */
__u32 tt_io_paths_gen = 0;

const volatile __u32 tt_unwind_mode = TT_UNWIND_FP;
const volatile __u32 tt_stack_bytes = 0; /* set by the loader, at most TT_STACK_COPY_MAX */

/* Set by user space while its unwinding budget for this second is spent. */
__u32 tt_copies_paused = 0;

/* A path's user stack copy (site_copy.bpf.h), indexed by CPU; used by the maker's program only. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1); /* set to the number of CPUs by the loader */
	__type(key, __u32);
	__type(value, struct site_copy_buf);
} tt_io_copy_bufs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct io_paths);
} tt_io_paths SEC(".maps");

/*
 * Stack buffers per CPU: one for io_start, one for io_issue, which may
 * interrupt it on the same CPU (a dispatch from an interrupt). A program
 * never nests in itself on a CPU (the kernel skips it and counts a miss).
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, struct tt_stack_buf);
} tt_io_scratch SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384); /* set by the loader */
	__type(key, struct tt_io_key);
	__type(value, struct tt_io_val);
} tt_io_stats SEC(".maps");

/*
 * The partition the request goes to, else (passthrough, flush) its disk.
 * Plain loads through the tracepoint's typed pointers, relocated by CO-RE: a
 * NULL on the way reads as 0 (the verifier's probe loads), and they cost
 * less than bpf_probe_read_kernel calls on a path every request takes.
 */
static __always_inline __u32 request_dev(struct request *rq)
{
	__u32 dev = rq->part->bd_dev;
	struct gendisk *disk;

	if (dev)
		return dev;
	disk = rq->q->disk;
	if (!disk)
		return 0;
	return (__u32)disk->major << TT_IO_MINOR_BITS |
	       ((__u32)disk->first_minor & TT_IO_MINOR_MASK);
}

/* "iou-wrk-": the name io-wq gives its threads, 8 bytes read as one. */
#define IOU_WRK_PREFIX 0x2d6b72772d756f69ull

/*
 * The thread a request made by TASK is for: TASK, or for an io-wq worker the
 * thread whose io-wq it is. SQPOLL threads (iou-sqp-) are io workers with
 * no io_worker: they stay themselves, named as such.
 */
static __always_inline struct task_struct *request_owner(struct task_struct *task, __u32 *worker)
{
	struct io_worker___tt *w;
	struct task_struct *owner;
	__u64 prefix;

	if (!(task->flags & PF_IO_WORKER) || !bpf_core_field_exists(task->worker_private))
		return task;
	__builtin_memcpy(&prefix, task->comm, sizeof(prefix));
	if (prefix != IOU_WRK_PREFIX)
		return task;
	w = task->worker_private;
	if (bpf_core_field_exists(w->wq))
		owner = BPF_CORE_READ(w, wq, task);
	else if (bpf_core_field_exists(w->wqe))
		owner = BPF_CORE_READ(w, wqe, wq, task);
	else
		owner = NULL;
	if (!owner)
		return task;
	*worker = 1;
	return owner;
}

/* Fills in whom V is for (pid, tid, comm, worker); false when not wanted (-p).
 * v->worker says whether an io_uring worker made it for its owner. */
static __always_inline bool note_maker(struct tt_io_inflight_val *v)
{
	struct task_struct *task = bpf_get_current_task_btf(), *owner;

	owner = request_owner(task, &v->worker);
	if (owner == task) {
		if (!want_tgid(task->tgid))
			return false;
		v->pid = task->tgid;
		v->tid = task->pid;
		bpf_get_current_comm(v->comm, sizeof(v->comm));
		return true;
	}
	v->pid = BPF_CORE_READ(owner, tgid);
	v->tid = BPF_CORE_READ(owner, pid);
	if (!want_tgid(v->pid))
		return false;
	BPF_CORE_READ_STR_INTO(&v->comm, owner, comm);
	return true;
}

#define FD_ARG_MAX (1ull << 20) /* a larger first argument is an address */

/* The low 32 bits of a pointer as a number (see slot_key). */
static __always_inline __u32 low_half(const void *p)
{
	__u32 lo;

	asm volatile("%[lo] = %[p]" : [lo] "=w"(lo) : [p] "w"((__u32)(__u64)p));
	return lo;
}

/*
 * The path of request rq made by task (see struct io_paths); never 0.
 * Plain loads through typed pointers (a NULL on the way reads as 0), not
 * probe reads: this runs for every request.
 */
static __always_inline __u64 path_key(struct task_struct *task, struct request *rq)
{
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(task);
	__u64 h = mix64((__u64)rq->cmd_flags ^ 0x9e3779b97f4a7c15ull), arg;

	/* A function's address: its low half tells the completions apart. */
	h = mix64(h ^ low_half(rq->bio->bi_end_io));
	if (regs) {
		h = mix64(h ^ regs->ip);
		h = mix64(h ^ regs->sp);
		h = mix64(h ^ regs->orig_ax);
		arg = regs->di;
		if (arg < FD_ARG_MAX)
			h = mix64(h ^ arg);
	}
	return h ? h : 1;
}

/*
 * Sends task's user stack copy for path key of its process (site_copy.bpf.h).
 * Returns the site key the sums name, 0 when nothing was sent.
 */
static __always_inline __u64 send_copy(struct task_struct *task, __u64 key, __u32 fp_ustack_id,
				       long fp_bytes)
{
	__u32 cpu = bpf_get_smp_processor_id();
	struct site_copy_buf *b;
	__u64 site;

	if (tt_unwind_mode == TT_UNWIND_FP || tt_copies_paused)
		return 0;
	b = bpf_map_lookup_elem(&tt_io_copy_bufs, &cpu);
	if (!b)
		return 0;
	site = mix64(key ^ task->tgid ^ 0x696f); /* "io": apart from the off-CPU tracer's keys */
	return site_copy_send(b, task, site ? site : 1, fp_ustack_id, fp_bytes, tt_stack_bytes,
			      bpf_ktime_get_ns());
}

/*
 * The stacks where the current task makes (or issues) request rq: the
 * kernel's, and the user's, which names the code that asked for the I/O;
 * walked once per path (struct io_paths), the user stack also copied for
 * DWARF unwinding (--unwind dwarf|auto), once. An io_uring worker's and a
 * kernel thread's requests have no user stack of theirs. The kernel stack
 * starts with the tracer's own frames (this program, bpf_trace_run1, the
 * tracepoint's glue): the same for every request, and every view drops
 * them by name (model__frame_is_tracer), so they are left for user space
 * to cut. buf_slot: the caller's slot of tt_io_scratch.
 */
static __always_inline void note_stacks(void *ctx, struct tt_io_inflight_val *v, struct request *rq,
					__u32 buf_slot)
{
	struct task_struct *task = bpf_get_current_task_btf();
	bool user = !v->worker && !(task->flags & PF_KTHREAD);
	struct tt_stack_buf *buf;
	struct io_paths *paths;
	/* Apart per program: a request io_issue walks is where it was issued, not made. */
	__u64 key = path_key(task, rq) + buf_slot ?: 1; /* 0: a free slot */
	__u32 i;
	long bytes;

	/* The copy buffer is the maker's program's: io_issue may interrupt io_start. */
	bool copy = user && (buf_slot == 0 || !tt_io_made);

	paths = bpf_task_storage_get(&tt_io_paths, task, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (paths && paths->gen != tt_io_paths_gen) {
		for (i = 0; i < IO_PATHS; i++)
			paths->key[i] = 0;
		paths->gen = tt_io_paths_gen;
	}
	if (paths) {
		for (i = 0; i < IO_PATHS; i++) {
			if (paths->key[i] != key)
				continue;
			if (paths->need_copy[i] && copy && !tt_copies_paused) {
				paths->site[i] = send_copy(task, key, paths->ustack_id[i], 0);
				paths->need_copy[i] = !paths->site[i];
			}
			v->kstack_id = paths->kstack_id[i];
			v->ustack_id = paths->ustack_id[i];
			v->site = paths->site[i];
			return;
		}
	}
	buf = bpf_map_lookup_elem(&tt_io_scratch, &buf_slot);
	if (!buf)
		return;
	bytes = bpf_get_stack(ctx, buf->ips, sizeof(buf->ips), 0);
	v->kstack_id = stack_id(buf, bytes, v->pid, true);
	if (user) {
		bytes = bpf_get_stack(ctx, buf->ips, sizeof(buf->ips), BPF_F_USER_STACK);
		v->ustack_id = stack_id(buf, bytes, v->pid, false);
		if (copy)
			v->site = send_copy(task, key, v->ustack_id, bytes);
	}
	/* A stack not sent (ring full, out of ids) is walked again next time. */
	if (!paths || !v->kstack_id || (user && !v->ustack_id))
		return;
	i = paths->next % IO_PATHS;
	paths->next = i + 1;
	paths->key[i] = key;
	paths->kstack_id[i] = v->kstack_id;
	paths->ustack_id[i] = v->ustack_id;
	paths->site[i] = v->site;
	paths->need_copy[i] = copy && tt_unwind_mode != TT_UNWIND_FP && !v->site;
}

/*
 * Probe i of request rq. Its address's low 32 bits, mixed (requests lie a
 * request's size apart): the verifier lets a program with CAP_PERFMON take
 * a pointer's low half as a number, not multiply the pointer itself.
 */
static __always_inline __u32 slot_key(__u64 rq, __u32 i)
{
	return (((low_half((const void *)rq) * 0x9e3779b1u) >> 18) + i) &
	       (TT_IO_INFLIGHT_SLOTS - 1);
}

static __always_inline struct tt_io_inflight_val *slot(__u64 rq, __u32 i)
{
	__u32 k = slot_key(rq, i);

	return bpf_map_lookup_elem(&tt_io_inflight, &k);
}

/* The slot that holds request rq, or NULL. */
static __always_inline struct tt_io_inflight_val *find_slot(__u64 rq)
{
	struct tt_io_inflight_val *s;

	for (__u32 i = 0; i < TT_IO_INFLIGHT_PROBES; i++) {
		s = slot(rq, i);
		if (s && s->rq == rq)
			return s;
	}
	return NULL;
}

/*
 * A slot for request rq: the one that holds it (a request made or issued
 * again), else a free one claimed; NULL when all its probes are taken.
 * *key: its index.
 */
static __always_inline struct tt_io_inflight_val *claim_slot(__u64 rq, __u32 *key)
{
	struct tt_io_inflight_val *s;

	for (__u32 i = 0; i < TT_IO_INFLIGHT_PROBES; i++) {
		*key = slot_key(rq, i);
		s = bpf_map_lookup_elem(&tt_io_inflight, key);
		if (s && s->rq == rq)
			return s;
	}
	for (__u32 i = 0; i < TT_IO_INFLIGHT_PROBES; i++) {
		*key = slot_key(rq, i);
		s = bpf_map_lookup_elem(&tt_io_inflight, key);
		if (s && !s->rq && __sync_val_compare_and_swap(&s->rq, 0, rq) == 0)
			return s;
	}
	return NULL;
}

/* The current thread made request rq, in slot key: its D-state samples name it (io_wait.bpf.h). */
static __always_inline void note_live(__u32 tid, __u64 rq, __u32 key)
{
	struct tt_io_live *l = bpf_map_lookup_elem(&tt_io_live, &tid), n = {.rq = rq, .slot = key};

	if (!l) {
		bpf_map_update_elem(&tt_io_live, &tid, &n, BPF_ANY);
		return;
	}
	l->rq = rq;
	l->slot = key;
}

/* Frees s, rq's slot, after its fields were read (the swap orders them first). */
static __always_inline void free_slot(struct tt_io_inflight_val *s, __u64 rq)
{
	__sync_val_compare_and_swap(&s->rq, rq, 0);
}

/*
 * Copies v, whose fields are all set, into rq's slot; a drop when there is
 * none. A request its maker made itself is noted as the maker's.
 */
static __always_inline void store(__u64 rq, struct tt_io_inflight_val *v)
{
	__u32 key = 0;
	struct tt_io_inflight_val *s = claim_slot(rq, &key);

	if (!s) {
		count_drop(TT_DROP_MAP_FULL);
		return;
	}
	v->rq = rq;
	*s = *v;
	if (!v->worker)
		note_live(v->tid, rq, key);
}

/*
 * The request's start, device, direction and size, now (at its making or
 * issue). The start is the block layer's, set when made if the queue counts
 * I/O or has a scheduler (blk_mq_need_time_stamp), else now.
 */
static __always_inline void note_request(struct tt_io_inflight_val *v, struct request *rq,
					 __u64 now)
{
	__u32 op = rq->cmd_flags & REQ_OP_MASK;

	v->start_ns = rq->start_time_ns;
	if (!v->start_ns || v->start_ns > now)
		v->start_ns = now;
	v->dev = request_dev(rq);
	v->op = op == REQ_OP_READ ? TT_IO_READ : op == REQ_OP_WRITE ? TT_IO_WRITE : TT_IO_OTHER;
	v->bytes = rq->__data_len;
}

/* At its issue to the driver: as note_request, and when. */
static __always_inline void note_issue(struct tt_io_inflight_val *v, struct request *rq)
{
	v->issue_ns = bpf_ktime_get_ns();
	note_request(v, rq, v->issue_ns);
}

/*
 * A bio became a request, in the context that submitted it (Linux 6.5+; the
 * loader leaves this program out where the kernel has no such tracepoint).
 * The entry waits for its issue; a request made again at the same address
 * (one made and ended unissued) starts over.
 */
SEC("tp_btf/block_io_start")
int BPF_PROG(io_start, struct request *rq)
{
	struct tt_io_inflight_val v = {}, *s;

	if (note_maker(&v)) {
		note_request(&v, rq, bpf_ktime_get_ns());
		note_stacks(ctx, &v, rq, 0);
		store((__u64)rq, &v);
		return 0;
	}
	/* Not ours (-p): a slot still holding this address must not name a maker at its issue. */
	s = find_slot((__u64)rq);
	if (s)
		free_slot(s, (__u64)rq);
	return 0;
}

SEC("tp_btf/block_rq_issue")
int BPF_PROG(io_issue, struct request *rq)
{
	struct tt_io_inflight_val v = {}, *in;

	/*
	 * Made while io_start watched: the maker is known (a requeued request
	 * is issued again). Without io_start an entry here is a requeued
	 * request's or one whose completion went unseen: the issuer's anew.
	 */
	if (tt_io_made) {
		in = find_slot((__u64)rq);
		if (in) {
			note_issue(in, rq);
			return 0;
		}
	}
	/* Not seen made (no block_io_start, made before the tracer, a flush): the issuer's. */
	if (!note_maker(&v))
		return 0;
	note_issue(&v, rq);
	note_stacks(ctx, &v, rq, 1);
	store((__u64)rq, &v);
	return 0;
}

SEC("tp_btf/block_rq_complete")
int BPF_PROG(io_complete, struct request *rq, blk_status_t error, unsigned int nr_bytes)
{
	struct tt_io_inflight_val *in;
	__u64 delta;
	struct tt_io_key k = {};
	struct tt_io_val *v;
	long err;

	in = find_slot((__u64)rq);
	if (!in)
		return 0; /* issued before the tracer started, or not ours (-p) */
	if (!in->issue_ns)
		goto out; /* made and ended unissued (a queue that died) */
	delta = bpf_ktime_get_ns() - in->start_ns;
	k.tid = in->tid;
	k.dev = in->dev;
	k.op = in->op;
	k.kstack_id = in->kstack_id;
	k.ustack_id = in->ustack_id;
	k.site = in->site;
	v = bpf_map_lookup_elem(&tt_io_stats, &k);
	if (!v) {
		struct tt_io_val init = {.pid = in->pid};

		__builtin_memcpy(init.comm, in->comm, sizeof(init.comm));
		err = bpf_map_update_elem(&tt_io_stats, &k, &init, BPF_NOEXIST);
		if (err && err != -EEXIST) {
			count_drop(TT_DROP_MAP_FULL);
			goto out;
		}
		v = bpf_map_lookup_elem(&tt_io_stats, &k);
		if (!v)
			goto out;
	}
	__sync_fetch_and_add(&v->count, 1);
	__sync_fetch_and_add(&v->bytes, nr_bytes);
	__sync_fetch_and_add(&v->total_ns, delta);
	__sync_fetch_and_add(&v->queue_ns, in->issue_ns - in->start_ns);
	if (error)
		__sync_fetch_and_add(&v->errors, 1);
	if (in->worker)
		__sync_fetch_and_add(&v->worker, 1);
	__sync_fetch_and_add(&v->hist[log2_bucket(delta, TT_IO_HIST_BUCKETS)], 1);
out:
	free_slot(in, (__u64)rq);
	return 0;
}
