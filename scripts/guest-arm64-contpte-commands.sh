# SPDX-License-Identifier: GPL-2.0-or-later
# Run inside an arm64 guest (scripts/guest-run.sh --arch arm64 --shell): the
# guest's own layouts at orders 0, 4 and 9 (run, 8 MiB, --quick), and a
# process whose anonymous memory faulted in with only the contpte size (64K)
# enabled, scanned with the TLB model of an Arm core (functional only: under
# TCG the CPU is emulated and no timing means anything).
set -x
uname -r > kernel.txt
mthpscope run --quick --orders 0,4,9 --span 8M -o run.json > run.txt 2>&1; echo "rc=$?" >> run.txt
T=/sys/kernel/mm/transparent_hugepage
echo never > $T/hugepages-2048kB/enabled; echo always > $T/hugepages-64kB/enabled
dd if=/dev/zero bs=16M count=4 2>/dev/null | sleep 1000 & sleep 1; pid=$(pidof dd)
sleep 3
mthpscope scan --pid $pid --cont 64K --tlb-model neoverse-n2 > scan.txt 2>&1; echo "rc=$?" >> scan.txt
mthpscope scan --pid $pid --cont 64K --tlb-model neoverse-n2 --json > scan.json
kill $pid; killall sleep
echo never > $T/hugepages-64kB/enabled; echo inherit > $T/hugepages-2048kB/enabled
