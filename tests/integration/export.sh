#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# --export end to end with the /proc source (no BPF needed): the folded and
# JSON files of one run agree on totals, an existing file is kept unless
# --force, a symlink is never written through, a full disk leaves no file,
# and a bad target is refused before the run starts.
set -euo pipefail
fail() { echo "FAIL: $*"; exit 1; }
command -v python3 >/dev/null || { echo "SKIP: python3 is not installed"; exit 77; }

dir=$(mktemp -d /tmp/tt_export.XXXXXX)
# Until killed (300 s at most): under load the runs below can take longer
# than the workload's default 30 s.
"$TT_WORKLOADS/spin_sleep" 300 &
wl=$!
cleanup() {
	kill $wl 2>/dev/null || true
	umount "$dir/full" 2>/dev/null || true
	rm -rf "$dir"
}
trap cleanup EXIT
# Its spinner and sleeper threads exist before the first sample.
for _ in $(seq 300); do
	[ "$(ls /proc/$wl/task 2>/dev/null | wc -l)" -ge 3 ] && break
	sleep 0.1
done
[ "$(ls /proc/$wl/task | wc -l)" -ge 3 ] || fail "spin_sleep did not start its threads"

"$TT_BIN" -b -n 2 -d 0.5 --source proc -p "$wl" --export "$dir/a.folded" \
	--export "$dir/a.json" >/dev/null 2>"$dir/err" ||
	fail "export run failed: $(cat "$dir/err")"
grep -q "exported $dir/a.folded" "$dir/err" || fail "no confirmation: $(cat "$dir/err")"
python3 - "$dir" <<'PY' || fail "folded and JSON disagree"
import json, sys
d = sys.argv[1]
rep = json.load(open(d + "/a.json"))
assert rep["schema"] == 1 and rep["kind"] == "report", rep.keys()
assert rep["report_version"] == 1 and rep["window"] == "session" and rep["source"] == "proc"
assert isinstance(rep["use"], list) and "level" in rep["verdict"], rep.keys()
prof = rep["profiles"]["threads"]
folded = 0
for line in open(d + "/a.folded"):
    stack, n = line.rstrip("\n").rsplit(" ", 1)
    assert stack.split(";")[0] == "spin_sleep", line   # the process is the root frame
    folded += int(n)
assert folded == prof["total_count"] > 0, (folded, prof["total_count"])
assert sum(s["count"] for s in prof["samples"]) == folded
# The JSON's threads agree with its profile, and the spinner mostly runs.
assert sum(sum(t["samples"].values()) for t in rep["threads"]) == folded
spinner = [t for t in rep["threads"] if t["comm"] == "spinner"][0]
assert spinner["samples"].get("R", 0) > sum(spinner["samples"].values()) / 2, spinner
names = [f["name"] for f in rep["frames"]]
assert "[running]" in names and "[syscall clock_nanosleep]" in names, names
PY
"$TT_BIN" -b -n 1 -d 0.3 --source proc -p "$wl" --export "$dir/tid.folded" --export-by tid \
	>/dev/null 2>&1 || fail "--export-by tid run failed"
grep -q '^spin_sleep;spinner \[[0-9]*\];' "$dir/tid.folded" || fail "no per-thread split: $(cat "$dir/tid.folded")"

# An existing file is kept: the run is refused before it starts.
cp "$dir/a.folded" "$dir/keep"
set +e
msg=$("$TT_BIN" -b -n 1 -d 0.2 --source proc -p "$wl" --export "$dir/a.folded" 2>&1 >/dev/null)
rc=$?
set -e
[ $rc -eq 1 ] || fail "existing file: exit $rc"
grep -q -- "--force" <<<"$msg" || fail "no hint at --force: $msg"
cmp -s "$dir/keep" "$dir/a.folded" || fail "existing file changed"
"$TT_BIN" -b -n 1 -d 0.2 --source proc -p "$wl" --export "$dir/a.folded" --force \
	>/dev/null 2>&1 || fail "--force refused"

# A symlink is replaced only with --force, and its target never written.
echo precious >"$dir/victim"
ln -s "$dir/victim" "$dir/link.json"
set +e
"$TT_BIN" -b -n 1 -d 0.2 --source proc -p "$wl" --export "$dir/link.json" >/dev/null 2>&1
rc=$?
set -e
[ $rc -eq 1 ] || fail "symlink target: exit $rc"
"$TT_BIN" -b -n 1 -d 0.2 --source proc -p "$wl" --export "$dir/link.json" --force \
	>/dev/null 2>&1 || fail "--force over a symlink refused"
[ "$(cat "$dir/victim")" = precious ] || fail "wrote through a symlink"
[ -L "$dir/link.json" ] && fail "symlink not replaced"

# A directory that does not exist is refused before the run.
set +e
msg=$("$TT_BIN" -b -n 1 -d 0.2 --source proc --export "$dir/nodir/x.json" 2>&1 >/dev/null)
rc=$?
set -e
[ $rc -eq 1 ] && grep -q "nodir/x.json" <<<"$msg" || fail "missing directory: $rc $msg"

# Run through sudo: the exported files are created by the user who ran sudo
# (in a directory of theirs: they may not write in root's).
if [ "$(id -u)" -eq 0 ]; then
	chmod 0755 "$dir"
	mkdir -m 0700 "$dir/user"
	chown 65534:65534 "$dir/user"
	SUDO_UID=65534 SUDO_GID=65534 "$TT_BIN" -b -n 1 -d 0.2 --source proc -p "$wl" \
		--export "$dir/user/sudo.json" --export "$dir/user/sudo.folded" >/dev/null 2>&1 ||
		fail "export under sudo failed"
	for f in sudo.json sudo.folded; do
		[ "$(stat -c %u:%g "$dir/user/$f")" = 65534:65534 ] ||
			fail "$f belongs to $(stat -c %u:%g "$dir/user/$f"), not the sudo user"
	done
fi

# A full disk: a message, and no file (nor temporary) left behind.
mkdir "$dir/full"
if mount -t tmpfs -o size=12k tmpfs "$dir/full" 2>/dev/null; then
	set +e
	msg=$("$TT_BIN" -b -n 1 -d 0.2 --source proc --export "$dir/full/big.json" 2>&1 >/dev/null)
	rc=$?
	set -e
	[ $rc -eq 1 ] || fail "full disk: exit $rc"
	grep -q "No space left" <<<"$msg" || fail "full disk message: $msg"
	[ -z "$(ls -A "$dir/full")" ] || fail "full disk left files: $(ls -A "$dir/full")"
else
	echo "note: cannot mount a tmpfs (not root?): full-disk check skipped"
fi
echo "PASS"
