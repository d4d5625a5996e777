#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Application labels (--label): a program reports wait events through
# begin_wait(event)/end_wait(); while its threads are inside, their samples
# carry the event name, and the split by label matches the time spent there;
# after end_wait the label is gone; a scope label holds only inside its
# function; a label on a missing function is reported and the run goes on; a
# label value with an escape sequence comes out escaped.
set -euo pipefail
[ "$(id -u)" -eq 0 ] || { echo "SKIP: BPF needs root"; exit 77; }
command -v jq >/dev/null || { echo "SKIP: jq is not installed"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
. "$(dirname "$0")/lib/test_wait.bash"

bin=$(readlink -f "$TT_WORKLOADS/label_waits")
"$bin" "$TT_WL_LIFE" &
wl=$!
trap 'kill $wl 2>/dev/null || true' EXIT
wait_comms "$wl" waiter evil phases

set +e
"$TT_BIN" -b --format json --source bpf -p $wl -n 4 -d 1 \
	--label "wait=$bin:begin_wait:str:arg1" --label-clear "wait=$bin:end_wait" \
	--label-scope "phase=$bin:do_phase:arg1" --label "missing=$bin:no_such_fn:arg1" \
	>/tmp/tt_labels.$$ 2>/tmp/tt_labels_err.$$
rc=$?
set -e
err=$(cat /tmp/tt_labels_err.$$)
out=$(cat /tmp/tt_labels.$$)
rm -f /tmp/tt_labels.$$ /tmp/tt_labels_err.$$
if [ $rc -ne 0 ] && grep -q "BPF source" <<<"$err"; then
	echo "SKIP: BPF unavailable: $err"
	exit 77
fi
[ $rc -eq 0 ] || fail "exit $rc: $err"
grep -q -- "--label missing: no function no_such_fn" <<<"$err" || fail "missing function not reported: $err"

# Intervals 2 to 4 (the first one may start mid-wait).
tail=$(echo "$out" | tail -n 3)
share() { # COMM LABEL-VALUE -> per cent of that thread's samples carrying it
	echo "$tail" | jq -s --arg v "$2" --arg c "$1" '
		[.[] | .label_groups[] | select(.labels.wait == $v or .labels.phase == $v) | .samples] | add // 0' |
		{ read -r with; total=$(echo "$tail" | jq -s --arg c "$1" \
			'[.[] | .threads[] | select(.comm == $c) | [.samples[]] | add] | add // 0');
		  [ "$total" -gt 0 ] && echo $((100 * with / total)) || echo 0; }
}
w=$(share waiter "IO:DataFileRead")
[ "$w" -ge 40 ] && [ "$w" -le 80 ] || fail "waiter labelled in $w% of samples, expected ~60%: $tail"
p=$(share phases "7")
[ "$p" -ge 30 ] && [ "$p" -le 70 ] || fail "phases labelled in $p% of samples, expected ~50%: $tail"
# The evil event name is escaped in JSON, and the raw ESC never printed.
grep -qF '"wait":"\u001b[31mLock:\u0007relation"' <<<"$out" || fail "escaped label missing"
if printf '%s' "$out" | grep -q $'\033'; then fail "raw ESC in the output"; fi
# Labels are gone after end_wait: some waiter samples carry none.
echo "$tail" | jq -s -e '[.[] | .label_groups[] | select(.labels == {})] | length > 0' >/dev/null ||
	fail "no unlabelled group: $tail"
echo PASS
