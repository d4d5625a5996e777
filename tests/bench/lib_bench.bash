# SPDX-License-Identifier: GPL-2.0-only
# Helpers shared by the benchmark scripts (sourced, not run): medians and
# ratios, workloads that print their cost, tools started beside a workload,
# a process's own CPU and peak memory, growth fits, and the result table
# (rows appended to $BENCH_ROWS as tab-separated fields, printed as text or
# Markdown). Needs BENCH_WL (the workloads directory) and BENCH_TMP (a
# scratch directory) set by the caller.

# bench_median: the median of the numbers on stdin (space or line separated).
bench_median() {
	tr ' ' '\n' | grep . | sort -g |
		awk '{ a[NR] = $1 } END { if (NR) print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}

# bench_ratio A B: A / B to three decimals ("" when either is missing).
bench_ratio() {
	[ -n "$1" ] && [ -n "$2" ] || return 0
	awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.3f", a / b }'
}

# bench_wl NAME [PREFIX...]: runs workload NAME (optionally under a wrapping
# tool such as strace) and prints its cost: seconds for the fixed-work
# storms, seconds per unit of work for the timed ones (so that, for every
# workload, cost with a tool / cost without = slowdown). Sizes come from
# BENCH_N_GETPPID, BENCH_N_PINGPONG and BENCH_SECS (timed workloads).
bench_wl() {
	local name=$1
	shift
	case $name in
	getppid) "$@" "$BENCH_WL/getppid_loop" "${BENCH_N_GETPPID:-2000000}" - 2>/dev/null | tail -n 1 ;;
	pingpong) "$@" "$BENCH_WL/pingpong" "${BENCH_N_PINGPONG:-100000}" 0 2>/dev/null | tail -n 1 ;;
	symchain_*)
		"$@" "$BENCH_WL/$name" "${BENCH_SECS:-1}" 2>/dev/null |
			awk -F'[ =]' '/^symchain rounds=/ && $3 > 0 { printf "%.9f\n", $5 / $3 }'
		;;
	churn)
		"$@" "$BENCH_WL/churn" "${BENCH_SECS:-1}" 2>/dev/null |
			awk -F'[ =]' '/^churn forks=/ && $3 + $5 > 0 { printf "%.9f\n", $7 / ($3 + $5) }'
		;;
	*) echo "bench_wl: unknown workload $name" >&2 ;;
	esac
}

# bpftrace equivalents of threadtop's modes: profile-style on-CPU stack
# sampling (default mode), syscount-style counting and latency histograms
# (--syscalls), offcputime-style off-CPU stacks (--offcpu). Stack maps are
# cleared at exit: printing them symbolizes every user stack, which can take
# minutes on a busy box and is no part of the cost measured here.
BENCH_BT_PROFILE='bpftrace -e "profile:hz:99 { @[kstack, ustack, comm] = count(); } END { clear(@); }"'
BENCH_BT_COUNT='bpftrace -e "tracepoint:raw_syscalls:sys_enter { @[args->id] = count(); }"'
BENCH_BT_LAT='bpftrace -e "tracepoint:raw_syscalls:sys_enter { @s[tid] = nsecs; } tracepoint:raw_syscalls:sys_exit /@s[tid]/ { @[args->id] = hist(nsecs - @s[tid]); delete(@s[tid]); }"'
BENCH_BT_OFF='bpftrace -e "tracepoint:sched:sched_switch { @t[args->prev_pid] = nsecs; @k[args->prev_pid] = kstack; @u[args->prev_pid] = ustack; \$s = @t[args->next_pid]; if (\$s) { @off[@k[args->next_pid], @u[args->next_pid], args->next_comm] = sum(nsecs - \$s); delete(@t[args->next_pid]); } } END { clear(@t); clear(@k); clear(@u); clear(@off); }"'

# bench_tool_start CMD: starts CMD (a shell command line) in its own session
# beside the workloads and waits until it is attached: bpftrace says so;
# threadtop and perf get BENCH_SETTLE seconds (default 1.5). CMD runs under
# exec, so BENCH_TOOL is the tool's own pid.
bench_tool_start() {
	setsid bash -c "exec $1" >"$BENCH_TMP/tool.out" 2>&1 &
	BENCH_TOOL=$!
	local i settle
	settle=$(awk -v s="${BENCH_SETTLE:-1.5}" 'BEGIN { print int(s * 10) }')
	for i in $(seq 300); do
		sleep 0.1
		case $1 in
		bpftrace*) grep -q "^Attaching" "$BENCH_TMP/tool.out" && break ;;
		*) [ "$i" -ge "$settle" ] && break ;;
		esac
		kill -0 "$BENCH_TOOL" 2>/dev/null || break
	done
	sleep 0.3
}

