#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# mthpscope probe (issue 38): usage errors exit 2 on any machine; as root a
# real --quick probe through the engine ends 0 with a verdict, writes a
# geometry file that info --tlb-geometry reads, and leaves every THP knob
# as it was; without root it exits 3 (the real run SKIPs). The verdict
# itself is not asserted: it is this host's (tests/test_tlb_probe.c checks
# the inference on made-up times).
# Writes THP knobs: MTHPSCOPE_TEST_WRITES_THP
set -u
BIN=${MTHPSCOPE_BIN:?}
ufail=0

usage() { # what, then the arguments: exit 2 expected
	local what=$1 rc
	shift
	"$BIN" probe "$@" >/dev/null 2>&1
	rc=$?
	if [ "$rc" != 2 ]; then echo "FAIL: $what: exit $rc, want 2"; ufail=1; else echo "ok: $what"; fi
}
usage "unknown option" --bogus
usage "an argument" extra
usage "--quick with --reps" --quick --reps 4
usage "--reps below 3" --reps 2
usage "--reps not a number" --reps x
usage "unknown --tlb-model" --tlb-model no-such-cpu
usage "--format word" --format yaml
"$BIN" probe --help >/dev/null 2>&1 || { echo "FAIL: --help"; ufail=1; }
"$BIN" probe --tlb-model list >/dev/null 2>&1 || { echo "FAIL: --tlb-model list"; ufail=1; }

if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	setpriv --reuid=65534 --regid=65534 --clear-groups "$BIN" probe --quick >/dev/null 2>&1
	rc=$?
	[ "$rc" = 3 ] || { echo "FAIL: not root: exit $rc, want 3"; ufail=1; }
fi
[ "$ufail" = 0 ] || exit 1

# shellcheck source=tests/run-knobs.sh
. "$(dirname "$0")/run-knobs.sh"
[ "$(getconf PAGESIZE)" = 4096 ] || { echo "SKIP: not 4K pages"; exit 77; }

"$BIN" probe --quick --json -o "$tmp/geo.tlb" >"$tmp/p.json" 2>"$tmp/p.err"
rc=$?
if [ "$rc" = 3 ] && grep -q "no TLB geometry" "$tmp/p.err"; then
	echo "SKIP: no TLB geometry for this CPU"
	exit 77
fi
if [ "$rc" != 0 ]; then
	echo "FAIL: probe --quick: exit $rc"
	cat "$tmp/p.err"
	exit 1
fi
check_knobs "probe"
[ "$(py 'd["schema"]' "$tmp/p.json")" = mthpscope.probe/1 ] || { echo "FAIL: schema"; fail=1; }
verdict=$(py 'd["result"]["verdict"]' "$tmp/p.json")
case "$verdict" in
tells|cannot-tell|no-translation-cost|too-few-reps) echo "ok: verdict $verdict" ;;
*) echo "FAIL: verdict '$verdict'"; fail=1 ;;
esac
[ "$(py 'len(d["spans"])' "$tmp/p.json")" -ge 2 ] || { echo "FAIL: fewer than 2 spans"; fail=1; }
[ "$(py 'len(d["spans"][0]["variants"])' "$tmp/p.json")" = 6 ] || { echo "FAIL: not 6 variants"; fail=1; }
# the contiguous order 0 is PTE-mapped: no PMD mapping in its layout
[ "$(py '[v for v in d["spans"][0]["variants"] if v["variant"] == "order 0 contiguous"][0]["layout"]["pmd_maps"]' "$tmp/p.json")" = 0 ] ||
	{ echo "FAIL: the contiguous order 0 is still PMD-mapped"; fail=1; }
"$BIN" info --tlb-geometry "$tmp/geo.tlb" >"$tmp/info.txt" 2>&1 ||
	{ echo "FAIL: info does not read the probe's geometry"; cat "$tmp/info.txt"; fail=1; }
grep -q "measured here by mthpscope probe" "$tmp/geo.tlb" || { echo "FAIL: no cite"; fail=1; }
# hostile pass: -o on a full device (mknod'd here, as /dev/full) fails after
# the measuring: exit 1 and the report still shown (it printed nothing)
if mknod "$tmp/full" c 1 7 2>/dev/null; then
	"$BIN" probe --quick -o "$tmp/full" >"$tmp/f.txt" 2>"$tmp/f.err"
	rc=$?
	check_knobs "probe -o full"
	[ "$rc" = 1 ] && grep -q "cannot write $tmp/full: No space left on device" "$tmp/f.err" ||
		{ echo "FAIL: probe -o full: exit $rc, $(cat "$tmp/f.err")"; fail=1; }
	grep -q "^hypotheses" "$tmp/f.txt" && ! grep -q "^geometry: written" "$tmp/f.txt" ||
		{ echo "FAIL: probe -o full: no report, or one that says it wrote"; fail=1; }
fi
exit "$fail"
