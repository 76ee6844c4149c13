#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A/B of two settings on this machine with several runs a side, run in turn
# (A B A B ...), so that a change of the host during the series falls on both
# sides; then `compare` with each side as a comma list of its runs (doc/compare.md,
# "Several runs a side"). For two kernels, reboot into each in turn and give
# compare the lists yourself.
#
#   scripts/ab-alternate.sh [-n RUNS] [-o DIR] [--pause SEC] -- A-OPTIONS... -- B-OPTIONS...
#
# A-OPTIONS and B-OPTIONS are `mthpscope run` options for each side (e.g.
# `--defrag never` and `--defrag always`); they must not hold -o/--output.
# DIR (default ./ab) gets a1.json .. aN.json, b1.json .. bN.json, each run's
# output as .txt, log (each run's start, end, exit and load average) and
# compare.txt. The binary is build/mthpscope or $MTHPSCOPE_BIN.
# Everything is checked before the first run: DIR (no comma: compare splits
# its lists on commas), and each side's options (run parses them, then
# --help). A run or compare that fails is quoted by its error line.
# Exit: compare's status; a failing run's status (the series stops there);
# 2 usage.
set -u

here=$(cd "$(dirname "$0")" && pwd)
bin=${MTHPSCOPE_BIN:-$(dirname "$here")/build/mthpscope}
n=3 out=ab pause=30

die() { local rc=$1; shift; echo "ab-alternate.sh: $*" >&2; exit "$rc"; }
# the line of FILE that says what failed: mthpscope's first error (not a
# warning, a note or the usage that follows), else its last line
error_line() {
	local e
	e=$(grep -E '^mthpscope: ' "$1" 2>/dev/null | grep -vm1 -E '^mthpscope: (warning|note): ')
	[ -n "$e" ] && echo "$e" || tail -n 1 "$1" 2>/dev/null
}
# run's own parse of a side's options, nothing run: OPTIONS --help (before a
# '-- CMD', where --help would be the command's argument)
check_opts() { # SIDE OPTIONS...
	local s=$1 x pre=()
	shift
	for x in "$@"; do [ "$x" = -- ] && break; pre+=("$x"); done
	"$bin" run "${pre[@]}" --help >/dev/null 2>"$out_err" ||
		die 2 "$s's options: $(error_line "$out_err")"
}
while [ $# -gt 0 ]; do
	case "$1" in
	-n) [ $# -ge 2 ] && [ "$2" -ge 2 ] 2>/dev/null || die 2 "-n needs a number of runs, 2 or more"; n=$2; shift 2 ;;
	-o) [ $# -ge 2 ] && [ -n "$2" ] || die 2 "-o needs a directory"; out=$2; shift 2 ;;
	--pause) [ $# -ge 2 ] && [ "$2" -ge 0 ] 2>/dev/null || die 2 "--pause needs seconds"; pause=$2; shift 2 ;;
	-h|--help) sed -n '2,20p' "$0"; exit 0 ;;
	--) shift; break ;;
	*) die 2 "unknown option '$1' (the runs' options go after --)" ;;
	esac
done
a_opts=() b_opts=() side=a
for x in "$@"; do
	if [ "$x" = -- ] && [ $side = a ]; then side=b; continue; fi
	case "$x" in -o*|--output|--output=*) die 2 "the runs' options must not hold $x: the files go to $out" ;; esac
	if [ $side = a ]; then a_opts+=("$x"); else b_opts+=("$x"); fi
done
[ $side = b ] || die 2 "give A's options, then --, then B's (either may be empty)"
[ -x "$bin" ] || die 2 "no mthpscope binary at $bin (build it, or set MTHPSCOPE_BIN)"
case "$out" in *,*) die 2 "-o $out: a directory without a comma (compare reads its run lists split on commas)" ;; esac
out_err=$(mktemp) || die 1 "mktemp failed"
trap 'rm -f "$out_err"' EXIT
check_opts A "${a_opts[@]}"
check_opts B "${b_opts[@]}"
mkdir -p "$out" || die 1 "cannot make $out"

run_one() { # SIDE I OPTIONS...
	local s=$1 i=$2 rc
	shift 2
	echo "$s$i start $(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg) options: $*" >>"$out/log"
	"$bin" run "$@" -o "$out/$s$i.json" >"$out/$s$i.txt" 2>&1
	rc=$?
	echo "$s$i exit $rc end $(date -u +%FT%TZ)" >>"$out/log"
	[ $rc -eq 0 ] || die $rc "run $s$i failed ($rc): $(error_line "$out/$s$i.txt") (all of it: $out/$s$i.txt)"
}
la= lb=
for i in $(seq 1 "$n"); do
	run_one a "$i" "${a_opts[@]}"
	sleep "$pause"
	run_one b "$i" "${b_opts[@]}"
	[ "$i" -lt "$n" ] && sleep "$pause"
	la=${la:+$la,}$out/a$i.json lb=${lb:+$lb,}$out/b$i.json
done
"$bin" compare "$la" "$lb" 2>"$out_err" | tee "$out/compare.txt"
rc=${PIPESTATUS[0]}
cat "$out_err" >&2
[ "$rc" -eq 0 ] || die "$rc" "compare failed ($rc): $(error_line "$out_err")"
