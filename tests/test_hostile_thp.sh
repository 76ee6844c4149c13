#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Issue 14, the parts that write THP knobs (MTHPSCOPE_TEST_WRITES_THP: ctest
# runs them alone): 'run -o' onto a character device made with mknod in a
# scratch directory (written in place, never replaced by a regular file);
# 'collapse --mode madvise --fill 0', whose EINVAL is not "no MADV_COLLAPSE"
# on a kernel that has it. Every knob back as found afterwards (read under
# the lock, tests/run-knobs.sh).
set -u
BIN=${MTHPSCOPE_BIN:?}
bin=$BIN
export MTHPSCOPE_LOCK_WAIT=${MTHPSCOPE_LOCK_WAIT:-900}
# root, THP checks, $tmp, and the knobs read under the THP lock: another
# instance changes them while it holds the lock (read without it, a run of
# another suite in progress failed this test)
# shellcheck source=tests/run-knobs.sh
. "$(dirname "$0")/run-knobs.sh"
[ -e "$THP/hugepages-64kB/enabled" ] || { echo "SKIP: needs anon mTHP (hugepages-64kB)"; exit 77; }
err() { echo "FAIL: $*"; fail=1; }

mknod "$tmp/null" c 1 3
"$bin" run --quick --orders 0,4 --span 2M --sparse 0 -o "$tmp/null" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc = 0 ] || err "run -o chardev: exit $rc: $(tail -3 "$tmp/err")"
[ -c "$tmp/null" ] || err "run -o replaced the character device with a $(stat -c %F "$tmp/null")"
ls "$tmp" | grep -q 'null.tmp' && err "run -o left a temporary file"

"$bin" collapse --mode madvise --fill 0 --span 2M --timeout 2 >"$tmp/out" 2>"$tmp/err"
rc=$?
grep -q "has no MADV_COLLAPSE" "$tmp/err" && err "collapse --fill 0: EINVAL read as an old kernel"
[ $rc = 0 ] || err "collapse --mode madvise --fill 0: exit $rc: $(tail -3 "$tmp/err")"

check_knobs "run -o chardev and collapse --fill 0"
exit $fail
