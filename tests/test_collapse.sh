#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# mthpscope collapse on the real kernel: MADV_COLLAPSE and khugepaged turn a
# sparse span into PMD folios, max_ptes_none 0 keeps it sparse, bad input
# exits 2/3, and every THP knob is as before afterwards.
# Writes THP knobs: MTHPSCOPE_TEST_WRITES_THP
set -u
BIN=${MTHPSCOPE_BIN:?}
# shellcheck source=tests/run-knobs.sh
. "$(dirname "$0")/run-knobs.sh"

expect_eq() { # what got want
	if [ "$2" != "$3" ]; then echo "FAIL: $1: got '$2', want '$3'"; fail=1; else echo "ok: $1 = $2"; fi
}

# 1. MADV_COLLAPSE: a half-filled 64 MiB span becomes order-9 folios, exactly,
#    and RSS grows by the holes it filled.
"$BIN" collapse --mode madvise --orders 9 --span 64M --fill 50 --timeout 10 --interval 20 \
	--json >"$tmp/madv.json" 2>"$tmp/madv.err"
rc=$?
expect_eq "madvise exit" "$rc" 0
if [ "$rc" = 0 ]; then
	expect_eq "madvise final hist" "$(py 'json.dumps(d["timeline"][-1]["hist"])' "$tmp/madv.json")" '{"9": 16384}'
	expect_eq "madvise first hist" "$(py 'json.dumps(d["timeline"][0]["hist"])' "$tmp/madv.json")" '{"0": 8192}'
	expect_eq "madvise rss_before" "$(py 'd["rss_before"]' "$tmp/madv.json")" $((32 << 20))
	expect_eq "madvise rss_after" "$(py 'd["rss_after"]' "$tmp/madv.json")" $((64 << 20))
	expect_eq "madvise rss growth = holes" "$(py 'd["rss_growth_bytes"]' "$tmp/madv.json")" \
		"$(py '(d["span_pages"] - d["filled_pages"]) * d["host"]["page_size"]' "$tmp/madv.json")"
	expect_eq "madvise error" "$(py 'd["madvise"]["error"]' "$tmp/madv.json")" None
	expect_eq "madvise schema" "$(py 'd["schema"]' "$tmp/madv.json")" mthpscope.collapse/1
else
	cat "$tmp/madv.err"
fi
check_knobs "madvise mode"
# -o - puts the document alone on stdout (the text report goes to stderr),
# and with --json as well it is refused
"$BIN" collapse --mode madvise --orders 9 --span 4M --fill 50 --timeout 10 --interval 20 \
	-o - >"$tmp/madv-o.json" 2>"$tmp/madv-o.err"
expect_eq "madvise -o - exit" "$?" 0
expect_eq "madvise -o -: stdout is the document" "$(py 'd["schema"]' "$tmp/madv-o.json")" \
	mthpscope.collapse/1
"$BIN" collapse --mode madvise --json -o - >"$tmp/madv-o.json" 2>"$tmp/madv-o.err"
expect_eq "--json and -o - exit" "$?" 2
check_knobs "madvise -o -"

# 2. khugepaged, PMD size enabled, max_ptes_none 511: collapses within the timeout.
"$BIN" collapse --mode khugepaged --orders 9 --max-ptes-none 511 --span 8M --fill 50 \
	--timeout 30 --interval 50 --json >"$tmp/kh.json" 2>"$tmp/kh.err"
rc=$?
expect_eq "khugepaged exit" "$rc" 0
if [ "$rc" = 0 ]; then
	expect_eq "khugepaged final hist" "$(py 'json.dumps(d["timeline"][-1]["hist"])' "$tmp/kh.json")" '{"9": 2048}'
	expect_eq "khugepaged steady" "$(py 'd["steady"]' "$tmp/kh.json")" True
	expect_eq "khugepaged verdict" "$(py 'd["verdict"]' "$tmp/kh.json")" pmd-only
	expect_eq "khugepaged counted" "$(py 'd["khugepaged"]["pages_collapsed"] >= 4' "$tmp/kh.json")" True
else
	cat "$tmp/kh.err"
fi
check_knobs "khugepaged mode"

# 3. max_ptes_none 0 with holes: nothing collapses (steady after two full scans),
#    in a sweep whose first value (511) does collapse: one timeline each.
"$BIN" collapse --orders 9 --max-ptes-none 511,0 --span 8M --fill 50 --timeout 30 \
	--interval 50 --json >"$tmp/sweep.json" 2>"$tmp/sweep.err"
