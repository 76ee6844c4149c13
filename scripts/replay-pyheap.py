# SPDX-License-Identifier: GPL-2.0-or-later
# The python process of this data set: a heap of many small objects (50000
# bytearrays of 1000 bytes and a dict of 200000 strings: pymalloc arenas)
# and one 64 MiB bytearray written every other page (half of its pages
# present: the sparse kind of memory max_ptes_none decides on). It sleeps
# for scan --presence to map it.
import time

small = [bytearray(1000) for _ in range(50000)]
big = bytearray(64 << 20)
for i in range(0, len(big), 8192):
    big[i] = 1
d = {i: str(i) * 3 for i in range(200000)}
time.sleep(float(__import__("sys").argv[1]) if len(__import__("sys").argv) > 1 else 60)
