#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Labels on CPU stacks (--export-by label:phase) with real uprobes on the
# label_burn workload, whose thread burns CPU in burn_cpu() for 30 ms under
# phase=A and 10 ms under phase=B, then sleeps 10 ms under phase=C, changing
# phase far faster than the thread sampler ticks: the on-CPU folded export
# shows burn_cpu under both phase=A and phase=B, A holding about three
# quarters; no on-CPU line is "[labels unknown]"; the off-CPU export puts
# the sleep under phase=C; a recording replays to the same on-CPU export.
set -euo pipefail
# shellcheck source=bpf_common.bash
. "$(dirname "$0")/bpf_common.bash"

bin=$(readlink -f "$TT_WORKLOADS/label_burn")
# Burns of CPU time (cpu): the split is 3:1 however much CPU the box gives.
start label_burn "$TT_WL_LIFE" cpu
wait_comms "$WL" burner
# burn_cpu's samples (as the leaf or below it) per phase root.
burn_of() { awk -v p="$1" 'index($0, p ";") == 1 && /;burn_cpu( |;)/ {s += $NF} END {print s + 0}' "$2"; }
# Until 100 samples of burn_cpu (a share of few is noise): a loaded machine
# gives the burner less CPU, so the run doubles until it has them.
n=4
while :; do
	rm -f "$TMPD"/p.*
	"$TT_BIN" -b --format json --source bpf -p "$WL" -n "$n" -d 1 --offcpu \
		--label "phase=$bin:set_phase:str:arg1" -w "$TMPD/p.ttr" \
		--export "$TMPD/p.folded" --export-by label:phase \
		>"$TMPD/live.json" 2>"$TMPD/err" || fail "exit $?: $(cat "$TMPD/err")"
	if grep -q 'phase.*could not\|cannot attach' "$TMPD/err"; then
		echo "SKIP: the label probe did not attach: $(cat "$TMPD/err")"
		exit 77
	fi
	on="$TMPD/p.folded"
	[ -s "$on" ] || fail "no on-CPU export: $(ls "$TMPD")"
	! grep -q '^\[labels unknown\];' "$on" || fail "on-CPU samples without labels: $(head -n 3 "$on")"

	a=$(burn_of phase=A "$on")
	b=$(burn_of phase=B "$on")
	(((a + b) >= 100 || n >= 32)) && break
	echo "$((a + b)) burn_cpu samples in $n s: again for $((2 * n)) s"
	n=$((2 * n))
done
[ "$a" -gt 0 ] || fail "no burn_cpu under phase=A: $(head -n 5 "$on")"
[ "$b" -gt 0 ] || fail "no burn_cpu under phase=B: $(head -n 5 "$on")"
# 30 ms against 10 ms of CPU: A holds 75%; a thread sampler's view (20 Hz)
# would be far off. Wide bounds: the box is shared and sampling is noisy.
share=$((100 * a / (a + b)))
echo "burn_cpu samples: phase=A $a, phase=B $b (A ${share}%)"
[ "$share" -ge 60 ] && [ "$share" -le 90 ] || fail "phase=A holds ${share}% of burn_cpu, not ~75%"
c=$(burn_of phase=C "$on")
[ "$c" -le $(((a + b) / 10)) ] || fail "$c burn_cpu samples under phase=C (it only sleeps)"

# Off-CPU time: the sleep is phase C's.
off="$TMPD/p.offcpu.folded"
[ -s "$off" ] || fail "no off-CPU export: $(ls "$TMPD")"
sleep_c=$(awk 'index($0, "phase=C;") == 1 && /nanosleep/ {s += $NF} END {print s + 0}' "$off")
# Any sleep of the process (the thread's only one): in a release build the
# frame-pointer walk from glibc's clock_nanosleep skips burner's own frame.
sleep_all=$(awk '/;label_burn;.*nanosleep/ {s += $NF} END {print s + 0}' "$off")
[ "$sleep_all" -gt 0 ] || fail "no sleep of label_burn off-CPU: $(head -n 3 "$off")"
[ $((100 * sleep_c / sleep_all)) -ge 90 ] || fail "phase=C holds $sleep_c of $sleep_all ns of sleep"

# The recording carries the labels of CPU samples: the replay exports the same.
"$TT_BIN" -r "$TMPD/p.ttr" -b --format json --export "$TMPD/r.folded" \
	--export-by label:phase >/dev/null 2>"$TMPD/rerr" || fail "replay: $(cat "$TMPD/rerr")"
cmp -s "$on" "$TMPD/r.folded" || fail "the replay exports another on-CPU profile: $(diff "$on" "$TMPD/r.folded" | head)"
echo PASS
