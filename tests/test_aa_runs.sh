#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# scripts/aa-runs.sh (issue 40, hostile pass item 6): its arguments checked
# before any comparison (a file name with a comma, too few files, a file that
# is not there: 2); a comparison that fails quoted by its error line, not a
# warning before it, and the exit status 1 ("0 of 0 gain rows", exit 0,
# before); the comparisons that work summed as before.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/lib.sh"
: "${bin:?MTHPSCOPE_BIN}"
command -v jq >/dev/null || skip "jq is not installed"
aa() { bash "$src/scripts/aa-runs.sh" "$@" >"$tmp/out" 2>"$tmp/e"; }

cp "$data/compare-base.json" "$tmp/a,1.json"
aa "$bin" 1 "$data/compare-base.json" "$tmp/a,1.json"
[ $? -eq 2 ] && grep -q "a file name with a comma" "$tmp/e" || err "a comma: $(cat "$tmp/e")"
grep -q "comparison" "$tmp/out" && err "a comma: compared before the check"
aa "$bin" 2 "$data/compare-base.json" "$data/compare-hi.json" "$data/compare-lo.json"
[ $? -eq 2 ] && grep -q "3 files: K=2 needs 4" "$tmp/e" || err "too few files: $(cat "$tmp/e")"
aa "$bin" 1 "$data/compare-base.json" "$tmp/none.json"
[ $? -eq 2 ] && grep -q "none.json': not a readable file" "$tmp/e" || err "a missing file: $(cat "$tmp/e")"

# the real compare: one comparison that works
aa "$bin" 1 "$data/flat.json" "$data/knee2.json" || err "one comparison: exit $? ($(cat "$tmp/e"))"
grep -q "^total: [0-9]* of [1-9][0-9]* gain rows flagged in 1 comparisons" "$tmp/out" ||
	err "one comparison: $(tail -1 "$tmp/out")"
# every comparison fails (the real compare on an empty file): exit 1, said
: >"$tmp/empty.json"
aa "$bin" 1 "$data/compare-base.json" "$tmp/empty.json"
[ $? -eq 1 ] || err "a failed comparison: exit 0"
grep -q "comparison 1: compare failed: mthpscope: compare: .*empty.json: the file is empty" "$tmp/out" ||
	err "a failed comparison: not its error: $(cat "$tmp/out")"
grep -q "1 of 1 comparisons failed" "$tmp/e" || err "a failed comparison: not said on stderr: $(cat "$tmp/e")"
# a warning before the error: the error is quoted
printf '#!/bin/sh\necho "mthpscope: warning: CPU model differs" >&2\necho "mthpscope: compare: b.json: not a results document" >&2\nexit 1\n' >"$tmp/fake"
chmod +x "$tmp/fake"
aa "$tmp/fake" 1 "$data/compare-base.json" "$data/compare-hi.json"
[ $? -eq 1 ] && grep -q "compare failed: mthpscope: compare: b.json: not a results document" "$tmp/out" ||
	err "a warning before the error: $(cat "$tmp/out")"
exit $fail
