#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Named stacks from the BPF on-CPU sampler: the symchain workload's whole
# noinline chain main -> chain_exe_1 -> chain_lib_2 -> chain_lib_3 ->
# chain_exe_leaf, through a PIE executable at a random base and a shared
# library, in order (frame-pointer build); a stripped copy's leaf shows as
# "symchain_stripped+0x..."; a binary deleted after it started still
# resolves; kernel frames end in "_[k]"; the folded export names them too.
. "$(dirname "$0")/bpf_common.bash"

# The frames of the busiest on-CPU stack of pid $2 in NDJSON file $1, one per line.
top_frames() {
	jq -r --argjson p "$2" \
		'[.oncpu[] | select(.pid == $p)] | sort_by(-.samples) | .[0].frames // [] | .[]' \
		<(tail -n 1 "$1")
}

chain_in_order() { # file pid
	local got
	got=$(top_frames "$1" "$2" | grep -E '^(main|chain_exe_1|chain_lib_2|chain_lib_3|chain_exe_leaf)$' |
		tr '\n' ' ')
	[ "$got" = "main chain_exe_1 chain_lib_2 chain_lib_3 chain_exe_leaf " ] ||
		fail "pid $2: chain not whole or out of order: [$got] in $(top_frames "$1" "$2" | tr '\n' ' ')"
}

# Frame pointers, PIE: the whole chain, root to leaf.
start symchain_fp "$TT_WL_LIFE"
fp=$WL
# Deleted after start: a copy run from $TMPD, then removed.
cp "$TT_WORKLOADS/symchain_fp" "$TMPD/symchain_gone"
"$TMPD/symchain_gone" "$TT_WL_LIFE" >"$TMPD/gone.out" 2>&1 &
gone=$!
WL_PIDS+=("$gone")
start symchain_stripped "$TT_WL_LIFE"
stripped=$WL
# Each prints a line once it runs (mapped, past the loader): then the binary goes.
for f in symchain_fp.out gone.out symchain_stripped.out; do
	wait_until "no start line in $f" test -s "$TMPD/$f"
done
rm "$TMPD/symchain_gone"

out=$TMPD/sym.json
"$TT_BIN" -b --format json -n 2 -d 1.5 --source bpf -p "$fp,$gone,$stripped" \
	--export "$TMPD/all.folded" >"$out"
chain_in_order "$out" "$fp"
chain_in_order "$out" "$gone"
top_frames "$out" "$stripped" | tail -n 1 | grep -qE '^symchain_stripped\+0x[0-9a-f]+$' ||
	fail "stripped leaf: $(top_frames "$out" "$stripped" | tr '\n' ' ')"
# No frame is left unnamed as a bare address in a live run.
if jq -r '.oncpu[].frames[]' <(tail -n 1 "$out") | grep -qE '^0x'; then
	fail "bare addresses: $(jq -r '.oncpu[].frames[]' <(tail -n 1 "$out") | grep -E '^0x' | head -3)"
fi
# Kernel frames (an interrupt or a syscall caught on the way) are marked.
jq -r '.oncpu[].frames[]' "$out" | grep -E '_\[k\]$' | grep -qvE '^0x' ||
	echo "note: no kernel frame sampled (the chain stays in user space)"
grep -q 'chain_exe_1;chain_lib_2;chain_lib_3;chain_exe_leaf' "$TMPD/all.folded" ||
	fail "folded export has no named chain: $(head -c 600 "$TMPD/all.folded")"
echo PASS
