#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# mthpscope analyze end to end: verdicts from hand-made files in every
# format, and bad files refused with exit 1 and a message naming the problem.
set -u
bin=${MTHPSCOPE_BIN:?} data=${MTHPSCOPE_SRC:?}/tests/data
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
fail=0
err() { echo "FAIL: $*"; fail=1; }

# file -> "verdict min_order" from the JSON document
for row in "knee2 mthp 2" "knee4 mthp 4" "knee4_timing mthp 4" "pmd_only pmd-only 9" \
	   "flat no-gain null" "noisy inconclusive null" "load_step mthp 2" "dip mthp 2" \
	   "sweep_knee2 pmd-only 9"; do
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

# issue 12: which method, the monotone warning, the verdict per span
if command -v jq >/dev/null; then
	out=$("$bin" analyze "$data/load_step.json" --format json)
	[ "$(jq -r '[.method, .test, .recommendation.min_order] | join(" ")' <<<"$out")" = \
	  "paired wilcoxon-signed-rank 2" ] || err "load_step: not paired / min_order 2"
	[ "$(jq '.orders[] | select(.order == 2) | .n_pairs' <<<"$out")" = 240 ] ||
		err "load_step: order 2 does not pair 8 reps x 30 rounds"
	out=$("$bin" analyze --unpaired "$data/load_step.json" --format json)
	[ "$(jq -r '[.method, .test, .recommendation.verdict] | join(" ")' <<<"$out")" = \
	  "unpaired mann-whitney inconclusive" ] ||
		err "load_step --unpaired: the load step should defeat the unpaired path"
	out=$("$bin" analyze "$data/dip.json" --format json)
	jq -e '.monotone.applied and (.monotone.violations | index(5)) and
	       (.monotone.warning | test("violate monotonicity")) and
	       (.orders[] | select(.order == 5) | .monotone_violation)' >/dev/null <<<"$out" ||
		err "dip: the non-monotone dip is not reported in JSON"
	out=$("$bin" analyze "$data/sweep_knee2.json" --format json)
	[ "$(jq -c '[.spans[] | [.span, .verdict, .min_order]]' <<<"$out")" = \
	  '[[16777216,"mthp",2],[33554432,"mthp",2],[134217728,"pmd-only",9]]' ] ||
		err "sweep_knee2: per-span verdicts: $(jq -c '[.spans[] | [.span, .verdict, .min_order]]' <<<"$out")"
	jq -e '.spans[0].orders | length == 9' >/dev/null <<<"$out" || err "sweep_knee2: spans[].orders lost"
	jq -e '.recommendation.span_summary == "Order 2 pays for working sets up to about 32 MiB on this CPU; beyond that only PMD-size folios help."' \
		>/dev/null <<<"$out" || err "sweep_knee2: span_summary: $(jq .recommendation.span_summary <<<"$out")"
	out=$("$bin" analyze "$data/knee2.json" --format json)
	[ "$(jq -r '.method' <<<"$out")" = unpaired ] || err "knee2: an old file must be unpaired"
	# an order none of whose rounds pairs (order 0 of its reps left out, or
	# order 0's rounds all 0): no gain, said so, not "saves n/a ... p = nan"
	jq '.trials |= map(if (.order == 0 and .rep < 4) or (.order == 2 and .rep >= 4)
			   then .folios.coverage = 0.5 else . end)' "$data/load_step.json" >"$tmp/nopair.json"
	jq '.trials |= map(if .order == 0 then .rounds |= map(0) else . end)' \
		"$data/load_step.json" >"$tmp/zero0.json"
	for f in nopair zero0; do
		out=$("$bin" analyze "$tmp/$f.json" --format json) || err "$f: exit $?"
		jq -e '(.orders[] | select(.order == 2) | .n_pairs == 0 and .gain == null) and
		       (.recommendation.reason | test("order 2 has no gain \\(none of its rounds pairs")) and
		       (.recommendation.reason | test("n/a|nan|spans the") | not)' >/dev/null <<<"$out" ||
			err "$f: reason: $(jq .recommendation.reason <<<"$out")"
	done
	jq -e '.recommendation.reason | startswith("No verdict: order 2 has no gain")' >/dev/null <<<"$out" ||
		err "zero0: reason: $(jq .recommendation.reason <<<"$out")"
	# few reps and rounds, huge times: analysed (exit 0), no crash
	jq '.trials |= map(select(.rep == 0))' "$data/load_step.json" >"$tmp/rep1.json"
	jq '.trials |= map(.rounds |= .[0:1])' "$data/load_step.json" >"$tmp/round1.json"
	jq '.trials |= map(select(.rep == 0) | .rounds |= .[0:1])' "$data/load_step.json" >"$tmp/pair1.json"
	jq '.trials |= map(.rounds |= map(1e308))' "$data/load_step.json" >"$tmp/big.json"
	for f in rep1 round1 pair1 big; do
		"$bin" analyze "$tmp/$f.json" >/dev/null 2>"$tmp/err" || err "$f: exit $?: $(cat "$tmp/err")"
	done
	# one rep of one round: one pair, no interval (it was [+6.8, +6.8])
	out=$("$bin" analyze "$tmp/pair1.json" --format json)
	jq -e '(.orders[] | select(.order == 2) | .n_pairs == 1 and .ci == null and .gain > 0) and
	       (.recommendation.reason | startswith("Too few values to tell: order 2") and
	        endswith("too few values for an interval."))' >/dev/null <<<"$out" ||
		err "pair1: $(jq -c '[(.orders[] | select(.order == 2) | .ci), .recommendation.reason]' <<<"$out")"
