#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The ring buffer full. THREADTOP_TEST_RINGBUF_KB=8 (a testing knob) makes
# the BPF ring hold about one batch of thread samples, so the first passes
# over 300 idle threads overflow it: the drops are counted by reason in the
# batch JSON ("dropped": {"ringbuf_full": N records}), and the view recovers:
# a thread whose sample the ring refused is sampled in full again next pass,
# and never repeated from a sample user space did not get. Once each thread
# has been through, it travels as a repeat, which fits: every thread is
# counted at every tick again, with no drop. With the default ring the same
# run drops nothing from the start. How many passes the recovery takes is
# the machine's (20 at 20 Hz here, more where each pass sends less: 6.12
# under TCG still dropped at its 7th): the small-ring run goes on until two
# intervals in a row count every thread at every tick, TT_TEST_WAIT at most.
. "$(dirname "$0")/bpf_common.bash"

start idle_threads 300 "$TT_WL_LIFE"
wl=$WL
wait_threads "$wl" 301
wait_until "idle_threads' threads asleep" all_asleep "$wl"

# wl_samples FILE: per line, the samples of the workload's threads in that interval.
wl_samples() { jq -c "[.threads[] | select(.pid == $wl) | .samples | add // 0] | add // 0" "$1"; }

# whole: the jq test that an interval counts every thread at every tick
# and refused nothing.
whole='([.threads[] | select(.pid == $wl) | .samples | add // 0] | add // 0) == 301 * .cost.ticks
	and .dropped.ringbuf_full == 0'
THREADTOP_TEST_RINGBUF_KB=8 "$TT_BIN" -b --format json -d 0.5 --source bpf --cpu-hz 0 \
	-p "$wl" >"$TMPD/small.json" 2>"$TMPD/small.err" &
tt=$!
seen=0
recovered() { # the last two intervals, from the third on, are whole
	count_lines "$TMPD/small.json"
	((NL >= 4 && NL > seen)) || { kill -0 "$tt" 2>/dev/null || return 0; return 1; }
	seen=$NL
	printf %s "${_lines[@]:NL-2:2}" | jq -se --argjson wl "$wl" "all($whole)" >/dev/null
}
wait_until "two whole intervals in a row with the small ring" recovered
kill -0 "$tt" 2>/dev/null || fail "small ring run failed: $(cat "$TMPD/small.err")"
stop_tt "$tt"
count_lines "$TMPD/small.json"
printf %s "${_lines[@]:0:NL}" >"$TMPD/small.whole.json" # not a line cut by SIGINT
mv "$TMPD/small.whole.json" "$TMPD/small.json"
grep -q "THREADTOP_TEST_RINGBUF_KB" "$TMPD/small.err" || fail "no note about the testing ring size"
drops=$(jq -c '.dropped.ringbuf_full' "$TMPD/small.json" | tr '\n' ' ')
samples=$(wl_samples "$TMPD/small.json" | tr '\n' ' ')
ticks=$(jq -c '.cost.ticks' "$TMPD/small.json" | tr '\n' ' ')
echo "small ring: ringbuf_full per interval: $drops; workload samples: $samples; ticks: $ticks"
jq -e '.dropped | has("ringbuf_full") and has("map_full") and has("vanished") and has("read_error")' \
	"$TMPD/small.json" >/dev/null || fail "dropped lacks a reason: $(jq -c .dropped "$TMPD/small.json")"
total_drops=$(sum_lines "$TMPD/small.json" '.dropped.ringbuf_full')
((total_drops > 0)) || fail "no ringbuf_full drop counted with an 8 KiB ring: $drops"
# Once every one of the 301 threads has come through, the last two intervals
# count each thread at each tick (a thread left repeating a sample that
# never arrived would be missing in every one: the wait above fails), and
# nothing is refused.
jq -se --argjson wl "$wl" ".[-2:] | all($whole)" "$TMPD/small.json" >/dev/null ||
	fail "the view did not recover from the small ring's drops: samples $samples, ticks $ticks, drops $drops"

# The default ring holds the same load without a drop.
"$TT_BIN" -b --format json -n 2 -d 0.5 --source bpf --cpu-hz 0 -p "$wl" >"$TMPD/big.json" 2>/dev/null ||
	fail "default run failed"
jq -se 'all(.dropped.ringbuf_full == 0)' "$TMPD/big.json" >/dev/null ||
	fail "drops with the default ring: $(jq -c .dropped "$TMPD/big.json" | tr '\n' ' ')"
jq -se --argjson wl "$wl" 'all(([.threads[] | select(.pid == $wl) | .samples | add // 0] | add // 0)
	== 301 * .cost.ticks)' "$TMPD/big.json" >/dev/null ||
	fail "the default ring missed samples: $(wl_samples "$TMPD/big.json" | tr '\n' ' ')"
echo "ok: ringbuf_full counted ($total_drops), then every thread at every tick"
