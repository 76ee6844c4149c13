#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# What 'mthpscope record' costs the program it records: its wall time alone,
# under record -c 1 and under record's default period (-F 4000), side by
# side, ROUNDS times interleaved (alone, -c 1, default, alone, ...), medians
# and ratios printed with the load average.
#   scripts/record-cost.sh MTHPSCOPE ROUNDS -- CMD [ARGS]
set -u
bin=$1 rounds=$2
shift 2
[ "${1:-}" = "--" ] && shift
[ $# -gt 0 ] || { echo "usage: $0 MTHPSCOPE ROUNDS -- CMD [ARGS]" >&2; exit 2; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
now() { date +%s.%N; }
for r in $(seq "$rounds"); do
	t0=$(now); "$@" >/dev/null 2>&1; t1=$(now)
	echo "$t1 - $t0" | bc >>"$tmp/alone"
	t0=$(now); "$bin" record -c 1 -o "$tmp/c1.json" -- "$@" >/dev/null 2>"$tmp/c1.err"; t1=$(now)
	echo "$t1 - $t0" | bc >>"$tmp/c1"
	t0=$(now); "$bin" record -o "$tmp/def.json" -- "$@" >/dev/null 2>"$tmp/def.err"; t1=$(now)
	echo "$t1 - $t0" | bc >>"$tmp/def"
done
median() { sort -g "$1" | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
a=$(median "$tmp/alone") c=$(median "$tmp/c1") d=$(median "$tmp/def")
samples() { grep -oE '"total": [0-9]+' "$1" | head -1 | awk '{print $2}'; }
# the program's own wall time under record (exec to exit, from the document)
wall() { grep -o '"wall_s": [0-9.e+-]*' "$1" | awk '{print $2}'; }
printf 'command: %s\nrounds: %s (interleaved)\n' "$*" "$rounds"
printf 'alone:          %.3f s (median)\n' "$a"
printf 'record -c 1:    %.3f s  x%.2f  (last round: %s samples, the program itself %.3f s)\n' \
	"$c" "$(echo "$c / $a" | bc -l)" "$(samples "$tmp/c1.json")" "$(wall "$tmp/c1.json")"
printf 'record default: %.3f s  x%.2f  (last round: %s samples, the program itself %.3f s)\n' \
	"$d" "$(echo "$d / $a" | bc -l)" "$(samples "$tmp/def.json")" "$(wall "$tmp/def.json")"
printf 'load: %s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
