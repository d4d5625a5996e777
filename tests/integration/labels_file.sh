#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The label files shipped in assets/labels parse (threadtop validates them at
# start-up: a bad line is a usage error naming FILE:LINE).
set -euo pipefail
fail() { echo "FAIL: $*"; exit 1; }
for f in "$TT_SRC"/assets/labels/*.labels; do
	set +e
	msg=$("$TT_BIN" -b -n 1 -d 0.1 --source proc -p $$ --labels "$f" 2>&1 >/dev/null)
	rc=$?
	set -e
	[ $rc -eq 0 ] || fail "$f: exit $rc: $msg"
done
bad=$(mktemp)
printf 'set ok=/bin/true:main:arg1\nset broken\n' >"$bad"
set +e
msg=$("$TT_BIN" -b -n 1 --source proc --labels "$bad" 2>&1 >/dev/null)
rc=$?
set -e
rm -f "$bad"
[ $rc -eq 2 ] || fail "a bad labels file must be a usage error, got $rc"
grep -q "$bad:2: " <<<"$msg" || fail "the error must name the line: $msg"
echo PASS
