#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# mthpscope compare from the command line, on the recorded fixtures:
# exit statuses (--fail-on-regression both ways, usage, bad input), the
# messages a user sees, and options after the file names.
set -u
B=${MTHPSCOPE_BIN:?}
D=${MTHPSCOPE_SRC:?}/tests/data
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fails=0

# expect STATUS STDERR_PATTERN -- command...
expect() {
	local want=$1 pat=$2 rc
	shift 3
	"$@" >"$T/out" 2>"$T/err"
	rc=$?
	if [ "$rc" -ne "$want" ]; then
		echo "FAIL: '$*' exited $rc, expected $want"; cat "$T/err"; fails=$((fails + 1))
	elif [ -n "$pat" ] && ! grep -q -- "$pat" "$T/err"; then
		echo "FAIL: '$*': stderr lacks '$pat'"; cat "$T/err"; fails=$((fails + 1))
	fi
}

base=$D/compare-base.json
# --fail-on-regression both ways: a 20 % slowdown fails at 10 %, passes at 25 %.
expect 1 "significant regressions larger than 10%" -- "$B" compare "$base" "$D/compare-slow20.json" --fail-on-regression 10
expect 0 "" -- "$B" compare "$base" "$D/compare-slow20.json" --fail-on-regression 25
expect 0 "" -- "$B" compare "$base" "$D/compare-noise.json" --fail-on-regression 0
# An improvement is never a regression.
expect 0 "" -- "$B" compare "$D/compare-slow20.json" "$base" --fail-on-regression 0
# Without the run-to-run part the fixtures' order 3 (a gain 1.2 points larger in
# slow20, its 10 reps all but separate from base's) is a change of gain.
expect 1 "order 3 ns_per_access gain vs order 0" -- "$B" compare "$D/compare-slow20.json" "$base" --fail-on-regression 1 --gain-run-sd 0
grep -q "give three runs a side or more" "$T/err" || { echo "FAIL: no note on runs a side"; fails=$((fails + 1)); }
expect 2 "gain-run-sd" -- "$B" compare "$base" "$base" --gain-run-sd -1
expect 2 "gain-run-sd" -- "$B" compare "$base" "$base" --gain-run-sd banana
# The gate leads with the gains: a slowdown of every order alike is no change of
# gain; the drift-prone time rows are not counted (a note says so), page faults are.
expect 1 "9 significant changes for the worse in drift-prone" -- "$B" compare "$base" "$D/compare-slow20.json" --fail-on-regression 10
grep -q "regression: chase-tlb order 2 ns_per_access:" "$T/err" && { echo "FAIL: a drift-prone row gated"; fails=$((fails + 1)); }
grep -q "regression: chase-tlb order 2 page_faults:" "$T/err" || { echo "FAIL: page faults not gated"; fails=$((fails + 1)); }
# Options before or after the files, short and long, with and without '='.
expect 0 "" -- "$B" compare --format=json "$base" "$D/compare-noise.json"
jq -e '.schema == "mthpscope.compare/1" and (.rows | length) == 18 and .comparable' "$T/out" >/dev/null ||
	{ echo "FAIL: json output"; fails=$((fails + 1)); }
expect 0 "" -- "$B" compare "$base" "$D/compare-slow20.json" -f lkml
# the table is the golden one (test_compare builds it without analyze) plus
# analyze's min_order/plateau_order per side (issue 38: the LKML table carries both)
grep -v '^Order ' "$T/out" | cmp -s - "$D/compare-lkml.golden" || { echo "FAIL: lkml differs from golden"; grep -v '^Order ' "$T/out" | diff - "$D/compare-lkml.golden"; fails=$((fails + 1)); }
grep -qE '^Order +min/plateau +2/7 +2/7$' "$T/out" || { echo "FAIL: lkml orders: $(grep '^Order' "$T/out")"; fails=$((fails + 1)); }
expect 0 "" -- "$B" compare "$base" "$D/compare-slow20.json" --format markdown --metric ns_per_access
[ "$(grep -c '^| ns_per_access' "$T/out")" -eq 17 ] || { echo "FAIL: markdown rows"; fails=$((fails + 1)); }
# Three files: the lkml table has one column per file.
expect 0 "" -- "$B" compare "$base" "$D/compare-slow20.json" "$D/compare-noise.json" --format lkml
grep -q "6.18.0-base.*6.18.0-slow.*6.18.0-noise" "$T/out" || { echo "FAIL: 3-column header"; fails=$((fails + 1)); }
# Files named after their kernels (as scripts/kernel-ab.sh writes them): the
# header row of names is printed once, not again as the row of labels.
cp "$base" "$T/6.18.0-base.json" && cp "$D/compare-slow20.json" "$T/6.18.0-slow.json"
expect 0 "" -- "$B" compare "$T/6.18.0-base.json" "$T/6.18.0-slow.json" --format lkml
[ "$(grep -c '6.18.0-base.*6.18.0-slow' "$T/out")" -eq 1 ] ||
	{ echo "FAIL: kernel names printed twice in the lkml header"; head -3 "$T/out"; fails=$((fails + 1)); }
