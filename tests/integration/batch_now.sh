#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Batch JSON says what the TUI's header says (tui_htop.sh checks the screen):
# "now" counts the threads alive at the latest pass by state, on workloads
# with known states (3 spinners + their sleeping main thread, a vfork parent
# in D, a SIGSTOPped process, a zombie); stopped and zombie threads are never
# active; "host" has the load average /proc/loadavg gives; the process columns
# (user, rss_bytes, cpu_total_s) match /proc/PID/stat and status.
set -u
: "${TT_BIN:?}" "${TT_WORKLOADS:?}"
. "$(dirname "$0")/lib/test_wait.bash"
command -v python3 >/dev/null || {
	echo "SKIP: python3 is not installed"
	exit 77
}
fail() {
	echo "FAIL: $*"
	exit 1
}
out=$(mktemp)
pids=()
cleanup() {
	local p
	for p in $(cat "/proc/$VF/task/$VF/children" 2>/dev/null) "${pids[@]}"; do
		kill -KILL "$p" 2>/dev/null || true
	done
	rm -f "$out"
}
trap cleanup EXIT
state_of() { cut -d' ' -f3 "/proc/$1/stat" 2>/dev/null; }

"$TT_WORKLOADS/spinners" 3 600 >/dev/null 2>&1 &
SPIN=$!
pids+=("$SPIN")
"$TT_WORKLOADS/vfork_parent" 600 >/dev/null 2>&1 &
VF=$!
pids+=("$VF")
sleep 600 >/dev/null 2>&1 &
STOPPED=$!
pids+=("$STOPPED")
kill -STOP "$STOPPED"
sh -c 'sleep 0 & exec sleep 600' >/dev/null 2>&1 &
ZP=$!
pids+=("$ZP")
zombie() {
	Z=$(awk '{print $1}' "/proc/$ZP/task/$ZP/children" 2>/dev/null)
	[ -n "$Z" ] && [ "$(state_of "$Z")" = Z ]
}
wait_until "the zombie" zombie
# (eval: each try reads /proc anew; "$(...)" as an argument is read once.)
wait_until "4 spinner threads" eval '[ "$(ls "/proc/$SPIN/task" | wc -l)" -ge 4 ]'
wait_until "the vfork parent in D" eval '[ "$(state_of "$VF")" = D ]'
wait_until "the stopped process" eval '[ "$(state_of "$STOPPED")" = T ]'

check() { # SOURCE: the last interval of $out
python3 - "$out" "$SPIN" "$STOPPED" "$Z" "$1" <<'PY' || exit 1
import json, os, pwd, sys
lines = open(sys.argv[1]).read().split("\n")
d = json.loads([l for l in lines if l][-1])
spin, stopped, zombie = (int(x) for x in sys.argv[2:5])
now = dict(d["now"])
want = {"threads": 7, "running": 3, "waiting": 0, "disk_wait": 1, "stopped": 1, "zombie": 1}
if sys.argv[5] == "bpf":
    # BPF tells a spinner on a CPU from one waiting for it: 3 of them on 2 CPUs.
    if now["running"] + now["waiting"] != 3 or now["running"] > 2:
        sys.exit("FAIL: bpf: running %d + waiting %d, want 3 (at most 2 on CPUs)" %
                 (now["running"], now["waiting"]))
    now["running"], now["waiting"] = 3, 0
if now != want:
    sys.exit("FAIL: %s: now %s, want %s" % (sys.argv[5], d["now"], want))
for t in d["threads"]:
    if t["pid"] in (stopped, zombie) and t["avg_active"] != 0:
        sys.exit("FAIL: pid %d counts as active: %s" % (t["pid"], t["avg_active"]))
load = float(open("/proc/loadavg").read().split()[0])
if abs(d["host"]["load1"] - load) > 3:
    sys.exit("FAIL: load1 %s, /proc/loadavg %s" % (d["host"]["load1"], load))
main = [t for t in d["threads"] if t["tid"] == spin][0]
user = pwd.getpwuid(os.stat("/proc/%d" % spin).st_uid).pw_name
if main.get("user") != user:
    sys.exit("FAIL: user %s, want %s" % (main.get("user"), user))
rss = int(open("/proc/%d/stat" % spin).read().rsplit(")", 1)[1].split()[21]) * os.sysconf("SC_PAGE_SIZE")
if not (0 < main["rss_bytes"] and abs(main["rss_bytes"] - rss) <= max(rss // 2, 1 << 20)):
    sys.exit("FAIL: rss_bytes %s, /proc says %s" % (main["rss_bytes"], rss))
print("%s: now %s, load1 %s" % (sys.argv[5], d["now"], d["host"]["load1"]))
PY
}
"$TT_BIN" -b --format json --source proc -d 0.5 -n 4 -p "$SPIN,$VF,$STOPPED,$Z" >"$out" ||
	fail "threadtop failed"
check proc
# BPF where it loads (it tells waiting from running); recorded, and the replay says the same.
rec=$(mktemp -u)
if "$TT_BIN" -b --format json --source bpf -d 0.5 -n 4 -p "$SPIN,$VF,$STOPPED,$Z" -w "$rec" \
	>"$out" 2>/dev/null; then
	check bpf
	live=$(tail -1 "$out" | python3 -c 'import json,sys; d=json.loads(sys.stdin.read()); print(d["now"], d["host"]["load1"])')
	"$TT_BIN" -b --format json -r "$rec" >"$out" 2>/dev/null || fail "replay failed"
	rm -f "$rec"
	check bpf
	replay=$(tail -1 "$out" | python3 -c 'import json,sys; d=json.loads(sys.stdin.read()); print(d["now"], d["host"]["load1"])')
	[ "$live" = "$replay" ] || fail "the replay says $replay, the live run $live"
else
	echo "bpf: skipped (the BPF source does not load here)"
fi
echo "PASS: batch_now"
