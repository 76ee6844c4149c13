#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# mthpscope events: JSON schema, every family's set through the CLI, the
# vendor codes of a few rows, usage errors.
set -euo pipefail
bin=${MTHPSCOPE_BIN:?}
command -v python3 >/dev/null || { echo "SKIP: python3 needed to read JSON"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
errf=$(mktemp)
trap 'rm -f "$errf"' EXIT

# the detected family (on a VM without a PMU libpfm4 still detects the model)
set +e
out=$("$bin" events --json 2>"$errf"); rc=$?
set -e
if [ $rc -eq 3 ]; then
	# the one environment failure: no event set for this CPU, said as
	# arch_pmu_detect says it, and nothing on stdout
	[ -z "$out" ] || fail "events --json exited 3 with a document: $out"
	grep -qE "^mthpscope: events: (libpfm4 detects '[^']+', for which mthpscope has no TLB event set|neither libpfm4 nor mthpscope's CPU tables know this CPU)" "$errf" ||
		fail "events --json exited 3 without saying this CPU has no event set: $(cat "$errf")"
	echo "no event set for this CPU: $(cat "$errf")"
else
	[ $rc -eq 0 ] || fail "events --json exited $rc"
	python3 - "$out" <<'PY' || fail "detected set"
import json, sys
d = json.loads(sys.argv[1])
assert d["schema"] == "mthpscope.events/1", d
assert set(d) == {"schema", "tool", "pmu", "access", "metrics"}, d.keys()
assert d["access"] == "loads", d["access"]
assert d["tool"]["name"] == "mthpscope" and d["tool"]["version"], d["tool"]
assert d["metrics"], d
for m in d["metrics"]:
    assert {"metric", "event", "type", "config", "config1"} <= set(m), m
    assert isinstance(m["config"], int), m
print("detected", d["pmu"], len(d["metrics"]), "metrics")
PY
fi

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

# a few vendor codes through the CLI (the full table is tests/test_arch.c);
# pattern= before the arguments: that pattern's set (the store pattern's differs on Intel)
check() { # pmu metric config
	"$bin" events --pmu "$1" ${pattern:+--pattern "$pattern"} --json 2>/dev/null | python3 -c '
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
	# the store pattern: DTLB_STORE_MISSES on Intel, the same PMCx045 on AMD
	pattern=store check skl walks 0xe49
	pattern=store check icl walk_cycles 0x1001049
	pattern=store check spr stlb_hits 0x2013
	pattern=store check gnr walk_cycles 0x1001013
	pattern=store check adl walks_cpu_atom 0xe49
	pattern=store check amd64_fam19h_zen4 walks 0xf045
	pattern=random check skl walks 0xe08
	"$bin" events --pmu skl --pattern store --json | grep -q '"access": "stores"' ||
		fail "events --pattern store: access is not stores"
	;;
aarch64)
	check arm_n1 walks 0x34
	check arm_n3 walk_pending 0x8128
	pattern=store check arm_n1 walks 0x34 # DTLB_WALK counts stores' walks too
	;;
esac

# This CPU's set as another CPU would see it: qemu-user's -cpu changes the
# CPUID that libpfm4 reads, and without LIBPFM_ENCODE_INACTIVE libpfm4
# encodes only the PMU it finds active (skx, not skl, on a Skylake server).
# Every event of the detected set must encode, as 'run' would open it.
emulated() { # qemu-cpu pmu event-prefix metric=config...
	local cpu=$1 pmu=$2 prefix=$3 out rc
	shift 3
	set +e
	out=$(env -u LIBPFM_ENCODE_INACTIVE qemu-x86_64 -cpu "$cpu" "$qbin" events --json \
		${pattern:+--pattern "$pattern"} \
		2>"$errf"); rc=$?
	set -e
	[ $rc -eq 0 ] || fail "-cpu $cpu: events exited $rc: $(grep -v TCG "$errf")"
	! grep -q "do not encode" "$errf" || fail "-cpu $cpu: $(cat "$errf")"
	python3 - "$out" "$pmu" "$prefix" "$@" <<'PY' || fail "-cpu $cpu"
import json, sys
d = json.loads(sys.argv[1])
assert d["pmu"] == sys.argv[2], (d["pmu"], sys.argv[2])
m = {x["metric"]: x for x in d["metrics"]}
for x in d["metrics"]:
    assert isinstance(x["type"], int), x            # encoded, not "event not found"
    assert x["event"].startswith(sys.argv[3]), x
for want in sys.argv[4:]:
    k, v = want.split("=")
    assert m[k]["config"] == int(v, 0), (m[k], v)
PY
	echo "-cpu $cpu: $pmu, ${prefix:-raw} events${pattern:+ of pattern $pattern} encode"
}
# qemu-user runs a build without sanitizers (MTHPSCOPE_BIN_PLAIN, scripts/test.sh
# sets it): an ASan build's shadow memory took all 24 GiB there in 2 minutes,
# and the OOM killer ended it
qbin=${MTHPSCOPE_BIN_PLAIN:-$bin}
if ldd "$qbin" 2>/dev/null | grep -q libasan; then
	echo "$qbin is an ASan build: emulated CPUs not checked (set MTHPSCOPE_BIN_PLAIN)"
elif [ "$(uname -m)" = x86_64 ] && command -v qemu-x86_64 >/dev/null &&
   qemu-x86_64 -cpu Skylake-Client "$qbin" --version >/dev/null 2>&1; then
	emulated Skylake-Client skl skl:: walks=0xe08
	emulated Skylake-Server skl skx:: walks=0xe08 stlb_hits=0x2008 walk_cycles=0x1001008
	emulated Cascadelake-Server skl clx:: walks=0xe08 walk_cycles=0x1001008
	emulated Icelake-Server,model=106 icl icx:: walks=0xe08 walk_cycles=0x1001008 cycles=0x3c
	emulated Icelake-Server,model=108 icl icl:: walks=0xe08
	emulated Icelake-Server,model=143 spr spr:: walks=0xe12 walk_cycles=0x1001012
	emulated EPYC,family=25,model=1 amd64_fam19h_zen3 amd64_fam19h_zen3:: walks=0xf045
	emulated EPYC,family=25,model=0x11 amd64_fam19h_zen4 amd64_fam19h_zen4:: walks=0xf045
	emulated EPYC,family=25,model=0x21 amd64_fam19h_zen3 amd64_fam19h_zen3:: walks=0xf045
	emulated EPYC,family=25,model=0x50 amd64_fam19h_zen3 amd64_fam19h_zen3:: walks=0xf045
	# CPUs libpfm4 4.13 does not know: detect() and the raw codes
	for m in 0x10 0x61 0x74 0xa0; do # Zen 4 outside Genoa: Raphael, Phoenix, Bergamo
		emulated EPYC,family=25,model=$m amd64_fam19h_zen4 r dtlb_misses=0xff45 \
			stlb_hits=0xf45 walks=0xf045 coalesced_hits=0x245 cycles=0x76 instructions=0xc0
	done
	emulated Icelake-Server,model=207 spr r walks=0xe12 stlb_hits=0x2012 \
		walk_cycles=0x1001012 cycles=0x3c instructions=0xc0 # Emerald Rapids
	emulated EPYC,family=26,model=0x02 amd64_fam1ah_zen5 r walks=0xf045
	emulated Icelake-Server,model=173 gnr r walks=0xe12 stlb_hits=0x2012 \
		walk_cycles=0x1001012 # Granite Rapids
	# the store pattern's set, as 'run --pattern store' opens it there
	pattern=store emulated Skylake-Server skl skx:: walks=0xe49 stlb_hits=0x2049 \
		walk_cycles=0x1001049
	pattern=store emulated Icelake-Server,model=106 icl icx:: walks=0xe49 walk_cycles=0x1001049
	pattern=store emulated Icelake-Server,model=143 spr spr:: walks=0xe13 stlb_hits=0x2013 \
		walk_cycles=0x1001013
	pattern=store emulated Icelake-Server,model=207 spr r walks=0xe13 stlb_hits=0x2013 \
		walk_cycles=0x1001013 # Emerald Rapids
	pattern=store emulated Icelake-Server,model=173 gnr r walks=0xe13 # Granite Rapids
	pattern=store emulated EPYC,family=25,model=0x11 amd64_fam19h_zen4 amd64_fam19h_zen4:: \
		walks=0xf045
	else
	echo "qemu-x86_64 absent or cannot run this binary: emulated CPUs not checked"
fi

# usage errors
set +e
"$bin" events --pmu no_such_pmu >/dev/null 2>&1; rc=$?
[ $rc -eq 2 ] || fail "unknown --pmu exited $rc, expected 2"
"$bin" events --pattern no_such_pattern >/dev/null 2>&1; rc=$?
[ $rc -eq 2 ] || fail "unknown --pattern exited $rc, expected 2"
"$bin" events extra >/dev/null 2>&1; rc=$?
[ $rc -eq 2 ] || fail "extra argument exited $rc, expected 2"
set -e
"$bin" events --help | grep -q -- "--pmu" || fail "--help"
echo "events: ok"
