#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# What --io costs the I/O it watches (issue #30 items 2 and 4). Two parts,
# chosen by PARTS (default "qd1 qd32"). Not run by CI. As root:
#
#   tests/bench/io_cost.sh [BUILD_DIR]      (default build/release)
#
# qd1: the mean time of a random 4 KiB O_DIRECT read of a loop device
# (tests/workloads/direct_reads: one read at a time, real-time on a CPU kept
# busy, READS reads a run), without threadtop, under threadtop at its
# defaults, and under threadtop --io, in alternating triples; the medians of
# the per-triple ratios. Then the direct cost, which the VM's noise does not
# move: the run time of --io's two programs (BPF_ENABLE_STATS) per read,
# against a read's time. The loop device is backed by a file in a scratch
# directory (losetup --direct-io=on), so each read is a request to the loop
# device and one to the disk under it: --io traces both.
#
# qd32: fio's random 4 KiB O_DIRECT reads at queue depth 32 (FIO_ENGINE,
# io_uring by default, or libaio), FIO_SECS seconds a run, of a loop device
# over a file in tmpfs (/dev/shm): one request per read, served from memory
# by the loop device's worker, so the box's CPUs, not a disk, bound the
# rate, and a tracer's cost per request shows whole. Or of DEVICE, read
# only: a disk, or a file on one (written, not sparse: O_DIRECT reads of it
# go through the file system to the disk under it, one request each), where
# the device's time, not the CPUs, bounds the rate.
# Rounds of four runs, without a tracer, under threadtop -b at its
# defaults, under threadtop -b --io, under
# bcc's biolatency (libbpf-tools, Debian's libbpf-tools; BIOLATENCY names
# another), the order turned each round; the medians of the per-round
# slowdowns (IOPS without / IOPS with). Then both tracers at once with
# BPF_ENABLE_STATS: each one's programs' run time per request.
#
# Environment: TRIPLES (7), READS (20000), ROUNDS (9), FIO_SECS (5),
# FIO_ENGINE (io_uring), DEVICE, BIOLATENCY (biolatency), PARTS.
set -uo pipefail

BUILD=${1:-build/release}
TT=$BUILD/threadtop
TRIPLES=${TRIPLES:-7}
READS=${READS:-20000}
ROUNDS=${ROUNDS:-9}
FIO_SECS=${FIO_SECS:-5}
FIO_ENGINE=${FIO_ENGINE:-io_uring}
DEVICE=${DEVICE:-}
BIOLATENCY=${BIOLATENCY:-biolatency}
PARTS=${PARTS:-qd1 qd32}
BENCH_WL=$BUILD/tests/workloads
. "$(dirname "$0")/lib_bench.bash"

[ "$(id -u)" -eq 0 ] || { echo "run as root"; exit 1; }
[ -x "$TT" ] && [ -x "$BENCH_WL/direct_reads" ] ||
	{ echo "build first: cmake --preset release && cmake --build build/release"; exit 1; }
BENCH_TMP=$(mktemp -d)
loop="" shm_dir=""
cleanup() {
	bench_tool_stop
	[ -n "$loop" ] && losetup -d "$loop"
	[ -n "$shm_dir" ] && rm -rf "$shm_dir"
	rm -rf "$BENCH_TMP"
}
trap cleanup EXIT

# one_run: the mean ns of READS reads of $loop (the workload's own timing).
one_run() {
	local out=$BENCH_TMP/wl.out wl
	"$BENCH_WL/direct_reads" "$loop" 0 "$READS" rt >"$out" 2>&1 &
	wl=$!
	until grep -q '^ready$' "$out"; do sleep 0.05; done
	kill -USR1 "$wl"
	until grep -q '^done ' "$out"; do sleep 0.05; done
	kill "$wl"
	wait "$wl" 2>/dev/null
	awk '/^done / { printf "%.0f\n", $3 / $2 }' "$out"
}

