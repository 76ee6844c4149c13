#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The command line: usage errors, help, version, info on this machine, and
# info against recorded sysfs trees (fixtures for kernels we are not on).
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/lib.sh"
: "${bin:?MTHPSCOPE_BIN}"
pass=0
check() { # check NAME EXPECTED_STATUS CMD...
	local name=$1 want=$2; shift 2
	"$@" >"$tmp/cli.out" 2>"$tmp/cli.err"; local got=$?
	if [ "$got" = "$want" ]; then pass=$((pass+1)); else
		echo "FAIL $name: exit $got, want $want"; sed 's/^/  stderr: /' "$tmp/cli.err" | head -5; fail=$((fail+1)); fi
}
expect_in() { # expect_in NAME FILE PATTERN
	if grep -q -- "$3" "$2"; then pass=$((pass+1)); else echo "FAIL $1: '$3' not in $2"; fail=$((fail+1)); fi
}

check no-args 2 "$bin"
expect_in no-args-usage "$tmp/cli.err" "Usage: mthpscope COMMAND"
check help 0 "$bin" --help
expect_in help-lists-info "$tmp/cli.out" "info"
check version 0 "$bin" --version
expect_in version "$tmp/cli.out" "^mthpscope [0-9]"
check unknown-command 2 "$bin" frobnicate
expect_in unknown-command-msg "$tmp/cli.err" "unknown command 'frobnicate'"
check unknown-option 2 "$bin" info --frob
expect_in unknown-option-msg "$tmp/cli.err" "unknown option '--frob'"
expect_in unknown-option-usage "$tmp/cli.err" "Usage: mthpscope info"
check extra-arg 2 "$bin" info extra
# issue 40, hostile pass item 8: MTHPSCOPE_LOCK_WAIT is a whole number of
# seconds, 0 to 86400; anything else was atoi()'s 0 (no wait), said nothing
for v in abc -1 1e9 86401 99999999999999999999 " 5"; do
	check "lock-wait-'$v'" 2 env MTHPSCOPE_LOCK_WAIT="$v" "$bin" restore --help
	expect_in "lock-wait-'$v'-msg" "$tmp/cli.err" "MTHPSCOPE_LOCK_WAIT='$v': seconds to wait for the THP lock"
done
for v in 0 5 86400 ""; do
	check "lock-wait-'$v'" 0 env MTHPSCOPE_LOCK_WAIT="$v" "$bin" restore --help
done
check info-help 0 "$bin" info --help
check restore-help 0 "$bin" restore --help
check restore-bad-wait 2 "$bin" restore --wait x
# hostile pass: a --cpu this host lacks is the user's error (exit 2, how many
# are online), not "cannot pin to CPU 4095: Invalid argument" (exit 3). A run
# directory that does not exist stops them at the journal should they pin.
if [ "$(id -u)" = 0 ] && [ "$(nproc)" -lt 4095 ]; then
	for c in probe run; do
		check "$c-cpu-absent" 2 env MTHPSCOPE_RUNDIR="$tmp/none" "$bin" $c --quick --cpu 4095
		expect_in "$c-cpu-absent-msg" "$tmp/cli.err" "invalid --cpu value '4095': no such CPU"
	done
fi

# info on this machine, as JSON, checked by a second parser.
check info-json 0 "$bin" info --json
python3 - "$tmp/cli.out" <<'PY' || fail=$((fail+1))
import json, os, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "mthpscope.info/1", d["schema"]
h, t = d["host"], d["thp"]
assert h["kernel"] == os.uname().release
assert h["page_size"] == 4096 and h["pmd_order"] == 9
root = "/sys/kernel/mm/transparent_hugepage"
if os.path.exists(root + "/hugepages-64kB/enabled"):
    # this machine: anon orders 2-9, order 1 (8kB) without anon support
    want = sorted(int(n[10:-2]).bit_length() - 3 for n in os.listdir(root)
                  if n.startswith("hugepages-") and os.path.exists(f"{root}/{n}/enabled"))
    assert t["anon_orders"] == want, (t["anon_orders"], want)
    s8 = [s for s in t["sizes"] if s["kb"] == 8]
    assert not s8 or (s8[0]["anon"] is False and s8[0]["enabled"] is None)
    assert all("anon_fault_alloc" in s["stats"] for s in t["sizes"] if s["anon"])
    assert t["mthp_collapse"] is False   # mainline: PMD-only collapse
    assert t["khugepaged"]["max_ptes_none"] >= 0
# no PMU in this VM: say so, with a reason
if not os.path.exists("/sys/bus/event_source/devices/cpu"):
    assert h["pmu"]["available"] is False and h["pmu"]["reason"]
names = {e["name"]: e["opens"] for e in d["perf"]["software_events"]}
assert names["page-faults"] and names["task-clock"]
print("info --json ok")
PY
pass=$((pass+1))
check info-text 0 "$bin" info
expect_in info-text-thp "$tmp/cli.out" "Transparent huge pages"

# Recorded sysfs trees: an old kernel without hugepages-*kB, and a corrupt word.
fx=$(mktemp -d)
mk() { mkdir -p "$(dirname "$1")"; printf '%s\n' "$2" > "$1"; }
old=$fx/old; mk $old/enabled "always [madvise] never"; mk $old/defrag "always defer defer+madvise [madvise] never"
mk $old/hpage_pmd_size 2097152; mk $old/khugepaged/max_ptes_none 511
check info-old-kernel 0 env MTHPSCOPE_THP_ROOT=$old "$bin" info --json
# before 6.8: the PMD order only, following the top-level knob ("inherit")
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); t=d["thp"]; s=t["sizes"]; assert t["anon_orders"]==[9] and t["per_size_mthp"] is False and len(s)==1 and s[0]["order"]==9 and s[0]["kb"]==2048 and s[0]["anon"] and s[0]["enabled"]=="inherit", t' "$tmp/cli.out" || { echo "FAIL old-kernel json"; fail=$((fail+1)); }
bad=$fx/bad; cp -r $old $bad; mk $bad/hugepages-64kB/enabled "always inherit [sometimes] never"
check info-bad-word 1 env MTHPSCOPE_THP_ROOT=$bad "$bin" info
none=$fx/none
check info-no-thp 0 env MTHPSCOPE_THP_ROOT=$none "$bin" info
expect_in info-no-thp-msg "$tmp/cli.out" "not available"
rm -rf "$fx"

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
