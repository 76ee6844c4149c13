#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Fetch a Debian kernel package into a cache and print the path of its kernel
# image (x86_64: bzImage; arm64: Image). Used by guest-run.sh and by
# `scripts/setup.sh --tests`; the cache is reused by every later run.
#   scripts/guest-kernel.sh [--arch x86_64|arm64] [--config|--info] PACKAGE|PATH...
# PACKAGE is a Debian binary package name: linux-image-6.12.95+deb12-arm64-unsigned
# (bookworm, bookworm-backports, bookworm-security: boot/vmlinuz-* in the package) or
# linux-image-7.3.4+deb13-amd64 (trixie-backports, sid: a meta package whose image is
# linux-binary[-unsigned]-VER's usr/lib/modules/VER/vmlinuz.unsigned and whose config
# is linux-base-VER's usr/lib/modules/VER/config). A PATH to an existing file is
# printed as is. --config prints the kernel's config instead (config-* beside the
# image); --info prints its THP options and whether khugepaged's mTHP collapse is
# built in (the image holds its max_ptes_none message). Cache: $MTHPSCOPE_KERNEL_CACHE
# (default /var/cache/mthpscope/kernels): DIR/PACKAGE/boot/{vmlinuz,config}-VER and
# DIR/PACKAGE/package (the Debian packages and versions it came from).
# The system's apt configuration is never touched: a private sources list and lists
# directory live inside the cache; the mirror is the one the machine's own sources use.
# Exit: 0 ok, 2 usage, 3 the package cannot be had (no network, unknown name, no apt).
set -euo pipefail

cache=${MTHPSCOPE_KERNEL_CACHE:-/var/cache/mthpscope/kernels}
arch=$(uname -m)
what=image
# The suites searched, in this order; "security" ones come from the security mirror.
suites="bookworm bookworm-backports bookworm-security trixie-backports sid"

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
	     "-o Dir::State::status=/dev/null" \
	     "-o APT::Architectures::=amd64 -o APT::Architectures::=arm64" \
	     "-o Debug::NoLocking=1 -o APT::Sandbox::User=root"
}

# The private sources list: every suite of $suites on the machine's mirrors.
sources_text() {
	local mirror security s
	mirror=$(debian_mirror debian) || die 3 "no Debian mirror found in /etc/apt/sources*"
	security=$(debian_mirror debian-security || true)
	for s in $suites; do
		case "$s" in
		*-security) [ -n "$security" ] && printf 'deb %s %s main\n' "$security" "$s" ;;
		*) printf 'deb %s %s main\n' "$mirror" "$s" ;;
		esac
	done
}

# One private `apt-get update` per day at most, and whenever the list of
# suites changed; the lists stay in the cache.
apt_lists() {
	local stamp=$cache/apt/updated want
	want=$(sources_text)
	if [ -f "$stamp" ] && [ -n "$(find "$stamp" -mmin -1440 2>/dev/null)" ] &&
	   [ "$want" = "$(cat "$cache/apt/sources.list" 2>/dev/null)" ]; then
		return 0
	fi
	mkdir -p "$cache/apt/lists/partial" "$cache/apt/archives/partial"
	echo "$want" >"$cache/apt/sources.list"
	# shellcheck disable=SC2046
	apt-get $(apt_opts) -qq update >&2 ||
		die 3 "apt-get update of $suites failed (network?)"
	touch "$stamp"
}

deb_arch() { case "$1" in x86_64|amd64) echo amd64 ;; aarch64|arm64) echo arm64 ;; *) return 1 ;; esac; }

# Does the private lists know package $1 (name:arch)?
known() {
	# shellcheck disable=SC2046
	apt-cache $(apt_opts) show "$1" >/dev/null 2>&1
}

# Download $1 (name:arch) into the current directory.
download() {
	# shellcheck disable=SC2046
	apt-get $(apt_opts) -qq download "$1" >&2 2>/dev/null
}

# A package that is not there: say where it was looked for, and the names
# that come closest (same prefix).
not_found() {
	local pkg=$1 da=$2 near
	# shellcheck disable=SC2046
	near=$(apt-cache $(apt_opts) pkgnames "${pkg%%+*}" 2>/dev/null |
	       grep -E -- "-(amd64|arm64|arm64-16k)(-unsigned)?$" | sort | head -n 6 | tr '\n' ' ')
	die 3 "no package $pkg for $da in Debian's $(echo "$suites" | sed 's/ /, /g')${near:+ (near: $near)}"
}

