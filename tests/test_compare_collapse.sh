#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# compare on collapse documents: 6.12.118 against 7.3.4 (tests/data, recorded
# in guests; fill 50 %, orders 2-9): at max_ptes_none 0 the 7.3.4 column holds
# orders 2-7 and the 6.12 column only order 0; at 511 both order 9; text,
# markdown, lkml and json (mthpscope.compare-collapse/1); every config field
# that differs is a warning (the workload's make the pair not comparable);
# every max_ptes_none value has its row; a results file among collapse
# documents, --metric, and a damaged document are refused.
set -uo pipefail
src=${MTHPSCOPE_SRC:?run under ctest}
bin=${MTHPSCOPE_BIN:?run under ctest}
d=$src/tests/data
a=$d/collapse-guest-6.12.118-amd64.json
b=$d/collapse-guest-7.3.4-amd64.json
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fail=1; }

for f in text markdown lkml json; do
	"$bin" compare --format "$f" "$a" "$b" >"$work/$f" 2>"$work/$f.err" || bad "$f exit $?"
done
python3 - "$work" <<'PY' && ok "json: orders 2-7 on 7.3.4, none below PMD on 6.12" || fail=1
import json, sys
j = json.load(open(sys.argv[1] + "/json"))
assert j["schema"] == "mthpscope.compare-collapse/1", j["schema"]
assert [i["kernel"] for i in j["inputs"]] == ["6.12.118+deb12-amd64", "7.3.4+deb13-amd64"], j["inputs"]
rows = {r["max_ptes_none"]: r["cells"] for r in j["rows"]}
a0, b0 = rows[0]
assert set(a0["hist"]) == {"0"} and a0["verdict"] == "none", a0
assert sorted(int(k) for k in b0["hist"] if k != "0") == [2, 3, 4, 5, 6, 7], b0["hist"]
assert b0["rss_growth_pct"] == 0 and b0["verdict"] == "mthp", b0
a5, b5 = rows[511]
assert a5["hist"] == {"9": 2048} and b5["hist"] == {"9": 2048}, (a5, b5)
assert a5["verdict"] == "pmd-only" and b5["verdict"] == "pmd-won", (a5, b5)
assert rows[64][1]["verdict"] == "mthp" and rows[256][1] is None, rows[256]
PY
grep -q "^collapse A/B: mode khugepaged, target orders 2-9, fill 50%, span 8 MiB, seed 1, 4096-byte pages$" "$work/text" &&
	grep -Eq "^  order 2 pages +- +64 \(6\.2%\)$" "$work/text" &&
	grep -Eq "^  verdict +none +mthp$" "$work/text" && ok "text" || { bad "text"; cat "$work/text"; }
grep -q "^| order 9 pages | - | - |$" "$work/markdown" &&
	grep -q "^#### max_ptes_none 511$" "$work/markdown" && ok "markdown" || { bad "markdown"; cat "$work/markdown"; }
grep -Eq "^order 5 pages-mpn0 +- +384 \(37\.5%\)$" "$work/lkml" &&
	grep -Eq "^RSS growth-mpn511 +\+100\.0% +\+100\.0%$" "$work/lkml" && ok "lkml" || { bad "lkml"; cat "$work/lkml"; }
# the recorded pair differs in timeout_ms only (6.12.118 5000, 7.3.4 30000;
# every run steady within 0.4 s): one warning, and still comparable
[ "$(wc -l <"$work/text.err")" = 1 ] &&
	grep -q "^mthpscope: warning: collapse-guest-7.3.4-amd64: timeout_ms 30000 (baseline: timeout_ms 5000): a run still changing at the timeout ends there" "$work/text.err" &&
	python3 -c "import json,sys; j=json.load(open(sys.argv[1])); assert j['comparable'] is True and len(j['warnings']) == 1, j['warnings']" "$work/json" &&
	ok "timeout differs: one warning, comparable" || bad "timeout warning: $(cat "$work/text.err")"

# an interrupted sweep (collapse ended by SIGINT after its first values):
# its later values are n/a, and a warning says why
python3 -c "
import json,sys
j=json.load(open('$b')); j['interrupted']=True; j['runs']=j['runs'][:2]
json.dump(j,open('$work/cut.json','w'))"
n=$(python3 -c "import json; print(len(json.load(open('$b'))['config']['max_ptes_none']))")
"$bin" compare --format json "$a" "$work/cut.json" >"$work/cut.out" 2>"$work/cut.err" &&
	grep -q "^mthpscope: warning: cut: its sweep was interrupted after 2 of $n max_ptes_none values: the others are n/a in the table$" "$work/cut.err" &&
	python3 -c "
