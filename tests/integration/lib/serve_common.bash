# SPDX-License-Identifier: GPL-2.0-only
# Sourced by the serve_*.sh integration tests (after bpf_common.bash): starts
# threadtop with --serve on a loopback port the kernel picks (port 0) and
# reads the address it says it serves on from its log.
command -v curl >/dev/null || skip "curl is not installed"

# start_serving ARGS...: threadtop -b --format json ARGS --serve 127.0.0.1:0 in
# the background; $TT (its pid), $ADDR (host:port), batch lines in
# $TMPD/batch.json, its log in $TMPD/tt.log.
start_serving() {
	"$TT_BIN" -b --format json --log "$TMPD/tt.log" --serve 127.0.0.1:0 "$@" \
		>"$TMPD/batch.json" 2>"$TMPD/tt.err" &
	TT=$!
	WL_PIDS+=("$TT")
	wait_until "threadtop said where it serves (log: $(cat "$TMPD/tt.log" 2>/dev/null))" \
		_serving
	ADDR=$(grep -o 'serving http://[^/]*' "$TMPD/tt.log" | head -1)
	ADDR=${ADDR#serving http://}
}
_serving() {
	kill -0 "$TT" 2>/dev/null || fail "threadtop ended: $(cat "$TMPD/tt.err")"
	grep -q 'serving http://' "$TMPD/tt.log" 2>/dev/null
}

# free_port: a loopback TCP port nobody listens on now.
free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# metric TEXT_FILE SERIES: the value of one exact series line of /metrics text.
metric() {
	awk -v s="$2" 'index($0, s " ") == 1 { print $2; found = 1 } END { exit !found }' "$1"
}
