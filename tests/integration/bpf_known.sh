#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The one-pass thread sampler walks the thread list only when a task was
# created (or once a second); the other passes re-read the threads it knows.
# Those passes must see what a walk sees: a thread that wakes and changes
# its syscall, a thread that exits, and (through the walk that a new pid
# starts) a thread created mid-run, each in every tick. This script forks
# nothing while threadtop runs, so the box creates no task but ours.
. "$(dirname "$0")/bpf_common.bash"

last_pid() {
	local a b c d p
	read -r a b c d p </proc/loadavg
	echo "$p"
}
# Sleeps without a fork: a read that times out on a FIFO nobody writes.
mkfifo "$TMPD/never"
exec {never}<>"$TMPD/never"
pause_s() {
	read -r -t "$1" -u "$never" _ || true
}

start thread_phases 60
wl=$WL
wait_threads "$wl" 3

out=$TMPD/out.json
pid0=$(last_pid)
# No walk but those a new task starts: the passes between are on their own.
THREADTOP_TEST_WALK_EVERY=1000000 "$TT_BIN" -b --format json -n 6 -d 1 --source bpf --cpu-hz 0 \
	--log "$TMPD/log" >"$out" 2>"$TMPD/err" &
tt=$!
for _ in $(seq 200); do
	[ -s "$out" ] && break
	pause_s 0.1
done
[ -s "$out" ] || fail "threadtop printed nothing in 20 s: $(cat "$TMPD/err")"
# The first second is out: the mover wakes in the third, the newcomer starts in the fifth.
pause_s 1.5
kill -USR1 "$wl"
pause_s 2
kill -USR2 "$wl"
wait "$tt" || fail "threadtop failed: $(cat "$TMPD/err")"
created=$(($(last_pid) - pid0))

# "comm syscall:count,..." of the workload's threads in interval $1 (1-based).
threads_in() {
	sed -n "${1}p" "$out" | jq -r --argjson p "$wl" '[.threads[] | select(.pid == $p) |
		"\(.comm) \(.samples_by_syscall | to_entries | map("\(.key):\(.value)") | join(","))"]
		| sort | join(" / ")'
}
ticks_in() {
	sed -n "${1}p" "$out" | jq '.cost.ticks'
}

first=$(threads_in 1)
t=$(ticks_in 1)
[ "$first" = "leaver read:$t / mover read:$t / thread_phases rt_sigtimedwait:$t" ] ||
	fail "first second: $first (ticks $t)"
t=$(ticks_in 4)
moved=$(threads_in 4)
[ "$moved" = "mover clock_nanosleep:$t / thread_phases rt_sigtimedwait:$t" ] ||
	fail "fourth second, after SIGUSR1 (mover in clock_nanosleep, leaver gone): $moved (ticks $t)"
t=$(ticks_in 6)
final=$(threads_in 6)
[ "$final" = "mover clock_nanosleep:$t / newcomer pause:$t / thread_phases rt_sigtimedwait:$t" ] ||
	fail "last second, after SIGUSR2 (a newcomer in pause): $final (ticks $t)"

line=$(grep "thread sampler:" "$TMPD/log") || fail "no pass counts in the log: $(cat "$TMPD/log")"
read -r walks rereads < <(echo "$line" | sed -E 's/.* ([0-9]+) passes walked.* ([0-9]+) re-read .*/\1 \2/')
echo "$line (tasks created on the box meanwhile: $created)"
[ "$rereads" -ge $(((walks + rereads) / 2)) ] && exit 0
# Our own: threadtop's threads, the newcomer. More means something else forks.
[ "$created" -le 12 ] || skip "the box created $created tasks during the run: the passes walked \
the thread list, so the re-reading passes were not tested ($line)"
fail "most passes should re-read the known threads on a box that creates no task: $line"
