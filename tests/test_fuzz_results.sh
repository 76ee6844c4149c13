#!/usr/bin/env bash
# A short libFuzzer run of the results reader (and the analyzer behind it)
# under ASan + UBSan, from the kept corpus in tests/fuzz/corpus. Objects are
# cached next to the test's working directory, so a re-run only recompiles
# what changed. FUZZ_RUNS (default 20000) bounds the executions,
# FUZZ_SECONDS (default 120) the time. New inputs go to a scratch corpus;
# add interesting ones to tests/fuzz/corpus by hand.
set -u
src=${MTHPSCOPE_SRC:?}
runs=${FUZZ_RUNS:-20000} secs=${FUZZ_SECONDS:-120}
command -v clang >/dev/null || { echo "SKIP: clang is not installed (scripts/setup.sh --tests)"; exit 77; }
out=${MTHPSCOPE_FUZZ_BUILD:-$PWD/fuzz_results.build}
mkdir -p "$out/obj" || exit 1
arch=x86; case $(uname -m) in aarch64|arm64) arch=arm64;; esac
flags=(-g -O1 -std=c11 -D_GNU_SOURCE -DMTHPSCOPE_VERSION=\"fuzz\" -DMTHPSCOPE_DATADIR=\"$src/scripts\"
       -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined
       -I"$src/src" -I"$src/arch" -I"$src/kernels-micro" $(pkg-config --cflags jansson hwloc))

# a probe: is libFuzzer's runtime there?
echo 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n){(void)d;(void)n;return 0;}' >"$out/probe.c"
if ! clang -fsanitize=fuzzer "$out/probe.c" -o "$out/probe" 2>/dev/null; then
	echo "SKIP: clang cannot link libFuzzer (Debian: libclang-rt-14-dev)"; exit 77
fi

objs=()
for f in "$src"/src/*.c "$src"/kernels-micro/*.c "$src"/arch/*.c "$src"/arch/$arch/*.c; do
	[ -e "$f" ] || continue
	[ "$(basename "$f")" = main.c ] && continue
	o=$out/obj/$(echo "${f#$src/}" | tr / _).o
	objs+=("$o")
	if [ ! "$o" -nt "$f" ] || [ -n "$(find "$src/src" "$src/arch" -name '*.h' -newer "$o" 2>/dev/null | head -1)" ]; then
		echo "clang $f"
		clang "${flags[@]}" -c "$f" -o "$o" 2>"$o.log" || { cat "$o.log"; echo "FAIL: $f does not build with clang"; exit 1; }
	fi
done
rm -f "$out/libcore.a" && ar rcs "$out/libcore.a" "${objs[@]}" || exit 1
clang "${flags[@]}" -fsanitize=fuzzer "$src/tests/fuzz/fuzz_results.c" "$out/libcore.a" \
	$(pkg-config --libs jansson hwloc) -lpfm -lm -o "$out/fuzz_results" || { echo "FAIL: fuzz target does not link"; exit 1; }

rm -rf "$out/scratch" && mkdir -p "$out/scratch"
"$out/fuzz_results" "$out/scratch" "$src/tests/fuzz/corpus" -dict="$src/tests/fuzz/results.dict" \
	-runs="$runs" -max_total_time="$secs" -max_len=16384 -timeout=10 -rss_limit_mb=2048 \
	-print_final_stats=1 >"$out/fuzz.log" 2>&1
rc=$?
grep -E '^(#[0-9]+.*DONE|Done [0-9]+ runs)|stat::number_of_executed_units|ERROR|SUMMARY' "$out/fuzz.log"
if [ $rc -ne 0 ]; then
	tail -60 "$out/fuzz.log"
	echo "FAIL: the fuzzer found a crash (input saved as crash-* in $PWD)"
	exit 1
fi
exit 0
