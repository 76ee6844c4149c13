#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A/A pairs: two runs with identical settings, a minute apart, pairs FIRST..LAST
# (the data of doc/compare.md, "Drift-proof A/B"). Each run's load average is logged.
#   scripts/aa-collect.sh BIN OUTDIR FIRST LAST [RUN-OPTIONS...]
set -u
bin=$1 out=$2 first=$3 last=$4
shift 4
mkdir -p "$out"
for i in $(seq "$first" "$last"); do
	for side in a b; do
		echo "pair $i $side run $* start $(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg)" >>"$out/collect.log"
		MTHPSCOPE_LOCK_WAIT=900 "$bin" run "$@" -o "$out/aa$i-$side.json" >"$out/aa$i-$side.txt" 2>&1
		echo "pair $i $side exit $? end $(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg)" >>"$out/collect.log"
		[ $side = a ] && sleep "${AA_GAP:-60}"
	done
	sleep "${AA_PAUSE:-30}"
done
