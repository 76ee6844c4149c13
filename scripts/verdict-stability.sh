#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# How stable is the verdict on this machine? Runs `mthpscope run` and
# `mthpscope analyze --format json` N times and prints each run's verdict,
# how often the most common one came out, and the precision of each run: the
# widest 95 % CI of a gain, as its larger half-width in points of order 0's
# time (what the verdict rests on; issue 12's goal: at most 5, or 3 on an
# idle machine; doc/analyze.md), and apart from it the half-width of order 0's own median CI
# in % of that median (unpaired: it moves with the load between reps).
#   scripts/verdict-stability.sh N [run options]     e.g. 20 --quick
# Environment: MTHPSCOPE (binary, default build/mthpscope of this tree, else
# mthpscope on PATH), KEEP_DIR (keep every results.json and analysis there).
# Exit status: 0 every run gave a verdict, 1 a run or an analysis failed
# (the others are still summarised), 2 usage error, 3 the binary or jq is
# missing. Needs what `run` needs (root); run options go to every run.
set -u

usage() {
	echo "usage: scripts/verdict-stability.sh N [run options]   (N runs, 1-1000)" >&2
	exit 2
}

[ $# -ge 1 ] || usage
n=$1
shift
case $n in
-h | --help)
	sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'
	exit 0
	;;
