#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The resident memory of a process of many threads moves every second in
# batch JSON, as it does in the kernel: 3,000 idle threads whose main thread
# touches 4 MB more each second. Its /proc/PID/stat, which the kernel sums
# over every thread, is read only every few seconds; statm gives the memory
# in between. At least 3 of the 5 steps between 6 intervals must show more
# than the one before (the stat alone, every 3 s for 3,000 threads, moves in
# 2 at most; a loaded machine may delay the workload's growth or put two
# descriptions in one interval), and the last must be within what the
# process grew since of /proc/PID/statm read right after.
set -u
: "${TT_BIN:?}" "${TT_WORKLOADS:?}"
. "$(dirname "$0")/lib/test_wait.bash"
command -v python3 >/dev/null || {
	echo "SKIP: python3 is not installed"
	exit 77
}
fail() {
	echo "FAIL: $*"
	exit 1
}
out=$(mktemp)
WL=
cleanup() {
	[ -n "$WL" ] && kill "$WL" 2>/dev/null
	rm -f "$out"
}
trap cleanup EXIT

N=3000
"$TT_WORKLOADS/idle_threads" "$N" "$TT_WL_LIFE" 4 &
WL=$!
wait_until "$N threads" eval '[ "$(ls "/proc/$WL/task" | wc -l)" -gt "$N" ]'

"$TT_BIN" -b --format json -d 1 -n 6 -p "$WL" >"$out" 2>/dev/null || fail "threadtop failed"
statm=$(awk '{print $2}' "/proc/$WL/statm")

python3 - "$out" "$WL" "$statm" <<'PY' || exit 1
import json, os, sys
path, pid, statm = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
now = statm * os.sysconf("SC_PAGE_SIZE")
rss = []
for line in open(path):
    if not line.strip():
        continue
    d = json.loads(line)
    main = [t for t in d["threads"] if t["tid"] == pid]
    if not main:
        sys.exit("FAIL: interval %s has no main thread" % d["time"])
    rss.append(main[0]["rss_bytes"])
mb = [r >> 20 for r in rss]
if len(rss) < 6:
    sys.exit("FAIL: %d intervals, want 6" % len(rss))
ups = sum(b > a for a, b in zip(rss, rss[1:]))
if ups < 3:
    sys.exit("FAIL: the resident memory moved in %d of 5 steps, want 3 at least (MB: %s)" % (ups, mb))
# The last description is at most a second and a pass old (4 MB); 16 more for a slow exit.
if not (0 <= now - rss[-1] <= 20 << 20):
    sys.exit("FAIL: last rss %d MB, /proc/%d/statm then %d MB (MB: %s)" %
             (rss[-1] >> 20, pid, now >> 20, mb))
print("rss by interval, MB: %s; statm after: %d MB" % (mb, now >> 20))
PY
echo "PASS: batch_rss_threads"
