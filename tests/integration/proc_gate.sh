#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The /proc source's gate on process CPU clocks, on the whole box (the gate
# is off under -p), against workloads with known behaviour that sit still
# long enough to be held by it (a second asleep), then change:
#   - thread_phases' mover: S in read, then (SIGUSR1) S in clock_nanosleep;
#   - a shell asleep in wait4 that then spins: S, then R;
#   - vfork_parent: D all along (held, it must stay D, not turn S).
# The unit test (test_source_proc, gate_sees_every_change) covers the
# thread woken but waiting for a CPU, which no workload here can hold.
set -euo pipefail
command -v jq >/dev/null || { echo "SKIP: jq is not installed"; exit 77; }
[ -r /proc/self/schedstat ] || { echo "SKIP: no schedstat on this kernel: nothing is held"; exit 77; }

fail() { echo "FAIL: $*"; exit 1; }
. "$(dirname "$0")/lib/test_wait.bash"

out=$(mktemp)
pids=()
# The vfork child outlives its parent: killed by its parent's pid (and no
# workload holds ctest's output pipe).
trap 'pkill -P "$vp" 2>/dev/null; kill "${pids[@]}" 2>/dev/null || true; rm -f "$out"' EXIT
vp=0
"$TT_WORKLOADS/thread_phases" "$TT_WL_LIFE" >/dev/null 2>&1 &
phases=$!
pids+=($phases)
"$TT_WORKLOADS/vfork_parent" "$TT_WL_LIFE" >/dev/null 2>&1 &
vp=$!
pids+=($vp)
wait_comms "$phases" mover leaver

"$TT_BIN" -b --format json --source proc --proc-budget 0 -d 1 >"$out" 2>/dev/null &
tt=$!
pids+=($tt)
wait_lines "$out" 1 "$tt"
# The shell spins from 3 s after the first interval, for 60 s.
bash -c 'sleep 3; end=$((SECONDS + 60)); while ((SECONDS < end)); do :; done' >/dev/null 2>&1 &
sh=$!
pids+=($sh)
wait_lines "$out" 4 "$tt" # two intervals asleep: held by now
kill -USR1 "$phases"
n=$(nr_lines "$out")
wait_lines "$out" $((n + 3)) "$tt"
last=$(tail -n 1 "$out")
row() { echo "$last" | jq -c "[.threads[] | select($1)][0]"; }

mover=$(row '.pid == '"$phases"' and .comm == "mover"')
[ "$mover" != null ] || fail "no mover row: $(echo "$last" | jq -c '.cost')"
echo "$mover" | jq -e '(.samples_by_syscall.clock_nanosleep // 0) > 0 and (.samples_by_syscall.read // 0) == 0' \
	>/dev/null || fail "mover not seen moving into clock_nanosleep: $mover"
spin=$(row '.pid == '"$sh")
[ "$spin" != null ] || fail "no row of the spinning shell"
echo "$spin" | jq -e '(.samples.R // 0) + (.samples.Q // 0) > 0.5 * ([.samples[]] | add)' >/dev/null ||
	fail "the shell spins, yet: $spin"
vf=$(row '.pid == '"$vp")
[ "$vf" != null ] || fail "no row of the vfork parent"
echo "$vf" | jq -e '(.samples.D // 0) > 0 and (.samples.S // 0) == 0' >/dev/null ||
	fail "the vfork parent is in D, yet: $vf"
echo "PASS"
