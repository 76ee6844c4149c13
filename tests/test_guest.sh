#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Guest smoke test: the tool in real Debian kernels under qemu (TCG here).
#   arm64 6.12 (4K pages): info --json, run --quick --orders 0,4,9, run --backend pmu;
#                          the TLB model on the guest's own layouts (analyze
#                          --tlb-model neoverse-n2 here): contpte entries at order 4
#   amd64 6.12:            info --json, run --quick --orders 0,2,9
#   amd64 6.12 -rt-:       info names CONFIG_TRANSPARENT_HUGEPAGE; run refuses (exit 3)
# Assertions: emulated CPU detected, exact folio orders and coverage, exact
# fault counts (span / folio size), the PMU counters opened (cycles,
# instructions) and those the emulated PMUv3 lacks named. The kernels are in
# tests/guest-kernels (fetched by scripts/setup.sh --tests). SKIPs (77) only
# where qemu, a kernel package or the arm64 binary cannot be had.
# The arm64 binary: $MTHPSCOPE_BIN_ARM64 (scripts/test.sh passes its arm64
# build), else $MTHPSCOPE_SRC/build-arm64/mthpscope.
set -uo pipefail
src=${MTHPSCOPE_SRC:?run under ctest}
bin=${MTHPSCOPE_BIN:?run under ctest}
arm_bin=${MTHPSCOPE_BIN_ARM64:-$src/build-arm64/mthpscope}
g=$src/scripts/guest-run.sh
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
skips=()
fail=0

# The kernel package of an architecture: its -rt- one with "rt" as $2, else the other.
kernel_for() {
	awk -v a="$1" -v rt="${2:-}" '$1 == a && (rt == "rt") == ($2 ~ /-rt-/) { print $2; exit }' \
		"$src/tests/guest-kernels"
}

# A kernel package, from the cache (or fetched now); empty when it cannot be had.
kernel_image() {
	"$src/scripts/guest-kernel.sh" --arch "$1" "$(kernel_for "$1" "${2:-}")" \
		2>"$work/fetch-$1${2:-}.err" || true
}

check() { # name python-assertions-on-files
	if ! python3 - "$work" <<PY
import json, sys, os
w = sys.argv[1]
def J(p): return json.load(open(os.path.join(w, p)))
$2
PY
	then echo "FAIL $1"; fail=$((fail + 1)); else echo "ok   $1"; fi
}

run_guest() { # arch outdir shell-command [rt]
	local arch=$1 out=$2 cmd=$3 flavour=${4:-} b kimg rc=0
	b=$([ "$arch" = arm64 ] && echo "$arm_bin" || echo "$bin")
	kimg=$(kernel_image "$arch" "$flavour")
	if [ -z "$kimg" ]; then
		skips+=("$arch$flavour: kernel package $(kernel_for "$arch" "$flavour") cannot be had: $(tail -n 1 "$work/fetch-$arch$flavour.err")")
		return 77
	fi
	# ASan in an emulated guest: no leak check (its ptrace stop-the-world is slow under TCG)
	MTHPSCOPE_GUEST_ENV="ASAN_OPTIONS=detect_leaks=0" \
	"$g" --arch "$arch" --accel tcg --mem 1G --cpus 1 --timeout 420 --bin "$b" \
		--kernel "$kimg" --out "$out" --shell -- "$cmd" >"$work/$arch.stdout" 2>"$work/$arch.stderr" || rc=$?
	if [ $rc = 3 ]; then
		skips+=("$arch: guest-run.sh cannot run a guest here: $(tail -n 1 "$work/$arch.stderr")")
		return 77
	fi
	if [ $rc != 0 ]; then
		echo "FAIL $arch guest (exit $rc)"; sed 's/^/  /' "$work/$arch.stderr" | tail -n 30
		fail=$((fail + 1)); return 1
	fi
}

if ! command -v qemu-system-aarch64 >/dev/null; then
	skips+=("arm64: qemu-system-aarch64 missing (apt-get install qemu-system-arm)")
elif [ ! -x "$arm_bin" ]; then
	skips+=("arm64: no arm64 build at $arm_bin (scripts/test.sh builds it first and passes MTHPSCOPE_BIN_ARM64)")
else
	# 8M span: order 0 -> 2048 faults, order 4 (64K) -> 128, order 9 (2M) -> 4
	if run_guest arm64 "$work/arm64" 'mthpscope info --json >info.json &&
		mthpscope run --quick --orders 0,4,9 --span 8M -o run.json 2>run.err &&
		mthpscope run --quick --backend pmu --orders 4 --span 8M -o pmu.json 2>pmu.err'; then
		check arm64-info 'd = J("arm64/info.json")["host"]
assert d["arch"] == "aarch64" and d["emulated"] is True and "implementer 0x00" in d["emulation"], d
assert d["page_size"] == 4096 and d["pmd_order"] == 9 and d["pmu"]["available"] is True, d'
		check arm64-run 'r = J("arm64/run.json")
