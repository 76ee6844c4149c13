#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The launcher's watch on a large process tree: the tree's wall time under the
# default --scan-interval against --scan-interval 0 (exit scans only), in
# alternating runs so that the machine's drift falls on both sides alike.
#   usage: scripts/tree-overhead.sh MTHPSCOPE HELPER_ALLOC [PAIRS [PROCS [SLEEP_MS]]]
# (HELPER_ALLOC: tests/helper_alloc.c built). Prints one line per run (its
# trials' wall seconds from the results file) and the ratio of the medians.
set -eu
bin=$1 helper=$2 pairs=${3:-5} procs=${4:-1500} sleep_ms=${5:-5000}
out=$(mktemp -d); trap 'rm -rf "$out"' EXIT
tree="for i in \$(seq $procs); do $helper 1 sleep=$sleep_ms >/dev/null & done; wait"
walls() { python3 -c 'import json,sys
d=json.load(open(sys.argv[1])); print(" ".join("%.2f"%(t["metrics"]["wall_ns"]["value"]/1e9) for t in d["trials"]))' "$1"; }
for p in $(seq "$pairs"); do
	for mode in default zero; do
		opt=(); [ $mode = zero ] && opt=(--scan-interval 0)
		MTHPSCOPE_LOCK_WAIT=900 "$bin" run --orders 0 --reps 3 "${opt[@]}" -o "$out/$p-$mode.json" \
			-- sh -c "$tree" >"$out/$p-$mode.txt" 2>&1 || { cat "$out/$p-$mode.txt"; exit 1; }
		echo "pair $p $mode: $(walls "$out/$p-$mode.json")  load $(cut -d' ' -f1 /proc/loadavg)"
		grep -h "processes" "$out/$p-$mode.txt" | sed 's/^/    /' | head -3
	done
done | tee "$out/log"
python3 - "$out/log" <<'PY'
import re,sys,statistics as st
v={"default":[],"zero":[]}
for l in open(sys.argv[1]):
    m=re.match(r"pair \d+ (default|zero): ([\d. ]+)",l)
    if m: v[m.group(1)]+= [float(x) for x in m.group(2).split()]
d,z=st.median(v["default"]),st.median(v["zero"])
print(f"median wall: default {d:.2f} s, --scan-interval 0 {z:.2f} s, ratio {d/z:.3f} ({len(v['default'])} and {len(v['zero'])} trials)")
PY
