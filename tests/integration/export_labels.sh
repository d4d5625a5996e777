#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Folded exports with label root frames (--export-by label:wait) on the label
# workload with real uprobes: thread samples of the waiter inside begin_wait
# start with "wait=IO:DataFileRead", the rest with "[no wait]"; the hostile
# event name is escaped; on-CPU samples have label roots too;
# the label roots add up to the same total as the thread samples; an unknown
# label name is reported.
set -euo pipefail
# shellcheck source=bpf_common.bash
. "$(dirname "$0")/bpf_common.bash"

bin=$(readlink -f "$TT_WORKLOADS/label_waits")
start label_waits "$TT_WL_LIFE"
wait_comms "$WL" waiter evil phases
"$TT_BIN" -b --format json --source bpf -p "$WL" -n 3 -d 1 \
	--label "wait=$bin:begin_wait:str:arg1" --label-clear "wait=$bin:end_wait" \
	--export "$TMPD/p.folded" --export "$TMPD/p.json" --export-by label:wait \
	>/dev/null 2>"$TMPD/err" || fail "exit $?: $(cat "$TMPD/err")"
th="$TMPD/p.threads.folded"
[ -s "$th" ] || fail "no thread-sample file: $(ls "$TMPD")"
grep -q '^wait=IO:DataFileRead;label_waits;' "$th" || fail "no waiter label root: $(head "$th")"
grep -q '^\[no wait\];label_waits;' "$th" || fail "no [no wait] root: $(head "$th")"
grep -qF 'wait=\e[31mLock:\x07relation;label_waits;' "$th" || fail "hostile label not escaped"
if grep -q $'\033' "$th"; then fail "raw ESC in the folded file"; fi
# Every line has a label root.
bad=$(grep -v -E '^(wait=[^;]*|\[no wait\]);' "$th" || true)
[ -z "$bad" ] || fail "lines without a label root: $bad"
# On-CPU samples carry labels too: every line has a label root.
if [ -s "$TMPD/p.folded" ]; then
	bad=$(grep -v -E '^(wait=[^;]*|\[no wait\]);' "$TMPD/p.folded" || true)
	[ -z "$bad" ] || fail "on-CPU lines without a label root: $bad"
fi
# The label roots split the thread samples, they do not add or lose any.
sum=$(awk '{s += $NF} END {print s}' "$th")
want=$(jq '.profiles.threads.total_count' "$TMPD/p.json" 2>/dev/null || echo "")
[ -z "$want" ] || [ "$want" = null ] || [ "$sum" -eq "$want" ] ||
	fail "folded total $sum != JSON report's thread samples $want"

# A label name the session does not know is reported (the export is still written).
"$TT_BIN" -b --format json --source bpf -p "$WL" -n 1 -d 0.5 \
	--export "$TMPD/q.folded" --export-by label:nosuch >/dev/null 2>"$TMPD/err2" || true
grep -q 'label:nosuch' "$TMPD/err2" || fail "unknown label name not reported: $(cat "$TMPD/err2")"
echo PASS
