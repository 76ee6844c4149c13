#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# mthpscope plot: real PNG and SVG files from hand-made results, gnuplot
# exiting 0 for each; the staircase only for a span sweep; a missing gnuplot
# is an environment problem (exit 3) with advice.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/lib.sh"
: "${bin:?MTHPSCOPE_BIN}"
command -v gnuplot >/dev/null || skip "gnuplot is not installed (apt-get install gnuplot-nox)"
png_magic=$(printf '\211PNG')

"$bin" plot "$data/knee2.json" -o "$tmp/png/sub" >"$tmp/list" || err "plot png: exit $?"
for f in gain metric_walk_cycles metric_ns_per_access metric_sparse_rss_bytes gain_bloat faults; do
	p=$tmp/png/sub/$f.png
	[ -s "$p" ] || { err "$f.png missing"; continue; }
	[ "$(head -c 4 "$p")" = "$png_magic" ] || err "$f.png is not a PNG"
	grep -qx "$p" "$tmp/list" || err "$f.png not listed on stdout"
	[ -s "$tmp/png/sub/$f.gp" ] && [ -s "$tmp/png/sub/$f.dat" ] || err "$f: .gp/.dat not kept"
	[ -e "$tmp/png/sub/$f.log" ] && err "$f: gnuplot log left after success"
done
[ -e "$tmp/png/sub/staircase.png" ] && err "staircase drawn for a single span"
# the two gain figures (one writer, plot_gain): their data and variables,
# byte for byte, as before they shared it
for f in gain gain_bloat; do
	echo "== $f.dat"; cat "$tmp/png/sub/$f.dat"
	echo "== $f.gp"; sed -n '1,/^# ----/p' "$tmp/png/sub/$f.gp"
done >"$tmp/gain.out"
cmp -s "$tmp/gain.out" "$data/plot-gain-knee2.golden" ||
	err "gain figures differ from plot-gain-knee2.golden: $(diff "$data/plot-gain-knee2.golden" "$tmp/gain.out" | head -5)"
# a paired analysis names its estimator in the key; an unpaired one keeps 'gain (median)'
"$bin" plot "$data/load_step.json" -o "$tmp/paired" >/dev/null 2>&1 || err "plot load_step.json failed"
grep -qx "gain_title = 'gain (paired by round, trimmed mean)'" "$tmp/paired/gain.gp" ||
	err "paired gain figure does not say how the gain was estimated"
grep -q "^gain_title" "$tmp/png/sub/gain.gp" && err "unpaired gain figure sets gain_title"
# raw gains that break monotonicity: the verdict rests on the isotonic fit,
# and the figure draws it (column 7, its key entry); gains that do not break
# it leave the figure as it was (the fit weighs each order by its CI's width:
# 19.90 with the two-stage CI, 19.76 with the placements' expanded one, 6
# placements of dip.json, issue 39)
"$bin" plot "$data/dip.json" -o "$tmp/dip" >/dev/null 2>&1 || err "plot dip.json failed"
grep -qx "fit_title = 'isotonic fit (the verdict rests on it)'" "$tmp/dip/gain.gp" ||
	err "the dip's gain figure does not draw the isotonic fit"