'' | *[!0-9]*) echo "verdict-stability: N must be a whole number of runs, not '$n'" >&2; usage ;;
esac
# leading zeros off, then more than 4 digits is out of range before bash's
# 64-bit arithmetic wraps it (18446744073709551617 was 1)
while [ "${n#0}" != "$n" ] && [ ${#n} -gt 1 ]; do n=${n#0}; done
if [ ${#n} -gt 4 ]; then
	echo "verdict-stability: N must be 1-1000, not $n" >&2
	usage
fi
n=$((10#$n))
if [ "$n" -lt 1 ] || [ "$n" -gt 1000 ]; then
	echo "verdict-stability: N must be 1-1000, not $n" >&2
	usage
fi
for a in "$@"; do
	case $a in
	-o | --output | --output=* | -o?*)
		echo "verdict-stability: do not pass -o/--output: each run writes its own file" \
			"(set KEEP_DIR to keep them)" >&2
		exit 2
		;;
	esac
done

here=$(cd "$(dirname "$0")/.." && pwd)
bin=${MTHPSCOPE:-$here/build/mthpscope}
# no build tree: an installed mthpscope
if [ -z "${MTHPSCOPE:-}" ] && [ ! -x "$bin" ] && command -v mthpscope >/dev/null; then
	bin=$(command -v mthpscope)
fi
if [ ! -x "$bin" ]; then
	echo "verdict-stability: no mthpscope binary at '$bin' (build it: cmake -S . -B build &&" \
		"cmake --build build, or set MTHPSCOPE)" >&2
	exit 3
fi
command -v jq >/dev/null || {
	echo "verdict-stability: jq is needed to read the analysis (apt-get install jq)" >&2
	exit 3
}

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'echo "verdict-stability: interrupted after $((i - 1)) of $n runs" >&2; exit 130' INT TERM
if [ -n "${KEEP_DIR:-}" ]; then
	mkdir -p "$KEEP_DIR" || exit 1
fi

# verdict, widest gain CI (larger half-width, points of order 0's time, and
# the order), order 0's median CI (larger half-width, % of the median), method;
# no field empty: read splits on tabs, and a run of tabs is one separator
summary_jq='
  def r1: . * 10 | round / 10 | tostring;
  (.recommendation.verdict // error("no recommendation.verdict")) as $_
  | (.recommendation | if .min_order != null then "\(.verdict) \(.min_order)"
                     elif .candidate_order then "\(.verdict) (candidate \(.candidate_order))"
                     else .verdict end) as $v
  | ([.orders[] | select(.order != 0 and .ci != null and .gain != null)
      | {o: .order, w: ([.ci[1] - .gain, .gain - .ci[0]] | max * 100)}] | max_by(.w)) as $g
  | ([.orders[] | select(.order == 0 and .median_ci != null and .median > 0)
      | ([.median_ci[1] - .median, .median - .median_ci[0]] | max) / .median * 100] | first) as $z
  | [$v, (if $g then ($g.w | r1) else "-" end), (if $g then "order \($g.o)" else "-" end),
     (if $z then ($z | r1) else "-" end), (.method // "unpaired")] | @tsv'

declare -a verdicts=() widths=()
failed=0
printf '%-4s %-28s %-24s %-14s %s\n' run verdict "widest gain CI +/-pp" "order 0 +/-%" method
for ((i = 1; i <= n; i++)); do
	res=$tmp/results-$i.json
	"$bin" run "$@" -o "$res" >"$tmp/run-$i.out" 2>"$tmp/run-$i.err"
	rc=$?
	if [ "$rc" -ne 0 ]; then
		printf '%-4s run failed (exit %d): %s\n' "$i" "$rc" \
			"$(grep -v '^$' "$tmp/run-$i.err" | tail -n 1)"
		failed=$((failed + 1))
		# usage and environment errors repeat identically: stop early
		if [ "$rc" -eq 2 ] || [ "$rc" -eq 3 ]; then
			echo "verdict-stability: 'run' refused its options or environment; stopping" >&2
			exit "$rc"
		fi
		continue
	fi
	"$bin" analyze "$res" --format json >"$tmp/analysis-$i.json" 2>"$tmp/an-$i.err"
	rc=$?
	if [ "$rc" -ne 0 ]; then
		printf '%-4s analyze failed (exit %d): %s\n' "$i" "$rc" \
			"$(grep -v '^$' "$tmp/an-$i.err" | tail -n 1)"
		failed=$((failed + 1))
		continue
	fi
	if ! line=$(jq -r "$summary_jq" "$tmp/analysis-$i.json" 2>"$tmp/jq-$i.err"); then
		printf '%-4s unreadable analysis: %s\n' "$i" "$(head -n 1 "$tmp/jq-$i.err")"
		failed=$((failed + 1))
		continue
	fi
	IFS=$'\t' read -r verdict widest worder zero method <<<"$line"
	verdicts+=("$verdict")
	[ "$widest" != - ] && widths+=("$widest")
	[ "$worder" = - ] && worder=
	printf '%-4s %-28s %-24s %-14s %s\n' "$i" "$verdict" "$widest${worder:+ ($worder)}" "$zero" "$method"
	if [ -n "${KEEP_DIR:-}" ]; then
		cp "$res" "$KEEP_DIR/results-$i.json" && cp "$tmp/analysis-$i.json" "$KEEP_DIR/analysis-$i.json"
	fi
done

echo
got=${#verdicts[@]}
if [ "$got" -eq 0 ]; then
	echo "no verdict: all $n runs failed"
	exit 1
fi
echo "verdicts:"
printf '%s\n' "${verdicts[@]}" | sort | uniq -c | sort -k1,1nr -k2 | sed 's/^ */  /'
top=$(printf '%s\n' "${verdicts[@]}" | sort | uniq -c | sort -k1,1nr | head -n 1)
count=$(awk '{print $1}' <<<"$top")
common=$(echo "$top" | sed 's/^ *[0-9]* //')
echo "most common: $common in $count of $got runs ($((100 * count / got)) %)$(
	[ "$failed" -gt 0 ] && echo "; $failed of $n runs failed")"
if [ "${#widths[@]}" -gt 0 ]; then
	printf '%s\n' "${widths[@]}" | sort -g | awk '
		{ w[NR] = $1; if ($1 <= 5) n5++; if ($1 <= 3) n3++ }
		END { printf "widest gain CI: +/-%s / %s / %s points of order 0 (min/median/max); " \
			"at most 5 in %d, at most 3 in %d of %d runs\n",
			w[1], w[int((NR + 1) / 2)], w[NR], n5, n3, NR }'
fi
[ "$failed" -eq 0 ]