fi
"$bin" analyze "$data/dip.json" | grep -q "^Warning: The raw gains violate monotonicity" ||
	err "dip: text report lacks the warning"
"$bin" analyze "$data/dip.json" --format markdown | grep -q "^\*\*Warning:\*\* The raw gains" ||
	err "dip: markdown report lacks the warning"
"$bin" analyze "$data/sweep_knee2.json" | grep -q "^Order 2 pays for working sets up to about 32 MiB" ||
	err "sweep_knee2: text report lacks the per-span sentence"
"$bin" analyze "$data/sweep_knee2.json" --format md | grep -q "^| 128 MiB | pmd-only | 9 |" ||
	err "sweep_knee2: markdown per-span table"
"$bin" analyze "$data/load_step.json" | grep -q "^method:  paired by round" ||
	err "load_step: text report does not say the method"

# bad input: exit 1, the message names the problem
truncate -s 65M "$tmp/huge.json"
# a run without order 0 (--orders 2-9), and one whose order-0 trials all
# fell under 95 % folio coverage: different causes, different advice
python3 - "$data/knee4_timing.json" "$tmp" <<'EOT'
import json, sys
d = json.load(open(sys.argv[1]))
trials = d["trials"]
d["trials"] = [t for t in trials if t["order"] != 0]
d["config"]["orders"] = [o for o in d["config"]["orders"] if o != 0]
json.dump(d, open(sys.argv[2] + "/no_order0.json", "w"))
d["trials"] = trials
for t in trials:
    if t["order"] == 0:
        t["folios"]["coverage"] = 0.5
json.dump(d, open(sys.argv[2] + "/order0_excluded.json", "w"))
EOT
for row in "bad/truncated.json|truncated JSON" \
	   "bad/wrong_schema.json|version 'mthpscope.results/2' is not supported" \
	   "bad/missing_field.json|$.trials[5].span: missing" \
	   "bad/no_trials.json|no trials" \
	   "bad/nan.json|NaN or infinity at line" \
	   "bad/only_order0.json|only order 0" \
	   "$tmp/huge.json|MiB limit" \
	   "$tmp/no_order0.json|no order-0 trials of pattern 'chase-tlb': every gain is relative to order 0, so run again with 0 in --orders" \
	   "$tmp/order0_excluded.json|no usable order-0 trials of pattern 'chase-tlb': all 24 were excluded (folio coverage 50.0 % < 95 %)" \
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
"$bin" analyze "$data/knee4_timing.json" --span 48M >/dev/null 2>"$tmp/err"; [ $? -eq 1 ] || err "--span 48M: not exit 1"
grep -qF "no trials of pattern 'chase-tlb' at span 50331648 (48 MiB); the file has 16 MiB, 64 MiB, 256 MiB, 1024 MiB" "$tmp/err" ||
	err "--span 48M: $(cat "$tmp/err")"

