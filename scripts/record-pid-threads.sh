#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# record --pid against perf stat -p on a process that starts 2000 short threads
# (each writing 8 pages and starting one that writes 8 more: 32000 faults in one VMA)
# (data/record-vs-perf-vm-zen5-6.18)
# usage: scripts/record-pid-threads.sh MTHPSCOPE HELPER_RECORD (root; perf from linux-perf)
bin=$1
h=$2
d=$(mktemp -d)
$h mib=4 nothp=1 burst=2000 spin=1000 pidfile=$d/pid > $d/hout &
hp=$!
while [ ! -s $d/pid ]; do sleep 0.01; done
perf stat -x, -e page-faults -p $hp -o $d/perf 2>/dev/null &
pp=$!
$bin record -c 1 --pid $hp -o $d/r.json 2> $d/err
wait $hp; wait $pp
perfn=$(grep page-faults $d/perf | cut -d, -f1)
x=$(sed -n 's/^burst \(0x[0-9a-f]*\)/\1/p' $d/hout)
python3 - "$d/r.json" "$x" "$perfn" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); x = int(sys.argv[2], 16)
inb = sum(v['samples']['total'] for v in d['vmas'] if v['start'] <= x < v['end'])
print(f"perf_stat {sys.argv[3]:>7}  record_total {d['total']['total']:>7}  threads_vma {inb:>6}/32000  lost {d['outcome']['lost']}")
PY
rm -rf $d
