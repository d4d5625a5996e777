#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# What the kernel's task iterator costs by itself, without threadtop: one
# walk (open, read to the end, close of a pinned iter/task link, as the
# per-task thread sampler does at every tick) with a program that only
# counts the tasks (sleepable "empty", as threadtop's sample_tasks, and
# non-sleepable "nosleep") or reads each task's pid and tgid ("pid", what
# the sampler reads of a thread asleep and unwoken), beside 0, 1,000 and
# 10,000 idle threads (tests/workloads/idle_threads). Prints the median of
# TT_WALK_ROUNDS walks (default 30) in ms. No program can make a walk
# cheaper than "empty": set it beside tick-cost.sh's figures on the same
# kernel. Needs clang and bpftool; run as root on the host or in the
# kernel harness's guest:
#
#   tests/kernels/run-kernel --cmd "bash $PWD/tests/kernels/iter-walk.sh" PACKAGE
set -eu
: "${TT_BUILD:=$(pwd)}"
rounds=${TT_WALK_ROUNDS:-30}
tmp=$(mktemp -d)
idle=
trap 'rm -f /sys/fs/bpf/tt_iter_walk_*; kill "$idle" 2>/dev/null || true; rm -rf "$tmp"' EXIT
mountpoint -q /sys/fs/bpf || mount -t bpf bpf /sys/fs/bpf

for v in empty nosleep pid; do
	case $v in
	empty) sec=iter.s/task body='seen++' ;;
	nosleep) sec=iter/task body='seen++' ;;
	pid) sec=iter.s/task body='seen += t->pid + t->tgid' ;;
	esac
	cat >"$tmp/$v.bpf.c" <<-EOC
		#include "vmlinux.h"
		#include <bpf/bpf_helpers.h>
		char LICENSE[] SEC("license") = "GPL";
		__u64 seen = 0;
		SEC("$sec")
		int walk_$v(struct bpf_iter__task *ctx)
		{
			struct task_struct *t = ctx->task;

			if (t)
				$body;
			return 0;
		}
	EOC
	clang -O2 -g -target bpf -mcpu=v3 -I"$TT_BUILD/bpf-gen" -c "$tmp/$v.bpf.c" -o "$tmp/$v.bpf.o"
	rm -f /sys/fs/bpf/tt_iter_walk_$v
	bpftool iter pin "$tmp/$v.bpf.o" /sys/fs/bpf/tt_iter_walk_$v
done

for n in ${TT_WALK_SIZES:-0 1000 10000}; do
	if [ "$n" -gt 0 ]; then
		"$TT_BUILD/tests/workloads/idle_threads" "$n" 3600 &
		idle=$!
		while t=(/proc/"$idle"/task/*) && [ "${#t[@]}" -le "$n" ]; do sleep 0.5; done
	fi
	tasks=$(cut -d' ' -f4 /proc/loadavg)
	for v in empty nosleep pid; do
		: >"$tmp/times"
		for ((i = 0; i < rounds; i++)); do
			a=$EPOCHREALTIME
			read -r _ </sys/fs/bpf/tt_iter_walk_$v || true
			b=$EPOCHREALTIME
			echo "$a $b" >>"$tmp/times"
		done
		awk '{ print ($2 - $1) * 1000 }' "$tmp/times" | sort -g |
			awk -v k="$(uname -r)" -v n="$n" -v t="${tasks#*/}" -v v="$v" -v r="$rounds" \
				'{ a[NR] = $1 } END { printf "kernel %s: %d idle threads (%d tasks): %s walk median %.3f ms (%.3f-%.3f, %d walks)\n", k, n, t, v, a[int(NR / 2) + 1], a[1], a[NR], r }'
	done
	[ -z "$idle" ] || { kill "$idle"; wait "$idle" 2>/dev/null || true; idle=; }
done
