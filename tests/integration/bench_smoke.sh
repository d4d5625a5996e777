#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Keeps the benchmark suite from rotting: tests/bench/run_all.sh --smoke (the
# smallest sizes, peers skipped) on this build must print its table and write
# the Markdown file with every row, each with a threadtop figure. Asserts
# nothing about timing: the figures of a smoke run mean nothing.
set -u
: "${TT_BIN:?}" "${TT_SRC:?}" "${TT_BUILD:?}"
skip() { echo "SKIP: $*"; exit 77; }
[ "$(id -u)" -eq 0 ] || skip "the suite needs root (BPF, perf events)"
ldd "$TT_BIN" 2>/dev/null | grep -c libasan >/dev/null && skip "an ASan build: the suite measures release builds"
"$TT_BIN" -b -n 1 -d 0.1 --source bpf >/dev/null 2>&1 || skip "BPF cannot load here"
for c in jq tmux; do command -v $c >/dev/null || skip "$c is not installed"; done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() {
	echo "FAIL: $*"
	sed -n '1,80p' "$tmp/out"
	exit 1
}
bash "$TT_SRC/tests/bench/run_all.sh" --smoke --out "$tmp/bench.md" "$TT_BUILD" >"$tmp/out" 2>&1 ||
	fail "run_all.sh --smoke exited with $?"
[ -s "$tmp/bench.md" ] || fail "no Markdown table written"

# Every figure the suite promises, by the start of its figure cell.
figures=(
	"slowdown, default mode" "slowdown, --syscalls" "slowdown, --offcpu"
	"threadtop CPU, % of one core" "threadtop peak RSS" "ring buffer"
	"stacks agreeing with perf" "symbolization rate" "model ingest" "per-thread query"
	"frame build + draw, ms CPU: Threads" "frame build + draw, ms CPU: Stacks E"
	"recording, bytes per thread-sample" "replay ingest" "seek to a random time"
	"memory of the model" "time to first frame" "sysprof mode D" "sysprof mode C"
	"libthreadtop-sysprof preloaded"
	"thread sampling rate achieved" "start-up: first paint" "model RSS at minute 5"
	"CPU per pass, ms"
)
for f in "${figures[@]}"; do
	grep -qF -- "| $f" "$tmp/bench.md" || grep -qF -- "$f" "$tmp/bench.md" || fail "no row for: $f"
done
rows=$(grep -c '^| [^-w]' "$tmp/bench.md")
[ "$rows" -ge 30 ] || fail "only $rows rows"
# Main table rows whose threadtop cell is empty or n/a, unless the row says why
# (a peer-only figure skipped in smoke mode, luajit missing).
bad=$(awk -F' [|] ' '/^## Scaling/ { exit } /^[|] [^-]/ && NF >= 6 && $3 ~ /^(n\/a|-|)$/ && $4 !~ /skipped|missing/' "$tmp/bench.md")
[ -z "$bad" ] || fail "rows without a threadtop figure: $bad"
grep -q "^## Scaling" "$tmp/bench.md" || fail "no scaling section"
grep -q "384-CPU" "$tmp/bench.md" || fail "no projection"
echo "PASS: $rows rows, $(grep -c 'MISS' "$tmp/bench.md") misses (not asserted)"
