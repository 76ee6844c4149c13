#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Out-of-sample check of analyze's first-level term on the Zen 4 paired runs
(data/vm-amd-epyc-6.18, stability/after/unloaded-files.tar.xz of git 5c469fd).

analyze fits the term's share s in each file. Here s is fixed from other runs
and applied to a run it was not fitted on, with the same formula as
src/analysis/tlb_time.c: order k gains G ((1 - s) S_walk(k) + s S_L1(k)), the
interval G's times that factor; zen4's table (L1 72, L2 3072 entries, 4 and 8
merged), layouts assumed from the folio histograms at 16 MiB. Also the host
side's term at the table's capacity (regions assumed: one per folio, these
files have none), to show it cannot produce the plateau below PMD.
Usage: scripts/timemodel-zen4-check.py DIR   (DIR holds analysis-1.json .. analysis-20.json)
"""
import json, statistics, sys

def miss(n, cap):
    return max(0.0, 1.0 - cap / n) if n else 0.0

ENT = {0: 4096, 2: 1024, 3: 512, 4: 512, 5: 512, 6: 512, 7: 512, 8: 512, 9: 8}
KS = [2, 3, 4, 5, 6, 7, 8]

def load(d, i):
    a = json.load(open(f"{d}/analysis-{i}.json"))
    return {o["order"]: o for o in a["orders"]}

def drivers(kind, ch=None):
    u = {k: miss(n, 3072) for k, n in ENT.items()}
    if kind == "l1":
        x = {k: miss(n, 72) for k, n in ENT.items()}
    else:
        x = {k: u[k] * miss(ENT[k] if k else 4096, ch) for k in ENT}
    A = {k: (u[0] - u[k]) / (u[0] - u[9]) for k in ENT}
    X = x[0] - x[9]
    B = {k: (x[0] - x[k]) / X if X > 0 else 0.0 for k in ENT}
    return A, B, X, u[0] - u[9]

def fit(o, A, B, smax):
    G = o[9]["gain"]
    num = den = 0.0
    for k in KS:
        se = max((o[k]["ci"][1] - o[k]["ci"][0]) / 3.92, 0.002)
        dk = G * (B[k] - A[k])
        num += (o[k]["gain"] - G * A[k]) * dk / se ** 2
        den += dk * dk / se ** 2
    return min(smax, max(0.0, num / den)) if den > 0 else 0.0

def within(o, A, B, s):
    G, lo, hi = o[9]["gain"], o[9]["ci"][0], o[9]["ci"][1]
    n = 0
    for k in KS:
        f = (1 - s) * A[k] + s * B[k]
        n += hi * f >= o[k]["ci"][0] and lo * f <= o[k]["ci"][1]
    return n

def main(d):
    runs = {i: load(d, i) for i in range(1, 21)}
    A, B, X, U = drivers("l1")
    smax = X / (X + U)
    s = {i: fit(o, A, B, smax) for i, o in runs.items()}
    own = sum(within(runs[i], A, B, s[i]) for i in runs)
    s1 = statistics.median(s[i] for i in range(1, 11))
    s2 = statistics.median(s[i] for i in range(11, 21))
    out = sum(within(runs[i], A, B, s1) for i in range(11, 21)) + \
          sum(within(runs[i], A, B, s2) for i in range(1, 11))
    plain = sum(within(runs[i], A, B, 0.0) for i in runs)
    print(f"first level, s fitted per run (as analyze): {own} of 140 orders 2-8 within the CI; "
          f"s {min(s.values()):.3f}-{max(s.values()):.3f}")
    print(f"first level, s of the other ten runs' median ({s1:.3f} for 11-20, {s2:.3f} for 1-10): "
          f"{out} of 140")
    print(f"walks alone (the table, no term): {plain} of 140")
    for ch in (16, 64, 256, 1024):
        A, B, X, U = drivers("host", ch)
        smax = X / (X + U) if X > 0 else 0.0
        n = sum(within(o, A, B, fit(o, A, B, smax)) for o in runs.values())
        print(f"host side, capacity {ch} regions (regions assumed one per folio): {n} of 140")

if __name__ == "__main__":
    main(sys.argv[1])
