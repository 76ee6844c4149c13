#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A/B of two real kernels: the same `mthpscope run` (or `mthpscope collapse`) in a
# guest of each, both documents kept, then `compare` (text) and `compare --format
# lkml` with the kernel names as column heads (for collapse: order mass, RSS and
# time side by side per max_ptes_none).
#
#   scripts/kernel-ab.sh --kernel A --kernel B [--arch x86_64|arm64] [--accel auto|kvm|tcg]
#                        [--mem SIZE] [--cpus N] [--timeout SEC] [--out DIR]
#                        -- run|collapse [OPTIONS...]
#
# A and B are kernel images or Debian kernel package names (scripts/guest-run.sh).
# The results land in DIR (default ./kernel-ab) as <name>.json, where <name> is the
# kernel's name (package name without "linux-image-" and "-unsigned", or the image's
# file name): compare labels its columns with the file names. The host's build
# compares (build/mthpscope or $MTHPSCOPE_BIN). OPTIONS must not hold -o/--output.
# Exit: 0 both ran and compared; the first failing guest's or compare's status otherwise;
# 2 usage.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
kernels=()
guest_opts=()
out=kernel-ab
host_bin=${MTHPSCOPE_BIN:-$top/build/mthpscope}

die() { local rc=$1; shift; echo "kernel-ab.sh: $*" >&2; exit "$rc"; }
need_val() { [ $# -ge 2 ] && [ -n "$2" ] || die 2 "$1 needs a value"; }
while [ $# -gt 0 ]; do
	case "$1" in
	--kernel) need_val "$@"; kernels+=("$2"); shift 2 ;;
	--arch|--accel|--mem|--cpus|--timeout|--bin) need_val "$@"; guest_opts+=("$1" "$2"); shift 2 ;;
	--out) need_val "$@"; out=$2; shift 2 ;;
	-h|--help) sed -n '2,18p' "$0"; exit 0 ;;
	--) shift; break ;;
	*) die 2 "unknown option '$1' (run or collapse and its options go after --)" ;;
	esac
done
[ ${#kernels[@]} -eq 2 ] || die 2 "exactly two --kernel options are needed (A, then B)"
case "${1:-}" in
run|collapse) cmd=$1 ;;
*) die 2 "after -- comes 'run [OPTIONS]' or 'collapse [OPTIONS]'" ;;
esac
shift
for a in "$@"; do
	case "$a" in -o|--output|--output=*|-o*) die 2 "$cmd's OPTIONS must not name an output (-o): kernel-ab.sh names the files" ;; esac
done
[ -x "$host_bin" ] || die 3 "host mthpscope '$host_bin' missing (build it, or set MTHPSCOPE_BIN)"

name_of() {
	local n
	n=$(basename "$1")
	n=${n#linux-image-}
	n=${n#vmlinuz-}
	n=${n%-unsigned}
	echo "$n"
}
na=$(name_of "${kernels[0]}")
nb=$(name_of "${kernels[1]}")
if [ "$na" = "$nb" ]; then na="$na-A"; nb="$nb-B"; fi
mkdir -p "$out" || die 1 "cannot create $out"

i=0
for k in "${kernels[@]}"; do
	n=$([ $i = 0 ] && echo "$na" || echo "$nb")
	echo "kernel-ab.sh: $n: $cmd $* (in a guest)" >&2
	rc=0
	"$here/guest-run.sh" "${guest_opts[@]}" --kernel "$k" --out "$out" -- \
		"$cmd" "$@" -o "$n.json" >"$out/$n.$cmd.txt" || rc=$?
	cat "$out/$n.$cmd.txt"
	[ $rc = 0 ] || die "$rc" "the $cmd on $n failed (exit $rc)"
	i=$((i + 1))
done

echo
echo "== compare $na.json $nb.json"
rc=0
"$host_bin" compare "$out/$na.json" "$out/$nb.json" | tee "$out/compare.txt" || rc=$?
echo
echo "== compare --format lkml"
"$host_bin" compare --format lkml "$out/$na.json" "$out/$nb.json" | tee "$out/compare-lkml.txt" || rc=$?
echo "kernel-ab.sh: results and tables in $out/" >&2
exit "$rc"
