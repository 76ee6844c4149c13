#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Per-order gains of several runs with their placement spread (issue 39), and
how well each run's CI covers the runs' median gain.

  scripts/placement-summary.py BIN RUN.json [RUN.json ...]

BIN is the mthpscope binary (its analyze reads each file). One row per run and
order: gain, 95 % CI, the between-placement SD, the rounds' SE, the rerun
half-width (all points), the placements, and whether the CI covers the median
of the runs' gains at that order; then per order the runs' median, SD and
range, and the coverage over all (run, order) cases, the verdicts (how many
agree with the most common one, how many are decisive: not inconclusive) and
the median CI half-width (issue 39's acceptance: coverage >= 90 %, the verdict
the same in 9 of 10, half-width <= 5 points, decisive in 8 of 10).
"""
import json
import statistics
import subprocess
import sys


def analyse(binary, path):
    out = subprocess.run([binary, "analyze", path, "--format", "json"], check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out)


def pts(v):
    return "-" if v is None else "%+.1f" % (100 * v)


def sd(v):
    return "-" if v is None else "%.1f" % (100 * v)


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    runs = [(p, analyse(sys.argv[1], p)) for p in sys.argv[2:]]
    gains = {}
    for _, a in runs:
        for o in a["orders"]:
            if o["order"] and o["gain"] is not None:
                gains.setdefault(o["order"], []).append(o["gain"])
    med = {k: statistics.median(v) for k, v in gains.items()}
    print("run\torder\tgain\tci\tplacement_sd\tround_se\trerun\tplacements\tcovers_median")
    cover = cases = 0
    for p, a in runs:
        for o in a["orders"]:
            k = o["order"]
            if not k or o["gain"] is None or o["ci"][0] is None:
                continue
            c = o["ci"][0] <= med[k] <= o["ci"][1]
            cover += c
            cases += 1
            print("%s\t%d\t%s\t[%s, %s]\t%s\t%s\t%s\t%d\t%s" % (
                p, k, pts(o["gain"]), pts(o["ci"][0]), pts(o["ci"][1]),
                sd(o.get("placement_sd")), sd(o.get("round_se")),
                sd(o.get("rerun_within")), o.get("placements", 0), "yes" if c else "no"))
    print("\norder\truns\tmedian\tsd_between_runs\tmin\tmax")
    for k in sorted(gains):
        v = gains[k]
        s = statistics.stdev(v) if len(v) > 1 else None
        print("%d\t%d\t%s\t%s\t%s\t%s" % (k, len(v), pts(med[k]), sd(s), pts(min(v)),
                                         pts(max(v))))
    verdicts = [a["recommendation"]["verdict"] + ":" + str(a["recommendation"]["min_order"])
                for _, a in runs]
    halves = [(o["ci"][1] - o["ci"][0]) / 2 for _, a in runs for o in a["orders"]
              if o["order"] and o["gain"] is not None and o["ci"][0] is not None]
    below = [(o["ci"][1] - o["ci"][0]) / 2 for _, a in runs for o in a["orders"]
             if 0 < o["order"] < max(x["order"] for x in a["orders"]) and o["gain"] is not None
             and o["ci"][0] is not None]
    mode = max(set(verdicts), key=verdicts.count)
    decisive = sum(not v.startswith("inconclusive") for v in verdicts)
    print("\ncoverage of the runs' median: %d of %d (run, order) cases (%.1f %%)"
          % (cover, cases, 100.0 * cover / cases if cases else 0))
    print("verdicts: " + ", ".join(verdicts))
    print("verdict agreement: %d of %d runs give the most common one (%s); decisive: %d of %d"
          % (verdicts.count(mode), len(verdicts), mode, decisive, len(verdicts)))
    if halves:
        print("median CI half-width: %.1f points (orders below PMD: %s)"
              % (100 * statistics.median(halves),
                 "%.1f" % (100 * statistics.median(below)) if below else "-"))


if __name__ == "__main__":
    main()