part_qd1() {
	dd if=/dev/zero of="$BENCH_TMP/backing.img" bs=1M count=64 oflag=direct status=none ||
		return 1
	loop=$(losetup -f --show --direct-io=on "$BENCH_TMP/backing.img") || return 1
	local a b c d t plain="" def="" io="" r_def="" r_io="" r_io_def=""
	for t in $(seq "$TRIPLES"); do
		a=$(one_run)
		bench_tool_start "$TT -b --format json -d 1 -n 100000"
		b=$(one_run)
		bench_tool_stop
		bench_tool_start "$TT -b --format json -d 1 -n 100000 --io"
		c=$(one_run)
		bench_tool_stop
		echo "triple $t: mean ns per read: none $a, threadtop $b, threadtop --io $c"
		plain+="$a " def+="$b " io+="$c "
		r_def+="$(bench_ratio "$b" "$a") "
		r_io+="$(bench_ratio "$c" "$a") "
		r_io_def+="$(bench_ratio "$c" "$b") "
	done
	echo "median ns per read: none $(bench_median <<<"$plain"), threadtop $(bench_median <<<"$def")," \
		"threadtop --io $(bench_median <<<"$io")"
	echo "slowdown (median of $TRIPLES triples): threadtop $(bench_median <<<"$r_def")x," \
		"threadtop --io $(bench_median <<<"$r_io")x, --io over threadtop $(bench_median <<<"$r_io_def")x"

	# The direct cost: --io's programs' mean run time (BPF_ENABLE_STATS, every
	# request of the box in that window) times the two requests of each read (the
	# loop device's and the disk's under it: an issue and a completion each).
	bench_tool_start "$TT -b --format json -d 1 -n 100000 --io --bpf-stats on --cpu-hz 0"
	d=$(one_run)
	bench_tool_stop
	grep '^{' "$BENCH_TMP/tool.out" | jq -rs --argjson mean "$d" '
		[.[].bpf_stats // {} | to_entries[] | select(.key | test("^io_"))]
		| group_by(.key) | map({key: .[0].key, n: (map(.value.run_cnt) | add),
			ns: (map(.value.run_time_ns) | add)} | .avg = (if .n > 0 then .ns / .n else 0 end))
		| (map(.avg) | add * 2) as $per_read
		| "direct cost: " + (map("\(.key) \(.n) runs, \(.avg | floor) ns each") | join("; "))
		  + "; \($per_read | floor) ns per read (2 requests) of \($mean) ns: "
		  + "\($per_read / $mean * 10000 | floor / 100)%"'
	losetup -d "$loop"
	loop=
}

# fio_iops DEVICE: the read IOPS of one fio run at queue depth 32.
fio_iops() {
	fio --name=qd32 --filename="$1" --readonly --rw=randread --bs=4k --direct=1 \
		--ioengine="$FIO_ENGINE" --iodepth=32 --runtime="$FIO_SECS" --time_based \
		--output-format=json 2>"$BENCH_TMP/fio.err" | jq -r '.jobs[0].read.iops | floor'
}

# qd32_run KIND DEVICE: fio's IOPS alone (none), under threadtop at its
# defaults (def), threadtop --io (tt) or biolatency (bl). Each tool has
# BENCH_SETTLE (3 s) to start before fio does.
qd32_run() {
	case $1 in
	def) bench_tool_start "$TT -b --format json -d 1 -n 100000" ;;
	tt) bench_tool_start "$TT -b --format json -d 1 -n 100000 --io" ;;
	bl) bench_tool_start "$BIOLATENCY" ;;
	esac
	fio_iops "$2"
	bench_tool_stop
}

