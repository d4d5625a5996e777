/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Small helpers every module uses: allocation wrappers that abort on an
 * impossible out-of-memory (as htop's xMalloc), clocks, bounded file reads.
 */
#ifndef THREADTOP_UTIL_H
#define THREADTOP_UTIL_H

#include <dirent.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define NSEC_PER_SEC 1000000000ull
#define NSEC_PER_USEC 1000ull

/* Allocation that never returns NULL: a failure here prints and aborts. */
void *xmalloc(size_t size) __attribute__((returns_nonnull, malloc));
void *xcalloc(size_t nmemb, size_t size) __attribute__((returns_nonnull, malloc));
void *xrealloc(void *ptr, size_t size) __attribute__((returns_nonnull));
/* Grows *ptr (an array of elem-sized items with capacity *cap) to hold need. */
void xgrow(void **ptr, size_t *cap, size_t need, size_t elem);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);

/* CLOCK_MONOTONIC in ns: the clock of every event (same as bpf_ktime_get_ns). */
uint64_t monotonic_ns(void);
/* CLOCK_THREAD_CPUTIME_ID in ns: the calling thread's CPU time, what a CPU
 * budget charges (wall time would charge the time the thread waited for a
 * CPU on a loaded box). */
uint64_t thread_self_cpu_ns(void);
/* CLOCK_REALTIME in ns. */
uint64_t realtime_ns(void);
/* Formats a CLOCK_REALTIME ns value as RFC 3339 UTC with milliseconds into
 * buf (at least 32 bytes). Returns buf. */
char *format_rfc3339(uint64_t realtime, char *buf, size_t len);

/*
 * Reads at most cap - 1 bytes of the file at dirfd/path into buf and
 * NUL-terminates it. Returns the byte count or a negative errno (-ENOENT,
 * -ESRCH when the task vanished, -EACCES, ...). Bounded: never more than cap.
 */
ssize_t read_file_at(int dirfd, const char *path, char *buf, size_t cap);
/* The same from an open fd (left open), from where it stands. */
ssize_t read_fd(int fd, char *buf, size_t cap);

/*
 * A stream over the directory dirfd is open on, through a close-on-exec
 * duplicate: dirfd stays the caller's. The duplicate shares dirfd's offset,
 * so rewinddir() before reading it again. NULL with errno set.
 */
DIR *opendir_dup(int dirfd);

/*
 * Hex digits at *p, before end (no "0x"; at most 16), into *ret; *p moves
 * past them. False when there are none, or more than 16 (never wraps).
 */
bool scan_hex_u64(const char **p, const char *end, uint64_t *ret);

/* The value of hex digit c (either case), -1 when c is none. */
static inline int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* strcmp with NULL as the empty string: the order of names in every sorted view. */
static inline int text_cmp(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "");
}

/*
 * How many of the nr entries at base (each size bytes, sorted by the
 * uint64_t at key_off) have a key <= key: entry result - 1, when the result
 * is not 0, is the last one at or below key. Inline: symbolizing calls it
 * once per frame.
 */
static inline size_t upper_bound_u64(const void *base, size_t nr, size_t size, size_t key_off,
				     uint64_t key)
{
	size_t lo = 0, hi = nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t k;

		memcpy(&k, (const char *)base + mid * size + key_off, sizeof(k));
		if (k <= key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * pthread_create with every signal blocked in the new thread: the loop
 * takes SIGCHLD, SIGINT, SIGTERM... through a signalfd, which sees only
 * signals no thread accepts; a helper thread that accepted them would
 * swallow a child's exit (threadtop run would never end). Returns 0 or a
 * positive error number, as pthread_create.
 */
int thread_start_quiet(pthread_t *ret, void *(*fn)(void *), void *arg);

#endif /* THREADTOP_UTIL_H */
