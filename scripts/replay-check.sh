#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The merged policy model against the real kernel: every khugepaged cell of
# a guest collapse matrix (data/guest-collapse-*/cells.tsv, written by
# collapse-matrix.sh) replayed with 'collapse --replay merged' on the same
# seeded pattern (span and seed read from the cell's own document), and the
# final pages per order compared. Prints one TSV line per cell, then
# "agree: N of M cells (P%)" on stderr. Needs jq.
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
# the cells' documents packed (data/guest-collapse-*/cells.tar.xz): read them unpacked
if [ -f "$dir/cells.tar.xz" ] && ! ls "$dir"/khugepaged-o*.json >/dev/null 2>&1; then
	unpacked=$(mktemp -d) || exit 1
	trap 'rm -rf "$unpacked"' EXIT
	tar -xJf "$dir/cells.tar.xz" -C "$unpacked" && cp "$dir/cells.tsv" "$unpacked/" || exit 1
	dir=$unpacked
fi

printf 'orders\tfill\tmax_ptes_none\tkernel\treplay\tagree\n'
n=0 ok=0
# shellcheck disable=SC2034 # the columns are named for the reader
while IFS='	' read -r kernel arch page_size mode orders fill mpn mass rest; do
	[ "$mode" = khugepaged ] || continue
	doc="$dir/khugepaged-o$orders-f$fill.json"
	[ -f "$doc" ] || { echo "$0: no $doc" >&2; exit 1; }
	span=$(jq -r .config.span "$doc")
	seed=$(jq -r .config.seed "$doc")
	got=$("$bin" collapse --replay merged --fill "$fill" --span "$span" --seed "$seed" \
		--page-size "$page_size" --orders "$orders" --max-ptes-none "$mpn" --passes "$passes" --tlb-model zen4 \
		--json | jq -r '.runs[0].passes[-1].pages | to_entries
			| map("\(.key):\(.value)") | join(",")')
	n=$((n + 1))
	if [ "$got" = "$mass" ]; then same=yes; ok=$((ok + 1)); else same=no; fi
	printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$orders" "$fill" "$mpn" "$mass" "$got" "$same"
done <<EOT
$(tail -n +2 "$dir/cells.tsv")
EOT
echo "agree: $ok of $n cells ($(awk "BEGIN { printf \"%.1f\", $n ? 100 * $ok / $n : 0 }")%)" >&2
