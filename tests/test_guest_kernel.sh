#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# scripts/guest-kernel.sh without booting anything: bad input (exit 2), a
# package no suite has (exit 3, the suites searched named), --info and
# --config on the cached kernels of tests/guest-kernels (7.3.4: mTHP collapse
# built in; 6.12: not), and a kernel without THP: guest-kernel.sh --info and
# `mthpscope info` name CONFIG_TRANSPARENT_HUGEPAGE.
set -uo pipefail
src=${MTHPSCOPE_SRC:?run under ctest}
bin=${MTHPSCOPE_BIN:?run under ctest}
g=$src/scripts/guest-kernel.sh
cache=${MTHPSCOPE_KERNEL_CACHE:-/var/cache/mthpscope/kernels}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
expect() { # name want-rc want-stderr-substring command...
	local name=$1 rc_want=$2 msg=$3 rc=0
	shift 3
	"$@" >"$work/out" 2>"$work/err" || rc=$?
	if [ "$rc" != "$rc_want" ] || ! grep -qF -- "$msg" "$work/err" "$work/out"; then
		echo "FAIL $name: exit $rc (want $rc_want)"; sed 's/^/  /' "$work/err"; fail=1
	else
		echo "ok   $name"
	fi
}

expect "no argument" 2 "usage: guest-kernel.sh" "$g"
expect "unknown option" 2 "unknown option '--bogus'" "$g" --bogus x
expect "unknown arch" 2 "unknown architecture 'sparc'" "$g" --arch sparc linux-image-7.3.4+deb13-amd64
expect "missing path" 2 "kernel image './nope/vmlinuz' does not exist" "$g" ./nope/vmlinuz
expect "not a package name" 2 "'linux image' is not a Debian package name" "$g" 'linux image'

# A kernel without THP: a config beside an image that does not set it.
mkdir -p "$work/k/boot"
printf 'not a kernel' >"$work/k/boot/vmlinuz-0.0-nothp"
printf '# CONFIG_TRANSPARENT_HUGEPAGE is not set\nCONFIG_PROC_PAGE_MONITOR=y\n' >"$work/k/boot/config-0.0-nothp"
expect "info: no THP" 0 "no THP: CONFIG_TRANSPARENT_HUGEPAGE is not set" "$g" --info "$work/k/boot/vmlinuz-0.0-nothp"
expect "config beside the image" 0 "$work/k/boot/config-0.0-nothp" "$g" --config "$work/k/boot/vmlinuz-0.0-nothp"
MTHPSCOPE_THP_ROOT=$work/nothp MTHPSCOPE_KCONFIG=$work/k/boot/config-0.0-nothp \
	expect "mthpscope info: no THP" 0 "CONFIG_TRANSPARENT_HUGEPAGE is not set in $work/k/boot/config-0.0-nothp" \
	"$bin" info

# What needs the private apt lists: only where they are fresh (no network here).
if [ -n "$(find "$cache/apt/updated" -mmin -1380 2>/dev/null)" ]; then
	expect "no such package" 3 "no package linux-image-7.3.4+deb13-amd64-unsigned for amd64 in Debian's bookworm, bookworm-backports, bookworm-security, trixie-backports, sid (near: linux-image-7.3.4+deb13-amd64" \
		"$g" linux-image-7.3.4+deb13-amd64-unsigned
else
	echo "note: the kernel cache's apt lists are not fresh: the unknown-package case needs the network, not run"
fi
p73=$(awk '$1 == "x86_64:collapse" { print $2 }' "$src/tests/guest-kernels")
p612=$(awk '$1 == "x86_64" { print $2 }' "$src/tests/guest-kernels")
if [ -e "$cache/$p73/package" ]; then
	expect "7.3.4 info" 0 "mTHP collapse: built in" "$g" --info "$p73"
	grep -q "^  CONFIG_TRANSPARENT_HUGEPAGE=y" "$work/out" || { echo "FAIL 7.3.4 config"; fail=1; }
	grep -q "^package linux-binary-unsigned-" "$work/out" || { echo "FAIL 7.3.4 packages"; fail=1; }
else
	echo "note: $p73 is not in the cache (scripts/setup.sh --tests): not checked"
fi
if ls "$cache/$p612"/boot/vmlinuz-* >/dev/null 2>&1; then
	expect "6.12 info" 0 "mTHP collapse: not in this image" "$g" --info "$p612"
fi
exit $fail
