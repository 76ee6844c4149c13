#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# mthpscope run -- CMD with real child processes (tests/helper_alloc): exact
# fault counts at orders 0, 2 and 9 with coverage >= 95 %, a child that forks
# (counters and scans inherit over the tree), a failing command, --timeout,
# SIGTERM during a trial (knobs restored, no process left), --metric parsing,
# CMD not found before any knob is touched, analyze and compare on the results,
# a buffer freed before exit counted by the scans of the program's life.
# Writes THP knobs: MTHPSCOPE_TEST_WRITES_THP
set -u
BIN=${MTHPSCOPE_BIN:?}
# shellcheck source=tests/run-knobs.sh
. "$(dirname "$0")/run-knobs.sh"

HELPER=$(dirname "$BIN")/tests/helper_alloc
[ -x "$HELPER" ] || { echo "SKIP: $HELPER is not built"; exit 77; }
[ -e "$THP/hugepages-16kB/enabled" ] || { echo "SKIP: no 16kB anon mTHP size (order 2)"; exit 77; }
run() { "$BIN" run "$@"; }
M=(--metric 'faults=faults: ([0-9]+)' --metric 'rate=mib_per_s: ([0-9.]+)' --better higher)

# 1. exact faults per order, coverage, the trial's workload and metrics
run --orders 0,2,9 --reps 1 "${M[@]}" -o "$tmp/a.json" -- "$HELPER" 64 >"$tmp/a.out" 2>"$tmp/a.err"
rc=$?
if [ $rc != 0 ]; then echo "FAIL: run -- helper exited $rc"; cat "$tmp/a.err"; fail=1; fi
got=$(py '" ".join("%d:%d:%s" % (t["order"], t["metrics"]["faults"]["value"], t["folios"]["coverage"] >= 0.95) for t in sorted(d["trials"], key=lambda t: t["order"]))' "$tmp/a.json")
if [ "$got" = "0:16384:True 2:4096:True 9:32:True" ]; then
	echo "ok: faults exactly 64 MiB / folio size at orders 0, 2, 9, coverage >= 95%"
else
	echo "FAIL: faults/coverage per order: '$got' (want 0:16384:True 2:4096:True 9:32:True)"; fail=1
fi
got=$(py 'd["trials"][0]["workload"]["kind"], d["trials"][0]["workload"]["argv"][1], d["trials"][0]["metrics"]["rate"]["better"], d["trials"][0]["metrics"]["rate"]["source"], d["trials"][0]["exit"]["code"], sorted(k for k in ("wall_ns","user_ns","sys_ns","minor_faults","max_rss_bytes","voluntary_switches","page_faults") if k in d["trials"][0]["metrics"]) == sorted(("wall_ns","user_ns","sys_ns","minor_faults","max_rss_bytes","voluntary_switches","page_faults"))' "$tmp/a.json")
if [ "$got" = "command 64 higher workload 0 True" ]; then
	echo "ok: trials carry workload argv, exit code, rusage, sw counters, the --metric"
else
	echo "FAIL: trial fields: '$got'"; fail=1
fi
# every metric the engine sets is a row of the registry (src/doc/metrics.c),
# which gives its unit, direction and report order; a --metric is the user's
reg=$(sed -n 's/^[[:space:]]*{ "\([a-z0-9_]*\)".*/\1/p' "${MTHPSCOPE_SRC:?}/src/doc/metrics.c" | tr '\n' ' ')
got=$(py '" ".join(sorted({k for t in d["trials"] for k, m in t["metrics"].items() if m["source"] != "workload" and k not in "'"$reg"'".split()}))' "$tmp/a.json")
if [ -z "$got" ] && [ -n "$reg" ]; then
	echo "ok: every metric of the trials is in the registry"
else
	echo "FAIL: metrics not in src/doc/metrics.c: '$got'"; fail=1
fi
check_knobs "run -- helper"

# 2. a child that forks: inherited counters and the scan of the tree
run --orders 0,9 --reps 1 "${M[@]}" -o "$tmp/f.json" -- "$HELPER" 32 fork >"$tmp/f.out" 2>"$tmp/f.err" ||
	{ echo "FAIL: run -- helper fork exited $?"; cat "$tmp/f.err"; fail=1; }
got=$(py '" ".join("%d:%d:%s:%s:%s" % (t["order"], t["metrics"]["faults"]["value"], t["metrics"]["page_faults"]["value"] >= t["metrics"]["faults"]["value"], t["metrics"]["minor_faults"]["value"] >= t["metrics"]["faults"]["value"], t["folios"]["coverage"] >= 0.95) for t in sorted(d["trials"], key=lambda t: t["order"]))' "$tmp/f.json")
if [ "$got" = "0:8192:True:True:True 9:16:True:True:True" ]; then
	echo "ok: the forked child's faults count (sw inherited, rusage of the tree) and its memory is scanned"
