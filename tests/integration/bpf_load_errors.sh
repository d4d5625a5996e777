#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# What threadtop says when its BPF programs cannot load as asked (issue #31):
# - a kernel without the one-pass sampler's kfuncs (THREADTOP_TEST_NO_KFUNC
#   makes the BTF probe report bpf_iter_task_new absent): the per-task
#   iterator loads first time, said once in --log, nothing on stderr, and
#   no libbpf message of a failed attempt;
# - a memory cgroup too small for the maps: the error names the map (or the
#   program) libbpf named, its size, Cannot allocate memory and the memcg and
#   memlock limits, not a verifier rejection of a program loaded before; and
#   --log holds libbpf's messages of that object only.
. "$(dirname "$0")/bpf_common.bash"

# --- a missing kfunc -------------------------------------------------------
THREADTOP_TEST_NO_KFUNC=bpf_iter_task_new "$TT_BIN" -b -n 2 -d 0.5 --format json --source bpf \
	--cpu-hz 0 --log "$TMPD/nokfunc.log" >"$TMPD/nokfunc.out" 2>"$TMPD/nokfunc.err" ||
	fail "no kfunc: threadtop failed: $(cat "$TMPD/nokfunc.err")"
grep -q 'one-pass\|kfunc' "$TMPD/nokfunc.err" &&
	fail "no kfunc: the expected fallback is a warning on stderr: $(cat "$TMPD/nokfunc.err")"
n=$(grep -c 'this kernel has no kfunc bpf_iter_task_new (the one-pass thread sampler.s, Linux 6.7+): threads are sampled by the per-task iterator' "$TMPD/nokfunc.log") || true
[ "$n" = 1 ] || fail "no kfunc: --log should say once that the per-task iterator samples ($n): $(cat "$TMPD/nokfunc.log")"
grep -q 'libbpf: \|verifier' "$TMPD/nokfunc.log" &&
	fail "no kfunc: libbpf's messages of a failed load in --log: $(cat "$TMPD/nokfunc.log")"
grep -q 'thread sampler: the per-task iterator ran [0-9]* times' "$TMPD/nokfunc.log" ||
	fail "no kfunc: the per-task iterator did not run: $(cat "$TMPD/nokfunc.log")"
[ "$(jq -s 'map(.threads | length) | min' "$TMPD/nokfunc.out")" -gt 0 ] ||
	fail "no kfunc: intervals without threads"
echo "no kfunc: $(grep -o 'thread sampler: .*' "$TMPD/nokfunc.log")"

# --- a memory cgroup too small for the maps ------------------------------
# cgroup v2 (memory.max on a child of ours) or v1 (memory.limit_in_bytes).
mem_cgroup() {
	local self
	if [ -f /sys/fs/cgroup/cgroup.controllers ] && grep -qw memory /sys/fs/cgroup/cgroup.controllers; then
		# A child of the root: the root may hold processes and enable controllers.
		grep -qw memory /sys/fs/cgroup/cgroup.subtree_control ||
			echo +memory >/sys/fs/cgroup/cgroup.subtree_control 2>/dev/null || return 1
		CG=/sys/fs/cgroup/tt-load-errors-$$ LIMIT=memory.max
	else
		self=$(awk -F: '$2 == "memory" { print $3 }' /proc/self/cgroup)
		[ -n "$self" ] && [ -d "/sys/fs/cgroup/memory$self" ] || return 1
		CG=/sys/fs/cgroup/memory$self/tt-load-errors-$$ LIMIT=memory.limit_in_bytes
	fi
	mkdir "$CG" 2>/dev/null && [ -f "$CG/$LIMIT" ]
}
CG=
cleanup_cg() {
	[ -n "$CG" ] && [ -d "$CG" ] && rmdir "$CG" 2>/dev/null
	cleanup
}
trap cleanup_cg EXIT
mem_cgroup || skip "no memory cgroup to create (cgroup v2 memory controller or v1 memory hierarchy)"

# From small to large: the first limit at which threadtop fails on memory and
# says so (smaller ones may kill it before it loads anything, larger ones let
# it load). Each run in the cgroup, --source bpf: no fallback to /proc.
got=
for mb in 12 16 20 24 28 32 40 48 56 64; do
	echo $((mb << 20)) >"$CG/$LIMIT" || skip "cannot set $CG/$LIMIT"
	rm -f "$TMPD/cg.log"
	rc=0
	bash -c 'echo $$ >"$1/cgroup.procs" && exec "${@:2}"' _ "$CG" \
		"$TT_BIN" -b -n 1 -d 0.3 --format json --source bpf --log "$TMPD/cg.log" \
		>"$TMPD/cg.out" 2>"$TMPD/cg.err" || rc=$?
	echo "memory limit $mb MiB: exit $rc: $(head -c 400 "$TMPD/cg.err")"
	[ "$rc" = 0 ] && break # loaded: larger limits will too
	grep -q 'Cannot allocate memory' "$TMPD/cg.err" && got=$mb && break
done
[ -n "$got" ] || skip "no memory limit made a BPF map or program fail with ENOMEM \
(the kernel may not charge BPF memory to the cgroup)"

err=$(grep -m1 'BPF source:' "$TMPD/cg.err") || fail "no BPF source error: $(cat "$TMPD/cg.err")"
case "$err" in
*"verifier rejected"*) fail "ENOMEM blamed on the verifier: $err" ;;
esac
hint="Cannot allocate memory; BPF memory counts against the memory cgroup's limit (memory.max) and, before Linux 5.11, ulimit -l (RLIMIT_MEMLOCK)"
re_map="cannot create map (tt_[a-z_]+) of bpf/([a-z]+)\.bpf\.c \((a ring buffer of [0-9]+ KiB|[0-9]+ entries, about [0-9]+ KiB)\): "
re_prog="cannot load program ([a-z_]+) \(bpf/([a-z]+)\.bpf\.c\): "
if [[ "$err" =~ $re_map ]]; then
	what=map name=${BASH_REMATCH[1]} object=${BASH_REMATCH[2]}
	grep -q "map '$name': failed to create" "$TMPD/cg.log" ||
		fail "--log has no libbpf message about map $name: $(cat "$TMPD/cg.log")"
elif [[ "$err" =~ $re_prog ]]; then
	what=program name=${BASH_REMATCH[1]} object=${BASH_REMATCH[2]}
	grep -q "prog '$name'" "$TMPD/cg.log" ||
		fail "--log has no libbpf message about program $name: $(cat "$TMPD/cg.log")"
else
	fail "the error names no map and no program: $err"
fi
[[ "$err" == *"$hint"* ]] || fail "the error does not say which limits apply: $err"
# libbpf's messages in --log are those of the object that failed: every map
# or program they name is that object's, or of a header it includes.
srcs=("$TT_SRC/bpf/$object.bpf.c")
for h in $(sed -n 's/^#include "\(.*\.bpf\.h\)"$/\1/p' "$TT_SRC/bpf/$object.bpf.c"); do
	srcs+=("$TT_SRC/bpf/$h")
done
for m in $(grep -o "libbpf: map '[a-z_]*'" "$TMPD/cg.log" | sort -u | sed "s/.*'\(.*\)'/\1/"); do
	grep -qw "$m" "${srcs[@]}" ||
		fail "--log names map $m, not of bpf/$object.bpf.c: $(cat "$TMPD/cg.log")"
done
echo "under $got MiB: $what $name of bpf/$object.bpf.c named: $err"
