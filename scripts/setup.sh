#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Install the Debian packages mthpscope needs. Idempotent; quiet when all is
# present. Run as root on Debian 12 (or with sudo available).
#   scripts/setup.sh           build + run: compiler, cmake, libpfm4, hwloc, jansson, pcre2, gnuplot
#   scripts/setup.sh --tests   also what the test suite needs (clang for fuzzing, man,
#                              dpkg-dev + lintian for the .deb,
#                              arm64 cross compiler, qemu-user, arm64 libraries,
#                              qemu-system, busybox-static, cpio, redis-server and
#                              redis-tools (tests/test_workloads.sh), and the Debian
#                              kernels of tests/guest-kernels in the kernel cache)
set -euo pipefail

want_tests=0
for a in "$@"; do
	case "$a" in
	--tests) want_tests=1 ;;
	-h|--help) sed -n '2,11p' "$0"; exit 0 ;;
	*) echo "setup.sh: unknown option '$a'" >&2; exit 2 ;;
	esac
done

pkgs=(build-essential cmake pkg-config libpfm4-dev libhwloc-dev libjansson-dev libpcre2-dev gnuplot-nox)
if [ "$want_tests" = 1 ]; then
	# man-db: the man page test; dpkg-dev, file, lintian: the .deb step;
	# qemu-system, busybox-static, cpio: the guest test (tests/test_guest.sh);
	# redis-server, redis-tools: the server workload's test (tests/test_workloads.sh)
	pkgs+=(clang libclang-rt-14-dev python3 man-db dpkg-dev file lintian
	       qemu-system-x86 qemu-system-arm busybox-static cpio redis-server redis-tools)
	# jq: the guest programs test (tests/test_guest_programs.sh) reads maps with it
	pkgs+=(jq)
	arm64_pkgs=(gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user
		    libpfm4-dev:arm64 libhwloc-dev:arm64 libjansson-dev:arm64
		    libpcre2-dev:arm64)
else
	arm64_pkgs=()
fi

SUDO=""
if [ "$(id -u)" != 0 ]; then
	command -v sudo >/dev/null || { echo "setup.sh: run as root (or install sudo)" >&2; exit 3; }
	SUDO=sudo
fi

missing=()
for p in "${pkgs[@]}" "${arm64_pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
# The kernels the guest smoke test boots, into the cache every later run reuses
# (tests/guest-kernels). A kernel that cannot be had is a warning: the test SKIPs.
fetch_guest_kernels() {
	local here arch pkg
	here=$(cd "$(dirname "$0")" && pwd)
	[ "$want_tests" = 1 ] && [ -r "$here/../tests/guest-kernels" ] || return 0
	while read -r arch pkg; do
		case "$arch" in ''|'#'*) continue ;; esac
		arch=${arch%%:*} # "x86_64:collapse": a second kernel of one architecture
		${SUDO:-} "$here/guest-kernel.sh" --arch "$arch" "$pkg" >/dev/null ||
			echo "setup.sh: warning: kernel $pkg not fetched: the guest test will SKIP" >&2
	done <"$here/../tests/guest-kernels"
}

if [ ${#missing[@]} -eq 0 ]; then
	fetch_guest_kernels
	exit 0
fi

if [ ${#arm64_pkgs[@]} -gt 0 ] && ! dpkg --print-foreign-architectures | grep -qx arm64; then
	$SUDO dpkg --add-architecture arm64
fi
echo "setup.sh: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq >/dev/null
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fetch_guest_kernels
