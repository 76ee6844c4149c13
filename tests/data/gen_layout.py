#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Synthetic layout fixtures for analyze's TLB model (tests/test_analyze_tlb.sh).

Provenance: SYNTHETIC. Each file is an existing hand-made fixture of
gen_results.py with, in every dense trial, a contiguity histogram ("layout",
src/doc/layout.h) that no machine measured: the trial's span laid out
ideally at its folio order (every folio aligned and physically contiguous
within itself, folios scattered against each other; order 9 PMD-mapped),
and "tlb": {"model": MODEL}, the model a run on that CPU would name. The
tool.version says so too. Re-run after a schema change:
    python3 tests/data/gen_layout.py tests/data
"""
import json, os, sys

def layout(order, span, pmd_order=9, page_shift=12, coverage=1.0):
    pages = span >> page_shift
    contig = [0] * (pmd_order + 1)
    folio = [0] * (pmd_order + 1)
    pmd_maps = 0
    if order >= pmd_order:
        pmd_maps = pages >> pmd_order
    else:
        big = int(pages * coverage) >> order << order
        for k in range(pmd_order + 1):
            contig[k] = (big >> k if k <= order else 0) + ((pages - big) if k == 0 else 0)
            folio[k] = contig[k]
    return {"page_shift": page_shift, "pmd_order": pmd_order, "pmd_maps": pmd_maps,
            "excluded": 0, "contig": contig, "folio": folio}

def add(src, dst, model, scatter=None):
    d = json.load(open(src))
    d["tool"]["version"] = "synthetic-layout (tests/data/gen_layout.py)"
    for t in d["trials"]:
        if t.get("pattern") == "sparse" or "sparse" in t:
            continue
        cov = 0.1 if scatter and (t["order"], t["span"]) == scatter else 1.0
        t["layout"] = layout(t["order"], t["span"], coverage=cov)
        t["tlb"] = {"model": model}
    with open(dst, "w") as f:
        json.dump(d, f, indent=1, sort_keys=True)
        f.write("\n")

def main(d):
    add(os.path.join(d, "sweep_knee2.json"), os.path.join(d, "layout_sweep.json"), "zen4")
    add(os.path.join(d, "knee4.json"), os.path.join(d, "layout_knee4.json"), "neoverse-n1",
        scatter=(4, 256 << 20))
    # issue 38: the time model against gains that follow zen4's table, and
    # against a step at order 3 that only 8-page merging makes
    for name in ("time_zen4", "time_step3"):
        add(os.path.join(d, name + ".json"), os.path.join(d, "layout_" + name + ".json"), "zen4")

if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__)))
