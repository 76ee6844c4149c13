# SPDX-License-Identifier: GPL-2.0-or-later
# data/replay-vm-intel-6.18 (see its PROVENANCE): the diagnosis run in the 7.3.4 guest,
# after scripts/replay-guest-knobs.sh (T and knobs)
awk 'BEGIN { for (i = 0; i < 60000; i++) print (i * 7919) % 100003, "line", i, "padding padding padding" }' >/tmp/in.txt
mkfifo /tmp/f
sort /tmp/f >/dev/null &
spid=$!
(cat /tmp/in.txt; sleep 300) >/tmp/f &
sleep 15
mthpscope scan --pid $spid --presence sort-p0.json 2>>log
echo 0 >$T/khugepaged/max_ptes_none
echo "before: collapsed $(cat $T/khugepaged/pages_collapsed) scans $(cat $T/khugepaged/full_scans)" >>log
knobs always 10
sleep 15
echo "after: collapsed $(cat $T/khugepaged/pages_collapsed) scans $(cat $T/khugepaged/full_scans)" >>log
for d in $T/hugepages-*kB; do echo "$(basename $d) $(cat $d/enabled) $(cat $d/stats/collapse_alloc 2>/dev/null) $(cat $d/stats/collapse_exceed_none_pte 2>/dev/null)" >>log; done
grep -E "^[0-9a-f]|THPeligible|VmFlags|AnonHuge|Rss" /proc/$spid/smaps | head -60 >>log
mthpscope scan --pid $spid --presence sort-p1.json 2>>log
echo "--- now madvise-free check: MADV_COLLAPSE is not khugepaged" >>log
dmesg | tail -5 >>log
cat log
