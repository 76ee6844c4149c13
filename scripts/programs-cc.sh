#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# data/programs-vm-intel-6.18 (its PROVENANCE; run -- cc.sh, paths of that run):
# compile mthpscope's analysis, doc and present sources at -O2, two at a time, into a fresh directory
set -e
src=/tmp/p42
out=$(mktemp -d /tmp/p42/cc.XXXXXX)
ls $src/src/analysis/*.c $src/src/doc/*.c $src/src/present/*.c | xargs -P2 -I{} sh -c 'gcc -O2 -I'$src'/src/base -I'$src'/src/doc -I'$src'/src/analysis -I'$src'/src/present -c {} -o '$out'/$(basename {}).o'
rm -rf "$out"
