#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Container awareness: a spinner moved into a cgroup named as Kubernetes'
# systemd driver and containerd name theirs shows up in /metrics with
# container="pod/<uid>/containerd/<12 hex>" and carries the same "container"
# label on its pprof samples (the label pprof readers filter and group by).
. "$(dirname "$0")/bpf_common.bash"
. "$(dirname "$0")/lib/serve_common.bash"
command -v go >/dev/null || skip "go is not installed (Debian package golang-go)"
export HOME=$TMPD PPROF_TMPDIR=$TMPD GOCACHE=$TMPD/gocache

root=""
for d in /sys/fs/cgroup /sys/fs/cgroup/unified; do
	[ -e "$d/cgroup.controllers" ] && root=$d && break
done
[ -n "$root" ] || skip "no cgroup v2 hierarchy under /sys/fs/cgroup"
uid=6f1c2d3e_4a5b_6c7d_8e9f_$(printf '%012x' $$)
id=$(printf '%064x' $((0x7a11ce00 + $$)))
top="$root/tt-test-$$-kubepods.slice"
leaf="$top/kubepods-burstable-pod$uid.slice/cri-containerd-$id.scope"
mkdir -p "$leaf" 2>/dev/null || skip "cannot make a cgroup under $root (read-only?)"
uncgroup() {
	for p in "${WL_PIDS[@]}"; do echo "$p" >"$root/cgroup.procs" 2>/dev/null || true; done
	rmdir "$leaf" "$(dirname "$leaf")" "$top" 2>/dev/null || true
}
trap 'uncgroup; cleanup' EXIT

start named_spinner "$TT_WL_LIFE" hotspinner
sp=$WL
wait_comms "$sp" hotspinner
echo "$sp" >"$leaf/cgroup.procs" || skip "cannot move a process into $leaf"
want="pod/${uid//_/-}/containerd/${id:0:12}"
start_serving -d 1 -p "$sp"
cg=$(stat -c %i "$leaf")

has_container() {
	curl -sf --max-time 5 "http://$ADDR/metrics" >"$TMPD/metrics.txt" &&
		grep -q "^threadtop_cgroup_active_threads{cgroup=\"$cg\",container=\"$want\"} " \
			"$TMPD/metrics.txt"
}
wait_until "/metrics names cgroup $cg $want" has_container
v=$(metric "$TMPD/metrics.txt" "threadtop_cgroup_active_threads{cgroup=\"$cg\",container=\"$want\"}")
# (Loose: the point here is the name; a slow build, ASan, misses ticks.)
python3 -c 'import sys; sys.exit(not 0.8 <= float(sys.argv[1]) <= 1.2)' "$v" ||
	fail "the spinner's container: $v active threads, not ~1.0"

# pprof: the container label on the samples, and the cgroup filter.
curl -sf --max-time 10 -o "$TMPD/p.pb.gz" "http://$ADDR/debug/pprof/profile?seconds=1&cgroup=$cg" ||
	fail "GET profile"
go tool pprof -raw "$TMPD/p.pb.gz" >"$TMPD/raw.txt" 2>&1 || fail "pprof: $(cat "$TMPD/raw.txt")"
grep -q "container:\[$want\]" "$TMPD/raw.txt" || fail "no container label: $(head -20 "$TMPD/raw.txt")"
grep -q 'tt_export_hot_fn' "$TMPD/raw.txt" || fail "cgroup=$cg lost the spinner's samples"
curl -sf --max-time 10 -o "$TMPD/q.pb.gz" "http://$ADDR/debug/pprof/profile?seconds=1&cgroup=1" ||
	fail "GET profile of another cgroup"
go tool pprof -raw "$TMPD/q.pb.gz" >"$TMPD/other.txt" 2>&1 || fail "pprof: $(cat "$TMPD/other.txt")"
grep -q 'tt_export_hot_fn' "$TMPD/other.txt" && fail "cgroup=1 kept the spinner's samples"
echo "PASS: cgroup $cg named $want in /metrics and pprof; the cgroup filter narrows"
