#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# fd targets in the TUI (issue #30 item 1), live with the BPF source (root),
# driven in tmux on the fd_waits workload: at 160 columns the Threads pane's
# FD TARGET column shows the FIFO's path with its escape sequence and
# newline escaped (\e, \n: the terminal obeys neither) and both ends of the
# loopback TCP connection; at 80 columns the column is left out (the rest
# does not fit beside it), and the thread drill-down (Enter on the FIFO's
# reader) names the FIFO beside its read. The path is wider than the
# column: it loses its middle, never the file's name.
set -u

TUI_NAME=tuifd
# shellcheck source=lib/tui_common.bash
source "$(dirname "$0")/lib/tui_common.bash"
[ "$(id -u)" -eq 0 ] || {
	echo "SKIP: BPF needs root"
	exit 77
}

# Deep enough that no column holds the whole path: the file's name stays.
mkdir -p "$TUI_TMP/a/deep/directory/tree/made/for/the/test"
fifo="$TUI_TMP/a/deep/directory/tree/made/for/the/test/fi"$'\e'"[31mfo"$'\n'"x"
"$TT_WORKLOADS/fd_waits" "$fifo" 300 >"$TUI_TMP/wl.out" 2>&1 &
WL=$!
TUI_PIDS+=("$WL")
wait_until "$TUI_WAIT" "fd_waits to start" grep -q '^ready$' "$TUI_TMP/wl.out"
port=$(awk '$1 == "port" {print $2}' "$TUI_TMP/wl.out")
client=$(awk '$1 == "client" {print $2}' "$TUI_TMP/wl.out")

run() { # run COLS ROWS: threadtop on the workload in a fresh session of that size
	new_server
	start_shell "$1" "$2"
	keys "clear; $TT_BIN --source bpf -d 0.5 --cpu-hz 0 -p $WL --log $TUI_TMP/log; echo EXIT=\$?" Enter
	started() { screen | grep -Eq 'COMM|EXIT=[0-9]'; }
	wait_until "$TUI_WAIT" "threadtop to start" started
	screen | grep -q 'COMM' || {
		echo "SKIP: threadtop could not start the BPF source: $(cat "$TUI_TMP/log")"
		exit 77
	}
}

run 160 40
wait_for 'FD TARGET'
# The path as escapes, never as the bytes: no red text, no line broken in two.
wait_for 'fifo_reader .*read .*fi\\e\[31mfo\\nx'
wait_for "recv_server .*tcp 127\\.0\\.0\\.1:$port->127\\.0\\.0\\.1:$client"
wait_for "recv_client .*tcp 127\\.0\\.0\\.1:$client->127\\.0\\.0\\.1:$port"
wait_for 'pipe_reader .*pipe:\['
keys q
wait_for 'EXIT=0'

run 80 24
wait_for 'fifo_reader'
screen | grep -q 'FD TARGET' && fail "the FD TARGET column is shown at 80 columns"
# Enter on the FIFO's reader (the rows filtered to it): the Group pane on it,
# its read beside the FIFO (an idle row: i shows it).
keys '\'
keys -l fifo_reader
keys Enter
wait_for 'filter "fifo_reader"'
wait_gone '(recv_server|recv_client|pipe_reader) '
keys Enter
wait_for 'FD TARGET'
keys i # its rows are idle (asleep): shown with i
wait_for 'read +[^ ]*fi\\e\[31mfo\\nx'
keys q
wait_for 'EXIT=0'
echo PASS