sed -n 2p "$T/out" | grep -q '^\(Gain\|Median\) ' || { echo "FAIL: lkml header not one row"; fails=$((fails + 1)); }
# the gain rows lead; drift-prone absolute rows are marked
[ "$(sed -n 2p "$T/out" | cut -c1-4)" = "Gain" ] || { echo "FAIL: lkml does not lead with gains"; fails=$((fails + 1)); }
grep -q '^Median ns_per_access-o2 .* ~$' "$T/out" || { echo "FAIL: drift-prone row not marked"; fails=$((fails + 1)); }
grep -q '^Median page_faults-o2 .*[^~]$' "$T/out" || { echo "FAIL: page faults marked drift-prone"; fails=$((fails + 1)); }

# Usage errors: status 2.
expect 2 "needs two results files" -- "$B" compare "$base"
expect 2 "invalid --format" -- "$B" compare "$base" "$base" --format yaml
expect 2 "metric 'nope' is in none" -- "$B" compare "$base" "$base" --metric nope
# an empty name is no name (strtok skipped it: "" meant every metric)
for m in "" "," "ns_per_access," ",ns_per_access" "ns_per_access,,walks"; do
	expect 2 "invalid --metric value '$m' (an empty metric name" -- "$B" compare "$base" "$base" --metric "$m"
	[ -s "$T/out" ] && { echo "FAIL: --metric '$m': a table on stdout"; fails=$((fails + 1)); }
done
expect 0 "" -- "$B" compare --help

# Bad input: a clear message, status 1, nothing on stdout, no crash.
expect 1 "mthpscope.results/2' is not supported" -- "$B" compare "$base" "$D/compare-schema2.json"
expect 1 "empty" -- "$B" compare "$D/compare-empty.json" "$base"
expect 1 "truncated" -- "$B" compare "$base" "$D/compare-truncated.json"
expect 1 "No such file" -- "$B" compare "$base" "$T/absent.json"
expect 1 "no order, span and metric in common" -- "$B" compare "$D/compare-lo.json" "$D/compare-hi.json"
[ -s "$T/out" ] && { echo "FAIL: output on stdout after an error"; fails=$((fails + 1)); }
# Warnings: a metric on one side only, another host.
expect 0 "metric page_faults is in compare-base but not in compare-nometric" -- "$B" compare "$base" "$D/compare-nometric.json"
expect 0 "CPU model differs" -- "$B" compare "$base" "$D/compare-otherhost.json" --format json
jq -e '.comparable == false and (.warnings | length) >= 4' "$T/out" >/dev/null ||
	{ echo "FAIL: otherhost json"; fails=$((fails + 1)); }

# Sides of several runs (comma lists): the runs' spread is the run-to-run part.
jq '.host.kernel = "6.18.0-base"' "$D/compare-noise.json" >"$T/noise-as-base.json"
jq '.host.kernel = "6.18.0-slow"' "$base" >"$T/base-as-slow.json"
expect 0 "" -- "$B" compare "$base,$T/noise-as-base.json" "$D/compare-slow20.json,$T/base-as-slow.json" --format json
jq -e '.baseline.runs == 2 and .others[0].runs == 2 and (.gains | length) > 0 and
	all(.gains[]; .runs_a == 2 and .runs_b == 2 and .run_to_run_a == "estimated" and
	    .run_to_run_b == "estimated") and .baseline.file == "compare-base,noise-as-base"' \
	"$T/out" >/dev/null || { echo "FAIL: json of two-run sides"; jq -c '.baseline, .gains[0]' "$T/out"; fails=$((fails + 1)); }
