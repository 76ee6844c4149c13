#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Run mthpscope inside a guest of any kernel (qemu), with no root filesystem:
# the kernel boots a gzip'd cpio initramfs built on the fly from busybox-static
# of the guest's architecture and the mthpscope binary of that architecture
# with its shared libraries.
#
#   scripts/guest-run.sh [--arch x86_64|arm64] [--accel auto|kvm|tcg] [--mem SIZE]
#                        [--cpus N] [--timeout SEC] [--bin PATH] [--out DIR] [--no-icount]
#                        [--with PATH]... --kernel PATH|DEBIAN-PACKAGE -- MTHPSCOPE-ARGS...
#   scripts/guest-run.sh [same options] --shell -- 'SHELL COMMAND'   (diagnostics:
#                        the guest's busybox sh runs the command instead of mthpscope)
#
# The tool runs as root in the guest with /out as its working directory; its
# stdout and stderr come back on this script's stdout and stderr, its exit
# status is this script's, and every file it wrote under /out lands in --out DIR.
# A kernel given as a package name is fetched by scripts/guest-kernel.sh into
# $MTHPSCOPE_KERNEL_CACHE (default /var/cache/mthpscope/kernels); its config, when
# the cache has it, is the guest's /boot/config-VERSION (for `mthpscope info`).
# With --shell, one boot runs a whole script (many mthpscope invocations, files
# written under /out): batch the runs of a matrix into one boot under TCG.
# --bin defaults to build/mthpscope (x86_64) or build-arm64/mthpscope (arm64),
# or $MTHPSCOPE_BIN / $MTHPSCOPE_BIN_ARM64. $MTHPSCOPE_GUEST_ENV="NAME=VALUE ..." sets
# the tool's environment in the guest.
# --accel auto uses KVM when /dev/kvm boots a guest of that architecture within a
# short probe, else TCG (and says so). Under TCG the CPU is emulated: timing says
# nothing about hardware (mthpscope reports host.emulated). arm64 under TCG runs
# with -icount shift=0 (unless --no-icount): QEMU's PMU then counts INST_RETIRED too,
# and the guest's clock advances one ns per instruction.
# Exit: the tool's status; 2 usage (a --kernel path that does not exist too); 3 cannot
# run a guest here (no qemu, a kernel package that cannot be fetched,
# no busybox); 4 the guest failed (panic, no init, timeout; last console lines shown).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
arch=$(uname -m)
accel=auto
mem=1G
cpus=1
timeout=600
kernel=""
bin=""
out=""
keep=${MTHPSCOPE_GUEST_KEEP:-0}
icount=1
shell=0

die() { local rc=$1; shift; echo "guest-run.sh: $*" >&2; exit "$rc"; }
usage() { sed -n '7,11p' "$0" >&2; exit 2; }
withs=()

