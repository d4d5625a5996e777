#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The thread maps follow the box (issue #23): on a box of 100,000 threads,
# maps sized for 65,536 dropped a third of the threads from the view. The
# loader sizes tt_known and tt_changed for twice the threads present and the
# ring for a full pass over them; THREADTOP_TEST_BOX_THREADS (a testing knob)
# makes it believe the box has that many, so that the big maps load and run
# here without creating them (tests/bench/many_threads.sh does, for real).
. "$(dirname "$0")/bpf_common.bash"

start idle_threads 50 "$TT_WL_LIFE"
wl=$WL
wait_threads "$wl" 51
wait_until "idle_threads' threads asleep" all_asleep "$wl"

# run NAME [ENV...]: a batch run of -p the workload, its output in $TMPD/NAME.*
run() {
	local name=$1
	shift
	env "$@" "$TT_BIN" -b --format json -n 3 -d 0.5 --source bpf --cpu-hz 0 -p "$wl" \
		--log "$TMPD/$name.log" >"$TMPD/$name.json" 2>"$TMPD/$name.err" ||
		fail "$name: threadtop failed: $(cat "$TMPD/$name.err")"
	# Every thread of the workload at every tick, nothing dropped.
	jq -se --argjson wl "$wl" 'length == 3 and all(
		([.threads[] | select(.pid == $wl) | .samples | add // 0] | add // 0) == 51 * .cost.ticks
		and .dropped.map_full == 0 and .dropped.ringbuf_full == 0)' "$TMPD/$name.json" >/dev/null ||
		fail "$name: not every thread at every tick: $(jq -c '[.cost.ticks, .dropped]' "$TMPD/$name.json" | tr '\n' ' ')"
}

run big THREADTOP_TEST_BOX_THREADS=100000
line=$(grep -o 'thread maps sized for .*' "$TMPD/big.log") ||
	fail "no word of the maps' sizes in --log: $(cat "$TMPD/big.log")"
# Twice 100,000 rounded up to a power of two; the ring holds a full pass over
# half of that (131,072 samples, 18 MB): 32 MiB.
[[ "$line" =~ ^"thread maps sized for 262144 threads: "[0-9]+" tt_last slots, a 32 MiB ring buffer"$ ]] ||
	fail "100,000 threads: unexpected sizes: $line"
echo "100,000 threads: $line"

# A box of this size keeps the default maps, and says nothing of them.
threads=$(cut -d/ -f2 /proc/loadavg | cut -d' ' -f1)
if ((threads < 30000)); then
	run small
	grep -q 'thread maps sized' "$TMPD/small.log" &&
		fail "$threads threads: the maps were resized: $(grep 'sized' "$TMPD/small.log")"
fi
echo "ok: the thread maps follow the threads of the box"