part_qd32() {
	local dev=$DEVICE r k order none def tt bl
	local n_none="" n_def="" n_tt="" n_bl="" r_def="" r_tt="" r_tt_def="" r_bl="" r_tt_bl=""
	local BENCH_SETTLE=${BENCH_SETTLE:-3}

	command -v fio >/dev/null || { echo "qd32: no fio (apt-get install fio)"; return 1; }
	command -v "$BIOLATENCY" >/dev/null ||
		{ echo "qd32: no $BIOLATENCY (apt-get install libbpf-tools)"; return 1; }
	if [ -z "$dev" ]; then
		shm_dir=$(mktemp -d /dev/shm/io_cost.XXXXXX)
		dd if=/dev/zero of="$shm_dir/backing.img" bs=1M count=256 status=none || return 1
		loop=$(losetup -f --show "$shm_dir/backing.img") || return 1
		dev=$loop
		echo "qd32: $dev, a loop device over a file in tmpfs ($shm_dir), scheduler" \
			"$(cat "/sys/block/${dev#/dev/}/queue/scheduler")"
	else
		echo "qd32: $dev"
	fi
	echo "qd32: fio $FIO_ENGINE, random 4 KiB O_DIRECT reads, queue depth 32, $FIO_SECS s a run"
	for r in $(seq "$ROUNDS"); do
		# The order turns each round: none def tt bl, def tt bl none, ...
		order=(none def tt bl none def tt)
		order=("${order[@]:$(((r - 1) % 4)):4}")
		for k in "${order[@]}"; do
			printf -v "$k" '%s' "$(qd32_run "$k" "$dev")"
		done
		echo "round $r (${order[*]}): IOPS none $none, threadtop $def," \
			"threadtop --io $tt, biolatency $bl"
		n_none+="$none " n_def+="$def " n_tt+="$tt " n_bl+="$bl "
		r_def+="$(bench_ratio "$none" "$def") "
		r_tt+="$(bench_ratio "$none" "$tt") "
		r_tt_def+="$(bench_ratio "$def" "$tt") "
		r_bl+="$(bench_ratio "$none" "$bl") "
		r_tt_bl+="$(bench_ratio "$bl" "$tt") "
	done
	echo "qd32 median IOPS: none $(bench_median <<<"$n_none"), threadtop" \
		"$(bench_median <<<"$n_def"), threadtop --io $(bench_median <<<"$n_tt")," \
		"biolatency $(bench_median <<<"$n_bl")"
	echo "qd32 slowdown (median of $ROUNDS rounds, IOPS without / with): threadtop" \
		"$(bench_median <<<"$r_def")x, threadtop --io $(bench_median <<<"$r_tt")x," \
		"--io over threadtop $(bench_median <<<"$r_tt_def")x, biolatency" \
		"$(bench_median <<<"$r_bl")x, threadtop --io over biolatency $(bench_median <<<"$r_tt_bl")x"

	# Both at once, with the kernel's run-time statistics on: each tracer's
	# programs' time per request (each runs every program once a request).
	# bpftool here names no programs' processes: each tracer's are the ones
	# that came with it (threadtop's named io_*).
	local stats_was ids0 ids_tt ids_bl bl_pid before after
	stats_was=$(sysctl -n kernel.bpf_stats_enabled)
	sysctl -qw kernel.bpf_stats_enabled=1
	ids0=$(bpftool prog show -j | jq -c '[.[].id]')
	bench_tool_start "$TT -b --format json -d 1 -n 100000 --io"
	ids_tt=$(bpftool prog show -j | jq -c --argjson old "$ids0" \
		'[.[] | select((.id as $i | $old | index($i) | not) and (.name | startswith("io_"))) | .id]')
	setsid "$BIOLATENCY" >"$BENCH_TMP/bl.out" 2>&1 &
	bl_pid=$!
	sleep 1.5
	ids_bl=$(bpftool prog show -j | jq -c --argjson old "$ids0" --argjson tt "$ids_tt" \
		'[.[] | select((.id as $i | ($old + $tt) | index($i) | not) and (.name | startswith("block_"))) | .id]')
	before=$(bpftool prog show -j)
	tt=$(fio_iops "$dev")
	after=$(bpftool prog show -j)
	kill -INT "$bl_pid"
	wait "$bl_pid" 2>/dev/null
	bench_tool_stop
	sysctl -qw kernel.bpf_stats_enabled="$stats_was"
	jq -rn --argjson b "$before" --argjson a "$after" --argjson tt "$ids_tt" \
		--argjson bl "$ids_bl" --arg iops "$tt" '
		def runs($x; $ids): [$x[] | select(.id as $i | $ids | index($i))
			| {key: "\(.name)", value: {n: (.run_cnt // 0), ns: (.run_time_ns // 0)}}]
			| from_entries;
		def cost($ids; $what): runs($b; $ids) as $p0 | runs($a; $ids) as $p1
			| [$p1 | to_entries[] | select(.value.n - ($p0[.key].n // 0) > 0)
			   | {name: .key, n: (.value.n - ($p0[.key].n // 0)),
			      ns: (.value.ns - ($p0[.key].ns // 0))}]
			| "\($what): " + (map("\(.name) \(.n) runs, \(.ns / .n | floor) ns each") | join("; "))
			  + "; \(map(.ns / .n) | add // 0 | floor) ns a request";
		cost($tt; "threadtop --io"), cost($bl; "biolatency"),
		"both at once: \($iops) IOPS"'
	losetup -d "$loop" 2>/dev/null
	loop=
}

for part in $PARTS; do
	case $part in
	qd1) part_qd1 ;;
	qd32) part_qd32 ;;
	*) echo "unknown part $part (qd1, qd32)" ;;
	esac
done
