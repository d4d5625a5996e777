# SPDX-License-Identifier: GPL-2.0-only
# Sourced by integration tests: waits on conditions with one shared deadline.
# A loaded machine (load 4-8 on 2 CPUs) or a slow VM starts threadtop's BPF
# source in up to 8 s and delays its first interval, so no test waits for a
# fixed time: each waits for what it needs (a line printed, threads started,
# a state reached) for up to TT_TEST_WAIT seconds (default 60), then fails.
# Workloads that must outlive every wait run for TT_WL_LIFE seconds.
TT_TEST_WAIT=${TT_TEST_WAIT:-60}
TT_WL_LIFE=$((4 * TT_TEST_WAIT + 60))

# wait_until DESCRIPTION COMMAND...: runs COMMAND every 0.1 s until it
# succeeds; fails with DESCRIPTION after TT_TEST_WAIT seconds. Uses fail()
# when the test defines it.
wait_until() {
	local what=$1 end=$((SECONDS + TT_TEST_WAIT))
	shift
	until "$@"; do
		if ((SECONDS >= end)); then
			if declare -F fail >/dev/null; then
				fail "not within ${TT_TEST_WAIT} s: $what"
			fi
			echo "FAIL: not within ${TT_TEST_WAIT} s: $what"
			exit 1
		fi
		_nap
	done
}
# The pause between two tries (a test that must not fork redefines it).
_nap() { sleep 0.1; }

# nr_lines FILE: its complete lines (0 when it does not exist).
nr_lines() {
	local n=0
	[ -e "$1" ] && n=$(wc -l <"$1")
	echo "$n"
}
has_lines() { # FILE N
	(($(nr_lines "$1") >= $2))
}
# wait_lines FILE N [PID]: until FILE has N lines; fails at once if PID (the
# process writing it) is gone before that.
wait_lines() {
	wait_until "${3:+process $3 wrote }$2 lines to $1" _lines_or_gone "$@"
	has_lines "$1" "$2" || fail "process $3 ended after $(nr_lines "$1") of $2 lines in $1"
}
_lines_or_gone() {
	has_lines "$1" "$2" || { [ -n "${3:-}" ] && ! kill -0 "$3" 2>/dev/null; }
}

# count_tasks PID: its threads in NT (0 when it is gone), without a fork.
count_tasks() {
	local t=(/proc/"$1"/task/*)
	NT=0
	[ -e "${t[0]}" ] && NT=${#t[@]}
	return 0
}
nr_tasks() { # PID: its threads
	count_tasks "$1"
	echo "$NT"
}

# has_comms PID COMM...: PID has a thread named each COMM (the workloads name
# their threads once they run: a count of threads is not enough).
has_comms() {
	local want t c found
	for want in "${@:2}"; do
		found=
		for t in /proc/"$1"/task/*; do
			read -r c <"$t/comm" 2>/dev/null || continue
			[ "$c" = "$want" ] && found=1 && break
		done
		[ -n "$found" ] || return 1
	done
}
wait_comms() { # PID COMM...
	wait_until "process $1 has no thread named each of: ${*:2}" has_comms "$@"
}
