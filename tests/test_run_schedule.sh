#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# run --schedule: interleaved (every order populated up front, timed in rounds
# of short bursts, per-round times in the file, exact faults and accesses per
# order, each rep's placement with its PFN range, knobs as before) and sequential (no rounds); a bad value exits 2.
# Writes THP knobs: MTHPSCOPE_TEST_WRITES_THP
set -u
BIN=${MTHPSCOPE_BIN:?}
# shellcheck source=tests/run-knobs.sh
. "$(dirname "$0")/run-knobs.sh"

[ -e "$THP/hugepages-16kB/enabled" ] || { echo "SKIP: no 16kB anon mTHP size (order 2)"; exit 77; }

"$BIN" run --schedule interleaved --orders 0,2,9 --reps 2 --span 4M --accesses 20000 \
	--sparse 0 -o "$tmp/i.json" >"$tmp/i.out" 2>"$tmp/i.err" ||
	{ echo "FAIL: run --schedule interleaved exited $?"; cat "$tmp/i.err"; fail=1; }
got=$(py 'd["config"]["schedule"], sorted(set((t["order"], t["accesses"], len(t["rounds"]) >= 5, t["metrics"]["page_faults"]["value"], t["folios"]["coverage"] >= 0.95) for t in d["trials"]))' "$tmp/i.json")
want="interleaved [(0, 20000, True, 1024.0, True), (2, 20000, True, 256.0, True), (9, 20000, True, 2.0, True)]"
if [ "$got" = "$want" ]; then
	echo "ok: interleaved: rounds per trial, exact accesses and faults, coverage >= 95%"
else
	echo "FAIL: interleaved: '$got' (want '$want')"; fail=1
fi
# round i of every order of one rep was timed in the same round: equal counts
got=$(py 'len(set((t["rep"], len(t["rounds"])) for t in d["trials"])) == len(set(t["rep"] for t in d["trials"]))' "$tmp/i.json")
[ "$got" = True ] && echo "ok: every order of a rep has the same number of rounds" ||
	{ echo "FAIL: round counts differ within a rep"; fail=1; }
# issue 39: every rep is a placement of its own, recorded with its PFN range:
# two reps, two ids, and order 0's buffer in another range of frames
got=$(py 'all("placement" in t for t in d["trials"] if t["pattern"] != "sparse"), len(set(t["placement"]["id"] for t in d["trials"] if "placement" in t)), len(set((t["placement"]["pfn_min"], t["placement"]["pfn_median"], t["placement"]["pfn_max"]) for t in d["trials"] if t["order"] == 0 and "placement" in t))' "$tmp/i.json")
[ "$got" = "True 2 2" ] && echo "ok: two reps, two placements with differing PFN ranges" ||
	{ echo "FAIL: placements: '$got' (want 'True 2 2')"; fail=1; }
# issue 38: each placement also counts the buffer's distinct 2 MiB and 1 GiB
# frames: between 1 and its pages, a 1 GiB count no larger than the 2 MiB
# one, and a PMD-order buffer of 4 MiB in exactly 2 (its folios are aligned)
got=$(py 'all(1 <= t["placement"]["regions_pud"] <= t["placement"]["regions_pmd"] <= t["span"] // 4096 for t in d["trials"] if "placement" in t), sorted(set(t["placement"]["regions_pmd"] for t in d["trials"] if t["order"] == 9 and "placement" in t))' "$tmp/i.json")
[ "$got" = "True [2]" ] && echo "ok: placements count their 2 MiB and 1 GiB regions" ||
	{ echo "FAIL: regions: '$got' (want 'True [2]')"; fail=1; }
"$BIN" analyze "$tmp/i.json" 2>/dev/null | grep -q "^between placements: SD" &&
	echo "ok: analyze says how far the placements spread" ||
	{ echo "FAIL: no 'between placements' line in analyze"; fail=1; }
"$BIN" analyze "$tmp/i.json" 2>/dev/null | grep -q "paired by round" &&
	echo "ok: analyze takes the paired path on an interleaved file" ||
	{ echo "FAIL: analyze does not pair the rounds"; fail=1; }
# short reps (0.15 s an order), and the paired precision told by the analyzer
got=$(py 'd["config"]["target_trial_seconds"], d["config"]["reps"]' "$tmp/i.json")
[ "$got" = "0.15 2" ] && echo "ok: interleaved trials are 0.15 s" ||
	{ echo "FAIL: interleaved target_trial_seconds, reps: '$got' (want '0.15 2')"; fail=1; }
want=$("$BIN" analyze "$tmp/i.json" --format json | py '"%.1f" % (100 * max(max(o["ci"][1] - o["gain"], o["gain"] - o["ci"][0]) for o in d["orders"] if o["order"]))' /dev/stdin)
grep -q "^widest gain CI is +/-$want points of order 0's time (order [29])" "$tmp/i.out" &&
	echo "ok: run prints the paired precision analyze gives (+/-$want)" ||
	{ echo "FAIL: no paired precision +/-$want in run's output:"; cat "$tmp/i.out"; fail=1; }
check_knobs "an interleaved run"

"$BIN" run --schedule sequential --orders 0,2 --reps 2 --span 4M --accesses 20000 --sparse 0 \
	-o "$tmp/s.json" >/dev/null 2>"$tmp/s.err" || { echo "FAIL: sequential exited $?"; fail=1; }
