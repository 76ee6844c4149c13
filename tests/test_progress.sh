#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The progress line (src/present/progress.c): on a terminal (a pty from script(1))
# compare draws it on stderr and erases it; not on a terminal, stderr holds
# no progress at all, and stdout is the same either way.
set -u
export LC_ALL=C
bin=${MTHPSCOPE_BIN:?} data=${MTHPSCOPE_SRC:?}/tests/data
command -v script >/dev/null || { echo "SKIP: script (util-linux) is not installed"; exit 77; }
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
fail=0
err() { echo "FAIL: $*"; fail=1; }
a=$data/compare-base.json b=$data/compare-hi.json

# not a terminal: nothing but warnings on stderr, even with no delay
MTHPSCOPE_PROGRESS_DELAY=0 "$bin" compare "$a" "$b" >"$tmp/plain" 2>"$tmp/err" || err "compare: exit $?"
grep -q "series" "$tmp/err" && err "progress written when stderr is not a terminal: $(head -c 200 "$tmp/err")"
grep -q $'\r' "$tmp/err" && err "a carriage return on a stderr that is not a terminal"

# a terminal (stdout to a file, stderr the pty)
script -qec "MTHPSCOPE_PROGRESS_DELAY=0 '$bin' compare '$a' '$b' >'$tmp/tty'" "$tmp/typescript" >/dev/null 2>&1 ||
	err "compare under script: exit $?"
n=$(tr '\r' '\n' <"$tmp/typescript" | grep -c "compare: [0-9]* of [0-9]* series")
[ "$n" -ge 1 ] || err "no progress line on a terminal: $(head -c 300 "$tmp/typescript" | cat -v)"
tr '\r' '\n' <"$tmp/typescript" | grep -q '^\[#*\.*\] compare: ' || err "no bar in the progress line"
cmp -s "$tmp/plain" "$tmp/tty" || err "stdout differs on a terminal"
# the default delay: a short compare shows nothing
script -qec "'$bin' compare '$a' '$b' >/dev/null" "$tmp/typescript2" >/dev/null 2>&1
tr '\r' '\n' <"$tmp/typescript2" | grep -q "series" && echo "note: compare took over 1 s here; progress shown"

[ $fail = 0 ] && echo "PASS: progress on a terminal ($n redraws), silent otherwise"
exit $fail
