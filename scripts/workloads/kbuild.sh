#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A kernel build, the benchmark the mTHP series post (issue 42): Debian's
# linux-source-6.1 (installed with apt-get if missing), unpacked once into the
# workload cache, configured with TARGET (default tinyconfig; any config
# target: defconfig, allnoconfig, ...) and built with make -j$(nproc) into a
# fresh O= directory, removed at the end: every run starts from the same
# clean state.
#   kbuild.sh [--prepare] [TARGET]
#   --prepare   install and unpack only (run-suite.sh runs it before the
#               trials, so no trial pays for the unpacking)
#   KBUILD_JOBS=N  make -jN instead of -j$(nproc)
# Example: mthpscope run --orders 0,4 --reps 3 -- scripts/workloads/kbuild.sh
#
# shellcheck source=scripts/workloads/lib.sh
source "$(dirname "$0")/lib.sh"
prepare=0
target=tinyconfig
while [ $# -gt 0 ]; do
	case "$1" in
	--prepare) prepare=1 ;;
	-h|--help) wl_usage 0 ;;
	-*) wl_die 2 "unknown option '$1' (usage: kbuild.sh [--prepare] [TARGET])" ;;
	*config) target=$1 ;;
	*) wl_die 2 "invalid TARGET '$1': a config target (tinyconfig, defconfig, ...)" ;;
	esac
	shift
done
jobs=${KBUILD_JOBS:-$(nproc)}
case "$jobs" in ''|*[!0-9]*|0) wl_die 2 "invalid KBUILD_JOBS '$jobs': a number of jobs" ;; esac

ver=6.1
tarball=/usr/src/linux-source-$ver.tar.xz
[ -r "$tarball" ] || wl_install "linux-source-$ver"
for t in make:make gcc:gcc flex:flex bison:bison bc:bc; do
	wl_need "${t%%:*}" "${t#*:}"
done
[ -r "$tarball" ] || wl_die 3 "$tarball not found (apt-get install linux-source-$ver)"

unpack() { tar -xJf "$tarball" -C "$1" --strip-components=1; }
tree=$wl_cache/linux-source-$ver
wl_once "$tree" unpack
[ "$prepare" = 1 ] && exit 0

out=$(wl_rundir "$wl_cache" kbuild-O)
trap 'rm -rf "$out"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
if ! { make -s -C "$tree" O="$out" "$target" &&
       make -s -C "$tree" O="$out" -j"$jobs"; } >"$out/.log" 2>&1; then
	tail -20 "$out/.log" >&2
	wl_die 1 "the build of $target failed (the log's end above)"
fi
echo "vmlinux bytes: $(stat -c %s "$out/vmlinux")"
