#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# scan --inc-empty against the kernel's tools/mm/thpmaps --inc-empty on the
# same idle process: byte for byte (issue 40; zero-page, anon-ksm and hugetlb,
# scan's own labels, were printed at 0 where thpmaps has no such line). Runs
# where $THPMAPS names the script (a kernel tree's tools/mm/thpmaps; it needs
# numpy and root), else skips: the script is GPL-2.0-only and not ours to ship.
# The labels' set and order are checked everywhere.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/lib.sh"
: "${bin:?MTHPSCOPE_BIN}"
[ "$(id -u)" = 0 ] || skip "needs root (pagemap PFNs, kpageflags)"
helper=$(dirname "$bin")/tests/helper_alloc
pid=
at_exit '[ -n "$pid" ] && kill "$pid" 2>/dev/null'
"$helper" 8 sleep=60000 pidfile="$tmp/pid" >/dev/null &
pid=$!
for _ in $(seq 100); do [ -s "$tmp/pid" ] && break; sleep 0.1; done
p=$(cat "$tmp/pid")
"$bin" scan --pid "$p" --inc-empty --smaps >"$tmp/ours" 2>"$tmp/err" || err "scan: exit $? ($(cat "$tmp/err"))"
grep -E '^(zero-page|anon-ksm|hugetlb):  *0 kB' "$tmp/ours" &&
	err "--inc-empty prints scan's own labels at 0 (thpmaps has none)"
# every VMA's labels in thpmaps' order: anon then file; pmd, pte aligned,
# unaligned, partial (the PMD size is this host's)
pmd=$(( $(cat /sys/kernel/mm/transparent_hugepage/hpage_pmd_size) >> 10 ))
want=$(for t in anon file; do echo "$t-thp-pmd-aligned-${pmd}kB"; done
	for t in anon file; do
		for a in aligned unaligned; do
			kb=$(( $(getconf PAGESIZE) >> 10 << 2 ))
			while [ "$kb" -le "$pmd" ]; do echo "$t-thp-pte-$a-${kb}kB"; kb=$((kb * 2)); done
		done
		echo "$t-thp-pte-partial"
	done)
got=$(awk '/^[0-9]+: /{if (n++) exit} n && !/^[0-9]+: /{sub(/:.*/, ""); print}' "$tmp/ours")
[ "$got" = "$want" ] || err "labels of the first VMA: $(diff <(echo "$want") <(echo "$got") | head -5)"
if [ -n "${THPMAPS:-}" ] && [ -f "$THPMAPS" ] && /usr/bin/python3 -c 'import numpy' 2>/dev/null; then
	/usr/bin/python3 "$THPMAPS" --pid "$p" --inc-empty >"$tmp/theirs" 2>"$tmp/err" ||
		err "thpmaps: exit $? ($(cat "$tmp/err"))"
	cmp -s "$tmp/ours" "$tmp/theirs" || err "scan --inc-empty differs from thpmaps --inc-empty: $(diff "$tmp/theirs" "$tmp/ours" | head -8)"
else
	echo "note: \$THPMAPS (tools/mm/thpmaps) not given or numpy missing: labels checked, not the bytes"
fi
exit $fail
