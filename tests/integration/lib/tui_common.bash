# SPDX-License-Identifier: GPL-2.0-only
# Shared preamble of the TUI tests (tests/integration/tui_*.sh), sourced:
#   TUI_NAME=keys; source "$(dirname "$0")/lib/tui_common.bash"
# Each test gets a private tmux server (-L), so it never touches the user's
# tmux or another test's. Everything waits on a condition (the screen
# showing something, a process being gone) with a generous deadline instead
# of sleeping a fixed time: a loaded machine is slow, not wrong.
#   S          the tmux server and session name (new_server changes it)
#   TUI_TMP    a private directory, removed at exit
#   TUI_PIDS   background pids (workloads) killed at exit: TUI_PIDS+=($!)
#   TT_TUI_WAIT  default deadline of the waits, seconds (30: on a loaded
#                machine the BPF source alone can take 8 s to start)

: "${TT_BIN:?}" "${TT_WORKLOADS:?}"
command -v tmux >/dev/null || {
	echo "SKIP: tmux is not installed"
	exit 77
}

S=tt_${TUI_NAME:-tui}_$$
TUI_SERVERS=("$S")
TUI_TMP=$(mktemp -d)
TUI_PIDS=()
TUI_WAIT=${TT_TUI_WAIT:-30}
# A workload's life in seconds: longer than the waits a test makes on it (a
# fixed 120 s ran out under software emulation, where TUI_WAIT is 120 and
# a test's waits on a live workload added up past it). Killed at exit.
TUI_WL_LIFE=$((4 * TUI_WAIT + 60))

tm() { tmux -L "$S" "$@"; }
screen() { tm capture-pane -t "$S" -p "$@"; }
fail() {
	echo "FAIL: $*"
	echo "--- screen ---"
	screen 2>/dev/null
	exit 1
}
# (|| true: a caller may run under set -e, and a server may be gone already.)
tui_cleanup() {
	local s p
	for s in "${TUI_SERVERS[@]}"; do
		tmux -L "$s" kill-server 2>/dev/null || true
	done
	# A workload a test stopped (kill -STOP) and then failed with holds the
	# signal until it runs again, and with it the output ctest waits on: a
	# failure became a 300 s timeout. CONT lets it take the TERM.
	for p in "${TUI_PIDS[@]}"; do
		kill "$p" 2>/dev/null && kill -CONT "$p" 2>/dev/null || true
	done
	rm -rf "$TUI_TMP"
}
trap tui_cleanup EXIT

# new_server: the next session runs on a fresh tmux server (a server still
# going away after its last session ended cannot take a new one); the
# current server is killed.
new_server() {
	tm kill-server 2>/dev/null || true
	S=tt_${TUI_NAME:-tui}_$$_${#TUI_SERVERS[@]}
	TUI_SERVERS+=("$S")
}

# wait_for REGEX [SECONDS]: until the screen matches (grep -E).
wait_for() {
	local deadline=$((SECONDS + ${2:-$TUI_WAIT}))
	while ((SECONDS < deadline)); do
		screen | grep -Eq -- "$1" && return 0
		sleep 0.1
	done
	fail "timed out waiting for: $1"
}
# wait_gone REGEX [SECONDS]: until the screen no longer matches.
wait_gone() {
	local deadline=$((SECONDS + ${2:-$TUI_WAIT}))
	while ((SECONDS < deadline)); do
		screen | grep -Eq -- "$1" || return 0
		sleep 0.1
	done
	fail "still on screen: $1"
}
# wait_until SECONDS WHAT COMMAND...: until COMMAND succeeds.
wait_until() {
	local deadline=$((SECONDS + $1)) what=$2
	shift 2
	while ((SECONDS < deadline)); do
		"$@" && return 0
		sleep 0.1
	done
	fail "timed out waiting for $what"
}
keys() { tm send-keys -t "$S" "$@"; }

# start_workload PROGRAM THREADS ARGS...: runs a workload in the background
# (killed at exit) and waits until it has started THREADS threads; WL is its pid.
has_threads() { [ "$(ls "/proc/$1/task" 2>/dev/null | wc -l)" -ge "$2" ]; }
start_workload() {
	local prog=$1 nr=$2
	shift 2
	"$TT_WORKLOADS/$prog" "$@" &
	WL=$!
	TUI_PIDS+=("$WL")
	wait_until "$TUI_WAIT" "$prog to start $nr threads" has_threads "$WL" "$nr"
}

# row N: the screen's line N (1-based).
row() { screen | sed -n "$1p"; }
# redrawn [N]: until the title row has changed N times (default 1): its clock
# moves on with the frames, so the screen then shows data of a later
# interval. Checks that something is NOT shown wait on this, not on a sleep.
redrawn() {
	local t0 i
	for ((i = 0; i < ${1:-1}; i++)); do
		t0=$(row 1)
		wait_until "$TUI_WAIT" "a redraw" eval '[ "$(row 1)" != "$t0" ]'
	done
}

# start_shell COLS ROWS [LANG]: a tmux session at a fixed size running a plain
# bash (LANG C.UTF-8 unless given) whose prompt is "PROMPT$ ", waited for.
start_shell() {
	tm new-session -d -s "$S" -x "$1" -y "$2" -e LANG="${3:-C.UTF-8}" "bash --norc --noprofile" ||
		fail "cannot start tmux"
	tm set-option -t "$S" window-size manual >/dev/null 2>&1 || true
	keys "PS1='PROMPT\$ '" Enter
	wait_for '^PROMPT\$'
}

# start_session COLS ROWS COMMAND: a tmux session at a fixed size running COMMAND.
start_session() {
	tm new-session -d -s "$S" -x "$1" -y "$2" "$3" || fail "cannot start tmux"
	tm set-option -t "$S" window-size manual >/dev/null 2>&1 || true
}
