#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The merged replay against the real 7.3.4 kernel range by range, on every
# khugepaged cell of the guest collapse matrices recorded with final_ranges
# (data/guest-collapse-7.3.4-amd64-ranges and -arm64-ranges: fill 25/50/75/90
# x max_ptes_none 0,64,128,255,256,511 x orders 2-9, 2, 3, 4, 4-9, 8 MiB spans
# of 4 PMD ranges): scripts/replay-check.sh replays each cell's seeded pattern
# and compares each PMD range's final pages per order. Assertions: the exact
# counts their PROVENANCE gives (at least 95 % agree, issue 41), each
# disagreement listed on stderr (a copy with one range edited: that range,
# named, and 23 of 24); a document without final_ranges (the older
# data/guest-collapse-7.3.4-amd64) is compared over the whole span (range
# "span"). Usage errors exit 2. No guest runs here (scripts/collapse-matrix.sh
# recorded the data).
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/lib.sh"
command -v jq >/dev/null || skip "needs jq"
s=$src/scripts/replay-check.sh

check() { # DATASET RANGES-AGREE RANGES CELLS-AGREE CELLS
	local d=$src/data/$1 want
	expect "replay-check $1" 0 "" "$s" -b "$bin" "$d"
	want="agree: $2 of $3 ranges ($(awk -v a="$2" -v n="$3" 'BEGIN { printf "%.1f", 100 * a / n }')%) in $5 cells"
	if grep -qxF "$want" "$tmp/err"; then
		echo "ok: $1: $want"
	else
		err "$1: '$(grep '^agree' "$tmp/err")', want '$want'"
	fi
	grep -qxF "agree: $4 of $5 cells ($(awk -v a="$4" -v n="$5" 'BEGIN { printf "%.1f", 100 * a / n }')%)" "$tmp/err" ||
		err "$1: cells: '$(tail -n 1 "$tmp/err")', want $4 of $5"
	[ $(($2 * 100)) -ge $(($3 * 95)) ] || err "$1: $2 of $3 ranges is below 95 %"
	[ "$(grep -c '^disagree: ' "$tmp/err")" = $(($3 - $2)) ] ||
		err "$1: $(grep -c '^disagree: ' "$tmp/err") disagreements listed, want $(($3 - $2))"
	[ "$(awk -F'\t' 'NR > 1' "$tmp/out" | wc -l)" = "$3" ] || err "$1: not one TSV line per range"
	[ "$(awk -F'\t' 'NR > 1 && $4 == "span"' "$tmp/out" | wc -l)" = 0 ] || err "$1: a cell without ranges"
	sed -n 's/^disagree: /  | /p' "$tmp/err"
}
check guest-collapse-7.3.4-amd64-ranges 480 480 120 120
check guest-collapse-7.3.4-arm64-ranges 480 480 120 120

# a disagreement is listed with its cell and range: one range of the amd64
# cell orders 2-9, fill 25 edited to what the kernel did not make
mkdir "$tmp/edit"
tar -xJf "$src/data/guest-collapse-7.3.4-amd64-ranges/cells.tar.xz" -C "$tmp/edit" khugepaged-o2-9-f25.json
jq '.runs[0].final_ranges[2].hist = {"0": 512}' "$tmp/edit/khugepaged-o2-9-f25.json" >"$tmp/edited.json" &&
	mv "$tmp/edited.json" "$tmp/edit/khugepaged-o2-9-f25.json"
awk -F'\t' 'NR == 1 || ($5 == "2-9" && $6 == 25)' \
	"$src/data/guest-collapse-7.3.4-amd64-ranges/cells.tsv" >"$tmp/edit/cells.tsv"
expect "replay-check of an edited cell" 0 "agree: 23 of 24 ranges (95.8%) in 6 cells" "$s" -b "$bin" "$tmp/edit"
grep -q "agree: 5 of 6 cells (83.3%)" "$tmp/err" || err "edited cell: $(cat "$tmp/err")"
[ "$(grep '^disagree: ' "$tmp/err")" = "disagree: orders 2-9 fill 25 max_ptes_none 0 range 2: kernel 0:512, replay 0:16,2:16,3:48,4:48" ] ||
	err "edited cell: the disagreement: $(grep '^disagree' "$tmp/err")"

# a cell of a document before final_ranges: one line, range "span"
mkdir "$tmp/old"
tar -xJf "$src/data/guest-collapse-7.3.4-amd64/cells.tar.xz" -C "$tmp/old" khugepaged-o2-9-f25.json
awk -F'\t' 'NR == 1 || ($4 == "khugepaged" && $5 == "2-9" && $6 == 25 && $7 == 0)' \
	"$src/data/guest-collapse-7.3.4-amd64/cells.tsv" >"$tmp/old/cells.tsv"
expect "replay-check of an older document" 0 "agree: 1 of 1 cells (100.0%)" "$s" -b "$bin" "$tmp/old"
[ "$(awk -F'\t' 'NR > 1 { print $4, $7 }' "$tmp/out")" = "span yes" ] ||
	err "older document: $(cat "$tmp/out")"
grep -q "ranges" "$tmp/err" && err "older document: a ranges line: $(cat "$tmp/err")"

expect "no DATADIR" 2 "usage:" "$s" -b "$bin"
expect "no cells.tsv" 2 "no $tmp/cells.tsv" "$s" -b "$bin" "$tmp"
expect "passes -1" 2 "positive number" "$s" -b "$bin" -p -1 "$tmp/edit"
expect "no binary" 3 "no mthpscope at" "$s" -b /nonexistent "$tmp/edit"
# a replay that fails is no disagreement: the script stops, exit 1
printf '#!/bin/sh\nexit 2\n' >"$tmp/failing"
chmod +x "$tmp/failing"
expect "a failing replay" 1 "failed" "$s" -b "$tmp/failing" "$tmp/edit"
[ $fail = 0 ] && echo PASS
exit $fail
