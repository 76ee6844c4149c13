#!/usr/bin/env python3
"""Regenerate the compare fixtures (tests/data/compare-*.json).

Synthetic results files in the mthpscope.results/1 layout with known
effects, so the compare tests can assert exact behaviour:
  compare-base.json      baseline: 10 reps per order, 1 % multiplicative noise
  compare-slow20.json    every metric 20 % higher at every order (a slowdown)
  compare-noise.json     same distribution as base, other noise draws
  compare-nometric.json  like noise, without page_faults (a metric absent)
  compare-lo.json / compare-hi.json   no order in common
  compare-otherhost.json like noise, other cpu_model, virtualized false, PMU on,
                         sizes below PMD enabled "always"
  compare-schema2.json   a future schema version
  compare-empty.json, compare-truncated.json
The output is committed; run this only to change the fixtures:
  python3 tests/data/gen_compare_fixtures.py tests/data
"""
import json
import os
import random
import sys

ORDERS = [0, 2, 3, 4, 5, 6, 7, 8, 9]
SPAN = 134217728
REPS = 10
# A plausible chase-tlb curve: ns per access falls with the folio order.
NS = {0: 176.0, 2: 150.0, 3: 141.0, 4: 120.0, 5: 112.0, 6: 104.0, 7: 97.0, 8: 92.0, 9: 61.0}


def host(kernel, cpu="Intel(R) Xeon(R) Platinum 8375C CPU @ 2.90GHz", virt=True, pmu=False):
    h = {"kernel": kernel, "arch": "x86_64", "cpu_vendor": "GenuineIntel", "cpu_model": cpu,
         "virtualized": virt, "page_size": 4096, "pmd_order": 9,
         "pmu": {"available": pmu, "models": ["icl"] if pmu else []}}
    if not pmu:
        h["pmu"]["reason"] = "a hardware cycles counter does not open"
    return h


def thp(enabled="never"):
    return {"enabled": "madvise", "defrag": "madvise",
            "sizes": [{"order": o, "kb": 4 << o, "enabled": enabled if o < 9 else "inherit"}
                      for o in ORDERS if o],
            "khugepaged": {"max_ptes_none": 511, "scan_sleep_millisecs": 10000}}


def doc(kernel, seed, factor=1.0, orders=ORDERS, metrics=("ns_per_access", "page_faults"),
        sizes_enabled="never", **hostkw):
    rng = random.Random(seed)
    trials = []
    for o in orders:
        for rep in range(REPS):
            m = {}
            if "ns_per_access" in metrics:
                v = NS[o] * factor * (1.0 + rng.gauss(0.0, 0.01))
                m["ns_per_access"] = {"value": round(v, 4), "source": "timing"}
            if "page_faults" in metrics:
                v = (SPAN >> 12 >> o) * factor * (1.0 + rng.gauss(0.0, 0.01))
                m["page_faults"] = {"value": round(v, 1), "source": "sw",
                                    "event": "page-faults", "scale": 1.0}
            trials.append({"order": o, "pattern": "chase-tlb", "span": SPAN, "rep": rep,
                           "accesses": 10000000,
                           "folios": {"hist": {str(o): SPAN >> 12}, "coverage": 1.0},
                           "metrics": m})
    return {"schema": "mthpscope.results/1",
            "tool": {"name": "mthpscope", "version": "0.1.0"},
            "host": host(kernel, **hostkw), "thp": thp(sizes_enabled),
            "config": {"command": "run", "pattern": "chase-tlb", "orders": list(orders),
                       "spans": [SPAN], "reps": REPS, "seed": 1, "cpu": 1},
            "trials": trials}


def write(d, name, obj):
    with open(os.path.join(d, name), "w") as f:
        json.dump(obj, f, indent=None, sort_keys=True)
        f.write("\n")


def main():
    d = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    write(d, "compare-base.json", doc("6.18.0-base", 1))
    write(d, "compare-slow20.json", doc("6.18.0-slow", 2, factor=1.2))
    write(d, "compare-noise.json", doc("6.18.0-noise", 3))
    write(d, "compare-nometric.json", doc("6.18.0-noise", 3, metrics=("ns_per_access",)))
    write(d, "compare-lo.json", doc("6.18.0-base", 4, orders=[0, 2, 3, 4]))
    write(d, "compare-hi.json", doc("6.18.0-base", 5, orders=[5, 6, 7, 8, 9]))
    write(d, "compare-otherhost.json",
          doc("6.18.0-noise", 3, cpu="AMD EPYC 7R13 Processor", virt=False, pmu=True,
              sizes_enabled="always"))
    s2 = doc("6.18.0-base", 1)
    s2["schema"] = "mthpscope.results/2"
    write(d, "compare-schema2.json", s2)
    open(os.path.join(d, "compare-empty.json"), "w").close()
    with open(os.path.join(d, "compare-base.json")) as f:
        text = f.read()
    with open(os.path.join(d, "compare-truncated.json"), "w") as f:
        f.write(text[: len(text) // 2])


main()
