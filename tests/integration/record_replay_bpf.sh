#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Record and replay on the BPF source (skipped where BPF cannot load): the
# stream then holds stacks and on-CPU samples too; replayed batch JSON and
# exports equal the live run's.
. "$(dirname "$0")/bpf_common.bash"
tmp=$TMPD

start rr_threads 2 3 "$TT_WL_LIFE"
wl=$WL
wait_comms "$wl" rr-spin rr-sleep

# bpf_common.bash skipped where BPF cannot load: a failure here is one.
"$TT_BIN" -b --format json --source bpf -d 0.5 -n 6 -p "$wl" -w "$tmp/b.ttr" \
	--export "$tmp/live.folded" >"$tmp/live.json" 2>"$tmp/live.err" ||
	fail "live run: $(tail -n 3 "$tmp/live.err")"
[ "$(jq -r .source "$tmp/live.json" | sort -u)" = bpf ] || fail "not the BPF source"
"$TT_BIN" -r "$tmp/b.ttr" -b --format json --export "$tmp/replay.folded" \
	>"$tmp/replay.json" 2>"$tmp/replay.err" || fail "replay: $(cat "$tmp/replay.err")"
jq -c 'del(.replay)' "$tmp/replay.json" | cmp -s - <(jq -c . "$tmp/live.json") ||
	fail "replayed JSON differs from the live JSON"
[ "$(wc -l <"$tmp/replay.json")" -eq 6 ] || fail "replayed $(wc -l <"$tmp/replay.json") intervals"
cmp -s "$tmp/live.folded" "$tmp/replay.folded" || fail "the replay exports another profile"
[ -s "$tmp/replay.folded" ] || fail "empty export"
echo "ok: BPF recording replays to the same JSON and export"
