// SPDX-License-Identifier: GPL-2.0-only
/*
 * Workload of known asynchronous block I/O (issue #30 item 3): random 4 KiB
 * O_DIRECT reads of the block device argv[1], READS (argv[2]) of them by
 * each of three threads, DEPTH (argv[3], default 8) in flight at a time:
 *   "uring"    through io_uring, submitted inline (io_uring_enter issues them);
 *   "uring-wq" through io_uring with IOSQE_ASYNC: the kernel's io-wq worker
 *              threads of this process (iou-wrk-TID, TID this thread's)
 *              issue them on its behalf;
 *   "aio"      through Linux AIO (io_submit, what libaio calls).
 * Raw system calls, so that it builds without liburing or libaio. Prints
 * "ready URING_TID URING_WQ_TID AIO_TID" and waits for SIGUSR1; then the
 * threads read at once, and it prints "done URING URING_WQ AIO" (the reads
 * each completed, READS unless one failed) and sleeps until killed. Each
 * read is one request of 4096 bytes: block-aligned, and no two are merged
 * (random offsets on a device of at least 8 MiB, rarely adjacent; a merge
 * would show as fewer requests of more bytes).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/aio_abi.h>
#include <linux/fs.h>
#include <linux/io_uring.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define BLOCK 4096
#define DEPTH_MAX 64

enum kind { URING, URING_WQ, AIO, KINDS };

static const char *const names[KINDS] = {"uring", "uring-wq", "aio"};

struct reader {
	enum kind kind;
	pthread_t thread;
	pid_t tid;
	long done;
	uint64_t x; /* xorshift64 state: the same offsets in every run */
};

static int fd;
static long reads, depth = 8;
static uint64_t blocks;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int started, go;

static off_t next_offset(struct reader *r)
{
	r->x ^= r->x << 13;
	r->x ^= r->x >> 7;
	r->x ^= r->x << 17;
	return (off_t)((r->x % blocks) * BLOCK);
}

static void *buffers(void)
{
	void *buf;

	if (posix_memalign(&buf, BLOCK, (size_t)depth * BLOCK))
		return NULL;
	return buf;
}

struct ring {
	int fd;
	unsigned *sq_tail, *sq_mask, *sq_array, *cq_head, *cq_tail, *cq_mask;
	struct io_uring_sqe *sqes;
	struct io_uring_cqe *cqes;
};

static int ring_setup(struct ring *ring, unsigned entries)
{
	struct io_uring_params p = {0};
	char *sq, *cq;

	ring->fd = (int)syscall(__NR_io_uring_setup, entries, &p);
	if (ring->fd < 0)
		return -errno;
	sq = mmap(NULL, p.sq_off.array + p.sq_entries * sizeof(unsigned), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_POPULATE, ring->fd, IORING_OFF_SQ_RING);
	cq = mmap(NULL, p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe),
		  PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, ring->fd, IORING_OFF_CQ_RING);
	ring->sqes = mmap(NULL, p.sq_entries * sizeof(struct io_uring_sqe), PROT_READ | PROT_WRITE,
			  MAP_SHARED | MAP_POPULATE, ring->fd, IORING_OFF_SQES);
	if (sq == MAP_FAILED || cq == MAP_FAILED || ring->sqes == MAP_FAILED)
		return -errno;
	ring->sq_tail = (unsigned *)(sq + p.sq_off.tail);
	ring->sq_mask = (unsigned *)(sq + p.sq_off.ring_mask);
	ring->sq_array = (unsigned *)(sq + p.sq_off.array);
	ring->cq_head = (unsigned *)(cq + p.cq_off.head);
	ring->cq_tail = (unsigned *)(cq + p.cq_off.tail);
	ring->cq_mask = (unsigned *)(cq + p.cq_off.ring_mask);
	ring->cqes = (struct io_uring_cqe *)(cq + p.cq_off.cqes);
	return 0;
}

/* Queues a read into buffer slot SLOT; io_uring_enter submits it. */
static void ring_prep(struct ring *ring, struct reader *r, char *buf, long slot)
{
	unsigned tail = *ring->sq_tail, idx = tail & *ring->sq_mask;
	struct io_uring_sqe *sqe = &ring->sqes[idx];

	memset(sqe, 0, sizeof(*sqe));
	sqe->opcode = IORING_OP_READ;
	sqe->fd = fd;
	sqe->addr = (uintptr_t)(buf + slot * BLOCK);
	sqe->len = BLOCK;
	sqe->off = (uint64_t)next_offset(r);
	sqe->user_data = (uint64_t)slot;
	if (r->kind == URING_WQ)
		sqe->flags = IOSQE_ASYNC;
	ring->sq_array[idx] = idx;
	atomic_store_explicit((_Atomic unsigned *)ring->sq_tail, tail + 1, memory_order_release);
}

