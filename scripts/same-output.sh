#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Byte-identity check of two mthpscope binaries over the results fixtures:
# analyze (text, markdown, json), plot (.gp, .dat, .png), compare (4
# formats), every --help, events. tool.version and the version string are
# masked. Prints IDENTICAL (exit 0) or the diff (exit 1).
#   usage: scripts/same-output.sh OLD_BINARY NEW_BINARY [FIXTURE_DIR]
#   (FIXTURE_DIR defaults to tests/data of this checkout)
set -u
if [ $# -lt 2 ] || [ ! -x "$1" ] || [ ! -x "$2" ]; then
	echo "usage: $0 OLD_BINARY NEW_BINARY [FIXTURE_DIR]" >&2
	exit 2
fi
A=$(realpath "$1"); B=$(realpath "$2")
D=$(realpath "${3:-$(dirname "$0")/../tests/data}"); out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for bin in A B; do cd /tmp;
  b=${!bin}; o=$out/$bin; mkdir -p $o
  for f in $D/*.json; do n=$(basename $f .json)
    for fmt in text markdown json; do $b analyze $f --format $fmt >$o/$n.an.$fmt 2>&1; echo "rc=$?" >>$o/$n.an.$fmt; done
    mkdir -p $o/plot-$n; $b plot $f -o $o/plot-$n >$o/$n.plot.out 2>&1; echo "rc=$?" >>$o/$n.plot.out
  done
  fs=($D/*.json)
  for fmt in text markdown json lkml; do $b compare ${fs[0]} ${fs[1]} --format $fmt >$o/cmp.$fmt 2>&1; echo "rc=$?">>$o/cmp.$fmt; done
  for c in info run scan record collapse analyze plot compare restore events; do $b $c --help >$o/help.$c 2>&1; done
  $b --help >$o/help.main 2>&1
  $b events --pmu list > $o/events.list 2>&1; $b events --pmu icl --json > $o/events.icl 2>&1
done
sed -i 's/"version": "[^"]*"/"version": "X"/' $out/*/*.json $out/*/*.an.json $out/*/cmp.json 2>/dev/null
find $out -type f | xargs sed -i 's/0\.1\.0+git\.[0-9a-f]*\(-dirty\)\?/VER/g'
find $out -type f ! -name "*.png" | xargs sed -i "s@$out/[AB]@OUT@g"
if diff -r "$out/A" "$out/B"; then echo IDENTICAL; else exit 1; fi
