#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Whether this kernel's task iterator finds one thread by its tid (a thread
# that is not its process's leader too: Linux 6.1's filter once looked the
# tid up as a thread-group id) or one process's threads by pid
# (bpf_iter_link_info.task, Linux 6.1), and what one thread costs that way:
# a link, an iterator file and a read, the mean of 200. Set beside a walk
# of every task (iter-walk.sh): a sampler that visits only the threads woken
# since the last tick pays this per woken thread. Needs clang, gcc and
# libbpf-dev; run as root on the host or in the kernel harness's guest:
#
#   tests/kernels/run-kernel --cmd "bash $PWD/tests/kernels/iter-tid.sh" PACKAGE
set -eu
: "${TT_BUILD:=$(pwd)}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/tid.bpf.c" <<'EOC'
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
char LICENSE[] SEC("license") = "GPL";
__u32 seen = 0, last_tid = 0;
SEC("iter.s/task")
int walk_tid(struct bpf_iter__task *ctx)
{
	struct task_struct *t = ctx->task;

	if (t) {
		seen++;
		last_tid = t->pid;
	}
	return 0;
}
EOC
cat >"$tmp/tid.c" <<'EOC'
#define _GNU_SOURCE
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

static volatile pid_t child_tid;
static void *sleeper(void *a) { child_tid = syscall(SYS_gettid); pause(); return a; }

static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec / 1e9; }

static int walk(struct bpf_program *prog, __u32 tid, __u32 pid)
{
	DECLARE_LIBBPF_OPTS(bpf_iter_attach_opts, o);
	union bpf_iter_link_info li;
	struct bpf_link *l;
	char buf[16];
	int fd;

	memset(&li, 0, sizeof(li));
	li.task.tid = tid;
	li.task.pid = pid;
	o.link_info = &li;
	o.link_info_len = sizeof(li);
	l = bpf_program__attach_iter(prog, &o);
	if (!l) return -1;
	fd = bpf_iter_create(bpf_link__fd(l));
	if (fd < 0) { bpf_link__destroy(l); return -2; }
	while (read(fd, buf, sizeof(buf)) > 0);
	close(fd);
	bpf_link__destroy(l);
	return 0;
}

int main(int argc, char **argv)
{
	struct bpf_object *obj = bpf_object__open_file(argc > 1 ? argv[1] : "tid.bpf.o", NULL);
	struct bpf_program *prog;
	struct bpf_map *bss;
	pthread_t t;
	__u32 v[2], zero = 0;
	int n = 200;

	if (!obj || bpf_object__load(obj)) { fprintf(stderr, "load failed\n"); return 1; }
	prog = bpf_object__next_program(obj, NULL);
	bss = bpf_object__find_map_by_name(obj, ".bss");
	pthread_create(&t, NULL, sleeper, NULL);
	while (!child_tid) usleep(1000);
	for (int k = 0; k < 3; k++) {
		__u32 tid = k == 0 ? (__u32)getpid() : k == 1 ? (__u32)child_tid : 0;
		__u32 pid = k == 2 ? (__u32)getpid() : 0;
		memset(v, 0, sizeof(v));
		bpf_map__update_elem(bss, &zero, sizeof(zero), v, sizeof(v), 0);
		int e = walk(prog, tid, pid);
		bpf_map__lookup_elem(bss, &zero, sizeof(zero), v, sizeof(v), 0);
		printf("%s %u: rc %d, tasks seen %u, last tid %u\n", k == 0 ? "tid (leader)" : k == 1 ? "tid (non-leader thread)" : "pid (process)", k == 2 ? pid : tid, e, v[0], v[1]);
	}
	double a = now();
	for (int i = 0; i < n; i++) walk(prog, child_tid, 0);
	double b = now();
	printf("a link, an iterator file and a read for one tid: %.1f us (%d)\n", (b - a) / n * 1e6, n);
	return 0;
}
EOC
clang -O2 -g -target bpf -mcpu=v3 -I"$TT_BUILD/bpf-gen" -c "$tmp/tid.bpf.c" -o "$tmp/tid.bpf.o"
gcc -O2 -o "$tmp/tid" "$tmp/tid.c" -lbpf -lpthread
echo "kernel $(uname -r):"
"$tmp/tid" "$tmp/tid.bpf.o"
