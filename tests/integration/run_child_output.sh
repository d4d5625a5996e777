#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# threadtop run keeps the command's output off its stdout: with -b --format
# json every stdout line parses as JSON (the README's "| jq" example) while
# the command prints to its stdout and stderr; that output reaches
# threadtop's stderr, or, with --child-output FILE, the file alone.
. "$(dirname "$0")/bpf_common.bash"

require_sysprof # threadtop run preloads it
cmd='for i in 1 2 3; do echo "child-out $i"; echo "child-err $i" >&2; sleep 0.3; done'

timeout $((2 * TT_TEST_WAIT)) "$TT_BIN" run -b --format json -n 2 -d 0.5 -- sh -c "$cmd" \
	>"$TMPD/a.out" 2>"$TMPD/a.err" || fail "threadtop run failed: $(tail -n 3 "$TMPD/a.err")"
[ -s "$TMPD/a.out" ] || fail "threadtop run printed nothing"
jq -e -s 'length >= 1 and all(.schema == 1)' "$TMPD/a.out" >/dev/null ||
	fail "stdout is not NDJSON: $(head -c 300 "$TMPD/a.out")"
if grep -qx "child-out [0-9]" "$TMPD/a.out"; then fail "the command's output is on threadtop's stdout"; fi
grep -q "child-out 1" "$TMPD/a.err" || fail "the command's stdout is lost: $(cat "$TMPD/a.err")"
grep -q "child-err 1" "$TMPD/a.err" || fail "the command's stderr is lost: $(cat "$TMPD/a.err")"

log=$TMPD/child.log
timeout $((2 * TT_TEST_WAIT)) "$TT_BIN" run -b --format json -n 2 -d 0.5 --child-output "$log" \
	-- sh -c "$cmd" >"$TMPD/b.out" 2>"$TMPD/b.err" ||
	fail "threadtop run --child-output failed: $(tail -n 3 "$TMPD/b.err")"
jq -e -s 'length >= 1 and all(.schema == 1)' "$TMPD/b.out" >/dev/null ||
	fail "stdout is not NDJSON with --child-output: $(head -c 300 "$TMPD/b.out")"
if grep -qx "child-\(out\|err\) [0-9]" "$TMPD/b.out" "$TMPD/b.err"; then
	fail "with --child-output the command's output is still on threadtop's stdout or stderr"
fi
grep -q "child-out 1" "$log" && grep -q "child-err 1" "$log" ||
	fail "--child-output $log lacks the command's output: $(cat "$log" 2>&1)"
# Through user_file: a symlink is not written through.
ln -s "$TMPD/elsewhere" "$TMPD/link"
if "$TT_BIN" run -b -n 1 --child-output "$TMPD/link" -- true >/dev/null 2>"$TMPD/c.err"; then
	fail "--child-output wrote through a symlink"
fi
grep -q "child-output" "$TMPD/c.err" || fail "no message naming --child-output: $(cat "$TMPD/c.err")"
[ ! -e "$TMPD/elsewhere" ] || fail "--child-output created the symlink's target"
echo PASS