expect 0 "" -- "$B" compare "$base,$T/noise-as-base.json" "$D/compare-slow20.json"
head -1 "$T/out" | grep -q "against the baseline compare-base,noise-as-base (6.18.0-base; 2 runs)" ||
	{ echo "FAIL: text head of a two-run side"; head -1 "$T/out"; fails=$((fails + 1)); }
grep -q "a side of several runs: the gain of its runs' mean log ratio" "$T/out" ||
	{ echo "FAIL: text does not say how a side of runs is read"; fails=$((fails + 1)); }
expect 0 "" -- "$B" compare "$base,$T/noise-as-base.json" "$D/compare-slow20.json" --format json
jq -e 'all(.gains[]; .run_to_run_a == "estimated" and .run_to_run_b == "assumed")' "$T/out" >/dev/null ||
	{ echo "FAIL: one-run side not assumed"; fails=$((fails + 1)); }
# the runs of a side must be repeats: another kernel is an error, not a warning
expect 1 "compare-noise.json is not a repeat of .*compare-base.json: kernel 6.18.0-noise, not 6.18.0-base" -- "$B" compare "$base,$D/compare-noise.json" "$base"
expect 1 "No such file" -- "$B" compare "$base,$T/absent.json" "$base"
for l in "$base," ",$base" "$base,,$base"; do
	expect 2 "an empty file name in a comma list" -- "$B" compare "$l" "$base"
done
# each run once: a file twice in a side (by name, or by a link) is refused
expect 2 "given twice in a side" -- "$B" compare "$base,$base" "$base"
ln -s "$base" "$T/link.json"
expect 2 "given twice in a side" -- "$B" compare "$D/compare-slow20.json" "$base,$T/link.json"
# a copy of a run is the same run; another pattern or PMU is not a repeat
cp "$T/noise-as-base.json" "$T/copy.json"
expect 2 "are copies of one run (the same bytes)" -- "$B" compare "$T/noise-as-base.json,$T/copy.json" "$base"
jq '.trials |= map(.pattern = "random")' "$T/noise-as-base.json" >"$T/other-pattern.json"
expect 1 "not a repeat of .*: pattern random, which the first run has not" -- "$B" compare "$base,$T/other-pattern.json" "$base"
jq '.host.pmu.available = true' "$T/noise-as-base.json" >"$T/pmu.json"
expect 1 "not a repeat of .*: another page size, schedule, virtualization, emulation or PMU" -- "$B" compare "$base,$T/pmu.json" "$base"
# a run without order 9: a warning, and that row's runs a side say so
jq '.trials |= map(select(.order != 9))' "$T/noise-as-base.json" >"$T/no9.json"
expect 0 "chase-tlb order 9 ns_per_access: 1 of the 2 runs of compare-base,no9 have it (with order 0): that side's run-to-run part is assumed" -- "$B" compare "$base,$T/no9.json" "$D/compare-slow20.json" --format json
jq -e '([.gains[] | select(.order == 9)] | all(.runs_a == 1 and .run_to_run_a == "assumed")) and
	([.gains[] | select(.order == 2)] | all(.runs_a == 2))' "$T/out" >/dev/null ||
	{ echo "FAIL: runs of a row without order 9"; fails=$((fails + 1)); }