rc=$?
expect_eq "sweep exit" "$rc" 0
if [ "$rc" = 0 ]; then
	expect_eq "sweep runs" "$(py 'len(d["runs"])' "$tmp/sweep.json")" 2
	expect_eq "sweep 511 hist" "$(py 'json.dumps(d["runs"][0]["timeline"][-1]["hist"])' "$tmp/sweep.json")" '{"9": 2048}'
	expect_eq "max_ptes_none 0 hist" "$(py 'json.dumps(d["timeline"][-1]["hist"])' "$tmp/sweep.json")" '{"0": 1024}'
	expect_eq "max_ptes_none 0 top level" "$(py 'd["max_ptes_none"]' "$tmp/sweep.json")" 0
	expect_eq "max_ptes_none 0 verdict" "$(py 'd["verdict"]' "$tmp/sweep.json")" none
	expect_eq "max_ptes_none 0 steady" "$(py 'd["steady"]' "$tmp/sweep.json")" True
	expect_eq "max_ptes_none 0 rss" "$(py 'd["rss_growth_bytes"]' "$tmp/sweep.json")" 0
	# the last sample range by range: one entry per PMD range of the span, in
	# order, adding up to the last timeline sample (the whole span's mass)
	expect_eq "sweep: one final range per PMD range" \
		"$(py '[[g["range"] for g in r["final_ranges"]] for r in d["runs"]]' "$tmp/sweep.json")" \
		'[[0, 1, 2, 3], [0, 1, 2, 3]]'
	expect_eq "sweep: the ranges add up to the span" \
		"$(py 'all({k: sum(g["hist"].get(k, 0) for g in r["final_ranges"]) for k in set().union(*[g["hist"] for g in r["final_ranges"]])} == r["timeline"][-1]["hist"] for r in d["runs"])' "$tmp/sweep.json")" True
	expect_eq "sweep 511: every range a PMD" \
		"$(py 'json.dumps([g["hist"] for g in d["runs"][0]["final_ranges"]])' "$tmp/sweep.json")" \
		'[{"9": 512}, {"9": 512}, {"9": 512}, {"9": 512}]'
else
	cat "$tmp/sweep.err"
fi
check_knobs "sweep"

# 3b. The sweep through 'mthpscope plot': one stacked-area figure.
if command -v gnuplot >/dev/null && [ -s "$tmp/sweep.json" ]; then
	out=$("$BIN" plot "$tmp/sweep.json" -o "$tmp/plot" 2>"$tmp/plot.err")
	rc=$?
	expect_eq "plot exit" "$rc" 0
	expect_eq "plot files" "$out" "$tmp/plot/collapse.png"
	[ -s "$tmp/plot/collapse.png" ] || { echo "FAIL: empty collapse.png"; cat "$tmp/plot.err"; fail=1; }
	expect_eq "plot blocks" "$(grep -c '^# max_ptes_none' "$tmp/plot/collapse.dat")" 2
else
	echo "note: gnuplot missing, plot not checked"
fi

# 4. The text form states what the kernel did (all anon orders enabled).
"$BIN" collapse --span 4M --timeout 30 --interval 50 >"$tmp/text.out" 2>&1
rc=$?
expect_eq "text exit" "$rc" 0
if grep -q "=> this kernel cannot collapse to mTHP orders (no per-size collapse counters below the PMD size): khugepaged collapsed to order 9 (PMD)" "$tmp/text.out"; then
	echo "ok: text states no mTHP collapse"
elif grep -q "=> PMD collapse allowed and won: max_ptes_none" "$tmp/text.out" ||
     grep -q "=> khugepaged collapsed to orders" "$tmp/text.out"; then
	echo "ok: this kernel collapses to mTHP orders"
else
	echo "FAIL: no statement in the text output"; cat "$tmp/text.out"; fail=1
fi
check_knobs "text run"

# 4b. A collapse that waits for another instance describes the machine's
#     settings, not that instance's trial: defrag reads 'defer' while the
#     holder has the lock, the document must say what it is after.
if hold_knob defrag defer 3; then
	MTHPSCOPE_LOCK_WAIT=60 "$BIN" collapse --mode madvise --orders 9 --span 2M --timeout 5 \
		--interval 50 --json >"$tmp/wait.json" 2>"$tmp/wait.err"
	rc=$?
	wait "$holder"
	expect_eq "waiting collapse exit" "$rc" 0
	expect_eq "waiting collapse: thp.defrag" "$(py 'd["thp"]["defrag"]' "$tmp/wait.json")" \
		"$(grep -o '\[[a-z+]*\]' "$THP/defrag" | tr -d '[]')"
else
	echo "FAIL: could not hold the lock to change defrag"; fail=1
fi
check_knobs "a collapse that waited for the lock"

