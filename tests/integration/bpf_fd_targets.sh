#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# fd targets (issue #30 item 1), on the fd_waits workload of known truth: a
# thread blocked reading a named FIFO whose path holds an escape sequence
# and a newline, one in read on an anonymous pipe, two in recv on the ends
# of a loopback TCP connection. Batch JSON's threads[].syscall_target names
# each exactly (the path JSON-escaped, no raw control byte in the output),
# live and in the replay of a recording of the same run (-w, then -r), and
# from the /proc source's fallback; and a target that changes while its
# thread sleeps on is not repeated.
. "$(dirname "$0")/bpf_common.bash"

fifo="$TMPD/fi"$'\e'"[31mfo"$'\n'"x"
start fd_waits "$fifo" 120
wl=$WL
out=$TMPD/fd_waits.out
wait_until "fd_waits did not start" grep -q '^ready$' "$out"
port=$(awk '$1 == "port" {print $2}' "$out")
client=$(awk '$1 == "client" {print $2}' "$out")
ino=$(awk '$1 == "pipe" {print $2}' "$out")
wait_threads "$wl" 5
wait_until "fd_waits' threads asleep" all_asleep "$wl"

"$TT_BIN" -b --format json -n 3 -d 0.5 --source bpf --cpu-hz 0 -p "$wl" -w "$TMPD/rec.ttr" \
	--log "$TMPD/log" >"$TMPD/live.json" 2>"$TMPD/err" || fail "threadtop failed: $(cat "$TMPD/err")"

# target_of FILE COMM: the syscall_target of thread COMM in FILE's last interval.
target_of() {
	tail -n 1 "$1" | jq -r --arg c "$2" '.threads[] | select(.comm == $c) | .syscall_target // "NONE"'
}
check() {
	local what=$1 file=$2 got
	got=$(target_of "$file" fifo_reader)
	# The FIFO's path; under a chroot (the kernel harness runs so) the BPF
	# sampler's path has the chroot's directory before it: its paths are from
	# the mount namespace's root.
	[ "$got" = "$fifo" ] || [[ "$what" != proc && "$got" == /*"$fifo" ]] ||
		fail "$what: fifo_reader's target is '$got', not the FIFO '$fifo'"
	got=$(target_of "$file" pipe_reader)
	[ "$got" = "pipe:[$ino]" ] || fail "$what: pipe_reader's target is '$got', not pipe:[$ino]"
	got=$(target_of "$file" recv_server)
	[ "$got" = "tcp 127.0.0.1:$port->127.0.0.1:$client" ] ||
		fail "$what: recv_server's target is '$got', not tcp 127.0.0.1:$port->127.0.0.1:$client"
	got=$(target_of "$file" recv_client)
	[ "$got" = "tcp 127.0.0.1:$client->127.0.0.1:$port" ] ||
		fail "$what: recv_client's target is '$got', not tcp 127.0.0.1:$client->127.0.0.1:$port"
	# The main thread sleeps in clock_nanosleep: no fd, no target.
	got=$(target_of "$file" fd_waits)
	[ "$got" = NONE ] || fail "$what: the main thread has a target: '$got'"
	# Escaped in the JSON text itself: no raw ESC, the newline as \n.
	! grep -q $'\e' "$file" || fail "$what: a raw ESC in the JSON output"
	grep -qF 'fi\u001b[31mfo\nx' "$file" || fail "$what: the FIFO's path is not JSON-escaped"
}
check live "$TMPD/live.json"
echo "live: $(target_of "$TMPD/live.json" recv_server), $(target_of "$TMPD/live.json" pipe_reader)"

# The recording replays them, from the strings it carries.
"$TT_BIN" -r "$TMPD/rec.ttr" -b --format json -d 0.5 >"$TMPD/replay.json" 2>"$TMPD/err" ||
	fail "the replay failed: $(cat "$TMPD/err")"
check replay "$TMPD/replay.json"

# The /proc source's fallback tells the same (/proc/PID/fd, /proc/PID/net).
"$TT_BIN" -b --format json -n 2 -d 0.5 --source proc -p "$wl" >"$TMPD/proc.json" 2>"$TMPD/err" ||
	fail "threadtop --source proc failed: $(cat "$TMPD/err")"
check proc "$TMPD/proc.json"

# A thread whose target changes while it sleeps on: the FIFO's reader,
# signalled, leaves its read for one on an eventfd. From the first interval
# wholly after, it is never repeated with the FIFO (the wakeup hooks recheck
# its block; a repeat carries the target of the sample it repeats).
move=$TMPD/move.json
"$TT_BIN" -b --format json -n 1000 -d 0.5 --source bpf --cpu-hz 0 -p "$wl" >"$move" 2>"$TMPD/err" &
tt=$!
WL_PIDS+=("$tt")
wait_until "threadtop printed nothing" lines_ge "$move" 2
got=$(sed -n 2p "$move" | jq -r '.threads[] | select(.comm == "fifo_reader") | .syscall_target')
[[ "$got" == *"$fifo" ]] || fail "before the move: fifo_reader's target is '$got'"
kill -USR1 "$wl"
wait_until "the FIFO's reader did not move" grep -q '^moved$' "$out"
t_moved=$EPOCHREALTIME
count_lines "$move"
wait_until "threadtop stopped printing" lines_ge "$move" $((NL + 4))
kill -INT "$tt"
wait "$tt" || fail "threadtop failed: $(cat "$TMPD/err")"
i=$(first_after "$move" "$t_moved")
got=$(tail -n +"$i" "$move" | jq -r '.threads[] | select(.comm == "fifo_reader") | .syscall_target' |
	sort -u)
[ "$got" = "anon_inode:[eventfd]" ] ||
	fail "after the move (intervals $i on of $(wc -l <"$move")): fifo_reader's targets are '$got'"
echo "moved: $got from interval $i"

# Each target went to the ring once, not once per full sample (the log's
# counts): 4 here, and a few more the sampler's own fds may add.
sent=$(sed -n 's/.*fd targets: \([0-9]*\) sent.*/\1/p' "$TMPD/log" | tail -n 1)
[ -n "$sent" ] || fail "no fd target counts in the log: $(cat "$TMPD/log")"
((sent >= 4 && sent <= 8)) || fail "$sent fd targets sent for the workload's 4"
grep -o "fd targets: .*" "$TMPD/log" | tail -n 1
echo PASS
