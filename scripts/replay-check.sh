#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The merged policy model against the real kernel: every khugepaged cell of
# a guest collapse matrix (data/guest-collapse-*/cells.tsv, written by
# collapse-matrix.sh) replayed with 'collapse --replay merged' on the same
# seeded pattern (span and seed read from the cell's own document), and the
# final pages per order compared: range by range (each PMD range of the
# span) where the cell's run has final_ranges, else over the whole span (the
# documents before final_ranges: range "span"). A range agrees when it holds
# the same pages per folio order in both. Prints one TSV line per range on
# stdout; on stderr each disagreement ("disagree: ..."), then
# "agree: N of M ranges (P%) in C cells" (when any cell has ranges) and
# "agree: N of M cells (P%)" (a cell agrees when every range of it does).
# Needs jq.
#
#   scripts/replay-check.sh [-b BIN] [-p PASSES] DATADIR > check.tsv
set -eu
# shellcheck source=scripts/replay-lib.sh
. "$(dirname "$0")/replay-lib.sh"
replay_args '[-b BIN] [-p PASSES] DATADIR' b:p: "$@"
shift "$replay_shift"
[ $# -eq 1 ] || replay_usage
dir=$1
command -v jq >/dev/null || { echo "$0: needs jq" >&2; exit 3; }
[ -f "$dir/cells.tsv" ] || { echo "$0: no $dir/cells.tsv" >&2; exit 2; }
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT
# the cells' documents packed (data/guest-collapse-*/cells.tar.xz): read them unpacked
if [ -f "$dir/cells.tar.xz" ] && ! ls "$dir"/khugepaged-o*.json >/dev/null 2>&1; then
	mkdir "$work/cells"
	tar -xJf "$dir/cells.tar.xz" -C "$work/cells" && cp "$dir/cells.tsv" "$work/cells/" || exit 1
	dir=$work/cells
fi
# "order:pages,..." of a hist (an object by order), partial or unknown pages appended
mass='to_entries | map("\(.key):\(.value)") | join(",")'

printf 'orders\tfill\tmax_ptes_none\trange\tkernel\treplay\tagree\n'
cells=0 cells_ok=0 ranged=0 n=0 ok=0
# shellcheck disable=SC2034 # the columns are named for the reader
while IFS='	' read -r kernel arch page_size mode orders fill mpn span_mass rest; do
	[ "$mode" = khugepaged ] || continue
	doc="$dir/khugepaged-o$orders-f$fill.json"
	[ -f "$doc" ] || { echo "$0: no $doc" >&2; exit 1; }
	if [ "$doc" != "${replayed:-}" ]; then
		# one replay of the document's whole sweep: span, seed and values its own
		# shellcheck disable=SC2046 # three words
		set -- $(jq -r '"\(.config.span) \(.config.seed) \([.runs[].max_ptes_none] | join(","))"' "$doc")
		"$bin" collapse --replay merged --fill "$fill" --span "$1" --seed "$2" \
			--page-size "$page_size" --orders "$orders" --max-ptes-none "$3" \
			--passes "$passes" --tlb-model zen4 --json >"$work/replay.json" ||
			{ echo "$0: the replay of $doc failed (above): no agreement to give" >&2; exit 1; }
		replayed=$doc
	fi
	run="[.runs[] | select(.max_ptes_none == $mpn)][0]"
	jq -r "$run.final_ranges // [] | .[]
		| (.hist | $mass) + (if (.partial // 0) > 0 then \",partial:\(.partial)\" else \"\" end)" \
		"$doc" >"$work/kernel"
	if [ -s "$work/kernel" ]; then
		jq -r "$run.final_ranges[] | (.pages | $mass)
			+ (if .unknown_order_pages > 0 then \",?:\(.unknown_order_pages)\" else \"\" end)" \
			"$work/replay.json" >"$work/replay"
		ranged=$((ranged + 1)) r=0
	else
		echo "$span_mass" >"$work/kernel"
		jq -r "$run.passes[-1].pages | $mass" "$work/replay.json" >"$work/replay"
		r=span
	fi
	[ "$(wc -l <"$work/kernel")" = "$(wc -l <"$work/replay")" ] ||
		{ echo "$0: $doc at max_ptes_none $mpn: the kernel's and the replay's ranges differ in number" >&2; exit 1; }
	cells=$((cells + 1)) bad=0
	while IFS='	' read -r k g; do
		n=$((n + 1))
		if [ "$k" = "$g" ]; then
			same=yes ok=$((ok + 1))
		else
			same=no bad=1
			echo "disagree: orders $orders fill $fill max_ptes_none $mpn range $r: kernel $k, replay $g" >&2
		fi
		printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$orders" "$fill" "$mpn" "$r" "$k" "$g" "$same"
		[ "$r" = span ] || r=$((r + 1))
	done <<EOR
$(paste "$work/kernel" "$work/replay")
EOR
	[ "$bad" = 1 ] || cells_ok=$((cells_ok + 1))
done <<EOT
$(tail -n +2 "$dir/cells.tsv")
EOT
pct() { awk "BEGIN { printf \"%.1f\", $2 ? 100 * $1 / $2 : 0 }"; }
[ "$ranged" = 0 ] || echo "agree: $ok of $n ranges ($(pct "$ok" "$n")%) in $cells cells" >&2
echo "agree: $cells_ok of $cells cells ($(pct "$cells_ok" "$cells")%)" >&2
