#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The one-pass thread sampler sends threads that have not run since their
# last sample as repeats (TT_EV_THREAD_REPEAT); they must count exactly as
# full samples. Idle threads get the same samples, states, syscalls and
# kernel + user stacks from the whole-box walk as from the -p walk of their
# process alone, a thread that
# wakes is sampled again in its new state (stopped: T), and a recording of a
# repeating run holds full samples only (it replays to the same figures).
. "$(dirname "$0")/bpf_common.bash"

start idle_threads 3 "$TT_WL_LIFE"
idle=$WL
start spin_sleep "$TT_WL_LIFE"
wait_threads "$WL" 3
# On a loaded machine thread creation takes a while: wait until the four
# threads exist and sleep, so that every tick finds them where they stay.
four_asleep() { [ "$(nr_tasks "$idle")" -eq 4 ] && all_asleep "$idle"; }
wait_until "idle_threads did not start its threads" four_asleep

# "tid states syscalls" of the workload's threads in the last interval, and
# whether each was sampled in every tick of it.
rows() {
	tail -n 1 "$1" | jq -r --argjson p "$2" '.threads[] | select(.pid == $p) |
		[.tid, (.samples | keys | join(",")), (.samples_by_syscall | keys | join(","))]
		| join(" ")' | sort
}
every_tick() {
	tail -n 1 "$1" | jq -e --argjson p "$2" '.cost.ticks as $t | [.threads[] |
		select(.pid == $p) | .samples.S == $t] | length == 4 and all' >/dev/null ||
		fail "$1: idle threads not S in every tick: $(tail -n 1 "$1" | jq -c \
			--argjson p "$2" '[.cost.ticks, (.threads[] | select(.pid == $p) | .samples)]')"
}
# The workload's folded thread stacks, each with "ok" when its count is
# the run's tick count (every tick sampled, whether full or repeated). Only
# its own threads: another idle_threads may run on a shared machine.
stacks() {
	local t tids
	t=$(jq -s 'map(.cost.ticks) | add' "$2")
	tids=$(cd /proc/"$idle"/task && echo *)
	grep -E "^idle_threads;idle_threads \[(${tids// /|})\];" "$1" | sed 's/\[[0-9]*\]//' |
		awk -v t="$t" '{ n = $NF; $NF = (n == t ? "ok" : n "/" t); print }' | sort
}

one=$TMPD/one.json
per=$TMPD/per.json
# Frame-pointer stacks: which threads DWARF unwinds within its CPU budget
# depends on how many threads share it (all of the box, or -p) and on the
# machine's speed (a millisecond an unwind under software emulation), so the
# two runs could differ in that. Repeats of DWARF stacks: bpf_repeat_dwarf.
"$TT_BIN" -b --format json -n 2 -d 1 --source bpf --cpu-hz 0 --unwind fp \
	--export "$TMPD/one.folded" --export-format folded --export-by tid --force >"$one" \
	2>"$TMPD/one.err" || fail "default run: $(cat "$TMPD/one.err")"
"$TT_BIN" -b --format json -n 2 -d 1 --source bpf --cpu-hz 0 --unwind fp -p "$idle" \
	--export "$TMPD/per.folded" --export-format folded --export-by tid --force >"$per" \
	2>"$TMPD/per.err" || fail "-p run: $(cat "$TMPD/per.err")"

# Repeats need passes after a thread's first: a few are enough, whatever the
# load took of the 20 asked (7 in an ASan run beside a TCG guest and builds).
ticks=$(tail -n 1 "$one" | jq '.cost.ticks')
[ "$ticks" -ge 4 ] || fail "only $ticks ticks in one interval"
a=$(rows "$one" "$idle")
b=$(rows "$per" "$idle")
[ "$(echo "$a" | wc -l)" -eq 4 ] || fail "expected 4 idle_threads rows (one pass): $a"
[ "$a" = "$b" ] || fail "one pass and per task differ:
one pass: $a
per task: $b"
[ "$(echo "$a" | grep -c ' S read$')" -eq 3 ] || fail "idle threads not S in read: $a"
every_tick "$one" "$idle"
every_tick "$per" "$idle"

# Same kernel and user stacks, every tick, with and without repeats.
sa=$(stacks "$TMPD/one.folded" "$one")
sb=$(stacks "$TMPD/per.folded" "$per")
[ "$(echo "$sa" | grep -c 'pipe_read.* ok$')" -eq 3 ] || fail "no kernel stack in pipe_read: $sa"
[ "$sa" = "$sb" ] || fail "stacks differ:
one pass: $sa
per task: $sb"

# The sleeper wakes 5 times a second: sampled every tick, mostly S (Q when it
# waits for a CPU on a busy machine).
sl=$(tail -n 1 "$one" | jq -c '[.threads[] | select(.comm == "sleeper")][0]')
echo "$sl" | jq -e --argjson t "$ticks" '(.samples | add) == $t and .samples.S >= $t / 2' \
	>/dev/null || fail "sleeper not sampled in each of $ticks ticks, or not S: $sl"

# A repeated thread that wakes (SIGSTOP) is sampled again, now stopped.
out=$TMPD/stop.json
# Stopped once threadtop runs; checked in the first interval wholly after
# every thread was seen stopped, however late that comes.
"$TT_BIN" -b --format json -n 1000 -d 1 --source bpf --cpu-hz 0 >"$out" &
tt=$!
WL_PIDS+=("$tt")
wait_first_line "$out"
kill -STOP "$idle"
all_stopped() {
	local f st
	for f in /proc/"$idle"/task/*/stat; do
		read -r st <"$f" || return 1
		st=${st##*) }
		[ "${st%% *}" = T ] || return 1
	done
}
wait_until "idle_threads did not stop" all_stopped
t_stop=$EPOCHREALTIME
wait_whole_interval "$out" "$tt"
kill -INT "$tt"
wait "$tt" || fail "threadtop failed during the stop run"
kill -CONT "$idle"
i=$(first_after "$out" "$t_stop")
st=$(sed -n "${i}p" "$out" | jq -c --argjson p "$idle" '.cost.ticks as $t |
	[.threads[] | select(.pid == $p) | .samples | . + {ticks: $t}]')
echo "$st" | jq -e 'length == 4 and all(.T >= .ticks - 2 and (.S // 0) == 0)' >/dev/null ||
	fail "stopped threads not T in interval $i: $st"

# Recording: full samples only, and the replay gives the same figures.
rec=$TMPD/rec.ttr
"$TT_BIN" -b --format json -n 2 -d 1 --source bpf --cpu-hz 0 -w "$rec" >"$TMPD/live.json" ||
	fail "recording run failed"
"$TT_BIN" -r "$rec" -b --format json >"$TMPD/replay.json" 2>"$TMPD/replay.err" ||
	fail "replay failed: $(cat "$TMPD/replay.err")"
[ "$(tail -n 1 "$TMPD/live.json" | jq -c .threads)" = \
	"$(tail -n 1 "$TMPD/replay.json" | jq -c .threads)" ] || fail "replay differs from live"
every_tick "$TMPD/replay.json" "$idle"
echo PASS
