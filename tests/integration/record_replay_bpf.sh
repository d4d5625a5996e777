#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Record and replay on the BPF source (skipped where BPF cannot load): the
# stream then holds stacks and on-CPU samples too; replayed batch JSON and
# exports equal the live run's.
set -euo pipefail
command -v jq >/dev/null || { echo "SKIP: jq is not installed"; exit 77; }

tmp=$(mktemp -d)
"$TT_WORKLOADS/rr_threads" 2 3 60 &
wl=$!
trap 'kill $wl 2>/dev/null; rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
sleep 0.3

if ! "$TT_BIN" -b --format json --source bpf -d 0.5 -n 6 -p "$wl" -w "$tmp/b.ttr" \
	--export "$tmp/live.folded" >"$tmp/live.json" 2>"$tmp/live.err"; then
	echo "SKIP: the BPF source cannot run here: $(head -n 1 "$tmp/live.err")"
	exit 77
fi
[ "$(jq -r .source "$tmp/live.json" | sort -u)" = bpf ] || fail "not the BPF source"
"$TT_BIN" -r "$tmp/b.ttr" -b --format json --export "$tmp/replay.folded" \
	>"$tmp/replay.json" 2>"$tmp/replay.err" || fail "replay: $(cat "$tmp/replay.err")"
jq -c 'del(.replay)' "$tmp/replay.json" | cmp -s - <(jq -c . "$tmp/live.json") ||
	fail "replayed JSON differs from the live JSON"
[ "$(wc -l <"$tmp/replay.json")" -eq 6 ] || fail "replayed $(wc -l <"$tmp/replay.json") intervals"
cmp -s "$tmp/live.folded" "$tmp/replay.folded" || fail "the replay exports another profile"
[ -s "$tmp/replay.folded" ] || fail "empty export"
echo "ok: BPF recording replays to the same JSON and export"
