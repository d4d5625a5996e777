#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# --io links a thread sampled in D to the block request it waits on (issue
# #30 item 2): direct_reads makes random 4 KiB O_DIRECT reads of a loop
# device, one at a time, so that whenever it is in D it waits on its one
# read in flight. With one pass an interval (-d 0.1 at 10 Hz), each
# interval whose pass saw the thread in D must name that request in batch
# JSON's threads[].io_wait (the device as /sys names it, a read of 4096
# bytes, made before the pass) in most intervals (a request
# that completed as the pass read the thread leaves a D sample without one),
# and never where the thread was not in D; a request's age is never more
# than the longest latency (bpf_io checks them against the workload's own
# timing) of the requests that completed in that interval or at the
# thread's next completion, one of which it is (a link to a request long
# done, its completion unseen, would be older; a request that completes
# after the run is not bounded); a recording replays the same links. On a
# loaded box many intervals hold no pass on the thread or two (the latest
# state is then unknown), so sessions run until 10 intervals have ended in D
# (5 at most).
. "$(dirname "$0")/bpf_common.bash"
. "$(dirname "$0")/lib/loop_dev.bash"
command -v python3 >/dev/null || skip "python3 is not installed"
loop_dev_setup "$TMPD"
trap 'loop_dev_detach; cleanup' EXIT
loop=$LOOP
name=$LOOP_NAME

start direct_reads "$loop" 60 0
wl=$WL
out=$TMPD/direct_reads.out
wait_until "direct_reads did not start" grep -q '^ready$' "$out"
kill -USR1 "$wl"

# check LIVE: prints what LIVE shows and writes "in_d linked" to LIVE.counts;
# fails on any wrong link.
check() {
	python3 - "$1" "$wl" "$name" <<'PY'
import json, statistics, sys
path, tid, name = sys.argv[1], int(sys.argv[2]), sys.argv[3]
in_d = linked = single = 0
bad, links = [], []
ivs = [json.loads(line) for line in open(path)]
# The longest request that completed in each interval: the upper bound of
# its highest log2 bucket.
longest = []
for iv in ivs:
    top = 0
    for r in iv.get("io", {}).get("threads", []):
        if r["tid"] == tid and r["device"] == name:
            h = r["hist_log2_ns"]
            nz = [b for b, c in enumerate(h) if c]
            if nz:
                top = max(top, 2 ** (nz[-1] + 1))
    longest.append(top)
for n, iv in enumerate(ivs):
    th = [t for t in iv["threads"] if t["tid"] == tid]
    if not th:
        continue
    t = th[0]
    s = t.get("samples", {})
    w = t.get("io_wait")
    if sum(s.values()) != 1:
        continue  # a pass missed, or two: the latest state is not known from the counts
    single += 1
    if "D" not in s:
        if w:
            bad.append(f"interval {n + 1}: a request named for a thread in {list(s)}")
        continue
    in_d += 1
    if not w:
        continue
    linked += 1
    if w["device"] != name or w["op"] != "read" or w["bytes"] != 4096:
        bad.append(f"interval {n + 1}: {w}")
    # The request completes in this interval or at the next completion of
    # the thread's (one read at a time), no shorter than its age then; a
    # loaded box can hold it past the next interval (a 45 ms request with
    # none done in the next two 100 ms intervals, in CI's ASan suite). One
    # whose completion came after the run has no bound.
    later = [longest[m] for m in range(n + 1, len(ivs)) if longest[m]]
    if not later:
        continue
    bound = max(longest[n], later[0])
    links.append((w["age_ns"], bound))
    if not 0 < w["age_ns"] <= bound:
        bad.append(f"interval {n + 1}: age {w['age_ns']} ns, the longest request {bound} ns")
ages = sorted(a for a, _ in links)
print(f"{len(ivs)} intervals, {single} with one pass on the thread, {in_d} of them ended in D, "
      f"{linked} named its request; median age {statistics.median(ages) if ages else 0:.0f} ns")
for b in bad[:5]:
    print("BAD", b)
open(path + ".counts", "w").write(f"{in_d} {linked}\n")
sys.exit(1 if bad else 0)
PY
}

links() { jq -c --argjson tid "$wl" '[.threads[] | select(.tid == $tid) | .io_wait]' "$1"; }

in_d=0 linked=0
for run in 1 2 3 4 5; do
	live=$TMPD/live$run.json rec=$TMPD/rec$run.ttr
	"$TT_BIN" -b --format json -F 10 -d 0.1 -n 60 --source bpf --cpu-hz 0 --io -p "$wl" \
		-w "$rec" >"$live" 2>"$TMPD/err" || fail "threadtop: $(cat "$TMPD/err")"
	grep -q -- '--io' "$TMPD/err" && fail "--io warned: $(cat "$TMPD/err")"
	check "$live" || fail "the D samples' requests are not the reads"
	read -r d l <"$live.counts"
	in_d=$((in_d + d)) linked=$((linked + l))

	"$TT_BIN" -r "$rec" -b --format json >"$TMPD/replay.json" 2>"$TMPD/rerr" ||
		fail "the replay failed: $(cat "$TMPD/rerr")"
	diff <(links "$live") <(links "$TMPD/replay.json") >"$TMPD/diff" ||
		fail "the replay's io_wait differs: $(head -c 600 "$TMPD/diff")"
	((in_d >= 10)) && break
done
((in_d >= 10)) || fail "only $in_d intervals ended with the thread in D in $run sessions"
((linked * 10 >= in_d * 6)) || fail "only $linked of $in_d D intervals named the request"
echo "ok: $linked of $in_d D intervals named their reads in $run session(s); the replays the same"
