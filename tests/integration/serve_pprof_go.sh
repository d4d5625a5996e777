#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# --serve's Go-style profiles read by Go's own pprof (Debian golang-go):
# `go tool pprof -raw http://.../debug/pprof/profile?seconds=3` decodes the
# on-CPU profile of those 3 seconds and names the spinner's hot function;
# the thread samples of 2 seconds are that window's ticks, not the
# session's; the off-CPU profile (--offcpu) and the block I/O one (--io:
# the requests', time's and bytes' sample types, no samples from workloads
# that make no I/O) decode too; filters narrow.
# /metrics has the traced families: exact syscall counters (--syscalls),
# off-CPU time (--offcpu), USE figures and the verdict.
. "$(dirname "$0")/bpf_common.bash"
. "$(dirname "$0")/lib/serve_common.bash"
command -v go >/dev/null || skip "go is not installed (Debian package golang-go)"
export HOME=$TMPD PPROF_TMPDIR=$TMPD GOCACHE=$TMPD/gocache GOFLAGS=-mod=mod

start named_spinner "$TT_WL_LIFE" hotspinner
sp=$WL
start spin_sleep "$TT_WL_LIFE"
ss=$WL
wait_comms "$sp" hotspinner
wait_comms "$ss" spinner sleeper
start_serving -d 1 --offcpu --syscalls --io -p "$sp,$ss"
wait_lines "$TMPD/batch.json" 2 "$TT"

go tool pprof -raw "http://$ADDR/debug/pprof/profile?seconds=3" >"$TMPD/raw.txt" 2>"$TMPD/pprof.err" ||
	fail "go tool pprof: $(cat "$TMPD/pprof.err")"
grep -q 'tt_export_hot_fn' "$TMPD/raw.txt" || fail "no tt_export_hot_fn in: $(head -40 "$TMPD/raw.txt")"
grep -q '^PeriodType: cpu nanoseconds' "$TMPD/raw.txt" || fail "not a CPU profile: $(head -5 "$TMPD/raw.txt")"
dur=$(awk '/^Duration:/ {print $2}' "$TMPD/raw.txt")
python3 -c 'import sys; d = float(sys.argv[1]); sys.exit(not 2.8 <= d <= 3.6)' "$dur" ||
	fail "the profile covers $dur s, not the 3 s asked for"

# sum_first FILE: the first value of every sample of go tool pprof -raw output.
sum_first() { awk '/^ +[0-9]+ +[0-9]+: / {n += $1} END {print n + 0}' "$1"; }

# Thread samples of the spinner process for 2 s: 20 Hz x 2 s x 1 thread, not the session's.
curl -sf --max-time 10 -o "$TMPD/threads.pb.gz" \
	"http://$ADDR/debug/pprof/threads?seconds=2&pid=$sp" || fail "GET threads"
go tool pprof -raw "$TMPD/threads.pb.gz" >"$TMPD/threads.txt" 2>&1 || fail "threads: $(cat "$TMPD/threads.txt")"
n=$(sum_first "$TMPD/threads.txt")
((n >= 36 && n <= 44)) || fail "2 s of one thread at 20 Hz gave $n thread samples, not ~40"
grep -q "pid:\[$ss\]" "$TMPD/threads.txt" && fail "pid=$sp still has samples of pid $ss"
grep -q "pid:\[$sp\]" "$TMPD/threads.txt" || fail "no samples of pid $sp"

# comm filter and the off-CPU profile: the sleeper blocks, the spinner does not.
curl -sf --max-time 10 -o "$TMPD/off.pb.gz" \
	"http://$ADDR/debug/pprof/offcpu?seconds=1&comm=sleeper" || fail "GET offcpu"
go tool pprof -raw "$TMPD/off.pb.gz" >"$TMPD/off.txt" 2>&1 || fail "offcpu: $(cat "$TMPD/off.txt")"
grep -q '^PeriodType: offcpu nanoseconds' "$TMPD/off.txt" || fail "not off-CPU: $(head -5 "$TMPD/off.txt")"
grep -q 'comm:\[sleeper\]' "$TMPD/off.txt" || fail "no sleeper off-CPU: $(head -30 "$TMPD/off.txt")"
grep -q 'comm:\[spinner\]' "$TMPD/off.txt" && fail "comm=sleeper kept the spinner"
curl -sf --max-time 10 -o "$TMPD/io.pb.gz" "http://$ADDR/debug/pprof/io?seconds=1" || fail "GET io"
go tool pprof -raw "$TMPD/io.pb.gz" >"$TMPD/io.txt" 2>&1 || fail "io: $(cat "$TMPD/io.txt")"
grep -q '^PeriodType: io_time nanoseconds' "$TMPD/io.txt" || fail "not block I/O: $(head -5 "$TMPD/io.txt")"
grep -q '^io_requests/count io_time/nanoseconds\[dflt\] io_bytes/bytes$' "$TMPD/io.txt" ||
	fail "the block I/O sample types: $(head -8 "$TMPD/io.txt")"
# The traced families of /metrics: the sleeper's clock_nanosleep calls and blocked time.
curl -sf --max-time 5 "http://$ADDR/metrics" >"$TMPD/metrics.txt" || fail "GET /metrics"
calls=$(metric "$TMPD/metrics.txt" 'threadtop_syscalls_total{syscall="clock_nanosleep"}') ||
	fail "no exact clock_nanosleep counter: $(grep syscalls_total "$TMPD/metrics.txt" | head)"
python3 -c 'import sys; sys.exit(not float(sys.argv[1]) >= 5)' "$calls" ||
	fail "the sleeper made $calls clock_nanosleep calls in several seconds"
off=$(metric "$TMPD/metrics.txt" "threadtop_offcpu_threads{pid=\"$ss\",comm=\"spin_sleep\"}") ||
	fail "no off-CPU figure of pid $ss: $(grep offcpu_threads "$TMPD/metrics.txt")"
python3 -c 'import sys; sys.exit(not 0.5 <= float(sys.argv[1]) <= 1.2)' "$off" ||
	fail "the sleeper blocked $off threads on average, not ~1"
for m in 'threadtop_use_utilization_ratio{resource="cpu",component="cpu"}' threadtop_use_verdict_level \
	threadtop_offcpu_seconds_total 'threadtop_dropped_events_total{reason="ringbuf_full"}'; do
	metric "$TMPD/metrics.txt" "$m" >/dev/null || fail "no $m in /metrics"
done
if command -v promtool >/dev/null; then # the traced families pass the linter too
	if ! promtool check metrics <"$TMPD/metrics.txt" >"$TMPD/lint.txt" 2>&1 || [ -s "$TMPD/lint.txt" ]; then
		fail "promtool check metrics: $(cat "$TMPD/lint.txt")"
	fi
fi
echo "PASS: go tool pprof named tt_export_hot_fn in ${dur}s; 2 s = $n thread samples; offcpu ok"