# bench_tool_stop: SIGINT to the tool's session, then wait for it, at most
# 20 s (a tool still writing its report after that is killed).
bench_tool_stop() {
	[ -n "${BENCH_TOOL:-}" ] || return 0
	kill -INT -- "-$BENCH_TOOL" 2>/dev/null
	local i
	for i in $(seq 200); do
		kill -0 "$BENCH_TOOL" 2>/dev/null || break
		sleep 0.1
	done
	kill -KILL -- "-$BENCH_TOOL" 2>/dev/null
	wait "$BENCH_TOOL" 2>/dev/null
	BENCH_TOOL=
}

# bench_proc_cpu PID: CPU seconds (utime + stime) the process has used.
bench_proc_cpu() {
	awk -v hz="$(getconf CLK_TCK)" '{ sub(/.*\) /, ""); printf "%.3f\n", ($12 + $13) / hz }' \
		"/proc/$1/stat" 2>/dev/null
}

# bench_wait_threads PID N [SECONDS]: waits (default at most 120 s) until
# process PID has N threads; on a loaded box creating 10,000 takes a while.
bench_wait_threads() {
	local deadline=$((SECONDS + ${3:-120})) n
	while ((SECONDS < deadline)); do
		n=$(awk '/^Threads:/ { print $2 }' "/proc/$1/status" 2>/dev/null)
		[ -n "$n" ] || return 1
		[ "$n" -ge "$2" ] && return 0
		sleep 0.2
	done
	return 1
}

# bench_proc_hwm PID: peak resident memory (VmHWM) in MB.
bench_proc_hwm() {
	awk '/^VmHWM:/ { printf "%.1f\n", $2 / 1024 }' "/proc/$1/status" 2>/dev/null
}

# bench_fit "X1 X2 ..." "Y1 Y2 ...": the exponent b of y ~ x^b (least
# squares in log-log) and what it means: "b=0.98 (linear)".
bench_fit() {
	awk -v xs="$1" -v ys="$2" 'BEGIN {
		n = split(xs, x, " "); split(ys, y, " ")
		for (i = 1; i <= n; i++) {
			if (x[i] <= 0 || y[i] <= 0) continue
			lx = log(x[i]); ly = log(y[i]); m++
			sx += lx; sy += ly; sxx += lx * lx; sxy += lx * ly
		}
		if (m < 2 || m * sxx == sx * sx) { print "n/a"; exit }
		b = (m * sxy - sx * sy) / (m * sxx - sx * sx)
		kind = b < 0.25 ? "about constant" : b < 0.75 ? "sublinear" : b < 1.15 ? "linear" : b < 1.5 ? "n log n or slightly superlinear" : "superlinear"
		printf "b=%.2f (%s)\n", b, kind
	}'
}

# bench_linfit "X1 X2 ..." "Y1 Y2 ...": the least-squares line y = a + c x
# and how well it fits, printed as "a c r2".
bench_linfit() {
	awk -v xs="$1" -v ys="$2" 'BEGIN {
		n = split(xs, x, " "); split(ys, y, " ")
		for (i = 1; i <= n; i++) { sx += x[i]; sy += y[i]; sxx += x[i] * x[i]; sxy += x[i] * y[i] }
		d = n * sxx - sx * sx
		if (n < 2 || d == 0) { print "0 0 0"; exit }
		c = (n * sxy - sx * sy) / d
		a = (sy - c * sx) / n
		for (i = 1; i <= n; i++) { e = y[i] - a - c * x[i]; ss += e * e; t = y[i] - sy / n; st += t * t }
		printf "%.6g %.6g %.3f\n", a, c, (st > 0) ? 1 - ss / st : 1
	}'
}

# bench_verdict VALUE OP LIMIT: PASS or MISS (OP is le or ge), "-" without a
# value or a limit.
bench_verdict() {
	[ -n "$1" ] && [ -n "$3" ] || { echo "-"; return; }
	awk -v v="$1" -v op="$2" -v l="$3" 'BEGIN {
		ok = (op == "le") ? v <= l : v >= l
		print ok ? "PASS" : "MISS" }'
}

