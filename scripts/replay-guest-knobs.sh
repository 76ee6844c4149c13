# SPDX-License-Identifier: GPL-2.0-or-later
# The start of every 7.3.4 guest script of data/replay-vm-intel-6.18 (run as
# one with it: --shell -- "$(cat scripts/replay-guest-knobs.sh SCRIPT)"):
# knobs sets every mTHP size but PMD's and khugepaged's scan sleep; THP
# 'always', a large scan budget, every mTHP size 'never' to start with.
T=/sys/kernel/mm/transparent_hugepage
knobs() { # mthp-word scan-sleep
	for d in $T/hugepages-*kB; do
		case $d in *-2048kB) echo inherit >$d/enabled ;; *) [ -e $d/enabled ] && echo "$1" >$d/enabled ;; esac
	done
	echo "$2" >$T/khugepaged/scan_sleep_millisecs
}
echo always >$T/enabled
echo 65536 >$T/khugepaged/pages_to_scan
knobs never 600000
sleep 1
