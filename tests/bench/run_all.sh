#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The benchmark suite in one command: builds the release preset, runs every
# benchmark (threadtop against perf, bpftrace, strace and jit.p on the same
# workloads in the same run, plus threadtop's own figures), prints one table
# and writes it as Markdown (default assets/benchmarks.md). Slowdowns are the
# median over REPS alternating (without tool, with tool) runs, as ratios:
# this machine kind is shared and noisy, absolute times are noise. Root only.
#
# usage: sudo tests/bench/run_all.sh [--quick|--smoke] [--out FILE] [BUILD_DIR]
#   (default)  full run, about 12 minutes on 2 loaded CPUs
#   --quick    one rep, short workloads, for development (~5 minutes)
#   --smoke    the smallest run that still fills every row; peers skipped
#              (tests/integration/bench_smoke.sh; its figures mean nothing)
#   BUILD_DIR  an existing build to use as is (default: build/release,
#              configured and built first)
# Environment: BENCH_REPS overrides the number of reps.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
mode=full
out=$src/assets/benchmarks.md
build=
while [ $# -gt 0 ]; do
	case $1 in
	--quick) mode=quick ;;
	--smoke) mode=smoke ;;
	--out) out=$2 && shift ;;
	-h | --help) sed -n '3,17p' "$0" && exit 0 ;;
	-*) echo "run_all: unknown option $1 (see --help)" >&2 && exit 2 ;;
	*) build=$1 ;;
	esac
	shift
done
[ "$(id -u)" -eq 0 ] || { echo "run_all: needs root (BPF, perf, bpftrace): run it with sudo" >&2; exit 1; }
if [ -z "$build" ]; then
	build=$src/build/release
	(cd "$src" && cmake --preset release >/dev/null && cmake --build build/release -j"$(nproc)" >/dev/null) ||
		{ echo "run_all: the release build failed (cmake --preset release && cmake --build build/release)" >&2; exit 1; }
fi
build=$(cd "$build" && pwd)
TT=$build/threadtop
[ -x "$TT" ] || { echo "run_all: no threadtop in $build: build it first" >&2; exit 1; }

# Sizes per mode: storms of about a second, timed workloads of BENCH_SECS.
case $mode in
full) REPS=${BENCH_REPS:-3} N_GP=1000000 N_PP=50000 SECS=0.4 DUR=6 SLOW_DIV=100 PEERS=1 ;;
quick) REPS=${BENCH_REPS:-1} N_GP=500000 N_PP=30000 SECS=0.3 DUR=3 SLOW_DIV=50 PEERS=1 ;;
smoke) REPS=1 N_GP=50000 N_PP=3000 SECS=0.1 DUR=1 SLOW_DIV=10 PEERS=0 ;;
esac

