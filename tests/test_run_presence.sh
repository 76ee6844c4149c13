#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# run -- CMD --presence FILE: the presence map of the largest sample of the
# lowest order's trials (tests/helper_alloc: 64 MiB, PMD-aligned, every page
# written, alive 1.5 s). Assertions: exit 0 and the note "run: wrote FILE: N
# PMD ranges of pid P (helper_alloc) at the largest sample (order 0, rep R)";
# the map is mthpscope.presence/1 of helper_alloc with its 32 whole ranges
# fully present at order 0 (the order-0 trial's memory, though order 9 ran
# too); collapse --replay merged reads it (PMD collapse at max_ptes_none 0:
# 16384 pages at order 9, model). --presence without a command: exit 2. The
# -o document is written as before beside it. --presence - alone on stdout;
# -o and --presence to one place, to the --stdin file, or to stdout with
# --show-output: exit 2.
# Writes THP knobs: MTHPSCOPE_TEST_WRITES_THP
set -u
BIN=${MTHPSCOPE_BIN:?}
# shellcheck source=tests/run-knobs.sh
. "$(dirname "$0")/run-knobs.sh"

HELPER=$(dirname "$BIN")/tests/helper_alloc
[ -x "$HELPER" ] || { echo "SKIP: $HELPER is not built"; exit 77; }

# 1. the map of the order-0 trial's largest sample
"$BIN" run --orders 9,0 --reps 1 --presence "$tmp/p.json" -o "$tmp/r.json" -- \
	"$HELPER" 64 sleep=1500 >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc != 0 ]; then echo "FAIL: run --presence exited $rc"; cat "$tmp/err"; fail=1; fi
if grep -q "run: wrote $tmp/p.json: [0-9]* PMD ranges of pid [0-9]* (helper_alloc) at the largest sample (order 0, rep 0)" "$tmp/err"; then
	echo "ok: the note names the map, the process, order 0 and the rep"
else
	echo "FAIL: no note of the map written"; cat "$tmp/err"; fail=1
fi
got=$(py 'd["schema"] + " " + d["source"]["command"] + " " + str(sum(1 for r in d["ranges"] if r["lo"] == 0 and r["hi"] == 512 and not r.get("pmd_pfn") and sum(f[1] for f in r["folios"]) == 512 and all(f[2] == 0 for f in r["folios"])))' "$tmp/p.json" 2>&1)
if [ "$got" = "mthpscope.presence/1 helper_alloc 32" ]; then
	echo "ok: 32 whole ranges of helper_alloc, every page present at order 0"
else
	echo "FAIL: the map: '$got' (want 'mthpscope.presence/1 helper_alloc 32')"; fail=1
fi
[ -s "$tmp/r.json" ] && echo "ok: -o written beside it" || { echo "FAIL: no -o document"; fail=1; }

# 2. the map replays
if "$BIN" collapse --replay merged --presence "$tmp/p.json" --orders 2-9 --max-ptes-none 0 \
	--passes 1 --json >"$tmp/replay.json" 2>"$tmp/replay.err"; then
	got=$(py 'str(d["runs"][0]["passes"][-1]["pages"].get("9", 0) >= 16384)' "$tmp/replay.json")
	[ "$got" = True ] && echo "ok: collapse --replay merged of it: its 32 ranges to order 9 (model)" ||
		{ echo "FAIL: replay's order-9 pages: $got"; fail=1; }
else
	echo "FAIL: collapse --replay of the map"; cat "$tmp/replay.err"; fail=1
fi

# 3. without a command
"$BIN" run --presence "$tmp/q.json" >/dev/null 2>"$tmp/e2"
rc=$?
if [ $rc = 2 ] && grep -q -- "--presence.*apply to a command only" "$tmp/e2" && [ ! -e "$tmp/q.json" ]; then
	echo "ok: --presence without -- CMD: exit 2"
else
	echo "FAIL: --presence without a command: exit $rc"; cat "$tmp/e2"; fail=1
fi
# 4. where the map goes: stdout alone (the summary then on stderr, as with
# -o -: it followed the map on stdout); one place for -o and the map, or
# stdout beside the command's own output, is a usage error before anything
# runs (the map replaced the results, exit 0)
"$BIN" run --orders 0 --reps 1 --presence - -- "$HELPER" 4 >"$tmp/p4.json" 2>"$tmp/e4"
rc=$?
got=$(py 'd["schema"]' "$tmp/p4.json" 2>&1)
if [ $rc = 0 ] && [ "$got" = mthpscope.presence/1 ] && grep -q "reps, scan every" "$tmp/e4"; then
	echo "ok: --presence -: stdout is the map alone, the summary on stderr"
else
	echo "FAIL: --presence -: exit $rc, stdout '$got' ($(head -c 200 "$tmp/p4.json"))"; fail=1
fi
for args in "-o $tmp/same.json --presence $tmp/./same.json" "-o - --presence /dev/stdout" \
	    "--presence - --show-output" "-o - --show-output"; do
	# shellcheck disable=SC2086 # options and their values
	"$BIN" run --orders 0 --reps 1 $args -- "$HELPER" 4 >/dev/null 2>"$tmp/e5"
	rc=$?
	if [ $rc != 2 ] || ! grep -q "lead to the same place\|would mix the document" "$tmp/e5"; then
		echo "FAIL: run $args: exit $rc (want 2)"; cat "$tmp/e5"; fail=1
	fi
done
[ -e "$tmp/same.json" ] && { echo "FAIL: -o F --presence F wrote F"; fail=1; }
# -o or --presence to the --stdin file: the input was replaced by the document
echo input >"$tmp/in.txt"
for opt in -o --presence; do
	"$BIN" run --orders 0 --reps 1 --stdin "$tmp/in.txt" "$opt" "$tmp/./in.txt" -- "$HELPER" 4 \
		>/dev/null 2>"$tmp/e6"
	rc=$?
	if [ $rc != 2 ] || ! grep -q "is the --stdin file" "$tmp/e6" || [ "$(cat "$tmp/in.txt")" != input ]; then
		echo "FAIL: run --stdin F $opt F: exit $rc, F: $(head -c 80 "$tmp/in.txt")"; cat "$tmp/e6"; fail=1
	fi
done
[ $fail = 0 ] && echo "PASS"
exit $fail