import json,sys
j=json.load(open(sys.argv[1]))
rows={r['max_ptes_none']: r['cells'] for r in j['rows']}
assert rows[511][1] is None and rows[0][1] is not None, rows
" "$work/cut.out" && ok "interrupted sweep: warned, later values n/a" || { bad "interrupted"; cat "$work/cut.err"; }
"$bin" compare "$a" "$b" 2>&1 >/dev/null | grep -q interrupted && bad "whole sweep called interrupted"

# another fill: compared, with a warning naming the difference
python3 -c "
import json,sys
j=json.load(open('$b')); j['config']['fill']=0.75
json.dump(j,open('$work/fill75.json','w'))"
"$bin" compare "$a" "$work/fill75.json" >/dev/null 2>"$work/w.err" && grep -q "fill 75%.*(baseline: .*fill 50%" "$work/w.err" &&
	ok "config difference warned" || { bad "config warning"; cat "$work/w.err"; }

# every config field is compared: a workload field (fill, enabled_as) makes
# the pair not comparable, a timing knob or --measure warns and says what it
# moves; a fill that is not a whole percent prints its decimals (50.4 % leaves
# 254 empty PTEs per PMD, 50 % 256), a whole one as before
python3 - "$a" "$work" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
def variant(name, **kv):
    v = json.loads(json.dumps(j))
    for path, val in kv.items():
        o = v["config"]
        *head, last = path.split("__")
        for k in head:
            o = o[k]
        o[last] = val
    json.dump(v, open(sys.argv[2] + "/" + name + ".json", "w"))
variant("timing", interval_ms=2000, khugepaged__scan_sleep_millisecs=10000)
variant("pace", khugepaged__pages_to_scan=1, khugepaged__alloc_sleep_millisecs=7, measure=True)
variant("fill504", fill=0.504)
variant("words", enabled_as__5="always")
PY
cc() { # NAME: the json report of $a against $work/NAME.json
	"$bin" compare --format json "$a" "$work/$1.json" 2>/dev/null >"$work/$1.out"
}
cc timing && python3 - "$work/timing.out" <<'PY' && ok "interval, scan_sleep: warned, comparable" || bad "timing knobs"
import json, sys
j = json.load(open(sys.argv[1]))
w = j["warnings"]
assert j["comparable"] is True and len(w) == 2, w
assert w[0].startswith("timing: interval_ms 2000 (baseline: interval_ms 100): the sampling period: time to steady"), w[0]
assert w[1].startswith("timing: khugepaged scan_sleep_millisecs 10000 (baseline: khugepaged scan_sleep_millisecs 10): khugepaged's pace: time to steady is not comparable"), w[1]
PY
cc pace && python3 - "$work/pace.out" <<'PY' && ok "pages_to_scan, alloc_sleep, --measure: warned" || bad "pace knobs"
import json, sys
j = json.load(open(sys.argv[1]))
w = j["warnings"]
assert j["comparable"] is True and len(w) == 3, w
assert "khugepaged pages_to_scan 1 (baseline: khugepaged pages_to_scan 4096)" in w[0], w
assert "khugepaged alloc_sleep_millisecs 7 (baseline: khugepaged alloc_sleep_millisecs 100)" in w[1], w
assert "--measure (baseline: no --measure): measured after each timeline" in w[2], w
PY
cc fill504 && python3 - "$work/fill504.out" <<'PY' && ok "fill 50.4 vs 50: not comparable, visibly different" || bad "fill 50.4"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["comparable"] is False and "fill 50%," in j["config"], (j["comparable"], j["warnings"])
assert j["warnings"] == ["fill504: fill 50.4% (baseline: fill 50%): another count of empty PTEs per PMD, which max_ptes_none is weighed against; not comparable"], j["warnings"]
PY
cc words && python3 - "$work/words.out" <<'PY' && ok "enabled_as differs: not comparable" || bad "enabled_as"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["comparable"] is False, j["warnings"]
assert j["warnings"] == ["words: sizes enabled as madvise 2-4,6-9; always 5 (baseline: sizes enabled as madvise 2-9): khugepaged collapses to a size only as its word allows; not comparable"], j["warnings"]
PY

# every max_ptes_none value gets its row: 32 values a side, none in common, are
# 64 rows (the old table stopped at 32 and showed B as n/a, exit 0, no word);
# a value run twice and a run without samples are warned; more values than
# 8 sweeps of COLLAPSE_DOC_MAX_MPN (32) hold is an error naming the first run
# left out
python3 - "$a" "$work" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
def sweep(name, values, empty=(), empty_runs=()):
    v = json.loads(json.dumps(j))
    v["config"]["max_ptes_none"] = sorted(set(values))[:32]
    v["runs"] = [dict(json.loads(json.dumps(j["runs"][0])), max_ptes_none=x) for x in values]
    for k, r in enumerate(v["runs"]):
        if r["max_ptes_none"] in empty or k in empty_runs:
            r["timeline"] = []
    json.dump(v, open(sys.argv[2] + "/" + name + ".json", "w"))
