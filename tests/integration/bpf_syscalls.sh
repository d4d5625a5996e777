#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# --syscalls counts exactly: a workload making 100000 getppid calls is
# reported with exactly 100000. A storm of 2000 short-lived threads leaves no
# entries of the dead in the kernel maps (--syscalls --offcpu).
. "$(dirname "$0")/bpf_common.bash"

N=100000
start getppid_loop $N "$TMPD/go" "$TT_WL_LIFE"
wl=$WL
out=$TMPD/sc.json
# Runs until the calls are made and a whole interval has passed since: under
# load they take longer than a fixed run would last.
"$TT_BIN" -b --format json -n 1000 -d 0.5 --source bpf --syscalls --bpf-stats on --cpu-hz 0 \
	-p "$wl" >"$out" &
tt=$!
WL_PIDS+=("$tt")
wait_first_line "$out"
touch "$TMPD/go"
wait_until "getppid_loop did not make its calls" test -s "$TMPD/getppid_loop.out"
wait_whole_interval "$out" "$tt"
kill -INT "$tt"
wait "$tt" || fail "threadtop exit $?"
count=$(sum_lines "$out" '[.threads[].syscalls.getppid.count // 0] | add // 0')
[ "$count" -eq $N ] || fail "getppid counted $count times, made $N: $(grep getppid "$out" | head -3)"
ns=$(sum_lines "$out" '[.threads[].syscalls.getppid.total_ns // 0] | add // 0')
[ "$ns" -gt 0 ] || fail "getppid total_ns is 0"
jq -e '.bpf_stats.sys_enter.run_cnt > 0 and .bpf_stats.sys_exit.run_cnt > 0' <(tail -n 1 "$out") \
	>/dev/null || fail "bpf_stats lacks the syscall programs: $(tail -n 1 "$out" | jq -c .bpf_stats)"

# Thread storm: the maps hold entries of live threads only once the dead are drained,
# and the live main thread, which waits in pthread_join on a new thread each time,
# blocks at one call site, not at one per thread it joined.
start thread_storm 2000 "$TMPD/storm_go" "$TT_WL_LIFE" done
storm=$WL
out=$TMPD/storm.json
"$TT_BIN" -b --format json -d 0.5 --source bpf --syscalls --offcpu --cpu-hz 0 -p "$storm" \
	>"$out" &
tt=$!
WL_PIDS+=("$tt")
wait_first_line "$out"
touch "$TMPD/storm_go"
wait_until "the thread storm did not end" test -s "$TMPD/thread_storm.out"
# Then two drains (two whole intervals) must clear the dead.
wait_whole_interval "$out" "$tt"
wait_lines "$out" $(($(nr_lines "$out") + 1)) "$tt"
map_ids=$(grep -h '^map_id:' /proc/$tt/fdinfo/* 2>/dev/null | awk '{print $2}' | sort -u)
entries=0 dead=0
for id in $map_ids; do
	name=$(bpftool -j map show id "$id" | jq -r .name)
	case "$name" in
	tt_sc_stats | tt_oc_agg)
		# Both keys have the thread as .tid; tt_oc_agg's has the process as .pid.
		tids=$(bpftool -j map dump id "$id" | jq -r '.[] | (.formatted.key // .key) | .tid')
		n=$(echo "$tids" | grep -c . || true)
		d=0
		for t in $tids; do
			[ -d "/proc/$storm/task/$t" ] || d=$((d + 1))
		done
		echo "map $name: $n entries, $d of exited threads"
		entries=$((entries + n)) dead=$((dead + d))
		;;
	esac
done
kill -INT "$tt"
wait "$tt" || true
threads=$(sum_lines "$out" '[.threads[].syscalls.getppid.count // 0] | add // 0')
[ "$threads" -ge 1000 ] || fail "storm: only $threads getppid calls seen of 2000"
[ "$dead" -eq 0 ] || fail "storm: $dead map entries of exited threads left"
# The main thread lives on: a dozen syscalls and a dozen blocking sites, not one per join.
[ "$entries" -le 60 ] || fail "storm: $entries map entries left for the live main thread"
echo PASS
