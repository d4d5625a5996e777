# SPDX-License-Identifier: GPL-2.0-only
# Shared preamble of the integration tests that profile one workload with
# the BPF source, as root, sourced:
#   source "$(dirname "$0")/lib/bpf_workload.bash"
#   start_workload label_waits 40
#   run_bpf "$dir/out" -b --source bpf -p "$wl" ...
# Skips (77) without root, or when the BPF source cannot start.
#   dir   a private directory, removed at exit
#   bin   the workload's resolved path (uprobe specs name it), wl its pid,
#         killed at exit
#   fail MESSAGE   prints FAIL: MESSAGE and exits 1

: "${TT_BIN:?}" "${TT_WORKLOADS:?}"
[ "$(id -u)" -eq 0 ] || {
	echo "SKIP: BPF needs root"
	exit 77
}
fail() {
	echo "FAIL: $*"
	exit 1
}

dir=$(mktemp -d)
bin=
wl=
trap 'if [ -n "$wl" ]; then kill "$wl" 2>/dev/null || true; fi; rm -rf "$dir"' EXIT

# start_workload NAME ARGS...: $TT_WORKLOADS/NAME ARGS in the background,
# given 0.3 s to start its threads.
start_workload() {
	bin=$(readlink -f "$TT_WORKLOADS/$1")
	shift
	"$bin" "$@" &
	wl=$!
	sleep 0.3
}

# run_bpf OUT ARGS...: $TT_BIN ARGS, its stdout in the file OUT, its stderr
# in $dir/err; skips when the BPF source is unavailable, fails on any other
# error.
run_bpf() {
	local out=$1 rc=0
	shift
	"$TT_BIN" "$@" >"$out" 2>"$dir/err" || rc=$?
	if [ $rc -ne 0 ] && grep -q "BPF source" "$dir/err"; then
		echo "SKIP: BPF unavailable: $(cat "$dir/err")"
		exit 77
	fi
	[ $rc -eq 0 ] || fail "exit $rc: $(cat "$dir/err")"
}
