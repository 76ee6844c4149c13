#!/usr/bin/env python3
"""Hand-made results files (schema mthpscope.results/1) for the analyzer tests.

Each case sets a true per-order gain curve and a noise level; values are drawn
with a fixed seed so the files are reproducible. Re-run after a schema change:
    python3 tests/data/gen_results.py tests/data
"""
import json, random, sys, os

ORDERS_X86 = [0, 2, 3, 4, 5, 6, 7, 8, 9]
MiB = 1 << 20

def host(arch, vendor, model, pmu, virt):
    h = {"kernel": "6.18.0-test", "arch": arch, "cpu_vendor": vendor, "cpu_model": model,
         "virtualized": virt, "page_size": 4096, "pmd_order": 9,
         "pmu": {"available": pmu, "models": ["test"] if pmu else []}}
    if not pmu:
        h["pmu"]["reason"] = "no hardware PMU in this VM"
    return h

def thp():
    return {"enabled": "madvise", "defrag": "madvise",
            "sizes": [{"order": o, "kb": 4 << o, "enabled": "never"} for o in ORDERS_X86 if o],
            "khugepaged": {"max_ptes_none": 511, "scan_sleep_millisecs": 10000}}

def doc(h, pattern, spans, reps, trials):
    return {"schema": "mthpscope.results/1", "tool": {"name": "mthpscope", "version": "test"},
            "host": h, "thp": thp(),
            "config": {"command": "run", "pattern": pattern, "orders": ORDERS_X86,
                       "spans": spans, "reps": reps, "seed": 1, "cpu": 1},
            "trials": trials}

def trial(order, pattern, span, rep, accesses, metrics, coverage=1.0):
    pages = span // 4096
    hist = {str(order): int(pages * coverage)}
    if coverage < 1.0:
        hist["0"] = pages - int(pages * coverage)
    return {"order": order, "pattern": pattern, "span": span, "rep": rep, "accesses": accesses,
            "folios": {"hist": hist, "coverage": coverage}, "metrics": metrics}

