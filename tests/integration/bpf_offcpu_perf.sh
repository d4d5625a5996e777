#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# --offcpu stacks agree with perf's: block_sites blocks at four user call
# sites (fsync, which waits in several kernel paths, nanosleep, a pipe read,
# poll), built without frame pointers. Over the same seconds, perf record -e
# sched:sched_switch -g -a gives each switch-out's kernel stack; its off-CPU
# time runs to the thread's next switch-in. Both split the process's off-CPU
# time by kernel leaf + 3 callers; the split must agree on >= 90% of it. The
# user stacks must name each site's function (DWARF, not the frame-pointer
# walk that stops in glibc), and no stack may hold threadtop's own tracing
# frames (bpf_prog_*, bpf_trace_run*, __traceiter_*; perf's own stacks show
# __traceiter_sched_switch while a second tracer is attached: skipped in its
# keys). perf needs tracefs: it
# is mounted for the run when it is not, and unmounted after.
. "$(dirname "$0")/bpf_common.bash"

command -v perf >/dev/null || skip "perf is not installed (Debian linux-perf)"
TRACEFS=/sys/kernel/tracing
mounted=
if [ ! -e $TRACEFS/events/sched/sched_switch ]; then
	grep -qw tracefs /proc/filesystems || skip "the kernel has no tracefs: perf cannot trace sched_switch"
	mount -t tracefs nodev $TRACEFS || skip "cannot mount tracefs on $TRACEFS for perf"
	mounted=1
	echo "note: mounted tracefs on $TRACEFS for perf; unmounted at the end"
fi
SCRATCH=()
untrace() {
	[ -z "$mounted" ] || umount -l $TRACEFS || true
	cleanup
	rm -rf "${SCRATCH[@]}"
}
trap untrace EXIT

