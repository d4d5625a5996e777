// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * --io: block I/O requests per thread, device and direction: count, bytes,
 * time from the request's making to its completion (queue and device time),
 * its log2 histogram and the queue's part. block_rq_issue notes when the
 * request was made and issued, its device and direction and the thread
 * current then in tt_io_inflight, keyed by the request's address; block_rq_complete takes
 * the entry out and adds the request to tt_io_stats (whose values only grow;
 * user space sends the differences each interval). Completions run in
 * interrupt context on any CPU, so the sums are added atomically.
 */
#include "common.bpf.h"
#include "io.shared.h"

#define REQ_OP_MASK 0xff /* include/linux/blk_types.h: the op in cmd_flags' low bits */
#define REQ_OP_READ 0
#define REQ_OP_WRITE 1

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, TT_IO_INFLIGHT_MAX);
	__type(key, __u64);
	__type(value, struct tt_io_inflight_val);
} tt_io_inflight SEC(".maps");

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

SEC("tp_btf/block_rq_issue")
int BPF_PROG(io_issue, struct request *rq)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct tt_io_inflight_val v = {};
	__u64 key = (__u64)rq;
	__u32 op;

	if (!want_tgid(task->tgid))
		return 0;
	op = rq->cmd_flags & REQ_OP_MASK;
	v.issue_ns = bpf_ktime_get_ns();
	/* Set when made if the queue counts I/O or has a scheduler (blk_mq_need_time_stamp). */
	v.start_ns = rq->start_time_ns;
	if (!v.start_ns || v.start_ns > v.issue_ns)
		v.start_ns = v.issue_ns;
	v.pid = task->tgid;
	v.tid = task->pid;
	v.dev = request_dev(rq);
	v.op = op == REQ_OP_READ ? TT_IO_READ : op == REQ_OP_WRITE ? TT_IO_WRITE : TT_IO_OTHER;
	bpf_get_current_comm(v.comm, sizeof(v.comm));
	/* A requeued request is issued again: its entry starts over. */
	if (bpf_map_update_elem(&tt_io_inflight, &key, &v, BPF_ANY))
		count_drop(TT_DROP_MAP_FULL);
	return 0;
}

SEC("tp_btf/block_rq_complete")
int BPF_PROG(io_complete, struct request *rq, blk_status_t error, unsigned int nr_bytes)
{
	__u64 key = (__u64)rq, delta;
	struct tt_io_inflight_val *in;
	struct tt_io_key k = {};
	struct tt_io_val *v;
	long err;

	in = bpf_map_lookup_elem(&tt_io_inflight, &key);
	if (!in)
		return 0; /* issued before the tracer started, or not ours (-p) */
	delta = bpf_ktime_get_ns() - in->start_ns;
	k.tid = in->tid;
	k.dev = in->dev;
	k.op = in->op;
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
	__sync_fetch_and_add(&v->hist[log2_bucket(delta, TT_IO_HIST_BUCKETS)], 1);
out:
	bpf_map_delete_elem(&tt_io_inflight, &key);
	return 0;
}
