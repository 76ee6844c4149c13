#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A real program's TLB-bound work for `run -- CMD` (doc/run.md, "Your own
workload"): a random gather over a large NumPy array (Debian python3-numpy).
Prints the program's own figure, for --metric:

    gather_ns_per_element: 61.0

    numpy-gather.py [ARRAY_MIB] [ELEMENTS]     (defaults 1024 and 20000000)
"""
import sys
import time

import numpy as np

mib = int(sys.argv[1]) if len(sys.argv) > 1 else 1024
n = int(sys.argv[2]) if len(sys.argv) > 2 else 20_000_000
a = np.ones(mib * 1048576 // 8, dtype=np.float64)  # written: every page faulted
idx = np.random.default_rng(1).integers(0, a.size, n)
t0 = time.perf_counter_ns()
s = a[idx].sum()
t1 = time.perf_counter_ns()
print("sum: %.0f" % s)
print("gather_ns_per_element: %.2f" % ((t1 - t0) / n))
