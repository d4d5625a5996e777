#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# --io (issue #30 item 2) on the direct_reads workload of known truth: random
# 4 KiB O_DIRECT reads of a loop device backed by a file in the test's
# directory, one at a time, each timed by the workload itself. Over a run
# that starts after threadtop's baseline and ends before its last interval,
# batch JSON's io.threads[] row of the workload's thread on that device
# counts its reads within 2% (requests, bytes = requests x 4096) and their
# mean latency within 20% of what the workload measured; io.devices[] names
# the device as /sys does; a recording of the same run (-w) replays (-r) the
# same io figures, interval by interval. The exports have the requests by the
# stacks that made them: pprof's io_requests, io_time and io_bytes, folded
# stacks' io file and batch JSON's io_stacks hold the same requests, bytes
# and time as io.threads[], on stacks through pread(2) down to the block
# layer, with the tracer's own frames cut; the replay exports the same.
. "$(dirname "$0")/bpf_common.bash"
. "$(dirname "$0")/lib/loop_dev.bash"
loop_dev_setup "$TMPD"
trap 'loop_dev_detach; cleanup' EXIT
loop=$LOOP
name=$LOOP_NAME
[ -e "/sys/block/$name" ] || fail "$loop has no /sys/block/$name"

# Real-time, on a CPU a spinner keeps from idling ("rt"): its wakeup after
# each completion, which it times and the block layer does not, stays short
# on a loaded box and in a VM (waking a halted virtual CPU costs tens of us:
# without this the means differ by 25%, with it by 7%).
start direct_reads "$loop" 1.5 0 rt
wl=$WL
out=$TMPD/direct_reads.out
wait_until "direct_reads did not start" grep -q '^ready$' "$out"

live=$TMPD/live.json
"$TT_BIN" -b --format json -d 0.5 -n 100000 --source bpf --cpu-hz 0 --io -p "$wl" \
	-w "$TMPD/rec.ttr" --log "$TMPD/log" --export "$TMPD/live.pb.gz" \
	--export "$TMPD/live.folded" >"$live" 2>"$TMPD/err" &
tt=$!
WL_PIDS+=("$tt")
# Two intervals printed: the tracer's baseline (what it summed while starting) is behind.
wait_lines "$live" 2 "$tt"
kill -USR1 "$wl"
wait_until "direct_reads did not finish" grep -q '^done ' "$out"
# Every read has completed: the interval in progress and one more hold the last.
wait_whole_interval "$live" "$tt"
stop_tt "$tt"
grep -q -- '--io' "$TMPD/err" && fail "--io warned: $(cat "$TMPD/err")"

read -r _ count total_ns < <(grep '^done ' "$out")
((count > 100)) || fail "direct_reads made only $count reads"

# figures FILE: requests, bytes and ns of the workload's thread on the loop device, summed.
figures() {
	jq -rs --argjson tid "$wl" --arg dev "$name" '[.[].io.threads[]?
		| select(.tid == $tid and .device == $dev)]
		| [(map(.requests) | add // 0), (map(.bytes) | add // 0),
		   (map(.total_ns) | add // 0)] | @tsv' "$1"
}
read -r requests bytes ns < <(figures "$live")
echo "workload: $count reads, mean $((total_ns / count)) ns; threadtop: $requests requests," \
	"$bytes bytes, mean $((requests ? ns / requests : 0)) ns"
((requests * 100 >= count * 98 && requests * 100 <= count * 102)) ||
	fail "threadtop counted $requests requests of direct_reads on $name, the workload made $count"
((bytes == requests * 4096)) || fail "$requests requests of 4096 bytes counted as $bytes bytes"
# Mean latency within 20%: |threadtop's mean - the workload's| * 5 <= the workload's.
tt_mean=$((ns / requests))
wl_mean=$((total_ns / count))
off=$((tt_mean > wl_mean ? tt_mean - wl_mean : wl_mean - tt_mean))
if ((${TT_TEST_WAIT:-60} > 60)); then
	# A slow machine (a kernel harness guest): the read's time around the
	# request (system call, wake-up) is emulated too, 40% of the read in a
	# 6.1 guest. The request is still a part of the read, and most of it.
	((tt_mean <= wl_mean * 6 / 5 && tt_mean * 2 >= wl_mean)) ||
		fail "threadtop's mean latency $tt_mean ns is not between half and 1.2x the workload's $wl_mean ns"
else
	((off * 5 <= wl_mean)) ||
		fail "threadtop's mean latency $tt_mean ns is not within 20% of the workload's $wl_mean ns"
fi
# The reads are reads, and the device is named and counted as a whole.
reads=$(jq -s --argjson tid "$wl" --arg dev "$name" '[.[].io.threads[]?
	| select(.tid == $tid and .device == $dev) | .reads] | add // 0' "$live")
((reads == requests)) || fail "$requests requests, of which $reads reads"
dev_requests=$(jq -s --arg dev "$name" '[.[].io.devices[]? | select(.device == $dev)
	| .requests] | add // 0' "$live")
((dev_requests >= requests)) || fail "device $name counted $dev_requests requests, its reader $requests"
major_minor=$(cat "/sys/block/$name/dev")
jq -e --arg dev "$name" --arg mm "$major_minor" \
	'[.io.devices[]? | select(.device == $dev)] | all(.dev == $mm)' "$live" >/dev/null ||
	fail "device $name is not $major_minor in io.devices[]"
# The histograms hold the requests (over the run: one interval's may catch a
# request's count before its bucket), and p50 <= p99 in every interval.
in_hist=$(jq -s --argjson tid "$wl" '[.[].io.threads[]? | select(.tid == $tid)
	| .hist_log2_ns | add] | add // 0' "$live")
((in_hist == requests)) || fail "the histograms hold $in_hist requests, not $requests"
jq -se --argjson tid "$wl" '[.[].io.threads[]? | select(.tid == $tid)
	| .p50_ns <= .p99_ns and .p50_ns > 0] | length > 0 and all' "$live" >/dev/null ||
	fail "p50 > p99, or 0, in an interval"

# The recording replays the same figures, interval by interval.
"$TT_BIN" -r "$TMPD/rec.ttr" -b --format json -d 0.5 >"$TMPD/replay.json" 2>"$TMPD/err" ||
	fail "the replay failed: $(cat "$TMPD/err")"
per_interval() {
	jq -c --argjson tid "$wl" '[.io.threads[]? | select(.tid == $tid)
		| [.device, .requests, .bytes, .total_ns, .p50_ns, .p99_ns, .hist_log2_ns]]
		| select(length > 0)' "$1"
}
diff <(per_interval "$live") <(per_interval "$TMPD/replay.json") >"$TMPD/diff" ||
	fail "the replay's io differs from the live run's: $(head -c 600 "$TMPD/diff")"
