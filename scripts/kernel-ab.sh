#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A/B of two real kernels: the same `mthpscope run` in a guest of each, both
# results files kept, then `compare` (text) and `compare --format lkml` with the
# kernel names as column heads.
#
#   scripts/kernel-ab.sh --kernel A --kernel B [--arch x86_64|arm64] [--accel auto|kvm|tcg]
#                        [--mem SIZE] [--cpus N] [--timeout SEC] [--out DIR]
#                        -- run [RUN-OPTIONS...]
#
# A and B are kernel images or Debian kernel package names (scripts/guest-run.sh).
# The results land in DIR (default ./kernel-ab) as <name>.json, where <name> is the
# kernel's name (package name without "linux-image-" and "-unsigned", or the image's
# file name): compare labels its columns with the file names. The host's build
# compares (build/mthpscope or $MTHPSCOPE_BIN). RUN-OPTIONS must not hold -o/--output.
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
	-h|--help) sed -n '2,16p' "$0"; exit 0 ;;
	--) shift; break ;;
	*) die 2 "unknown option '$1' (the run and its options go after --)" ;;
	esac
done
[ ${#kernels[@]} -eq 2 ] || die 2 "exactly two --kernel options are needed (A, then B)"
[ "${1:-}" = run ] || die 2 "after -- comes 'run [RUN-OPTIONS]'"
shift
for a in "$@"; do
	case "$a" in -o|--output|--output=*|-o*) die 2 "RUN-OPTIONS must not name an output (-o): kernel-ab.sh names the files" ;; esac
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
	echo "kernel-ab.sh: $n: run $* (in a guest)" >&2
	rc=0
	"$here/guest-run.sh" "${guest_opts[@]}" --kernel "$k" --out "$out" -- \
		run "$@" -o "$n.json" >"$out/$n.run.txt" || rc=$?
	cat "$out/$n.run.txt"
	[ $rc = 0 ] || die "$rc" "the run on $n failed (exit $rc)"
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
