#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A short libFuzzer run of every reader (results, collapse and record
# documents, layout, TLB geometry files, kernel config, journal, sysfs words,
# /proc smaps, pagemap/kpageflags records, command line, --metric output, the
# perf ring and the PEBS/IBS/SPE decoders) under ASan + UBSan, from the kept
# corpora in tests/fuzz. Objects are cached next to the test's working directory, so a re-run only recompiles
# what changed. FUZZ_RUNS (default 5000) bounds each target's executions,
# FUZZ_SECONDS (default 30) its time. The long runs: tests/fuzz/run.sh NAME
# 1000000 (doc/safety.md, "Fuzzing").
set -u
src=${MTHPSCOPE_SRC:?}
runs=${FUZZ_RUNS:-5000} secs=${FUZZ_SECONDS:-30}
out=${MTHPSCOPE_FUZZ_BUILD:-$PWD/fuzz.build}
mkdir -p "$out"
"$src/tests/fuzz/build.sh" "$out" >"$out.build.log" 2>&1
rc=$?
if [ $rc -ne 0 ]; then
	cat "$out.build.log"
	exit $rc
fi
fail=0
for t in results results_reader collapse_doc layout journal sysfs proc pagemap cli tlb_geometry metric kconfig record_doc presence_doc ibs spe sample auxring; do
	"$src/tests/fuzz/run.sh" "$t" "$runs" "$secs" "$out" || fail=1
done
exit $fail
