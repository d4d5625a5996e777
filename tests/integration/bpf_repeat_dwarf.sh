#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# A recording with --unwind dwarf keeps the DWARF stack of a thread that
# sleeps through many ticks. The one-pass sampler reports such a thread as a
# repeat; the recorder writes each repeat as the full sample it stands for,
# and that sample must carry the thread's DWARF-unwound user stack, not the
# frame-pointer one the kernel walked. The live view of a recording run
# counts those samples too: it shows the DWARF chain in every tick after the
# sleeper's first DWARF stack, and the replay shows exactly what it did. The sleeper is the symchain workload built
# without frame pointers (under a name of its own), so only DWARF finds
# main -> ... -> pause.
# A pass copies at most 64 stacks of threads off CPU, and a busy machine
# changes more threads than that, so the test stops and continues the
# sleeper once the run has started (its next full sample comes with a stack
# copy), and tries again when the live run got no DWARF stack of it at all.
. "$(dirname "$0")/bpf_common.bash"

cp "$TT_WORKLOADS/symchain_nofp" "$TMPD/ttsleep_nofp" # the library comes by absolute RUNPATH
"$TMPD/ttsleep_nofp" wait >/dev/null 2>&1 &
sleeper=$!
WL_PIDS+=("$sleeper")
state_is() { # PID STATE
	local st
	read -r st <"/proc/$1/stat" || return 1
	st=${st##*) }
	[ "${st%% *}" = "$2" ]
}
wait_until "the sleeper did not go to sleep" state_is "$sleeper" S
CHAIN='main;chain_exe_1;chain_lib_2;chain_lib_3;chain_exe_leaf;pause'
sleeper_stacks() { grep '^ttsleep_nofp;' "$1" | sort || true; }

rec=$TMPD/rec.ttr
for try in 1 2 3 4; do
	rm -f "$rec" "$TMPD/live.folded"
	# The whole of a core for DWARF (bpf_unwind checks the budget): under
	# TCG (~1 ms an unwind) the default 1% gave the sleeper no DWARF stack
	# in 4 runs on 6.12.118.
	"$TT_BIN" -b --format json -n 1000 -d 1 --source bpf --cpu-hz 0 --unwind dwarf -w "$rec" \
		--unwind-budget 100 --export "$TMPD/live.folded" >"$TMPD/live.json" 2>"$TMPD/live.err" &
	tt=$!
	WL_PIDS+=("$tt")
	# The first interval is out (loading and the first passes take long under ASan).
	wait_first_line "$TMPD/live.json"
	kill -STOP "$sleeper"
	wait_until "the sleeper did not stop" state_is "$sleeper" T
	kill -CONT "$sleeper"
	wait_until "the sleeper did not sleep again" state_is "$sleeper" S
	# Then a whole interval, however late it comes.
	wait_whole_interval "$TMPD/live.json" "$tt"
	kill -INT "$tt"
	wait "$tt" || fail "recording run: $(cat "$TMPD/live.err")"
	# (Not a bare pipeline: under pipefail a grep that finds no chain ended
	# the test here, silently, instead of trying again.)
	ticks=$(tail -n 1 "$TMPD/live.json" | jq .cost.ticks) ||
		fail "the recording run's last line is not an interval: $(tail -c 300 "$TMPD/live.json")"
	live=$(sleeper_stacks "$TMPD/live.folded")
	chained=$(echo "$live" | { grep -F -- "$CHAIN" || true; } | awk '{n += $NF} END {print n + 0}')
	[ "$chained" -ge 1 ] && break
	echo "try $try: the sleeper's stack copies were all capped; again"
done
[ "$chained" -ge 1 ] || skip "the sleeper's stack was never copied in 4 runs (over 64 threads off CPU change per pass here)"
# From its first DWARF stack on (after SIGCONT), every tick: the last
# interval's at least.
[ "$chained" -ge "$ticks" ] || fail "$chained live samples of the sleeper with its DWARF chain, $ticks expected
(repeats sent with frame-pointer stacks?):
$live"

"$TT_BIN" -r "$rec" -b --format json --export "$TMPD/replay.folded" >/dev/null \
	2>"$TMPD/replay.err" || fail "replay: $(cat "$TMPD/replay.err")"
replay=$(sleeper_stacks "$TMPD/replay.folded")
[ "$live" = "$replay" ] || fail "the replay's stacks of the sleeper differ from the live run's
(repeats recorded with frame-pointer stacks?):
live:
$live
replay:
$replay"
echo PASS