else
	echo "FAIL: fork: '$got' (want 0:8192:True:True:True 9:16:True:True:True)"; fail=1
fi

# 3. a failing command: kept, flagged failed, exit 1 when a whole order failed
run --orders 0,2 --reps 2 -o "$tmp/x.json" -- "$HELPER" 4 exit=3 >"$tmp/x.out" 2>"$tmp/x.err"
rc=$?
got=$(py '" ".join(sorted(set("%s:%d" % (",".join(t.get("flags", [])), t["exit"]["code"]) for t in d["trials"])))' "$tmp/x.json")
if [ $rc = 1 ] && [ "$got" = "failed:3" ] && grep -q "every trial of order" "$tmp/x.err" &&
   grep -q "exited with status 3" "$tmp/x.err"; then
	echo "ok: a failing command is flagged failed with its exit code, run exits 1"
else
	echo "FAIL: failing command: rc $rc, flags '$got'"; cat "$tmp/x.err"; fail=1
fi
if "$BIN" analyze "$tmp/x.json" >/dev/null 2>"$tmp/xa.err"; then
	echo "FAIL: analyze of only failed trials succeeded"; fail=1
else
	echo "ok: analyze leaves failed trials out (nothing left to analyse)"
fi
check_knobs "a failing command"

# 4. --timeout kills the group and flags the trial
start=$(date +%s)
run --orders 0 --reps 1 --timeout 0.5 -o "$tmp/t.json" -- "$HELPER" 4 sleep=30000 >/dev/null 2>"$tmp/t.err"
rc=$?
took=$(( $(date +%s) - start ))
got=$(py '",".join(d["trials"][0].get("flags", []))' "$tmp/t.json")
if [ $rc = 1 ] && [ "$got" = "failed,timeout" ] && [ $took -lt 10 ]; then
	echo "ok: --timeout 0.5 killed the command (${took}s), flagged timeout"
else
	echo "FAIL: timeout: rc $rc, flags '$got', ${took}s"; cat "$tmp/t.err"; fail=1
fi
check_knobs "--timeout"

# 5. SIGTERM during a trial: the command's tree dies, the knobs come back
rm -f "$tmp/pid"
"$BIN" run --orders 2 --reps 1 -o "$tmp/s.json" -- "$HELPER" 8 fork sleep=60000 \
	pidfile="$tmp/pid" >/dev/null 2>"$tmp/s.err" &
mp=$!
# up to 120 s: the run may first wait for another instance's lock (MTHPSCOPE_LOCK_WAIT)
for _ in $(seq 2400); do [ -s "$tmp/pid" ] && break; sleep 0.05; done
cp=$(cat "$tmp/pid" 2>/dev/null)
kill -TERM $mp
wait $mp
rc=$?
# mthpscope reaps the killed tree before it exits: no process, not even a zombie
running() { kill -0 "$1" 2>/dev/null; }
if [ -n "$cp" ] && [ $rc = 143 ] && ! running "$cp" && [ ! -e "$tmp/s.json" ]; then
	echo "ok: SIGTERM mid-trial: exit 143, the command's child $cp no longer runs, no results file"
else
	echo "FAIL: SIGTERM: rc $rc, child '$cp' running=$(running "$cp" && echo yes || echo no)"
	cat "$tmp/s.err"; fail=1
fi
check_knobs "SIGTERM during a trial"

# 6. bad input: exit 2 and no knob touched
for args in "-- /nonexistent/cmd" "-- $tmp" "--" "--metric nogroup=abc -- true" \
	    "--metric x=( -- true" "--better higher -- true" "--metric faults -- true" \
	    "--scan-interval 10" "--span 2M -- true" "--log $tmp/nodir -- true"; do
	# shellcheck disable=SC2086
	run $args >/dev/null 2>"$tmp/e.err"
	rc=$?
	if [ $rc != 2 ]; then echo "FAIL: run $args: exit $rc (want 2)"; fail=1; fi
done
grep -q "not found" <(run -- no-such-command-xyz 2>&1) ||
	{ echo "FAIL: CMD not found does not say so"; fail=1; }
