#!/usr/bin/env bash
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
cc -O2 -std=c11 -D_GNU_SOURCE -I"$src/src" "$src/scripts/bench-scan.c" \
	"$build/libmthpscope_core.a" $(pkg-config --libs jansson hwloc) -lpfm -lm \
	-o "$tmp/bench-scan-build"

mkfifo "$tmp/in" "$tmp/out"
"$tmp/bench-scan-build" "$gib" <"$tmp/in" >"$tmp/out" &
pid=$!
exec 3>"$tmp/in"
read -r word target <"$tmp/out"
[ "$word" = ready ] || { echo "bench-scan: builder failed" >&2; exit 1; }
rss_kb=$(awk '/^VmRSS:/ { print $2 }' "/proc/$target/status")
echo "process $target: $(awk -v k="$rss_kb" 'BEGIN { printf "%.2f", k / 1048576 }') GiB resident, orders 0/2/4/9"

# time_runs NAME CMD...: best and median wall time of $reps runs
time_runs() {
	local name=$1 t0 t1 i
	shift
	: >"$tmp/times"
	for ((i = 0; i < reps; i++)); do
		t0=$(date +%s%N)
		"$@" >"$tmp/$name.txt" 2>"$tmp/$name.err"
		t1=$(date +%s%N)
		echo $(( (t1 - t0) / 1000 )) >>"$tmp/times"
	done
	sort -n "$tmp/times" | awk -v n="$name" -v k="$rss_kb" '
		{ t[NR] = $1 }
		END { best = t[1] / 1e6; med = t[int((NR + 1) / 2)] / 1e6;
		      printf "%-28s best %7.1f ms  median %7.1f ms  %6.1f GiB/s (best)\n",
			     n, best * 1e3, med * 1e3, k / 1048576 / best }'
	sort -n "$tmp/times" | head -1 >"$tmp/$name.best"
}

time_runs "mthpscope scan" "$bin" scan --pid "$target" --rollup --cont 64K
time_runs "mthpscope (no PAGEMAP_SCAN)" env MTHPSCOPE_NO_PAGEMAP_SCAN=1 \
	"$bin" scan --pid "$target" --rollup --cont 64K
cmp -s "$tmp/mthpscope scan.txt" "$tmp/mthpscope (no PAGEMAP_SCAN).txt" ||
	echo "WARNING: the two paths disagree"

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
