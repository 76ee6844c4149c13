#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The TLB model against a measured staircase (doc/tlb-model.md,
"Validation"). From a `run --sweep` results file (each trial carries its layout's
model metrics tlb_entries_l1 / tlb_entries_l2) and `info --json` (the
geometry: the table's capacities and CPUID's), per order:

  - the entries one MiB of the span needs (model, from the real layouts),
  - the span where that footprint passes each level's capacity (table, and
    CPUID's where it differs): capacity / entries per MiB,
  - the measured median time per access at each span and where it first
    steps up (the first pair of neighbouring spans whose medians differ by
    STEP or more, default 2x: the span doubles, a level that stops holding
    the footprint costs a walk per access).

    scripts/tlb-validation.py results.json info.json [STEP]
"""
import json
import statistics
import sys


def load(path):
    with open(path) as f:
        return json.load(f)


def mib(b):
    return b / 1048576.0


def fmt_span(m):
    if m >= 1024:
        return "%.3g GiB" % (m / 1024)
    if m >= 1:
        return "%.3g MiB" % m
    return "%.3g KiB" % (m * 1024)


def capacities(info):
    """[(label, L1, L2)]: the table's geometry, then CPUID's where it differs."""
    g = info["tlb"]["geometry"]
    lv = {l["level"]: l for l in g["levels"]}
    l1, l2 = lv.get("L1D", {}), lv.get("L2", {})
    out = [("%s table" % g["model"], l1.get("entries"), l2.get("entries"))]
    c1, c2 = l1.get("cpuid_entries"), l2.get("cpuid_entries")
    if (c1 and c1 != l1.get("entries")) or (c2 and c2 != l2.get("entries")):
        out.append(("CPUID", c1 or l1.get("entries"), c2 or l2.get("entries")))
    return out


def per_order(res):
    """{order: {span: ([ns_per_access], [l1 entries], [l2 entries])}}"""
    d = {}
    for t in res["trials"]:
        if t.get("pattern") == "sparse" or "span" not in t:
            continue
        m = t["metrics"]
        cell = d.setdefault(t["order"], {}).setdefault(t["span"], ([], [], []))
        if "ns_per_access" in m:
            cell[0].append(m["ns_per_access"]["value"])
        if "tlb_entries_l1" in m:
            cell[1].append(m["tlb_entries_l1"]["value"])
        if "tlb_entries_l2" in m:
            cell[2].append(m["tlb_entries_l2"]["value"])
    return d


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    res, info = load(argv[1]), load(argv[2])
    caps = capacities(info)
    orders = per_order(res)
    spans = sorted({s for o in orders.values() for s in o})
    head = ["order", "L2 entries per MiB (model)"]
    for label, c1, c2 in caps:
        head += ["passes L1 %s (%s)" % (c1, label), "passes L2 %s (%s)" % (c2, label)]
    step = float(argv[3]) if len(argv) > 3 else 2.0
    head += ["first step >= %gx (ns/access)" % step]
    head += ["%s" % fmt_span(mib(s)) for s in spans]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for o in sorted(orders):
        cells = orders[o]
        big = max(s for s in cells if cells[s][2]) if any(c[2] for c in cells.values()) else None
        row = [str(o)]
        if big is None:
            row.append("no layout")
            per1 = per2 = None
        else:
            per1 = statistics.median(cells[big][1]) / mib(big)
            per2 = statistics.median(cells[big][2]) / mib(big)
            row.append("%.4g" % per2)
        for _, c1, c2 in caps:
            for c, per in ((c1, per1), (c2, per2)):
                row.append(fmt_span(c / per) if c and per else "-")
        med = {s: statistics.median(cells[s][0]) for s in cells if cells[s][0]}
        ss = sorted(med)
        steps = [(med[b] / med[a], a, b) for a, b in zip(ss, ss[1:]) if med[a] > 0]
        first = [x for x in steps if x[0] >= step]
        if first:
            r, a, b = first[0]
            row.append("%s -> %s (x%.2f)" % (fmt_span(mib(a)), fmt_span(mib(b)), r))
        else:
            row.append("none")
        row += ["%.1f" % med[s] if s in med else "-" for s in spans]
        print("| " + " | ".join(row) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
