#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# What threadtop says while its BPF programs load on this kernel: runs one
# short batch interval per mode (default, -p, --syscalls, --offcpu, --unwind
# dwarf, a label, a LuaJIT process) and prints each run's messages (stderr)
# and its --log (libbpf's messages among them), so kernels can be compared.
# Run as root from a build directory, natively or in the kernel harness:
#
#   tests/kernels/run-kernel --cmd "bash $PWD/tests/kernels/load-messages.sh" PACKAGE
set -u
: "${TT_BUILD:=$(pwd)}"
bin=$TT_BUILD/threadtop
wl=$TT_BUILD/tests/workloads
tmp=$(mktemp -d)
trap 'kill "$sleeper" 2>/dev/null; rm -rf "$tmp"' EXIT
"$wl/idle_threads" 2 600 &
sleeper=$!

run() { # NAME [run] ARGS...
	local name=$1 rc cmd=()
	shift
	[ "${1:-}" = run ] && cmd=(run) && shift
	"$bin" "${cmd[@]}" -b -n 1 -d 0.5 --format json --log "$tmp/$name.log" "$@" \
		>"$tmp/$name.out" 2>"$tmp/$name.err"
	rc=$?
	echo "== $name: threadtop ${cmd[*]} -b -n 1 $*: exit $rc," \
		"$(grep -o '"source":"[a-z]*"' "$tmp/$name.out" | head -1)"
	# Time stamps, the capabilities kept and how unwinding went at exit say
	# nothing about loading.
	grep -v 'DWARF unwinding: ' "$tmp/$name.err" | sed 's/^/  stderr: /'
	sed -E 's/^[0-9T:.-]+Z //' "$tmp/$name.log" 2>/dev/null |
		grep -v -e '^capabilities: ' -e '^DWARF unwinding: ' | sed 's/^/  log: /'
}
echo "kernel $(uname -r)"
run default
run pid -p "$sleeper"
run syscalls --syscalls
run offcpu --offcpu
run dwarf --unwind dwarf
run label --label "x=$wl/idle_threads:main:arg1"
if command -v luajit >/dev/null; then
	run luajit run -- luajit -e 'local t = os.clock() while os.clock() - t < 2 do end'
fi