# The 7.x layout: meta package linux-image-VER-FLAVOUR depends on
# linux-binary-VER-FLAVOUR (image) and linux-base-VER-FLAVOUR (config).
# $1 = the meta package's .deb, $2 = arch, $3 = the work directory; extracts
# into $3/x and names the packages used in $3/used.
fetch_split() {
	local meta=$1 da=$2 tmp=$3 dep bin base
	dep=$(dpkg-deb -f "$meta" Depends | tr ',' '\n' | sed 's/^ *//; s/ .*//')
	bin=$(echo "$dep" | grep -m1 '^linux-binary-' || true)
	base=$(echo "$dep" | grep -m1 '^linux-base-' || true)
	[ -n "$bin" ] || die 3 "$(basename "$meta") holds no boot/vmlinuz-* and depends on no linux-binary-*"
	# the unsigned image boots as well as the signed one, and is what the
	# signed one is made from
	known "${bin/linux-binary-/linux-binary-unsigned-}:$da" && bin=${bin/linux-binary-/linux-binary-unsigned-}
	(cd "$tmp" && download "$bin:$da") || die 3 "cannot download $bin:$da"
	[ -z "$base" ] || (cd "$tmp" && download "$base:$da") || die 3 "cannot download $base:$da"
	for d in "$tmp"/linux-binary-*.deb "$tmp"/linux-base-*.deb; do
		[ -e "$d" ] || continue
		dpkg-deb -x "$d" "$tmp/x" || die 3 "dpkg-deb -x $d failed"
		dpkg-deb --show --showformat='${Package} ${Version}\n' "$d" >>"$tmp/used"
	done
	local m ver
	for m in "$tmp"/x/usr/lib/modules/*/; do
		ver=$(basename "$m")
		mkdir -p "$tmp/x/boot"
		[ -f "$m/vmlinuz.unsigned" ] && cp "$m/vmlinuz.unsigned" "$tmp/x/boot/vmlinuz-$ver"
		[ -f "$m/vmlinuz" ] && cp "$m/vmlinuz" "$tmp/x/boot/vmlinuz-$ver"
		[ -f "$m/config" ] && cp "$m/config" "$tmp/x/boot/config-$ver"
	done
	return 0
}

fetch() {
	local pkg=$1 da dir img tmp deb
	da=$(deb_arch "$arch") || die 2 "unknown architecture '$arch'"
	dir=$cache/$pkg
	img=$(ls "$dir"/boot/vmlinuz-* 2>/dev/null | head -n 1 || true)
	if [ -z "$img" ]; then
		command -v apt-get >/dev/null || die 3 "apt-get missing: cannot fetch $pkg"
		apt_lists
		known "$pkg:$da" || not_found "$pkg" "$da"
		tmp=$(mktemp -d "$cache/.fetch.XXXXXX")
		trap 'rm -rf "$tmp"' EXIT
		(cd "$tmp" && download "$pkg:$da") || die 3 "cannot download $pkg:$da (network?)"
		deb=$(ls "$tmp"/*.deb | head -n 1)
		mkdir -p "$tmp/x"
		dpkg-deb -x "$deb" "$tmp/x" || die 3 "dpkg-deb -x $deb failed"
		dpkg-deb --show --showformat='${Package} ${Version}\n' "$deb" >"$tmp/used"
		if ! ls "$tmp"/x/boot/vmlinuz-* >/dev/null 2>&1; then
			fetch_split "$deb" "$da" "$tmp"
		fi
		ls "$tmp"/x/boot/vmlinuz-* >/dev/null 2>&1 || die 3 "$pkg holds no kernel image"
		mkdir -p "$dir"
		rm -rf "$dir/boot"
		# only the image and its config are kept (the modules are not needed)
		mkdir -p "$tmp/keep"
		cp "$tmp"/x/boot/vmlinuz-* "$tmp/keep/"
		cp "$tmp"/x/boot/config-* "$tmp/keep/" 2>/dev/null || true
		mv "$tmp/used" "$dir/package"
		mv "$tmp/keep" "$dir/boot"
		rm -rf "$tmp"
		trap - EXIT
		img=$(ls "$dir"/boot/vmlinuz-* 2>/dev/null | head -n 1 || true)
		[ -n "$img" ] || die 3 "$pkg holds no kernel image"
	fi
	echo "$img"
}

# The config beside an image (boot/config-VER for boot/vmlinuz-VER).
config_of() {
	local img=$1 c
	c=$(dirname "$img")/config-$(basename "$img" | sed 's/^vmlinuz-//')
	[ -f "$c" ] || c=$(ls "$(dirname "$img")"/config-* 2>/dev/null | head -n 1 || true)
	[ -n "$c" ] && [ -f "$c" ] || return 1
	echo "$c"
}

# The uncompressed image on stdout: a bzImage carries its payload compressed
# (zstd, gzip or xz) after the setup code; an arm64 vmlinuz is gzip'd.
image_payload() {
	local img=$1 off
	if gzip -t "$img" 2>/dev/null; then gzip -dc "$img"; return 0; fi
	for m in '\x28\xb5\x2f\xfd:zstd -dc' '\x1f\x8b\x08:gzip -dc' '\xfd7zXZ:xz -dc'; do
		off=$(LC_ALL=C grep -obUaP "${m%%:*}" "$img" 2>/dev/null | head -n 1 | cut -d: -f1 || true)
		[ -n "$off" ] || continue
		tail -c +$((off + 1)) "$img" | ${m#*:} 2>/dev/null || true
		return 0
	done
	cat "$img"
}

info() {
	local img=$1 cfg v
	echo "image   $img"
	[ -f "$(dirname "$(dirname "$img")")/package" ] &&
		sed 's/^/package /' "$(dirname "$(dirname "$img")")/package"
	if cfg=$(config_of "$img"); then
		echo "config  $cfg"
		for v in TRANSPARENT_HUGEPAGE TRANSPARENT_HUGEPAGE_ALWAYS TRANSPARENT_HUGEPAGE_MADVISE \
			 TRANSPARENT_HUGEPAGE_NEVER THP_SWAP READ_ONLY_THP_FOR_FS PGTABLE_HAS_HUGE_LEAVES \
			 ARM64_4K_PAGES ARM64_16K_PAGES ARM64_64K_PAGES ARM64_CONTPTE PROC_PAGE_MONITOR \
			 PERF_EVENTS; do
			grep -m1 -E "^(CONFIG_$v=|# CONFIG_$v is not set)" "$cfg" | sed 's/^/  /' || true
		done
		grep -q '^CONFIG_TRANSPARENT_HUGEPAGE=y' "$cfg" ||
			echo "  no THP: CONFIG_TRANSPARENT_HUGEPAGE is not set: nothing to collapse"
	else
		echo "config  none beside the image"
	fi
	# an arm64 Image is not compressed; a bzImage or a gzip'd Image is
	if LC_ALL=C grep -aq 'mTHP collapse does not support max_ptes_none' "$img" ||
	   image_payload "$img" | LC_ALL=C grep -aq 'mTHP collapse does not support max_ptes_none'; then
		echo "mTHP collapse: built in (khugepaged collapses to sizes below the PMD; its max_ptes_none message is in the image)"
	else
		echo "mTHP collapse: not in this image (khugepaged collapses only to the PMD size)"
	fi
}

[ $# -gt 0 ] || die 2 "usage: guest-kernel.sh [--arch x86_64|arm64] [--config|--info] PACKAGE|PATH..."
while [ $# -gt 0 ]; do
	case "$1" in
	--arch) [ $# -ge 2 ] || die 2 "--arch needs a value"; arch=$2; shift 2
		deb_arch "$arch" >/dev/null || die 2 "unknown architecture '$arch'" ;;
	--arch=*) arch=${1#--arch=}; shift
		deb_arch "$arch" >/dev/null || die 2 "unknown architecture '$arch'" ;;
	--config) what=config; shift ;;
	--info) what=info; shift ;;
	-h|--help) sed -n '2,19p' "$0"; exit 0 ;;
	-*) die 2 "unknown option '$1'" ;;
	*)
		if [ -f "$1" ]; then img=$1
		elif [[ "$1" == */* ]]; then die 2 "kernel image '$1' does not exist"
		elif ! [[ "$1" =~ ^[a-z0-9][a-z0-9.+~-]+$ ]]; then die 2 "'$1' is not a Debian package name"
		elif img=$(ls "$cache/$1"/boot/vmlinuz-* 2>/dev/null | head -n 1) && [ -n "$img" ]; then
			: # cached: readable without the lock, by any user
		else
			mkdir -p "$cache" 2>/dev/null || die 3 "cannot create $cache"
			# one fetcher at a time: the lists and the cache are shared
			{ exec 9>>"$cache/.lock"; } 2>/dev/null ||
				die 3 "cannot write $cache/.lock (fetching needs write access to the cache: root)"
			flock 9
			img=$(fetch "$1")
			flock -u 9
		fi
		case "$what" in
		image) echo "$img" ;;
		config) config_of "$img" || die 3 "no config beside $img" ;;
		info) info "$img" ;;
		esac
		shift ;;
	esac
done