. "$here/lib_bench.bash"
BENCH_WL=$build/tests/workloads
BENCH_TMP=$(mktemp -d)
BENCH_ROWS=$BENCH_TMP/rows
SCALE_ROWS=$BENCH_TMP/scale
BENCH_N_GETPPID=$N_GP BENCH_N_PINGPONG=$N_PP BENCH_SECS=$SECS
: >"$BENCH_ROWS"
: >"$SCALE_ROWS"
bg_pids=""
mounted=
cleanup() {
	bench_tool_stop
	[ -n "$bg_pids" ] && kill $bg_pids 2>/dev/null
	tmux -L "tt_bench_$$" kill-server 2>/dev/null
	[ -n "$mounted" ] && umount /sys/kernel/tracing
	rm -rf "$BENCH_TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
ulimit -l unlimited 2>/dev/null
log() { echo "[$(date +%T)] $*" >&2; }

# Peers: installed here, else installed with apt-get (this is not CI).
if [ $PEERS = 1 ]; then
	for p in perf:linux-perf bpftrace:bpftrace strace:strace luajit:luajit tmux:tmux jq:jq; do
		command -v "${p%%:*}" >/dev/null || apt-get install -y "${p#*:}" >/dev/null 2>&1 ||
			log "peer ${p%%:*} missing and apt-get install ${p#*:} failed: its cells say n/a"
	done
	if ! [ -d /sys/kernel/tracing/events ]; then
		mount -t tracefs nodev /sys/kernel/tracing && mounted=1 # bpftrace tracepoints
	fi
fi
has_dwarf=
"$TT" --help 2>&1 | grep -q -- '--unwind' && has_dwarf=1

x() { [ -n "$1" ] && printf '%sx' "$1" || printf 'n/a'; }

# --- 1. Slowdown of each workload under each tool ----------------------------
TTB="$TT -b --format json -d 1 --source bpf"
PERF="perf record -q -F 99 -a -o $BENCH_TMP/perf.data"
declare -A RATIO
# TOOLS: key | workloads | how (bg: beside the workloads; wrap: prefix) | command
TOOLS=(
	"tt|getppid pingpong symchain_fp symchain_nofp churn|bg|$TTB >/dev/null"
	"tt_sys|getppid pingpong churn|bg|$TTB --syscalls >/dev/null"
	"tt_off|getppid pingpong churn|bg|$TTB --offcpu >/dev/null"
)
[ -n "$has_dwarf" ] && TOOLS+=("tt_dwarf|symchain_nofp getppid|bg|$TTB --unwind dwarf >/dev/null")
[ $PEERS = 1 ] && TOOLS+=(
	"perf_fp|getppid pingpong symchain_fp churn|bg|$PERF -g"
	"perf_dwarf|symchain_nofp symchain_fp|bg|$PERF --call-graph dwarf"
	"bt_profile|getppid pingpong symchain_fp churn|bg|$BENCH_BT_PROFILE"
	"bt_count|getppid pingpong churn|bg|$BENCH_BT_COUNT"
	"bt_lat|getppid pingpong|bg|$BENCH_BT_LAT"
	"bt_off|getppid pingpong churn|bg|$BENCH_BT_OFF"
	"strace|getppid pingpong|wrap|strace -c -f -o /dev/null"
)

# slowdowns KEY WORKLOADS HOW CMD: fills RATIO[KEY.WORKLOAD] (median of REPS).
slowdowns() {
	local key=$1 wls=$2 how=$3 cmd=$4 wl r
	declare -A base with all
	for ((r = 0; r < REPS; r++)); do
		if [ "$how" = wrap ]; then # a tracer this slow gets storms SLOW_DIV times smaller
			for wl in $wls; do
				BENCH_N_GETPPID=$((N_GP / SLOW_DIV)) BENCH_N_PINGPONG=$((N_PP / SLOW_DIV))
				base[$wl]=$(bench_wl "$wl")
				# shellcheck disable=SC2086 # the command's words
				with[$wl]=$(bench_wl "$wl" $cmd)
				BENCH_N_GETPPID=$N_GP BENCH_N_PINGPONG=$N_PP
				all[$wl]="${all[$wl]:-} $(bench_ratio "${with[$wl]}" "${base[$wl]}")"
			done
			continue
		fi
		for wl in $wls; do base[$wl]=$(bench_wl "$wl"); done
		bench_tool_start "$cmd"
		for wl in $wls; do with[$wl]=$(bench_wl "$wl"); done
		bench_tool_stop
		for wl in $wls; do all[$wl]="${all[$wl]:-} $(bench_ratio "${with[$wl]}" "${base[$wl]}")"; done
	done
	for wl in $wls; do
		RATIO[$key.$wl]=$(echo "${all[$wl]}" | bench_median)
		log "  $key on $wl: ${RATIO[$key.$wl]}x (reps:${all[$wl]})"
	done
}

log "slowdowns: $REPS reps per tool, peers $([ $PEERS = 1 ] && echo on || echo off)"
for t in "${TOOLS[@]}"; do
	IFS='|' read -r key wls how cmd <<<"$t"
	slowdowns "$key" "$wls" "$how" "$cmd"
done
r() { x "${RATIO[$1]:-}"; }
peers() { # peers LABEL=KEY...: "perf -g 1.01x; ..." or "skipped (--smoke)"
	[ $PEERS = 1 ] || { echo "skipped ($mode)"; return; }
	local p s=""
	for p in "$@"; do s="$s${s:+; }${p%%=*} $(r "${p#*=}")"; done
	echo "$s"
}
row_slow() { # row_slow WORKLOAD FIGURE KEY TARGET PEERS...
	local wl=$1 fig=$2 key=$3 target=$4 v
	shift 4
	v=${RATIO[$key.${wl%% *}]:-}
	bench_row "$wl" "$fig" "$(x "$v")" "$(peers "$@")" "${target:+<= ${target}x}" \
		"$(bench_verdict "$v" le "$target")"
}
for wl in getppid pingpong; do
	name="$wl storm"
	row_slow "$name" "slowdown, default mode (20 Hz threads + 99 Hz on-CPU)" tt 1.02 \
		"perf -g=perf_fp.$wl" "bpftrace profile=bt_profile.$wl"
	t=
	[ $wl = getppid ] && t=2.0
	row_slow "$name" "slowdown, --syscalls (exact counts + latency)" tt_sys "$t" \
		"bpftrace syscount=bt_count.$wl" "bpftrace latency hist=bt_lat.$wl" "strace -c -f=strace.$wl"
	t=
	[ $wl = pingpong ] && t=1.5
	row_slow "$name" "slowdown, --offcpu (exact off-CPU stacks)" tt_off "$t" \
		"bpftrace offcputime=bt_off.$wl"
done
row_slow "symchain_fp (CPU-bound, frame pointers)" "slowdown, default mode" tt "" \
	"perf -g=perf_fp.symchain_fp" "perf --call-graph dwarf=perf_dwarf.symchain_fp" \
	"bpftrace profile=bt_profile.symchain_fp"
row_slow "symchain_nofp (CPU-bound, no frame pointers)" "slowdown, default mode" tt "" \
	"perf --call-graph dwarf=perf_dwarf.symchain_nofp"
[ -n "$has_dwarf" ] &&
	row_slow "symchain_nofp (CPU-bound, no frame pointers)" "slowdown, --unwind dwarf" tt_dwarf "" \
		"perf --call-graph dwarf=perf_dwarf.symchain_nofp"
row_slow "churn (fork/exit + thread storm)" "slowdown (seconds per fork or thread), default mode" tt "" \
	"perf -g=perf_fp.churn" "bpftrace profile=bt_profile.churn"
row_slow "churn (fork/exit + thread storm)" "slowdown, --syscalls" tt_sys "" \
	"bpftrace syscount=bt_count.churn"
row_slow "churn (fork/exit + thread storm)" "slowdown, --offcpu" tt_off "" \
	"bpftrace offcputime=bt_off.churn"

# --- 2. threadtop's own CPU and peak memory ----------------------------------
# own_cost THREADS WORKLOAD_CMD [THREADTOP_ARGS...]: starts the workload,
# waits until it has THREADS threads, starts threadtop (default settings),
# and prints "CPU% HWM_MB" over DUR seconds of steady state (start-up
# excluded from the CPU, included in the peak).
own_cost() {
	local nthr=$1 wcmd=$2 wl c0 c1 t0 t1 hwm
	shift 2
	$wcmd >/dev/null 2>&1 &
	wl=$!
	bg_pids="$bg_pids $wl"
	sleep 0.5
	bench_wait_threads "$wl" "$nthr" || log "  $wcmd: fewer than $nthr threads"
	bench_tool_start "$TTB $* >/dev/null"
	c0=$(bench_proc_cpu "$BENCH_TOOL")
	t0=$(date +%s.%N)
	sleep "$DUR"
	c1=$(bench_proc_cpu "$BENCH_TOOL")
	t1=$(date +%s.%N)
	hwm=$(bench_proc_hwm "$BENCH_TOOL")
	bench_tool_stop
	kill "$wl" 2>/dev/null
	wait "$wl" 2>/dev/null
	awk -v a="$c0" -v b="$c1" -v s="$t0" -v e="$t1" -v m="$hwm" \
		'BEGIN { if (a != "" && b != "") printf "%.2f %s\n", (b - a) / (e - s) * 100, m }'
}
log "own cost: idle threads, churn"
declare -A IDLE_CPU IDLE_MB
for n in $([ $mode = smoke ] || echo 100) 1000 10000; do
	read -r IDLE_CPU[$n] IDLE_MB[$n] <<<"$(own_cost $((n + 1)) "$BENCH_WL/idle_threads $n $((DUR + 120))")"
	log "  $n idle threads: ${IDLE_CPU[$n]}% CPU, ${IDLE_MB[$n]} MB"
done
for n in 1000 10000; do
	t=
	[ $n = 1000 ] && t=1
	bench_row "idle_threads $n" "threadtop CPU, % of one core (default settings)" \
		"${IDLE_CPU[$n]:-n/a}" "" "${t:+<= $t}" "$(bench_verdict "${IDLE_CPU[$n]:-}" le "$t")"
	bench_row "idle_threads $n" "threadtop peak RSS, MB (VmHWM)" "${IDLE_MB[$n]:-n/a}" "" "" "-"
done
read -r c m <<<"$(own_cost 1 "$BENCH_WL/churn $((DUR + 30))")"
bench_row "churn (fork/exit + thread storm)" "threadtop CPU % of one core / peak RSS MB" "${c:-n/a} / ${m:-n/a}" "" "" "-"

# --- 3. Ring buffer: thread samples/s sustained with zero drops -------------------
log "ring buffer"
"$BENCH_WL/idle_threads" 10000 600 >/dev/null 2>&1 &
idle=$!
bg_pids="$bg_pids $idle"
bench_wait_threads "$idle" 10001 || log "  idle_threads: fewer than 10,000 threads"
case $mode in
full) rb_hz="20 50 100 200" ;;
quick) rb_hz="20 100" ;;
smoke) rb_hz=20 ;;
esac
rb=""
drops_all=0
for hz in $rb_hz; do
	"$TT" -b --format json --source bpf -n 2 -F "$hz" --cpu-hz 0 >"$BENCH_TMP/rb.json" 2>/dev/null
	# The first interval includes start-up: the rate is the last one's.
	read -r ev drops secs nthr <<<"$(tail -n 1 "$BENCH_TMP/rb.json" |
		jq -r '[([.threads[].samples[]] | add), ([.dropped[]] | add), .interval_s, .nr_threads] | @tsv')"
	rate=$(awk -v e="$ev" -v s="$secs" 'BEGIN { if (s > 0) printf "%.0f", e / s }')
	want=$((hz * ${nthr:-0}))
	log "  -F $hz, 10,000 idle threads: $rate samples/s of $want asked, $drops drops"
	rb="$rb${rb:+; }-F $hz: ${rate:-n/a}/s of $want/s, ${drops:-?} drops"
	[ "${drops:-1}" = 0 ] || drops_all=1