assert r["host"]["emulated"] is True
want = {0: 2048, 4: 128, 9: 4}
dense = [t for t in r["trials"] if t.get("pattern") != "sparse" and "page_faults" in t["metrics"]]
assert sorted({t["order"] for t in dense}) == [0, 4, 9], dense
for t in dense:
    o = t["order"]
    assert t["folios"]["hist"] == {str(o): 2048}, t["folios"]
    assert t["folios"]["coverage"] == 1.0
    assert t["metrics"]["page_faults"]["value"] == want[o], (o, t["metrics"]["page_faults"])'
		# the model from the guest's own layouts (functional only: TCG timing
		# means nothing): 8 MiB needs 2048 entries at order 0, 128 contpte
		# blocks (64K) at order 4, 4 PMD entries at order 9 (issue 38)
		"$bin" analyze --tlb-model neoverse-n2 --json "$work/arm64/run.json" \
			>"$work/arm64/model.json" 2>"$work/arm64/model.err"
		check arm64-contpte-model 'm = J("arm64/model.json")["tlb_model"]
assert m["available"] is True and m["source"] == "model", m
got = {o["order"]: o["entries_needed"] for s in m["spans"] for o in s["orders"]}
assert got == {0: [2048, 2048], 4: [128, 128], 9: [4, 4]}, got'
		check arm64-pmu 'r = J("arm64/pmu.json")
err = open(os.path.join(w, "arm64/pmu.err")).read()
for t in r["trials"]:
    if t["order"] != 4 or "cycles" not in t["metrics"]: continue
    m = t["metrics"]
    assert m["cycles"]["source"] == "pmu" and m["cycles"]["event"] == "r11" and m["cycles"]["value"] > 0, m
    assert m["instructions"]["source"] == "pmu" and m["instructions"]["event"] == "r08" and m["instructions"]["value"] > 0, m
    assert "walks" not in m and "dtlb_misses" not in m, m
    break
else:
    raise AssertionError("no order-4 trial with PMU cycles")
for ev in ("r05", "r25", "r2d", "r34"):
    assert "does not count %s" % ev in err, err'
	fi
fi

if ! command -v qemu-system-x86_64 >/dev/null; then
	skips+=("x86_64: qemu-system-x86_64 missing (apt-get install qemu-system-x86)")
elif [ "$(uname -m)" != x86_64 ]; then
	skips+=("x86_64: the host build is not an x86_64 binary")
else
	# 8M span: order 0 -> 2048 faults, order 2 (16K) -> 512, order 9 (2M) -> 4
	if run_guest x86_64 "$work/x86_64" 'mthpscope info --json >info.json &&
		mthpscope run --quick --orders 0,2,9 --span 8M -o run.json 2>run.err'; then
		check x86_64-info 'd = J("x86_64/info.json")["host"]
assert d["arch"] == "x86_64" and d["emulated"] is True and "TCGTCGTCGTCG" in d["emulation"], d
assert d["virtualized"] is True and d["page_size"] == 4096 and d["pmd_order"] == 9, d'
		check x86_64-run 'r = J("x86_64/run.json")
want = {0: 2048, 2: 512, 9: 4}
dense = [t for t in r["trials"] if t.get("pattern") != "sparse" and "page_faults" in t["metrics"]]
assert sorted({t["order"] for t in dense}) == [0, 2, 9], dense
for t in dense:
    o = t["order"]
    assert t["folios"]["hist"] == {str(o): 2048} and t["folios"]["coverage"] == 1.0, t["folios"]
    assert t["metrics"]["page_faults"]["value"] == want[o], (o, t["metrics"]["page_faults"])'
	fi
fi

# The PREEMPT_RT flavour of 6.12 has no THP: info names the missing
# configuration (read from the guest's /boot/config-<release>, which
# guest-run.sh puts there), and run refuses with it (exit 3).
if ! command -v qemu-system-x86_64 >/dev/null || [ "$(uname -m)" != x86_64 ]; then
	skips+=("x86_64 rt: qemu-system-x86_64 missing or not an x86_64 host")
elif run_guest x86_64 "$work/rt" 'mthpscope info --json >info.json; mthpscope info >info.txt;
	mthpscope run --quick --orders 0 --span 2M -o run.json 2>run.err; echo $? >run.rc; true' rt; then
	check x86_64-rt-info 't = J("rt/info.json")["thp"]
k = t["kernel"]
assert t["available"] is False and "built without CONFIG_TRANSPARENT_HUGEPAGE" in t["reason"], t
assert "PREEMPT_RT" in t["reason"] and "6.8" not in t["reason"], t
assert k["transparent_hugepage_config"] is False and k["preempt_rt"] is True and k["sysfs"] is False, k
assert k["config"].startswith("/boot/config-6.12") and "-rt-" in k["release"], k
assert "CONFIG_TRANSPARENT_HUGEPAGE" in open(os.path.join(w, "rt/info.txt")).read()'
	check x86_64-rt-run 'assert open(os.path.join(w, "rt/run.rc")).read().strip() == "3"
err = open(os.path.join(w, "rt/run.err")).read()
assert "built without CONFIG_TRANSPARENT_HUGEPAGE" in err, err
assert not os.path.exists(os.path.join(w, "rt/run.json"))'
fi

for s in "${skips[@]}"; do echo "SKIP $s"; done
[ $fail = 0 ] || exit 1
# SKIP only when nothing ran at all
[ ${#skips[@]} -lt 3 ] || exit 77
exit 0
