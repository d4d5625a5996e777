#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Inlined frames in a live profile: the inline_hot workload (-O2 -g) burns
# CPU in inline_hot(), which the compiler inlined into inline_mid(), itself
# inlined into inline_outer(); the on-CPU folded export must show
# "inline_outer;inline_mid [inlined];inline_hot [inlined]", as
# perf report --inline does. addr2line -i (binutils), when installed, must
# agree on the chain at the loop's address.
. "$(dirname "$0")/bpf_common.bash"

exe=$TT_WORKLOADS/inline_hot
start inline_hot "$TT_WL_LIFE"
wait_until "inline_hot printed nothing" test -s "$TMPD/inline_hot.out"
vaddr=$(sed -n 's/.*hot_vaddr=\(0x[0-9a-f]*\).*/\1/p' "$TMPD/inline_hot.out")
[ -n "$vaddr" ] || fail "inline_hot printed no address line: $(cat "$TMPD/inline_hot.out")"

if command -v addr2line >/dev/null; then
	chain=$(addr2line -f -i -e "$exe" "$vaddr" | sed -n '1p;3p;5p' | tr '\n' ' ')
	[ "$chain" = "inline_hot inline_mid inline_outer " ] ||
		fail "addr2line -i disagrees on the workload itself: [$chain] at $vaddr"
else
	echo "note: addr2line not installed: not compared"
fi

"$TT_BIN" -b --format json -n 2 -d 1 --source bpf -p "$WL" --export "$TMPD/inl.folded" \
	>"$TMPD/out.json" 2>"$TMPD/err" || fail "threadtop failed: $(tail -n 3 "$TMPD/err")"
[ -s "$TMPD/inl.folded" ] || fail "no on-CPU folded export: $(ls "$TMPD")"
# The busiest on-CPU stack of the workload ends in the inlined function.
top=$(grep '^inline_hot;' "$TMPD/inl.folded" | awk '{print $NF "\t" $0}' | sort -nr |
	head -n 1 | cut -f2- || true)
case "$top" in
*';inline_outer;inline_mid [inlined];inline_hot [inlined] '*) ;;
*) fail "busiest stack does not end in inline_outer;inline_mid [inlined];inline_hot [inlined]: [$top]" ;;
esac
echo PASS