# a file whose name holds a comma is one file
cp "$base" "$T/a,b.json"
expect 0 "" -- "$B" compare "$T/a,b.json" "$base"
expect 2 "not as comma lists" -- "$B" compare "$D/collapse-orders.json,$D/collapse-sweep.json" "$D/collapse-orders.json"
# A trial whose command failed is left out as failed, not as a folio coverage
# below 95 % (command_higher.json, its trial 0 flagged "failed", coverage 1.0:
# the warning said "their folios were not of the order ... (coverage below 95%)"),
# and a low-coverage trial beside it keeps that reason (a command's: under
# 10 %, its order not in effect; 85-92 % is a program's coverage, not a gate).
jq '.trials[0].flags = ["failed"]' "$D/command_higher.json" >"$T/failed.json"
expect 0 "failed.json: 1 trial left out: the command failed or timed out, so it measured nothing" -- "$B" compare "$D/command_higher.json" "$T/failed.json"
grep -q "coverage below" "$T/err" && { echo "FAIL: a failed trial called low coverage"; cat "$T/err"; fails=$((fails + 1)); }
jq '.trials[0].flags = ["failed"] | .trials[1].folios.coverage = 0.05' "$D/command_higher.json" >"$T/both.json"
expect 0 "both.json: 1 trial left out: their folios were not of the order" -- "$B" compare "$D/command_higher.json" "$T/both.json"
grep -q "both.json: 1 trial left out: the command failed" "$T/err" || { echo "FAIL: failed and low-coverage trials not told apart"; cat "$T/err"; fails=$((fails + 1)); }

# A/B figures: one per metric, real pictures (needs gnuplot).
if command -v gnuplot >/dev/null; then
	expect 0 "2 A/B figures written" -- "$B" compare "$base" "$D/compare-slow20.json" --plot "$T/plots"
	for m in ns_per_access page_faults; do
		head -c 4 "$T/plots/ab-$m.png" | grep -q PNG || { echo "FAIL: ab-$m.png is not a PNG"; fails=$((fails + 1)); }
	done
	expect 0 "" -- "$B" compare "$base" "$D/compare-slow20.json" "$D/compare-noise.json" -m ns_per_access --plot "$T/svg" --plot-format svg
	[ -s "$T/svg/ab-ns_per_access-compare-noise.svg" ] || { echo "FAIL: svg per file"; fails=$((fails + 1)); }
	expect 2 "invalid --plot-format" -- "$B" compare "$base" "$base" --plot "$T/x" --plot-format gif
	# Labels that are paths (three results.json, one base name), long enough
	# that the figure names cut at 63 bytes were one for v1 and v2: the
	# figures overwrote each other while the note counted 4. Each has its own
	# file now, named in full, in DIR itself (a '/' of a label is '_').
	ex=$T/x/experiments/mthp-series-2026
	mkdir -p "$ex/base" "$ex/v1" "$ex/v2"
	cp "$base" "$ex/base/results.json"
	cp "$D/compare-slow20.json" "$ex/v1/results.json"
	cp "$D/compare-noise.json" "$ex/v2/results.json"
	expect 0 "4 A/B figures written" -- "$B" compare "$ex"/{base,v1,v2}/results.json --plot "$T/paths"
	for v in v1 v2; do
		for m in ns_per_access page_faults; do
			f=$T/paths/ab-$m-$(echo "$ex/$v/results.json" | tr / _).png
			head -c 4 "$f" 2>/dev/null | grep -q PNG || { echo "FAIL: ${f##*/} missing"; fails=$((fails + 1)); }
		done
	done
	[ "$(ls "$T/paths" | grep -c '\.png$')" = 4 ] || { echo "FAIL: $(ls "$T/paths")"; fails=$((fails + 1)); }
	[ -z "$(find "$T/paths" -mindepth 1 -type d)" ] || { echo "FAIL: a label made a subdirectory"; fails=$((fails + 1)); }
	# Labels longer than a file name may be (NAME_MAX): each name is cut, ends
	# in a hash of the whole, and stays apart from the others (4 figures).
	ex=$T/y/$(printf 'p%.0s' $(seq 200))/$(printf 'q%.0s' $(seq 200))
	mkdir -p "$ex/base" "$ex/v1" "$ex/v2"
	cp "$base" "$ex/base/results.json"
	cp "$D/compare-slow20.json" "$ex/v1/results.json"
	cp "$D/compare-noise.json" "$ex/v2/results.json"
	expect 0 "4 A/B figures written" -- "$B" compare "$ex"/{base,v1,v2}/results.json --plot "$T/longer"
	[ "$(ls "$T/longer" | grep -c '\.png$')" = 4 ] && [ "$(ls "$T/longer" | wc -l)" = 12 ] ||
		{ echo "FAIL: labels past NAME_MAX: $(ls "$T/longer")"; fails=$((fails + 1)); }
	[ "$(ls "$T/longer" | grep -c -- '-[0-9a-f]\{8\}\.png$')" = 4 ] ||
		{ echo "FAIL: labels past NAME_MAX: names not ended by a hash"; fails=$((fails + 1)); }
