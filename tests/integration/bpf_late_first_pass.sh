#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The first pass taken late (a slow machine, a stopped threadtop): the first
# interval counts from where the tracers do, so its figures are per its real
# length. strace holds the exit of the tick timer's timerfd_settime for 2 s,
# after the sums' baseline and before the first pass. The first line then
# lasts the 2 s it covers, no thread is off CPU for longer than it, and the
# off-CPU time per second is the next line's, and on-CPU samples come at
# most at the rate the CPUs give. (The
# interval counted from the late first pass lasted 0.08 s and held 6 s of
# three threads' off-CPU time and 2 s of on-CPU samples.)
. "$(dirname "$0")/bpf_common.bash"
command -v strace >/dev/null || skip "strace is not installed (Debian: strace)"

start pingpong 1000000 100000
pp=$WL
start spin_sleep 100000
sp=$WL
wait_threads "$pp" 2
# LeakSanitizer cannot run under ptrace: an ASan build checks leaks elsewhere.
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
	strace -f -qq -o /dev/null -e trace=timerfd_settime \
	-e inject=timerfd_settime:delay_exit=2000000 \
	"$TT_BIN" -b --format json -n 2 -d 1 --source bpf --offcpu -p "$pp,$sp" \
	>"$TMPD/out.json" 2>"$TMPD/err" || fail "threadtop: $(cat "$TMPD/err")"
jq -c '{interval_s, ticks_missed, offcpu_s: (([.offcpu[]? | .ns] | add // 0) / 1e9),
	oncpu_samples: ([.oncpu[]? | .samples] | add // 0)}' "$TMPD/out.json"
[ "$(wc -l <"$TMPD/out.json")" -eq 2 ] || fail "not two lines: $(cat "$TMPD/err")"
read -r s1 m1 oc1 on1 < <(head -n 1 "$TMPD/out.json" | jq -r '[.interval_s, .ticks_missed,
	(([.offcpu[]? | .ns] | add // 0) / 1e9), ([.oncpu[]? | .samples] | add // 0)] | @tsv')
read -r s2 oc2 on2 < <(tail -n 1 "$TMPD/out.json" | jq -r '[.interval_s,
	(([.offcpu[]? | .ns] | add // 0) / 1e9), ([.oncpu[]? | .samples] | add // 0)] | @tsv')
[ "$m1" -ge 20 ] || fail "the first pass was not late ($m1 ticks missed): strace's delay did not hold it"
awk -v s="$s1" 'BEGIN { exit !(s >= 1.8) }' ||
	fail "the first line lasts $s1 s, not the 2 s since the tracers started"
# No thread is off CPU for longer than the line lasts (a tick's slack).
worst=$(head -n 1 "$TMPD/out.json" | jq -r '[.offcpu[]? | {tid, ns}] | group_by(.tid) |
	map({tid: .[0].tid, s: (map(.ns) | add / 1e9)}) | max_by(.s) // {tid: 0, s: 0} | "\(.tid) \(.s)"')
read -r wtid ws <<<"$worst"
awk -v w="$ws" -v s="$s1" 'BEGIN { exit !(w <= s + 0.06) }' ||
	fail "thread $wtid is off CPU for $ws s in a line of $s1 s"
awk -v a="$oc1" -v s="$s1" -v b="$oc2" -v t="$s2" 'BEGIN { r = (a / s) / (b / t);
	printf "off-CPU s per s: first %.3g, next %.3g\n", a / s, b / t; exit !(r > 0.5 && r < 2) }' ||
	fail "the first line's off-CPU time per second is off the next line's"
# On-CPU samples: at most 99 Hz on each CPU (a fifth of slack for timers).
awk -v a="$on1" -v s="$s1" -v n="$(nproc)" 'BEGIN { printf "on-CPU samples per s: first %.3g (%d CPUs)\n", a / s, n;
	exit !(a / s <= 99 * n * 1.2) }' ||
	fail "the first line holds more on-CPU samples per second than 99 Hz on every CPU gives"
echo PASS