got=$(py 'd["config"]["schedule"], any("rounds" in t for t in d["trials"]), d["config"]["target_trial_seconds"]' "$tmp/s.json")
[ "$got" = "sequential False 0.5" ] && echo "ok: sequential: no rounds" ||
	{ echo "FAIL: sequential: '$got'"; fail=1; }

# two patterns: every pattern's cell has its own sparse trial, so a (span,
# order) has reps x patterns of them (the summary once wrote past a buffer of
# reps values: a double free, an ASan error here)
"$BIN" run --orders 0,2 --reps 1 --pattern chase-tlb,stream --span 2M --accesses 20000 \
	--sparse 8 -o "$tmp/p.json" >"$tmp/p.out" 2>"$tmp/p.err"
rc=$?
got=$(py 'sum(t["pattern"] == "sparse" for t in d["trials"])' "$tmp/p.json" 2>/dev/null)
if [ $rc = 0 ] && [ "$got" = 4 ] && [ "$(grep -c 'sparse RSS$' "$tmp/p.out")" = 2 ]; then
	echo "ok: two patterns, one rep: 4 sparse trials, both tables printed"
else
	echo "FAIL: two patterns, one rep: exit $rc, $got sparse trials"; cat "$tmp/p.err"; fail=1
fi

# one rep of one round (--accesses 1): one pair per order, no interval, so
# no paired precision line (it printed "+/-0.0 points", a perfect precision)
"$BIN" run --orders 0,2 --reps 1 --span 2M --accesses 1 --sparse 0 >"$tmp/o.out" 2>"$tmp/o.err"
rc=$?
if [ $rc = 0 ] && grep -q "^    2 " "$tmp/o.out" && ! grep -q "paired precision" "$tmp/o.out"; then
	echo "ok: one rep of one round: no paired precision claimed"
else
	echo "FAIL: one rep of one round: exit $rc"; cat "$tmp/o.out" "$tmp/o.err"; fail=1
fi

# A signal ends the plan, not its data: the trials measured are written with
# "interrupted": true (config.reps as planned), the process then ends of the
# signal, analyze and compare say so. Sequential: after the trial in
# progress; interleaved: after the rep, so every rep written has every order.
# The signal comes after a wait that doubles until a run has measured
# something (a slow machine's calibration is longer).
interrupt() { # sig schedule reps
	local sig=$1 sched=$2 reps=$3 wait=1 pid rc
	for _ in 1 2 3 4; do
		rm -f "$tmp/cut.json"
		"$BIN" run --schedule "$sched" --orders 0,2 --reps "$reps" --span 4M \
			--accesses 20000 --sparse 0 -o "$tmp/cut.json" >"$tmp/cut.out" 2>"$tmp/cut.err" &
		pid=$!
		sleep "$wait"
		kill -"$sig" "$pid"
		wait "$pid"
		rc=$?
		[ -s "$tmp/cut.json" ] && break
		wait=$((wait * 2))
	done
	if [ "$rc" != $((128 + $(kill -l "$sig"))) ] || [ ! -s "$tmp/cut.json" ]; then
		echo "FAIL: SIG$sig in a $sched run: exit $rc, document: $(ls "$tmp/cut.json" 2>&1)"
		cat "$tmp/cut.err"; fail=1; return
	fi
	got=$(py 'd["interrupted"], d["config"]["reps"], 0 < len(d["trials"]) < 2 * '"$reps"', len({(t["rep"], t["order"]) for t in d["trials"]}) == len(d["trials"])' "$tmp/cut.json")
	[ "$got" = "True $reps True True" ] && echo "ok: SIG$sig in a $sched run: its trials written, interrupted" ||
		{ echo "FAIL: SIG$sig in a $sched run: '$got'"; fail=1; }
	grep -q "run: interrupted after [0-9]* of the plan's $((2 * reps)) measurements" "$tmp/cut.err" ||
		{ echo "FAIL: SIG$sig in a $sched run: not said"; cat "$tmp/cut.err"; fail=1; }
	"$BIN" analyze "$tmp/cut.json" 2>/dev/null | grep -q "^stop:    interrupted (SIGINT or SIGTERM)" ||
		{ echo "FAIL: analyze of an interrupted run does not say so"; fail=1; }
	check_knobs "SIG$sig in a $sched run"
}
interrupt INT sequential 400
cp "$tmp/cut.json" "$tmp/cut-seq.json"
interrupt TERM interleaved 400
got=$(py 'sorted({sum(t["rep"] == r for t in d["trials"]) for r in {t["rep"] for t in d["trials"]}})' "$tmp/cut.json")
[ "$got" = "[2]" ] && echo "ok: interleaved, interrupted: whole reps only" ||
	{ echo "FAIL: interleaved, interrupted: trials per rep $got"; fail=1; }
"$BIN" compare "$tmp/cut-seq.json" "$tmp/i.json" 2>&1 >/dev/null |
	grep -q "cut-seq was interrupted (SIGINT or SIGTERM) before the end of its plan" &&
	echo "ok: compare warns of an interrupted run" || { echo "FAIL: compare: no warning"; fail=1; }

"$BIN" run --schedule sometimes >/dev/null 2>&1
rc=$?
[ $rc = 2 ] && echo "ok: --schedule sometimes exits 2" || { echo "FAIL: bad --schedule: $rc"; fail=1; }
check_knobs "the whole test"
exit $fail