. "$here/opts.sh"
while [ $# -gt 0 ]; do
	if opt_value "arch accel mem cpus timeout kernel bin out" "$@"; then shift 2; continue; fi
	case "$1" in
	--shell) shell=1; shift ;;
	--with)
		[ $# -ge 2 ] && [ -n "$2" ] || die 2 "--with needs a value"
		case "$2" in /*) ;; *) die 2 "--with $2: give an absolute path (the guest's path is the same)" ;; esac
		[ -e "$2" ] || die 2 "--with $2: no such file or directory"
		withs+=("$2"); shift 2 ;;
	--no-icount) icount=0; shift ;;
	-h|--help) awk 'NR > 2 && !/^#/ { exit } NR > 2 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
	--) shift; break ;;
	*) die 2 "unknown option '$1' (the tool's arguments go after --)" ;;
	esac
done
[ -n "$kernel" ] || die 2 "--kernel PATH|DEBIAN-PACKAGE is required"
[ $# -gt 0 ] || die 2 "no mthpscope arguments after --"
case "$arch" in
x86_64|amd64) arch=x86_64 ;;
aarch64|arm64) arch=arm64 ;;
*) die 2 "--arch must be x86_64 or arm64, not '$arch'" ;;
esac
case "$accel" in auto|kvm|tcg) ;; *) die 2 "--accel must be auto, kvm or tcg" ;; esac
[[ "$cpus" =~ ^[1-9][0-9]*$ ]] || die 2 "--cpus must be a positive integer"
[[ "$timeout" =~ ^[1-9][0-9]*$ ]] || die 2 "--timeout must be a positive number of seconds"
# qemu takes a bare number as MiB: --mem 1 would be 1 MiB, so a unit is required
[[ "$mem" =~ ^[1-9][0-9]*[MG]$ ]] || die 2 "--mem needs a size with its unit, like 512M or 1G (not '$mem')"
case "$mem" in *G) mem_mib=$((${mem%G} * 1024)) ;; *) mem_mib=${mem%M} ;; esac

if [ "$arch" = x86_64 ]; then
	qemu=qemu-system-x86_64
	bin=${bin:-${MTHPSCOPE_BIN:-$top/build/mthpscope}}
	machine="-M q35"
	tcg_cpu="max"
	console=ttyS0
	# a loaded host makes TCG slow enough that the IO-APIC timer check fails
	# ("IO-APIC + timer doesn't work!", seen with 6.12 -rt- here): skip it
	kargs=no_timer_check
	elf_machine="X86-64"
else
	qemu=qemu-system-aarch64
	bin=${bin:-${MTHPSCOPE_BIN_ARM64:-$top/build-arm64/mthpscope}}
	machine="-M virt"
	# pauth-impdef: QEMU's cheaper pointer-authentication hash, much faster under TCG
	tcg_cpu="max,pauth-impdef=on"
	# QEMU's emulated PMUv3 counts INST_RETIRED only with -icount (its PMCEID
	# announces the event then): instructions, and a deterministic guest clock
	# of one ns per instruction
	[ "$icount" = 1 ] && tcg_cpu="$tcg_cpu -icount shift=0"
	console=ttyAMA0
	kargs=""
	elf_machine="AArch64"
fi
command -v "$qemu" >/dev/null || die 3 "$qemu not found (apt-get install qemu-system-x86 / qemu-system-arm)"
command -v cpio >/dev/null || die 3 "cpio not found (apt-get install cpio): without it the initramfs is empty"
[ -x "$bin" ] || die 3 "mthpscope binary '$bin' missing (build it, or pass --bin)"
readelf -h "$bin" 2>/dev/null | grep -q "Machine:.*$elf_machine" ||
	die 2 "'$bin' is not an $arch binary"

kimg=$("$here/guest-kernel.sh" --arch "$arch" "$kernel") || exit $?
# the kernel's config, when the cache has one beside the image: the guest's
# `mthpscope info` reads it as /boot/config-$(uname -r)
kcfg=$("$here/guest-kernel.sh" --arch "$arch" --config "$kimg" 2>/dev/null || true)

work=$(mktemp -d "${TMPDIR:-/tmp}/mthpscope-guest.XXXXXX")
qpid=""
cleanup() {
	[ -n "$qpid" ] && kill "$qpid" 2>/dev/null || true
	if [ "$keep" = 1 ]; then echo "guest-run.sh: kept $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# --- busybox of the guest's architecture
bb=""
if [ "$arch" = x86_64 ] && [ "$(uname -m)" = x86_64 ]; then
	for c in /bin/busybox /usr/bin/busybox; do
		# static: no program interpreter
		[ -x "$c" ] && ! readelf -l "$c" 2>/dev/null | grep -q 'program interpreter' &&
			{ bb=$c; break; }
	done
	[ -n "$bb" ] || die 3 "no static busybox (apt-get install busybox-static)"
else
	# another architecture's busybox-static, unpacked into the kernel cache once
	da=$([ "$arch" = x86_64 ] && echo amd64 || echo arm64)
	bbdir=${MTHPSCOPE_KERNEL_CACHE:-/var/cache/mthpscope/kernels}/busybox-static-$da
	if [ ! -x "$bbdir/bin/busybox" ]; then
		mkdir -p "$bbdir" || die 3 "cannot create $bbdir"
		(cd "$work" && apt-get -qq download "busybox-static:$da" >/dev/null 2>&1) ||
			die 3 "apt-get download busybox-static:$da failed (dpkg --add-architecture $da; apt-get update)"
		dpkg-deb -x "$work"/busybox-static_*_"$da".deb "$bbdir" || die 3 "dpkg-deb -x busybox-static failed"
		rm -f "$work"/busybox-static_*_"$da".deb
	fi
	bb=$bbdir/bin/busybox
fi

# --- initramfs
ir=$work/ir
mkdir -p "$ir"/{bin,sbin,proc,sys,dev,tmp,run,out,lib,lib64,usr/bin}
cp "$bb" "$ir/bin/busybox"
cp "$bin" "$ir/usr/bin/mthpscope"
if [ -n "$kcfg" ]; then
	mkdir -p "$ir/boot"
	cp "$kcfg" "$ir/boot/$(basename "$kcfg")"
fi

# shared libraries: x86_64 from ldd; arm64 from the NEEDED entries, resolved in
# Debian's multiarch and cross directories
done_libs=" "
libs_x86() { # ELF
	ldd "$1" 2>/dev/null | awk '/=> \// { print $3 } /^\t\/.*ld-linux/ { print $1 }' | while read -r lib; do
		[ -e "$ir$lib" ] && continue
		mkdir -p "$ir$(dirname "$lib")"
		cp -L "$lib" "$ir$lib"
	done
}
libs_arm64() { # ELF
	local todo next so path d
	mkdir -p "$ir/lib/aarch64-linux-gnu"
	dirs="/usr/lib/aarch64-linux-gnu /lib/aarch64-linux-gnu /usr/aarch64-linux-gnu/lib"
	todo=$(readelf -d "$1" | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p')
	while [ -n "$todo" ]; do
		next=""
		for so in $todo; do
			case "$done_libs" in *" $so "*) continue ;; esac
			done_libs="$done_libs$so "
			path=""
			for d in $dirs; do [ -e "$d/$so" ] && { path=$d/$so; break; }; done
			[ -n "$path" ] || die 3 "arm64 library $so not found in $dirs"
			cp -L "$path" "$ir/lib/aarch64-linux-gnu/$so"
			next="$next $(readelf -d "$path" | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p')"
		done
		todo=$next
	done
}
libs() { # ELF: its libraries and loader into the initramfs
	if [ "$arch" = x86_64 ]; then libs_x86 "$1"; else libs_arm64 "$1"; fi
}
libs "$bin"
if [ "$arch" = arm64 ]; then
	ld=""
	for c in /usr/aarch64-linux-gnu/lib/ld-linux-aarch64.so.1 /lib/aarch64-linux-gnu/ld-linux-aarch64.so.1; do
		[ -e "$c" ] && { ld=$c; break; }
	done
	[ -n "$ld" ] || die 3 "arm64 loader ld-linux-aarch64.so.1 not found"
	cp -L "$ld" "$ir/lib/ld-linux-aarch64.so.1"
fi
# --with: each path as it is on the host, and the libraries of its ELF files
for w in ${withs[@]+"${withs[@]}"}; do
	mkdir -p "$ir$(dirname "$w")"
	cp -a -L "$w" "$ir$(dirname "$w")/" || die 3 "cannot copy --with $w into the initramfs"
	find -L "$w" -type f | while read -r f; do
		readelf -h "$f" >/dev/null 2>&1 || continue
		readelf -h "$f" | grep -q "Machine:.*$elf_machine" ||
			die 2 "--with $f is not an $arch ELF file"
		libs "$f"
	done || exit $?
done

# the tool's arguments, one per line, base64'd so any character survives
: >"$ir/args"
for a in "$@"; do printf '%s' "$a" | base64 -w0 >>"$ir/args"; echo >>"$ir/args"; done

# environment for the tool: $MTHPSCOPE_GUEST_ENV, space-separated NAME=VALUE words
: >"$ir/env"
for kv in ${MTHPSCOPE_GUEST_ENV:-}; do
	[[ "$kv" =~ ^[A-Za-z_][A-Za-z0-9_]*=[^\'\ ]*$ ]] || die 2 "MTHPSCOPE_GUEST_ENV: bad word '$kv' (NAME=VALUE)"
	printf "export %s='%s'\n" "${kv%%=*}" "${kv#*=}" >>"$ir/env"
done

cat >"$ir/init" <<'INIT'
#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin:/usr/bin
mount -t proc proc /proc; mount -t sysfs sys /sys; mount -t devtmpfs dev /dev
# --with paths under /tmp or /run (a checkout in /tmp: CI's clone) would be
# hidden by the tmpfs mounted there: carry them over into it
for d in /tmp /run; do
	mkdir -p /.keep$d && cp -a $d/. /.keep$d/ && mount -t tmpfs ${d#/} $d &&
		cp -a /.keep$d/. $d/ && rm -rf /.keep$d
done
# kernel messages off the console: the payload below shares it
echo 0 >/proc/sys/kernel/printk
echo "=MTHPSCOPE-INIT="
set --
while read -r l; do set -- "$@" "$(echo "$l" | base64 -d)"; done </args
. /env
cd /out
[ -e /shell ] && set -- sh -c "$*" || set -- mthpscope "$@"
"$@" >/tmp/stdout 2>/tmp/stderr </dev/null
rc=$?
echo "=MTHPSCOPE-PAYLOAD-BEGIN="
(cd /tmp && echo "$rc" >rc && mkdir -p p && cp stdout stderr rc p/ && cp -a /out p/out &&
 tar -C p -czf - . | base64)
echo "=MTHPSCOPE-PAYLOAD-END="
sync
poweroff -f
INIT
chmod +x "$ir/init"
[ "$shell" = 1 ] && : >"$ir/shell"
(cd "$ir" && find . | cpio -o -H newc --quiet | gzip -1) >"$work/ir.cpio.gz"
# The guest holds the compressed image, its unpacked files and the kernel in
# RAM at once: below that it panics or never reaches /init, which says
# nothing about --mem.
ir_mib=$(( $(du -sm "$ir" | cut -f1) + $(du -sm "$work/ir.cpio.gz" | cut -f1) ))
mem_need=$((ir_mib * 2 + 96))
mem_hint() {
	[ "$mem_mib" -lt "$mem_need" ] &&
		echo "guest-run.sh: --mem $mem is likely too small for the initramfs ($ir_mib MiB, compressed and unpacked): try --mem ${mem_need}M or more" >&2
	return 0
}
mem_hint

# --- accelerator
kvm_works() {
	[ -r /dev/kvm ] && [ -w /dev/kvm ] || return 1
	[ "$arch" = "$(uname -m | sed 's/aarch64/arm64/')" ] || return 1
	# a short probe: a kernel that reaches init within 20 s under KVM
	local log=$work/kvm-probe.log
	(timeout 20 "$qemu" $machine -accel kvm -cpu host -m 256M -smp 1 -display none \
		-monitor none -serial "file:$log" -no-reboot -kernel "$kimg" -initrd "$work/ir.cpio.gz" \
		-append "console=$console $kargs quiet panic=-1 rdinit=/bin/true" >"$work/kvm-probe.out" 2>&1) \
		2>/dev/null || true
	grep -q "Kernel panic\|Attempted to kill init" "$log" 2>/dev/null
}
case "$accel" in
kvm) qaccel="-accel kvm -cpu host" ;;
tcg) qaccel="-accel tcg -cpu $tcg_cpu" ;;
auto)
	if kvm_works; then
		qaccel="-accel kvm -cpu host"
		echo "guest-run.sh: KVM works here: using it" >&2
	else
		qaccel="-accel tcg -cpu $tcg_cpu"
		why=$(grep -m1 . "$work/kvm-probe.out" 2>/dev/null || true)
		echo "guest-run.sh: KVM unusable for $arch here (no /dev/kvm, other architecture, or the probe guest did not boot${why:+: $why}): using TCG, an emulated CPU" >&2
	fi ;;
esac

# --- boot
log=$work/console.log
: >"$log"
# shellcheck disable=SC2086
"$qemu" $machine $qaccel -m "$mem" -smp "$cpus" -display none -monitor none \
	-serial "file:$log" -no-reboot -kernel "$kimg" -initrd "$work/ir.cpio.gz" \
	-append "console=$console $kargs quiet panic=-1" >"$work/qemu.out" 2>&1 &
qpid=$!
start=$(date +%s)
status=""
while kill -0 "$qpid" 2>/dev/null; do
	if [ $(($(date +%s) - start)) -ge "$timeout" ]; then
		kill "$qpid" 2>/dev/null || true
		status=timeout
		break
	fi
	sleep 1
done
wait "$qpid" 2>/dev/null || true
qpid=""

last_lines() {
	# the payload's base64 lines are no help to a reader
	if [ -s "$log" ]; then
		tr -d '\r' <"$log" | { grep -v '^[A-Za-z0-9+/=]\{60,\}$' || true; } | tail -n 20 |
			sed 's/^/  | /' >&2
	else
		echo "  | (the guest printed nothing on its console)" >&2
	fi
	if [ -s "$work/qemu.out" ]; then sed 's/^/  qemu: /' "$work/qemu.out" >&2; fi
	return 0
}
if [ "$status" = timeout ]; then
	echo "guest-run.sh: the guest ran past --timeout $timeout s and was stopped; last console lines:" >&2
	last_lines
	exit 4
fi
panic=$(tr -d '\r' <"$log" | grep -m1 -o 'Kernel panic - .*' || true)
if [ -n "$panic" ]; then
	echo "guest-run.sh: the guest kernel panicked: $panic" >&2
	case "$panic" in *"Out of memory"*|*"out of memory"*|*"System is deadlocked on memory"*)
		echo "guest-run.sh: out of memory: give the guest more --mem (now $mem)" >&2 ;;
	esac
fi
if ! grep -q "=MTHPSCOPE-INIT=" "$log"; then
	echo "guest-run.sh: the guest never reached /init; last console lines:" >&2
	last_lines
	mem_hint
	exit 4
fi
if ! grep -q "=MTHPSCOPE-PAYLOAD-END=" "$log"; then
	echo "guest-run.sh: the guest stopped before mthpscope finished (panic or crash?); last console lines:" >&2
	last_lines
	mem_hint
	exit 4
fi

mkdir -p "$work/p"
tr -d '\r' <"$log" | sed -n '/^=MTHPSCOPE-PAYLOAD-BEGIN=$/,/^=MTHPSCOPE-PAYLOAD-END=$/p' |
	sed '1d;$d' | base64 -d 2>/dev/null | tar -C "$work/p" -xzf - 2>/dev/null ||
	{ echo "guest-run.sh: the guest's output payload is damaged; last console lines:" >&2; last_lines; exit 4; }
cat "$work/p/stdout"
cat "$work/p/stderr" >&2
if [ -n "$out" ]; then
	mkdir -p "$out" || die 1 "cannot create --out $out"
	cp -a "$work/p/out/." "$out/"
fi
exit "$(cat "$work/p/rc")"
