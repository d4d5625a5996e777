// SPDX-License-Identifier: GPL-2.0-only
/*
 * The block I/O tracer's interval sums (--io, bpf/io.bpf.c): the kernel's
 * ever-growing sums per thread, device, direction and the stacks that made
 * the requests become TT_EV_IO_STATS
 * records of the interval's differences (bpf_drain.c), each naming its
 * device as /sys/dev/block/MAJ:MIN/uevent does (DEVNAME), so that a replay
 * elsewhere names it the same.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpf_drain.h"
#include "source_bpf_impl.h"
#include "util.h"

/* The kernel's side (bpf/): after threadtop/events.h, which it uses. */
#include "io.shared.h"

#include "io.skel.h"

#define UEVENT_MAX 4096 /* bytes of a uevent file read; DEVNAME comes early */

int io_devname_parse(const char *uevent, char *out, size_t cap)
{
	const char *p = uevent, *end;
	size_t len;

	while (p && *p) {
		if (!strncmp(p, "DEVNAME=", 8)) {
			p += 8;
			end = strchrnul(p, '\n');
			len = (size_t)(end - p);
			if (!len || len >= cap)
				return -ENAMETOOLONG;
			memcpy(out, p, len);
			memset(out + len, 0, cap - len);
			return (int)len;
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return -ENOENT;
}

/* The device's name, looked up once per device (a full cache looks up again). */
static const char *devname(struct bpf_source *bs, uint32_t major, uint32_t minor)
{
	uint32_t dev = major << TT_IO_MINOR_BITS | minor;
	struct io_devname *slot;
	char path[64], buf[UEVENT_MAX];

	for (uint32_t i = 0; i < bs->nr_io_names; i++)
		if (bs->io_names[i].dev == dev)
			return bs->io_names[i].name;
	slot = &bs->io_names[bs->nr_io_names < IO_NAMES_MAX ? bs->nr_io_names++
							    : dev % IO_NAMES_MAX];
	slot->dev = dev;
	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/uevent", major, minor);
	if (read_file_at(AT_FDCWD, path, buf, sizeof(buf)) < 0 ||
	    io_devname_parse(buf, slot->name, sizeof(slot->name)) < 0)
		memset(slot->name, 0, sizeof(slot->name));
	return slot->name;
}

static bool io_delta(void *ctx, const void *k, const void *v, const void *p, uint32_t *ret_pid,
		     uint32_t *ret_tid)
{
	struct bpf_source *bs = ctx;
	const struct tt_io_key *key = k;
	const struct tt_io_val *val = v, *prev = p;
	struct tt_io_stats rec = {0};

	*ret_pid = val->pid;
	*ret_tid = key->tid;
	if (val->count == prev->count)
		return false;
	if (bs->sums_baseline)
		return true;
	rec.hdr = (struct tt_event_header){TT_EV_IO_STATS, TT_IO_STATS_VERSION, sizeof(rec),
					   monotonic_ns()};
	rec.pid = val->pid;
	rec.tid = key->tid;
	rec.major = key->dev >> TT_IO_MINOR_BITS;
	rec.minor = key->dev & TT_IO_MINOR_MASK;
	rec.op = key->op < TT_IO_OP_MAX ? key->op : TT_IO_OTHER;
	rec.count = val->count - prev->count;
	rec.bytes = val->bytes - prev->bytes;
	rec.total_ns = val->total_ns - prev->total_ns;
	rec.queue_ns = val->queue_ns - prev->queue_ns;
	rec.errors = val->errors - prev->errors;
	rec.io_worker = (__u32)(val->worker - prev->worker);
	rec.kstack_id = key->kstack_id;
	/* A path whose user stack copy was unwound takes that stack (bpf_unwind.c). */
	rec.ustack_id = bpf_unwind__site_stack(bs, key->site, key->ustack_id);
	for (int i = 0; i < TT_IO_HIST_BUCKETS; i++)
		rec.hist[i] = val->hist[i] - prev->hist[i];
	memcpy(rec.comm, val->comm, TT_COMM_LEN);
	rec.comm[TT_COMM_LEN - 1] = '\0';
	memcpy(rec.disk, devname(bs, rec.major, rec.minor), TT_IO_DISK_LEN);
	bpf_sums__emit(bs, &rec.hdr);
	return true;
}

void bpf_io__on_wait(struct bpf_source *bs, const struct tt_io_wait *w)
{
	struct tt_io_wait rec = *w;

	if (rec.major >= 1u << 12 || rec.minor > TT_IO_MINOR_MASK || rec.op >= TT_IO_OP_MAX) {
		bs->user_drops[TT_DROP_READ_ERROR]++;
		return;
	}
	memcpy(rec.disk, devname(bs, rec.major, rec.minor), TT_IO_DISK_LEN);
	sink_emit(&bs->base.sink, &rec.hdr);
}

void bpf_io__open(struct bpf_source *bs)
{
	if (bs->io)
		bs->io_drain = bpf_drain__new(bpf_map__fd(bs->io->maps.tt_io_stats),
					      sizeof(struct tt_io_key), sizeof(struct tt_io_val));
}

void bpf_io__drain(struct bpf_source *bs)
{
	if (bs->io_drain)
		bpf_drain__run(bs->io_drain, io_delta, bs);
}

void bpf_io__free(struct bpf_source *bs)
{
	bpf_drain__free(bs->io_drain);
	bs->io_drain = NULL;
	io_bpf__destroy(bs->io);
	bs->io = NULL;
}
