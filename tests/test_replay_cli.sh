#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# collapse --replay and scan --presence from the command line: the model's
# output for collapse's own pattern, usage errors (exit 2) for bad policies,
# options of a real collapse, bad presence documents; and a real presence map
# of tests/helper_alloc (4 MiB, MADV_NOHUGEPAGE: two whole PMD ranges at
# order 0) replayed to PMD folios (root: PFNs; SKIP otherwise).
set -u
export LC_ALL=C
bin=${MTHPSCOPE_BIN:?}
helper=$(dirname "$bin")/tests/helper_alloc
tmp=$(mktemp -d)
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT
fail=0
expect_eq() { # what got want
	if [ "$2" != "$3" ]; then echo "FAIL: $1: got '$2', want '$3'"; fail=1; else echo "ok: $1"; fi
}
usage() { # what args...: exit 2 and a message naming the problem
	local what=$1
	shift
	"$bin" "$@" >"$tmp/out" 2>"$tmp/err"
	expect_eq "$what: exit" "$?" 2
}

# 1. the pattern of a recorded guest cell (data/guest-collapse-7.3.4-amd64):
#    the kernel's mass, labelled model, every table CPU by default
"$bin" collapse --replay merged --fill 25 --span 8M --orders 2-9 --max-ptes-none 0,511 \
	--passes 2 --json >"$tmp/r.json" 2>"$tmp/r.err"
expect_eq "replay exit" "$?" 0
expect_eq "replay schema" "$(jq -r .schema "$tmp/r.json")" mthpscope.replay/1
expect_eq "replay computed_by" "$(jq -r .computed_by "$tmp/r.json")" model
expect_eq "replay mass at 0" "$(jq -c '.runs[0].passes[-1].pages' "$tmp/r.json")" \
	'{"0":44,"2":36,"3":96,"4":176,"5":96,"6":64}'
expect_eq "replay mass at 511" "$(jq -c '.runs[1].passes[-1].pages' "$tmp/r.json")" '{"9":2048}'
expect_eq "replay growth at 511" "$(jq '.runs[1].passes[-1].rss_growth_pct' "$tmp/r.json")" 300
# range by range after the last pass (final_ranges, as collapse's document
# gives the kernel's): one per PMD range, adding up to the last pass
expect_eq "final ranges" "$(jq -c '[.runs[] | [.final_ranges[].range]]' "$tmp/r.json")" \
	'[[0,1,2,3],[0,1,2,3]]'
expect_eq "final ranges add up to the last pass" "$(jq '[.runs[] | ([.final_ranges[].pages
	| to_entries[]] | group_by(.key) | map({key: .[0].key, value: (map(.value) | add)})
	| from_entries) == .passes[-1].pages] | all' "$tmp/r.json")" true
expect_eq "final ranges at 511" "$(jq -c '[.runs[1].final_ranges[].pages]' "$tmp/r.json")" \
	'[{"9":512},{"9":512},{"9":512},{"9":512}]'
expect_eq "every table model" "$(jq '.runs[0].passes[0].tlb | length' "$tmp/r.json")" \
	"$("$bin" info --tlb-model list --json | jq '.models | length')"
"$bin" collapse --replay merged --fill 50 --span 4M --max-ptes-none 128 --tlb-model zen4 \
	>"$tmp/r.txt" 2>&1
expect_eq "text exit" "$?" 0
grep -q "defaulting to 0" "$tmp/r.txt" || { echo "FAIL: no kernel warning at 128"; fail=1; }
grep -q "(model)" "$tmp/r.txt" || { echo "FAIL: the text is not labelled model"; fail=1; }

# the map after the last pass (--final-map) is a presence document whose
# replay starts where the first ended: chains of policies, and range-by-range
# comparisons with a kernel's scan --presence
"$bin" collapse --replay merged --fill 50 --span 8M --max-ptes-none 255 --passes 2 \
	--tlb-model zen4 --final-map "$tmp/final.json" --json >"$tmp/f1.json" 2>"$tmp/f.err"
expect_eq "--final-map exit" "$?" 0
"$bin" collapse --replay jain --presence "$tmp/final.json" --max-ptes-none 0 --passes 1 \
	--tlb-model zen4 --json >"$tmp/f2.json" 2>>"$tmp/f.err"
expect_eq "replay of the final map exit" "$?" 0
expect_eq "the chain starts where the first replay ended" \
	"$(jq -c '.runs[0].passes[0].pages' "$tmp/f2.json")" "$(jq -c '.runs[0].passes[-1].pages' "$tmp/f1.json")"
expect_eq "and needs the same entries" \
	"$(jq -c '.runs[0].passes[0].tlb[0].levels' "$tmp/f2.json")" "$(jq -c '.runs[0].passes[-1].tlb[0].levels' "$tmp/f1.json")"

# the seed's creep claims (issue 41), pache-v1 with a minimum order of 3 on a
# sparse span (2 % filled): above half (max_ptes_none 256) a collapsed half
# qualifies the order above it, so the RSS creeps pass by pass up to PMD
# size; at 255 it needs one more real page in the buddy and stops; at 511
# largest-first takes the PMD in the first pass (no creep: it is there)
"$bin" collapse --replay pache-v1 --fill 2 --span 64M --orders 3-9 --min-order 3 \
	--max-ptes-none 511,256,255 --passes 8 --tlb-model zen4 --json >"$tmp/c.json" 2>"$tmp/c.err"
expect_eq "creep replay exit" "$?" 0
expect_eq "creep at 256: growth every pass until pass 7" \
	"$(jq -c '[.runs[1].passes[] | .rss_pages]' "$tmp/c.json")" \
	'[320,395,576,944,1677,3137,6062,9858,9858]'
