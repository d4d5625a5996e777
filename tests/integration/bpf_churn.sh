#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Threads and processes exiting mid-sample and mid-unwind, on the BPF source:
# the churn workload (a fork/exit storm and short-lived threads) under the
# thread sampler, on-CPU stacks at 499 Hz and off-CPU tracing for half of
# TT_SOAK_SECONDS (default 10 s). Most stacks belong to processes that are
# gone by the time they are symbolized. threadtop prints every interval,
# sees the churn, holds the same fds, ends cleanly on SIGTERM and reports
# nothing under the sanitizers.
. "$(dirname "$0")/bpf_common.bash"

t_start=$SECONDS
# Progress with the test's clock: a run that ctest times out says how far
# it got (under TCG each phase takes minutes).
say() { echo "$((SECONDS - t_start)) s: $*"; }
secs=$((${TT_SOAK_SECONDS:-20} / 2))
((secs >= 6)) || secs=6
start churn "$((secs + TT_WL_LIFE))"
"$TT_BIN" -b --format json -d 1 --retain 2 --source bpf --cpu-hz 499 --offcpu \
	>"$TMPD/out.json" 2>"$TMPD/err" &
tt=$!
WL_PIDS+=("$tt")
wait_first_line "$TMPD/out.json"
say "first interval printed"
t0=$SECONDS

# The fds it holds for good: the fewest seen over a second (one find a
# look, not a readlink per fd: forks are slow under TCG). Not the fds on
# /proc/PID directories: proc_info keeps one per process of many threads,
# which comes and goes with it (another test's workload, on a shared box;
# "(deleted)" once it has ended, until the next pass lets it go).
fds() {
	local min=100000 n
	for _ in {1..20}; do
		n=$(find /proc/"$tt"/fd -mindepth 1 -printf '%l\n' 2>/dev/null | grep -Evc '^/proc/[0-9]+( \(deleted\))?$')
		((n < min)) && min=$n
		sleep 0.05
	done
	echo "$min"
}
# Its intervals are the clock (a loaded machine's start-up is out): the
# fds after 2 of them and after secs, or after 3 once the test has run 150
# s (where the storm makes each interval long: software emulation), so that
# the checks fit in ctest's 300 s.
wait_lines "$TMPD/out.json" 2 "$tt"
fd0=$(fds)
say "2 intervals, $fd0 fds"
# (wc, not count_lines: the lines are large, and bash's own loop over
# them took a minute a check under TCG.)
soaked() {
	NL=$(wc -l <"$TMPD/out.json")
	((NL >= secs || (NL >= 3 && SECONDS - t_start >= 150))) || ! kill -0 "$tt" 2>/dev/null
}
TT_TEST_WAIT=$((TT_TEST_WAIT + 120)) wait_until "threadtop printed $secs intervals" soaked
kill -0 "$tt" 2>/dev/null || fail "threadtop died under churn: $(tail -5 "$TMPD/err")"
fd1=$(fds)
say "$NL intervals, $fd1 fds"
elapsed=$((SECONDS - t0))
[ "$fd1" -eq "$fd0" ] || fail "fd leak: $fd0 -> $fd1"
kill -TERM "$tt"
wait "$tt" || fail "threadtop exit status $? after SIGTERM: $(tail -5 "$TMPD/err")"
say "threadtop ended on SIGTERM"
grep -Eq 'Sanitizer|runtime error' "$TMPD/err" && fail "sanitizer report: $(head -20 "$TMPD/err")"
# Every interval printed: those after the first cover the time since it
# (a loaded machine may stretch an interval beyond 1 s, not lose one).
# One read of the output (megabytes of intervals: each jq takes long under TCG).
n=$(wc -l <"$TMPD/out.json")
read -r covered seen vanished < <(jq -r -s '[(.[1:] | map(.interval_s) | add // 0 | floor),
	([.[].threads[] | select(.comm == "churn")] | length),
	(map(.dropped.vanished // 0) | add // 0)] | @tsv' "$TMPD/out.json") ||
	fail "threadtop's output is not NDJSON: $(tail -c 300 "$TMPD/out.json")"
((covered >= elapsed - 3)) ||
	fail "$n intervals cover $covered s of $elapsed s: $(jq -r .interval_s "$TMPD/out.json" | tr "\n" " ")"
((seen > 0)) || fail "the churn workload was never sampled"
echo "ok: $n intervals ($covered s of $elapsed s), fds $fd0 -> $fd1, churn rows $seen, vanished $vanished"
