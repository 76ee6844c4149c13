#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# scan --inc-empty and --inc-smaps against the kernel's tools/mm/thpmaps with
# the same options on the same idle process: byte for byte (issue 40;
# zero-page, anon-ksm and hugetlb, scan's own labels, were printed at 0 where
# thpmaps has no such line, and --inc-smaps was refused). Runs
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
# --inc-smaps: the VMA's additive smaps fields first, in smaps' order, no percent
"$bin" scan --pid "$p" --inc-smaps >"$tmp/smaps" 2>"$tmp/err" || err "scan --inc-smaps: exit $?"
got=$(awk '/^[0-9]+: .*\[heap\]/{h=1; next} h && /^[0-9]+: /{exit} h' "$tmp/smaps" | sed 's/:.*//' | head -3 | xargs)
[ "$got" = "Size Rss Pss" ] || err "--inc-smaps: the heap's first fields are '$got'"
grep -qE '^Rss: +[0-9]+ kB \(' "$tmp/smaps" && err "--inc-smaps: a percent after an smaps field"
if [ -n "${THPMAPS:-}" ] && [ -f "$THPMAPS" ] && /usr/bin/python3 -c 'import numpy' 2>/dev/null; then
	for mode in "--inc-empty" "--inc-smaps" "--inc-smaps --inc-empty" "--rollup --inc-smaps --inc-empty" \
		"--inc-empty --cont 64K"; do
		# Pss is shared with every process that maps the same page: another
		# process's mapping between the two reads moves it. The same bytes in
		# one of three tries, each pair read back to back, or else:
		for try in 1 2 3; do
			# shellcheck disable=SC2086 # the options, each a word
			"$bin" scan --pid "$p" --smaps $mode >"$tmp/ours" 2>&1
			# shellcheck disable=SC2086
			/usr/bin/python3 "$THPMAPS" --pid "$p" $mode >"$tmp/theirs" 2>&1 ||
				err "thpmaps $mode: exit $?"
			cmp -s "$tmp/ours" "$tmp/theirs" && break
		done
		# thpmaps differs from itself there on a busy host (a rollup's Pss
		# 16627, 16626, 16625 kB in three runs back to back): the shares of
		# shared pages are compared as present, every other byte as it is
		pss='s/^(Pss|Pss_Dirty|SwapPss):( *)[0-9]+ kB/\1: N kB/'
		cmp -s "$tmp/ours" "$tmp/theirs" ||
			cmp -s <(sed -E "$pss" "$tmp/ours") <(sed -E "$pss" "$tmp/theirs") ||
			err "scan $mode differs from thpmaps $mode ($try tries): $(diff "$tmp/theirs" "$tmp/ours" | head -8)"
	done
else
	echo "note: \$THPMAPS (tools/mm/thpmaps) not given or numpy missing: labels checked, not the bytes"
fi
exit $fail
