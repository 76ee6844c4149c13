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

# A run that waits for another instance puts back the machine's settings
# between its orders, not that instance's trial: hugepages-64kB reads
# 'always' while the holder has the lock, and never after it (a run of
# orders 0 and 2 sets 64kB to nothing but never).
if [ -n "$(grep -o '\[never\]' "$THP/hugepages-64kB/enabled")" ] && hold_knob hugepages-64kB/enabled always 3; then
	# one that does not wait: exit 3 before its first write, no "pid 0"
	# for a holder that wrote no pid (flock here)
	MTHPSCOPE_LOCK_WAIT=0 "$bin" collapse --span 2M --timeout 1 >/dev/null 2>"$tmp/err"
	rc=$?
	[ $rc = 3 ] || err "collapse beside a holder, no wait: exit $rc, want 3"
	grep -q "another mthpscope is changing THP settings" "$tmp/err" ||
		err "collapse beside a holder, no wait: $(cat "$tmp/err")"
	MTHPSCOPE_LOCK_WAIT=60 "$bin" run --quick --orders 0,2 --reps 3 --span 2M --sparse 0 \
		-o "$tmp/wait.json" >/dev/null 2>"$tmp/err" &
	runner=$!
	wait "$holder"
	seen=0
	while kill -0 "$runner" 2>/dev/null; do
		grep -q '\[always\]' "$THP/hugepages-64kB/enabled" && seen=$((seen + 1))
		sleep 0.02
	done
	wait "$runner"
	rc=$?
	[ $rc = 0 ] || err "run waiting for the lock: exit $rc: $(tail -3 "$tmp/err")"
	[ $seen = 0 ] || err "run waiting for the lock wrote back the holder's 64kB 'always' ($seen samples)"
else
	echo "note: hugepages-64kB is not 'never' or the lock stayed busy: the waiting run not checked"
fi
check_knobs "a run that waited for the lock"
exit $fail
