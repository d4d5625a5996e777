#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Four spinning threads on two CPUs: the USE verdict must name the CPU as
# saturated (generous: in at least one of three intervals, since the machine
# is shared), with the runnable-per-CPU figure over 1.
set -u
command -v jq >/dev/null || { echo "skip: jq not installed"; exit 77; }
command -v taskset >/dev/null || { echo "skip: taskset (util-linux) not installed"; exit 77; }
: "${TT_BIN:?}" "${TT_WORKLOADS:?}"
[ "$(nproc --all)" -ge 2 ] || { echo "skip: needs two CPUs"; exit 77; }
tmp=$(mktemp -d)
trap 'kill $spin 2>/dev/null; rm -rf "$tmp"' EXIT

# Until killed: a slow start-up of threadtop must not outlast the spinners.
taskset -c 0,1 "$TT_WORKLOADS/use_spin" 4 300 &
spin=$!
for _ in $(seq 300); do
	[ "$(ls /proc/$spin/task 2>/dev/null | wc -l)" -ge 5 ] && break
	sleep 0.1
done
"$TT_BIN" -b -d 2 -n 3 --source proc --format json >"$tmp/tt.json" || { echo "threadtop failed"; exit 1; }
jq -c '.verdict | {level, component, text}' "$tmp/tt.json"
named=$(jq -s '[.[] | select(.verdict.level == "saturated" and .verdict.component.kind == "cpu")] | length' "$tmp/tt.json")
[ "$named" -ge 1 ] || { echo "FAIL: the verdict never named the CPU"; exit 1; }
echo "CPU named in $named of 3 intervals"
