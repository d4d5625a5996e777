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
# The hammer's loop and its dd (which would write on for seconds after the loop).
trap 'kill $(pgrep -P $dd) $dd 2>/dev/null; wait $dd 2>/dev/null; rm -rf "$dir"' EXIT
dev=$(df --output=source "$dir" | tail -1)
case "$dev" in
/dev/*) disk=$(basename "$(readlink -f "$dev")") ;;
*) echo "skip: $dir is not on a block device ($dev)"; exit 77 ;;
esac
[ -e "/sys/block/$disk" ] || disk=$(basename "$(dirname "$(readlink -f "/sys/class/block/$disk")")")
[ -e "/sys/block/$disk" ] || { echo "skip: cannot tell the disk of $dev"; exit 77; }
[ "$(df --output=avail -k "$dir" | tail -1)" -gt 1000000 ] || { echo "skip: needs 1 GB free"; exit 77; }

# The same 400 MB rewritten until the test ends (killed at exit; 120 s at
# most): bounded space, steady load for however long a loaded machine takes.
timeout 120 bash -c "while :; do dd if=/dev/zero of='$dir/hammer' bs=1M count=400 \
	oflag=direct conv=notrunc 2>/dev/null; done" &
dd=$!
# Writing has begun before the first interval.
for _ in $(seq 300); do
	[ -s "$dir/hammer" ] && break
	sleep 0.1
done
[ -s "$dir/hammer" ] || { echo "FAIL: the disk hammer does not write"; exit 1; }
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
