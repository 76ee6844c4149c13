#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Issue 42's check of a program that frees its memory before exit: the
# 192 MiB bytearray (scripts/programs-py192.py) run N times at orders 0, 2
# and 9; each run analysed; how many analyses worked (exit 0 with a
# verdict) and each order's page faults (median over its trials), one line
# per run. data/programs-vm-intel-6.18/PROVENANCE.md holds a run of it.
#   scripts/programs-py192-runs.sh [-b MTHPSCOPE] [-n RUNS] [-r REPS] -o DIR
set -u
bin=build/mthpscope
runs=10
reps=2
out=
usage() { echo "usage: $0 [-b MTHPSCOPE] [-n RUNS] [-r REPS] -o DIR" >&2; exit 2; }
while getopts "b:n:r:o:h" o; do
	case $o in
	b) bin=$OPTARG ;;
	n) runs=$OPTARG ;;
	r) reps=$OPTARG ;;
	o) out=$OPTARG ;;
	*) usage ;;
	esac
done
[ -n "$out" ] || usage
case "$runs$reps" in *[!0-9]*|'') echo "$0: -n and -r take whole numbers" >&2; exit 2 ;; esac
[ "$runs" -ge 1 ] && [ "$reps" -ge 1 ] || { echo "$0: -n and -r must be at least 1" >&2; exit 2; }
[ -x "$bin" ] || { echo "$0: '$bin' is not an executable mthpscope (-b)" >&2; exit 2; }
command -v jq >/dev/null || { echo "$0: needs jq" >&2; exit 3; }
py=/usr/bin/python3
[ -x "$py" ] || py=$(command -v python3) || { echo "$0: needs python3" >&2; exit 3; }
prog=$(cd "$(dirname "$0")" && pwd)/programs-py192.py
mkdir -p "$out" || exit 3
ok=0
for i in $(seq "$runs"); do
	f=$out/run$i.json
	"$bin" run --orders 0,2,9 --reps "$reps" -o "$f" -- "$py" "$prog" >"$out/run$i.run.txt" 2>&1 ||
		{ echo "run $i: run failed ($(tail -1 "$out/run$i.run.txt"))"; continue; }
	if "$bin" analyze "$f" >"$out/run$i.analysis.txt" 2>&1; then
		ok=$((ok + 1))
		verdict=$(grep -m1 '^recommendation:' "$out/run$i.analysis.txt")
	else
		verdict="analyze failed: $(tail -1 "$out/run$i.analysis.txt")"
	fi
	faults=$(jq -r '[.trials[] | {o: .order, f: .metrics.page_faults.value}] | group_by(.o) |
		map("order \(.[0].o): \(map(.f) | sort | .[length / 2 | floor]) faults") | join(", ")' "$f")
	echo "run $i: $faults; $verdict"
done
echo "analysis worked in $ok of $runs runs"
[ "$ok" = "$runs" ]
