#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Range by range against a real kernel that has khugepaged mTHP collapse:
# Debian's 7.3.4 amd64 (tests/guest-kernels, "x86_64:collapse") booted under
# qemu TCG with the host's python3.11 brought in (guest-run.sh --with), one
# boot: scripts/replay-programs.sh -k KERNEL with PROGS=sparse MPNS=0 maps the
# python process of scripts/replay-sparse.py before and after khugepaged's
# passes at max_ptes_none 0 and replays the first map with the merged policy.
# Assertions: exit 0 with -m 90 (at least 90 % of the ranges agree), at least
# 40 ranges compared, and the kernel made mTHPs (orders 2-8) in them. A second
# boot: run --orders 0 --reps 1 --presence of the same python program (no THP
# lock of the host's to wait for there): exit 0, the note "run: wrote p.json:
# N PMD ranges of pid P (python3.11) at the largest sample (order 0, rep 0)",
# a presence map of python3.11 with ranges that collapse --replay reads. About
# 90-150 s under TCG. SKIPs (77) only where qemu, the kernel package, jq or
# the host's python3.11 cannot be had.
set -uo pipefail
src=${MTHPSCOPE_SRC:?run under ctest}
bin=${MTHPSCOPE_BIN:?run under ctest}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

pkg=$(awk '$1 == "x86_64:collapse" { print $2 }' "$src/tests/guest-kernels")
command -v qemu-system-x86_64 >/dev/null ||
	{ echo "SKIP qemu-system-x86_64 missing (apt-get install qemu-system-x86)"; exit 77; }
[ "$(uname -m)" = x86_64 ] || { echo "SKIP the host build is not an x86_64 binary"; exit 77; }
command -v jq >/dev/null || { echo "SKIP jq missing"; exit 77; }
[ -x /usr/bin/python3.11 ] && [ -d /usr/lib/python3.11/encodings ] ||
	{ echo "SKIP the guest's python comes from the host's /usr/bin/python3.11 (Debian 12's python3.11)"; exit 77; }
if ! kimg=$("$src/scripts/guest-kernel.sh" --arch x86_64 "$pkg" 2>"$work/fetch.err"); then
	echo "SKIP kernel package $pkg cannot be had: $(tail -n 1 "$work/fetch.err")"; exit 77
fi
rc=0
PROGS=sparse MPNS=0 GUEST_TIMEOUT=400 MTHPSCOPE_GUEST_ENV="ASAN_OPTIONS=detect_leaks=0" \
	"$src/scripts/replay-programs.sh" -b "$bin" -m 90 -k "$kimg" "$work/out" \
	>"$work/stdout" 2>"$work/stderr" || rc=$?
if [ $rc = 3 ]; then
	echo "SKIP a guest cannot run here: $(tail -n 1 "$work/stderr")"; exit 77
fi
sed 's/^/  | /' "$work/stdout"
fail=0
[ $rc = 0 ] || { echo "FAIL replay-programs.sh exit $rc"; tail -n 20 "$work/stderr"; fail=1; }
n=$(awk -F'\t' 'NR > 1 && $4 != "only-one"' "$work/out/sparse-0-compare.tsv" 2>/dev/null | wc -l)
[ "$n" -ge 40 ] && echo "ok: $n ranges compared" || { echo "FAIL only $n ranges compared"; fail=1; }
mthp=$(awk -F'\t' 'NR > 1 { print $2 }' "$work/out/sparse-0-compare.tsv" 2>/dev/null | tr ',' '\n' |
	awk -F: '$1 >= 2 && $1 <= 8 { p += $2 } END { print p + 0 }')
[ "$mthp" -gt 0 ] && echo "ok: the kernel made $mthp pages of mTHP (orders 2-8)" ||
	{ echo "FAIL the kernel made no mTHP in the python map"; sed 's/^/  log| /' "$work/out/guest.log"; fail=1; }

# run -- CMD --presence in the guest
py=/usr/lib/python3.11
rc=0
MTHPSCOPE_GUEST_ENV="ASAN_OPTIONS=detect_leaks=0" \
"$src/scripts/guest-run.sh" --arch x86_64 --accel tcg --mem 1G --timeout 300 --bin "$bin" \
	--kernel "$kimg" --out "$work/run" --with /usr/bin/python3.11 --with "$py/encodings" \
	--with "$py/os.py" --with "$(ls "$py"/lib-dynload/mmap.*.so)" \
	--with "$src/scripts/replay-sparse.py" --shell -- "mthpscope run --orders 0 --reps 1 \
	--stdin /dev/null --presence p.json -- /usr/bin/python3.11 -S $src/scripts/replay-sparse.py 3 4" \
	>"$work/run.out" 2>"$work/run.err" || rc=$?
if [ $rc = 0 ] && grep -q "run: wrote p.json: [0-9]* PMD ranges of pid [0-9]* (python3.11) at the largest sample (order 0, rep 0)" "$work/run.err"; then
	echo "ok: run --presence in the guest: $(grep -o 'wrote p.json.*' "$work/run.err")"
else
	echo "FAIL run --presence in the guest (exit $rc)"; tail -n 20 "$work/run.err"; fail=1
fi
if "$bin" collapse --replay merged --presence "$work/run/p.json" --json >"$work/rr.json" 2>"$work/rr.err" &&
	[ "$(jq -r .source.command "$work/run/p.json")" = python3.11 ] &&
	[ "$(jq '.ranges | length' "$work/run/p.json")" -gt 0 ]; then
	echo "ok: its map ($(jq '.ranges | length' "$work/run/p.json") ranges of $(jq -r .source.command "$work/run/p.json")) replays"
else
	echo "FAIL the map of run --presence does not replay"; cat "$work/rr.err"; fail=1
fi
[ $fail = 0 ] && echo PASS
exit $fail
