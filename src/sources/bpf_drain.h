/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Turns a BPF hash map of ever-growing sums (syscall stats, off-CPU time)
 * into deltas: every drain reads all entries, hands each value with the value
 * of the previous drain to a callback, and deletes the entries of threads that
 * exited and those unchanged for a while (after their last values were handed
 * over), so maps do not fill up with the dead and the forgotten. Internal to
 * the BPF source.
 */
#ifndef THREADTOP_BPF_DRAIN_H
#define THREADTOP_BPF_DRAIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Called for every entry: val is now, prev the previous drain's value (zeros
 * for a new entry). Returns whether the value changed; sets *ret_pid and
 * *ret_tid to the thread the entry belongs to.
 */
typedef bool (*bpf_drain_fn)(void *ctx, const void *key, const void *val, const void *prev,
			     uint32_t *ret_pid, uint32_t *ret_tid);

struct bpf_drain;

/* Does not own map_fd. Returns NULL only on impossible sizes (errno EINVAL). */
struct bpf_drain *bpf_drain__new(int map_fd, size_t key_size, size_t val_size);
void bpf_drain__free(struct bpf_drain *d);
/*
 * Reads the whole map. Returns the entries deleted (of exited threads, or
 * unchanged for a while) or negative errno.
 */
int bpf_drain__run(struct bpf_drain *d, bpf_drain_fn fn, void *ctx);

#endif /* THREADTOP_BPF_DRAIN_H */
