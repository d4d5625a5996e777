#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Both thread samplers load on this kernel in every unwinding mode, with the
# tracers on, and leave the kernel's program check a margin: at most half of
# its million instructions. Past the limit a sampler does not load and
# threadtop silently takes a slower path (sample_threads did, with DWARF
# unwinding on, on one build of 6.18: every run fell back to the per-task
# iterator). Reads the "passed the kernel's program check" line of --log;
# a kernel before 5.16 does not count and the margin is not checked there.
. "$(dirname "$0")/bpf_common.bash"

LIMIT=1000000
MARGIN=$((LIMIT / 2))

# check NAME PROGRAM ENV... -- OPTIONS...: threadtop with ENV and OPTIONS
# loads PROGRAM as its thread sampler, every object, within the margin.
check() {
	local name=$1 prog=$2 envs=() n
	shift 2
	while [ "$1" != -- ]; do
		envs+=("$1")
		shift
	done
	shift
	env "${envs[@]}" "$TT_BIN" -b -n 1 -d 0.5 --format json --source bpf --log "$TMPD/$name.log" \
		"$@" >"$TMPD/$name.out" 2>"$TMPD/$name.err" ||
		fail "$name: threadtop failed: $(cat "$TMPD/$name.err")"
	grep -q 'cannot load\|cannot create\|falling back\|did not load\|not traced' "$TMPD/$name.err" "$TMPD/$name.log" &&
		fail "$name: a program did not load: $(cat "$TMPD/$name.err" "$TMPD/$name.log")"
	grep -q "thread sampler: .*$(
		[ "$prog" = sample_tasks ] && echo 'the per-task iterator ran' || echo 'passes walked'
	)" "$TMPD/$name.log" || fail "$name: $prog did not sample: $(cat "$TMPD/$name.log")"
	n=$(sed -n "s/.*BPF source: $prog passed the kernel's program check in \([0-9]*\) instructions.*/\1/p" \
		"$TMPD/$name.log" | tail -1)
	if [ -z "$n" ]; then
		echo "$name: $prog loaded; this kernel does not count the instructions checked"
		return
	fi
	echo "$name: $prog checked in $n instructions ($((n * 100 / LIMIT))% of the limit)"
	# Every mode's figure first, then the verdict: kernels' checkers differ.
	[ "$n" -le "$MARGIN" ] || OVER+="$name: $prog took $n of the kernel's $LIMIT instructions to check (more than half); "
}
OVER=

for unwind in auto dwarf fp; do
	if kernel_has_kfunc bpf_iter_task_new; then
		check "one-pass-$unwind" sample_threads -- --unwind "$unwind" --offcpu --syscalls
	fi
	check "iterator-$unwind" sample_tasks THREADTOP_TEST_NO_KFUNC=bpf_iter_task_new -- \
		--unwind "$unwind" --offcpu --syscalls
done
kernel_has_kfunc bpf_iter_task_new ||
	echo "the kernel has no kfunc bpf_iter_task_new (Linux 6.7+): the one-pass sampler was not checked"
[ -z "$OVER" ] || fail "$OVER"