# steal time (src/measure/steal.c): a VM whose hypervisor reports none says
# that CPU time includes the host's share; one that counts it says how many
# rounds it left out; a file without the field (older) says neither
python3 - "$data/load_step.json" "$tmp" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["host"]["virtualized"] = True
d["host"]["steal_time_reported"] = False
json.dump(d, open(sys.argv[2] + "/nosteal.json", "w"))
d["host"]["steal_time_reported"] = True
for t in d["trials"]:
    if t.get("rounds"):
        t["metrics"]["disturbed_rounds"] = {"value": 1, "source": "kernel"}
        t["metrics"]["steal_ns"] = {"value": 3e7, "source": "kernel"}
json.dump(d, open(sys.argv[2] + "/steal.json", "w"))
PY
"$bin" analyze "$tmp/nosteal.json" --format json | grep -q "reports no steal time (/proc/stat): the thread CPU time includes" ||
	err "no-steal VM: no note"
"$bin" analyze "$tmp/steal.json" --format json | grep -q "Steal time: [0-9]* of [0-9]* rounds lost more than 10 %" ||
	err "steal counted: no note"
"$bin" analyze "$data/load_step.json" --format json | grep -qi "steal" && err "a file without steal fields talks of steal"

# issue 42: a program measured whole. A kernel build's 85-92 % coverage at
# orders 2-9 (flagged low_coverage by older runs) is analysed, not "only
# order 0 has usable trials"; a trial whose order did not take (2 %) is left
# out with the reason; the table per metric names sys time's fall
kb=$data/command_kbuild.json
out=$("$bin" analyze "$kb" --format lkml 2>&1) || err "kbuild: analyze --format lkml exit $?: $out"
grep -q "^Workload: make -j2 O=/tmp/kbuild tinyconfig bzImage" <<<"$out" || err "kbuild lkml: no workload line"
grep -q "^Host: Linux 6.18.0-test, x86_64, .*3 runs per size" <<<"$out" || err "kbuild lkml: no host line"
grep -Eq "^size +real +user +sys +faults +peak memory +coverage" <<<"$out" || err "kbuild lkml: no header"
for row in "16K -19.2" "32K -23.3" "64K -25.8" "2M -24.8"; do
	set -- $row
	grep -Eq "^$1 +[-+][0-9.]+% +[-+][0-9.]+%\*? +$2%\* " <<<"$out" || err "kbuild lkml: no sys $2 % row at $1"
done
grep -q "^Largest material gain: sys -25.8 % at 64K (sys_ns)" <<<"$out" || err "kbuild lkml: largest gain not named"
grep -q "mthpscope analysis of" <<<"$out" && err "kbuild lkml: the verdict's report is not the table"
out=$("$bin" analyze "$kb" --format text) || err "kbuild text: exit $?"
grep -q "^The program, per metric:" <<<"$out" || err "kbuild text: no program table"
grep -q "trial 15 (order 3, .*rep 3): folio coverage 2.0 % < 10 %: order 3 was not in effect" <<<"$out" ||
	err "kbuild: the near-zero trial is not left out with its reason"
grep -q "^| 64K | .* | -25.8%\* \[" <("$bin" analyze "$kb" --format markdown) ||
	err "kbuild markdown: no sys cell with its CI"
