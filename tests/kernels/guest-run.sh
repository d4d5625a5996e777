#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Runs inside the kernel harness's guest, as root, in the overlay of the host's
# root (guest-init chroots here): records what the guest kernel has, then runs
# the job run-kernel wrote to job.env (a ctest selection or a shell command)
# from the build directory under a time limit, and leaves its output and exit
# code in the results share (/run/tt-kernel).
set -eu
res=/run/tt-kernel
# shellcheck source=/dev/null
. "$res/job.env"
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root LANG=C.UTF-8 TERM=xterm-256color
# Each test's deadline for a condition (test_wait.bash, tui_common.bash).
export TT_TEST_WAIT TT_TUI_WAIT=$TT_TEST_WAIT
# bpf_churn's soak, in intervals: under TCG its 10 default intervals of a
# fork storm at 499 Hz on-CPU sampling take 260-300+ s, at ctest's limit.
export TT_SOAK_SECONDS=${TT_SOAK_SECONDS:-12}

{
	echo "kernel: $(uname -r)"
	echo "version: $(cat /proc/version)"
	echo "cpus: $(nproc)"
	echo "mem_kb: $(awk '/MemTotal/ {print $2}' /proc/meminfo)"
	echo "btf: $([ -r /sys/kernel/btf/vmlinux ] && echo yes || echo no)"
	echo "uptime_at_start_s: $(cut -d' ' -f1 /proc/uptime)"
} >"$res/guest-info.txt"

cd "$TT_BUILD"
# Each test's limit (TIMEOUT "300" in the generated ctest files), raised in
# the guest's own overlay: the host's build is left as it is.
if [ -n "${TT_TEST_TIMEOUT:-}" ]; then
	find . -name CTestTestfile.cmake -exec \
		sed -i "s/TIMEOUT \"300\"/TIMEOUT \"$TT_TEST_TIMEOUT\"/" {} + || true
fi
start=$SECONDS
set +e
if [ -n "${TT_JOB_CMD:-}" ]; then
	timeout -k 10 "$TT_JOB_TIMEOUT" bash -c "$TT_JOB_CMD" >"$res/job.log" 2>&1
else
	# shellcheck disable=SC2086
	timeout -k 10 "$TT_JOB_TIMEOUT" ctest $TT_CTEST_ARGS --output-on-failure --no-tests=error \
		--output-junit "$res/junit.xml" >"$res/job.log" 2>&1
fi
rc=$?
set -e
# Every test's whole output (skip reasons too), also for a --cmd that ran ctest.
cp "$TT_BUILD"/Testing/Temporary/LastTest*.log "$res/" 2>/dev/null || true
echo "job_s: $((SECONDS - start))" >>"$res/guest-info.txt"
echo "$rc" >"$res/rc"
sync
