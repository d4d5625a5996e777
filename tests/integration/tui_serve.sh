#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# --serve without -b: the interactive view runs (driven in tmux, /proc
# source) and serves at once, on loopback when given only a port; /metrics shows the workload's threads by
# state, a thread-samples profile decodes to the window asked for, and the
# TUI keeps redrawing and quits cleanly with q, the server with it.
set -u

TUI_NAME=serve
# shellcheck source=lib/tui_common.bash
source "$(dirname "$0")/lib/tui_common.bash"
command -v curl >/dev/null || { echo "SKIP: curl is not installed"; exit 77; }

start_workload tui_target 3 "$TUI_WL_LIFE"
start_session 120 30 "$TT_BIN --source proc -d 0.5 -p $WL --serve 0 --log $TUI_TMP/log; sleep 30"
wait_for 'ttsleep'
wait_until "$TUI_WAIT" "the TUI says where it serves" grep -q 'serving http://' "$TUI_TMP/log"
addr=$(grep -o 'serving http://[^/]*' "$TUI_TMP/log" | head -1)
addr=${addr#serving http://}
case $addr in 127.0.0.1:*) ;; *) fail "--serve PORT listens on $addr, not on loopback" ;; esac
has_threads_metric() {
	curl -sf --max-time 5 "http://$addr/metrics" >"$TUI_TMP/metrics.txt" &&
		grep -q "^threadtop_threads{pid=\"$WL\",comm=\"[^\"]*\",state=\"S\"} " "$TUI_TMP/metrics.txt"
}
wait_until "$TUI_WAIT" "/metrics shows pid $WL asleep" has_threads_metric
curl -sf --max-time 10 -o "$TUI_TMP/t.pb.gz" "http://$addr/debug/pprof/threads?seconds=1" ||
	fail "GET /debug/pprof/threads from the TUI"
[ "$(head -c 2 "$TUI_TMP/t.pb.gz" | od -An -tx1 | tr -d ' ')" = 1f8b ] || fail "not gzip"
# The JSON report of the last interval, with the workload in it.
curl -sf --max-time 10 "http://$addr/api/v1/snapshot" >"$TUI_TMP/snap.json" || fail "GET /api/v1/snapshot"
jq -e --argjson p "$WL" '.kind == "report" and any(.threads[]; .pid == $p)' "$TUI_TMP/snap.json" \
	>/dev/null || fail "the snapshot is not the report with pid $WL: $(head -c 300 "$TUI_TMP/snap.json")"
wait_for 'ttsleep'
keys q
wait_until "$TUI_WAIT" "the server went with the TUI" sh -c "! curl -s --max-time 2 http://$addr/ >/dev/null"
echo "PASS: tui_serve"
