#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# record --pid -d 1 of a target whose 500 threads map, touch and unmap 1 MiB
# in a loop (scripts/record-busy.c): each lookup of its memory waits behind their mmap and
# munmap (data/record-busy-vm-zen5-6.18). NEW binary three times, then OLD once (which lasted as long as the
# target). usage: scripts/record-busy.sh NEW_BINARY OLD_BINARY [TARGET_SECONDS]
set -u
new=$1 old=$2 life=${3:-300}
d=$(mktemp -d); trap 'rm -rf "$d"; kill $t 2>/dev/null' EXIT
gcc -O2 -pthread -include time.h -o "$d/busy" "$(dirname "$0")/record-busy.c" || exit 1
"$d/busy" 500 "$life" >/dev/null & t=$!
while [ "$(ls /proc/$t/task 2>/dev/null | wc -l)" -lt 501 ]; do sleep 1; done
for b in new new new old; do
	bin=${!b}; s=$(date +%s.%N)
	"$bin" record --pid $t -d 1 -o "$d/r.json" 2>"$d/err"; rc=$?
	e=$(date +%s.%N)
	printf '%s: exit %d, wall %.1f s; %s\n' $b $rc "$(echo "$e - $s" | bc)" \
		"$(grep -o '^[0-9]* samples: .*' "$d/err" | cut -c1-230)"
done