done
kill "$idle" 2>/dev/null
wait "$idle" 2>/dev/null
bench_row "idle_threads 10000" "ring buffer: thread samples/s received (of thread count x -F asked) and drops" \
	"$rb" "" "0 drops" "$([ $drops_all = 0 ] && echo PASS || echo MISS)"

# --- 4. Symbols: agreement with perf, symbolization rate ------------------------
log "symbols"
if [ $PEERS = 1 ]; then
	TT_BUILD=$build bash "$here/sym_vs_perf.sh" "$DUR" 6 >"$BENCH_TMP/sym.txt" 2>&1
	agree=$(awk '/^agreement/ { sub(/%/, "", $NF); print $NF }' "$BENCH_TMP/sym.txt")
	bench_row "symchain_fp on every CPU" "stacks agreeing with perf -g (leaf + 5 callers), %" \
		"${agree:-n/a}" "perf record -F 99 -g (reference)" ">= 95" "$(bench_verdict "${agree:-}" ge 95)"
	cpu_fp=$(awk '/^threadtop CPU:/ { for (i = 1; i <= NF; i++) if ($i == "=") { sub(/%/, "", $(i + 1)); print $(i + 1) } }' "$BENCH_TMP/sym.txt")
	if [ -n "$has_dwarf" ]; then
		TT_BUILD=$build bash "$here/sym_vs_perf.sh" "$DUR" 6 dwarf >"$BENCH_TMP/symd.txt" 2>&1
		agree=$(awk '/^agreement/ { sub(/%/, "", $NF); print $NF }' "$BENCH_TMP/symd.txt")
		cpu_dw=$(awk '/^threadtop CPU:/ { for (i = 1; i <= NF; i++) if ($i == "=") { sub(/%/, "", $(i + 1)); print $(i + 1) } }' "$BENCH_TMP/symd.txt")
		us=$(awk '/^DWARF unwinding:/ { for (i = 1; i <= NF; i++) if ($i == "ns" && $(i + 1) == "per") { printf "%.1f", $(i - 1) / 1000 } }' "$BENCH_TMP/symd.txt")
		bench_row "symchain_nofp on every CPU, --unwind dwarf" "stacks agreeing with perf --call-graph dwarf (leaf + 5 callers), %" \
			"${agree:-n/a}" "perf record -F 99 --call-graph dwarf (reference)" ">= 95" "$(bench_verdict "${agree:-}" ge 95)"
		bench_row "symchain_nofp on every CPU, --unwind dwarf" "DWARF unwind cost, us per sample" "${us:-n/a}" "" "" "-"
	fi
	bench_row "symchain on every CPU, --cpu-hz 99" "threadtop CPU, % of one core (start-up included)" \
		"--unwind fp ${cpu_fp:-n/a}${has_dwarf:+; --unwind dwarf ${cpu_dw:-n/a}}" "" "" "-"