def dense(rng, gains, noise, reps, pmu, span=256 * MiB, pattern="chase-tlb", span_scale=1.0):
    acc = 10_000_000
    out = []
    for o in ORDERS_X86:
        g = gains.get(o, 0.0) * span_scale
        for r in range(reps):
            f = (1.0 - g) * (1.0 + rng.gauss(0, noise))
            m = {"ns_per_access": {"value": round(80.0 * (0.3 + 0.7 * f), 4), "source": "timing"},
                 "page_faults": {"value": round((span // 4096) / (1 << o) * (1 + rng.gauss(0, 0.01))),
                                 "source": "sw", "event": "page-faults"}}
            if pmu:
                m["walk_cycles"] = {"value": round(acc * 30.0 * f), "source": "pmu",
                                    "event": "amd64_fam19h_zen3::LS_TABLEWALKER", "scale": 1.0}
                m["walks"] = {"value": round(acc * 0.9 * f), "source": "pmu",
                              "event": "test::WALKS", "scale": 1.0}
                m["dtlb_misses"] = {"value": round(acc * 0.95 * f), "source": "pmu",
                                    "event": "test::DTLB", "scale": 1.0}
            out.append(trial(o, pattern, span, r, acc, m))
    return out

def sparse(rng, reps, span=64 * MiB):
    out = []
    for o in ORDERS_X86:
        for r in range(reps):
            touched = span // (2 * MiB)          # one page touched per 2M
            rss = touched * (4096 << o) * (1 + rng.gauss(0, 0.002))
            t = {"order": o, "pattern": "sparse", "span": span, "rep": r, "accesses": touched,
                 "sparse": {"stride": 2 * MiB, "touched_bytes": touched * 4096},
                 "folios": {"hist": {str(o): touched << o}, "coverage": None},
                 "metrics": {"rss_bytes": {"value": round(rss), "source": "kernel"},
                             "page_faults": {"value": touched, "source": "sw"}}}
            out.append(t)
    return out

def dense_rounds(rng, gains, reps, rounds, span=256 * MiB, pattern="chase-tlb",
                 load=None, noise_round=0.01, noise_rep=0.005, noise_common=0.02):
    """Trials of an interleaved schedule: per (span, rep) every order is timed
    in the same rounds, so a round's machine state (common noise, a load step
    over the global rounds load=(first, end, factor)) hits all orders alike;
    each order adds its own placement (per rep) and round noise. The trial's
    ns_per_access is the median of its rounds, as the runner writes it."""
    acc = 10_000_000
    out = []
    for r in range(reps):
        place = {o: 1.0 + rng.gauss(0, noise_rep) for o in ORDERS_X86}
        per = {o: [] for o in ORDERS_X86}
        for i in range(rounds):
            g = r * rounds + i
            common = 1.0 + rng.gauss(0, noise_common)
            if load and load[0] <= g < load[1]:
                common *= load[2]
            for o in ORDERS_X86:
                f = 1.0 - gains.get(o, 0.0)
                v = 80.0 * (0.3 + 0.7 * f) * place[o] * common * (1.0 + rng.gauss(0, noise_round))
                per[o].append(round(v, 4))
        for o in ORDERS_X86:
            rs = sorted(per[o])
            med = rs[len(rs) // 2] if len(rs) % 2 else 0.5 * (rs[len(rs) // 2 - 1] + rs[len(rs) // 2])
            m = {"ns_per_access": {"value": round(med, 4), "source": "timing"},
                 "page_faults": {"value": (span // 4096) >> o, "source": "sw",
                                 "event": "page-faults"}}
            t = trial(o, pattern, span, r, acc, m)
            t["rounds"] = per[o]
            out.append(t)
    return out

def command_doc(h, rng, ops, reps):
    """A run of a command at each order of ops (order -> true ops/s), the
    workload's metric "ops" higher-is-better, 2 % noise."""
    argv = ["/usr/bin/bench", "--seconds", "1"]
    trials = []
    for rep in range(reps):
        for o, v in ops.items():
            trials.append({"order": o, "pattern": "command", "rep": rep,
                           "workload": {"kind": "command", "argv": argv}, "exit": {"code": 0},
                           "folios": {"hist": {str(o): 4096 >> o}, "coverage": 1.0},
                           "metrics": {"wall_ns": {"value": 1e9, "source": "timing"},
                                       "ops": {"value": round(v * (1 + rng.gauss(0, 0.02)), 3),
                                               "source": "workload", "better": "higher"}}})
    d = doc(h, "command", [], reps, trials)
    d["config"].update({"orders": sorted(ops), "workload": {"kind": "command", "argv": argv},
                        "metrics": [{"name": "ops", "regex": "ops ([0-9.]+)", "better": "higher"}]})
    del d["config"]["spans"]
    return d

def kbuild_doc(h, rng, reps):
    """A kernel build measured whole (issue 42): the published shape (Yin
    Fengwei's x86 allmodconfig, the issue's tinyconfig on Zen 4): system
    time falls 18.6 / 22.5 / 25.3 / 25.1 % at 16K / 32K / 64K / 2M, faults
    43-51 %, real and user time within noise; folio coverage 85-92 %, flagged
    low_coverage as files before it were. One more order-3 trial whose order
    did not take (coverage 2 %) is left out, with the reason."""
    argv = ["make", "-j2", "O=/tmp/kbuild", "tinyconfig", "bzImage"]
    sys_fall = {0: 0.0, 2: 0.186, 3: 0.225, 4: 0.253, 9: 0.251}
    fault_fall = {0: 0.0, 2: 0.43, 3: 0.50, 4: 0.51, 9: 0.44}
    trials = []
    def one(o, rep, cov, sysf, faultf):
        n = lambda v, sd: round(v * (1 + rng.gauss(0, sd)))
        t = {"order": o, "pattern": "command", "rep": rep,
             "workload": {"kind": "command", "argv": argv}, "exit": {"code": 0},
             "folios": {"hist": {"0": round(1e6 * (1 - cov)), str(o): round(1e6 * cov)} if o
                        else {"0": 1000000}, "coverage": cov, "scope": "lifetime",
                        "scans": 2400, "processes": 13222, "processes_scanned": 12990},
             "metrics": {"wall_ns": {"value": n(600e9, 0.01), "source": "timing"},
                         "user_ns": {"value": n(900e9, 0.005), "source": "kernel"},
                         "sys_ns": {"value": n(200e9 * (1 - sysf), 0.01), "source": "kernel"},
                         "page_faults": {"value": n(30e6 * (1 - faultf), 0.005), "source": "sw",
                                         "event": "page-faults"},
                         "minor_faults": {"value": n(30e6 * (1 - faultf), 0.005),
                                          "source": "kernel"},
                         "max_rss_bytes": {"value": n(400 * MiB, 0.01), "source": "kernel"}}}
        if cov < 0.95 and o:
            t["flags"] = ["low_coverage"]
        return t
    for rep in range(reps):
        for o in sys_fall:
            cov = 1.0 if not o else round(0.85 + 0.07 * rng.random(), 3)
            trials.append(one(o, rep, cov, sys_fall[o], fault_fall[o]))
    trials.append(one(3, reps, 0.02, 0.0, 0.0))
    d = doc(h, "command", [], reps, trials)
    d["config"].update({"orders": sorted(sys_fall), "workload": {"kind": "command", "argv": argv}})
    del d["config"]["spans"]
    return d

def fixed(h, vals, span=256 * MiB):
    """Set values of ns_per_access (order -> one value a rep), exact page faults."""
    tr = [trial(o, "chase-tlb", span, r, 10_000_000,
                {"ns_per_access": {"value": v, "source": "timing"},
                 "page_faults": {"value": (span // 4096) >> o, "source": "sw"}})
          for o, vs in vals.items() for r, v in enumerate(vs)]
    d = doc(h, "chase-tlb", [span], max(len(vs) for vs in vals.values()), tr)
    d["config"]["orders"] = list(vals)
    return d

def interleaved(d):
    d["config"]["schedule"] = "interleaved"
    return d

def write(d, name, obj):
    with open(os.path.join(d, name), "w") as f:
        json.dump(obj, f, indent=1)
        f.write("\n")

def main(d):
    amd = host("x86_64", "AuthenticAMD", "AMD EPYC 7763 64-Core Processor", True, False)
    arm = host("aarch64", "ARM", "Neoverse-N1", True, False)
    vm = host("aarch64", "ARM", "Neoverse-N1", False, True)
    intel = host("x86_64", "GenuineIntel", "Intel(R) Xeon(R) Gold 6338", True, False)

    rng = random.Random(2)
    knee2 = {2: 0.30, 3: 0.33, 4: 0.36, 5: 0.40, 6: 0.44, 7: 0.48, 8: 0.52, 9: 0.70}
    tr = dense(rng, knee2, 0.01, 8, True) + sparse(rng, 3)
    # one trial the kernel backed only partly, one with multiplexed counters
    tr.append(trial(4, "chase-tlb", 256 * MiB, 8, 10_000_000,
                    {"ns_per_access": {"value": 70.0, "source": "timing"}}, coverage=0.6))
    t = trial(5, "chase-tlb", 256 * MiB, 8, 10_000_000,
              {"walks": {"value": 5e6, "source": "pmu", "scale": 2.0},
               "ns_per_access": {"value": 50.0, "source": "timing"}})
    tr.append(t)
    write(d, "knee2.json", doc(amd, "chase-tlb", [256 * MiB], 8, tr))

    rng = random.Random(4)
    knee4 = {2: 0.01, 3: 0.01, 4: 0.25, 5: 0.28, 6: 0.31, 7: 0.35, 8: 0.40, 9: 0.60}
    write(d, "knee4.json", doc(arm, "chase-tlb", [256 * MiB], 8,
                               dense(rng, knee4, 0.01, 8, True) + sparse(rng, 3)))

    # timing only, a span sweep: the gain grows with the span (TLB reach)
    rng = random.Random(5)
    tr = []
    spans = [16 * MiB, 64 * MiB, 256 * MiB, 1024 * MiB]
    for i, s in enumerate(spans):
        tr += dense(rng, knee4, 0.01, 6, False, span=s, span_scale=(i + 1) / len(spans))
    write(d, "knee4_timing.json", doc(vm, "chase-tlb", spans, 6, tr))

    rng = random.Random(6)
    write(d, "pmd_only.json", doc(intel, "chase-tlb", [256 * MiB], 8,
                                  dense(rng, {9: 0.40}, 0.01, 8, True)))
    rng = random.Random(7)
    write(d, "flat.json", doc(intel, "chase-tlb", [256 * MiB], 8, dense(rng, {}, 0.01, 8, True)))
    rng = random.Random(8)
    noisy = {o: 0.10 for o in ORDERS_X86 if o}
    write(d, "noisy.json", doc(intel, "chase-tlb", [256 * MiB], 3, dense(rng, noisy, 0.30, 3, True)))

    # issue 12: interleaved schedules with per-round times (timing only)
    # A load step in the middle of the run: every order 30 % slower over
    # global rounds 70-179 of 240 (reps 2-5 of 8). Trial medians of order 0
    # and order 2 then overlap; the per-round ratios do not move.
    rng = random.Random(12)
    knee2_small = {2: 0.12, 3: 0.14, 4: 0.16, 5: 0.18, 6: 0.20, 7: 0.22, 8: 0.25, 9: 0.40}
    write(d, "load_step.json", interleaved(doc(vm, "chase-tlb", [256 * MiB], 8,
        dense_rounds(rng, knee2_small, 8, 30, load=(70, 180, 1.3)))))
    # A non-monotone dip: order 5 gains far less than orders 4 and 6, beyond
    # noise; the report must say so.
    rng = random.Random(13)
    dip = dict(knee2)
    dip[5] = 0.05
    write(d, "dip.json", interleaved(doc(vm, "chase-tlb", [256 * MiB], 6,
        dense_rounds(rng, dip, 6, 20))))
    # The knee per working-set size: every order from 2 gains at 16-32 MiB,
    # only the PMD order at 128 MiB (AMD's coalesced entries run out).
    rng = random.Random(14)
    amd_vm = host("x86_64", "AuthenticAMD", "AMD EPYC 7763 64-Core Processor", False, True)
    tr = []
    for s, g in ((16 * MiB, knee2), (32 * MiB, knee2), (128 * MiB, {9: 0.40})):
        tr += dense_rounds(rng, g, 6, 12, span=s)
    write(d, "sweep_knee2.json", interleaved(doc(amd_vm, "chase-tlb",
        [16 * MiB, 32 * MiB, 128 * MiB], 6, tr)))

    # A command workload whose metric is a rate ("better": "higher"): ops
    # grow 30, 40 and 50 % at orders 2, 4 and 9. Every bootstrap replicate
    # must be a gain in the same sense as the point value.
    rng = random.Random(15)
    write(d, "command_higher.json", command_doc(vm, rng, {0: 100.0, 2: 130.0, 4: 140.0, 9: 150.0}, 8))

    # The monotone fit makes a gain: orders 3 and 4 have two trials each, so
    # their own tests cannot reach significance (Holm p 0.089), but their
    # fitted gains (12-13 %) have CIs above 0 and rest on order 2's
    # significant 3 %: status gain, verdict mthp 3, not "significant".
    intel_vm = host("x86_64", "GenuineIntel", "Intel(R) Xeon(R) Gold 6338", False, True)
    write(d, "fit_gain.json", fixed(intel_vm, {
        0: [100.0, 100.2, 99.8, 100.1, 99.9, 100.3, 99.7, 100.05],
        2: [97.0, 97.2, 96.8, 97.1, 96.9, 97.3, 96.7, 97.05],
        3: [88.0, 88.3], 4: [87.0, 87.2],
        9: [50.0, 50.2, 49.8, 50.1, 49.9, 50.3, 49.7, 50.05]}))
    # No gain, read from the monotone fit: order 2 is noisy (raw CI about
    # [-6, +8] %), orders 3 and 9 flat; the fit pools order 2 with order 3,
    # whose CI rules a material gain out (the review's mk3.py, seed 6).
    rng = random.Random(6)
    intel_nopmu = host("x86_64", "GenuineIntel", "Intel Xeon test", False, False)
    write(d, "fit_none.json", fixed(intel_nopmu, {
        o: [round(m + rng.gauss(0, sd), 4) for _ in range(8)]
        for o, m, sd in ((0, 100, 0.2), (2, 99, 6), (3, 100, 0.2), (9, 100, 0.2))}))
    # A rate (higher is better) that no order raises by 5 %.
    rng = random.Random(16)
    write(d, "command_flat.json", command_doc(vm, rng, {0: 100.0, 2: 100.5, 4: 101.0, 9: 100.0}, 8))
    # A kernel build measured whole (issue 42): coverage 85-92 % is no gate.
    rng = random.Random(42)
    intel = host("x86_64", "GenuineIntel", "Intel(R) Xeon(R) Platinum 8480+", False, True)
    write(d, "command_kbuild.json", kbuild_doc(intel, rng, 3))

    plateau(d, amd_vm)

def plateau(d, amd_vm):
    """Issue 38: where the gain below PMD saturates. Interleaved runs on a
    Zen-like VM at 32 MiB (a true gain g here is 0.7 g of the time): a step
    at order 3 (order 2 about half of orders 3-8, as the Zen 4 default runs),
    a step at order 4, and a flat profile from order 2; and, at 64 MiB, gains
    that follow the zen4 model (4 PTEs merged: orders 2-8 each 0.69 of the
    PMD gain) and a step at 3 the 4-merge table cannot make (8 merged)."""
    cases = (("plateau_step3.json", 32, {2: 0.14, 3: 0.25, 9: 0.45}),
             ("plateau_step4.json", 32, {2: 0.12, 3: 0.12, 4: 0.25, 9: 0.45}),
             ("plateau_flat.json", 32, {2: 0.25, 9: 0.45}),
             ("time_zen4.json", 64, {2: 0.3115, 9: 0.45}),
             ("time_step3.json", 64, {2: 0.3115, 3: 0.45, 9: 0.45}))
    for i, (name, mib, g) in enumerate(cases):
        rng = random.Random(38 + i)
        gains = {}
        for o in ORDERS_X86[1:-1]:
            gains[o] = max((v for k, v in g.items() if k <= o and k < 9), default=0.0)
        gains[9] = g[9]
        write(d, name, interleaved(doc(amd_vm, "chase-tlb", [mib * MiB], 8,
            dense_rounds(rng, gains, 8, 20, span=mib * MiB))))

if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__)))
