#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The suite in guests of two real kernels (issue 42), one small workload:
# scripts/workloads/run-suite-guests.sh --only sort (300000 lines) at
# orders 0 and 4, one rep, in qemu TCG guests of the two x86_64 kernels of
# tests/guest-kernels (6.12.95 and the collapse kernel 7.3.4), one boot
# each with GNU sort and bash brought from this host. Assertions: exit 0;
# per kernel a results file of that kernel from an emulated CPU, a layout
# row per order with faults, fewer faults at 64K than at 4K, the kernel's
# count of 64K folios (at least 100; the share the scans saw is said); the
# kernels' compare with both sides' tables (faults, peak memory, coverage:
# no time column) and their difference. About 1-2 minutes under TCG. SKIPs
# (77) only where qemu, a kernel package, jq or GNU sort cannot be had.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/lib.sh"
export MTHPSCOPE_WORKLOAD_CACHE=$tmp/cache
command -v qemu-system-x86_64 >/dev/null ||
	skip "qemu-system-x86_64 missing (apt-get install qemu-system-x86)"
[ "$(uname -m)" = x86_64 ] || skip "the host build is not an x86_64 binary"
command -v jq >/dev/null || skip "jq missing"
/usr/bin/sort --version 2>/dev/null | grep -q GNU || skip "GNU sort missing"
ka=$(awk '$1 == "x86_64" { print $2; exit }' "$src/tests/guest-kernels")
kb=$(awk '$1 == "x86_64:collapse" { print $2; exit }' "$src/tests/guest-kernels")
for k in "$ka" "$kb"; do
	"$src/scripts/guest-kernel.sh" --arch x86_64 "$k" >/dev/null 2>"$tmp/fetch.err" ||
		skip "kernel package $k cannot be had: $(tail -n 1 "$tmp/fetch.err")"
done
la=${ka#linux-image-} la=${la%-unsigned}
lb=${kb#linux-image-} lb=${lb%-unsigned}
rc=0
"$src/scripts/workloads/run-suite-guests.sh" --kernels "$ka,$kb" --orders 0,4 --reps 1 \
	--only sort --mem 1G --timeout 400 -o "$tmp/sg" --bin "$bin" \
	>"$tmp/out" 2>"$tmp/err" || rc=$?
[ $rc = 3 ] && skip "a guest cannot run here: $(tail -n 1 "$tmp/err")"
[ $rc = 0 ] || { err "run-suite-guests.sh exit $rc"; tail -n 20 "$tmp/err"; }
sed 's/^/  | /' "$tmp/out"
for l in "$la" "$lb"; do
	f=$tmp/sg/$l/sort.json
	[ "$(jq -r .host.emulated "$f" 2>/dev/null)" = true ] || err "$l: sort.json is not an emulated CPU's"
	ver=${l%%+*}
	jq -r .host.kernel "$f" 2>/dev/null | grep -q "^$ver" || err "$l: sort.json is of kernel $(jq -r .host.kernel "$f" 2>/dev/null)"
	f0=$(awk '$1 == "sort" && $2 == 0 { print $5 }' "$tmp/sg/$l/layout.txt")
	f4=$(awk '$1 == "sort" && $2 == 4 { print $5 }' "$tmp/sg/$l/layout.txt")
	s4=$(awk '$1 == "sort" && $2 == 4 { for (i = 9; i <= NF; i++) if ($i ~ /^4:/) print substr($i, 3) + 0 }' \
		"$tmp/sg/$l/layout.txt")
	if [ -n "$f0" ] && [ -n "$f4" ] && [ "$f4" -lt "$f0" ]; then
		echo "ok: $l: faults $f0 at 4K, $f4 at 64K"
	else
		err "$l: faults at 64K ($f4) not below 4K's ($f0): $(cat "$tmp/sg/$l/layout.txt")"
	fi
	# the kernel's own count: sort's ~18 MiB made 280-300 64K folios in
	# data/suite-guest-6.12.95-vs-7.3.4-amd64; what the scans saw of them
	# depends on when they ran (an ASan build scans slower: 9-95 % seen)
	a4=$(jq '[.trials[] | select(.order == 4) | .metrics.anon_fault_alloc.value] | min' "$f")
	[ "${a4:-0}" -ge 100 ] 2>/dev/null &&
		echo "ok: $l: $a4 64K folios allocated, ${s4:-0} % of the scanned pages at order 4" ||
		err "$l: the 64K trial: ${a4:-no} 64K folios allocated"
done
c=$tmp/sg/compare-sort.txt
grep -q "== $la/sort.json: the program, per metric ==" "$c" && grep -q "== $lb/sort.json: the program" "$c" ||
	err "compare-sort.txt lacks a side: $(head -c 800 "$c")"
grep -Eq "^size +faults +peak memory +coverage$" "$c" || err "compare-sort.txt: not the faults/memory table"
grep -q "^Difference: $lb/sort.json - $la/sort.json" "$c" || err "compare-sort.txt: no difference"
[ $fail = 0 ] && echo PASS
exit $fail
