#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The A/A pairs of a directory (aaN-a.json, aaN-b.json, from scripts/aa-collect.sh)
# through `compare`: per pair, the gain rows flagged at Holm 0.05, their median CI
# width, the drift-prone absolute rows flagged and the gate's exit at 5 %; then the
# calibration of the gain rows over all pairs: z = diff / its within-run standard
# error (compare --gain-run-sd 0), whose SD is 1 when the reps of one run show all
# that differs between two runs (above 1: a run-to-run part the reps do not see),
# and the run-to-run SD per file that would make it 1.
#   scripts/aa-summary.sh MTHPSCOPE DIR
set -u
[ $# -eq 2 ] && [ -x "$1" ] && [ -d "$2" ] || { echo "usage: $0 MTHPSCOPE DIR" >&2; exit 2; }
bin=$(realpath "$1") dir=$2
command -v python3 >/dev/null || { echo "needs python3" >&2; exit 3; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
echo "# $(basename "$bin") compare aaN-a.json aaN-b.json in $dir: gain rows and drift-prone absolute rows flagged at Holm 0.05, the gate at 5"
for a in $(ls "$dir"/aa*-a.json | sort -V); do
	i=${a##*/aa}; i=${i%-a.json}
	b=$dir/aa$i-b.json
	[ -f "$b" ] || continue
	"$bin" compare --format json "$a" "$b" >"$tmp/c.json" 2>/dev/null
	"$bin" compare --format json --gain-run-sd 0 "$a" "$b" >"$tmp/c0-$i.json" 2>/dev/null
	"$bin" compare "$a" "$b" --fail-on-regression 5 >/dev/null 2>&1
	gate=$?
	python3 - "$tmp/c.json" "$i" "$gate" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
g = d["gains"]
r = [x for x in d["rows"] if x.get("drift_prone")]
w = sorted(x["ci"][1] - x["ci"][0] for x in g if x.get("ci"))
print("pair %s: gain rows flagged %d of %d (median CI width %.1f points); drift-prone "
      "absolute rows flagged %d of %d; gate exit %s" %
      (sys.argv[2], sum(x["significant"] for x in g), len(g), w[len(w) // 2] if w else float("nan"),
       sum(x["significant"] for x in r), len(r), sys.argv[3]))
EOF
done
python3 - "$tmp" <<'EOF'
import glob, json, math, sys
zs, ds = {}, {}
for f in glob.glob(sys.argv[1] + "/c0-*.json"):
    for x in json.load(open(f))["gains"]:
        if not x.get("ci"):
            continue
        se = (x["ci"][1] - x["ci"][0]) / (2 * 1.96)
        if se > 0:
            zs.setdefault(x["metric"], []).append(x["diff_points"] / se)
            ds.setdefault(x["metric"], []).append((x["diff_points"], se))
for m, z in sorted(zs.items()):
    sd = math.sqrt(sum(v * v for v in z) / len(z))
    print("calibration %s: %d gain rows, SD of diff / within-run SE %.2f, |z| > 1.96 in %d"
          % (m, len(z), sd, sum(abs(v) > 1.96 for v in z)))
# the run-to-run SD per file (points) that makes diff / sqrt(se^2 + 2 sd^2) have SD 1
for m, rows in sorted(ds.items()):
    def spread(r):
        return sum(d * d / (se * se + 2 * r * r) for d, se in rows) / len(rows)
    lo, hi = 0.0, 100.0
    if spread(lo) <= 1:
        hi = 0.0
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if spread(mid) > 1 else (lo, mid)
    print("run-to-run SD per file that calibrates %s: %.1f points (compare --gain-run-sd)"
          % (m, hi))
EOF
