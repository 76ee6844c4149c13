#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# scripts/ab-alternate.sh: two short runs a side, really run, in turn
# (a1 b1 a2 b2), then compare with the two lists; its usage errors.
set -u
export LC_ALL=C
bin=${MTHPSCOPE_BIN:?} src=${MTHPSCOPE_SRC:?}
command -v jq >/dev/null || { echo "SKIP: jq is not installed"; exit 77; }
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
fail=0
err() { echo "FAIL: $*"; fail=1; }
ab() { MTHPSCOPE_BIN=$bin bash "$src/scripts/ab-alternate.sh" "$@"; }

# usage errors: status 2, nothing run
ab -n 1 -- -- >/dev/null 2>"$tmp/e"; [ $? -eq 2 ] && grep -q "2 or more" "$tmp/e" || err "-n 1 not refused"
ab -o "$tmp/x" -- --quick -o y.json -- --quick >/dev/null 2>"$tmp/e"
[ $? -eq 2 ] && grep -q "must not hold -o" "$tmp/e" || err "-o in the runs' options not refused"
ab -- --quick >/dev/null 2>"$tmp/e"; [ $? -eq 2 ] && grep -q "then --, then B" "$tmp/e" || err "one side only not refused"
[ -e "$tmp/x" ] && err "a usage error made the output directory"
# issue 40 items 5 and 7: checked before the first run. A DIR with a comma
# (compare would split the run lists there, after all four runs) and options
# run refuses (quoted by run's error, not its usage's last line)
ab -o "$tmp/a,b" -- --quick -- --quick >/dev/null 2>"$tmp/e"
[ $? -eq 2 ] && grep -q "a directory without a comma" "$tmp/e" || err "-o with a comma: $(cat "$tmp/e")"
[ -e "$tmp/a,b" ] && err "-o with a comma: the directory was made"
ab -o "$tmp/x" -- --quick -- --orders 0,x >/dev/null 2>"$tmp/e"
[ $? -eq 2 ] && grep -q "B's options: mthpscope: invalid --orders value '0,x'" "$tmp/e" ||
	err "B's bad options not refused up front with run's error: $(cat "$tmp/e")"
[ -e "$tmp/x" ] && err "bad options: the output directory was made"
# a run, and compare, that fail: their error line quoted, never a warning or
# the usage's last line; compare's status is the script's (a fake mthpscope)
mkdir "$tmp/fake"
cat >"$tmp/fake/mthpscope" <<'EOT'
#!/bin/sh
case "$1 $*" in
*--help*) exit 0 ;;
run*) if [ "${FAKE:-}" = run ]; then
	echo "mthpscope: warning: the host is busy"; echo "mthpscope: run: span above half of MemAvailable"
	echo; echo "Usage: mthpscope run [OPTIONS]"; echo "saved in \$TMPDIR instead."; exit 3; fi
	while [ $# -gt 1 ]; do [ "$1" = -o ] && echo '{}' >"$2"; shift; done; exit 0 ;;
compare*) echo "mthpscope: warning: CPU model differs" >&2
	echo "mthpscope: compare: a1.json: not a results document" >&2; exit 1 ;;
esac
EOT
chmod +x "$tmp/fake/mthpscope"
FAKE=run MTHPSCOPE_BIN=$tmp/fake/mthpscope bash "$src/scripts/ab-alternate.sh" -n 2 --pause 0 \
	-o "$tmp/f1" -- -- >/dev/null 2>"$tmp/e"
[ $? -eq 3 ] && grep -q "run a1 failed (3): mthpscope: run: span above half of MemAvailable" "$tmp/e" ||
	err "a failing run: not its error line: $(cat "$tmp/e")"
MTHPSCOPE_BIN=$tmp/fake/mthpscope bash "$src/scripts/ab-alternate.sh" -n 2 --pause 0 \
	-o "$tmp/f2" -- -- >/dev/null 2>"$tmp/e"
[ $? -eq 1 ] && grep -q "compare failed (1): mthpscope: compare: a1.json: not a results document" "$tmp/e" ||
	err "a failing compare: not exit 1 with its error line: $(cat "$tmp/e")"

[ "$(id -u)" -eq 0 ] || { echo "SKIP: runs need root (THP knobs)"; exit $((fail ? 1 : 77)); }
[ -e /sys/kernel/mm/transparent_hugepage/enabled ] || { echo "SKIP: no THP here"; exit $((fail ? 1 : 77)); }
# the smallest anonymous folio order this kernel offers, as `info` reads it
# (per-size mTHP from 6.8, else the PMD order alone)
o=$("$bin" info --format json 2>/dev/null | jq -r '.thp.anon_orders | min // empty')
[ -n "$o" ] || { echo "SKIP: info names no anonymous folio order above 0 here"; exit $((fail ? 1 : 77)); }
ab -n 2 --pause 0 -o "$tmp/ab" -- --quick --orders 0,$o -- --quick --orders 0,$o >"$tmp/out" 2>"$tmp/e"
rc=$?
# (a skip never hides a failure of the checks above)
if [ $rc -eq 3 ]; then echo "SKIP: run cannot measure here: $(grep -vm1 ': note: \|: warning: ' "$tmp/ab/a1.txt")"; [ $fail = 1 ] || exit 77; exit 1; fi
[ $rc -eq 0 ] || err "ab-alternate exited $rc: $(cat "$tmp/e")"
for f in a1 b1 a2 b2; do [ -s "$tmp/ab/$f.json" ] || err "$f.json missing"; done
order=$(awk '/ start /{printf "%s ", $1}' "$tmp/ab/log")
[ "$order" = "a1 b1 a2 b2 " ] || err "runs not in turn: $order"
head -1 "$tmp/ab/compare.txt" | grep -q "b1,b2 (.*; 2 runs) against the baseline a1,a2 (.*; 2 runs)" ||
	err "compare head: $(head -1 "$tmp/ab/compare.txt")"
cmp -s "$tmp/out" "$tmp/ab/compare.txt" || err "stdout is not compare.txt"
[ $fail = 0 ] && echo "PASS: ab-alternate ran a1 b1 a2 b2 and compared two runs a side"
exit $fail
