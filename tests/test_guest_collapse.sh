#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# khugepaged mTHP collapse in a real kernel that has it: Debian's 7.3.4 amd64
# (tests/guest-kernels, "x86_64:collapse"; fetched by scripts/setup.sh --tests)
# booted under qemu TCG, one boot for every run:
#   collapse --orders 2-9 --max-ptes-none 0,64,511 --span 8M --fill 50
# Assertions: at 0, the span collapses to orders below the PMD (none at 9) with
# the RSS unchanged, "khugepaged collapsed to orders ..."; at 64 the same, and
# the kernel's rewrite of 64 to 0 for mTHP orders is read from its log; at 511,
# PMD only (2048 pages at order 9) and the conclusion "PMD collapse allowed and
# won", never "cannot collapse to mTHP orders". info: mTHP collapse yes, the
# kernel config's CONFIG_TRANSPARENT_HUGEPAGE=y. About 30-60 s under TCG.
# SKIPs (77) only where qemu or the kernel package cannot be had.
set -uo pipefail
src=${MTHPSCOPE_SRC:?run under ctest}
bin=${MTHPSCOPE_BIN:?run under ctest}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

pkg=$(awk '$1 == "x86_64:collapse" { print $2 }' "$src/tests/guest-kernels")
if ! command -v qemu-system-x86_64 >/dev/null; then
	echo "SKIP qemu-system-x86_64 missing (apt-get install qemu-system-x86)"; exit 77
fi
if [ "$(uname -m)" != x86_64 ]; then
	echo "SKIP the host build is not an x86_64 binary"; exit 77
fi
if ! kimg=$("$src/scripts/guest-kernel.sh" --arch x86_64 "$pkg" 2>"$work/fetch.err"); then
	echo "SKIP kernel package $pkg cannot be had: $(tail -n 1 "$work/fetch.err")"; exit 77
fi
rc=0
MTHPSCOPE_GUEST_ENV="ASAN_OPTIONS=detect_leaks=0" \
"$src/scripts/guest-run.sh" --arch x86_64 --accel tcg --mem 1G --timeout 170 --bin "$bin" \
	--kernel "$kimg" --out "$work/out" --shell -- 'mthpscope info --json >info.json &&
	mthpscope collapse --orders 2-9 --max-ptes-none 0,64,511 --span 8M --fill 50 \
		--timeout 30 -o collapse.json >collapse.txt' >"$work/stdout" 2>"$work/stderr" || rc=$?
if [ $rc = 3 ]; then
	echo "SKIP guest-run.sh cannot run a guest here: $(tail -n 1 "$work/stderr")"; exit 77
fi
if [ $rc != 0 ]; then
	echo "FAIL the guest run (exit $rc)"; tail -n 30 "$work/stderr"; exit 1
fi
sed 's/^/  | /' "$work/out/collapse.txt"
python3 - "$work/out" <<'PY'
import json, os, sys
w = sys.argv[1]
info = json.load(open(os.path.join(w, "info.json")))
assert info["thp"]["mthp_collapse"] is True, info["thp"]
assert info["kernel_config"]["options"]["CONFIG_TRANSPARENT_HUGEPAGE"] == "y", info["kernel_config"]
d = json.load(open(os.path.join(w, "collapse.json")))
assert d["kernel_support"]["mthp_collapse"] is True, d["kernel_support"]
runs = {r["max_ptes_none"]: r for r in d["runs"]}
for mpn in (0, 64):
    r = runs[mpn]
    final = {int(k): v for k, v in r["timeline"][-1]["hist"].items()}
    mthp = [o for o, v in final.items() if 2 <= o <= 8 and v]
    assert mthp and 9 not in final, (mpn, final)
    assert r["rss_after"] == r["rss_before"], (mpn, r["rss_before"], r["rss_after"])
    assert r["verdict"] in ("mthp", "mthp-creep"), (mpn, r["verdict"])
    assert r["statement"].startswith("khugepaged collapsed to orders "), r["statement"]
    assert r["steady"] is True, mpn
r = runs[64]
assert r["mthp_max_ptes_none"] == {"value": 0, "source": "kernel-log"}, r["mthp_max_ptes_none"]
assert r["kernel_log"]["rewrite_message"] is True and r["kernel_log"]["kept"] == 511, r["kernel_log"]
assert "the kernel rewrote max_ptes_none 64 to 0 for mTHP orders" in r["statement"], r["statement"]
r = runs[511]
assert r["timeline"][-1]["hist"] == {"9": 2048}, r["timeline"][-1]["hist"]
assert r["rss_after"] == 8 << 20, r["rss_after"]
assert r["verdict"] == "pmd-won", r["verdict"]
assert r["statement"].startswith("PMD collapse allowed and won: max_ptes_none 511 >= the 256 "
                                 "empty PTEs per PMD"), r["statement"]
assert "cannot collapse" not in r["statement"] and "does not collapse" not in r["statement"]
print("ok   7.3.4 amd64: orders %s at 0 (RSS unchanged), 64 rewritten to 0 (kernel log), PMD won at 511"
      % sorted(int(k) for k in runs[0]["timeline"][-1]["hist"] if k != "0"))
PY
