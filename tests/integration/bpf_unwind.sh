#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# DWARF unwinding of on-CPU user stacks (--unwind): the symchain workload
# built without frame pointers shows its whole noinline chain main ->
# chain_exe_1 -> chain_lib_2 -> chain_lib_3 -> chain_exe_leaf, in order, with
# --unwind dwarf and with the default auto, but not with --unwind fp (so it is
# the DWARF unwinder that finds it); the frame-pointer build shows it in fp
# mode. A stack copy too small to unwind (--stack-bytes 64) is counted as
# "stack_end", the run goes on. A sleeping no-frame-pointer thread (sampled
# by the task iterator, stack copied with bpf_copy_from_user_task) shows the
# chain down to pause() in the folded export with --unwind dwarf, not with fp.
# Many sleeping threads (more than the 64 copies a pass allows), with -p
# (the one-pass sampler's walk of one process): after the first passes
# every one of them has its DWARF stack, including the threads whose
# stacks lie just below libc (a read of libc's unwind tables is not a read
# past the stack copy). With --unwind-budget 0.01, 2,000 of them get a few
# dozen unwinds a second.
. "$(dirname "$0")/bpf_common.bash"

top_frames() { # file pid: the frames of pid's busiest on-CPU stack, one per line
	jq -r --argjson p "$2" \
		'[.oncpu[] | select(.pid == $p)] | sort_by(-.samples) | .[0].frames // [] | .[]' \
		<(tail -n 1 "$1")
}

chain_of() { # file pid
	top_frames "$1" "$2" | grep -E '^(main|chain_exe_1|chain_lib_2|chain_lib_3|chain_exe_leaf)$' |
		tr '\n' ' '
}

CHAIN="main chain_exe_1 chain_lib_2 chain_lib_3 chain_exe_leaf "

# No unwinding budget (its own checks are below): at 99 Hz a millisecond an
# unwind (software emulation) is 10% of a core, and past 1% the busiest stack
# would be the frame-pointer one.
run() { # name args...: a 1.5 s batch run over both workloads
	"$TT_BIN" -b --format json -n 1 -d 1.5 --source bpf -p "$nofp,$fp" --unwind-budget 100 \
		"${@:2}" \
		>"$TMPD/$1.json" 2>"$TMPD/$1.err" || fail "$1: threadtop failed: $(cat "$TMPD/$1.err")"
}

start symchain_nofp "$TT_WL_LIFE"
nofp=$WL
start symchain_fp "$TT_WL_LIFE"
fp=$WL
for f in symchain_nofp.out symchain_fp.out; do
	wait_until "no start line in $f" test -s "$TMPD/$f"
done

# Sleeping: only the task iterator sees it.
start symchain_nofp wait
sleeper=$WL
wait_until "the sleeping symchain_nofp did not go to sleep" all_asleep "$sleeper"
SLEEP_CHAIN='main;chain_exe_1;chain_lib_2;chain_lib_3;chain_exe_leaf;pause'
for m in dwarf fp; do
	"$TT_BIN" -b --format json -n 1 -d 1 --source bpf --cpu-hz 0 -p "$sleeper" --unwind "$m" \
		--export "$TMPD/sleep_$m.folded" >/dev/null 2>"$TMPD/sleep_$m.err" ||
		fail "sleeping, $m: threadtop failed: $(cat "$TMPD/sleep_$m.err")"
done
grep -q "$SLEEP_CHAIN" "$TMPD/sleep_dwarf.folded" ||
	fail "sleeping, dwarf: no chain in $(cat "$TMPD/sleep_dwarf.folded")"
! grep -q "$SLEEP_CHAIN" "$TMPD/sleep_fp.folded" ||
	fail "sleeping, fp: the chain without frame pointers? $(cat "$TMPD/sleep_fp.folded")"

run dwarf --unwind dwarf
got=$(chain_of "$TMPD/dwarf.json" "$nofp")
[ "$got" = "$CHAIN" ] ||
	fail "dwarf, no frame pointers: [$got] in $(top_frames "$TMPD/dwarf.json" "$nofp" | tr '\n' ' ')"
got=$(chain_of "$TMPD/dwarf.json" "$fp")
[ "$got" = "$CHAIN" ] || fail "dwarf, frame pointers: [$got]"
grep -qE 'DWARF unwinding: [0-9]+ samples.* ok [0-9]+' "$TMPD/dwarf.err" ||
	fail "no unwinding summary: $(cat "$TMPD/dwarf.err")"

run fp --unwind fp
got=$(chain_of "$TMPD/fp.json" "$fp")
[ "$got" = "$CHAIN" ] || fail "fp, frame pointers: [$got]"
got=$(chain_of "$TMPD/fp.json" "$nofp")
[ "$got" != "$CHAIN" ] || fail "fp mode found the chain without frame pointers: DWARF ran?"
! grep -q 'DWARF unwinding' "$TMPD/fp.err" || fail "fp mode unwound: $(cat "$TMPD/fp.err")"

run auto
got=$(chain_of "$TMPD/auto.json" "$nofp")
[ "$got" = "$CHAIN" ] || fail "auto, no frame pointers: [$got]"

