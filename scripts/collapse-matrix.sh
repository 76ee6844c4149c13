#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The collapse matrix in one guest boot per kernel: every cell is a
# `mthpscope collapse` run inside the same guest (guest-run.sh --shell), so
# TCG boots once, not once per cell.
#
#   scripts/collapse-matrix.sh --kernel PKG|PATH --out DIR [--arch x86_64|arm64]
#          [--bin PATH] [--fills "25 50 75 90"] [--mpn 0,64,128,255,256,511]
#          [--orders "2-9 2 3 4 4-9"] [--modes "khugepaged madvise"] [--span 8M]
#          [--timeout S] [--guest-timeout S] [--extra 'SHELL']
#
# One document per (mode, orders, fill): DIR/<mode>-o<orders>-f<fill>.json, each
# with one run per max_ptes_none value (the sweep), its text next to it (.txt),
# plus DIR/info.json, DIR/PROVENANCE (kernel packages, qemu, host, tool commit,
# the command) and DIR/cells.sh.txt (a record of the script the guest ran: text,
# not a script of this tree). --mpn values above the guest's PMD pages - 1 are
# left out of that guest's sweep (16K pages: 0-2047).
# --extra runs more shell in the same boot after the cells (e.g. a scan).
# Exit: guest-run.sh's status.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
arch=x86_64
kernel=""
out=""
bin=""
fills="25 50 75 90"
mpn="0,64,128,255,256,511"
orders="2-9 2 3 4 4-9"
modes="khugepaged madvise"
span=8M
timeout=10
gtimeout=3000
extra=""

die() { local rc=$1; shift; echo "collapse-matrix.sh: $*" >&2; exit "$rc"; }
. "$here/opts.sh"
valued="kernel out arch bin fills mpn orders modes span timeout guest-timeout=gtimeout extra"
while [ $# -gt 0 ]; do
	if opt_value "$valued" "$@"; then shift 2; continue; fi
	case "$1" in
	-h|--help) sed -n '2,19p' "$0"; exit 0 ;;
	*) die 2 "unknown option '$1'" ;;
	esac
done
[ -n "$kernel" ] && [ -n "$out" ] || die 2 "--kernel and --out are required"
[[ "$mpn" =~ ^[0-9]+(,[0-9]+)*$ ]] || die 2 "--mpn must be a list of numbers (0,64,511)"
for w in $fills; do [[ "$w" =~ ^[0-9]+$ ]] || die 2 "--fills: '$w' is not a percentage"; done
for w in $orders; do [[ "$w" =~ ^[0-9]+(-[0-9]+)?$ ]] || die 2 "--orders: '$w' is not N or N-M"; done
for w in $modes; do case "$w" in khugepaged|madvise) ;; *) die 2 "--modes: '$w'" ;; esac; done
mkdir -p "$out" || die 1 "cannot create $out"

# The guest's script: the sweep values a page size allows are chosen inside
# the guest (pages per PMD - 1 from getconf PAGESIZE).
cells=$out/cells.sh.txt
{
	# busybox has no getconf: the page size from smaps (KernelPageSize, kB)
	echo 'ps=$(awk '"'"'/^KernelPageSize:/ { print $2 * 1024; exit }'"'"' /proc/self/smaps); top=$((${ps:-4096} / 8 - 1))'
	echo "mpn=\$(echo $mpn | tr , '\\n' | awk -v t=\$top '\$1 <= t' | paste -sd ,)"
	echo 'mthpscope info --json >info.json 2>info.err'
	for m in $modes; do for o in $orders; do for f in $fills; do
		n="$m-o$o-f$f"
		echo "mthpscope collapse --mode $m --orders $o --fill $f --span $span" \
		     "--timeout $timeout --max-ptes-none \$mpn -o $n.json >$n.txt 2>$n.err;" \
		     "echo \"$n \$?\" >>status"
	done; done; done
	echo 'dmesg >dmesg.txt 2>&1'
	[ -z "$extra" ] || echo "$extra"
} >"$cells"

gbin=()
[ -z "$bin" ] || gbin=(--bin "$bin")
start=$(date -u +%FT%TZ)
rc=0
"$here/guest-run.sh" --arch "$arch" --accel tcg --mem 1G --timeout "$gtimeout" "${gbin[@]}" \
	--kernel "$kernel" --out "$out" --shell -- "$(cat "$cells")" || rc=$?
kimg=$("$here/guest-kernel.sh" --arch "$arch" "$kernel" 2>/dev/null || true)
{
	echo "date         $start .. $(date -u +%FT%TZ)"
	echo "kernel       $kernel"
	[ -n "$kimg" ] && [ -f "$(dirname "$(dirname "$kimg")")/package" ] &&
		sed 's/^/package      /' "$(dirname "$(dirname "$kimg")")/package"
	echo "guest        $arch, qemu TCG ($($( [ "$arch" = arm64 ] && echo qemu-system-aarch64 || echo qemu-system-x86_64) --version | head -n 1)), 1 vCPU, 1 GiB"
	echo "host         $(uname -r) $(uname -m), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "tool         $(git -C "$top" describe --always --dirty 2>/dev/null || echo unknown)"
	echo "command      scripts/collapse-matrix.sh --kernel $kernel --arch $arch --fills '$fills' --mpn $mpn --orders '$orders' --modes '$modes' --span $span --timeout $timeout"
	echo "guest exit   $rc"
} >"$out/PROVENANCE"
exit "$rc"
