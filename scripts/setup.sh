#!/usr/bin/env bash
# Install the Debian packages mthpscope needs. Idempotent; quiet when all is
# present. Run as root on Debian 12 (or with sudo available).
#   scripts/setup.sh           build + run: compiler, cmake, libpfm4, hwloc, jansson, gnuplot
#   scripts/setup.sh --tests   also what the test suite needs (clang for fuzzing, man,
#                              dpkg-dev + lintian for the .deb,
#                              arm64 cross compiler, qemu-user, arm64 libraries)
set -euo pipefail

want_tests=0
for a in "$@"; do
	case "$a" in
	--tests) want_tests=1 ;;
	-h|--help) sed -n '2,8p' "$0"; exit 0 ;;
	*) echo "setup.sh: unknown option '$a'" >&2; exit 2 ;;
	esac
done

pkgs=(build-essential cmake pkg-config libpfm4-dev libhwloc-dev libjansson-dev gnuplot-nox)
if [ "$want_tests" = 1 ]; then
	# man-db: the man page test; dpkg-dev, file, lintian: the .deb step
	pkgs+=(clang libclang-rt-14-dev python3 man-db dpkg-dev file lintian)
	arm64_pkgs=(gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user
		    libpfm4-dev:arm64 libhwloc-dev:arm64 libjansson-dev:arm64)
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
[ ${#missing[@]} -eq 0 ] && exit 0

if [ ${#arm64_pkgs[@]} -gt 0 ] && ! dpkg --print-foreign-architectures | grep -qx arm64; then
	$SUDO dpkg --add-architecture arm64
fi
echo "setup.sh: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq >/dev/null
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
