#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# scripts/verdict-stability.sh with a stand-in for `run` (copies hand-made
# results files, fails on request) and the real `analyze`: the summary, and
# clear failures for a bad N, a missing binary, a failing run.
set -u
bin=${MTHPSCOPE_BIN:?} src=${MTHPSCOPE_SRC:?}
script=$src/scripts/verdict-stability.sh
command -v jq >/dev/null || { echo "SKIP: jq is not installed"; exit 77; }
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
fail=0
err() { echo "FAIL: $*"; fail=1; }

# the stand-in: run i copies the i-th file of $FAKE_FILES; "fail" exits 1
cat >"$tmp/fake" <<EOT
#!/usr/bin/env bash
if [ "\$1" = run ]; then
	shift
	while [ \$# -gt 0 ]; do [ "\$1" = -o ] && out=\$2; shift; done
	n=\$(cat "$tmp/count" 2>/dev/null || echo 0); n=\$((n + 1)); echo \$n >"$tmp/count"
	set -- \$FAKE_FILES; f=\${!n}
	[ "\$f" = fail ] && { echo "run: trial 3 failed: out of memory" >&2; exit 1; }
	[ "\$f" = usage ] && { echo "run: invalid --reps 'x'" >&2; exit 2; }
	case \$f in /*) cp "\$f" "\$out" ;; *) cp "$src/tests/data/\$f.json" "\$out" ;; esac
else
	exec "$bin" "\$@"
fi
EOT
chmod +x "$tmp/fake"
export MTHPSCOPE=$tmp/fake

# three runs: two verdicts, the summary counts them
rm -f "$tmp/count"
out=$(FAKE_FILES="knee2 load_step pmd_only" "$script" 3 --quick 2>&1)
rc=$?
[ $rc -eq 0 ] || err "3 good runs: exit $rc: $out"
grep -q "^1 *mthp 2  *[0-9.]* (order [0-9])  *[0-9.]*  *unpaired" <<<"$out" || err "run 1 line: $out"
grep -q "^2 *mthp 2 .*paired" <<<"$out" || err "run 2 line (paired): $out"
grep -q "^3 *pmd-only 9" <<<"$out" || err "run 3 line: $out"
grep -q "most common: mthp 2 in 2 of 3 runs (66 %)" <<<"$out" || err "summary: $out"
# the widest gain CI of each run: the larger half-width of the widest order's
# CI, from the analysis itself (load_step: paired, order 3's)
want=$("$bin" analyze "$src/tests/data/load_step.json" --format json |
	jq -r '[.orders[] | select(.order != 0) | ([.ci[1] - .gain, .gain - .ci[0]] | max * 100)] | max * 10 | round / 10')
grep -q "^2 *mthp 2  *$want (order [0-9])  *[0-9.]*  *paired" <<<"$out" || err "run 2 width, want $want: $out"
grep -q "^widest gain CI: +/-[0-9.]* / [0-9.]* / [0-9.]* points of order 0 (min/median/max); at most 5 in 3, at most 3 in [0-3] of 3 runs" <<<"$out" ||
	err "width summary: $out"

# no gain CI at all (one rep of one round): every column stays in place (the
# empty order field used to vanish in read, shifting order 0's and the method)
jq '.trials |= map(select(.rep == 0) | .rounds |= .[0:1])' "$src/tests/data/load_step.json" >"$tmp/pair1.json"
rm -f "$tmp/count"
out=$(FAKE_FILES="$tmp/pair1.json" "$script" 1 2>&1)
grep -q "^1 *inconclusive  *-  *[0-9.-]*  *paired$" <<<"$out" || err "no gain CI: $out"

# a failing run is reported, the rest summarised, exit 1
rm -f "$tmp/count"
out=$(FAKE_FILES="knee2 fail knee2" "$script" 3 2>&1)
rc=$?
[ $rc -eq 1 ] || err "a failed run: exit $rc, want 1"
grep -q "^2 *run failed (exit 1): run: trial 3 failed: out of memory" <<<"$out" || err "failed run line: $out"
grep -q "most common: mthp 2 in 2 of 2 runs (100 %); 1 of 3 runs failed" <<<"$out" || err "summary with a failure: $out"

# run refuses its options: stop at once with its status
rm -f "$tmp/count"
FAKE_FILES="usage knee2" "$script" 2 --reps x >"$tmp/out" 2>&1
rc=$?
[ $rc -eq 2 ] || err "run usage error: exit $rc, want 2"
grep -q "stopping" "$tmp/out" || err "run usage error: no word on stopping: $(cat "$tmp/out")"

# bad N, -o, missing binary
for n in "" 0 -3 x 2x 1001 18446744073709551617; do
	"$script" "$n" >/dev/null 2>"$tmp/err"
	rc=$?
	[ $rc -eq 2 ] || err "N='$n': exit $rc, want 2"
	grep -q "usage: scripts/verdict-stability.sh N" "$tmp/err" || err "N='$n': no usage line"
done
"$script" >/dev/null 2>&1; [ $? -eq 2 ] || err "no N: want exit 2"
"$script" 2 -o x.json >/dev/null 2>"$tmp/err"; rc=$?
[ $rc -eq 2 ] && grep -q "do not pass -o" "$tmp/err" || err "-o: exit $rc $(cat "$tmp/err")"
MTHPSCOPE=$tmp/nonexistent "$script" 2 >/dev/null 2>"$tmp/err"; rc=$?
[ $rc -eq 3 ] && grep -q "no mthpscope binary at '$tmp/nonexistent'" "$tmp/err" ||
	err "missing binary: exit $rc $(cat "$tmp/err")"
"$script" --help | grep -q "scripts/verdict-stability.sh N \[run options\]" || err "--help"
exit $fail
