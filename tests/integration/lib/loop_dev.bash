# SPDX-License-Identifier: GPL-2.0-only
# A loop device of known content for the --io tests (bpf_io.sh, tui_io.sh),
# sourced; the caller defines skip (exit 77 with the reason).
#   loop_dev_setup DIR  attaches a 32 MiB file in DIR, written (a read of a
#                       hole would reach no device), with direct I/O where
#                       the kernel has it; sets LOOP (/dev/loopN) and
#                       LOOP_NAME (loopN); skips when there is no loop device
#   loop_dev_detach     detaches it (for the caller's EXIT trap)
LOOP=
LOOP_NAME=

loop_dev_setup() {
	local backing=$1/backing.img
	command -v losetup >/dev/null || skip "losetup is not installed (util-linux)"
	dd if=/dev/zero of="$backing" bs=1M count=32 oflag=direct status=none 2>/dev/null ||
		dd if=/dev/zero of="$backing" bs=1M count=32 status=none
	LOOP=$(losetup -f --show --direct-io=on "$backing" 2>"$1/losetup.err") ||
		LOOP=$(losetup -f --show "$backing" 2>"$1/losetup.err") ||
		skip "no loop device: $(head -c 200 "$1/losetup.err")"
	LOOP_NAME=${LOOP#/dev/}
}

loop_dev_detach() {
	[ -z "$LOOP" ] || losetup -d "$LOOP" 2>/dev/null || true
}
