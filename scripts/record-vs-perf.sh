#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# record against perf on the same command: does 'mthpscope record -c 1' see
# every page fault perf counts, and put it in the VMA perf's address puts it?
#   usage: scripts/record-vs-perf.sh [-n RUNS] [-b MTHPSCOPE] -- CMD [ARGS]
# Each run with ASLR off (setarch -R) so that the layouts agree:
#   - 'perf stat -e page-faults' (exact, no sampling) against record's total
#     samples, RUNS times each, alternating;
#   - for a command of one process, one 'perf record -e page-faults -c 1 -d':
#     every sample's data address
#     put in the VMA of record's rows (the newest row holding it; a VMA that
#     grew or was cut is several rows), per VMA name, against record's own
#     samples of that name; record's 'outside any VMA' (unmapped before its
#     drain looked the sample up) beside the addresses no row holds.
# Root (record reads PFNs); perf from Debian's linux-perf.
set -u
runs=3
bin=$(dirname "$0")/../build/mthpscope
usage() {
	echo "usage: $0 [-n RUNS] [-b MTHPSCOPE] -- CMD [ARGS]${1:+ ($1)}" >&2
	exit 2
}
while [ $# -gt 0 ]; do
	case $1 in
	-n) [ $# -ge 2 ] || usage "-n needs a number"; runs=$2; shift 2 ;;
	-b) [ $# -ge 2 ] || usage "-b needs a path"; bin=$2; shift 2 ;;
	--) shift; break ;;
	*) usage ;;
	esac
done
case $runs in '' | *[!0-9]* | 0) usage "-n wants a number of runs from 1" ;; esac
[ $# -gt 0 ] || usage "no command"
[ -x "$bin" ] || usage "$bin is not built"

command -v perf >/dev/null || { echo "$0: perf is not installed (Debian: linux-perf)" >&2; exit 3; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

echo "# command: $*"
echo "# kernel $(uname -r), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "run perf_stat_page_faults record_samples"
for i in $(seq "$runs"); do
	p=$(setarch -R perf stat -x, -e page-faults -- "$@" 2>&1 >/dev/null |
		awk -F, '$3 == "page-faults" { print $1 }')
	setarch -R "$bin" record -c 1 -o "$out/r$i.json" -- "$@" >/dev/null 2>"$out/r$i.err"
	[ -s "$out/r$i.json" ] || { echo "record wrote no document:"; cat "$out/r$i.err"; exit 1; }
	r=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['total']['total'])" \
		"$out/r$i.json")
	echo "$i $p $r"
done

# a command that fails is still compared: both tools record it all the same
setarch -R perf record -q -e page-faults -c 1 -d -o "$out/p.data" -- "$@" >/dev/null 2>&1
[ -s "$out/p.data" ] || { echo "perf record wrote no data"; exit 1; }
perf script -i "$out/p.data" -F addr 2>/dev/null | awk '{ print $1 }' >"$out/p.addr"
python3 - "$out/r1.json" "$out/p.addr" <<'PY'
import collections, json, sys
d = json.load(open(sys.argv[1]))
addrs = [int(a, 16) for a in open(sys.argv[2]) if a.strip()]
rows = d["vmas"]
if len({v["pid"] for v in rows}) > 1:
    # addresses mean another VMA in each process, and the pids of two runs differ
    print("\n# several processes: the per-VMA comparison needs a command of one process")
    sys.exit(0)
def name(v):
    return v["name"] or "[anon]"
mine = collections.Counter()
for v in rows:
    mine[name(v)] += v["samples"]["total"]
theirs = collections.Counter()
# rows are kept in the order they were first sampled: the last that holds
# an address is the newest view of that VMA
ranges = sorted(((v["start"], v["end"], i) for i, v in enumerate(rows)))
for a in addrs:
    best = -1
    for s, e, i in ranges:
        if s > a:
            break
        if a < e and i > best:
            best = i
    theirs[name(rows[best]) if best >= 0 else "(no row)"] += 1
mine["(no row)"] = d["outcome"]["no_vma"]
print()
print("# one perf record -d against record's first run, per VMA name")
print("%-40s %10s %10s" % ("vma", "perf", "record"))
for n in sorted(set(mine) | set(theirs), key=lambda n: -max(mine[n], theirs[n])):
    print("%-40s %10d %10d" % (n[-40:], theirs[n], mine[n]))
print("%-40s %10d %10d" % ("total", len(addrs), sum(mine.values())))
PY
