#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Exports of a replay describe the recording, not the replaying machine: a
# session recorded under another host name (a UTS namespace) and replayed
# seconds later exports a JSON report whose host and kernel are the
# recording's and whose time lies within the recording, a pprof file whose
# time_nanos does too and whose comment names the recording's host, and an
# SVG titled with that host. Uses the /proc source: no BPF needed.
set -euo pipefail
. "$(dirname "$0")/lib/test_wait.bash"
fail() { echo "FAIL: $*"; exit 1; }
skip() { echo "SKIP: $*"; exit 77; }
[ "$(id -u)" -eq 0 ] || skip "not root: a UTS namespace needs root"
command -v unshare >/dev/null || skip "unshare is not installed"
command -v jq >/dev/null || skip "jq is not installed"
unshare -u true 2>/dev/null || skip "cannot make a UTS namespace here"
TMPD=$(mktemp -d)
chmod 1777 "$TMPD"
trap 'rm -rf "$TMPD"' EXIT

rec_from=$(date +%s%N)
unshare -u sh -c "hostname tt-recorded-host && exec \"$TT_BIN\" -b -n 2 -d 0.5 --source proc \
	-w \"$TMPD/r.ttr\"" >/dev/null 2>"$TMPD/rec.err" || fail "recording: $(cat "$TMPD/rec.err")"
rec_to=$(date +%s%N)
# Replay a clear two seconds later than the recording ended.
later() { (($(date +%s%N) > rec_to + 2000000000)); }
wait_until "the clock did not move on" later
"$TT_BIN" -b -r "$TMPD/r.ttr" --export "$TMPD/p.json" --export "$TMPD/p.pb.gz" \
	--export "$TMPD/p.svg" >/dev/null 2>"$TMPD/rep.err" || fail "replay export: $(cat "$TMPD/rep.err")"

host=$(jq -r .host "$TMPD/p.json")
[ "$host" = tt-recorded-host ] || fail "report host is $host, not the recording's"
kernel=$(jq -r .kernel "$TMPD/p.json")
[ "$kernel" = "$(uname -r)" ] || fail "report kernel is $kernel, not the recording's $(uname -r)"
t=$(jq -r .time "$TMPD/p.json")
t_ns=$(date -d "$t" +%s%N)
((t_ns >= rec_from - 1000000000 && t_ns <= rec_to + 1000000000)) ||
	fail "report time $t is not within the recording ($rec_from .. $rec_to)"
grep -q "tt-recorded-host" "$TMPD/p.svg" || fail "the SVG does not name the recording's host"
gzip -dc "$TMPD/p.pb.gz" | grep -aq "on tt-recorded-host (Linux $(uname -r))" ||
	fail "the pprof comment does not name the recording's host and kernel"
if command -v node >/dev/null && [ -d "$TT_BUILD/npm/node_modules/pprof-format" ]; then
	NODE_PATH="$TT_BUILD/npm/node_modules" node "$TT_SRC/tests/integration/lib/pprof_summary.js" \
		"$TMPD/p.pb.gz" >"$TMPD/pprof.json" || fail "pprof-format cannot decode p.pb.gz"
	pt=$(jq .time_ns "$TMPD/pprof.json")
	awk -v t="$pt" -v a="$rec_from" -v b="$rec_to" 'BEGIN { exit !(t >= a - 2e9 && t <= b + 1e9) }' ||
		fail "pprof time_nanos $pt is not within the recording ($rec_from .. $rec_to)"
else
	echo "note: pprof-format (npm) not installed: pprof time not decoded"
fi
echo PASS
