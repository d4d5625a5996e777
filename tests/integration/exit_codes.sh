#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Exit codes, as time(1) and strace have them: "threadtop run" ends with its
# command's exit code, 128 + the signal that killed it, 127 when the command
# cannot run; a usage error prints its one line and where the help is (not
# the whole help) and ends with 2.
set -u
fail() {
	echo "FAIL: $*"
	exit 1
}
err=$(mktemp)
trap 'rm -f "$err"' EXIT

run() { # WANT COMMAND...: threadtop run -b on COMMAND ends with WANT
	local want=$1 got
	shift
	"$TT_BIN" run -b --source proc -d 0.2 -- "$@" >/dev/null 2>"$err"
	got=$?
	[ "$got" = "$want" ] || fail "run -- $* ended with $got, want $want: $(head -3 "$err")"
}

# An ASan-built sysprof library cannot be preloaded into an uninstrumented
# command (the sanitizer's runtime must come first): run's codes need a
# normal build.
if grep -q '^TT_SANITIZE:BOOL=ON' "${TT_BUILD:-/nonexistent}/CMakeCache.txt" 2>/dev/null; then
	echo "threadtop run's exit codes: not checked in a sanitizer build"
else
	run 0 true
	run 3 sh -c 'exit 3'
	run 143 sh -c 'kill -TERM $$'
	run 137 sh -c 'kill -KILL $$'
	run 127 /nonexistent/cmd
	grep -q 'cannot run /nonexistent/cmd' "$err" ||
		fail "no reason for the command that cannot run"
fi

usage() { # ARGS...: a usage error, one line + the hint, exit code 2
	local got lines
	"$TT_BIN" "$@" >/dev/null 2>"$err"
	got=$?
	[ "$got" = 2 ] || fail "threadtop $* ended with $got, want 2"
	lines=$(wc -l <"$err")
	[ "$lines" = 2 ] || fail "threadtop $* printed $lines lines, want 2: $(cat "$err")"
	[ "$(tail -1 "$err")" = "try 'threadtop --help'" ] || fail "no hint after: $(cat "$err")"
}
usage --bogus
usage -d abc
usage -p 12,x
usage run -b
usage extra-argument
"$TT_BIN" --help >/dev/null 2>&1 || fail "--help does not end with 0"
echo "PASS: exit_codes"
