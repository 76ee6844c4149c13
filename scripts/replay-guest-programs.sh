# SPDX-License-Identifier: GPL-2.0-or-later
# Runs inside the 7.3.4 guest (scripts/guest-run.sh --shell, with --with for
# python3.11, its encodings and mmap module, /usr/bin/sort and
# scripts/replay-sparse.py; scripts/replay-programs.sh assembles the command)
# after scripts/replay-guest-knobs.sh (T and knobs). Two real Debian programs
# fault their memory at order 0, then khugepaged collapses it with orders 2-9
# 'always' at max_ptes_none N; each is mapped before (P0, PROG-N-p0.json) and
# after (P1, PROG-N-p1.json):
#   sparse  python3.11 scripts/replay-sparse.py: hash tables at six loads, each
#           PMD range 5 % to 95 % present at random, and a heap of small objects;
#   sort    GNU sort -S 48M reading 17 MB through a FIFO held open: its buffer's
#           text from the start, its line table from the end, the middle empty.
# khugepaged scans only the mms on its list (khugepaged_enter_vma), which an
# anonymous VMA joins when THP is on at a PMD fault or a merge with a faulted
# VMA, not when it is made (it has no anon_vma yet): each program starts with
# THP 'always' and waits on its FIFO; THP goes 'never' (faults at order 0)
# before the FIFO lets it fault its memory, and 'always' again with the mTHP
# sizes for khugepaged. GNU sort's mm joins at its start (its heap grows);
# python's did not (seen: no scan of it in the trace), so it makes a PMD fault
# in a mapping of its own once THP is 'always' again (a range only P1 has,
# left out of the comparison). Settings: $MPNS (default
# "0 255 511"), $PROGS (default "sparse sort"), $PASSES (full scans, default 4).
MPNS=${MPNS:-0 255 511}
PROGS=${PROGS:-sparse sort}
PASSES=${PASSES:-4}
PY=/usr/bin/python3.11
# where scripts/replay-programs.sh brought scripts/replay-sparse.py (--with)
SPARSE=${SPARSE:?the path of replay-sparse.py in the guest}
# 17 MB of lines of 20 to 60 bytes for sort
awk 'BEGIN { x = 1; for (i = 0; i < 420000; i++) { x = (x * 1103515245 + 12345) % 2147483648;
	printf "%010d %s\n", x, substr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", 1, 9 + x % 40) } }' >/tmp/in.txt
gate() { # FIFO PAYLOAD-COMMAND: opens the FIFO at once, writes once /tmp/go exists
	(while [ ! -e /tmp/go ]; do sleep 0.2; done; eval "$2"; sleep 3600) >"$1" &
}
waitfor() { # WORD FILE: up to 300 s
	n=0
	while ! grep -q "$1" "$2" 2>/dev/null && [ $n -lt 600 ]; do sleep 0.5; n=$((n + 1)); done
}
start() { # PROG MPN: the program in the background, its pid in $pid
	mkfifo /tmp/$1.$2
	case $1 in
	sparse)
		gate /tmp/$1.$2 "echo go; while [ ! -e /tmp/go2 ]; do sleep 0.2; done; echo go2"
		$PY -S "$SPARSE" 3600 16 </tmp/$1.$2 >/tmp/$1.$2.out 2>&1 & ;;
	sort)
		gate /tmp/$1.$2 "cat /tmp/in.txt"
		/usr/bin/sort -S 48M --parallel=1 /tmp/$1.$2 >/dev/null & ;;
	esac
	pid=$!
}
full_scans() { cat $T/khugepaged/full_scans; }
for mpn in $MPNS; do
	rm -f /tmp/go /tmp/go2
	echo always >$T/enabled
	pids=""
	for p in $PROGS; do start $p $mpn; pids="$pids $p:$pid"; done
	# the startup's VMAs made with PMD THP on: the mms join khugepaged's list
	sleep 3
	for pp in $pids; do echo "$mpn: ${pp%%:*} has $(wc -l </proc/${pp#*:}/maps) mappings at THP 'never'" >>log; done
	echo never >$T/enabled
	: >/tmp/go
	case " $PROGS " in *" sparse "*) waitfor ready /tmp/sparse.$mpn.out ;; esac
	sleep 5
	echo "$mpn:$pids" >>log
	for pp in $pids; do
		mthpscope scan --pid ${pp#*:} --presence ${pp%%:*}-$mpn-p0.json 2>>log
	done
	echo $mpn >$T/khugepaged/max_ptes_none
	if [ -n "${DIAG:-}" ]; then
		mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
		echo 1 >/sys/kernel/tracing/events/huge_memory/enable
	fi
	echo always >$T/enabled
	knobs always 10
	# python's mm joins khugepaged's list (scripts/replay-sparse.py)
	: >/tmp/go2
	case " $PROGS " in *" sparse "*) waitfor joined /tmp/sparse.$mpn.out ;; esac
	cat /tmp/sparse.$mpn.out >>log 2>/dev/null
	f0=$(full_scans)
	n=0
	while [ $(($(full_scans) - f0)) -lt "$PASSES" ] && [ $n -lt 1200 ]; do sleep 0.5; n=$((n + 1)); done
	echo "$mpn: full scans $(($(full_scans) - f0)) after $n half-seconds; pages_collapsed $(cat $T/khugepaged/pages_collapsed)" >>log
	for pp in $pids; do
		mthpscope scan --pid ${pp#*:} --presence ${pp%%:*}-$mpn-p1.json 2>>log
	done
	if [ -n "${DIAG:-}" ]; then
		for pp in $pids; do
			awk '/^[0-9a-f]/ { m = $0 } /^Rss/ && $2 > 4000 { print m; print } /THPeligible|VmFlags/ && m { print }' /proc/${pp#*:}/smaps >>log
		done
		grep -E "thp_collapse|thp_scan" /proc/vmstat >>log
		grep -v "^#" /sys/kernel/tracing/trace | awk '{ $1 = $2 = $3 = ""; print }' | grep -v "progress=9," | head -80 >>log
		for pp in $pids; do grep -i "thp\|^Name" /proc/${pp#*:}/status >>log; done
	fi
	knobs never 600000
	for d in $T/hugepages-*kB; do
		echo "$mpn $(basename $d) collapse_alloc $(cat $d/stats/collapse_alloc 2>/dev/null) exceed_none $(cat $d/stats/collapse_exceed_none_pte 2>/dev/null)" >>log
	done
	for pp in $pids; do kill ${pp#*:} 2>/dev/null; done
	pkill sleep 2>/dev/null
	sleep 1
done
dmesg | grep -i "mthp\|max_ptes" >>log
cat log
