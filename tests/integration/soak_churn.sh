#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# A fork/exit and thread-churn storm under threadtop for TT_SOAK_SECONDS
# (default 20): threadtop keeps running, its open fds stay the same and its
# memory stays flat (the thread table ages out exited threads; checked only
# outside ASan, whose quarantine holds freed memory on purpose).
set -euo pipefail
fail() { echo "FAIL: $*"; exit 1; }
# A command that fails under set -e ends the test: say which.
trap 'echo "FAIL: line $LINENO: \"$BASH_COMMAND\" exited $?"' ERR
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
# for good are the fewest seen over a second. It also keeps some open per
# live thread (schedstat and stat; syscall and wchan while it is read in
# full: source_proc.c's kept_names) and one per process (its task
# directory; proc_info's on the /proc directory of a process of many
# threads; "(deleted)" once the process has ended), which come and go with
# them: those are counted apart, and the ones whose thread or process is
# gone (not yet swept, at most a pass's worth) are the stale. A tick's fd can close between the glob and its
# readlink: that fd is not counted, and never fails the pipeline (it ended
# a CI run's test silently, the last readlink's status being pipefail's).
kept_re='^/proc/[0-9]+(/task(/[0-9]+/(schedstat|stat|syscall|wchan))?)?( \(deleted\))?$'
sample() { # fds rss_kb stale
	local min=100000 n stale=0 f t
	for _ in $(seq 20); do
		n=$(for f in "/proc/$tt/fd/"*; do readlink "$f" || true; done 2>/dev/null |
			grep -Evc "$kept_re" || true)
		[ "$n" -lt "$min" ] && min=$n
		sleep 0.05
	done
	for f in "/proc/$tt/fd/"*; do
		t=$(readlink "$f" 2>/dev/null) || continue
		[[ $t =~ $kept_re ]] && ! [ -e "$t" ] && stale=$((stale + 1))
	done
	echo "$min $(awk '/^VmRSS/ { print $2 }' /proc/$tt/status) $stale"
}
wait_lines "$out" 6 "$tt"
read -r fd0 rss0 _ < <(sample)
wait_lines "$out" "$secs" "$tt"
kill -0 $tt 2>/dev/null || fail "threadtop died under churn"
read -r fd1 rss1 stale < <(sample)
echo "fds $fd0 -> $fd1 (+ kept per thread and process; $stale stale), rss ${rss0} kB -> ${rss1} kB over $(($(nr_lines "$out") - 6)) intervals of churn"
[ "$fd1" -eq "$fd0" ] || fail "fd leak: $fd0 -> $fd1"
[ "$stale" -le 64 ] || fail "fd leak: $stale fds kept for threads or processes gone"
if [ -z "${ASAN_OPTIONS:-}" ]; then
	[ "$rss1" -le $((rss0 * 3 / 2 + 2048)) ] || fail "memory grew: $rss0 -> $rss1 kB"
fi
kill -TERM $tt
wait $tt || fail "threadtop exit status $? after SIGTERM"
echo PASS
