#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# A fork/exit and thread-churn storm under threadtop for TT_SOAK_SECONDS
# (default 20): threadtop keeps running, its open fds stay the same and its
# memory stays flat (the thread table ages out exited threads; checked only
# outside ASan, whose quarantine holds freed memory on purpose).
set -euo pipefail
fail() { echo "FAIL: $*"; exit 1; }
. "$(dirname "$0")/lib/test_wait.bash"
secs=${TT_SOAK_SECONDS:-20}
out=$(mktemp)

"$TT_WORKLOADS/churn" "$((secs + TT_WL_LIFE))" &
wl=$!
# Exited threads leave the model after --retain seconds: 2 here, so the
# steady state comes within the run. Its intervals are the clock: a loaded
# machine delays them, not what is measured.
"$TT_BIN" -b --format json -d 1 --retain 2 --source proc >"$out" &
tt=$!
trap 'kill $wl $tt 2>/dev/null || true; rm -f "$out"' EXIT

# The sampler opens /proc files for a moment on every tick: the fds it holds
# for good are the fewest seen over a second.
sample() { # fds rss_kb
	local min=100000 n
	for _ in $(seq 20); do
		n=$(ls /proc/$tt/fd | wc -l)
		[ "$n" -lt "$min" ] && min=$n
		sleep 0.05
	done
	echo "$min $(awk '/^VmRSS/ { print $2 }' /proc/$tt/status)"
}
wait_lines "$out" 6 "$tt"
read -r fd0 rss0 < <(sample)
wait_lines "$out" "$secs" "$tt"
kill -0 $tt 2>/dev/null || fail "threadtop died under churn"
read -r fd1 rss1 < <(sample)
echo "fds $fd0 -> $fd1, rss ${rss0} kB -> ${rss1} kB over $(($(nr_lines "$out") - 6)) intervals of churn"
[ "$fd1" -eq "$fd0" ] || fail "fd leak: $fd0 -> $fd1"
if [ -z "${ASAN_OPTIONS:-}" ]; then
	[ "$rss1" -le $((rss0 * 3 / 2 + 2048)) ] || fail "memory grew: $rss0 -> $rss1 kB"
fi
kill -TERM $tt
wait $tt || fail "threadtop exit status $? after SIGTERM"
echo PASS