else
	echo "gnuplot missing: A/B figures not checked"
fi

# Files read once: pipes (compare <(...) <(...)) were read twice, the first
# time to tell a collapse document from a results file, and came up empty.
expect 0 "" -- "$B" compare <(cat "$base") <(cat "$D/compare-slow20.json")
grep -q 'page_faults  *9  *128M  *64.35  *77.05  *+19.74%' "$T/out" ||
	{ echo "FAIL: compare of pipes lacks the files' rows"; fails=$((fails + 1)); }
# a pipe is named by its path: its descriptor's number alone ("63") named nothing
grep -Eq '^/dev/fd/[0-9]+ \(.*\) against the baseline /dev/fd/[0-9]+ ' "$T/out" ||
	{ echo "FAIL: pipes not named by their paths: $(grep baseline "$T/out")"; fails=$((fails + 1)); }
# '-' is standard input, labelled so, and read once
expect 0 "" -- sh -c '"$0" compare - "$1" < "$2"' "$B" "$D/compare-slow20.json" "$base"
grep -q 'against the baseline stdin (6.18.0-base)' "$T/out" ||
	{ echo "FAIL: compare - B: $(grep baseline "$T/out")"; fails=$((fails + 1)); }
expect 2 "- (standard input) is given twice" -- sh -c '"$0" compare - - < "$1"' "$B" "$base"
expect 0 "" -- "$B" compare <(cat "$D/collapse-sweep.json") <(cat "$D/collapse-orders.json")
grep -q "max_ptes_none" "$T/out" || { echo "FAIL: collapse documents through pipes"; fails=$((fails + 1)); }
expect 1 "is not a collapse document" -- "$B" compare <(cat "$D/collapse-sweep.json") <(cat "$base")
expect 1 "/nonexist.json: cannot open" -- "$B" compare "$D/collapse-sweep.json" /nonexist.json
# A pipe stops at the 64 MiB limit for every kind of document (a collapse
# document's was read to 128 MiB and parsed), and one given twice is refused.
expect 1 "more than the 64 MiB limit" -- "$B" compare "$D/collapse-sweep.json" <(head -c 70000000 /dev/zero)
mkfifo "$T/fifo"
expect 2 "is given twice, and is not a file" -- "$B" compare "$T/fifo" "$T/fifo"
grep -q "nonexist.json: .*nonexist.json" "$T/err" && { echo "FAIL: the path said twice"; fails=$((fails + 1)); }

# Programs (issue 42): two kernels' kernel builds. The program's trials at
# 85-92 % coverage are compared (only the one whose order did not take is
# left out), and each side's table per metric follows the rows, then the
# difference: B's sys falls 10 % more (about 8 points of a 19-26 % fall).
kb=$D/command_kbuild.json
jq '.host.kernel = "6.19.0-test" | .trials |= map(if .order > 0 then .metrics.sys_ns.value *= 0.9 else . end)' \
	"$kb" >"$T/kbuild-b.json"
expect 0 "kbuild-b.json: 1 trial left out" -- "$B" compare "$kb" "$T/kbuild-b.json"
grep -q "command_kbuild.json: 13 trials left out" "$T/err" &&
	{ echo "FAIL: compare leaves out a program's trials for coverage"; fails=$((fails + 1)); }
grep -Eq '^sys_ns +4 +0 .* -10\.00%' "$T/out" || { echo "FAIL: no sys_ns row at order 4"; fails=$((fails + 1)); }
prog_checks() { # the per-side tables and the difference in $T/out
	local side
	for side in command_kbuild kbuild-b; do
		grep -q "^$1$side: the program, per metric" "$T/out" ||
			{ echo "FAIL: $2: no table of $side"; fails=$((fails + 1)); }
	done
	grep -q "Host: Linux 6.19.0-test" "$T/out" || { echo "FAIL: $2: no host line of B"; fails=$((fails + 1)); }
	grep -q "Difference: kbuild-b - command_kbuild" "$T/out" ||
		{ echo "FAIL: $2: no difference"; fails=$((fails + 1)); }
}
prog_checks "== " text
grep -Eq '^64K +[-+]0\.0 pt +[-+]0\.0 pt +-7\.4 pt\* +[-+]0\.0 pt +[-+]0\.0 pt$' "$T/out" ||
	{ echo "FAIL: text: the difference's 64K row: $(grep '^64K.*pt' "$T/out")"; fails=$((fails + 1)); }
