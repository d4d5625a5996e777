#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Recording size on a live workload (not a timed test): 200 threads (20
# spinning, 180 sleeping) recorded for 10 s with each source that can run
# here, in bytes per thread-sample; then the synthetic benchmark
# (bench_record: bytes against CSV and zstd JSON, replay ingest, seeking in
# a one-hour recording). Usage: bench_record_live.sh [BUILD_DIR] [SECONDS]
# [INTERVALS] [THREADS] (default build/release 3600 10 200: SECONDS is the
# length of the synthetic long recording, INTERVALS the live run's, THREADS
# the synthetic session's). Run as root for the BPF source.
set -euo pipefail
build=${1:-build/release}
long=${2:-3600}
intervals=${3:-10}
tt="$build/threadtop"
tmp=$(mktemp -d)
"$build/tests/workloads/rr_threads" 20 180 120 &
wl=$!
trap 'kill $wl 2>/dev/null; rm -rf "$tmp"' EXIT
sleep 0.5

echo "live: 200 threads (-p), 20 Hz, $intervals intervals of 1 s"
for src in bpf proc; do
	if ! "$tt" -b --format json --source "$src" -n "$intervals" -p "$wl" -w "$tmp/$src.ttr" \
		>"$tmp/$src.json" 2>"$tmp/$src.err"; then
		echo "  $src: cannot run here: $(head -n 1 "$tmp/$src.err")"
		continue
	fi
	samples=$(jq '[.threads[].samples[]] | add' "$tmp/$src.json" | awk '{ s += $1 } END { print s }')
	bytes=$(stat -c %s "$tmp/$src.ttr")
	awk -v b="$bytes" -v s="$samples" -v src="$src" \
		'BEGIN { printf "  %-4s source: %6.2f bytes/thread-sample (%d bytes, %d samples)\n", src, b / s, b, s }'
done
"$build/tests/bench_record" "$tmp" "$long" "${4:-200}"
