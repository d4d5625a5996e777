#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The thread sampler's cost per tick on this kernel: threadtop's batch JSON
# cost.tick_ms_avg, system-wide at default settings, beside 1,000 and 10,000
# idle threads (tests/workloads/idle_threads). Run as root on the host or in
# the kernel harness's guest, so that kernels compare under one emulation:
#
#   tests/kernels/run-kernel --cmd "bash $PWD/tests/kernels/tick-cost.sh" PACKAGE
#
# Prints one line per size and binary: the median and range of the
# per-interval averages of the last intervals (the first TT_COST_SKIP,
# default 6, left out: start-up, and the first DWARF copies of each thread's
# stack, 64 a tick), the ticks each of them ran (20 a second unless ticks
# were missed), how the thread sampler went (its --log line) and threadtop's
# messages (the load messages among them).
#
# TT_COST_BINS: threadtop binaries to compare (default the build's), run in
# turn TT_COST_ROUNDS times (default 1) beside the same idle threads, so that
# two builds compare under the same emulation and the same host load;
# TT_COST_ARGS: more options for every run (e.g. --unwind fp).
set -eu
: "${TT_BUILD:=$(pwd)}"
bins=${TT_COST_BINS:-$TT_BUILD/threadtop}
wl=$TT_BUILD/tests/workloads/idle_threads
intervals=${TT_COST_INTERVALS:-12}
skip=${TT_COST_SKIP:-6}
rounds=${TT_COST_ROUNDS:-1}
read -r -a extra <<<"${TT_COST_ARGS:-}"
tmp=$(mktemp -d)
trap 'kill "$idle" 2>/dev/null || true; rm -rf "$tmp"' EXIT
idle=

for n in ${TT_COST_SIZES:-1000 10000}; do
	"$wl" "$n" 3600 &
	idle=$!
	end=$((SECONDS + 300))
	while t=(/proc/"$idle"/task/*) && [ "${#t[@]}" -le "$n" ]; do
		[ $SECONDS -lt $end ] || { echo "idle_threads $n did not start"; exit 1; }
		sleep 0.5
	done
	for ((r = 1; r <= rounds; r++)); do
		for bin in $bins; do
			rm -f "$tmp/log"
			"$bin" -b --format json -d 1 -n "$intervals" --log "$tmp/log" "${extra[@]}" \
				>"$tmp/out" 2>"$tmp/err"
			jq -rs --arg n "$n" --arg k "$(uname -r)" --argjson s "$skip" --arg b "$bin" '.[$s:] |
				(map(.cost.ticks) | map(tostring) | join(",")) as $t | map(.cost.tick_ms_avg) | sort |
				"kernel \($k): \($n) idle threads: \($b): tick_ms_avg median \(.[length / 2 | floor]) (\(.[0])-\(.[-1]), \(length) intervals; ticks \($t))"' "$tmp/out"
			grep -ho 'thread sampler: .*' "$tmp/log" | sed 's/^/  log: /' || true
			sed 's/^/  message: /' "$tmp/err"
		done
	done
	kill "$idle"
	wait "$idle" 2>/dev/null || true
done
