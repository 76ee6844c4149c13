#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Fetch a Debian kernel package into a cache and print the path of its kernel
# image (x86_64: bzImage; arm64: Image). Used by guest-run.sh and by
# `scripts/setup.sh --tests`; the cache is reused by every later run.
#   scripts/guest-kernel.sh [--arch x86_64|arm64] PACKAGE|PATH...
# PACKAGE is a Debian binary package name, e.g. linux-image-6.12.95+deb12-arm64-unsigned
# (6.12 kernels come from bookworm-backports and bookworm-security, 6.1 from bookworm
# and bookworm-security). A PATH to an existing
# file is printed as is. Cache: $MTHPSCOPE_KERNEL_CACHE (default /var/cache/mthpscope/kernels).
# The system's apt configuration is never touched: a private sources list and lists
# directory live inside the cache; the mirror is the one the machine's own sources use.
# Exit: 0 ok, 2 usage, 3 the package cannot be had (no network, unknown name, no apt).
set -euo pipefail

cache=${MTHPSCOPE_KERNEL_CACHE:-/var/cache/mthpscope/kernels}
arch=$(uname -m)

die() { local rc=$1; shift; echo "guest-kernel.sh: $*" >&2; exit "$rc"; }

# The Debian mirror the machine already uses (deb822 "URIs:" or one-line "deb URI");
# $1 = "debian" or "debian-security".
debian_mirror() {
	local f u want=${1:-debian}
	for f in /etc/apt/sources.list.d/*.sources /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -r "$f" ] || continue
		u=$(awk '/^URIs:/ { for (i = 2; i <= NF; i++) print $i }
			 /^deb / { for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:\/\//) { print $i; break } }' "$f" |
		    grep -E "/$want/?\$" | head -n 1 || true)
		[ -n "$u" ] && { echo "${u%/}"; return 0; }
	done
	return 1
}

apt_opts() {
	echo "-o Dir::Etc::sourcelist=$cache/apt/sources.list -o Dir::Etc::sourceparts=-" \
	     "-o Dir::State::Lists=$cache/apt/lists -o Dir::Cache::archives=$cache/apt/archives" \
	     "-o APT::Architectures::=amd64 -o APT::Architectures::=arm64" \
	     "-o Debug::NoLocking=1 -o APT::Sandbox::User=root"
}

# One private `apt-get update` per day at most; the lists stay in the cache.
apt_lists() {
	local mirror security stamp=$cache/apt/updated
	if [ -f "$stamp" ] && [ -n "$(find "$stamp" -mmin -1440 2>/dev/null)" ]; then
		return 0
	fi
	mirror=$(debian_mirror debian) || die 3 "no Debian mirror found in /etc/apt/sources*"
	mkdir -p "$cache/apt/lists/partial" "$cache/apt/archives/partial"
	printf 'deb %s bookworm main\ndeb %s bookworm-backports main\n' "$mirror" "$mirror" \
		>"$cache/apt/sources.list"
	# bookworm-security carries the newest 6.1 and 6.12 point releases
	if security=$(debian_mirror debian-security); then
		printf 'deb %s bookworm-security main\n' "$security" >>"$cache/apt/sources.list"
	fi
	# shellcheck disable=SC2046
	apt-get $(apt_opts) -qq update >&2 || die 3 "apt-get update from $mirror failed (network?)"
	touch "$stamp"
}

deb_arch() { case "$1" in x86_64|amd64) echo amd64 ;; aarch64|arm64) echo arm64 ;; *) return 1 ;; esac; }

fetch() {
	local pkg=$1 da dir img tmp deb
	da=$(deb_arch "$arch") || die 2 "unknown architecture '$arch'"
	dir=$cache/$pkg
	img=$(ls "$dir"/boot/vmlinuz-* 2>/dev/null | head -n 1 || true)
	if [ -z "$img" ]; then
		command -v apt-get >/dev/null || die 3 "apt-get missing: cannot fetch $pkg"
		apt_lists
		tmp=$(mktemp -d "$cache/.fetch.XXXXXX")
		# shellcheck disable=SC2046
		if ! (cd "$tmp" && apt-get $(apt_opts) -qq download "$pkg:$da" >&2); then
			rm -rf "$tmp"
			die 3 "cannot download $pkg:$da (not in bookworm, bookworm-backports or bookworm-security?)"
		fi
		deb=$(ls "$tmp"/*.deb | head -n 1)
		mkdir -p "$tmp/x"
		dpkg-deb -x "$deb" "$tmp/x" || { rm -rf "$tmp"; die 3 "dpkg-deb -x $deb failed"; }
		mkdir -p "$dir"
		rm -rf "$dir/boot"
		# only boot/ is needed: the image and its config (the modules are not)
		mv "$tmp/x/boot" "$dir/boot"
		rm -rf "$tmp"
		img=$(ls "$dir"/boot/vmlinuz-* 2>/dev/null | head -n 1 || true)
		[ -n "$img" ] || die 3 "$pkg holds no boot/vmlinuz-*"
	fi
	echo "$img"
}

[ $# -gt 0 ] || die 2 "usage: guest-kernel.sh [--arch x86_64|arm64] PACKAGE|PATH..."
while [ $# -gt 0 ]; do
	case "$1" in
	--arch) [ $# -ge 2 ] || die 2 "--arch needs a value"; arch=$2; shift 2 ;;
	--arch=*) arch=${1#--arch=}; shift ;;
	-h|--help) sed -n '2,11p' "$0"; exit 0 ;;
	-*) die 2 "unknown option '$1'" ;;
	*)
		if [ -f "$1" ]; then echo "$1"
		elif [[ "$1" == */* ]]; then die 2 "kernel image '$1' does not exist"
		else mkdir -p "$cache" || die 3 "cannot create $cache"; fetch "$1"
		fi
		shift ;;
	esac
done
