#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The one-pass thread sampler walks the thread list at the start (and every
# 30 s); the other passes recheck only the threads woken since the pass
# before (with THREADTOP_TEST_NO_WAKEUPS=1, bpf_known_reread.sh: they re-read
# every thread known, and walk when a task was created). Those passes must
# see what a walk sees: a thread that wakes and changes its syscall, a thread
# that exits, and a thread created mid-run, each in every tick. This script
# forks nothing while threadtop runs, so the box creates no task but ours.
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

# No fork while threadtop runs: the waits below use builtins only.
_nap() { pause_s 0.1; }
# thread_is PID COMM STATE: a thread of PID named COMM is in STATE.
thread_is() {
	local t c st
	for t in /proc/"$1"/task/*; do
		read -r c <"$t/comm" 2>/dev/null || continue
		[ "$c" = "$2" ] || continue
		read -r st <"$t/stat" 2>/dev/null || continue
		st=${st##*) }
		[ "${st%% *}" = "$3" ] && return 0
	done
	return 1
}
tasks_are() { count_tasks "$1" && ((NT == $2)); }
moved() { tasks_are "$wl" 2 && thread_is "$wl" mover S; }
newcome() { tasks_are "$wl" 3 && thread_is "$wl" newcomer S; }

start thread_phases "$TT_WL_LIFE"
wl=$WL
wait_threads "$wl" 3
wait_until "thread_phases' threads asleep" all_asleep "$wl"

out=$TMPD/out.json
pid0=$(last_pid)
# No walk but those a new task starts: the passes between are on their own.
# Each change is checked in the first interval that starts after the
# workload is seen changed (its "time" is its end), however late the first
# interval comes and however long the workload takes to change.
THREADTOP_TEST_WALK_EVERY=1000000 "$TT_BIN" -b --format json -n 1000 -d 1 --source bpf \
	--cpu-hz 0 --log "$TMPD/log" >"$out" 2>"$TMPD/err" &
tt=$!
WL_PIDS+=("$tt")
wait_until "threadtop printed nothing" lines_ge "$out" 1
kill -USR1 "$wl"
wait_until "the mover did not move, the leaver did not leave" moved
t_moved=$EPOCHREALTIME
count_lines "$out"
# The interval in progress, one ended but not printed yet, then a whole one.
wait_until "threadtop stopped printing" lines_ge "$out" $((NL + 3))
kill -USR2 "$wl"
wait_until "no newcomer in pause" newcome
t_new=$EPOCHREALTIME
count_lines "$out"
wait_until "threadtop stopped printing" lines_ge "$out" $((NL + 3))
kill -INT "$tt"
wait "$tt" || fail "threadtop failed: $(cat "$TMPD/err")"
created=$(($(last_pid) - pid0))

i_moved=$(first_after "$out" "$t_moved")
i_new=$(first_after "$out" "$t_new")
echo "intervals: $(wc -l <"$out"); checked: 1, $i_moved (moved), $i_new (newcomer)"

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
t=$(ticks_in "$i_moved")
moved=$(threads_in "$i_moved")
[ "$moved" = "mover clock_nanosleep:$t / thread_phases rt_sigtimedwait:$t" ] ||
	fail "interval $i_moved, after SIGUSR1 (mover in clock_nanosleep, leaver gone): $moved (ticks $t)"
t=$(ticks_in "$i_new")
final=$(threads_in "$i_new")
[ "$final" = "mover clock_nanosleep:$t / newcomer pause:$t / thread_phases rt_sigtimedwait:$t" ] ||
	fail "interval $i_new, after SIGUSR2 (a newcomer in pause): $final (ticks $t)"

# What follows is each sampler's own: the one-pass sampler's known-threads
# passes (6.7+), or the per-task iterator's repeats (before 6.7, or with
# THREADTOP_TEST_NO_KFUNC): on a box of sleepers most of what it sends must
# be repeats of unchanged threads, sorted in the kernel.
if line=$(grep -o "thread sampler: the per-task iterator ran.*" "$TMPD/log"); then
	kernel_has_kfunc bpf_iter_task_new && [ -z "${THREADTOP_TEST_NO_KFUNC:-}" ] &&
		fail "the per-task iterator sampled on a kernel with the one-pass sampler's kfuncs: $line"
	grep -q "this kernel has no kfunc" "$TMPD/log" || fail "the fallback is not in the log: $(cat "$TMPD/log")"
	read -r repeats full < <(echo "$line" | sed -E 's/.* sent ([0-9]+) repeats.* and ([0-9]+) full.*/\1 \2/')
	echo "$line"
	[ "$repeats" -ge "$full" ] ||
		fail "most of what the per-task iterator sends should be repeats on a box of sleepers: $line"
	# With the wakeup hooks most repeats are of threads asleep and unwoken,
	# found so on their wakeup mark without reading the thread (woken.bpf.h).
	[ -n "${THREADTOP_TEST_NO_WAKEUPS:-}" ] && exit 0
	[[ $line == *"the wakeup hooks ran"* ]] || fail "the per-task iterator ran without the \
wakeup hooks: $(grep -m1 'sched_wakeup hooks' "$TMPD/log") $line"
	unwoken=$(echo "$line" | sed -E 's/.*repeats of unchanged threads \(([0-9]+) of threads asleep.*/\1/')
	[ "$unwoken" -ge $((repeats / 2)) ] ||
		fail "most repeats should be of threads asleep and unwoken: $line"
	exit 0
fi
line=$(grep "thread sampler:" "$TMPD/log") || fail "no pass counts in the log: $(cat "$TMPD/log")"
echo "$line (tasks created on the box meanwhile: $created)"
# With the wakeup hooks a new task is a wakeup, not a walk: most passes
# recheck only the woken threads' blocks, however much the box forks.
if [[ $line == *"only the blocks of woken threads"* ]]; then
	re='.* ([0-9]+) passes walked.* after ([0-9]+) overruns.* ([0-9]+) only the blocks of woken.*'
	read -r walks overruns woken < <(echo "$line" | sed -E "s/$re/\\1 \\2 \\3/")
	[ "$woken" -ge $(((walks + woken) * 9 / 10)) ] && exit 0
	# A ring holds 4096 wakeups a CPU between passes: a box that wakes more
	# (a loaded CI box's other work: 58 overruns in 141 passes) makes them walk.
	[ "$((overruns * 2))" -ge "$walks" ] && skip "the box woke threads faster than the wakeup \
rings hold between passes ($overruns overruns): the passes walked, so the woken-only passes were \
not tested ($line)"
	fail "most passes should recheck only woken threads: $line"
fi
[ -n "${THREADTOP_TEST_NO_WAKEUPS:-}" ] || fail "the one-pass sampler ran without its wakeup \
hooks: $(grep -m1 'sched_wakeup hooks' "$TMPD/log") $line"
read -r walks rereads < <(echo "$line" | sed -E 's/.* ([0-9]+) passes walked.* ([0-9]+) re-read .*/\1 \2/')
[ "$rereads" -ge $(((walks + rereads) / 2)) ] && exit 0
# Our own: threadtop's threads, the newcomer. More means something else forks;
# fewer than none, that the pids wrapped (pid_max reached) meanwhile.
[ "$created" -lt 0 ] && skip "the pids wrapped during the run (last pid went back by \
$((-created))): tasks were created, the passes walked the thread list ($line)"
[ "$created" -le 12 ] || skip "the box created $created tasks during the run: the passes walked \
the thread list, so the re-reading passes were not tested ($line)"
fail "most passes should re-read the known threads on a box that creates no task: $line"
