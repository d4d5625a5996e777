// SPDX-License-Identifier: GPL-2.0-only
/*
 * The BPF source's ring buffer, read in bounded drains (source_bpf_impl.h).
 * libbpf's ring_buffer__consume reads until the ring is empty, which it never
 * is while the kernel writes faster than the loop reads: at --cpu-hz 10000
 * (20,000 samples a second on 2 CPUs) with the loop given a few percent of a
 * CPU (--sched normal under 32 spinners, or demoted from real time), one
 * consume did not return, the loop met neither its ticks nor its signals, and
 * SIGTERM took 53 s and more. A drain here forwards the records written
 * before it began and no more, so it returns to the loop within one ring's
 * worth of records (16 MiB: 13 ms of CPU measured with stack copies); what
 * is written meanwhile waits for the next drain, or is refused by the kernel
 * when the ring is full, and counted. A pass's records are still all
 * forwarded before its tick record, the stacks before the sums that name
 * them: they were written before the drain that follows began. libbpf 1.1
 * has neither ring_buffer__consume_n nor the producer's position, so the
 * drain reads the ring's positions from its own read-only mapping of their
 * two pages (the kernel's layout: the consumer's position, then the
 * producer's, a page each) and stops libbpf from the callback, which libbpf
 * allows: a negative return ends the consume with that record consumed.
 */
#include <errno.h>
#include <sys/mman.h>
#include <unistd.h>

#include <bpf/libbpf.h>
#include <linux/bpf.h>

#include "source_bpf_impl.h"

/* A callback's return that ends the drain: never one of libbpf's own errors. */
#define DRAIN_END (-ECANCELED)

static unsigned long load_pos(const unsigned long *pos)
{
	return __atomic_load_n(pos, __ATOMIC_ACQUIRE);
}

static const unsigned long *consumer_pos(const struct bpf_source *bs)
{
	return bs->ring_pos;
}

static const unsigned long *producer_pos(const struct bpf_source *bs)
{
	return (const unsigned long *)((const char *)bs->ring_pos + bs->ring_page);
}

/*
 * Whether a record of size bytes, given now, is the last one written before
 * the drain began. libbpf stores the consumer's position past a record once
 * its callback returns: during the callback it is where the record starts.
 */
static bool drain_done(const struct bpf_source *bs, size_t size)
{
	unsigned long start = load_pos(consumer_pos(bs));
	unsigned long len = (size + BPF_RINGBUF_HDR_SZ + 7) & ~7ul;

	return (long)(bs->drain_end - start - len) <= 0;
}

static int on_record(void *ctx, void *data, size_t size)
{
	struct bpf_source *bs = ctx;

	bpf_ring__on_record(bs, data, size);
	bs->drained++;
	return drain_done(bs, size) ? DRAIN_END : 0;
}

int bpf_ring_drain__open(struct bpf_source *bs, int map_fd)
{
	long page = sysconf(_SC_PAGESIZE);
	void *pos;

	if (page <= 0)
		return -EINVAL;
	pos = mmap(NULL, 2 * (size_t)page, PROT_READ, MAP_SHARED, map_fd, 0);
	if (pos == MAP_FAILED)
		return -errno;
	bs->ring_pos = pos;
	bs->ring_page = (size_t)page;
	bs->rb = ring_buffer__new(map_fd, on_record, bs, NULL);
	if (!bs->rb) {
		int err = -errno;

		bpf_ring_drain__close(bs);
		return err;
	}
	return 0;
}

int bpf_ring_drain__run(struct bpf_source *bs)
{
	int err;

	bs->drain_end = load_pos(producer_pos(bs));
	if (bs->drain_end == load_pos(consumer_pos(bs)))
		return 0;
	bs->drained = 0;
	err = ring_buffer__consume(bs->rb);
	if (err < 0 && err != DRAIN_END)
		return err;
	return bs->drained > INT32_MAX ? INT32_MAX : (int)bs->drained;
}

void bpf_ring_drain__close(struct bpf_source *bs)
{
	ring_buffer__free(bs->rb);
	bs->rb = NULL;
	if (bs->ring_pos)
		munmap((void *)bs->ring_pos, 2 * bs->ring_page);
	bs->ring_pos = NULL;
}
