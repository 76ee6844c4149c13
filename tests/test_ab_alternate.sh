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

[ "$(id -u)" -eq 0 ] || { echo "SKIP: runs need root (THP knobs)"; exit 77; }
[ -e /sys/kernel/mm/transparent_hugepage/enabled ] || { echo "SKIP: no THP here"; exit 77; }
# the smallest anonymous folio order this kernel offers, as `info` reads it
# (per-size mTHP from 6.8, else the PMD order alone)
o=$("$bin" info --format json 2>/dev/null | jq -r '.thp.anon_orders | min // empty')
[ -n "$o" ] || { echo "SKIP: info names no anonymous folio order above 0 here"; exit 77; }
ab -n 2 --pause 0 -o "$tmp/ab" -- --quick --orders 0,$o -- --quick --orders 0,$o >"$tmp/out" 2>"$tmp/e"
rc=$?
if [ $rc -eq 3 ]; then echo "SKIP: run cannot measure here: $(head -1 "$tmp/ab/a1.txt")"; exit 77; fi
[ $rc -eq 0 ] || err "ab-alternate exited $rc: $(cat "$tmp/e")"
for f in a1 b1 a2 b2; do [ -s "$tmp/ab/$f.json" ] || err "$f.json missing"; done
order=$(awk '/ start /{printf "%s ", $1}' "$tmp/ab/log")
[ "$order" = "a1 b1 a2 b2 " ] || err "runs not in turn: $order"
head -1 "$tmp/ab/compare.txt" | grep -q "b1,b2 (.*; 2 runs) against the baseline a1,a2 (.*; 2 runs)" ||
	err "compare head: $(head -1 "$tmp/ab/compare.txt")"
cmp -s "$tmp/out" "$tmp/ab/compare.txt" || err "stdout is not compare.txt"
[ $fail = 0 ] && echo "PASS: ab-alternate ran a1 b1 a2 b2 and compared two runs a side"
exit $fail
