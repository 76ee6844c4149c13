#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# sort -n of a large file (issue 42; data/programs-vm-intel-6.18's sort-3M):
# N random integers below 10^9, one a line (default 3000000: 30 MB), made
# once into the workload cache by awk with a fixed seed, then sorted with
# one thread and a 1 GiB buffer to /dev/null. Only the input is kept.
#   sort.sh [--prepare] [N]
#
# shellcheck source=scripts/workloads/lib.sh
source "$(dirname "$0")/lib.sh"
prepare=0
n=3000000
while [ $# -gt 0 ]; do
	case "$1" in
	--prepare) prepare=1 ;;
	-h|--help) wl_usage 0 ;;
	-*) wl_die 2 "unknown option '$1' (usage: sort.sh [--prepare] [N])" ;;
	*[!0-9]*|0) wl_die 2 "invalid N '$1': a positive number of lines" ;;
	*) n=$1 ;;
	esac
	shift
done
make_input() {
	awk -v n="$n" 'BEGIN { srand(42); for (i = 0; i < n; i++) printf "%d\n", int(rand() * 1e9) }' \
		>"$1/nums.txt"
}
dir=$wl_cache/sort-$n
# about 10 bytes a line: an N the cache's filesystem cannot hold is refused
# before awk fills it
if [ ! -d "$dir" ]; then
	[ ${#n} -le 12 ] || wl_die 2 "N $n: too many lines for any disk"
	avail=$(df -Pk "$wl_cache" | awk 'NR == 2 { print $4 }')
	[ -z "$avail" ] || [ $((n * 10 / 1024)) -lt $((avail * 9 / 10)) ] ||
		wl_die 3 "N $n needs about $((n * 10 / 1048576)) MiB in $wl_cache, which has $((avail / 1024)) MiB free"
fi
wl_once "$dir" make_input
[ "$prepare" = 1 ] && exit 0
sort -n --parallel=1 -S 1G "$dir/nums.txt" -o /dev/null
echo "sorted lines: $n"
