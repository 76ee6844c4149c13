#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Benchmark of 'mthpscope scan' (not run by ctest; needs root).
# Builds a process with $GIB GiB (default 4) mapped at orders 0, 2, 4, 9 (a
# quarter each), times 'mthpscope scan --pid PID --rollup --cont 64K' ($REPS
# runs, best and median) and reports GiB of mapped memory per second; the
# same with MTHPSCOPE_NO_PAGEMAP_SCAN=1 (the page-by-page path of kernels
# before 6.7). With THPMAPS=/path/to/thpmaps (the kernel's tools/mm/thpmaps)
# and python3-numpy it runs thpmaps on the same process and compares time
# and totals. Other load on the machine makes the figures noisy.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=${MTHPSCOPE_BUILD:-$src/build}
bin=$build/mthpscope
gib=${GIB:-4}
reps=${REPS:-5}
export MTHPSCOPE_LOCK_WAIT=${MTHPSCOPE_LOCK_WAIT:-300}

[ -x "$bin" ] || { echo "bench-scan: build first ($bin missing)" >&2; exit 3; }
[ "$(id -u)" = 0 ] || { echo "bench-scan: needs root (PFNs, THP knobs)" >&2; exit 3; }

tmp=$(mktemp -d)
pid=
cleanup() {
	exec 3>&- 2>/dev/null || true
	[ -n "$pid" ] && wait "$pid" 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT

# shellcheck disable=SC2046
cc -O2 -std=c11 -D_GNU_SOURCE $(for d in base measure doc analysis present; do printf -- "-I%s/src/%s " "$src" "$d"; done) "$src/scripts/bench-scan.c" \
	"$build/libmthpscope_core.a" $(pkg-config --libs jansson hwloc libpcre2-8) -lpfm -lm \
	-o "$tmp/bench-scan-build"

mkfifo "$tmp/in" "$tmp/out"
"$tmp/bench-scan-build" "$gib" <"$tmp/in" >"$tmp/out" &
pid=$!
exec 3>"$tmp/in"
read -r word target <"$tmp/out"
[ "$word" = ready ] || { echo "bench-scan: builder failed" >&2; exit 1; }
rss_kb=$(awk '/^VmRSS:/ { print $2 }' "/proc/$target/status")
echo "process $target: $(awk -v k="$rss_kb" 'BEGIN { printf "%.2f", k / 1048576 }') GiB resident, orders 0/2/4/9"

# time_runs NAME CMD...: best and median wall time of $reps runs, and the
# median CPU time (user + system: less sensitive to other load than wall)
time_runs() {
	local name=$1 i
	shift
	: >"$tmp/times"
	for ((i = 0; i < reps; i++)); do
		/usr/bin/time -f "%e %U %S %M" -o "$tmp/t1" "$@" >"$tmp/$name.txt" 2>"$tmp/$name.err"
		tail -1 "$tmp/t1" >>"$tmp/times"
	done
	local best med cpu rss
	best=$(awk '{ print $1 }' "$tmp/times" | sort -n | head -1)
	med=$(awk '{ print $1 }' "$tmp/times" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
	cpu=$(awk '{ print $2 + $3 }' "$tmp/times" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
	rss=$(awk '{ print $4 }' "$tmp/times" | sort -n | tail -1)
	echo "$best" >"$tmp/$name.best"
	awk -v n="$name" -v k="$rss_kb" -v b="$best" -v m="$med" -v c="$cpu" -v r="$rss" 'BEGIN {
		printf "%-30s wall best %5.0f ms, median %5.0f ms; cpu median %5.0f ms; %5.1f GiB/s (best wall); max RSS %5.1f MiB\n",
		       n, b * 1e3, m * 1e3, c * 1e3, k / 1048576 / b, r / 1024 }'
}

[ -x /usr/bin/time ] || { echo "bench-scan: needs /usr/bin/time (apt-get install time)" >&2; exit 3; }
time_runs "mthpscope scan" "$bin" scan --pid "$target" --rollup --cont 64K
time_runs "mthpscope --threads 1" "$bin" scan --pid "$target" --rollup --cont 64K --threads 1
time_runs "mthpscope --smaps" "$bin" scan --pid "$target" --rollup --cont 64K --smaps
time_runs "mthpscope (no PAGEMAP_SCAN)" env MTHPSCOPE_NO_PAGEMAP_SCAN=1 \
	"$bin" scan --pid "$target" --rollup --cont 64K
for f in "mthpscope --threads 1" "mthpscope --smaps" "mthpscope (no PAGEMAP_SCAN)"; do
	cmp -s "$tmp/mthpscope scan.txt" "$tmp/$f.txt" || echo "WARNING: '$f' disagrees"
done

if [ -n "${THPMAPS:-}" ] && /usr/bin/python3 -c 'import numpy' 2>/dev/null; then
	time_runs thpmaps /usr/bin/python3 "$THPMAPS" --pid "$target" --rollup --cont 64K
	awk -v a="$(cat "$tmp/thpmaps.best")" -v b="$(cat "$tmp/mthpscope scan.best")" \
		'BEGIN { printf "speed-up over thpmaps: %.1fx (best times)\n", a / b }'
	# our extra labels (zero-page, anon-ksm, hugetlb) are not thpmaps'
	grep -vE '^(zero-page|anon-ksm|hugetlb):' "$tmp/mthpscope scan.txt" >"$tmp/ours.txt" || true
	if diff "$tmp/thpmaps.txt" "$tmp/ours.txt" >"$tmp/diff"; then
		echo "totals agree with thpmaps:"
	else
		echo "TOTALS DIFFER from thpmaps:"
		cat "$tmp/diff"
	fi
	sed 's/^/  /' "$tmp/thpmaps.txt"
else
	echo "(set THPMAPS=/path/to/thpmaps and install python3-numpy to compare with thpmaps)"
	sed 's/^/  /' "$tmp/mthpscope scan.txt"
fi
