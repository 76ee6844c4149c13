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

def with_regions(t, regions, pud):
    """A trial's placement as run records it, with the buffer's distinct
    PMD-size (2 MiB) and PUD-size (1 GiB) PFN frames."""
    t["placement"] = {"id": t["rep"], "pfn_min": 1 << 20, "pfn_median": 2 << 20,
                      "pfn_max": 3 << 20, "ballast_bytes": 0, "regions_pmd": regions,
                      "regions_pud": pud}

def host_files(d):
    """Issue 38, the host side of the nested walk: Intel-like VM files (no
    merging documented) at 64 MiB, layouts ideal at each order, placements
    with regions. host_gradual: a gradual gain at orders 5-8 (2.7, 5.3, 7.7,
    8.3 % as the default run on the project's Intel VM once showed), each
    folio in a 2 MiB region of its own (regions = folios, at least the 32 a
    64 MiB PMD-mapped buffer needs); host_gradual_old: the same without the
    regions (a file from before them); host_step2: every order from 2 on
    gains 60 % of the PMD gain (the shape 4-page merging makes), regions
    those of a real run here (data/timemodel-vm-intel-6.18: about 1450, 300,
    55, then 33-35 down to 32 at PMD)."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import gen_results as gr
    intel_vm = gr.host("x86_64", "GenuineIntel", "Intel(R) Xeon(R) Processor", False, True)
    span = 64 * gr.MiB
    real = {0: 1448, 2: 297, 3: 56, 4: 35, 5: 34, 6: 34, 7: 33, 8: 33, 9: 32}
    cases = (("host_gradual", {5: 0.027, 6: 0.053, 7: 0.077, 8: 0.083, 9: 0.315}, "folios"),
             ("host_gradual_old", {5: 0.027, 6: 0.053, 7: 0.077, 8: 0.083, 9: 0.315}, None),
             ("host_step2", {2: 0.19, 3: 0.19, 4: 0.19, 5: 0.19, 6: 0.19, 7: 0.19, 8: 0.19,
                             9: 0.315}, "real"))
    for i, (name, measured, regions) in enumerate(cases):
        rng = gr.random.Random(380 + (i if regions else 0))
        gains = {o: g / 0.7 for o, g in measured.items()}  # dense_rounds: 0.7 of g is time
        doc = gr.interleaved(gr.doc(intel_vm, "chase-tlb", [span], 8,
                                    gr.dense_rounds(rng, gains, 8, 20, span=span)))
        doc["tool"]["version"] = "synthetic-layout (tests/data/gen_layout.py)"
        doc["config"]["placement"] = "per-rep"
        for t in doc["trials"]:
            t["layout"] = layout(t["order"], span)
            t["tlb"] = {"model": "sapphire-rapids"}
            pages = span >> 12
            if regions == "folios":
                with_regions(t, max(32, pages >> min(t["order"], 9)), 1)
            elif regions == "real":
                with_regions(t, real[t["order"]], 6)
            elif regions is None:
                t["placement"] = {"id": t["rep"], "pfn_min": 1 << 20, "pfn_median": 2 << 20,
                                  "pfn_max": 3 << 20, "ballast_bytes": 0}
        with open(os.path.join(d, name + ".json"), "w") as f:
            json.dump(doc, f, indent=1, sort_keys=True)
            f.write("\n")

def main(d):
    add(os.path.join(d, "sweep_knee2.json"), os.path.join(d, "layout_sweep.json"), "zen4")
    add(os.path.join(d, "knee4.json"), os.path.join(d, "layout_knee4.json"), "neoverse-n1",
        scatter=(4, 256 << 20))
    # issue 38: the time model against gains that follow zen4's table, and
    # against a step at order 3 that only 8-page merging makes
    for name in ("time_zen4", "time_step3"):
        add(os.path.join(d, name + ".json"), os.path.join(d, "layout_" + name + ".json"), "zen4")
    host_files(d)

if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__)))
