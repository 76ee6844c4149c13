#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Run one libFuzzer target from its kept corpus (tests/fuzz/corpus-NAME, the
# results reader's is tests/fuzz/corpus) with its dictionary when there is
# one. New inputs go to a scratch corpus (OUT/scratch-NAME); copy the
# interesting ones into the kept corpus by hand.
#   tests/fuzz/run.sh NAME RUNS [SECONDS] [OUT]     e.g.  tests/fuzz/run.sh journal 1000000
# NAME: results results_reader collapse_doc layout journal sysfs proc pagemap cli tlb_geometry metric kconfig record_doc presence_doc ibs spe sample auxring. Exit 0 clean,
# 1 a crash (the input is saved as OUT/crash-*), 77 no clang/libFuzzer.
set -u
src=$(cd "$(dirname "$0")/../.." && pwd)
name=$1 runs=${2:-20000} secs=${3:-0} out=${4:-$PWD/fuzz.build}
"$src/tests/fuzz/build.sh" "$out" >"$out.build.log" 2>&1
rc=$?
[ $rc -eq 0 ] || { cat "$out.build.log"; exit $rc; }
corpus=$src/tests/fuzz/corpus-$name
case $name in results|results_reader) corpus=$src/tests/fuzz/corpus;; esac
# the JSON readers share the JSON dictionary
case $name in
results|results_reader|collapse_doc|layout|record_doc|presence_doc|journal) dict=(-dict="$src/tests/fuzz/results.dict");;
*) dict=(); [ -f "$src/tests/fuzz/$name.dict" ] && dict=(-dict="$src/tests/fuzz/$name.dict");;
esac
mkdir -p "$out/scratch-$name"
cd "$out" || exit 1
"$out/fuzz_$name" "$out/scratch-$name" "$corpus" "${dict[@]}" -runs="$runs" \
	-max_total_time="$secs" -max_len=16384 -timeout=10 -rss_limit_mb=2048 -close_fd_mask=3 \
	-print_final_stats=1 >"$out/fuzz-$name.log" 2>&1
rc=$?
echo "$name: $(grep -E 'stat::number_of_executed_units' "$out/fuzz-$name.log" | awk '{print $2}') executions, exit $rc"
grep -E '^(Done [0-9]+ runs)|ERROR|SUMMARY' "$out/fuzz-$name.log"
if [ $rc -ne 0 ]; then
	tail -60 "$out/fuzz-$name.log"
	echo "FAIL: fuzz_$name found a crash (input saved as crash-* in $out)"
	exit 1
fi
exit 0
