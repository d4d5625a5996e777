#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Installs threadtop's .deb (cpack -G DEB in the release build) on a Debian 12
# that has never built it and checks that it works there: a minimal bookworm
# made once with debootstrap from Debian's archive, copied afresh for every
# run, with /proc, /sys and /dev of this machine mounted. Checks that
# apt-get install ./threadtop_*.deb pulls its Depends: from the archive, that
# no compiler, clang or bpftool comes along, that every file the package
# promises is there, that `threadtop -b -n 1` runs (BPF source) and that the
# bash completion completes. Not run by CI (debootstrap downloads ~60 MB).
#
#   tests/package/install-deb.sh build/release/threadtop_0.1.0_amd64.deb [WORKDIR]
set -eu
deb=$(readlink -f "${1:?usage: $0 FILE.deb [WORKDIR]}")
work=${2:-$(dirname "$deb")/deb-install}
[ "$(id -u)" -eq 0 ] || { echo "install-deb: run as root (debootstrap, chroot)" >&2; exit 1; }
command -v debootstrap >/dev/null || { echo "install-deb: apt-get install debootstrap" >&2; exit 1; }

base=$work/bookworm-base
root=$work/root
fail() {
	echo "FAIL: $*"
	exit 1
}
if [ ! -x "$base/usr/bin/apt-get" ]; then
	rm -rf "$base"
	debootstrap --variant=minbase bookworm "$base" http://deb.debian.org/debian >"$work.debootstrap.log" 2>&1 ||
		fail "debootstrap failed: see $work.debootstrap.log"
	# Security updates too, as a real bookworm has them.
	cat >"$base/etc/apt/sources.list" <<EOS
deb http://deb.debian.org/debian bookworm main
deb http://deb.debian.org/debian bookworm-updates main
deb http://deb.debian.org/debian-security bookworm-security main
EOS
fi

cleanup() {
	for m in dev/pts dev sys proc; do
		mountpoint -q "$root/$m" && umount -l "$root/$m"
	done
	rm -rf "$root"
}
trap cleanup EXIT
cleanup
cp -a "$base" "$root"
mount -t proc proc "$root/proc"
mount -t sysfs sys "$root/sys"
mount --bind /dev "$root/dev"
mount --bind /dev/pts "$root/dev/pts"
cp "$deb" "$root/tmp/"
in_root() { chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root "$@"; }

in_root dpkg -s threadtop >/dev/null 2>&1 && fail "threadtop is installed before the test"
in_root apt-get update -qq
DEBIAN_FRONTEND=noninteractive in_root apt-get install -y --no-install-recommends \
	"/tmp/$(basename "$deb")" >"$work/apt.log" 2>&1 || { cat "$work/apt.log"; fail "apt-get install failed"; }
echo "installed with: $(sed -n '/The following NEW packages/,/^[0-9]/p' "$work/apt.log" | sed '1d;$d' | tr -s ' \n' ' ')"
for t in cc gcc clang bpftool; do
	in_root sh -c "command -v $t" && fail "$t is installed: the package must not need it"
done
for f in /usr/bin/threadtop /usr/bin/luajit-parse-sysprof /usr/lib/libthreadtop-sysprof.so \
	/usr/lib/lua/5.1/sysprof.so /usr/share/man/man1/threadtop.1 \
	/usr/share/threadtop/labels/postgresql-15.labels /usr/share/threadtop/labels/nginx-1.22.labels \
	/usr/share/bash-completion/completions/threadtop /usr/share/doc/threadtop/examples/threadtop.service; do
	[ -e "$root$f" ] || fail "the package has no $f"
done

out=$(in_root threadtop -b -n 1 --format json 2>"$work/err") || fail "threadtop -b -n 1 exited $?: $(cat "$work/err")"
src=$(echo "$out" | in_root sh -c 'cat >/tmp/o; grep -o "\"source\":\"[a-z]*\"" /tmp/o | head -1')
[ "$src" = '"source":"bpf"' ] || fail "threadtop -b -n 1 did not use the BPF source: ${src:-no output}; $(cat "$work/err")"
echo "threadtop -b -n 1: exit 0, $src; messages: $(tr '\n' ' ' <"$work/err")"
in_root luajit-parse-sysprof --help >/dev/null 2>&1 || [ $? -eq 2 ] || fail "luajit-parse-sysprof does not run"

# The completion, as an interactive bash with bash-completion loads it.
DEBIAN_FRONTEND=noninteractive in_root apt-get install -y -qq --no-install-recommends bash-completion >/dev/null
# shellcheck disable=SC2016 # expanded by the chroot's bash
comp=$(in_root bash -c '. /usr/share/bash-completion/bash_completion
	__load_completion threadtop
	try() { COMP_LINE=$1; COMP_POINT=${#1}; read -ra COMP_WORDS <<<"$1"
		[ "${1: -1}" = " " ] && COMP_WORDS+=("")
		COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMPREPLY=()
		_threadtop threadtop "${COMP_WORDS[-1]}" "${COMP_WORDS[-2]}"; echo "${COMPREPLY[*]}"; }
	try "threadtop --sou"; try "threadtop --source "')
[ "$comp" = $'--source\nauto bpf proc' ] || fail "bash completion gave: $comp"
echo "PASS: installed and ran on a fresh Debian 12 ($(in_root cat /etc/debian_version))"
