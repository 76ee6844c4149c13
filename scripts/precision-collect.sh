#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# data/precision-vm-amd-epyc-6.18: see PROVENANCE.md there (paths of that run).
# the acceptance run: one CPU busy (a shell loop on CPU 0; run pins itself to CPU 1)
cd /tmp/prec/acc
( while :; do date -u +%T; cat /proc/loadavg; sleep 10; done ) > loadavg.log 2>&1 &
LP=$!
taskset -c 0 sh -c 'while :; do :; done' &
BP=$!
echo "busy loop pid $BP" > meta.txt
{ date -u; uptime; } >> meta.txt
MTHPSCOPE_LOCK_WAIT=900 /tmp/prec/build-rel/mthpscope run --precision 3 --max-time 300 -o results.json > run.txt 2> run.err
echo "rc=$?" >> meta.txt
{ date -u; uptime; } >> meta.txt
kill $BP $LP
