#!/usr/bin/env bash
# mthpscope analyze end to end: verdicts from hand-made files in every
# format, and bad files refused with exit 1 and a message naming the problem.
set -u
bin=${MTHPSCOPE_BIN:?} data=${MTHPSCOPE_SRC:?}/tests/data
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
fail=0
err() { echo "FAIL: $*"; fail=1; }

# file -> "verdict min_order" from the JSON document
for row in "knee2 mthp 2" "knee4 mthp 4" "knee4_timing mthp 4" "pmd_only pmd-only 9" \
	   "flat no-gain null" "noisy inconclusive null"; do
	set -- $row
	out=$("$bin" analyze "$data/$1.json" --format json) || { err "$1: exit $?"; continue; }
	grep -q '"schema": "mthpscope.analysis/1"' <<<"$out" || err "$1: no schema"
	grep -q "\"verdict\": \"$2\"" <<<"$out" || err "$1: verdict is not $2"
	grep -q "\"min_order\": $3" <<<"$out" || err "$1: min_order is not $3"
	if command -v jq >/dev/null; then
		jq -e . >/dev/null <<<"$out" || err "$1: JSON does not parse"
	fi
	"$bin" analyze --format text "$data/$1.json" | grep -q "^recommendation: $2" ||
		err "$1: text report lacks the recommendation"
	"$bin" analyze "$data/$1.json" --format markdown | grep -q "^### Recommendation: \*\*$2\*\*" ||
		err "$1: markdown report lacks the recommendation"
done

# bad input: exit 1, the message names the problem
truncate -s 65M "$tmp/huge.json"
for row in "bad/truncated.json|truncated JSON" \
	   "bad/wrong_schema.json|version 'mthpscope.results/2' is not supported" \
	   "bad/missing_field.json|$.trials[5].span: missing" \
	   "bad/no_trials.json|no trials" \
	   "bad/nan.json|NaN or infinity at line" \
	   "bad/only_order0.json|only order 0" \
	   "$tmp/huge.json|MiB limit" \
	   "/nonexistent.json|cannot open"; do
	f=${row%%|*} words=${row#*|}
	[[ $f = /* ]] || f=$data/$f
	"$bin" analyze "$f" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ $rc -eq 1 ] || err "$f: exit $rc, expected 1"
	grep -qF -- "$words" "$tmp/err" || err "$f: message '$(cat "$tmp/err")' lacks '$words'"
	[ -s "$tmp/out" ] && err "$f: wrote to stdout on failure"
done

# --span: the verdict's span, stated in the report
"$bin" analyze "$data/knee4_timing.json" --span 64M | grep -q "^verdict: on pattern chase-tlb at span 64 MiB$" ||
	err "--span 64M not used"
"$bin" analyze "$data/knee4_timing.json" --span 48M >/dev/null 2>&1; [ $? -eq 1 ] || err "--span 48M: not exit 1"

# usage errors: exit 2
"$bin" analyze >/dev/null 2>&1; [ $? -eq 2 ] || err "no FILE: not exit 2"
"$bin" analyze "$data/flat.json" --format xml >/dev/null 2>&1; [ $? -eq 2 ] || err "--format xml: not exit 2"
"$bin" analyze --help | grep -q -- "--format" || err "--help lacks --format"
exit $fail
