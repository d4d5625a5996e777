#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# A recording that hits --max-size or a full disk (here: the file size limit,
# ulimit -f) stops with one message while the live output goes on, and the
# file replays up to where it stopped.
set -euo pipefail

tmp=$(mktemp -d)
# 300 s, killed at exit: the runs below take 20 s on a quiet machine.
"$TT_WORKLOADS/rr_threads" 2 2 300 &
wl=$!
trap 'kill $wl 2>/dev/null; rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
for _ in $(seq 300); do
	[ "$(ls /proc/$wl/task 2>/dev/null | wc -l)" -ge 5 ] && break
	sleep 0.1
done
[ "$(ls /proc/$wl/task | wc -l)" -ge 5 ] || fail "rr_threads did not start its threads"
# The caps are sized from a measured 2 s of recording: the workload's threads
# make ~1 KB a second, but the USE records are machine-wide (one per CPU,
# disk, interface), so a fixed 4 KiB held two chunks here and none on a
# machine with many CPUs. Twice the sample holds the header and about four
# seconds: the 10-second runs below fill it, and it holds a whole chunk.
"$TT_BIN" -b --format json --source proc -d 0.2 -n 10 -p $wl -w "$tmp/probe.ttr" >/dev/null \
	2>"$tmp/probe.err" || fail "exit $? recording a sample: $(cat "$tmp/probe.err")"
cap=$((2 * $(stat -c %s "$tmp/probe.ttr")))
cap_kib=$(((cap + 1023) / 1024))
cap=$((cap_kib * 1024))
echo "caps: $cap_kib KiB (2 s of recording: $(stat -c %s "$tmp/probe.ttr") bytes)"

# --max-size: stops the recording, not threadtop.
"$TT_BIN" -b --format json --source proc -d 0.2 -n 50 -p $wl -w "$tmp/cap.ttr" --max-size ${cap_kib}K \
	>"$tmp/cap.json" 2>"$tmp/cap.err" || fail "exit $? with --max-size: $(cat "$tmp/cap.err")"
[ "$(wc -l <"$tmp/cap.json")" -eq 50 ] || fail "the live output stopped with the recording"
grep -q "reached --max-size" "$tmp/cap.err" || fail "no --max-size message: $(cat "$tmp/cap.err")"
[ "$(grep -c . "$tmp/cap.err")" -eq 1 ] || fail "more than one message: $(cat "$tmp/cap.err")"
[ "$(stat -c %s "$tmp/cap.ttr")" -le $cap ] || fail "the file passed --max-size"
"$TT_BIN" -r "$tmp/cap.ttr" -b --format json >"$tmp/cap.replay" 2>"$tmp/cap.rerr" ||
	fail "the capped file does not replay: $(cat "$tmp/cap.rerr")"
[ "$(wc -l <"$tmp/cap.replay")" -ge 1 ] || fail "nothing replayed from the capped file"

# A full disk: writes fail with EFBIG past the cap (SIGXFSZ ignored, as a
# full disk sends none). Output goes through cat, outside the limit.
(
	trap '' XFSZ
	ulimit -f $cap_kib
	exec "$TT_BIN" -b --format json --source proc -d 0.2 -n 50 -p $wl -w "$tmp/full.ttr" \
		2>"$tmp/full.err"
) | cat >"$tmp/full.json" || fail "exit $? on a full disk: $(cat "$tmp/full.err")"
[ "$(wc -l <"$tmp/full.json")" -eq 50 ] || fail "the live output stopped with the disk full"
grep -q "recording to $tmp/full.ttr stopped at" "$tmp/full.err" ||
	fail "no full-disk message: $(cat "$tmp/full.err")"
"$TT_BIN" -r "$tmp/full.ttr" -b --format json >"$tmp/full.replay" 2>"$tmp/full.rerr" ||
	fail "the file of a full disk does not replay: $(cat "$tmp/full.rerr")"
[ "$(wc -l <"$tmp/full.replay")" -ge 1 ] || fail "nothing replayed from the full-disk file"

# Options that need each other.
rc=0
"$TT_BIN" -b --max-size 1M 2>/dev/null || rc=$?
[ "$rc" -eq 2 ] || fail "--max-size without -w: exit $rc, want 2"
rc=0
"$TT_BIN" -b -w "$tmp/nodir/x.ttr" -n 1 --source proc 2>"$tmp/err" || rc=$?
[ "$rc" -eq 1 ] && grep -q "cannot create the recording" "$tmp/err" || fail "bad -w path: $rc"
echo "ok: --max-size and a full disk stop the recording, not threadtop"
