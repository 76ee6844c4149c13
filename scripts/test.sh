#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The whole test suite: install what is missing, build with ASan + UBSan,
# run every test under ctest. Every build here treats warnings as errors (gcc
# for the host, arm64 and the package; clang in tests/fuzz/build.sh): this is
# CI's command, and CI must not depend on the runner setting CI=true. Run as root (the THP tests write sysfs; without
# root they SKIP with the reason).
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh --tests
# arm64: cross-compile against Debian's arm64 libpfm4/hwloc/jansson and run
# the table/unit tests under qemu-user. The Arm event tables are checked only
# here (an x86 libpfm4 has no Arm tables); perf_event_open is ENOSYS under
# qemu-user, so the kernel-counter tests SKIP. qemu-user 7.2 hangs in the
# child of fork() for dynamically linked guests on this kernel, hence
# HARNESS_NOFORK (each test runs in the harness's own process).
arm64_tests='^test_(arch|counters|sampling|thp_parse|tlb_model)$'
if command -v aarch64-linux-gnu-gcc >/dev/null && command -v qemu-aarch64 >/dev/null; then
	arm=${MTHPSCOPE_TEST_BUILD_ARM64:-build-arm64}
	cmake --no-warn-unused-cli -S . -B "$arm" -DCMAKE_TOOLCHAIN_FILE=scripts/toolchain-aarch64.cmake \
		-DCMAKE_BUILD_TYPE=Debug -DMTHPSCOPE_WERROR=ON >/dev/null
	cmake --build "$arm" -j"$(nproc)" >/dev/null
	HARNESS_NOFORK=1 ctest --test-dir "$arm" --output-on-failure --timeout 300 -R "$arm64_tests"
	for pmu in $(qemu-aarch64 -L /usr/aarch64-linux-gnu "$arm/mthpscope" events --pmu list | awk '{print $1}'); do
		qemu-aarch64 -L /usr/aarch64-linux-gnu "$arm/mthpscope" events --pmu "$pmu" --json \
			>/dev/null 2>&1 || { echo "arm64: events --pmu $pmu failed" >&2; exit 1; }
	done
	# the guest smoke test (tests/test_guest.sh) boots this binary in an arm64 kernel
	export MTHPSCOPE_BIN_ARM64=$PWD/$arm/mthpscope
else
	echo "test.sh: arm64 step skipped: aarch64-linux-gnu-gcc or qemu-aarch64 missing" >&2
fi

# The Debian package from an optimised build (the suite's build has ASan,
# whose runtime dpkg-shlibdeps would put in Depends): control fields, files,
# the unpacked binary, lintian errors (tests/check-deb.sh).
if command -v dpkg-deb >/dev/null && command -v cpack >/dev/null; then
	deb=${MTHPSCOPE_TEST_BUILD_DEB:-build-deb}
	cmake -S . -B "$deb" -DCMAKE_BUILD_TYPE=Release -DMTHPSCOPE_WERROR=ON >/dev/null
	cmake --build "$deb" -j"$(nproc)" >/dev/null
	rm -f "$deb"/mthpscope_*.deb
	(cd "$deb" && cpack -G DEB >/dev/null)
	bash tests/check-deb.sh "$deb"/mthpscope_*.deb
	# a build without sanitizers, for what runs under qemu-user (test_events)
	export MTHPSCOPE_BIN_PLAIN=$PWD/$deb/mthpscope
else
	echo "test.sh: package step skipped: dpkg-deb or cpack missing" >&2
fi

# The host suite last, so its ctest summary closes the output.
build=${MTHPSCOPE_TEST_BUILD:-build-test}
cmake -S . -B "$build" -DMTHPSCOPE_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug -DMTHPSCOPE_WERROR=ON >/dev/null
cmake --build "$build" -j"$(nproc)" >/dev/null
# allow_user_segv_handler: our SIGSEGV/SIGBUS handler restores the THP knobs
# and re-raises; ASan's own handler would otherwise take the signal first.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allow_user_segv_handler=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
ctest --test-dir "$build" --output-on-failure
