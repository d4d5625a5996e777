# SPDX-License-Identifier: GPL-2.0-only
# Sourced by the bpf_*.sh integration tests: skip (exit 77) with a reason when
# BPF cannot load here (not root, no BTF, no BPF permission), fail otherwise;
# helpers to start workloads and to read threadtop's NDJSON.
set -euo pipefail

fail() {
	echo "FAIL: $*"
	exit 1
}
skip() {
	echo "SKIP: $*"
	exit 77
}

command -v jq >/dev/null || skip "jq is not installed"
[ "$(id -u)" -eq 0 ] || skip "not root: the BPF source needs root"
[ -r /sys/kernel/btf/vmlinux ] || skip "the kernel has no BTF (/sys/kernel/btf/vmlinux)"

# A verifier rejection is a failure, not a skip: only missing permission skips.
if ! probe=$("$TT_BIN" -b -n 1 -d 0.1 --source bpf --format json --cpu-hz 0 -p $$ 2>&1); then
	case "$probe" in
	*"not root"* | *"no BTF"* | *"Operation not permitted"*) skip "BPF cannot load: $probe" ;;
	*) fail "the BPF source does not start: $probe" ;;
	esac
fi

WL_PIDS=()
cleanup() {
	for p in "${WL_PIDS[@]}"; do
		# Children first (a vfork child outlives its killed parent otherwise).
		for c in $(cat /proc/"$p"/task/*/children 2>/dev/null); do
			kill "$c" 2>/dev/null || true
		done
		kill "$p" 2>/dev/null || true
	done
	rm -rf "$TMPD"
}
TMPD=$(mktemp -d)
trap cleanup EXIT

# start NAME ARGS...: runs a workload in the background, its pid in $WL, its
# output in $TMPD/NAME.out.
start() {
	"$TT_WORKLOADS/$1" "${@:2}" >"$TMPD/$1.out" 2>&1 &
	WL=$!
	WL_PIDS+=("$WL")
}

# Sum of a jq expression over every line of an NDJSON file.
sum_lines() {
	jq -s "map($2) | add // 0" "$1"
}

# Waits until file $1 has at least one line (threadtop printed its first interval).
wait_first_line() {
	for _ in $(seq 100); do
		[ -s "$1" ] && return 0
		sleep 0.1
	done
	fail "threadtop printed nothing within 10 s"
}

# wait_threads PID N: waits up to 10 s until process PID has N threads or more.
wait_threads() {
	for _ in $(seq 100); do
		[ "$(ls /proc/"$1"/task 2>/dev/null | wc -l)" -ge "$2" ] && return 0
		sleep 0.1
	done
	fail "process $1 did not start its threads: $(ls /proc/"$1"/task 2>/dev/null | wc -l) of $2"
}