# 200 sleeping threads, 3 s at 20 Hz: a pass copies 64 stacks at most, so
# each thread gets its DWARF stack within the first 4 passes and keeps it:
# per thread (--export-by tid), at most 4 frame-pointer samples (5 allowed)
# and some with the DWARF chain, however many passes the machine ran (a
# slow guest runs a handful, this box about 60). With -p: the box's other
# threads (a CI machine's thousands) would share the 64 copies a pass.
# Only this workload's threads count, from every file of the export (a
# running thread makes the sleepers' stacks a sibling, .threads.folded).
start idle_threads 200 "$TT_WL_LIFE"
idle=$WL
wait_threads "$idle" 201
wait_until "idle_threads' threads asleep" all_asleep "$idle"
"$TT_BIN" -b --format json -n 3 -d 1 --source bpf --cpu-hz 0 --unwind dwarf --unwind-budget 100 \
	-p "$idle" --export "$TMPD/idle.folded" --export-by tid >/dev/null 2>"$TMPD/idle.err" ||
	fail "200 sleeping threads: threadtop failed: $(cat "$TMPD/idle.err")"
tids=$(ls "/proc/$idle/task" | tr '\n' ' ')
read -r threads no_dwarf late dwarf total < <(cat "$TMPD"/idle*.folded | awk -F';' -v tids="$tids" '
	BEGIN { split(tids, a, " "); for (i in a) ours["idle_threads [" a[i] "]"] = 1 }
	/^idle_threads;.*;read;/ && ($2 in ours) {
		n = $0; sub(/.* /, "", n); t = $2; seen[t] = 1; total += n
		if (/;clone3;start_thread;idle;/) { d[t] += n; dwarf += n } else f[t] += n
	}
	END { for (t in seen) { nt++; if (!d[t]) nod++; if (f[t] > 5) late++ }
		print nt + 0, nod + 0, late + 0, dwarf + 0, total + 0 }' "$TMPD/idle.folded")
[ "$threads" -eq 200 ] && [ "$no_dwarf" -eq 0 ] && [ "$late" -eq 0 ] ||
	fail "200 sleeping threads: $threads seen in read, $no_dwarf without a DWARF stack, $late with more than 5 frame-pointer samples ($dwarf of $total samples with the DWARF stack): $(cat "$TMPD/idle.err")"
kill "$idle" 2>/dev/null

# The unwinding budget: 2,000 sleeping threads want 2,000 unwinds (64 a
# pass). Unbounded, all of them are unwound; with --unwind-budget 0.01 (0.1
# ms a second) far fewer (release: 115-248; ASan: 2, its first unwind, which
# reads the files' CFI, took 0.3 ms; how many depends on the machine's
# speed: the check that counts is time), and the time they took is within the
# budgets of the seconds begun, plus the longest unwind (checked before it
# starts, it may overrun; the overrun is paid from the next second). The
# exit line says how many stacks it left to frame pointers, the time spent,
# the seconds and the longest unwind.
start idle_threads 2000 "$TT_WL_LIFE"
idle=$WL
wait_threads "$idle" 2001
wait_until "idle_threads' threads asleep" all_asleep "$idle"
for b in 100 0.01; do
	t0=$SECONDS
	"$TT_BIN" -b --format json -n 3 -d 1 --source bpf --cpu-hz 0 --unwind dwarf \
		--unwind-budget "$b" -p "$idle" >/dev/null 2>"$TMPD/budget_$b.err" ||
		fail "budget $b: threadtop failed: $(cat "$TMPD/budget_$b.err")"
	secs=$((SECONDS - t0))
done
unwinds() { sed -nE 's/.*DWARF unwinding: ([0-9]+) samples.*/\1/p' "$TMPD/budget_$1.err"; }
all=$(unwinds 100)
some=$(unwinds 0.01)
read -r used secs_b longest < <(sed -nE \
	's/.*unwinding budget \(0\.01% of a core, --unwind-budget\): ([0-9]+) us spent in ([0-9]+) s, the longest unwind ([0-9]+) us.*/\1 \2 \3/p' \
	"$TMPD/budget_0.01.err")
[ -n "${used:-}" ] || fail "budget: not reported: $(cat "$TMPD/budget_0.01.err")"
[ -n "$all" ] && [ -n "$some" ] && [ "$all" -ge 1900 ] && [ $((some * 2)) -le "$all" ] ||
	fail "budget: ${some:-?} unwinds at 0.01% in $secs s, ${all:-?} unbounded (want 1,900+ and 2x fewer)"
[ "$used" -le $((secs_b * 100 + longest + 1)) ] ||
	fail "budget: $used us spent unwinding in $secs_b s at 0.01% (100 us a second), the longest unwind $longest us"
echo "budget: $some unwinds, $used us in $secs_b s (longest $longest us) at 0.01%, $all unbounded"
kill "$idle" 2>/dev/null

run short --unwind dwarf --stack-bytes 64
grep -qE 'DWARF unwinding: .* stack_end [0-9]+' "$TMPD/short.err" ||
	fail "--stack-bytes 64: no stack_end count: $(cat "$TMPD/short.err")"
[ "$(top_frames "$TMPD/short.json" "$nofp" | tail -n 1)" = chain_exe_leaf ] ||
	fail "--stack-bytes 64: the leaf is lost: $(top_frames "$TMPD/short.json" "$nofp" | tr '\n' ' ')"
echo PASS
