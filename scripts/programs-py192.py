# SPDX-License-Identifier: GPL-2.0-or-later
# data/programs-vm-intel-6.18 (its PROVENANCE): a 192 MiB bytearray, one byte written every 4 KiB, freed before exit (issue 42)
b = bytearray(192 << 20)
for i in range(0, len(b), 4096):
    b[i] = 1
del b
