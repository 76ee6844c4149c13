#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A/A with several runs a side: the files, in the order they were run, taken
# 2K at a time; the first K are side A and the next K side B (blocked, as two
# kernels are run: all of one, then all of the other), through
#   compare A1,...,AK B1,...,BK
# whose gain rows then estimate the run-to-run part from the runs' spread.
# Per comparison: the gain rows flagged at Holm 0.05 and their CI half-widths;
# then the totals. Files left over (fewer than 2K) are named and not used.
#   scripts/aa-runs.sh MTHPSCOPE K FILE...
# Checked before any comparison: K, at least 2K files, each a readable file
# whose name has no comma (compare splits its lists on commas). A comparison
# that fails is quoted by its error line (not a warning before it), and makes
# the exit status 1 once all are done; 2 usage, 3 no jq.
set -u
usage() { echo "aa-runs.sh: $*" >&2; echo "usage: $0 MTHPSCOPE K FILE..." >&2; exit 2; }
[ $# -ge 3 ] && [ -x "$1" ] && [ "$2" -ge 1 ] 2>/dev/null || usage "a binary, K (1 or more) and files"
bin=$(realpath "$1") k=$2
shift 2
[ $# -ge $((2 * k)) ] || usage "$# files: K=$k needs $((2 * k)) or more"
for f in "$@"; do
	case "$f" in *,*) usage "'$f': a file name with a comma (compare splits its lists on commas)" ;; esac
	[ -f "$f" ] && [ -r "$f" ] || usage "'$f': not a readable file"
done
command -v jq >/dev/null || { echo "needs jq" >&2; exit 3; }
# the line that says what failed: mthpscope's first error, not a warning or a
# note, else the last line
error_line() {
	local e
	e=$(grep -E '^mthpscope: ' "$1" | grep -vm1 -E '^mthpscope: (warning|note): ')
	[ -n "$e" ] && echo "$e" || tail -n 1 "$1"
}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
files=("$@")
n=0 flagged=0 rows=0 failed=0
echo "# $(basename "$bin") compare, $k runs a side, blocked: gain rows flagged at Holm 0.05"
while [ $(( (n + 1) * 2 * k )) -le ${#files[@]} ]; do
	a=$(IFS=,; echo "${files[*]:$((n * 2 * k)):$k}")
	b=$(IFS=,; echo "${files[*]:$((n * 2 * k + k)):$k}")
	n=$((n + 1))
	if ! "$bin" compare --format json "$a" "$b" >"$tmp/c.json" 2>"$tmp/err"; then
		echo "comparison $n: compare failed: $(error_line "$tmp/err")"
		failed=$((failed + 1))
		continue
	fi
	f=$(jq '[.gains[] | select(.significant)] | length' "$tmp/c.json")
	r=$(jq '.gains | length' "$tmp/c.json")
	flagged=$((flagged + f)) rows=$((rows + r))
	jq -r --arg n "$n" --arg a "$a" --arg b "$b" '
		([.gains[] | select(.ci) | (.ci[1] - .ci[0]) / 2] | sort) as $h |
		"comparison \($n): \([.gains[] | select(.significant)] | length) of \(.gains | length) " +
		"flagged\([.gains[] | select(.significant) | " (order \(.order) \(.metric) \(.diff_points * 10 | round / 10))"] | join(""))" +
		(if ($h | length) > 0 then "; CI half-width median \($h[($h | length) / 2 | floor] * 10 |
		round / 10), widest \($h[-1] * 10 | round / 10) points" else "; no gain row with a CI"
		end) + "\n  A: \($a)\n  B: \($b)"' "$tmp/c.json"
done
left=$(( ${#files[@]} - n * 2 * k ))
[ "$left" -gt 0 ] && echo "left over: ${files[*]: -$left}"
echo "total: $flagged of $rows gain rows flagged in $((n - failed)) comparisons"
[ "$failed" = 0 ] || { echo "aa-runs.sh: $failed of $n comparisons failed" >&2; exit 1; }
