#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Range by range: a kernel's presence map after khugepaged (scan --presence)
# against a replay's (collapse --replay --final-map) of the map before it.
# A range agrees when it holds the same pages per folio order in both (the
# frames differ: the replay's are the model's). Ranges in only one map (the
# program mapped or unmapped memory meanwhile) are counted apart. One TSV
# line per range on stdout, "agree: N of M ranges (P%)" on stderr. Needs jq.
#
#   scripts/replay-compare.sh KERNEL-AFTER.json REPLAY-FINAL.json
# Exit: 0 compared; 2 usage, a file that is not a presence map, or maps of
# two page sizes; 3 no jq.
set -eu
[ $# -eq 2 ] || { echo "usage: $0 KERNEL-AFTER.json REPLAY-FINAL.json" >&2; exit 2; }
command -v jq >/dev/null || { echo "$0: needs jq" >&2; exit 3; }
# both presence maps (scan --presence, collapse --replay --final-map) of one
# page size: anything else is named and refused (exit 2)
for f in "$1" "$2"; do
	[ -f "$f" ] && [ -r "$f" ] || { echo "$0: $f: not a readable file" >&2; exit 2; }
	jq -e '.schema == "mthpscope.presence/1" and (.ranges | type) == "array"' "$f" \
		>/dev/null 2>&1 ||
		{ echo "$0: $f: not a presence map (mthpscope.presence/1: scan --presence, collapse --replay --final-map), or truncated" >&2; exit 2; }
done
ps1=$(jq -r .page_size "$1") ps2=$(jq -r .page_size "$2")
[ "$ps1" = "$ps2" ] ||
	{ echo "$0: the maps have different page sizes ($ps1 and $ps2 bytes): no range compares" >&2; exit 2; }
# each range's pages by order, "order:pages,..." (-1: a part of a large folio)
mass='.pmd_order as $po | [.ranges[] | {key: (.addr | tostring), value:
	(if .pmd_pfn != null then "\($po):\(1 * pow(2; $po))"
	 else ([.folios[] | {o: .[2], n: .[1]}] | group_by(.o)
	       | map("\(.[0].o):\(map(.n) | add)") | join(",")) end)}] | from_entries'
out=$(mktemp)
trap 'rm -f "$out"' EXIT
jq -n --argjson k "$(jq -c "$mass" "$1")" --argjson r "$(jq -c "$mass" "$2")" -r '
	(["addr", "kernel", "replay", "agree"] | @tsv),
	(($k | keys) + ($r | keys) | unique | .[] as $a |
	 [$a, ($k[$a] // "-"), ($r[$a] // "-"),
	  (if $k[$a] == null or $r[$a] == null then "only-one" elif $k[$a] == $r[$a] then "yes"
	   else "no" end)] | @tsv)' >"$out"
cat "$out"
awk -F'\t' 'NR > 1 && $4 != "only-one" { n++; if ($4 == "yes") ok++ }
	NR > 1 && $4 == "only-one" { one++ }
	END { printf "agree: %d of %d ranges (%.1f%%); %d in one map only\n", ok, n,
	      n ? 100 * ok / n : 0, one > "/dev/stderr" }' "$out"
