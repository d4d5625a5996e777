#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# A disk hammer (direct writes with dd): the disk holding the file must be
# flagged saturated (average queue > 1 or PSI io) in at least one interval,
# and named by the verdict unless a resource ranked higher (on a shared
# machine, usually the CPU) is saturated too; the test says which happened.
set -u
command -v jq >/dev/null || { echo "skip: jq not installed"; exit 77; }
: "${TT_BIN:?}" "${TT_BUILD:?}"
dir=$(mktemp -d "$TT_BUILD/use_disk.XXXXXX")
# At exit: the hammer (timeout, its bash loops) and the loops' dd, which
# would write on for seconds after their loop is gone.
dd=
kill_tree() {
	local c
	for c in $(pgrep -P "$1"); do kill_tree "$c"; done
	kill "$1" 2>/dev/null
}
stop_hammer() {
	[ -n "$dd" ] || return 0
	kill_tree "$dd"
	wait "$dd" 2>/dev/null
}
trap 'stop_hammer; rm -rf "$dir"' EXIT
dev=$(df --output=source "$dir" | tail -1)
case "$dev" in
/dev/*) disk=$(basename "$(readlink -f "$dev")") ;;
*) echo "skip: $dir is not on a block device ($dev)"; exit 77 ;;
esac
[ -e "/sys/block/$disk" ] || disk=$(basename "$(dirname "$(readlink -f "/sys/class/block/$disk")")")
[ -e "/sys/block/$disk" ] || { echo "skip: cannot tell the disk of $dev"; exit 77; }
[ "$(df --output=avail -k "$dir" | tail -1)" -gt 1000000 ] || { echo "skip: needs 1 GB free"; exit 77; }

# Four writers, each rewriting its own 100 MB, until the test ends (killed at
# exit; 120 s at most): bounded space, and a queue that stays over 1 on a
# machine whose CPUs other jobs saturate (one dd, starved of CPU, left the
# disk idle a third of the time: queue 0.7).
timeout 120 bash -c "for i in 1 2 3 4; do
	(while :; do dd if=/dev/zero of='$dir'/hammer\$i bs=1M count=100 \
		oflag=direct conv=notrunc 2>/dev/null; done) &
done; wait" &
dd=$!
# Every writer has begun before the first interval.
writing() { for i in 1 2 3 4; do [ -s "$dir/hammer$i" ] || return 1; done; }
for _ in $(seq 300); do
	writing && break
	sleep 0.1
done
writing || { echo "FAIL: the disk hammer does not write"; exit 1; }
"$TT_BIN" -b -d 2 -n 4 --source proc --format json >"$dir/out.json" || { echo "threadtop failed"; exit 1; }
jq -c --arg d "$disk" '[.verdict.text, (.use[] | select(.kind == "disk" and .name == $d) |
	{util_pct, saturated, queue: .saturation.value, psi_some_pct, await_ms})]' "$dir/out.json"
flagged=$(jq -s --arg d "$disk" '[.[].use[] | select(.kind == "disk" and .name == $d and .saturated)] | length' "$dir/out.json")
named=$(jq -s --arg d "$disk" '[.[] | select(.verdict.component.name == $d)] | length' "$dir/out.json")
[ "$flagged" -ge 1 ] || { echo "FAIL: $disk never flagged saturated under the hammer"; exit 1; }
if [ "$named" -ge 1 ]; then
	echo "verdict named $disk in $named of 4 intervals"
else
	echo "note: $disk saturated in $flagged intervals, but the verdict named a higher-ranked resource"
fi
