#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The merged replay against the real 7.3.4 kernel, range by range, on two real
# programs' maps recorded in a guest (data/replay-guest-7.3.4-programs: python3.11
# sparse hash tables and GNU sort, max_ptes_none 0, 255 and 511, before and
# after khugepaged): scripts/replay-programs.sh -m 90 replays every map of
# the packed data set and compares it range by range. Assertions: exit 0, six
# maps, at least 200 ranges, at least 90 % agree (the data set's PROVENANCE
# has 256 of 256); the python map at 0 is one where the kernel made mTHPs
# (orders 2-8 in its compare.tsv), so the agreement is not only PMD's. Usage
# errors: no DIR, a bad -m, a DIR without maps; guest-run.sh --with a
# relative or missing path: exit 2 before anything boots. No guest runs here
# (tests/test_guest_programs.sh boots one).
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/lib.sh"
command -v jq >/dev/null || skip "needs jq"
d=$src/data/replay-guest-7.3.4-programs
s=$src/scripts/replay-programs.sh

expect "replay-programs on the data set" 0 "" "$s" -b "$bin" -m 90 "$d"
cp "$tmp/out" "$tmp/summary"
sed 's/^/  | /' "$tmp/summary"
last=$(tail -n 1 "$tmp/summary")
set -- $(echo "$last" | sed -n 's/^agree: \([0-9]*\) of \([0-9]*\) ranges ([0-9.]*%) in \([0-9]*\) maps$/\1 \2 \3/p')
if [ $# = 3 ] && [ "$3" = 6 ] && [ "$2" -ge 200 ] && [ $(($1 * 100)) -ge $(($2 * 90)) ]; then
	echo "ok: $last"
else
	err "summary '$last' (want 6 maps, >= 200 ranges, >= 90 % agree)"
fi
# the kernel made mTHPs in the python map at max_ptes_none 0
mthp=$(awk -F'\t' 'NR > 1 { print $2 }' "$d/sparse-0-compare.tsv" | tr ',' '\n' |
	awk -F: '$1 >= 2 && $1 <= 8 { o[$1] = 1 } END { n = 0; for (k in o) n++; print n }')
[ "$mthp" -ge 5 ] && echo "ok: the kernel made $mthp mTHP orders in sparse-0" ||
	err "sparse-0-compare.tsv: the kernel's mTHP orders: $mthp (want >= 5)"

expect "no DIR" 2 "usage:" "$s" -b "$bin"
expect "bad -m" 2 "must be a number" "$s" -b "$bin" -m x "$d"
mkdir "$tmp/empty"
expect "no maps" 1 "no PROG-N-p0.json maps" "$s" -b "$bin" "$tmp/empty"
g=$src/scripts/guest-run.sh
c=$src/scripts/replay-compare.sh
printf '{"schema": "mthpscope.presence/1", "ran' >"$tmp/trunc.json"
expect "replay-compare of a truncated map" 2 "not a presence map" "$c" "$tmp/trunc.json" "$tmp/trunc.json"
expect "replay-compare of a results file" 2 "not a presence map" "$c" "$src/tests/data/command_kbuild.json" "$tmp/trunc.json"
printf '{"schema": "mthpscope.presence/1", "page_size": 4096, "pmd_order": 9, "ranges": []}' >"$tmp/p4k.json"
printf '{"schema": "mthpscope.presence/1", "page_size": 16384, "pmd_order": 11, "ranges": []}' >"$tmp/p16k.json"
expect "replay-compare of two page sizes" 2 "different page sizes" "$c" "$tmp/p4k.json" "$tmp/p16k.json"
expect "replay-compare of two empty maps" 0 "" "$c" "$tmp/p4k.json" "$tmp/p4k.json"
expect "guest-run --with relative" 2 "give an absolute path" "$g" --with usr/bin/sort --kernel x -- info
expect "guest-run --with missing" 2 "no such file" "$g" --with /nonexistent/x --kernel x -- info
[ $fail = 0 ] && echo PASS
exit $fail
