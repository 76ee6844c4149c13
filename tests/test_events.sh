#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# mthpscope events: JSON schema, every family's set through the CLI, the
# vendor codes of a few rows, usage errors.
set -euo pipefail
bin=${MTHPSCOPE_BIN:?}
command -v python3 >/dev/null || { echo "SKIP: python3 needed to read JSON"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }

# the detected family (on a VM without a PMU libpfm4 still detects the model)
set +e
out=$("$bin" events --json 2>/tmp/events.err.$$); rc=$?
set -e
if [ $rc -eq 3 ]; then
	echo "no event set for this CPU: $(cat /tmp/events.err.$$)"
else
	[ $rc -eq 0 ] || fail "events --json exited $rc"
	python3 - "$out" <<'PY' || fail "detected set"
import json, sys
d = json.loads(sys.argv[1])
assert d["schema"] == "mthpscope.events/1", d
assert set(d) == {"schema", "tool", "pmu", "metrics"}, d.keys()
assert d["tool"]["name"] == "mthpscope" and d["tool"]["version"], d["tool"]
assert d["metrics"], d
for m in d["metrics"]:
    assert {"metric", "event", "type", "config", "config1"} <= set(m), m
    assert isinstance(m["config"], int), m
print("detected", d["pmu"], len(d["metrics"]), "metrics")
PY
fi
rm -f /tmp/events.err.$$

# every family this build knows: encodes, with integer configs
names=$("$bin" events --pmu list | awk '{print $1}')
[ -n "$names" ] || fail "events --pmu list is empty"
for n in $names; do
	out=$("$bin" events --pmu "$n" --json 2>/dev/null) || fail "events --pmu $n"
	python3 - "$out" "$n" <<'PY' || fail "set $n"
import json, sys
d = json.loads(sys.argv[1])
assert d["pmu"] == sys.argv[2]
names = [m["metric"] for m in d["metrics"]]
assert "walks" in names and "cycles" in names, names
for m in d["metrics"]:
    assert isinstance(m["config"], int) and m["config"] > 0, m
    # a hybrid PMU absent on this host leaves only the perf type unknown
    assert isinstance(m["type"], int) or "/" in m["event"], m
PY
done

# a few vendor codes through the CLI (the full table is tests/test_arch.c)
check() { # pmu metric config
	"$bin" events --pmu "$1" --json 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)
m = {x["metric"]: x for x in d["metrics"]}[sys.argv[1]]
assert m["config"] == int(sys.argv[2], 0), m
' "$2" "$3" || fail "$1 $2 != $3"
}
case "$(uname -m)" in
x86_64)
	check icl walks 0xe08        # DTLB_LOAD_MISSES.WALK_COMPLETED
	check spr walk_cycles 0x1001012
	check amd64_fam19h_zen4 coalesced_hits 0x245
	check amd64_fam1ah_zen5 walks 0xf045
	check adl walks_cpu_atom 0xe08
	;;
aarch64)
	check arm_n1 walks 0x34
	check arm_n3 walk_cycles 0x8128
	;;
esac

# usage errors
set +e
"$bin" events --pmu no_such_pmu >/dev/null 2>&1; rc=$?
[ $rc -eq 2 ] || fail "unknown --pmu exited $rc, expected 2"
"$bin" events extra >/dev/null 2>&1; rc=$?
[ $rc -eq 2 ] || fail "extra argument exited $rc, expected 2"
set -e
"$bin" events --help | grep -q -- "--pmu" || fail "--help"
echo "events: ok"
