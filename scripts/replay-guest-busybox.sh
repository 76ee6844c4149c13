# SPDX-License-Identifier: GPL-2.0-or-later
# runs inside the 7.3.4 guest (scripts/guest-run.sh --shell) after
# scripts/replay-guest-knobs.sh (T and knobs): two busybox
# programs hold a heap; their presence maps before (P0) and after (P1)
# khugepaged runs with orders 2-9 enabled at max_ptes_none N
awk 'BEGIN { for (i = 0; i < 60000; i++) print (i * 7919) % 100003, "line", i, "padding padding padding" }' >/tmp/in.txt
for mpn in 0 255 511; do
	mkfifo /tmp/f.$mpn
	sort /tmp/f.$mpn >/dev/null &
	spid=$!
	(cat /tmp/in.txt; sleep 300) >/tmp/f.$mpn &
	fpid=$!
	awk 'BEGIN { for (i = 0; i < 40000; i++) a[i] = i "-xxxxxxxxxxxxxxxxxxxxxxxx"; for (i = 0; i < 40000; i += 3) delete a[i]; system("sleep 300") }' &
	apid=$!
	sleep 20
	echo "$mpn: sort $spid awk $apid" >>log
	mthpscope scan --pid $spid --presence sort-$mpn-p0.json 2>>log
	# awk's pid is the shell's child: the awk process itself
	mthpscope scan --pid $apid --presence awk-$mpn-p0.json 2>>log
	echo $mpn >$T/khugepaged/max_ptes_none
	f0=$(cat $T/khugepaged/full_scans)
	knobs always 10
	n=0
	while [ $(( $(cat $T/khugepaged/full_scans) - f0 )) -lt 4 ] && [ $n -lt 600 ]; do sleep 0.5; n=$((n + 1)); done
	echo "$mpn: full scans $(( $(cat $T/khugepaged/full_scans) - f0 )) after $n half-seconds" >>log
	mthpscope scan --pid $spid --presence sort-$mpn-p1.json 2>>log
	mthpscope scan --pid $apid --presence awk-$mpn-p1.json 2>>log
	knobs never 600000
	kill $spid $fpid $apid 2>/dev/null
	pkill sleep 2>/dev/null
	sleep 1
done
dmesg | grep -i "mthp\|max_ptes" >>log
cat log
