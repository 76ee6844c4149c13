#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Within one order, does a placement's count of guest-physical 2 MiB regions
(placement.regions_pmd) go with its time? The time model's host term reads the
regions across orders; this asks the same of the placements of one order,
where nothing else changes. Each trial's time is taken against the PMD order's
in the same rep (the same placement round, so the machine's state cancels).
Usage: scripts/timemodel-regions.py RESULTS.json   (xz -dk FILE.json.xz first)"""
import json, math, statistics, sys

def ranks(v):
    r = [0] * len(v)
    for k, i in enumerate(sorted(range(len(v)), key=lambda i: v[i])):
        r[i] = k
    return r

def spearman(x, y):
    rx, ry = ranks(x), ranks(y)
    mx, my = statistics.mean(rx), statistics.mean(ry)
    c = sum((a - mx) * (b - my) for a, b in zip(rx, ry))
    return c / math.sqrt(sum((a - mx) ** 2 for a in rx) * sum((b - my) ** 2 for b in ry))

def main(path):
    r = json.load(open(path))
    by = {(t["order"], t["rep"]): t for t in r["trials"]
          if t["pattern"] == "chase-tlb" and "placement" in t and "ns_per_access" in t["metrics"]}
    print("order  reps  regions: median [min, max]  Spearman(regions, log t/t_PMD)")
    for k in sorted({o for o, _ in by}):
        reps = [rp for o, rp in by if o == k and (9, rp) in by]
        reg = [by[(k, rp)]["placement"]["regions_pmd"] for rp in reps]
        t = [math.log(by[(k, rp)]["metrics"]["ns_per_access"]["value"] /
                      by[(9, rp)]["metrics"]["ns_per_access"]["value"]) for rp in reps]
        rho = spearman(reg, t) if k != 9 and len(set(reg)) > 1 else float("nan")
        print(f"{k:5d} {len(reps):5d}  {statistics.median(reg):7.1f} [{min(reg)}, {max(reg)}]"
              f"{'':10s}{rho:+.2f}")

if __name__ == "__main__":
    main(sys.argv[1])