expect_eq "creep at 256: the PMD order made last, in pass 6" \
	"$(jq -c '[.runs[1].passes[] | .pages["9"] // 0] | index([.[] | select(. > 0)][0])' "$tmp/c.json")" 6
expect_eq "no creep at 255: stops after pass 2, under 10 %" \
	"$(jq -c '[.runs[2].passes[2:][] | .rss_growth_pct] | unique | map(. < 10)' "$tmp/c.json")" '[true]'
expect_eq "511: the PMD in pass 1" "$(jq -c '.runs[0].passes[1].pages' "$tmp/c.json")" '{"9":16384}'

# 2. usage errors
usage "--final-map without --replay" collapse --final-map "$tmp/x.json"
usage "--final-map - with --json" collapse --replay merged --final-map - --json
usage "--final-map to stdout" collapse --replay merged --final-map /dev/stdout
usage "unknown policy" collapse --replay pache
usage "passes 0" collapse --replay merged --passes 0
usage "min order 5" collapse --replay merged --min-order 5
usage "min order 1" collapse --replay jain --min-order 1
usage "unknown model" collapse --replay merged --tlb-model nosuchcpu
usage "order 1" collapse --replay merged --orders 1
usage "orders above the PMD's" collapse --replay merged --orders 10-20
usage "orders all below --min-order" collapse --replay merged --orders 2,3 --min-order 4
grep -q "below --min-order 4" "$tmp/err" || { echo "FAIL: below --min-order: $(cat "$tmp/err")"; fail=1; }
usage "--final-map over its --presence" collapse --replay merged --presence "$tmp/r.json" --final-map "$tmp/r.json"
expect_eq "--final-map over its --presence: the map kept" "$(jq -r .schema "$tmp/r.json")" mthpscope.replay/1
"$bin" collapse --replay merged --span 4M --orders 9 --min-order 4 --passes 1 >"$tmp/one.txt" 2>&1
expect_eq "PMD order alone with --min-order 4" "$?" 0
grep -q "1 pass (a pass" "$tmp/one.txt" || { echo "FAIL: '1 pass': $(head -3 "$tmp/one.txt")"; fail=1; }
usage "--measure" collapse --replay merged --measure
usage "--mode madvise" collapse --replay merged --mode madvise
usage "-o" collapse --replay merged -o "$tmp/x.json"
usage "--presence without --replay" collapse --presence "$tmp/r.json"
usage "--passes without --replay" collapse --passes 3
usage "page size" collapse --replay merged --page-size 8192
usage "span not PMD" collapse --replay merged --span 3M
usage "mpn over 16K pages' limit" collapse --replay merged --page-size 16384 --max-ptes-none 2048
usage "another document" collapse --replay merged --presence "$tmp/r.json"
grep -q "scan --presence" "$tmp/err" || { echo "FAIL: another document: $(cat "$tmp/err")"; fail=1; }
printf '{"schema": "mthpscope.presence/1", "tool": {"name": "mthpscope"' >"$tmp/trunc.json"
usage "truncated" collapse --replay merged --presence "$tmp/trunc.json"
grep -q "truncated JSON" "$tmp/err" || { echo "FAIL: truncated: $(cat "$tmp/err")"; fail=1; }
cat >"$tmp/p16k.json" <<'EOT'
{"schema": "mthpscope.presence/1", "tool": {"name": "mthpscope", "version": "t"},
 "source": {"pid": 0}, "page_size": 16384, "pmd_order": 11, "ranges": []}
EOT
usage "empty map" collapse --replay merged --presence "$tmp/p16k.json"
usage "--fill with --presence" collapse --replay merged --presence "$tmp/p16k.json" --fill 20
usage "presence with --pid twice" scan --presence "$tmp/p.json" -p 1 -p 2
usage "presence with --json" scan --presence "$tmp/p.json" -p 1 --json
usage "presence without --pid" scan --presence "$tmp/p.json"

# 3. a real process's map (root)
"$helper" 4 nohuge sleep=30000 pidfile="$tmp/pid" >/dev/null &
for _ in $(seq 100); do [ -s "$tmp/pid" ] && break; sleep 0.1; done
pid=$(cat "$tmp/pid" 2>/dev/null)
"$bin" scan --pid "$pid" --presence "$tmp/p.json" 2>"$tmp/p.err"
rc=$?
if [ "$rc" = 3 ]; then
	echo "SKIP: scan --presence cannot see PFNs here: $(head -1 "$tmp/p.err")"
	[ "$fail" = 0 ] && exit 77
	exit 1
fi
expect_eq "scan --presence exit" "$rc" 0
full=$(printf 'f%.0s' $(seq 128))
expect_eq "two whole order-0 ranges" \
	"$(jq --arg f "$full" '[.ranges[] | select(.present == $f and .lo == 0 and .hi == 512
		and ([.folios[][2]] | all(. == 0)))] | length' "$tmp/p.json")" 2
expect_eq "the command" "$(jq -r .source.command "$tmp/p.json")" helper_alloc
"$bin" collapse --replay merged --presence "$tmp/p.json" --orders 9 --max-ptes-none 0 \
	--passes 1 --tlb-model zen4 --json >"$tmp/pr.json" 2>"$tmp/pr.err"
expect_eq "replay of the map exit" "$?" 0
expect_eq "the two ranges become PMD folios" \
	"$(jq '.runs[0].passes[1].pages["9"]' "$tmp/pr.json")" 1024
"$bin" scan --pid "$pid" --presence "$tmp" >/dev/null 2>&1
expect_eq "--presence a directory: exit" "$?" 3
exit $fail
