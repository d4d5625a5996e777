#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# LuaJIT and C stacks together weigh by time (issue #25 item 2): a LuaJIT
# loop sampled every 1 ms (THREADTOP_LUAJIT_INTERVAL=1, which the kernel's
# CPU-time timer achieves at its ticks: every 4 ms at HZ=250) and a C
# burner, both pinned to one CPU so that they split it, under the BPF
# source with the CPU clock at 99 Hz. In the batch NDJSON intervals (all
# but the first two, once both are sampled) each process's share of the
# on-CPU samples, and the C function's self_pct among the hot functions,
# are within 7 points of its share of the two's CPU time (/proc). Counted
# as one sample each, the LuaJIT stacks would hold about 70% of the
# samples; weighed by the interval asked (1 ms), about 20%.
. "$(dirname "$0")/bpf_common.bash"

require_sysprof luajit
command -v taskset >/dev/null || skip "taskset is not installed (util-linux)"

# Both on the first CPU this test may use: the scheduler splits it between them.
cpu=$(taskset -cp $$ | sed 's/.*: *//; s/[-,].*//')
start spinners 1 120
c_pid=$WL
THREADTOP_LUAJIT_INTERVAL=1 start_preloaded_lua "$(dirname "$0")/lib/hot_mix.lua" 1e9
lj_pid=$LJ
taskset -a -cp "$cpu" "$c_pid" >/dev/null || fail "cannot pin spinners to CPU $cpu"
taskset -a -cp "$cpu" "$lj_pid" >/dev/null || fail "cannot pin luajit to CPU $cpu"
wait_threads "$c_pid" 2

# utime + stime of every thread of process $1, in clock ticks.
cpu_ticks() {
	awk '{ sub(/.*\) /, ""); t += $12 + $13 } END { print t + 0 }' /proc/"$1"/task/*/stat
}

c0=$(cpu_ticks "$c_pid")
l0=$(cpu_ticks "$lj_pid")
timeout $((3 * TT_TEST_WAIT)) "$TT_BIN" -b --format json -n 7 -d 1 --source bpf \
	-p "$c_pid,$lj_pid" >"$TMPD/w.ndjson" 2>"$TMPD/err" ||
	fail "threadtop failed: $(tail -n 3 "$TMPD/err")"
c1=$(cpu_ticks "$c_pid")
l1=$(cpu_ticks "$lj_pid")
truth=$(awk -v c=$((c1 - c0)) -v l=$((l1 - l0)) 'BEGIN { printf "%.3f", l / (c + l) }')

# The LuaJIT process's share of the on-CPU samples, and spin_burn's self_pct, from interval 3 on.
read -r lj_n c_n spin_pct lj_interval < <(jq -rs --argjson l "$lj_pid" --argjson c "$c_pid" '
	.[2:] as $iv |
	[$iv[] | .oncpu[] | select(.pid == $l) | .samples] as $lj |
	[$iv[] | .oncpu[] | select(.pid == $c) | .samples] as $cc |
	[$iv[] | .hot_functions[] | select(.name == "spin_burn") | .self_pct] as $sp |
	[$iv[] | .luajit[]? | select(.pid == $l) | .interval_us] as $us |
	"\($lj | add // 0) \($cc | add // 0) \(($sp | add // 0) / ([($sp | length), 1] | max))" +
	" \($us | last // 0)"' "$TMPD/w.ndjson")
echo "# CPU time: luajit $((l1 - l0)), spinners $((c1 - c0)) ticks (luajit $truth);" \
	"on-CPU samples: luajit $lj_n, spinners $c_n; spin_burn self ${spin_pct}%;" \
	"LuaJIT sample every $lj_interval us"
[ "$lj_n" -gt 20 ] || fail "only $lj_n on-CPU samples of the LuaJIT process"
[ "$c_n" -gt 20 ] || fail "only $c_n on-CPU samples of the C burner"
awk -v t="$truth" 'BEGIN { exit !(t >= 0.2 && t <= 0.8) }' ||
	fail "the two did not share the CPU (luajit $truth of it): nothing to compare"
awk -v l="$lj_n" -v c="$c_n" -v t="$truth" 'BEGIN { d = l / (l + c) - t; exit !(d <= 0.07 && d >= -0.07) }' ||
	fail "LuaJIT holds $lj_n of $((lj_n + c_n)) on-CPU samples, its CPU time share is $truth"
awk -v s="$spin_pct" -v t="$truth" 'BEGIN { d = s / 100 - (1 - t); exit !(d <= 0.07 && d >= -0.07) }' ||
	fail "spin_burn's self is ${spin_pct}% of the on-CPU time, its CPU time share $(awk -v t="$truth" 'BEGIN { print 1 - t }')"
echo "ok"