sweep("low32", range(32))
sweep("high32", range(100, 132))
sweep("twice", [0, 64, 0, 511], empty=[511])
sweep("late", [511, 0, 0], empty_runs=[2])
sweep("early", [511, 0, 0], empty_runs=[1])
sweep("many", range(257))
PY
rc=0; "$bin" compare --format json "$work/low32.json" "$work/high32.json" >"$work/o" 2>"$work/e" || rc=$?
[ $rc = 0 ] && python3 - "$work/o" <<'PY' && ok "64 max_ptes_none values: 64 rows" || bad "64 values: exit $rc $(cat "$work/e")"
import json, sys
j = json.load(open(sys.argv[1]))
rows = {r["max_ptes_none"]: r["cells"] for r in j["rows"]}
assert sorted(rows) == list(range(32)) + list(range(100, 132)), sorted(rows)
assert all(rows[v][0] and rows[v][1] is None for v in range(32)), "A's rows"
assert all(rows[v][0] is None and rows[v][1] for v in range(100, 132)), "B's rows"
assert j["warnings"] == [], j["warnings"]
PY
rc=0; "$bin" compare --format json "$a" "$work/twice.json" >"$work/o" 2>"$work/e" || rc=$?
[ $rc = 0 ] && python3 - "$work/o" <<'PY' && ok "a value run twice, a run without samples: warned" || bad "twice: exit $rc $(cat "$work/e")"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["warnings"] == [
    "twice: max_ptes_none 0 ran more than once (1 repeated run in all): the table shows each value's last run with samples",
    "twice: 1 max_ptes_none value without a run with samples (first: 511): n/a in the table"], j["warnings"]
rows = {r["max_ptes_none"]: r["cells"] for r in j["rows"]}
assert rows[511][1] is None and rows[0][1]["mapped_pages"] == rows[0][0]["mapped_pages"], rows
PY
# a value run twice, one of its runs without samples (before or after the
# other): the table shows the run with samples, and says only that the value
# ran twice (it said "last run" of the first, or "n/a" of a value shown)
for name in late early; do
	rc=0; "$bin" compare --format json "$a" "$work/$name.json" >"$work/o" 2>"$work/e" || rc=$?
	[ $rc = 0 ] && python3 - "$work/o" "$name" <<'PY' && ok "$name: a repeat without samples warned as a repeat only" || bad "$name: exit $rc $(cat "$work/e") $(cat "$work/o" | head -c 600)"
import json, sys
j, name = json.load(open(sys.argv[1])), sys.argv[2]
assert j["warnings"] == [
    name + ": max_ptes_none 0 ran more than once (1 repeated run in all): the table shows each value's last run with samples"], j["warnings"]
rows = {r["max_ptes_none"]: r["cells"] for r in j["rows"]}
assert rows[0][1] and rows[511][1], rows
PY
done
rc=0; "$bin" compare "$work/many.json" "$a" >"$work/o" 2>"$work/e" || rc=$?
[ $rc = 1 ] && [ ! -s "$work/o" ] &&
	grep -q "^mthpscope: compare: many: run 257 of 257 (max_ptes_none 256) is past the 256 max_ptes_none values compare shows (8 documents of a 32-value sweep)$" "$work/e" &&
	ok "257 values: exit 1 naming the run left out" || bad "257 values: exit $rc $(cat "$work/e")"

rc=0; "$bin" compare "$a" "$d/compare-base.json" >"$work/o" 2>"$work/e" || rc=$?
[ $rc = 1 ] && grep -q "is not a collapse document" "$work/e" && [ ! -s "$work/o" ] && ok "results file among collapse documents: 1" || bad "mixed kinds: exit $rc"
rc=0; "$bin" compare --metric walks "$a" "$b" >"$work/o" 2>"$work/e" || rc=$?
[ $rc = 2 ] && grep -q "are for results files, not collapse documents" "$work/e" && ok "--metric: 2" || bad "--metric: exit $rc"
head -c 3000 "$b" >"$work/cut.json"
rc=0; "$bin" compare "$a" "$work/cut.json" >"$work/o" 2>"$work/e" || rc=$?
[ $rc = 1 ] && grep -q "cut.json: truncated JSON: the document ends at line" "$work/e" && [ ! -s "$work/o" ] && ok "truncated document: 1" || bad "truncated: exit $rc $(cat "$work/e")"
exit $fail