# 5. Killed mid-run (SIGTERM, SIGINT): the journal puts every knob back; with
#    no run whole there is nothing to write, and the process ends of the signal.
#    Orders 2-8 only: khugepaged before 7.2 never runs for them, so the run
#    waits out its timeout unless killed (with mTHP collapse it ends once
#    steady, two full scans after the collapse: later than the kill, sent
#    within 0.1 s of the first knob written).
for sig in TERM INT; do
	"$BIN" collapse --orders 2-8 --span 4M --timeout 60 --interval 50 >/dev/null 2>&1 &
	pid=$!
	# wait until it has written a knob (the journal exists), at most 30 s
	for _ in $(seq 300); do
		[ "$(cat "$THP/hugepages-16kB/enabled" 2>/dev/null | grep -o '\[[a-z]*\]')" = "[madvise]" ] && break
		sleep 0.1
	done
	kill -"$sig" "$pid"
	wait "$pid"
	rc=$?
	expect_eq "killed by SIG$sig" "$rc" $((128 + $(kill -l "$sig")))
	check_knobs "SIG$sig"
done

# 5b. A stop ends the sweep, not its data. SIGINT during --hold ends the
#     hold: that run (its timeline whole) is reported and written, the next
#     value is not run, the document says "interrupted", and the process
#     then ends of the signal (130).
"$BIN" collapse --mode madvise --orders 9 --span 2M --timeout 10 --interval 20 \
	--max-ptes-none 511,0 --hold 60 -o "$tmp/cut.json" >"$tmp/cut.out" 2>"$tmp/cut.err" &
pid=$!
for _ in $(seq 300); do
	grep -q "holds the span" "$tmp/cut.err" && break
	sleep 0.1
done
kill -INT "$pid"
wait "$pid"
expect_eq "SIGINT during --hold" "$?" 130
if [ -s "$tmp/cut.json" ]; then
	expect_eq "cut at the hold: runs, interrupted" \
		"$(py '[r["max_ptes_none"] for r in d["runs"]], d["interrupted"], d["verdict"]' "$tmp/cut.json")" \
		"[511] True pmd-only"
else
	echo "FAIL: SIGINT during --hold: no document"; fail=1
fi
grep -q "interrupted: 1 of 2 max_ptes_none values ran" "$tmp/cut.err" &&
	grep -q "^  => " "$tmp/cut.out" && echo "ok: cut at the hold: said and reported" ||
	{ echo "FAIL: cut at the hold:"; cat "$tmp/cut.err" "$tmp/cut.out"; fail=1; }
check_knobs "SIGINT during --hold"

# 5c. SIGTERM during the second value's timeline: the first run is written,
#     the cut timeline is left out. khugepaged sleeps 600 s between scans
#     here, so no run sees the two full scans 'steady' needs and each waits
#     out its 3 s, with or without mTHP collapse in the kernel; the kill
#     follows the second run's start within 0.1 s.
"$BIN" collapse --orders 2-8 --span 4M --timeout 3 --interval 50 --max-ptes-none 511,0 \
	--scan-sleep 600000 -o "$tmp/cut2.json" >/dev/null 2>"$tmp/cut2.err" &
pid=$!
for _ in $(seq 300); do
	[ "$(grep -c "waiting up to" "$tmp/cut2.err")" = 2 ] && break
	sleep 0.05
done
kill -TERM "$pid"
wait "$pid"
expect_eq "SIGTERM in the second timeline" "$?" 143
if [ -s "$tmp/cut2.json" ]; then
	expect_eq "cut in a timeline: runs, interrupted" \
		"$(py '[r["max_ptes_none"] for r in d["runs"]], d["interrupted"]' "$tmp/cut2.json")" \
		"[511] True"
else
	echo "FAIL: SIGTERM in the second timeline: no document"; fail=1
fi
check_knobs "SIGTERM in the second timeline"

# 6. Bad input.
bad() { # want args...
	local want=$1
	shift
	"$BIN" collapse "$@" >/dev/null 2>"$tmp/bad.err"
	local rc=$?
	if [ "$rc" != "$want" ]; then
		echo "FAIL: collapse $*: exit $rc, want $want"; cat "$tmp/bad.err"; fail=1
	elif [ ! -s "$tmp/bad.err" ]; then
		echo "FAIL: collapse $*: no message"; fail=1
	else
		echo "ok: collapse $* -> $rc: $(head -1 "$tmp/bad.err")"
	fi
}
bad 2 --max-ptes-none 512
bad 2 --max-ptes-none -1
bad 2 --max-ptes-none 511,600
bad 2 --timeout 0
bad 2 --orders 0
bad 2 --orders 10
bad 2 --orders 9-2
bad 3 --orders 1
bad 2 --span 3M
bad 2 --span 0
bad 3 --span 4T
bad 2 --fill 101
bad 2 --mode both
bad 2 extra-argument
if command -v setpriv >/dev/null; then
	setpriv --reuid=65534 --regid=65534 --clear-groups "$BIN" collapse --span 4M \
		>/dev/null 2>"$tmp/bad.err"
	expect_eq "collapse as nobody" "$?" 3
fi
check_knobs "bad input"

exit $fail
