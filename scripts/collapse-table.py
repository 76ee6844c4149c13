#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""One row per cell of a collapse matrix (scripts/collapse-matrix.sh): the
documents DIR/*.json of mthpscope.collapse/1, one row per max_ptes_none run.

  scripts/collapse-table.py DIR [DIR...] > cells.tsv

Columns: kernel, arch, page_size, mode, orders (targets), fill (%), max_ptes_none,
mass (final folio orders: order:pages,...), the share of the span's present pages in
folios above order 0 (large_pct), rss_before/rss_after (KiB), growth_pct (RSS growth
over the faulted pages), t_steady_ms (first sample equal to the final histogram),
steady (1/0), verdict, mpn_mthp (max_ptes_none mTHP collapse applied, and how known).
"""
import json
import os
import sys


def t_steady(run):
    tl = run["timeline"]
    last = tl[-1]
    for s in tl:
        if s["hist"] == last["hist"] and s.get("rss_bytes") == last.get("rss_bytes"):
            return s["t_ms"]
    return last["t_ms"]


def rows(path):
    d = json.load(open(path))
    if d.get("schema") != "mthpscope.collapse/1":
        return
    c = d["config"]
    orders = c["orders"]
    lo, hi = min(orders), max(orders)
    targets = "%d-%d" % (lo, hi) if len(orders) > 1 and hi - lo + 1 == len(orders) else ",".join(map(str, orders))
    for r in d["runs"]:
        final = r["timeline"][-1]["hist"]
        pages = sum(final.values())
        large = sum(v for k, v in final.items() if k != "0")
        mass = ",".join("%s:%d" % (k, final[k]) for k in sorted(final, key=int))
        before, after = r.get("rss_before", 0), r.get("rss_after", 0)
        mm = r.get("mthp_max_ptes_none") or {}
        yield [d["host"].get("kernel", "?"), d["host"].get("arch", "?"), str(d["host"]["page_size"]),
               c["mode"], targets, "%g" % (c["fill"] * 100), str(r["max_ptes_none"]), mass or "-",
               "%.1f" % (100.0 * large / pages if pages else 0), str(before // 1024), str(after // 1024),
               "%.1f" % (100.0 * (after - before) / before if before else 0), str(t_steady(r)),
               "1" if r.get("steady") else "0", r.get("verdict", "?"),
               "%s(%s)" % (mm.get("value"), mm.get("source")) if mm and mm.get("value") is not None else "-"]


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: collapse-table.py DIR [DIR...]")
    print("\t".join(["kernel", "arch", "page_size", "mode", "orders", "fill", "max_ptes_none", "mass",
                     "large_pct", "rss_before_kib", "rss_after_kib", "growth_pct", "t_steady_ms",
                     "steady", "verdict", "mpn_mthp"]))
    for d in sys.argv[1:]:
        for f in sorted(os.listdir(d)):
            if f.endswith(".json") and f != "info.json":
                for row in rows(os.path.join(d, f)):
                    print("\t".join(row))


if __name__ == "__main__":
    main()
