/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Parsers for the /proc files the thread sampler reads. They take text
 * (already read, bounded) and never touch the file system, so fixtures are
 * plain strings or directories; reading is in source_proc.c.
 */
#ifndef THREADTOP_PROCFS_H
#define THREADTOP_PROCFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "threadtop/events.h"

#define PROC_PF_KTHREAD 0x00200000u /* task->flags bit of kernel threads */

struct proc_task_stat {
	char comm[TT_COMM_LEN]; /* NUL-terminated, as the kernel gave it */
	char state;		/* the raw letter: R S D T t Z X I P W K */
	int ppid;
	unsigned flags;
	uint64_t utime_ticks;
	uint64_t stime_ticks;
	uint64_t start_ticks; /* since boot, in clock ticks */
	int processor;
	int nice;	      /* field 19, -20 to 19 */
	unsigned num_threads; /* field 20, of the whole process */
	uint64_t rss_pages;   /* field 24, resident set of the whole process */
};

/*
 * Parses /proc/PID/task/TID/stat. The comm may hold spaces and parentheses,
 * so it is delimited by the first "(" and the last ")". Returns 0 or -EINVAL.
 */
int procfs_parse_stat(const char *buf, struct proc_task_stat *ret);

struct proc_syscall {
	bool running; /* the file said "running": on a CPU, no saved registers */
	int nr;	      /* TT_SYSCALL_NONE when blocked outside a syscall */
	uint64_t args[6];
	uint64_t sp;
	uint64_t pc;
};

/*
 * Parses /proc/PID/task/TID/syscall: "running", "-1 SP PC", or
 * "NR A1 A2 A3 A4 A5 A6 SP PC" with hex values. Returns 0 or -EINVAL.
 */
int procfs_parse_syscall(const char *buf, struct proc_syscall *ret);

/*
 * Turns a /proc/PID/cmdline blob (NUL-separated arguments, len bytes) into
 * one line in out (cap bytes, NUL-terminated), arguments joined by spaces.
 * Returns the length written; an empty blob (kernel thread, zombie) gives 0.
 */
size_t procfs_join_cmdline(const char *buf, size_t len, char *out, size_t cap);

/* The innermost pid of /proc/PID/status's "NSpid:" line (the pid inside the
 * process's own namespace); fallback when there is no such line. */
uint32_t procfs_parse_nspid(const char *status, uint32_t fallback);

/* The effective uid of /proc/PID/status's "Uid:" line (real, effective, saved,
 * fs); fallback when the line is missing or malformed. */
uint32_t procfs_parse_euid(const char *status, uint32_t fallback);

/*
 * The resident pages of /proc/PID/statm ("size resident shared text lib
 * data dt", in pages) into *pages. Returns 0 or -EINVAL.
 */
int procfs_parse_statm_rss(const char *buf, uint64_t *pages);

/* Maps a /proc state letter to enum tt_state (unknown letters to UNKNOWN). */
enum tt_state procfs_state(char letter);

/* The letter of a tt_state ('?' when out of range). */
char tt_state_letter(unsigned state);

#endif /* THREADTOP_PROCFS_H */