# bench_row WORKLOAD FIGURE THREADTOP PEERS TARGET RESULT: one table row.
bench_row() {
	local f out=""
	for f in "$@"; do
		out="$out${out:+	}${f:--}"
	done
	echo "$out" >>"$BENCH_ROWS"
}

# The table's columns, tab-separated (bench_table_* take another as $2).
BENCH_COLUMNS='workload	figure	threadtop	peers (same run)	target	result'

# bench_table_text FILE [COLUMNS]: the rows as an aligned text table.
bench_table_text() {
	{
		echo "${2:-$BENCH_COLUMNS}"
		cat "$1"
	} | awk -F'\t' '
		{ for (i = 1; i <= NF; i++) { c[NR, i] = $i; if (length($i) > w[i]) w[i] = length($i) } n = NR; nf = NF }
		END { for (r = 1; r <= n; r++) { line = ""
			for (i = 1; i <= nf; i++) line = line sprintf(i < nf ? "%-" w[i] "s  " : "%s", c[r, i])
			print line } }'
}

# bench_table_md FILE [COLUMNS]: the rows as a Markdown table.
bench_table_md() {
	{
		echo "${2:-$BENCH_COLUMNS}"
		echo "${2:-$BENCH_COLUMNS}" | sed 's/[^\t]*/---/g'
		cat "$1"
	} | awk -F'\t' '{ gsub(/\|/, "\\|"); line = "|"; for (i = 1; i <= NF; i++) line = line " " $i " |"; print line }'
}

# bench_tui_cpu BIN WARM_S SECS: threadtop BIN live (--source bpf) in a
# 160x50 tmux pane; prints its CPU over SECS seconds after WARM_S seconds of
# start-up, as a percentage of one CPU; its VmRSS then, in MB, goes to
# $BENCH_TMP/tui.rss.
bench_tui_cpu() {
	# A socket a run (this shell's pid: a run is a $(...) of its own); a tmux
	# server killed just before may still hold the last one.
	local sock=$BENCH_TMP/tui.$BASHPID.sock tt c0 c1 t0 t1
	tmux -S "$sock" new-session -d -x 160 -y 50 "exec $1 --source bpf"
	sleep "$2"
	tt=$(tmux -S "$sock" list-panes -F '#{pane_pid}')
	c0=$(bench_proc_cpu "$tt")
	t0=$(date +%s.%N)
	sleep "$3"
	c1=$(bench_proc_cpu "$tt")
	t1=$(date +%s.%N)
	awk '/^VmRSS:/ { printf "%.0f\n", $2 / 1024 }' "/proc/$tt/status" >"$BENCH_TMP/tui.rss" 2>/dev/null
	tmux -S "$sock" kill-server 2>/dev/null
	awk -v c0="$c0" -v c1="$c1" -v t0="$t0" -v t1="$t1" \
		'BEGIN { printf "%.2f\n", (c1 - c0) / (t1 - t0) * 100 }'
}

# bench_raise_limits N: raises kernel.pid_max and vm.max_map_count (a mapping
# per thread stack) for N threads beside the box's, when they are lower, and
# says so; bench_restore_limits, from the caller's EXIT trap, puts back what
# they were.
bench_raise_limits() {
	BENCH_OLD_PID_MAX=$(cat /proc/sys/kernel/pid_max)
	BENCH_OLD_MAP_COUNT=$(cat /proc/sys/vm/max_map_count)
	if ((BENCH_OLD_PID_MAX < 2 * $1 + 10000 || BENCH_OLD_MAP_COUNT < 3 * $1 + 10000)); then
		echo "raising kernel.pid_max to $((2 * $1 + 10000)) and vm.max_map_count to $((3 * $1 + 10000)) for the run"
		sysctl -qw kernel.pid_max=$((2 * $1 + 10000)) vm.max_map_count=$((3 * $1 + 10000))
	fi
}

bench_restore_limits() {
	[ -n "${BENCH_OLD_PID_MAX:-}" ] || return 0
	sysctl -qw kernel.pid_max="$BENCH_OLD_PID_MAX" vm.max_map_count="$BENCH_OLD_MAP_COUNT"
}