else
	bench_row "symchain_fp on every CPU" "stacks agreeing with perf -g (leaf + 5 callers), %" \
		"n/a" "skipped ($mode)" ">= 95" "-"
fi
"$build/tests/bench_symbols" $([ $mode = smoke ] && echo 5000 || echo 100000) >"$BENCH_TMP/bs.txt" 2>&1
for k in user kernel; do
	v=$(awk -v k=$k '$1 == k { printf "cold %.2f M/s, new address %.2f M/s, cached %.2f M/s", $5 / 1e6, $7 / 1e6, $9 / 1e6 }' "$BENCH_TMP/bs.txt")
	bench_row "bench_symbols ($k addresses)" "symbolization rate, unique addresses/s" "${v:-n/a}" "" "" "-"
done

# --- 5. In-process figures: model, TUI, recording -----------------------------
log "model, TUI, recording"
"$build/tests/bench_model" 10000 $([ $mode = full ] && echo 20 || echo 3) >"$BENCH_TMP/bm.txt" 2>&1
v=$(awk '/^model ingest/ { for (i = 1; i <= NF; i++) if ($i == "M") print $(i - 1) }' "$BENCH_TMP/bm.txt")
bench_row "bench_model (10,000 threads, 20 Hz)" "model ingest, M events/s" "${v:-n/a}" "" \
	">= 7.6 (#2 baseline 9.5, -20% noise)" "$(bench_verdict "${v:-}" ge 7.6)"
v=$(awk '/^query per thread, minute/ { print $(NF - 3) }' "$BENCH_TMP/bm.txt")
bench_row "bench_model (10,000 threads)" "per-thread query, ms" "${v:-n/a}" "" "" "-"

