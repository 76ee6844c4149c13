#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Build every libFuzzer target (tests/fuzz/fuzz_*.c) with clang under ASan +
# UBSan into OUT (default ./fuzz.build): OUT/fuzz_NAME, with the project's
# warnings (CMakeLists.txt's list) as errors, so the suite keeps the tree clean
# for clang as well as gcc. Objects are cached, so a re-run only recompiles
# what changed. Exit 77 when clang or its libFuzzer runtime is missing.
#   tests/fuzz/build.sh [OUT]
set -u
src=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-$PWD/fuzz.build}
command -v clang >/dev/null || { echo "SKIP: clang is not installed (scripts/setup.sh --tests)"; exit 77; }
mkdir -p "$out/obj" || exit 1
arch=x86; case $(uname -m) in aarch64|arm64) arch=arm64;; esac
flags=(-g -O1 -std=c11 -D_GNU_SOURCE -DMTHPSCOPE_VERSION=\"fuzz\" -DMTHPSCOPE_DATADIR=\"$src/scripts\"
       -Wall -Wextra -Wshadow -Wformat=2 -Wno-missing-field-initializers -Werror
       -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined
       -I"$src/src/base" -I"$src/src/measure" -I"$src/src/doc" -I"$src/src/analysis" -I"$src/src/present" -I"$src/src/cmd" -I"$src/arch" -I"$src/kernels-micro" $(pkg-config --cflags jansson hwloc libpcre2-8))

echo 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n){(void)d;(void)n;return 0;}' >"$out/probe.c"
if ! clang -fsanitize=fuzzer "$out/probe.c" -o "$out/probe" 2>/dev/null; then
	echo "SKIP: clang cannot link libFuzzer (Debian: libclang-rt-14-dev)"; exit 77
fi

objs=()
for f in "$src"/src/*/*.c "$src"/kernels-micro/*.c "$src"/arch/*.c "$src"/arch/$arch/*.c; do
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
for t in "$src"/tests/fuzz/fuzz_*.c; do
	name=$(basename "$t" .c)
	if [ ! "$out/$name" -nt "$t" ] || [ "$out/libcore.a" -nt "$out/$name" ]; then
		clang "${flags[@]}" -fsanitize=fuzzer "$t" "$out/libcore.a" \
			$(pkg-config --libs jansson hwloc libpcre2-8) -lpfm -lm -o "$out/$name" ||
			{ echo "FAIL: $name does not link"; exit 1; }
	fi
done
exit 0