read -r r_requests _ < <(figures "$TMPD/replay.json")
((r_requests == requests)) || fail "the replay counts $r_requests requests, the live run $requests"
echo "replay: the same $requests requests in $(per_interval "$live" | wc -l) intervals"

# The requests by stack: pprof (decoded by npm pprof-format), the folded
# export and batch JSON hold what io.threads[] counts.
[ -s "$TMPD/live.io.folded" ] || fail "no io folded export: $(cat "$TMPD/err")"
folded_ns=$(awk '{ s += $NF } END { print s + 0 }' "$TMPD/live.io.folded")
((folded_ns == ns)) || fail "the io folded export holds $folded_ns ns, io.threads[] $ns"
grep -q 'bpf_prog_\|bpf_trace_run\|__traceiter_\|__bpf_trace_' "$TMPD/live.io.folded" &&
	fail "the io stacks keep the tracer's frames: $(head -n 1 "$TMPD/live.io.folded")"
# Every stack goes from pread(2) in the workload down to the block layer.
if grep -v 'pread.*submit_bio' "$TMPD/live.io.folded" | grep .; then
	fail "an io stack does not go from pread to submit_bio"
fi
read -r j_req j_bytes j_ns < <(jq -rs --argjson tid "$wl" '[.[].io_stacks[]?
	| select(.tid == $tid)] | [(map(.requests) | add // 0), (map(.bytes) | add // 0),
	(map(.ns) | add // 0)] | @tsv' "$live")
((j_req == requests && j_bytes == bytes && j_ns == ns)) ||
	fail "batch JSON io_stacks: $j_req requests, $j_bytes bytes, $j_ns ns; io.threads[] $requests, $bytes, $ns"
. "$(dirname "$0")/lib/pprof_format.bash"
need_pprof_format
pprof_io() {
	NODE_PATH=$PPROF_NODE_PATH node "$TT_SRC/tests/integration/lib/pprof_summary.js" "$1" |
		jq -r '[.totals["io_requests/count"], .totals["io_bytes/bytes"],
			.totals["io_time/nanoseconds"]] | @tsv'
}
read -r p_req p_bytes p_ns < <(pprof_io "$TMPD/live.pb.gz")
((p_req == requests && p_bytes == bytes && p_ns == ns)) ||
	fail "pprof: $p_req requests, $p_bytes bytes, $p_ns ns; io.threads[] $requests, $bytes, $ns"
"$TT_BIN" -r "$TMPD/rec.ttr" -b --format json --export "$TMPD/replay.pb.gz" >/dev/null \
	2>"$TMPD/err" || fail "the replay's export failed: $(cat "$TMPD/err")"
read -r r_req r_bytes r_ns < <(pprof_io "$TMPD/replay.pb.gz")
((r_req == requests && r_bytes == bytes && r_ns == ns)) ||
	fail "the replay's pprof: $r_req requests, $r_bytes bytes, $r_ns ns; live $requests, $bytes, $ns"
echo "by stack: the same $requests requests, $bytes bytes and $ns ns in pprof, folded," \
	"batch JSON and the replay's pprof ($(wc -l <"$TMPD/live.io.folded") stacks)"
