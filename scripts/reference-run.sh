#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Produce a reference result in data/NAME/: the machine description, a real
# run (a span sweep, so the staircase is drawn), its analysis in every
# format, and the plots. Run as root on an otherwise idle machine; the
# THP settings are saved and restored by mthpscope itself.
#   scripts/reference-run.sh NAME [extra run options]
# Environment: MTHPSCOPE (binary, default build/mthpscope), REPS (default: run's
# own, 30 short reps interleaved), SWEEP (default 8M:128M).
set -euo pipefail
cd "$(dirname "$0")/.."
name=${1:?usage: scripts/reference-run.sh NAME [run options]}
shift
bin=${MTHPSCOPE:-build/mthpscope}
out=data/$name
mkdir -p "$out"
"$bin" info --json >"$out/info.json"
start=$(date -u +%FT%TZ)
t0=$(date +%s)
reps=()
[ -n "${REPS:-}" ] && reps=(--reps "$REPS")
"$bin" run "${reps[@]}" --sweep "${SWEEP:-8M:128M}" -o "$out/results.json" "$@" \
	>"$out/run.txt"
t1=$(date +%s)
"$bin" analyze "$out/results.json" >"$out/analysis.txt"
"$bin" analyze "$out/results.json" --format markdown >"$out/analysis.md"
"$bin" analyze "$out/results.json" --format json >"$out/analysis.json"
rm -rf "$out/plots"
"$bin" plot "$out/results.json" -o "$out/plots" >/dev/null
cat >"$out/PROVENANCE.md" <<EOT
# $name

- Command: \`$bin run ${reps[*]} --sweep ${SWEEP:-8M:128M} $*\` (then analyze, plot)
- Started $start, took $((t1 - t0)) s; mthpscope $("$bin" --version | cut -d' ' -f2),
  commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)
- Host: $(uname -r), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//; s/ *$//; s/  */ /g'),
  $(nproc) CPUs, load average at start: $(cut -d' ' -f1-3 /proc/loadavg)
- Files: info.json (the machine), results.json (mthpscope.results/1), run.txt (run's
  summary), analysis.{txt,md,json} (mthpscope.analysis/1), plots/ (PNG, each with
  its .dat and .gp)
EOT
echo "wrote $out"