log "  TUI frames"
tui=(10000 50000)
[ $mode = smoke ] && tui=(1000 5000)
"$build/tests/bench_tui" "${tui[@]}" >"$BENCH_TMP/tui.txt" 2>&1
for pane in Threads Group Syscalls Stacks "Stacks E"; do
	v=$(awk -v p="$pane" '{ line = $0; sub(/^ +/, "", line) }
		index(line, p " ") == 1 && substr(line, length(p) + 1) ~ /^ +refresh/ {
		for (i = 1; i <= NF; i++) if ($i == "(CPU") { c = $(i + 1); print c; exit } }' "$BENCH_TMP/tui.txt")
	t=10
	bench_row "bench_tui (${tui[0]} threads, ${tui[1]} stacks)" \
		"frame build + draw, ms CPU: $pane$([ "$pane" = "Stacks E" ] && echo ' (all expanded)')" \
		"${v:-n/a}" "" "<= $t" "$(bench_verdict "${v:-}" le "$t")"
done

log "  recording"
case $mode in # long recording seconds, live intervals, synthetic threads
full) rec="3600 5 200" ;;
quick) rec="600 3 200" ;;
smoke) rec="60 1 20" ;;
esac
# shellcheck disable=SC2086 # three numbers
bash "$here/bench_record_live.sh" "$build" $rec >"$BENCH_TMP/rec.txt" 2>&1
v=$(awk '/bpf +source:/ { print $3 }' "$BENCH_TMP/rec.txt")
csv=$(awk '/xcapture-style CSV:/ { print $3 }' "$BENCH_TMP/rec.txt")
zj=$(awk '/NDJSON, zstd/ { print $6 }' "$BENCH_TMP/rec.txt")
syn=$(awk '/\.ttr file:/ { print $3 }' "$BENCH_TMP/rec.txt")
bench_row "rr_threads 20 spinning + 180 sleeping, live BPF" "recording, bytes per thread-sample (stacks included)" \
	"${v:-n/a} (synthetic 200 threads: ${syn:-n/a})" "xcapture-style CSV ${csv:-n/a}; zstd NDJSON ${zj:-n/a}" \
	"<= 10" "$(bench_verdict "${v:-}" le 10)"
v=$(awk '/^replay ingest:/ { print $3 }' "$BENCH_TMP/rec.txt")
bench_row "bench_record ($(echo $rec | cut -d' ' -f3) threads, 60 s)" "replay ingest, M records/s (one core)" "${v:-n/a}" "" ">= 2" \
	"$(bench_verdict "${v:-}" ge 2)"
v=$(awk '/^seek in/ { for (i = 1; i <= NF; i++) if ($i == "median") print $(i + 1) }' "$BENCH_TMP/rec.txt")
bench_row "bench_record ($(echo $rec | cut -d' ' -f1) s recording)" "seek to a random time, median ms" \
	"${v:-n/a}" "" "<= 50" "$(bench_verdict "${v:-}" le 50)"

log "  model memory"
case $mode in # simulated seconds, sampling rate, threads, stacks of the memory figure
full) mem="3600 0.1 10000 100000" ;;
quick) mem="600 0.1 10000 100000" ;;
smoke) mem="60 1 1000 10000" ;;
esac
read -r msecs mhz mthr mstk <<<"$mem"
"$build/tests/bench_model" "$mthr" "$msecs" "$mstk" "$mhz" >"$BENCH_TMP/mem.txt" 2>&1
v=$(awk '/^model memory:/ { for (i = 1; i <= NF; i++) if ($i == "RSS") print $(i + 1) }' "$BENCH_TMP/mem.txt")
bench_row "bench_model ($mthr threads, $mstk stacks, $msecs s simulated at $mhz Hz)" \
	"memory of the model after the session, RSS MB" "${v:-n/a}" "" "" "-"

# --- Scaling: threadtop's CPU and memory against threads, stacks and CPUs -----
log "scaling"
SCALE_COLUMNS='dimension	sizes	CPU, % of a core	RSS, MB	growth	projection'
scale_row() { BENCH_ROWS=$SCALE_ROWS bench_row "$@"; } # DIMENSION SIZES CPU MEMORY FIT PROJECTION
# Idle threads: threadtop beside htop, top -H -b and perf record at the same
# sizes (scaling_peers.sh); without peers (--smoke), threadtop's own figures.
if [ $PEERS = 1 ]; then
	log "  idle threads, threadtop and its peers (scaling_peers.sh)"
	SIZES="100 1000 10000 $([ $mode = full ] && echo 100000)" SECS=$DUR \
		bash "$here/scaling_peers.sh" --rows "$SCALE_ROWS" "$build" >"$BENCH_TMP/peers.md"