check_knobs "bad input (exit 2)"
# a script whose #! interpreter is not there: exec fails with ENOENT after
# the knobs were set; it was exit 3, "run: .../transparent_hugepage/enabled:
# not found: this kernel does not offer it"
printf '#!/nonexistent/interpreter\n' >"$tmp/badinterp.sh"
chmod +x "$tmp/badinterp.sh"
run -- "$tmp/badinterp.sh" >/dev/null 2>"$tmp/e.err"
rc=$?
if [ $rc = 2 ] && grep -q "cannot run '$tmp/badinterp.sh': No such file or directory (the file is there" "$tmp/e.err" &&
   ! grep -q "transparent_hugepage" "$tmp/e.err"; then
	echo "ok: a missing #! interpreter: exit 2, said as such"
else
	echo "FAIL: a missing #! interpreter: exit $rc"; cat "$tmp/e.err"; fail=1
fi
check_knobs "a command whose exec fails"
# a --metric named as a metric run records itself: the trial's metrics are
# one object by name, and 'wall_ns=...' replaced the measured wall time
# with the printed number (exit 0)
run --metric 'wall_ns=v=([0-9]+)' -- sh -c 'echo v=42' >/dev/null 2>"$tmp/e.err"
rc=$?
if [ $rc = 2 ] && grep -q "'wall_ns' is a metric mthpscope records itself" "$tmp/e.err"; then
	echo "ok: --metric wall_ns=...: exit 2, the name is taken"
else
	echo "FAIL: --metric wall_ns=...: exit $rc"; cat "$tmp/e.err"; fail=1
fi

# 7. a --metric that never matches: a warning per trial, the metric absent
run --orders 0 --reps 2 --metric 'nope=^never ([0-9]+)' -o "$tmp/n.json" -- "$HELPER" 4 \
	>/dev/null 2>"$tmp/n.err"
rc=$?
got=$(py 'sum("nope" in t["metrics"] for t in d["trials"])' "$tmp/n.json")
if [ $rc = 0 ] && [ "$got" = 0 ] && [ "$(grep -c "no line of the output matches" "$tmp/n.err")" = 2 ]; then
	echo "ok: an unmatched --metric warns per trial and is absent"
else
	echo "FAIL: unmatched metric: rc $rc, present in $got trials"; cat "$tmp/n.err"; fail=1
fi

# 8. analyze names the primary metric of a command (the user's --metric);
#    compare takes two command results
pm=$("$BIN" analyze --format json "$tmp/a.json" 2>/dev/null |
	python3 -c 'import json,sys; print(json.load(sys.stdin)["primary_metric"])')
if [ "$pm" = faults ]; then
	echo "ok: analyze takes the user's --metric as the primary metric of a command"
else
	echo "FAIL: analyze primary metric '$pm' (want faults)"; fail=1
fi
run --orders 0,2,9 --reps 1 "${M[@]}" -o "$tmp/b.json" -- "$HELPER" 64 >/dev/null 2>&1
if "$BIN" compare "$tmp/a.json" "$tmp/b.json" >"$tmp/c.out" 2>"$tmp/c.err" &&
   grep -q "pattern command" "$tmp/c.out" && grep -q "^faults .* 9 " "$tmp/c.out"; then
	echo "ok: compare of two command results"
else
	echo "FAIL: compare of two command results"; cat "$tmp/c.out" "$tmp/c.err"; fail=1
fi
# 9. issue 42: a program that frees its buffer before it exits keeps its
#    order-2 trials: coverage comes from every scan of its life (the exit
#    scan sees none of the buffer), and the analysis leaves nothing out
run --orders 0,2 --reps 2 -o "$tmp/fr.json" -- "$HELPER" 64 sleep=800 free=400 \
	>/dev/null 2>"$tmp/fr.err" || { echo "FAIL: run -- helper free= exited $?"; cat "$tmp/fr.err"; fail=1; }
got=$(py '" ".join("%d:%s:%s:%s" % (t["order"], t["folios"]["coverage"] >= 0.5, t["folios"].get("scope"), t["folios"]["scans"] >= 2) for t in sorted(d["trials"], key=lambda t: (t["order"], t["rep"])))' "$tmp/fr.json")
want="0:True:lifetime:True 0:True:lifetime:True 2:True:lifetime:True 2:True:lifetime:True"
an=$("$BIN" analyze --format json "$tmp/fr.json" 2>"$tmp/fr.aerr" |
	python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["trials_excluded"], [o["n"] for o in d["program"]["orders"]])')
if [ "$got" = "$want" ] && [ "$an" = "0 [2, 2]" ]; then
	echo "ok: a buffer freed before exit: the lifetime coverage saw it, both order-2 trials analysed"
else
	echo "FAIL: freed buffer: '$got' (want '$want'), analyze '$an' (want '0 [2, 2]')"
	cat "$tmp/fr.err" "$tmp/fr.aerr"; fail=1
fi
check_knobs "the whole test"
exit $fail