# syncer_blocks PID: block_sites PID's syncer thread waited (voluntary
# context switches) in fsync in the last second; its count in NV.
syncer_blocks() {
	local t f a b
	for f in /proc/"$1"/task/*/comm; do
		[ "$(cat "$f")" = syncer ] && t=${f%/comm}
	done
	[ -n "${t:-}" ] || fail "block_sites $1 has no syncer thread"
	a=$(awk '/^voluntary_ctxt_switches/ { print $2 }' "$t/status")
	sleep 1
	b=$(awk '/^voluntary_ctxt_switches/ { print $2 }' "$t/status")
	NV=$((b - a))
	((NV >= 5))
}
# The syncer's file must be block-backed: on tmpfs (and an overlay over one,
# the kernel harness's root) fsync returns at once and the thread never
# blocks in the kernel. The first of $TMPD and /var/tmp (the harness's ext4
# disk) where it blocks, or a skip naming the file systems.
tried=""
for dir in "$TMPD" /var/tmp; do
	[ "$dir" = "$TMPD" ] || dir=$(mktemp -d -p "$dir") || continue
	[ "$dir" = "$TMPD" ] || SCRATCH+=("$dir")
	start block_sites "$dir"
	wl=$WL
	wait_threads "$wl" 6
	syncer_blocks "$wl" && break
	tried="$tried $dir ($(stat -f -c %T "$dir"): $NV waits in 1 s)"
	kill "$wl"
	wl=""
done
[ -n "$wl" ] || skip "fsync does not block on the file systems here:$tried; the syncer needs a block-backed one"
tids=$(ls /proc/"$wl"/task | tr '\n' ' ')
secs=3
out=$TMPD/oc.json
# The whole of a core for DWARF (the budget has checks of its own in
# bpf_unwind): under TCG an unwind takes ~1 ms, and with the default 1%
# the syncer's stacks (it blocks thousands of times a second) were the
# frame-pointer walk's, which stops in glibc's fsync (6.12.118).
"$TT_BIN" -b --format json -n $((secs + 1)) -d 1 --source bpf --offcpu --unwind auto --cpu-hz 0 \
	--unwind-budget 100 -p "$wl" >"$out" 2>"$TMPD/tt.err" &
tt=$!
wait_first_line "$out"
# perf over the same seconds (threadtop's first interval is under way).
perf record -q -e sched:sched_switch -g -a -o "$TMPD/perf.data" -- sleep $secs \
	>"$TMPD/perf.err" 2>&1 || fail "perf record: $(cat "$TMPD/perf.err")"
wait "$tt" || fail "threadtop failed: $(cat "$TMPD/tt.err")"
perf script -i "$TMPD/perf.data" -F tid,time,trace,ip,sym 2>/dev/null >"$TMPD/perf.txt" ||
	fail "perf script failed"

# perf: off-CPU ns by "leaf;caller1;caller2;caller3" of the switch-out.
awk -v tids="$tids" '
BEGIN { n = split(tids, t, " "); for (i = 1; i <= n; i++) ours[t[i]] = 1 }
function flush() {
	if (prev != "" && blocked) { out_t[prev] = now; out_k[prev] = prev "\t" key }
	prev = ""
}
/prev_pid=/ {
	flush()
	now = $2; sub(":", "", now); now += 0
	p = ""; nx = ""; st = ""
	for (i = 1; i <= NF; i++) {
		if ($i ~ /^prev_pid=/) p = substr($i, 10)
		if ($i ~ /^next_pid=/) nx = substr($i, 10)
		if ($i ~ /^prev_state=/) st = substr($i, 12)
	}
	if (nx in ours && nx in out_t) {
		ns[out_k[nx]] += (now - out_t[nx]) * 1e9
		delete out_t[nx]
	}
	prev = (p in ours) ? p : ""
	blocked = st !~ /^R/
	key = ""; depth = 0
	next
}
# perf shows __traceiter_sched_switch while threadtop (a second user) traces too.
prev != "" && $1 ~ /^ffffffff/ && $2 !~ /^(__traceiter_|bpf_)/ && depth < 4 {
	key = key (depth ? ";" : "") $2; depth++
}
END { flush(); for (k in ns) printf "%s\t%.0f\n", k, ns[k] }
' "$TMPD/perf.txt" | sort >"$TMPD/perf.keys"
[ -s "$TMPD/perf.keys" ] || fail "perf saw no switches of $wl: $(head -c 300 "$TMPD/perf.txt")"

# threadtop: the same key from its stacks (root first, kernel frames "_[k]").
# Interval 1 ended before perf started: the intervals after it are perf's window.
jq -r -s '[.[1:][] | .offcpu[]? | select(.ns > 0)] | .[] |
	(.tid | tostring) + "\t" +
	([.frames[] | select(endswith("_[k]")) | rtrimstr("_[k]")] | reverse | .[0:4] | join(";"))
	+ "\t" + (.ns | tostring)' "$out" |
	awk -F'\t' '{ ns[$1 "\t" $2] += $3 } END { for (k in ns) printf "%s\t%.0f\n", k, ns[k] }' |
	sort >"$TMPD/tt.keys"
[ -s "$TMPD/tt.keys" ] || fail "threadtop has no off-CPU stacks: $(head -c 500 "$out")"

# Per thread: the shares of its off-CPU time under each stack, perf's and
# threadtop's, overlapped, then averaged over the threads (each counts the
# same, so the fsync thread's several paths weigh as much as a sleeper's
# one). The question is which kernel stack each block is in. Totals are
# not compared: with the disk busy, perf saw a small part of the fsync
# thread's blocked time that threadtop counts (0.1 s against 2.2 s of 3 s,
# the thread does nothing but fsync); which is short is open. load_truth
# checks totals against the workload's own clock.
agree=$(awk -F'\t' 'FNR == NR { p[$1 "\t" $2] = $3; pt[$1] += $3; next }
{ t[$1 "\t" $2] = $3; tt[$1] += $3 }
END {
	for (k in p) {
		split(k, f, "\t")
		a = p[k] / pt[f[1]]; b = (k in t) ? t[k] / tt[f[1]] : 0
		s += (a < b ? a : b)
	}
	for (tid in pt) n++
	printf "%.3f", n ? s / n : 0
}' "$TMPD/perf.keys" "$TMPD/tt.keys")
echo "tid, kernel leaf + 3 callers, off-CPU ns (perf | threadtop):"
join -t$'\t' -a1 -a2 -e0 -o 0,1.2,2.2 <(sed 's/\t/|/' "$TMPD/perf.keys" | sort) \
	<(sed 's/\t/|/' "$TMPD/tt.keys" | sort) |
	awk -F'\t' '{ printf "  %-96s %14s %14s\n", $1, $2, $3 }' | sort -k2 -nr | head -16
echo "agreement: $agree"
awk -v a="$agree" 'BEGIN { exit !(a >= 0.90) }' ||
	fail "threadtop's off-CPU kernel stacks agree with perf's on $agree of the time (< 0.90)"

# The syncer blocks in more than one kernel path under one user call site.
nk=$(jq -s '[.[] | .offcpu[]? | select(.comm == "syncer") | .frames | map(select(endswith("_[k]")))
	| join(";")] | unique | length' "$out")
[ "$nk" -ge 2 ] || fail "syncer's fsync has $nk kernel stack(s); perf: $(grep -c . "$TMPD/perf.keys")"

jq -e -s '[.[] | .offcpu[]? | .frames[]] | map(select(test("^(bpf_prog_|bpf_trace_run|__traceiter_|__bpf_trace_)"))) | length == 0' \
	"$out" >/dev/null || fail "threadtop's own tracing frames in off-CPU stacks: $(jq -c -s \
	'[.[] | .offcpu[]? | .frames[] | select(test("bpf_"))] | unique' "$out")"
for site in syncer:sync_site sleeper:sleep_site reader:read_site poller:poll_site; do
	comm=${site%%:*} fn=${site#*:}
	share=$(jq -s --arg c "$comm" --arg f "$fn" '[.[] | .offcpu[]? | select(.comm == $c)] |
		([.[] | .ns] | add // 0) as $all |
		([.[] | select(.frames | map(startswith($f)) | any) | .ns] | add // 0) / ($all + 1)' "$out")
	echo "$comm: $share of its off-CPU time under $fn"
	awk -v s="$share" 'BEGIN { exit !(s >= 0.9) }' ||
		fail "$comm's off-CPU stacks miss $fn: $(jq -c -s --arg c "$comm" \
		'[.[] | .offcpu[]? | select(.comm == $c) | .frames | join(";")] | unique' "$out")"
done
echo PASS