fi
ns=$(for n in "${!IDLE_CPU[@]}"; do echo "$n"; done | sort -n | tr '\n' ' ')
cpus=$(for n in $ns; do echo -n "${IDLE_CPU[$n]} "; done)
mbs=$(for n in $ns; do echo -n "${IDLE_MB[$n]} "; done)
fc=$(bench_fit "$ns" "$cpus")
fm=$(bench_fit "$ns" "$mbs")
# Projections along the least-squares line (a fixed cost plus a cost per thread).
read -r ca cc cr <<<"$(bench_linfit "$ns" "$cpus")"
read -r ma mc mr <<<"$(bench_linfit "$ns" "$mbs")"
pc=$(awk -v a="$ca" -v c="$cc" 'BEGIN { printf "%.1f", a + c * 100000 }')
pm=$(awk -v a="$ma" -v c="$mc" 'BEGIN { printf "%.0f", a + c * 100000 }')
if [ $PEERS = 0 ] || ! grep -q '^idle threads, threadtop' "$SCALE_ROWS"; then
	scale_row "idle threads (live, default settings)" "$ns" "$cpus" "$mbs" \
		"$(awk -v a="$ca" -v c="$cc" -v r="$cr" -v ma="$ma" -v mc="$mc" -v mr="$mr" 'BEGIN {
		printf "CPU %.1f%% + %.2f%% per 1,000 threads (linear fit, R2 %.2f); RSS %.0f MB + %.1f MB per 1,000 threads (R2 %.2f)", a, c * 1000, r, ma, mc * 1000, mr }'); log-log: CPU $fc, RSS $fm" \
		"100,000 threads: ~$pc% of a core, ~$pm MB"
else
	# The projection below takes threadtop's line from its peers' run.
	read -r pc pm <<<"$(awk -F'\t' '/^idle threads, threadtop/ {
		n = split($2, x, " "); split($3, y, " "); split($4, z, " ")
		for (i = 1; i <= n; i++) if (x[i] == 100000) { print y[i], z[i]; exit } }' "$SCALE_ROWS")"
	[ -n "$pc" ] || { pc=$(awk -v a="$ca" -v c="$cc" 'BEGIN { printf "%.1f", a + c * 100000 }'); pm=$(awk -v a="$ma" -v c="$mc" 'BEGIN { printf "%.0f", a + c * 100000 }'); }
fi

log "  stacks"
# Stacks: the model's memory beyond a stackless model of the same threads.
stk_sizes="0 10000 100000 $([ $mode = full ] && echo 1000000)"
stk_thr=10000
[ $mode = smoke ] && stk_thr=1000
stk_mb=""
for k in $stk_sizes; do
	"$build/tests/bench_model" "$stk_thr" 60 "$k" 1 >"$BENCH_TMP/stk.txt" 2>&1
	stk_mb="$stk_mb $(awk '/^model memory:/ { for (i = 1; i <= NF; i++) if ($i == "RSS") print $(i + 1) }' "$BENCH_TMP/stk.txt")"
done
read -r m0 stk_rest <<<"$stk_mb"
inc=$(awk -v m0="$m0" -v r="$stk_rest" 'BEGIN { n = split(r, a, " "); for (i = 1; i <= n; i++) printf "%.1f ", a[i] - m0 }')
fs=$(bench_fit "${stk_sizes#0 }" "$inc")
last_k=${stk_sizes% }
last_k=${last_k##* }
per=$(awk -v r="$inc" -v k="$last_k" 'BEGIN { n = split(r, a, " "); if (k > 0) printf "%.0f", a[n] * 1048576 / k }')
scale_row "unique stacks (bench_model, $stk_thr threads)" "$stk_sizes" "-" "$stk_mb (growth over 0 stacks: $inc)" \
	"RSS growth over 0 stacks: log-log $fs" "~${per:-?} bytes per stack: 1,000,000 stacks ~$(awk -v p="${per:-0}" 'BEGIN { printf "%.0f", p * 1e6 / 1048576 }') MB"

# CPUs: the on-CPU sampler's cost grows with CPUs x --cpu-hz; with 2 CPUs
# busy, a higher --cpu-hz stands in for more CPUs at the default 99 Hz.
eq_cpus=""
eq_cost=""
for hz in 99 396 $([ $mode = smoke ] || echo 1584); do
	read -r c _ <<<"$(own_cost "$(nproc)" "$BENCH_WL/spinners $(nproc) $((DUR + 30))" --cpu-hz "$hz")"
	eq_cpus="$eq_cpus $((hz * $(nproc) / 99))"
	eq_cost="$eq_cost ${c:-0}"
	log "  --cpu-hz $hz with $(nproc) CPUs busy: ${c:-?}% CPU"
done
fcpu=$(bench_fit "$eq_cpus" "$eq_cost")
read -r cpu_a cpu_c cpu_r <<<"$(bench_linfit "$eq_cpus" "$eq_cost")"
p384=$(awk -v c="$cpu_c" 'BEGIN { v = c * 384; printf "%.1f", (v > 0) ? v : 0 }')
scale_row "busy CPUs at 99 Hz (--cpu-hz x CPUs / 99 on $(nproc) CPUs)" "$eq_cpus" "$eq_cost" "-" \
	"$(awk -v a="$cpu_a" -v c="$cpu_c" -v r="$cpu_r" 'BEGIN { printf "CPU %.1f%% + %.3f%% per busy CPU (linear fit, R2 %.2f)", a, c, r }'); log-log: $fcpu" \
	"384 busy CPUs: ~$p384% of a core on top of the thread sampling"
SCALE_SUMMARY="Projection to a 384-CPU box with 100,000 threads, every CPU busy, default settings: about $(awk -v a="$pc" -v b="$p384" 'BEGIN { printf "%.0f", a + b }')% of one core (thread sampling ~$pc%, on-CPU sampling ~$p384%; straight lines through the sizes above) and about $pm MB before stacks (add ~${per:-?} bytes per unique stack). The busy-CPU line is threadtop's own CPU; the BPF sampler's time is spent in the sampled tasks (see \"On-CPU sampling per busy CPU\" below)."

# --- 6. Time to first frame: the TUI in tmux ------------------------------------
log "time to first frame"
S=tt_bench_$$
t0=$(date +%s.%N)
tmux -L "$S" new-session -d -s "$S" -x 120 -y 40 "$TT --source bpf" 2>/dev/null
ttff=
for _ in $(seq 300); do
	if tmux -L "$S" capture-pane -t "$S" -p 2>/dev/null | grep -q "PID"; then
		ttff=$(awk -v s="$t0" -v e="$(date +%s.%N)" 'BEGIN { printf "%.0f", (e - s) * 1000 }')
		break
	fi
	sleep 0.02
done
tmux -L "$S" kill-server 2>/dev/null
bench_row "threadtop TUI in tmux (BPF source)" "time to first frame (start to the Threads pane drawn), ms" "${ttff:-n/a}" "" "" "-"

# --- 6b. A loaded box (#21): rate kept, start-up, memory with churn, /proc cost -----
log "loaded box"
case $mode in # minutes of the live churn session (0: the simulated hour only)
full) lb_live=10 ;;
*) lb_live=0 ;;
esac
bash "$here/loaded_box.sh" --live "$lb_live" $([ $mode = full ] || echo --quick) "$build" \
	>"$BENCH_TMP/lb.txt" 2>&1