static int read_uring(struct reader *r, char *buf)
{
	long submitted = 0, to_submit = 0;
	struct ring ring;
	int err = ring_setup(&ring, DEPTH_MAX);

	if (err)
		return err;
	for (; submitted < depth && submitted < reads; submitted++, to_submit++)
		ring_prep(&ring, r, buf, submitted);
	while (r->done < reads) {
		unsigned head, tail;

		if (syscall(__NR_io_uring_enter, ring.fd, to_submit, 1, IORING_ENTER_GETEVENTS,
			    NULL, 0) < 0 &&
		    errno != EINTR)
			return -errno;
		to_submit = 0;
		head = *ring.cq_head;
		tail = atomic_load_explicit((_Atomic unsigned *)ring.cq_tail, memory_order_acquire);
		for (; head != tail; head++) {
			struct io_uring_cqe *cqe = &ring.cqes[head & *ring.cq_mask];

			if (cqe->res != BLOCK)
				return cqe->res < 0 ? cqe->res : -EIO;
			r->done++;
			if (submitted < reads) {
				ring_prep(&ring, r, buf, (long)cqe->user_data);
				submitted++;
				to_submit++;
			}
		}
		atomic_store_explicit((_Atomic unsigned *)ring.cq_head, head, memory_order_release);
	}
	close(ring.fd);
	return 0;
}

static int read_aio(struct reader *r, char *buf)
{
	struct iocb cbs[DEPTH_MAX], *ptrs[DEPTH_MAX];
	struct io_event events[DEPTH_MAX];
	aio_context_t ctx = 0;
	long submitted = 0, n;

	if (syscall(__NR_io_setup, depth, &ctx) < 0)
		return -errno;
	for (long i = 0; i < depth; i++) {
		memset(&cbs[i], 0, sizeof(cbs[i]));
		cbs[i].aio_fildes = (uint32_t)fd;
		cbs[i].aio_lio_opcode = IOCB_CMD_PREAD;
		cbs[i].aio_buf = (uintptr_t)(buf + i * BLOCK);
		cbs[i].aio_nbytes = BLOCK;
		cbs[i].aio_data = (uint64_t)i;
	}
	for (n = 0; n < depth && submitted < reads; n++, submitted++) {
		cbs[n].aio_offset = next_offset(r);
		ptrs[n] = &cbs[n];
	}
	while (r->done < reads) {
		long got;

		if (n && syscall(__NR_io_submit, ctx, n, ptrs) != n)
			return -EIO;
		got = syscall(__NR_io_getevents, ctx, 1, depth, events, NULL);
		if (got < 0 && errno != EINTR)
			return -errno;
		n = 0;
		for (long i = 0; i < got; i++) {
			struct iocb *cb = &cbs[events[i].data];

			if (events[i].res != BLOCK)
				return -EIO;
			r->done++;
			if (submitted < reads) {
				cb->aio_offset = next_offset(r);
				ptrs[n++] = cb;
				submitted++;
			}
		}
	}
	syscall(__NR_io_destroy, ctx);
	return 0;
}

static void *run(void *arg)
{
	struct reader *r = arg;
	char *buf = buffers();
	int err;

	pthread_setname_np(pthread_self(), names[r->kind]);
	pthread_mutex_lock(&lock);
	r->tid = (pid_t)syscall(SYS_gettid);
	started++;
	pthread_cond_broadcast(&cond);
	while (!go)
		pthread_cond_wait(&cond, &lock);
	pthread_mutex_unlock(&lock);
	if (!buf)
		return NULL;
	err = r->kind == AIO ? read_aio(r, buf) : read_uring(r, buf);
	if (err)
		fprintf(stderr, "%s: %s\n", names[r->kind], strerror(-err));
	free(buf);
	return NULL;
}

int main(int argc, char **argv)
{
	struct reader readers[KINDS] = {0};
	uint64_t size = 0;
	sigset_t set;
	int sig;

	if (argc < 3) {
		fprintf(stderr, "usage: async_reads DEVICE READS [DEPTH]\n");
		return 2;
	}
	reads = atol(argv[2]);
	if (argc > 3)
		depth = atol(argv[3]);
	if (reads < 1 || depth < 1 || depth > DEPTH_MAX) {
		fprintf(stderr, "async_reads: READS >= 1, 1 <= DEPTH <= %d\n", DEPTH_MAX);
		return 2;
	}
	fd = open(argv[1], O_RDONLY | O_DIRECT | O_CLOEXEC);
	if (fd < 0 || ioctl(fd, BLKGETSIZE64, &size) < 0 || size < 2 * BLOCK) {
		perror(argv[1]);
		return 1;
	}
	blocks = size / BLOCK;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, NULL);
	for (int k = 0; k < KINDS; k++) {
		readers[k].kind = (enum kind)k;
		readers[k].x = 88172645463325252ull + (uint64_t)k * 0x9e3779b97f4a7c15ull;
		if (pthread_create(&readers[k].thread, NULL, run, &readers[k]))
			return 1;
	}
	pthread_mutex_lock(&lock);
	while (started < KINDS)
		pthread_cond_wait(&cond, &lock);
	pthread_mutex_unlock(&lock);
	printf("ready %d %d %d\n", readers[URING].tid, readers[URING_WQ].tid, readers[AIO].tid);
	fflush(stdout);
	if (sigwait(&set, &sig))
		return 1;
	pthread_mutex_lock(&lock);
	go = 1;
	pthread_cond_broadcast(&cond);
	pthread_mutex_unlock(&lock);
	for (int k = 0; k < KINDS; k++)
		pthread_join(readers[k].thread, NULL);
	printf("done %ld %ld %ld\n", readers[URING].done, readers[URING_WQ].done,
	       readers[AIO].done);
	fflush(stdout);
	for (;;)
		pause();
}