if command -v jq >/dev/null; then
	out=$("$bin" analyze "$kb" --format json)
	jq -e '.trials_excluded == 1 and .program.coverage_scope == "lifetime" and
	       .program.largest_gain.metric == "sys_ns" and
	       ([.program.orders[] | .n] == [3, 3, 3, 3, 3]) and
	       (.program.orders[] | select(.order == 2) | .metrics.sys_ns.ci[1] < 0)' \
		>/dev/null <<<"$out" || err "kbuild json: program object"
	# the scans missed it, but the kernel allocated the order's folios for
	# most of its memory (anon_fault_alloc x 32K >= half the peak RSS): kept
	jq '.trials[15].metrics.anon_fault_alloc = {"value": 12800, "source": "kernel"}' \
		"$kb" >"$tmp/alloc.json"
	"$bin" analyze "$tmp/alloc.json" --format json | jq -e '.trials_excluded == 0' >/dev/null ||
		err "a trial whose order the kernel's count shows in effect is left out"
	# a size whose every trial failed is no row: said under the table
	jq '(.trials[] | select(.order == 3)) |= (.exit = {"code": 2} | .flags = ["failed"])' \
		"$kb" >"$tmp/fail32k.json"
	for fmt in lkml markdown text; do
		out=$("$bin" analyze "$tmp/fail32k.json" --format $fmt)
		grep -q "^Not in the table, every trial left out: 32K (the command failed)\.$" \
			<<<"$out" || err "$fmt: a size whose trials all failed is dropped unsaid"
	done
	"$bin" analyze "$kb" --format lkml | grep -q "^Not in the table" &&
		err "lkml: 'Not in the table' with every size in it"
	# an emulated CPU (a TCG guest): no time column, said; faults remain
	jq '.host.emulated = true | .host.emulation = "QEMU TCG"' "$kb" >"$tmp/tcg.json"
	out=$("$bin" analyze "$tmp/tcg.json" --format lkml --metric faults)
	grep -Eq "^size +faults +peak memory +coverage$" <<<"$out" || err "emulated lkml: time columns"
	grep -q "(emulated CPU, QEMU TCG); THP" <<<"$out" || err "emulated lkml: host line"
	"$bin" analyze "$tmp/tcg.json" --metric faults | grep -q "^host: .* (emulated CPU, QEMU TCG)$" ||
		err "emulated text: the host line does not say emulated"
	grep -q "^\* where the 95 % bootstrap CI excludes 0. Emulated CPU (QEMU TCG): real, user$" \
		<<<"$out" || err "emulated lkml: the legend does not say the times are left out"
	grep -q "^Largest material gain: none named: an emulated CPU's times are not results" <<<"$out" ||
		err "emulated lkml: largest gain"
	grep -q "^| 64K | -51.3%\* \[" <("$bin" analyze "$tmp/tcg.json" --format markdown) ||
		err "emulated markdown: faults first"
	"$bin" analyze "$tmp/tcg.json" --format json | jq -e '.program.timing == "left out: emulated CPU"
		and ([.program.columns[].metric] == ["page_faults", "max_rss_bytes"])' >/dev/null ||
		err "emulated json: program.timing or columns"
	# one rep: "1 run per size", not "1 runs"
	jq '.config.reps = 1' "$kb" >"$tmp/one.json"
	"$bin" analyze "$tmp/one.json" --format lkml | grep -q "; 1 run per size$" ||
		err "kbuild lkml: not '1 run per size'"
	# far below the other trials of its order: left out; 0.85 vs 0.9 kept
	jq '.trials[1].folios.coverage = 0.3' "$kb" >"$tmp/far.json"
	"$bin" analyze "$tmp/far.json" | grep -q "rep 0): folio coverage 30.0 %, under half the" ||
		err "a trial far below its order's others is not left out"
fi

# --metric NAME (issue 42): the verdict's metric; a word of the table or a
# metric name; the metric with the largest material gain named beside it
out=$("$bin" analyze "$kb") || err "kbuild: analyze exit $?"
grep -q "^metric:  wall_ns (timing" <<<"$out" || err "kbuild: the default metric is not wall time"
grep -q "^largest: sys -25.8 % at 64K (sys_ns)$" <<<"$out" || err "kbuild: no 'largest:' line"
for m in sys sys_ns system; do
	out=$("$bin" analyze "$kb" --metric "$m") || err "--metric $m: exit $?"
	grep -q "^metric:  sys_ns (kernel, ns of system CPU per run; lower is better)" <<<"$out" ||
		err "--metric $m: $(grep '^metric:' <<<"$out")"
	# sys falls 19-26 %: the gains the verdict's table shows are sys's
	grep -Eq "^ +4 +64K +3 .* \+25\.8% " <<<"$out" || err "--metric $m: not sys's gain at 64K"
done
# a program is judged by what its user sees: a PMU rate in every trial is
# analysed, but the verdict rests on wall time unless --metric names the rate
if command -v jq >/dev/null; then
	jq '.trials[].metrics.walks_per_cpu_s = {"value": 1000, "source": "pmu"}' \
		"$kb" >"$tmp/pmu.json"
	out=$("$bin" analyze "$tmp/pmu.json") || err "kbuild+pmu: analyze exit $?"
	grep -q "^metric:  wall_ns (timing" <<<"$out" ||
		err "kbuild+pmu: the default is not wall time: $(grep '^metric:' <<<"$out")"
	"$bin" analyze "$tmp/pmu.json" --metric walks_per_cpu_s | grep -q "^metric:  walks_per_cpu_s" ||
		err "kbuild+pmu: --metric walks_per_cpu_s"
