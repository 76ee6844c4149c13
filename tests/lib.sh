# SPDX-License-Identifier: GPL-2.0-or-later
# What every shell test starts with (source "$(dirname "$0")/lib.sh"):
#   bin, src, data   the binary under test ($MTHPSCOPE_BIN), the source tree
#                    ($MTHPSCOPE_SRC, else this file's parent) and tests/data
#   tmp              a scratch directory of this test alone, removed at exit
#                    (never a fixed /tmp name: tests run side by side)
#   at_exit CMD      one more command for the exit trap (a helper to kill)
#   err MSG          a failure, said; the test goes on; exit $fail at the end
#   skip MSG         exit 77 (a skip), unless a failure came before: then 1
#   expect NAME STATUS PATTERN CMD...
#                    CMD's exit status, and PATTERN in its stderr ('' none);
#                    its stdout in $tmp/out, its stderr in $tmp/err
# shellcheck shell=bash
set -u
bin=${MTHPSCOPE_BIN:-}
src=${MTHPSCOPE_SRC:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
data=$src/tests/data
tmp=$(mktemp -d) || exit 1
fail=0
lib_exit_cmds=()
lib_on_exit() {
	local c
	for c in "${lib_exit_cmds[@]}"; do eval "$c"; done
	rm -rf "$tmp"
}
trap lib_on_exit EXIT
at_exit() { lib_exit_cmds+=("$1"); }
err() { echo "FAIL: $*"; fail=1; }
skip() {
	echo "SKIP: $*"
	[ "$fail" = 0 ] || exit 1
	exit 77
}
expect() {
	local name=$1 want=$2 pat=$3 rc
	shift 3
	"$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ "$rc" = "$want" ] || err "$name: exit $rc, expected $want ($(head -c 300 "$tmp/err"))"
	if [ -n "$pat" ]; then
		grep -q -- "$pat" "$tmp/err" || err "$name: stderr lacks '$pat': $(head -c 300 "$tmp/err")"
	fi
}
