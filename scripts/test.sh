#!/usr/bin/env bash
# The whole test suite: install what is missing, build with ASan + UBSan,
# run every test under ctest. Run as root (the THP tests write sysfs; without
# root they SKIP with the reason).
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh --tests
build=${MTHPSCOPE_TEST_BUILD:-build-test}
cmake -S . -B "$build" -DMTHPSCOPE_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug >/dev/null
cmake --build "$build" -j"$(nproc)" >/dev/null
# allow_user_segv_handler: our SIGSEGV/SIGBUS handler restores the THP knobs
# and re-raises; ASan's own handler would otherwise take the signal first.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allow_user_segv_handler=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
ctest --test-dir "$build" --output-on-failure
