#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# compare on collapse documents: 6.12.118 against 7.3.4 (tests/data, recorded
# in guests; fill 50 %, orders 2-9): at max_ptes_none 0 the 7.3.4 column holds
# orders 2-7 and the 6.12 column only order 0; at 511 both order 9; text,
# markdown, lkml and json (mthpscope.compare-collapse/1); a config that differs
# is a warning; a results file among collapse documents, --metric, and a
# damaged document are refused.
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
[ ! -s "$work/text.err" ] && ok "same config: no warning" || bad "unexpected warning: $(cat "$work/text.err")"

# another fill: compared, with a warning naming the difference
python3 -c "
import json,sys
j=json.load(open('$b')); j['config']['fill']=0.75
json.dump(j,open('$work/fill75.json','w'))"
"$bin" compare "$a" "$work/fill75.json" >/dev/null 2>"$work/w.err" && grep -q "fill 75%.*(baseline: .*fill 50%" "$work/w.err" &&
	ok "config difference warned" || { bad "config warning"; cat "$work/w.err"; }

rc=0; "$bin" compare "$a" "$d/compare-base.json" >"$work/o" 2>"$work/e" || rc=$?
[ $rc = 1 ] && grep -q "is not a collapse document" "$work/e" && [ ! -s "$work/o" ] && ok "results file among collapse documents: 1" || bad "mixed kinds: exit $rc"
rc=0; "$bin" compare --metric walks "$a" "$b" >"$work/o" 2>"$work/e" || rc=$?
[ $rc = 2 ] && grep -q "are for results files, not collapse documents" "$work/e" && ok "--metric: 2" || bad "--metric: exit $rc"
head -c 3000 "$b" >"$work/cut.json"
rc=0; "$bin" compare "$a" "$work/cut.json" >"$work/o" 2>"$work/e" || rc=$?
[ $rc = 1 ] && grep -q "cut.json: line" "$work/e" && [ ! -s "$work/o" ] && ok "truncated document: 1" || bad "truncated: exit $rc $(cat "$work/e")"
exit $fail
