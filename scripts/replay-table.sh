#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The seed's table for one presence map (scan --presence): every policy of
# collapse --replay x max_ptes_none x minimum order -> the orders made, the
# RSS growth after the last pass and the TLB entries (last level) on
# zen4, zen5, golden-cove and neoverse-n2. TSV on stdout (every figure a
# model's, in a column named _model; '?' counts pages of large folios whose
# order pagemap did not tell); with -g DIR also DIR/replay.png: entries on
# zen4 against RSS growth, one point per policy and setting (gnuplot). Needs jq.
#
#   scripts/replay-table.sh [-b BIN] [-p PASSES] [-g DIR] PRESENCE.json > table.tsv
set -eu
# shellcheck source=scripts/replay-lib.sh
. "$(dirname "$0")/replay-lib.sh"
replay_args '[-b BIN] [-p PASSES] [-g DIR] PRESENCE.json' b:p:g: "$@"
shift "$replay_shift"
[ $# -eq 1 ] || replay_usage
map=$1
models=zen4,zen5,golden-cove,neoverse-n2
policies="merged pache-v1 jain merged-defer pache-v1-defer jain-defer"
tsv=$(mktemp)
trap 'rm -f "$tsv"' EXIT
printf 'policy\tmin_order\tmax_ptes_none\tpasses\trss_start_kib\trss_growth_pct_model\tpages_by_order_model\tzen4_entries_model\tzen5_entries_model\tgolden-cove_entries_model\tneoverse-n2_entries_model\n' >"$tsv"
out=$(mktemp)
trap 'rm -f "$tsv" "$out"' EXIT
for policy in $policies; do
	for min in 2 3 4; do
		# no pipe: a failed replay (a bad map) ends the table, exit 1
		"$bin" collapse --replay "$policy" --presence "$map" --min-order "$min" \
			--max-ptes-none 0,255,511 --passes "$passes" --tlb-model "$models" --json >"$out" ||
			{ echo "$0: the replay of $map ($policy, minimum order $min) failed (above)" >&2; exit 1; }
		jq -r --arg p "$policy" --argjson m "$min" '
			.input.page_size as $ps | .runs[] | .max_ptes_none as $n |
			.passes[0] as $s | .passes[-1] as $e |
			[$p, $m, $n, $e.pass, ($s.rss_pages * $ps / 1024),
			 ($e.rss_growth_pct * 100 | round / 100),
			 (($e.pages | to_entries | map("\(.key):\(.value)")) +
			  (if $e.unknown_order_pages > 0 then ["?:\($e.unknown_order_pages)"]
			   else [] end) | join(",")),
			 ($e.tlb[] | .levels[-1].entries_needed)] | @tsv' "$out" >>"$tsv"
	done
done
cat "$tsv"
[ -n "$plot" ] || exit 0
mkdir -p "$plot"
# one file, point type and size per policy, so that policies on one point show
split=$(mktemp -d)
trap 'rm -f "$tsv"; rm -rf "$split"' EXIT
for policy in $policies; do
	awk -F'\t' -v p="$policy" 'NR > 1 && $1 == p' "$tsv" >"$split/$policy.tsv"
done
gnuplot <<EOG
set terminal pngcairo size 900,600
set output "$plot/replay.png"
set title "$(basename "$map"): zen4 L2 entries against RSS growth after $passes passes (model)"
set xlabel "RSS growth (%)"
set ylabel "TLB entries needed, zen4 L2 (model)"
set key outside right
set datafile separator "\t"
set logscale y
set offsets 0.05, 0.05, 0, 0
pols = "$policies"
plot for [i=1:6] sprintf("$split/%s.tsv", word(pols, i)) using 6:8 with points \
  pt (i + 3) ps (3.2 - 0.4 * i) title word(pols, i)
EOG
