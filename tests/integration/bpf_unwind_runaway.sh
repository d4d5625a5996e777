#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# A frame-pointer walk that runs away (src/sources/bpf_unwind.c): the
# fp_runaway workload spins in a leaf that points rbp at a chain of fake
# frames in the heap, 200 recursive calls below, as code built without frame
# pointers leaves rbp (fio's walks went 120 "frames" into [heap]). Both
# walks stop at 127 frames. With --unwind fp the stacks are that garbage,
# which shows the workload does what it says; with the default (auto) the
# DWARF stacks win: ...fp_runaway_outer;fp_runaway_mid;fake_chain_spin with
# no [heap] frame, as perf --call-graph dwarf shows. Before, the DWARF stack
# lost to the walk because it was no deeper, and every view showed [heap].
. "$(dirname "$0")/bpf_common.bash"

start fp_runaway "$TT_WL_LIFE"

# profile MODE: the workload's on-CPU folded stacks over 2 s. Unwinding 127
# frames costs 12 us a sample here, 1 ms under emulation (a kernel harness
# guest), where the default budget (1% of a core) left 259 of 296 samples
# their walk: the budget is not what is tested.
profile() {
	mkdir -p "$TMPD/$1"
	"$TT_BIN" -b --format json -n 3 -d 1 --source bpf --unwind "$1" --unwind-budget 50 -p "$WL" \
		--export "$TMPD/$1/out.folded" >"$TMPD/$1/out.json" 2>"$TMPD/$1/err" ||
		fail "threadtop --unwind $1 failed: $(tail -n 3 "$TMPD/$1/err")"
	grep '^fp_runaway;' "$TMPD/$1/out.folded" || fail "--unwind $1: no stack of the workload"
}
# shares FOLDED: samples with a frame in the chain's memory, then all: [heap]
# from malloc, [anon] from a sanitizer's allocator.
shares() { awk '{ n = $NF; all += n; if ($0 ~ /\[(heap|anon)\]/) heap += n } END { print heap + 0, all + 0 }'; }

read -r heap all < <(profile fp | shares)
echo "# --unwind fp: $heap of $all samples through the chain ([heap] or [anon])"
((all >= 20 && heap * 10 >= all * 9)) ||
	fail "the workload's frame-pointer walks did not run into the heap ($heap of $all): it is not the case tested"

profile auto >"$TMPD/auto.folded"
read -r heap all < <(shares <"$TMPD/auto.folded")
real=$(awk '/;fp_runaway_outer;fp_runaway_mid;fake_chain_spin [0-9]+$/ { n += $NF } END { print n + 0 }' \
	"$TMPD/auto.folded")
echo "# --unwind auto: $heap of $all samples through the chain, $real end in fp_runaway_outer;fp_runaway_mid;fake_chain_spin"
((all >= 20)) || fail "only $all samples of the workload"
# The first samples of a process may come before its first DWARF verdict.
((heap * 20 <= all)) ||
	fail "$heap of $all samples still show the runaway frame-pointer walk: $(grep -m1 -E '\[(heap|anon)\]' "$TMPD/auto.folded" | cut -c1-200)"
((real * 10 >= all * 9)) ||
	fail "only $real of $all samples have the real callers: $(sort -t' ' -k2 -nr "$TMPD/auto.folded" | head -n 1 | rev | cut -c1-200 | rev)"
echo PASS