lb() { grep -m1 "^$1" "$BENCH_TMP/lb.txt" | sed "s/^$1[^:]*: //"; }
for s in bpf proc; do
	v=$(lb "rate saturated $s:")
	hz=$(echo "$v" | awk '{ for (i = 1; i <= NF; i++) if ($i == "achieved") print $(i + 1) }')
	bench_row "spinners 4 per CPU (every CPU saturated), --source $s" "thread sampling rate achieved, Hz (-F 20)" \
		"${hz:-n/a}" "$(lb 'rate saturated bpf --sched normal:' | sed 's/ (the peer.*//; s/^/--sched normal: /')" \
		">= 18 (10% of -F)" "$(bench_verdict "${hz:-}" ge 18)"
done
for w in idle saturated; do
	v=$(lb "start-up $w:")
	p=$(echo "$v" | awk '{ print $3 }')
	d=$(echo "$v" | awk '{ print $7 }')
	t=1500
	[ $w = saturated ] && t=3000
	bench_row "threadtop TUI in tmux, box $w" "start-up: first paint / first data row, ms (median of 3)" \
		"${p:-n/a} / ${d:-n/a}" "" "<= 200 / <= $t" \
		"$([ "$(bench_verdict "${p:-}" le 200)" = PASS ] && bench_verdict "${d:-}" le "$t" || echo MISS)"
done
v=$(lb "memory, model simulated")
bench_row "bench_model 2,000 threads, 200 replaced/s, simulated $([ $mode = full ] && echo hour || echo 10 min)" "model RSS at minute 5 and at the end" "${v:-n/a}" "" "<= 1.5x" \
	"$(bench_verdict "$(echo "$v" | grep -o '[0-9.]*x)' | tr -d 'x)')" le 1.5)"
v=$(lb "memory, live TUI")
[ -n "$v" ] && bench_row "live TUI, churn + 2,000 idle threads, $lb_live min" "RSS at minute 5 and at the end (a shortened hour)" \
	"$v" "" "<= 1.5x" "$(bench_verdict "$(echo "$v" | grep -o '[0-9.]*x)' | tr -d 'x)')" le 1.5)"
while read -r _ n rest; do
	pass=$(echo "$rest" | grep -o 'pass_ms=[0-9.]*' | cut -d= -f2)
	pct=$(echo "$rest" | grep -o 'pct_at_20hz=[0-9.]*' | cut -d= -f2)
	kept=$(echo "$rest" | grep -o 'hz_kept_at_5pct=[0-9.]*' | cut -d= -f2)
	psm=$(echo "$rest" | grep -o 'ps_ms=[0-9.]*' | cut -d= -f2)
	ratio=$(echo "$rest" | grep -o 'ratio=[0-9.]*' | cut -d= -f2)
	t=
	[ "$n" = 2000 ] && t=5
	bench_row "idle_threads $n, --source proc" "CPU per pass, ms / at 20 Hz, % of a core / Hz kept at --proc-budget 5" \
		"$pass / $pct / $kept" "ps -eLo stat,wchan: $psm ms a run (threadtop pass / ps: ${ratio}x)" \
		"${t:+<= $t% at 20 Hz}" "$(bench_verdict "$pct" le "$t")"
