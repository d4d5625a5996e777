# SPDX-License-Identifier: GPL-2.0-only
# Sourced by the bpf_*.sh integration tests: skip (exit 77) with a reason when
# BPF cannot load here (not root, no BTF, no BPF permission), fail otherwise;
# helpers to start workloads and to read threadtop's NDJSON.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib/test_wait.bash"
. "$(dirname "${BASH_SOURCE[0]}")/lib/sysprof.bash"

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

# kernel_has_kfunc NAME: the running kernel's BTF names kernel function NAME
# (a kfunc exists there), e.g. bpf_iter_task_new: the one-pass sampler's 6.7+.
kernel_has_kfunc() {
	grep -qaF "$1" /sys/kernel/btf/vmlinux
}

WL_PIDS=()
cleanup() {
	for p in "${WL_PIDS[@]}"; do
		# Children first (a vfork child outlives its killed parent otherwise).
		# CONT: a workload the test stopped takes the TERM only once it runs.
		for c in $(cat /proc/"$p"/task/*/children 2>/dev/null); do
			kill "$c" 2>/dev/null && kill -CONT "$c" 2>/dev/null || true
		done
		kill "$p" 2>/dev/null && kill -CONT "$p" 2>/dev/null || true
	done
	rm -rf "$TMPD"
}
TMPD=$(mktemp -d)
# threadtop run's commands and replays (-r) run as nobody when root runs
# threadtop without sudo: they read their scripts and write exports here.
chmod 1777 "$TMPD"
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

# Waits until file $1 has at least one line (threadtop printed its first
# interval: the BPF source's start-up takes seconds on a loaded machine).
wait_first_line() {
	wait_until "threadtop printed nothing in $1" test -s "$1"
}

# wait_threads PID N: waits until process PID has N threads or more.
wait_threads() {
	wait_until "process $1 did not start $2 threads" _has_tasks "$1" "$2"
}
_has_tasks() { count_tasks "$1" && ((NT >= $2)); }

# all_asleep PID: every thread of PID is asleep (S): started and settled.
all_asleep() {
	local f st
	for f in /proc/"$1"/task/*/stat; do
		read -r st <"$f" || return 1
		st=${st##*) }
		[ "${st%% *}" = S ] || return 1
	done
}

# count_lines FILE: its complete lines in NL, without a fork (mapfile keeps
# each line's newline: a line being written is not counted).
count_lines() {
	local l
	NL=0
	[ -e "$1" ] || return 0
	mapfile _lines <"$1"
	for l in "${_lines[@]}"; do
		[ "${l: -1}" = $'\n' ] && NL=$((NL + 1))
	done
	return 0
}
lines_ge() { count_lines "$1" && ((NL >= $2)); }

# first_after FILE T: the first interval (1-based line of NDJSON FILE) that
# starts 0.2 s or more after time T (seconds since the epoch, as
# $EPOCHREALTIME): its "time" is its end. Each test that changes a workload
# mid-run checks the first interval wholly after it saw the change done.
first_after() {
	jq -s --argjson t "$2" 'to_entries | map(select((.value.time | sub("\\.[0-9]+Z$"; "Z")
		| fromdate) + (.value.time | capture("\\.(?<ms>[0-9]+)Z$").ms | tonumber / 1000)
		- .value.interval_s > $t + 0.2)) | .[0].key + 1' "$1"
}
# wait_ticks FILE MIN PID: waits until an interval of FILE (the NDJSON that
# threadtop PID writes, one line an interval), the first left out (it starts
# before the workloads are seen), holds MIN sampler ticks or more, and puts
# that line in TICK_LINE. A slow or loaded machine gives the sampler fewer
# ticks while threadtop warms up (symbols, first DWARF copies; one tick a
# second seen under TCG): state shares are judged on an interval with ticks
# enough to hold them. Fails, with every interval's ticks, when none has
# MIN within TT_TEST_WAIT s or PID ends first.
wait_ticks() {
	local end=$((SECONDS + TT_TEST_WAIT)) i=1 t how
	TICK_LINE=
	while :; do
		count_lines "$1"
		for (( ; i < NL; i++)); do
			t=$(jq '.cost.ticks' <<<"${_lines[i]}") || t=0
			if ((t >= $2)); then
				TICK_LINE=${_lines[i]%$'\n'}
				return 0
			fi
		done
		if ((SECONDS >= end)) || ! kill -0 "$3" 2>/dev/null; then
			how=ended
			kill -0 "$3" 2>/dev/null && how="ran ${TT_TEST_WAIT} s"
			stop_tt "$3"
			fail "no interval after the first had $2 ticks (threadtop $how); each interval's: $(printf %s "${_lines[@]:0:NL}" |
				jq -c '.cost.ticks' | paste -sd' ')"
		fi
		sleep 0.2
	done
}
# stop_tt PID: ends a threadtop that runs until SIGINT, and reaps it.
stop_tt() {
	kill -INT "$1" 2>/dev/null || true
	wait "$1" 2>/dev/null || true
}

# wait_whole_interval FILE [PID]: waits until FILE holds an interval that
# started after now: the interval in progress, one ended but not printed yet,
# then a whole one.
wait_whole_interval() {
	count_lines "$1"
	wait_lines "$1" $((NL + 3)) "${2:-}"
}
