#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# An unprivileged process that maps libthreadtop-sysprof.so calls the LuaJIT
# probe with fresh function ids and 4000-byte names as fast as it can
# (probe_flood, as nobody). threadtop (root, BPF source) must stay bounded:
# its peak RSS under 256 MB after 20 s of flood (without the dictionary
# budget it grew from 52 to 550 MB in 20 s), the names past the budget
# counted as dict_full, and a line about the budget at the end.
. "$(dirname "$0")/bpf_common.bash"

require_sysprof

out=$TMPD/flood.json
"$TT_BIN" -b --format json -d 1 -n 1000 --cpu-hz 0 >"$out" 2>"$TMPD/err" &
tt=$!
WL_PIDS+=("$tt")
wait_first_line "$out"
"$TT_WORKLOADS/probe_flood" "$SYSPROF_LIB" $((TT_TEST_WAIT + 30)) >"$TMPD/flood.out" &
WL_PIDS+=("$!")
flooding() { grep -q flooding "$TMPD/flood.out"; }
wait_until "probe_flood did not see threadtop attach" flooding
hwm() { sed -n 's/^VmHWM:[[:space:]]*\([0-9]*\) kB/\1/p' "/proc/$tt/status"; }
# 20 intervals of flood (each a line of output), watching the peak all along.
start=$(nr_lines "$out")
twenty() {
	kill -0 "$tt" 2>/dev/null || fail "threadtop died: $(tail -n 3 "$TMPD/err")"
	[ "$(hwm)" -lt $((256 * 1024)) ] || fail "peak RSS $(hwm) kB under the flood"
	[ "$(nr_lines "$out")" -ge $((start + 20)) ]
}
wait_until "20 intervals under the flood" twenty
echo "threadtop peak RSS after 20 s of probe flood: $(($(hwm) / 1024)) MB"
kill -INT "$tt"
wait "$tt" || true
head -n "$(nr_lines "$out")" "$out" | jq -s -e '[.[].dropped.dict_full] | add > 0' >/dev/null ||
	fail "no dict_full counted"
grep -q 'dict-budget' "$TMPD/err" || fail "no line about the budget: $(tail -n 3 "$TMPD/err")"
echo "ok: bounded under the probe flood"