[ "$(awk '$2 == "\"5" { print $4, $8 }' "$tmp/dip/gain.dat")" = "3.85578849 19.7642248" ] ||
	err "order 5 of the dip: raw and fitted gain not in gain.dat: $(grep '"5 ' "$tmp/dip/gain.dat")"
[ "$(awk '$2 == "\"9" { print $8 }' "$tmp/dip/gain.dat")" = NaN ] || err "the PMD order has a fit"
grep -q "^fit_title" "$tmp/png/sub/gain.gp" && err "a monotone figure sets fit_title"
# the faults figure's labels are faults saved with analyze's sign (report.c):
# knee4's order 2 saves 75.2 %, "+75.2%" (it said "-75.2%"), and an order
# with ten times order 0's faults is "-24.0%" (it said "--24.0%")
fault_labels() { # FILE DIR: "order label" per order above 0, then analyze's
	"$bin" plot "$1" -o "$2" >/dev/null || err "plot $1: exit $?"
	awk 'NR > 1 && $NF != "\"baseline\"" { gsub(/"/, ""); print $2, $NF }' "$2/faults.dat"
	echo "== analyze"
	"$bin" analyze "$1" | awk '/^ +[1-9] / { print $1, $(NF - 1) }'
}
# the same labels from plot and from analyze
labels='2 +75.2%
3 +87.6%
4 +93.8%
5 +96.9%
6 +98.4%
7 +99.2%
8 +99.6%
9 +99.8%'
printf '%s\n== analyze\n%s\n' "$labels" "$labels" >"$tmp/faults.want"
fault_labels "$data/knee4.json" "$tmp/faults" >"$tmp/faults.got"
cmp -s "$tmp/faults.want" "$tmp/faults.got" ||
	err "faults labels against analyze: $(diff "$tmp/faults.want" "$tmp/faults.got")"
jq '(.trials[] | select(.order == 3 and (.sparse | not)) | .metrics.page_faults.value) |= . * 10' \
	"$data/knee4.json" >"$tmp/more-faults.json"
sed -i 's/^3 +87.6%$/3 -24.0%/' "$tmp/faults.want"
fault_labels "$tmp/more-faults.json" "$tmp/faults-more" >"$tmp/faults.got"
cmp -s "$tmp/faults.want" "$tmp/faults.got" ||
	err "faults labels, more faults than order 0: $(diff "$tmp/faults.want" "$tmp/faults.got")"
grep -qx '2 "3 (32K)" 81555 81260 81880 "-24.0%"' "$tmp/faults-more/faults.dat" ||
	err "faults.dat, order 3: $(grep '"3 ' "$tmp/faults-more/faults.dat")"
# a metric where higher is better (run -- CMD's ops): analyze calls its gain
# a rise over the order-0 value, and so does the gain figure's y label (it
# said "ops (higher is better) saved vs order 0 (%)")
"$bin" analyze "$data/command_higher.json" | grep -q "rise over the order-0 value" ||
	err "analyze no longer calls command_higher's gain a rise"
"$bin" plot "$data/command_higher.json" -o "$tmp/higher" >/dev/null || err "plot command_higher: exit $?"
grep -qx "ylabel_text = 'ops (higher is better), rise over order 0 (%)'" "$tmp/higher/gain.gp" ||
	err "higher-is-better gain: $(grep '^ylabel_text' "$tmp/higher/gain.gp")"
# the TLB model's figures (source model), drawn with the model the trials
# name: a span sweep gets tlb-entries and tlb-staircase; a command (one span,
# 0 in the file) tlb-entries alone, a point per order, titled '(a command)'
# (the command run of data/numpy-gather-vm-zen5-6.18 with its trials given
# "tlb": {"model": "zen5"} by hand, as run writes it now). That file as it
# stands carries layouts but names no model (written before run named it; a
# run with no geometry for its CPU, neither table nor CPUID, still writes
# none): analyze says why it has no model, and plot drew no figure and said
# nothing; now a note, with advice plot can take (it has no --tlb-model).
# Likewise a model this version's table lacks: "cpuid", the name a run gives
# a CPU that only CPUID describes (src/measure/tlb_host.c).
"$bin" plot "$data/layout_sweep.json" -o "$tmp/tlb-sweep" >"$tmp/list" 2>"$tmp/err" ||
	err "plot layout_sweep: exit $?"
for f in tlb-entries tlb-staircase; do
	grep -qx "$tmp/tlb-sweep/$f.png" "$tmp/list" || err "layout_sweep: $f.png not listed"
done
[ -s "$tmp/err" ] && err "layout_sweep: stderr $(cat "$tmp/err")"
gather=${MTHPSCOPE_SRC}/data/numpy-gather-vm-zen5-6.18/results.json
jq '.trials[] |= (.tlb = {model: "zen5"})' "$gather" >"$tmp/gather-zen5.json"
"$bin" plot "$tmp/gather-zen5.json" -o "$tmp/gather-zen5" >"$tmp/list" 2>"$tmp/err" ||
	err "plot a command with its model: exit $?"
g5=$tmp/gather-zen5
grep -qx "$g5/tlb-entries.png" "$tmp/list" && [ -s "$g5/tlb-entries.png" ] ||
	err "a command with its model: no tlb-entries.png"
[ -e "$g5/tlb-staircase.png" ] && err "a command: tlb-staircase drawn for one span"
# zen5 merges 4 and 8 pages (issue 38): contiguous runs in every order's layout take 8
printf '%s\n' '0 "0 (4K)" 160145 160145' '1 "2 (16K)" 40130 40130' '2 "4 (64K)" 25593 25593' \
	'3 "9 (2M)" 8070 8070' >"$tmp/gather.want"
cmp -s "$g5/tlb-entries.dat" "$tmp/gather.want" ||
	err "a command's tlb-entries.dat: $(diff "$tmp/gather.want" "$g5/tlb-entries.dat")"
grep -qxF "plot_title = 'TLB model (zen5): entries needed per folio order (a command)'" \
	"$g5/tlb-entries.gp" || err "a command's tlb-entries title"
[ -s "$tmp/err" ] && err "a command with its model: stderr $(cat "$tmp/err")"
want="  unavailable: the trials name no TLB model: give --tlb-model NAME or --tlb-geometry FILE"
"$bin" analyze "$gather" | grep -qxF "$want" ||
	err "analyze of a command without its model: no TLB section saying why"
"$bin" plot "$gather" -o "$tmp/gather" >"$tmp/list" 2>"$tmp/err" ||
	err "plot a command without its model: exit $?"
grep -q "tlb-entries" "$tmp/list" && err "a command without its model: tlb-entries drawn"
want="mthpscope: note: plot: $gather: no TLB model figure: the trials name no TLB model (plot draws"
want+=" the model the trials name; 'mthpscope analyze --tlb-model NAME' shows one you name)"
[ "$(cat "$tmp/err")" = "$want" ] || err "a command without its model: stderr '$(cat "$tmp/err")'"
jq '.trials[] |= (.tlb = {model: "cpuid"})' "$gather" >"$tmp/gather-cpuid.json"
"$bin" plot "$tmp/gather-cpuid.json" -o "$tmp/gather-cpuid" >/dev/null 2>"$tmp/err" ||
	err "plot a model not in the table: exit $?"
want="no TLB model figure: the trials' TLB model 'cpuid' is not in this version's table (plot"
grep -qF "$want" "$tmp/err" || err "a model not in the table: stderr '$(cat "$tmp/err")'"
"$bin" plot "$data/knee4.json" -o "$tmp/nolayout" >/dev/null 2>"$tmp/err"
[ -s "$tmp/err" ] && err "a file without layouts: stderr $(cat "$tmp/err")"
# a kept script redraws its figure
(cd "$tmp/png/sub" && rm gain.png && gnuplot gain.gp 2>/dev/null && [ -s gain.png ]) || err "gnuplot gain.gp does not redraw"

# every figure written is listed on stdout ("Prints the files written"):
# 36 more metrics give 34 pictures, and the list stopped at 32
python3 - "$data/knee2.json" "$tmp/many.json" <<'EOT'
import json, sys
d = json.load(open(sys.argv[1]))
for t in d["trials"]:
    for i in range(36):
        t["metrics"]["extra_%02d" % i] = {"value": 100.0 + i + t["order"], "source": "workload"}
json.dump(d, open(sys.argv[2], "w"))
EOT
"$bin" plot "$tmp/many.json" -o "$tmp/many" >"$tmp/list" || err "plot of 36 more metrics: exit $?"
ls "$tmp/many"/*.png | sort >"$tmp/on-disk"
[ "$(wc -l <"$tmp/on-disk")" -gt 32 ] || err "plot of 36 more metrics: only $(wc -l <"$tmp/on-disk") pictures"
sort "$tmp/list" | cmp -s - "$tmp/on-disk" ||
	err "not every picture listed: $(sort "$tmp/list" | diff - "$tmp/on-disk" | grep -c '^>') missing"

# a metric's name in a file name (results take any name of 1-31 bytes): a
# tab made NAME.gp read 'metric_a b.dat', not the file on disk (exit 1 and
# an empty picture), a '/' a path into a missing subdirectory ("cannot
# write .../metric_a/b.dat"); now '/', space and control characters are '_',
# and names that meet ('a/b', 'a_b', 'a<newline>b') are told apart
for m in 'a\tb' 'a/b'; do
	jq --arg m "$(printf "$m")" '.trials[].metrics |= with_entries(if .key == "ops" then .key = $m else . end)' \
		"$data/command_higher.json" >"$tmp/name.json"
	rm -rf "$tmp/name"
	"$bin" plot "$tmp/name.json" -o "$tmp/name" >"$tmp/list" 2>"$tmp/err" || err "metric '$m': exit $?: $(cat "$tmp/err")"
	grep -qx "$tmp/name/metric_a_b.png" "$tmp/list" || err "metric '$m': $(cat "$tmp/list")"
	grep -qx "datafile = 'metric_a_b.dat'" "$tmp/name/metric_a_b.gp" || err "metric '$m': metric_a_b.gp names another file"
	[ -z "$(find "$tmp/name" -mindepth 1 -type d)" ] || err "metric '$m': a subdirectory $(find "$tmp/name" -mindepth 1 -type d)"
done
jq '.trials[].metrics |= (with_entries(if .key == "ops" then .key = "a/b" else . end) +
	{"a_b": {"value": 5, "source": "workload"}, "a\nb": {"value": 7, "source": "workload"}})' \
	"$data/command_higher.json" >"$tmp/names.json"
"$bin" plot "$tmp/names.json" -o "$tmp/names" >"$tmp/list" || err "three metric names that meet: exit $?"
for f in metric_a_b metric_a_b-2 metric_a_b-3; do
	grep -qx "$tmp/names/$f.png" "$tmp/list" || err "three metric names that meet: $f.png not listed"
	[ "$(head -1 "$tmp/names/$f.gp")" = "# written by mthpscope; redraw with: gnuplot $f.gp (in this directory)" ] &&
		grep -qx "datafile = '$f.dat'" "$tmp/names/$f.gp" || err "three metric names that meet: $f.gp"
done
[ "$(ls "$tmp/names" | grep -c '^metric_a_b.*\.png$')" = 3 ] || err "three metric names that meet: $(ls "$tmp/names")"
# a directory near PATH_MAX: fig_init cut the paths short and wrote "gain.d"
# and "gain.g" (or "gain"); now a clear error, and the directories made go
long=$tmp/long
while [ ${#long} -lt 3880 ]; do long=$long/$(printf 'd%.0s' $(seq 200)); done
long=$long/$(printf 'e%.0s' $(seq $((4089 - ${#long}))))
"$bin" plot "$data/flat.json" -o "$long" >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] && grep -q "cannot write gain.dat into a directory whose path has 4090 bytes: its path would pass PATH_MAX" "$tmp/err" ||
	err "a ${#long}-byte directory: $(cut -c1-200 "$tmp/err")"
[ -e "$tmp/long" ] && err "a ${#long}-byte directory: left $(find "$tmp/long" -type f | sed 's@.*/@@')"

# a relative -o, then the directory moved: NAME.gp stands on its own
(cd "$tmp" && "$bin" plot "$data/flat.json" -o rel/figs >/dev/null) || err "relative -o: exit $?"
mv "$tmp/rel/figs" "$tmp/moved" && rm -f "$tmp/moved/gain.png"
(cd "$tmp/moved" && gnuplot gain.gp 2>/dev/null && [ -s gain.png ]) || err "a moved figure does not redraw"
grep -q '^load' "$tmp/moved/gain.gp" && err "gain.gp still loads a template"

"$bin" plot --format svg -o "$tmp/svg" "$data/knee4_timing.json" >/dev/null || err "plot svg: exit $?"
for f in gain metric_ns_per_access staircase faults; do
	head -c 200 "$tmp/svg/$f.svg" 2>/dev/null | grep -q '<svg' || err "$f.svg is not an SVG"
done
grep -q 'order 4 (64K), recommended' "$tmp/svg/staircase.dat" || err "staircase lacks the recommended order"
# the verdict per span above the staircase, the knee per working set at its foot
"$bin" plot -o "$tmp/sweep" "$data/sweep_knee2.json" >/dev/null || err "plot sweep_knee2: exit $?"
grep -q "^set label 3 'PMD only' at 128, graph 1.02" "$tmp/sweep/staircase.gp" ||
	err "staircase lacks the per-span verdict"
grep -q "^set label 4 'Order 2 pays for working sets up to about 32 MiB on this CPU; beyond that only PMD-size folios help.'" \
	"$tmp/sweep/staircase.gp" || err "staircase lacks the knee per working set"

# collapse documents of many runs: every panel keeps its title (a fixed
# buffer cut the list short), a --max-ptes-none sweep of 32 draws as a grid
# of 8 rows (one column was 8450 pixels high), and 130 runs still draw (one
# column passed cairo's size limit: exit 1)
png_size() { od -An -tu1 -j16 -N8 "$1" | awk '{ print $1*16777216+$2*65536+$3*256+$4 "x" $5*16777216+$6*65536+$7*256+$8 }'; }
python3 - "$tmp" <<'EOT'
import json, sys
def doc(mpns):
    return {"schema": "mthpscope.collapse/1", "host": {"page_size": 4096, "kernel": "6.18.0-test"},
            "config": {"mode": "khugepaged", "span": 8 << 20, "fill": 0.5, "orders": [4, 9]},
            "runs": [{"max_ptes_none": m, "timeline": [
                {"t_ms": 0, "hist": {"0": 2048}},
                {"t_ms": 100, "hist": {"0": 1024, "4": 512, "9": 512}}]} for m in mpns]}
json.dump(doc([511 * i // 31 for i in range(32)]), open(sys.argv[1] + "/sweep32.json", "w"))
# the longest titles a document may hold: max_ptes_none <= 2^20 - 1 on a host
# without a PMD size; 70 of 8 characters pass the 512 the fixed buffer held
json.dump(doc([10**6 + i for i in range(70)]), open(sys.argv[1] + "/long70.json", "w"))
json.dump(doc([i % 512 for i in range(130)]), open(sys.argv[1] + "/runs130.json", "w"))
EOT
"$bin" plot "$tmp/sweep32.json" -o "$tmp/c32" >/dev/null || err "collapse, 32 runs: exit $?"
[ "$(png_size "$tmp/c32/collapse.png")" = 2240x2210 ] ||
	err "collapse, 32 runs: $(png_size "$tmp/c32/collapse.png"), expected a 4 x 8 grid (2240x2210)"
grep -q "^titles = '0 16 32 49 .* 494 511'$" "$tmp/c32/collapse.gp" || err "collapse, 32 runs: titles $(grep ^titles "$tmp/c32/collapse.gp")"
"$bin" plot "$tmp/long70.json" -o "$tmp/c70" >/dev/null || err "collapse, 70 long titles: exit $?"
[ "$(grep '^titles' "$tmp/c70/collapse.gp" | grep -o '10000[0-9][0-9]' | wc -l)" = 70 ] ||
	err "collapse, 70 long titles: not every run's title is in collapse.gp"
grep -q "1000069'$" "$tmp/c70/collapse.gp" || err "collapse, 70 long titles: the last one is cut"
"$bin" plot "$tmp/runs130.json" -o "$tmp/c130" >/dev/null 2>"$tmp/err" || err "collapse, 130 runs: exit $?, $(cat "$tmp/err")"
[ "$(png_size "$tmp/c130/collapse.png")" = 6160x3250 ] || err "collapse, 130 runs: $(png_size "$tmp/c130/collapse.png")"

# every collapse panel on one scale: a run whose RSS doubles (max_ptes_none
# 511 here: 4 MiB of an 8 MiB span collapsed to one PMD folio) is twice as
# high as the one that stays at 4 MiB, and a shorter timeline ends short of
# the longest one's x; each panel had its own autoscaled y and x, so both
# filled their panel. The ranges gnuplot drew the last (small, short) panel
# with: y to the 8 MiB span, x to the 0.3 s of the longest timeline.
python3 - "$tmp/scale.json" <<'EOT'
import json, sys
run = lambda m, tl: {"max_ptes_none": m, "timeline": [{"t_ms": t, "hist": h} for t, h in tl]}
json.dump({"schema": "mthpscope.collapse/1", "host": {"page_size": 4096, "kernel": "7.3.4"},
           "config": {"mode": "khugepaged", "span": 8 << 20, "fill": 0.5, "orders": [4, 9]},
           "runs": [run(511, [(0, {"0": 1024}), (100, {"0": 512, "9": 512}), (300, {"9": 2048})]),
                    run(0, [(0, {"0": 1024}), (100, {"0": 512, "4": 512})])]},
          open(sys.argv[1], "w"))
EOT
"$bin" plot "$tmp/scale.json" -o "$tmp/scale" >/dev/null || err "collapse scale: exit $?"
grep -qx 'ymax = 8' "$tmp/scale/collapse.gp" && grep -qx 'xmax = 0.3' "$tmp/scale/collapse.gp" ||
	err "collapse scale: $(grep '^[xy]max' "$tmp/scale/collapse.gp")"
(cd "$tmp/scale" && { cat collapse.gp; echo "print sprintf('%g %g', GPVAL_Y_MAX, GPVAL_X_MAX)"; } |
	gnuplot 2>&1 >/dev/null) >"$tmp/scale.got"
[ "$(tail -1 "$tmp/scale.got")" = "8 0.3" ] ||
	err "collapse panels not on one scale: the last one drew y to, x to: $(tail -1 "$tmp/scale.got")"

# a record document (a real recording, tests/data/record/README): its three
# figures, and the hot windows' TLB entries (source model) exactly as the file has them
"$bin" plot "$data/record/record-tlb.json" -o "$tmp/rec" >"$tmp/list" || err "record: exit $?"
for f in record_orders record_windows record_tlb; do
	[ "$(head -c 4 "$tmp/rec/$f.png" 2>/dev/null)" = "$png_magic" ] || err "record: $f.png missing"
done
cat >"$tmp/rec.want" <<'EOT'
# window, then the model's TLB entries: as mapped now, at order 2 9 (source model, zen5)
"7fe1a8000000\nanon" 128 128 1
"7fe1a7c00000\nanon" 281 128 1
"7fe1a7e00000\nanon" 128 128 1
"7fe1a8200000\nanon" 128 128 1
"7fe1a8800000\nld-linux-x86-64.so.2" 85 22 1
"55961f800000\nhelper_record" 2 1 1
"7fe1a8600000\nlibc.so.6" 229 58 1
"7ffd45400000\n[stack]" 4 1 1
EOT
cmp -s "$tmp/rec/record_tlb.dat" "$tmp/rec.want" || err "record_tlb.dat: $(diff "$tmp/rec.want" "$tmp/rec/record_tlb.dat")"
# a document's string in a comment line: a newline in tlb_model.model was
# written raw into record_tlb.dat's '#' line, and what followed it became a
# data row that was drawn; now it is a space, the rows as above
jq '.tlb_model.model = "zen5\n1 999 999 999"' "$data/record/record-tlb.json" >"$tmp/rec-nl.json"
"$bin" plot "$tmp/rec-nl.json" -o "$tmp/rec-nl" >/dev/null || err "record, newline in the model: exit $?"
sed -i '1s/(source model, zen5)$/(source model, zen5 1 999 999 999)/' "$tmp/rec.want"
cmp -s "$tmp/rec-nl/record_tlb.dat" "$tmp/rec.want" ||
	err "record_tlb.dat, newline in the model: $(diff "$tmp/rec.want" "$tmp/rec-nl/record_tlb.dat")"
grep -q '^1 999' "$tmp/rec-nl/record_tlb.gp" && err "record_tlb.gp: the model's newline breaks a line"
jq 'del(.windows[].tlb)' "$data/record/record-tlb.json" >"$tmp/rec-notlb.json"
"$bin" plot "$tmp/rec-notlb.json" -o "$tmp/rec2" >/dev/null || err "record without tlb: exit $?"
[ -e "$tmp/rec2/record_tlb.png" ] && err "record without tlb: record_tlb.png drawn"

# FILE is read once, with the results reader's 64 MiB limit: a pipe or a
# process substitution can be read only once, and plot read FILE up to three
# times (collapse? record? results), so each of these said "the file is
# empty"; the two looks before the results reader also parsed a file of any
# size (a 65 MiB collapse document was plotted)
for f in knee4.json collapse-sweep.json record/record-tlb.json; do
	n=$(basename "$f" .json)
	"$bin" plot "$data/$f" -o "$tmp/once/$n-file" | sed 's@.*/@@' >"$tmp/once-$n.want"
	"$bin" plot <(cat "$data/$f") -o "$tmp/once/$n-subst" >"$tmp/out" 2>"$tmp/err" ||
		err "plot <(cat $f): exit $?: $(cat "$tmp/err")"
	[ "$(sed 's@.*/@@' "$tmp/out")" = "$(cat "$tmp/once-$n.want")" ] || err "plot <(cat $f): $(cat "$tmp/out")"
	cat "$data/$f" | "$bin" plot /dev/stdin -o "$tmp/once/$n-pipe" >"$tmp/out" 2>"$tmp/err" ||
		err "cat $f | plot /dev/stdin: exit $?: $(cat "$tmp/err")"
	[ "$(sed 's@.*/@@' "$tmp/out")" = "$(cat "$tmp/once-$n.want")" ] || err "plot /dev/stdin ($f): $(cat "$tmp/out")"
	for d in "$tmp/once/$n-file"/*.dat; do
		cmp -s "$d" "$tmp/once/$n-pipe/${d##*/}" || err "plot /dev/stdin of $f: ${d##*/} differs"
	done
done
python3 - "$data/collapse-sweep.json" "$tmp/big-collapse.json" <<'EOT'
import sys
open(sys.argv[2], "w").write(open(sys.argv[1]).read() + " " * (65 << 20))
EOT
"$bin" plot "$tmp/big-collapse.json" -o "$tmp/big" >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] && grep -q "64 MiB limit" "$tmp/err" || err "a 65 MiB collapse document: $(cat "$tmp/err")"
rm -f "$tmp/big-collapse.json"

# a document string that starts with a quote (gnuplot 5.4 reads a doubled
# '' at the start of a string as an empty string: every figure failed)
jq '.host.cpu_model = "'"'"'Q'"'"' CPU"' "$data/knee4.json" > "$tmp/quote.json"
"$bin" plot "$tmp/quote.json" -o "$tmp/quote" >/dev/null 2>"$tmp/err" ||
	err "a cpu_model starting with a quote: exit $? ($(head -c 200 "$tmp/err"))"
[ -s "$tmp/quote/gain.png" ] || err "a cpu_model starting with a quote: no gain.png"

# a VMA name cut inside a UTF-8 character (the window label keeps 20 bytes):
# the SVG was not well-formed
jq '.windows[0].vma = "/tmp/donnees_etee_\u00e9\u00e9\u00e9\u00e9\u00e9.bin"' \
	"$data/record/record-tlb.json" > "$tmp/utf8.json"
"$bin" plot "$tmp/utf8.json" -o "$tmp/utf8" -f svg >/dev/null 2>&1 || err "utf8.json: exit $?"
python3 -c 'import sys, xml.dom.minidom as m; [m.parse(f) for f in sys.argv[1:]]' \
	"$tmp"/utf8/*.svg 2>"$tmp/err" || err "utf8.json: an SVG is not well-formed: $(tail -1 "$tmp/err")"

# gnuplot missing: exit 3 and advice; bad input: exit 1; usage: exit 2
PATH=/nonexistent "$bin" plot "$data/flat.json" -o "$tmp/nognuplot" 2>"$tmp/err" >/dev/null
[ $? -eq 3 ] || err "no gnuplot: not exit 3"
grep -q "gnuplot-nox" "$tmp/err" || err "no gnuplot: no advice"
# ... and nothing this run created stays: it left gain.dat, gain.gp and an
# empty gain.log (collapse.*, ab-*.* the same), and the directory it made;
# a directory that was there keeps what it held, and only that
[ -e "$tmp/nognuplot" ] && err "no gnuplot: left $(find "$tmp/nognuplot")"
mkdir -p "$tmp/nognuplot-had" && echo kept >"$tmp/nognuplot-had/notes.txt"
for f in flat.json collapse-sweep.json record/record-tlb.json; do
	PATH=/nonexistent "$bin" plot "$data/$f" -o "$tmp/nognuplot-had" >/dev/null 2>&1
	[ $? -eq 3 ] || err "no gnuplot, $f: not exit 3"
	PATH=/nonexistent "$bin" plot "$data/$f" -o "$tmp/nognuplot-new/sub" >/dev/null 2>&1
	[ -e "$tmp/nognuplot-new" ] && err "no gnuplot, $f: left $(find "$tmp/nognuplot-new")"
done
PATH=/nonexistent "$bin" compare "$data/compare-base.json" "$data/compare-slow20.json" \
	--plot "$tmp/nognuplot-had" >/dev/null 2>&1
[ $? -eq 3 ] || err "no gnuplot, compare --plot: not exit 3"
PATH=/nonexistent "$bin" compare "$data/compare-base.json" "$data/compare-slow20.json" \
	--plot "$tmp/nognuplot-new" >/dev/null 2>&1
[ -e "$tmp/nognuplot-new" ] && err "no gnuplot, compare --plot: left $(find "$tmp/nognuplot-new")"
[ "$(ls -A "$tmp/nognuplot-had")" = notes.txt ] || err "no gnuplot: left $(ls -A "$tmp/nognuplot-had")"
# ... and an earlier run's figures stay whole: it removed their .dat and .gp
# (a picture that can no longer be redrawn)
"$bin" plot "$data/knee2.json" -o "$tmp/nognuplot-old" >/dev/null 2>&1
cp "$tmp/nognuplot-old/gain.dat" "$tmp/gain.dat.before"
PATH=/nonexistent "$bin" plot "$data/knee4.json" -o "$tmp/nognuplot-old" >/dev/null 2>&1
cmp -s "$tmp/nognuplot-old/gain.dat" "$tmp/gain.dat.before" &&
	[ -s "$tmp/nognuplot-old/gain.gp" ] ||
	err "no gnuplot: an earlier run's gain.dat/gain.gp removed or changed"
# gnuplot that exits 0 without a complete picture: a picture an earlier run
# left is not this run's to delete (it was); one this run cut short is
mkdir -p "$tmp/fakebin" "$tmp/had"
cat >"$tmp/fakebin/gnuplot" <<'EOT'
#!/bin/sh
[ "${FAKE_GNUPLOT:-}" = short ] && printf PNG >"${1%.gp}.png"
exit 0
EOT
chmod +x "$tmp/fakebin/gnuplot"
echo "an earlier picture" >"$tmp/had/gain.png"
PATH=$tmp/fakebin:$PATH "$bin" plot "$data/flat.json" -o "$tmp/had" >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] && grep -q "wrote no complete gain.png" "$tmp/err" || err "gnuplot writing nothing: $(cat "$tmp/err")"
[ "$(cat "$tmp/had/gain.png" 2>&1)" = "an earlier picture" ] || err "gnuplot writing nothing: the earlier gain.png went"
[ "$(ls -A "$tmp/had")" = gain.png ] || err "gnuplot writing nothing: left $(ls -A "$tmp/had")"
FAKE_GNUPLOT=short PATH=$tmp/fakebin:$PATH "$bin" plot "$data/flat.json" -o "$tmp/had" >/dev/null 2>&1
[ $? -eq 1 ] || err "gnuplot writing a cut picture: not exit 1"
[ -z "$(ls -A "$tmp/had")" ] || err "gnuplot writing a cut picture: left $(ls -A "$tmp/had")"
"$bin" plot "$data/bad/nan.json" -o "$tmp/bad" 2>"$tmp/err" >/dev/null
[ $? -eq 1 ] || err "nan.json: not exit 1"
grep -q "NaN" "$tmp/err" || err "nan.json: message does not name NaN"
# issue 40, hostile pass item 2: a figure with nothing gnuplot can draw is
# skipped with a note, and leaves no file; the others are drawn. Order 0 took
# no time (every gain undefined: gain.png was drawn from NaNs), and every
# value 1e308 (gnuplot: "all points y value undefined", gain_bloat.log and
# the figures' files left, faults never drawn, exit 1)
jq '(.trials[] | select(.order == 0) | .metrics[].value) |= 0' "$data/knee2.json" >"$tmp/zero.json"
jq '(.trials[] | .metrics[].value) |= 1e308' "$data/knee2.json" >"$tmp/huge.json"
"$bin" plot "$tmp/zero.json" -o "$tmp/zero" >"$tmp/list" 2>"$tmp/err" || err "order-0 time 0: exit $?"
grep -q "note: plot: figure gain not drawn" "$tmp/err" || err "order-0 time 0: no note for gain: $(cat "$tmp/err")"
ls "$tmp/zero" | grep -q '^gain\.' && err "order-0 time 0: gain's files left: $(ls "$tmp/zero" | grep '^gain\.' | xargs)"
[ -s "$tmp/zero/faults.png" ] && [ -s "$tmp/zero/metric_walk_cycles.png" ] ||
	err "order-0 time 0: the figures it can draw are not there: $(ls "$tmp/zero" | xargs)"
"$bin" plot "$tmp/huge.json" -o "$tmp/huge" >"$tmp/list" 2>"$tmp/err" || err "1e308: exit $? ($(cat "$tmp/err"))"
grep -q "note: plot: figure metric_sparse_page_faults not drawn" "$tmp/err" ||
	err "1e308: no note for metric_sparse_page_faults: $(cat "$tmp/err")"
for f in "$tmp"/huge/*; do
	[ -e "$f" ] || continue
	case $f in *.png) grep -qx "$f" "$tmp/list" || err "1e308: $f not listed" ;;
	*.log) err "1e308: gnuplot's log left: $f" ;;
	*) [ -e "${f%.*}.png" ] || err "1e308: $f left without its picture" ;; esac
done
"$bin" plot "$data/flat.json" >/dev/null 2>&1; [ $? -eq 2 ] || err "no -o: not exit 2"
"$bin" plot "$data/flat.json" -o "$tmp/x" --format jpg >/dev/null 2>&1; [ $? -eq 2 ] || err "jpg: not exit 2"
exit $fail