fi
out=$("$bin" analyze "$kb" -m real) || err "-m real: exit $?"
grep -q "^metric:  wall_ns" <<<"$out" || err "-m real: not wall_ns"
"$bin" analyze "$kb" --metric peak | grep -q "^metric:  max_rss_bytes" || err "--metric peak"
"$bin" analyze "$kb" --metric sys --format markdown |
	grep -q "^- Largest material gain of the program: sys -25.8 % at 64K (sys_ns)\.$" ||
	err "markdown: no largest gain line"
if command -v jq >/dev/null; then
	"$bin" analyze "$kb" --metric sys --format json |
		jq -e '.primary_metric == "sys_ns" and .primary_metric_source == "kernel" and
		       .program.largest_gain.metric == "sys_ns"' >/dev/null ||
		err "--metric sys json: primary_metric"
fi
# NAME STATUS PATTERN CMD...: CMD's exit status and PATTERN in its stderr
status_says() {
	local name=$1 want=$2 pat=$3 rc
	shift 3
	"$@" >/dev/null 2>"$tmp/err"
	rc=$?
	[ $rc = "$want" ] && grep -q -- "$pat" "$tmp/err" ||
		err "$name: exit $rc (want $want), stderr: $(head -c 300 "$tmp/err")"
}
status_says metric-absent 1 "--metric gather_ns: not in every trial of pattern 'command' (they have: .*sys_ns" \
	"$bin" analyze "$kb" --metric gather_ns
status_says metric-model 1 "--metric tlb_entries_l2: a model's prediction, not a measurement" \
	"$bin" analyze "$kb" --metric tlb_entries_l2
status_says metric-empty 2 "invalid --metric value ''" "$bin" analyze "$kb" --metric ''
# issue 41's documents given to analyze are named as the collapse one is
printf '{"schema": "mthpscope.presence/1", "ranges": []}' >"$tmp/pres.json"
status_says presence-map 1 "is a presence map (from 'scan --presence' or 'run --presence')" \
	"$bin" analyze "$tmp/pres.json"
printf '{"schema": "mthpscope.replay/1"}' >"$tmp/replay.json"
status_says replay-report 1 "is the report of 'collapse --replay --format json'" \
	"$bin" analyze "$tmp/replay.json"
# --span of a command's file (its trials have no span): a usage error; it
# was exit 1, "no trials of pattern 'command' at span ...; the file has 0 MiB"
status_says span-of-command 2 "--span: a command's trials (run -- CMD) have no span" \
	"$bin" analyze "$kb" --span 2M
# a command's --metric missing from one trial: the verdict went over to
# wall time without a word, and --metric ops listed "they have: ..., ops"
if command -v jq >/dev/null; then
	jq '.trials[1].metrics |= del(.ops)' "$data/command_higher.json" >"$tmp/nops.json"
	status_says metric-passed-over 0 "the run's --metric ops is not in every analysed trial: the verdict rests on wall_ns" \
		"$bin" analyze "$tmp/nops.json"
	status_says metric-missing-where 1 "trial 1 (order 2, rep 0) has none" \
		"$bin" analyze "$tmp/nops.json" --metric ops
	"$bin" analyze "$data/command_higher.json" 2>&1 >/dev/null | grep -q "not in every analysed" &&
		err "a --metric in every trial: said to be passed over"
fi
# a run --metric named like a word of the table ('faults', as
# test_run_command's) is the user's: -m faults took page_faults instead
if command -v jq >/dev/null; then
	jq '.trials |= map(.metrics.faults = {"value": (100 - .order), "source": "workload"})' \
		"$kb" >"$tmp/uf.json"
	"$bin" analyze "$tmp/uf.json" -m faults | grep -q "^metric:  faults (workload" ||
		err "-m faults of a file with a --metric 'faults': not the user's metric"
fi
# a micro-benchmark file: any metric of its trials, page_faults here
"$bin" analyze "$data/flat.json" --metric page_faults | grep -q "^metric:  page_faults" ||
	err "flat.json --metric page_faults"
"$bin" analyze "$data/flat.json" | grep -q "^largest:" && err "flat.json: a 'largest:' line for a micro-benchmark"

# usage errors: exit 2
"$bin" analyze >/dev/null 2>&1; [ $? -eq 2 ] || err "no FILE: not exit 2"
"$bin" analyze "$data/flat.json" --format xml >/dev/null 2>&1; [ $? -eq 2 ] || err "--format xml: not exit 2"
"$bin" analyze --help | grep -q -- "--format" || err "--help lacks --format"
exit $fail
