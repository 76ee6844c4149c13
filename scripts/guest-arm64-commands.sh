# SPDX-License-Identifier: GPL-2.0-or-later
# What the arm64 guests' busybox shell ran (data/guest-arm64-6.12.95-4k-tcg and
# -16k-tcg: see their PROVENANCE.md), given to scripts/guest-run.sh as $(cat ...)
# after the variables ORDERS SPAN PMUORDER CONT CONT2 CONTKB PMDKB.
set -x
mthpscope info > info.txt 2>&1; mthpscope info --json > info.json
mthpscope events > events.txt 2>&1; mthpscope events --json > events.json
mthpscope run --quick --orders $ORDERS --span $SPAN -o run.json > run.txt 2>&1; echo "rc=$?" >> run.txt
mthpscope analyze run.json > analyze.txt 2>&1
mthpscope run --quick --backend pmu --orders $PMUORDER --span $SPAN -o run-pmu.json > run-pmu.txt 2>&1; echo "rc=$?" >> run-pmu.txt
T=/sys/kernel/mm/transparent_hugepage
echo never > $T/hugepages-$((PMDKB))kB/enabled; echo always > $T/hugepages-${CONTKB}kB/enabled
dd if=/dev/zero bs=16M count=4 2>/dev/null | sleep 1000 & sleep 1; pid=$(pidof dd)
sleep 3
grep -i anonhuge /proc/meminfo > scan.txt
mthpscope scan --pid $pid --cont $CONT --cont $CONT2 > scan.txt 2>&1; echo "rc=$?" >> scan.txt
mthpscope scan --pid $pid --cont $CONT --cont $CONT2 --json > scan.json
cat $T/hugepages-${CONTKB}kB/stats/anon_fault_alloc >> scan.txt
kill $pid; killall sleep
echo never > $T/hugepages-${CONTKB}kB/enabled; echo inherit > $T/hugepages-$((PMDKB))kB/enabled
