#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Bad recordings (empty, wrong magic, newer version, absurd lengths, flipped
# bits, cut short) give exactly one line on stderr naming the file, the
# offset and the reason, and exit code 1; never a crash.
set -euo pipefail

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$TT_BIN" -b --format json --source proc -d 0.2 -n 16 -w "$tmp/good.ttr" >/dev/null
"$TT_BIN" -r "$tmp/good.ttr" -b --format json >/dev/null || fail "the good file does not replay"

hsize=$(od -An -tu4 -j12 -N4 "$tmp/good.ttr" | tr -d ' ')
chunk=$hsize # the first chunk header starts right after the file header

# poke FILE OFFSET BYTE: overwrite one byte (BYTE in octal escapes, e.g. '\377').
poke() { printf "$3" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none; }
flip() { # FILE OFFSET: invert one byte
	local b
	b=$(od -An -tu1 -j"$2" -N1 "$1" | tr -d ' ')
	poke "$1" "$2" "$(printf '\\%03o' $((255 - b)))"
}

# expect NAME OFFSET REASON: replays $tmp/NAME, wants exit 1 and one line
# "threadtop: PATH: offset OFFSET: ...REASON..." on stderr.
expect() {
	local f="$tmp/$1" rc=0
	"$TT_BIN" -r "$f" -b --format json >"$tmp/out" 2>"$tmp/err" || rc=$?
	[ "$rc" -eq 1 ] || fail "$1: exit code $rc, want 1 ($(cat "$tmp/err"))"
	[ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "$1: want one line on stderr, got: $(cat "$tmp/err")"
	grep -qF "threadtop: $f: offset $2: " "$tmp/err" || fail "$1: offset $2 not named: $(cat "$tmp/err")"
	grep -qF "$3" "$tmp/err" || fail "$1: reason '$3' not given: $(cat "$tmp/err")"
}

: >"$tmp/empty.ttr"
expect empty.ttr 0 "empty file"

printf 'hello, this is not a recording at all\n' >"$tmp/text.ttr"
expect text.ttr 0 "bad magic"

cp "$tmp/good.ttr" "$tmp/newer.ttr"
poke "$tmp/newer.ttr" 8 '\002'
expect newer.ttr 8 "newer than this threadtop"

cp "$tmp/good.ttr" "$tmp/info_len.ttr"
poke "$tmp/info_len.ttr" 23 '\377'
expect info_len.ttr 12 "out of bounds"

cp "$tmp/good.ttr" "$tmp/header_flip.ttr"
flip "$tmp/header_flip.ttr" 40
expect header_flip.ttr $((hsize - 4)) "header CRC mismatch"

cp "$tmp/good.ttr" "$tmp/payload_flip.ttr"
flip "$tmp/payload_flip.ttr" $((chunk + 48 + 7))
expect payload_flip.ttr "$chunk" "payload CRC mismatch"

cp "$tmp/good.ttr" "$tmp/chunk_flip.ttr"
flip "$tmp/chunk_flip.ttr" $((chunk + 9)) # the stored size
expect chunk_flip.ttr "$chunk" "chunk header CRC mismatch"

head -c $((chunk + 48 + 10)) "$tmp/good.ttr" >"$tmp/cut.ttr"
expect cut.ttr "$chunk" "cut short"

head -c $((hsize - 3)) "$tmp/good.ttr" >"$tmp/cut_header.ttr"
expect cut_header.ttr $((hsize - 3)) "ends inside its header"

# A file cut inside its last chunk replays the chunks before the cut, then fails.
size=$(stat -c %s "$tmp/good.ttr")
index=$(od -An -tu8 -j$((size - 8)) -N8 "$tmp/good.ttr" | tr -d ' ') # the trailer points at it
head -c $((index - 10)) "$tmp/good.ttr" >"$tmp/cut_late.ttr"
rc=0
"$TT_BIN" -r "$tmp/cut_late.ttr" -b --format json >"$tmp/out" 2>"$tmp/err" || rc=$?
[ "$rc" -eq 1 ] || fail "cut_late: exit $rc, want 1"
[ "$(wc -l <"$tmp/out")" -ge 1 ] || fail "cut_late: the chunks before the cut did not replay"
grep -q "cut short" "$tmp/err" || fail "cut_late: $(cat "$tmp/err")"

# A directory and a missing file.
rc=0
"$TT_BIN" -r "$tmp" -b 2>"$tmp/err" || rc=$?
[ "$rc" -eq 1 ] && grep -q "not a regular file" "$tmp/err" || fail "directory: $rc $(cat "$tmp/err")"
rc=0
"$TT_BIN" -r "$tmp/missing.ttr" -b 2>"$tmp/err" || rc=$?
[ "$rc" -eq 1 ] && grep -q "No such file" "$tmp/err" || fail "missing: $rc $(cat "$tmp/err")"
echo "ok: every bad file named with its offset, exit 1"
