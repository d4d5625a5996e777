#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The I/O pane (9, --io) in tmux on the direct_reads workload of known truth:
# 4 KiB O_DIRECT reads of a loop device, one at a time (as bpf_io.sh). In
# the session window, after the workload is done, the loop device's row
# shows IOPS within 10% of the reads the workload reports over that window
# (its count over the window's seconds, which the header shows), at 80x24
# and again at 160x40, where the histogram column joins; Enter on the device
# lists its threads, the reader among them (named with an escape sequence,
# shown escaped); Enter on the reader narrows to it in the Threads pane. A
# replay of the run's recording shows the device with the same reads;
# without --io the pane says in one line how to get them.
set -u

TUI_NAME=tuiio
# shellcheck source=lib/tui_common.bash
source "$(dirname "$0")/lib/tui_common.bash"
skip() {
	echo "SKIP: $*"
	exit 77
}
# shellcheck source=lib/loop_dev.bash
source "$(dirname "$0")/lib/loop_dev.bash"
tmp=$TUI_TMP

[ "$(id -u)" = 0 ] || skip "not root: --io needs the BPF source"
[ -r /sys/kernel/btf/vmlinux ] || skip "the kernel has no BTF (/sys/kernel/btf/vmlinux)"
loop_dev_setup "$tmp"
trap 'loop_dev_detach; tui_cleanup' EXIT

# Without --io: the hint, one line (the /proc source: no BPF needed to say so).
start_session 80 24 "$TT_BIN --source proc -d 0.5"
wait_for '9 I/O'
keys 9
wait_for '^  no block I/O traced: run with --io'
new_server

# The reader runs under a name with an escape sequence: its comm shows escaped.
reader=$tmp/$'\e[7mreader'
cp "$TT_WORKLOADS/direct_reads" "$reader"
shown='\\e\[7mreader' # as a regex: the name as escape_for_terminal writes it
"$reader" "$LOOP" 3 >"$tmp/wl.out" 2>&1 &
wl=$!
TUI_PIDS+=("$wl")
wait_until "$TUI_WAIT" "direct_reads to start" grep -q '^ready$' "$tmp/wl.out"

start_session 80 24 "$TT_BIN --source bpf --io --cpu-hz 0 -d 0.5 -w $tmp/rec.ttr 2>$tmp/err"
wait_for '9 I/O'
keys 9
wait_for '^DEVICE +IOPS +MB/s +READS +WRITES +p50 +p99 '
# Two redraws after the first interval: the tracer's baseline is behind.
wait_for 'last interval \(?[0-9]'
redrawn 2
kill -USR1 "$wl"
wait_until $((2 * TUI_WAIT)) "direct_reads to finish" grep -q '^done ' "$tmp/wl.out"
read -r _ count _ < <(grep '^done ' "$tmp/wl.out")
((count > 100)) || fail "direct_reads made only $count reads"
# The session window (w: last interval, last minute, session).
keys w
wait_for 'last minute'
wait_for 'keeps no minute window'
keys w
wait_for 'session \(?[0-9.]+s'
# Every read has completed: the interval in progress and one more hold the last.
redrawn 3

# check_iops WHERE: the loop device's IOPS on one screen against the
# workload's count over the session's seconds that screen's header shows.
check_iops() {
	local s secs iops reads
	s=$(screen)
	secs=$(sed -En '1s/.*session \(?([0-9.]+)s.*/\1/p' <<<"$s")
	read -r iops reads < <(awk -v n="$LOOP_NAME" '$1 == n { print $2, $4 }' <<<"$s")
	[ -n "$secs" ] && [ -n "${iops:-}" ] || fail "$1: no session window or no $LOOP_NAME row"
	echo "$1: $LOOP_NAME $iops IOPS ($reads reads) over ${secs}s; the reader made $count reads"
	awk -v i="$iops" -v c="$count" -v s="$secs" \
		'BEGIN { w = c / s; exit !(i >= w * 0.9 && i <= w * 1.1) }' ||
		fail "$1: $iops IOPS on $LOOP_NAME, the workload's $count reads over ${secs}s are $(
			awk -v c="$count" -v s="$secs" 'BEGIN { printf "%.1f", c / s }')/s"
	READS=$reads
}
check_iops 80x24
tm resize-window -t "$S" -x 160 -y 40
# At 160 columns every column: the mean and the histogram join.
wait_for '^DEVICE +IOPS +MB/s +READS +WRITES +p50 +p99 +MEAN +SHARE +256ns\.\.4s'
wait_for "^$LOOP_NAME +[0-9.]+ +[0-9.]+ +[0-9]+ +0 +[0-9.]+[num]?s +[0-9.]+[num]?s +[0-9.]+[num]?s"
check_iops 160x40
live_reads=$READS

# Enter on the device: its threads, the reader's among them.
keys / "$LOOP_NAME" Enter
keys Enter
wait_for "^all > device $LOOP_NAME"
wait_for '^ +TID +COMM +IOPS +MB/s +READS +WRITES +p50 +p99 '
wait_for "^ +$wl +$shown +[0-9.]+ "
# Enter on the reader: the Threads pane narrowed to it.
keys / "$wl" Enter
keys Enter
wait_for "^all > device $LOOP_NAME > tid $wl $shown"
wait_for "^ +[0-9]+ +$wl +$shown "
keys Escape
wait_for "^ +$wl +$shown +[0-9.]+ "
keys q
wait_until "$TUI_WAIT" "threadtop to quit" eval '! tm has-session -t "$S" 2>/dev/null'
# Nothing warned of --io, and (an ASan build) no sanitizer report.
bad_err() {
	! grep -Eq -- '--io|Sanitizer|runtime error' "$1" || fail "threadtop said: $(head -c 600 "$1")"
}
bad_err "$tmp/err"
new_server

# The recording replays into the same pane: the device with the same reads over the session.
start_session 80 24 "$TT_BIN -r $tmp/rec.ttr -d 0.5 2>$tmp/err.replay"
wait_for '9 I/O'
keys 9 w w
wait_for 'session \(?[0-9.]+s'
wait_for "^$LOOP_NAME +[0-9.]+ +[0-9.]+ +$live_reads +0 " $((2 * TUI_WAIT))
echo "replay: $LOOP_NAME with the same $live_reads reads"
keys q
wait_until "$TUI_WAIT" "the replay to quit" eval '! tm has-session -t "$S" 2>/dev/null'
bad_err "$tmp/err.replay"