done < <(grep '^proc_cost ' "$BENCH_TMP/lb.txt")

# --- 7. LuaJIT ---------------------------------------------------------------
log "LuaJIT"
lib=$build/lib/libthreadtop-sysprof.so
if command -v luajit >/dev/null; then
	bash "$here/sysprof_overhead.sh" -p -l "$lib" $([ $mode = full ] && echo "-n 7" || echo "-n 1 -s 0.2") \
		>"$BENCH_TMP/sp.txt" 2>&1
	jp=$(awk '$1 == "jit.p" { sub(/%/, "", $6); print $6 }' "$BENCH_TMP/sp.txt")
	for c in D C; do
		v=$(awk -v c="sysprof-$c" '$1 == c { sub(/%/, "", $6); print $6 }' "$BENCH_TMP/sp.txt")
		ok=$(bench_verdict "${v:-}" le 3)
		[ "$ok" = PASS ] && [ "$(bench_verdict "$v" le "${jp:-0}")" = MISS ] && ok=MISS
		bench_row "sysprof_workload.lua (luajit)" "slowdown %, sysprof mode $c at 10 ms" "${v:-n/a}" \
			"luajit -jp ${jp:-n/a}" "<= 3 and <= jit.p" "$ok"
	done
	bash "$here/luajit_live_overhead.sh" -l "$lib" $([ $mode = full ] && echo "-n 7" || echo "-n 1 -s 0.2") \
		>"$BENCH_TMP/ll.txt" 2>&1
	v=$(awk '/^ratio/ { print $NF }' "$BENCH_TMP/ll.txt")
	bench_row "sysprof_workload.lua (luajit)" "libthreadtop-sysprof preloaded, no threadtop: slowdown (median)" \
		"$(x "$v")" "" "within noise (1.00x +- 0.05)" "$(bench_verdict "${v:-}" le 1.05)"
else
	bench_row "sysprof_workload.lua (luajit)" "slowdown %, sysprof mode D at 10 ms" n/a "luajit missing" "<= 3 and <= jit.p" "-"
	bench_row "sysprof_workload.lua (luajit)" "slowdown %, sysprof mode C at 10 ms" n/a "luajit missing" "<= 3 and <= jit.p" "-"
	bench_row "sysprof_workload.lua (luajit)" "libthreadtop-sysprof preloaded, no threadtop: slowdown (median)" n/a "" "within noise (1.00x +- 0.05)" "-"
fi

# --- Output -------------------------------------------------------------------
rev=$(git -C "$src" rev-parse --short HEAD 2>/dev/null || echo unknown)
header="threadtop $("$TT" -V | awk '{ print $2 }') at commit $rev, $(date -u '+%Y-%m-%d %H:%M UTC'), $mode run: $(uname -r), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg) at the end"
echo
echo "$header"
bench_table_text "$BENCH_ROWS"
misses=$(awk -F'\t' '$6 == "MISS"' "$BENCH_ROWS" | wc -l)
echo
echo "scaling"
bench_table_text "$SCALE_ROWS" "$SCALE_COLUMNS"
echo "$SCALE_SUMMARY"
echo "rows: $(wc -l <"$BENCH_ROWS"), misses: $misses"
mkdir -p "$(dirname "$out")"
# What stands below the hand-kept marker (notes written by hand) survives.
marker='<!-- Hand-kept: tests/bench/run_all.sh rewrites what is above this line and keeps what is below. -->'
kept=
[ -f "$out" ] && kept=$(awk -v m="$marker" 'f || $0 == m { f = 1; print }' "$out")
{
	echo "# Benchmarks"
	echo
	echo "$header."
	echo
	echo "Produced by \`sudo tests/bench/run_all.sh$([ $mode = full ] || echo " --$mode")\`. Slowdowns are the median"
	echo "of $REPS alternating runs without and with each tool, as ratios measured in the same run;"
	echo "absolute times on a shared machine are noise."
	echo
	bench_table_md "$BENCH_ROWS"
	echo
	echo "## Scaling"
	echo
	echo "threadtop's own CPU (% of one core) and memory at several sizes; growth as the"
	echo "least-squares line (a fixed cost plus a cost per unit, with R2) and the log-log"
	echo "exponent b of y ~ x^b (b near 1: linear); projections follow the line."
	echo
	bench_table_md "$SCALE_ROWS" "$SCALE_COLUMNS"
	echo
	echo "$SCALE_SUMMARY"
	if [ -n "$kept" ]; then
		echo
		echo "$kept"
	fi
} >"$out.tmp" && mv "$out.tmp" "$out"
echo "written: $out"
