#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# What 'mthpscope record' costs the program it records: its wall time alone,
# under record -c 1 and under record's default rate (-F 4000), side by side,
# ROUNDS times interleaved (alone, -c 1, default, alone, ...). Prints each
# round, then the medians and the median of the per-round ratios, and the
# load average. "whole" is
# mthpscope's own wall time (start-up, the exit-stop scan, the document);
# "program" is the command's, exec to exit, from the document.
#   scripts/record-cost.sh MTHPSCOPE ROUNDS -- CMD [ARGS]
set -u
bin=$1 rounds=$2
shift 2
[ "${1:-}" = "--" ] && shift
[ $# -gt 0 ] || { echo "usage: $0 MTHPSCOPE ROUNDS -- CMD [ARGS]" >&2; exit 2; }
command -v jq >/dev/null || { echo "needs jq" >&2; exit 3; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
now() { date +%s.%N; }
one() { # name, then the command line
	local name=$1 t0 t1
	shift
	t0=$(now); "$@" >/dev/null 2>"$tmp/err"; t1=$(now)
	echo "$t1 - $t0" | bc >>"$tmp/$name"
}
printf 'command: %s\nround  alone  -c1-whole  -c1-program  default-whole  default-program  (s)\n' "$*"
for r in $(seq "$rounds"); do
	one alone "$@"
	one c1 "$bin" record -c 1 -o "$tmp/c1.json" -- "$@"
	jq .outcome.wall_s "$tmp/c1.json" >>"$tmp/c1p"
	one def "$bin" record -o "$tmp/def.json" -- "$@"
	jq .outcome.wall_s "$tmp/def.json" >>"$tmp/defp"
	printf '%5d  %5.2f  %9.2f  %11.2f  %13.2f  %15.2f\n' "$r" "$(tail -1 "$tmp/alone")" \
		"$(tail -1 "$tmp/c1")" "$(tail -1 "$tmp/c1p")" "$(tail -1 "$tmp/def")" "$(tail -1 "$tmp/defp")"
done
median() { sort -g "$1" | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
a=$(median "$tmp/alone")
# each round's ratio to the run alone just before it (the load drifts on a
# shared machine: a pair a few seconds apart sees the same), and their median
for k in c1 c1p def defp; do
	paste "$tmp/$k" "$tmp/alone" | awk '{print $1 / $2}' >"$tmp/$k.ratio"
	printf 'median %-5s %.3f s; median of paired ratios x%.2f (alone %.3f s)\n' "$k" \
		"$(median "$tmp/$k")" "$(median "$tmp/$k.ratio")" "$a"
done
printf 'samples (last round): -c 1 %s, default %s\n' "$(jq .total.total "$tmp/c1.json")" \
	"$(jq .total.total "$tmp/def.json")"
printf 'load: %s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
