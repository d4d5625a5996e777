#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# perf maps are trusted as perf trusts them: a root process's JIT-like code
# (anonymous executable memory) is named by /tmp/perf-PID.map only when root
# (the process's user) owns it and no one else may write it; the same file
# planted by nobody, or left world-writable, names nothing.
. "$(dirname "$0")/bpf_common.bash"

start jit_spin "$TT_WL_LIFE"
jit=$WL
wait_until "jit_spin did not start" test -s "$TMPD/jit_spin.out"
grep -q '^unsupported' "$TMPD/jit_spin.out" && skip "$(cat "$TMPD/jit_spin.out")"
read -r _ addr size <"$TMPD/jit_spin.out"
map=/tmp/perf-$jit.map
trap 'rm -f "$map"; cleanup' EXIT
rm -f "$map"
echo "$addr $size tt_planted_jit_name" >"$map"

# named OWNER MODE: whether a fresh threadtop's samples of jit_spin name the JIT frame.
named() {
	chown "$1" "$map" && chmod "$2" "$map"
	"$TT_BIN" -b -n 2 -d 1 --source bpf --format json -p "$jit" \
		--export "$TMPD/jit.folded" --force >"$TMPD/out.json" 2>"$TMPD/err" ||
		fail "threadtop failed: $(tail -n 3 "$TMPD/err")"
	[ -s "$TMPD/jit.folded" ] || fail "no samples of jit_spin"
	grep -q tt_planted_jit_name "$TMPD/jit.folded"
}

named "nobody:$(id -g nobody)" 644 && fail "a perf map owned by nobody named a root process's frames"
named root:root 666 && fail "a world-writable perf map named a root process's frames"
named root:root 644 || fail "root's own perf map was not used: $(head -n 3 "$TMPD/jit.folded")"
echo "root's map: $(grep -o 'tt_planted_jit_name[^ ]*' "$TMPD/jit.folded" | head -n 1)"
echo PASS
