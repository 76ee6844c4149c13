#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A python process with sparse, partly-filled PMD ranges, for range-by-range
checks of khugepaged in a guest (scripts/replay-guest-programs.sh): hash
tables of 16-byte slots in anonymous private mappings, 16 MiB each, filled at
six loads (a key's slot is its multiplicative hash: a page is present when
any of its 256 slots was written, so a table's PMD ranges are 5 % to 95 %
present at random), and a heap of small objects (pymalloc arenas, dense).
Needs only the interpreter, its encodings and the mmap module: no site, no
NumPy, so it runs from a minimal initramfs. It waits for a line on stdin
before it allocates anything (the guest's script sets the THP knobs meanwhile;
give it </dev/null not to wait), then prints "ready", waits for a second
line and makes a PMD fault (so that khugepaged scans it), and sleeps.

    replay-sparse.py [SECONDS] [TABLE_MIB]     (defaults 300 and 16)
"""
import mmap
import sys
import time

secs = float(sys.argv[1]) if len(sys.argv) > 1 else 300
mib = int(sys.argv[2]) if len(sys.argv) > 2 else 16
SLOT = 16
PAGE = 4096
# the fraction of pages each table ends with present: 1 - exp(-keys / pages)
FILLS = (0.05, 0.20, 0.40, 0.60, 0.80, 0.95)


def keys_for(fill, pages):
    # -pages * ln(1 - fill), without the math module's import cost
    x, k, term = fill, 0.0, fill
    for n in range(1, 200):
        k += term / n
        term *= x
    return int(pages * k)


def fill_table(m, nkeys, seed):
    slots = len(m) // SLOT
    h = seed
    for i in range(nkeys):
        # a 64-bit multiplicative hash of the key (Knuth), open addressing
        h = (h * 6364136223846793005 + 1442695040888963407) & 0xFFFFFFFFFFFFFFFF
        s = (h >> 20) % slots
        while m[s * SLOT] != 0:
            s = (s + 1) % slots
        m[s * SLOT:s * SLOT + 8] = (h | 1).to_bytes(8, "little")


# the mappings first, then the wait: they are made under the THP settings of
# the start (khugepaged's eligibility), their pages faulted under those after it
tables = [mmap.mmap(-1, mib << 20, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
          for _ in FILLS]
sys.stdin.readline()
heap = {i: "k%07d" % i * 2 for i in range(150000)}
for t, fill in enumerate(FILLS):
    fill_table(tables[t], keys_for(fill, (mib << 20) // PAGE), t + 1)
print("ready", flush=True)
# khugepaged scans only the mms on its list, and an mm joins it when THP is
# on at a PMD fault or a VMA merge: a second line makes one (a 4 MiB mapping
# of its own PMD ranges, one page written) once the script turned THP on
if sys.stdin.readline():
    poke = mmap.mmap(-1, 4 << 20, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    poke[0] = 1
    print("joined", flush=True)
time.sleep(secs)