grep -Eq '^64K +\[.*\] +\[-9\.1, -5\.7\]' "$T/out" ||
	{ echo "FAIL: text: the difference's CI at 64K"; fails=$((fails + 1)); }
grep -q "^16K .* -27.2%\* " "$T/out" || { echo "FAIL: text: B's own sys change at 16K"; fails=$((fails + 1)); }
# two programs' files: a warning names both commands; one script from
# another checkout (another path) is the same program
jq '.config.workload.argv[0] = "/usr/local/bin/make"' "$kb" >"$T/kb-path.json"
jq '.config.workload.argv = ["/usr/bin/sort", "-n", "big.txt"]' "$kb" >"$T/kb-sort.json"
expect 0 "the command differs: command_kbuild ran '.*', kb-sort ran '/usr/bin/sort -n big.txt'" -- \
	"$B" compare "$kb" "$T/kb-sort.json"
expect 0 "" -- "$B" compare "$kb" "$T/kb-path.json"
grep -q "the command differs" "$T/err" && { echo "FAIL: one script at two paths: the command differs"; fails=$((fails + 1)); }
# --metric takes analyze's words (sys: sys_ns); it was "in none of the files"
expect 0 "" -- "$B" compare "$kb" "$T/kbuild-b.json" -m sys
grep -Eq '^sys_ns +4 +0 .* -10\.00%' "$T/out" && ! grep -Eq '^(wall|user)_ns ' "$T/out" ||
	{ echo "FAIL: compare -m sys: not the sys_ns rows alone"; fails=$((fails + 1)); }
expect 0 "" -- "$B" compare "$kb" "$T/kbuild-b.json" --format markdown
prog_checks "## " markdown
grep -q '^| 64K | .* | -7.4 pt\* \[-9.1, -5.7\] |' "$T/out" ||
	{ echo "FAIL: markdown: the difference's 64K cell"; fails=$((fails + 1)); }
expect 0 "" -- "$B" compare "$kb" "$T/kbuild-b.json" --format lkml
prog_checks "== " lkml
expect 0 "" -- "$B" compare "$kb" "$T/kbuild-b.json" --format json
grep -q "the program, per metric" "$T/out" && { echo "FAIL: json: a table in the document"; fails=$((fails + 1)); }
jq -e '.schema == "mthpscope.compare/1"' "$T/out" >/dev/null || { echo "FAIL: json: not a document"; fails=$((fails + 1)); }
# the JSON carries each side's table as analyze's "program" object: sys at
# 64K (order 4) of each side, the side's name
jq -e '[.programs[] | .side] == ["command_kbuild", "kbuild-b"] and
       (.programs[0].program.coverage_scope == "lifetime") and
       (.programs[0].program.largest_gain.metric == "sys_ns") and
       ([.programs[] | .program.orders | length] | unique == [5])' "$T/out" >/dev/null ||
	{ echo "FAIL: json: no per-side program tables: $(jq -c '.programs' "$T/out" | head -c 300)"; fails=$((fails + 1)); }
# access patterns: no program tables
expect 0 "" -- "$B" compare "$base" "$D/compare-slow20.json"
grep -q "the program, per metric\|^Difference:" "$T/out" && { echo "FAIL: a program table for access patterns"; fails=$((fails + 1)); }
expect 0 "" -- "$B" compare "$base" "$D/compare-slow20.json" --format json
jq -e 'has("programs") | not' "$T/out" >/dev/null || { echo "FAIL: json: programs for access patterns"; fails=$((fails + 1)); }

[ "$fails" -eq 0 ] && echo "all compare CLI checks passed"
exit $((fails > 0))
