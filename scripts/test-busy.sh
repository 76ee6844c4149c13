#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The host suite once more as a slow host would run it: every test pinned to
# CPU 0 while a busy loop holds that CPU too (taskset), so that a test that
# assumes a host's speed (samples a second, scans caught, wall times) fails
# here and not on the next new machine. Run after scripts/test.sh (it reuses
# that build); .ci/run calls both. Left out: what emulates (the TCG guests,
# qemu-user's test_events) and the fuzzer, whose runs are bounded by count
# and take minutes that a shared CPU would double without testing more.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${MTHPSCOPE_TEST_BUILD:-build-test}
[ -x "$build/mthpscope" ] || { echo "test-busy.sh: no $build/mthpscope: run scripts/test.sh first" >&2; exit 1; }
command -v taskset >/dev/null || { echo "test-busy.sh: taskset is missing (util-linux)" >&2; exit 1; }
taskset -c 0 sh -c 'while :; do :; done' &
busy=$!
trap 'kill "$busy" 2>/dev/null' EXIT
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allow_user_segv_handler=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
echo "test-busy.sh: the host suite on CPU 0, kept busy by pid $busy" >&2
taskset -c 0 ctest --test-dir "$build" --output-on-failure -E '^test_(guest.*|events|fuzz)$' "$@"
