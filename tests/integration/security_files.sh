#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The files threadtop writes as root cannot be turned against the box: -w,
# --log and --export never write through a symlink (nor create a dangling
# link's target), never truncate what they did not create; a FIFO given to
# -w, -r, --labels or --log is refused at once with a message naming it;
# run as sudo runs it (SUDO_UID/SUDO_GID), every file is created by the sudo
# user, only where they may write, and --export into their own 0700
# directory works although it is written after the capability drop.
set -euo pipefail
[ "$(id -u)" -eq 0 ] || { echo "SKIP: needs root (the attacks are on what root writes)"; exit 77; }
getent passwd 65534 >/dev/null || { echo "SKIP: no user 65534 (nobody) to act as the sudo user"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
tmp=$(mktemp -d /tmp/tt_security_files.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
chmod 0755 "$tmp"
U=65534
run() { timeout 20 "$TT_BIN" -b -n 1 -d 0.2 --source proc -p $$ "$@"; }
# refused EXIT_CODE PATTERN ARGS...: threadtop exits with EXIT_CODE, fast,
# and its one-line message matches PATTERN.
refused() {
	local want=$1 pat=$2 rc=0
	shift 2
	run "$@" >/dev/null 2>"$tmp/err" || rc=$?
	[ "$rc" -ne 124 ] || fail "$*: hung (killed after 20 s)"
	[ "$rc" -eq "$want" ] || fail "$*: exit $rc, want $want: $(cat "$tmp/err")"
	grep -q -- "$pat" "$tmp/err" || fail "$*: message without '$pat': $(cat "$tmp/err")"
}

# Attack 1 and 2: a symlink at the name, to a file root owns.
echo precious >"$tmp/victim"
chmod 0600 "$tmp/victim"
ln -s "$tmp/victim" "$tmp/x.ttr"
ln -s "$tmp/victim" "$tmp/x.log"
ln -s "$tmp/victim" "$tmp/x.json"
refused 1 "x.ttr: .*symbolic link" -w "$tmp/x.ttr"
refused 1 "x.log: .*symbolic link" --log "$tmp/x.log"
refused 1 "x.json: .*--force" --export "$tmp/x.json"
[ "$(cat "$tmp/victim")" = precious ] || fail "the link's target was written"
[ "$(stat -c %u:%g:%a "$tmp/victim")" = 0:0:600 ] || fail "the link's target changed hands"

# A dangling link: its target is not created.
for f in y.ttr y.log y.json; do ln -s "$tmp/made_by_root.$f" "$tmp/$f"; done
refused 1 "y.ttr: .*symbolic link" -w "$tmp/y.ttr"
refused 1 "y.log: .*symbolic link" --log "$tmp/y.log"
refused 1 "y.json: " --export "$tmp/y.json"
ls "$tmp"/made_by_root.* >/dev/null 2>&1 && fail "a dangling link's target was created"

# Ordinary use: -w of an existing file is refused unless --force; --log appends.
run -w "$tmp/a.ttr" >/dev/null 2>&1 || fail "-w of a new file failed"
cp "$tmp/a.ttr" "$tmp/a.keep"
refused 1 "a.ttr: .*--force" -w "$tmp/a.ttr"
cmp -s "$tmp/a.ttr" "$tmp/a.keep" || fail "-w changed an existing file"
run -w "$tmp/a.ttr" --force >/dev/null 2>&1 || fail "-w --force refused"
"$TT_BIN" -r "$tmp/a.ttr" -b >/dev/null 2>&1 || fail "the forced recording does not replay"
run --log "$tmp/run.log" >/dev/null 2>&1 && run --log "$tmp/run.log" >/dev/null 2>&1 ||
	fail "--log of a new, then an existing file failed"
[ "$(grep -c capabilities "$tmp/run.log")" -eq 2 ] || fail "--log did not append: $(cat "$tmp/run.log")"

# Attack 7: FIFOs, a directory and a device: refused at once, never blocking.
mkfifo "$tmp/fifo" "$tmp/fifo.json"
refused 1 "fifo: .*not a regular file" -w "$tmp/fifo"
refused 1 "fifo: .*not a regular file" --log "$tmp/fifo"
refused 1 "fifo: .*not a regular file" -r "$tmp/fifo"
refused 2 "fifo: .*not a regular file" --labels "$tmp/fifo"
refused 1 "fifo.json: .*not a regular file" --export "$tmp/fifo.json" --force
refused 1 "null: .*not a regular file" -w /dev/null --force
refused 1 "not a regular file" --log "$tmp"
[ -p "$tmp/fifo" ] && [ -p "$tmp/fifo.json" ] || fail "a FIFO was replaced"

# Attack 8 and ownership under sudo: SUDO_UID/SUDO_GID as sudo sets them.
mkdir -m 0700 "$tmp/home"
chown $U:$U "$tmp/home"
SUDO_UID=$U SUDO_GID=$U run -w "$tmp/home/s.ttr" --log "$tmp/home/s.log" \
	--export "$tmp/home/s.folded" --export "$tmp/home/s.json" >/dev/null 2>"$tmp/err" ||
	fail "a run under sudo into the user's 0700 directory failed: $(cat "$tmp/err")"
for f in s.ttr s.log s.folded s.json; do
	[ -s "$tmp/home/$f" ] || fail "$f was not written under sudo"
done
[ -z "$(find "$tmp/home" ! -user $U -o ! -group $U)" ] ||
	fail "files not the sudo user's: $(find "$tmp/home" ! -user $U -ls)"
# The same with the export written after the capability drop, in an
# interactive-length run (the exports are written at its end).
SUDO_UID=$U SUDO_GID=$U timeout 20 "$TT_BIN" -b -n 3 -d 0.2 --source proc -p $$ \
	--export "$tmp/home/end.svg" >/dev/null 2>"$tmp/err" ||
	fail "export at the end under sudo failed: $(cat "$tmp/err")"
[ "$(stat -c %u:%g "$tmp/home/end.svg")" = $U:$U ] || fail "end.svg is not the sudo user's"

# Under sudo, the user makes threadtop write nothing they could not: not in
# root's directory, not into root's files, not through their own links.
mkdir -m 0755 "$tmp/rootdir"
SUDO_UID=$U SUDO_GID=$U run -w "$tmp/rootdir/r.ttr" >/dev/null 2>"$tmp/err" &&
	fail "-w in root's directory worked for the sudo user"
grep -q "r.ttr: .*permission denied" "$tmp/err" || fail "no reason given: $(cat "$tmp/err")"
SUDO_UID=$U SUDO_GID=$U run --log "$tmp/victim" >/dev/null 2>"$tmp/err" &&
	fail "--log appended to root's file for the sudo user"
SUDO_UID=$U SUDO_GID=$U run --export "$tmp/rootdir/r.json" >/dev/null 2>&1 &&
	fail "--export in root's directory worked for the sudo user"
ln -s "$tmp/victim" "$tmp/home/link.ttr"
SUDO_UID=$U SUDO_GID=$U run -w "$tmp/home/link.ttr" --force >/dev/null 2>&1 ||
	fail "-w --force over the user's own link failed"
[ -L "$tmp/home/link.ttr" ] && fail "the link was not replaced"
[ "$(cat "$tmp/victim")" = precious ] || fail "the sudo user's link was written through"
[ -z "$(ls -A "$tmp/rootdir")" ] || fail "something appeared in root's directory: $(ls -A "$tmp/rootdir")"
[ -z "$(find "$tmp/home" ! -user $U)" ] || fail "root-owned files in the user's directory"
echo PASS
