#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The layers of doc/ARCHITECTURE.md, checked on every #include "...": a file
# may include headers of its own layer and of the layers listed for it; the
# results file is the boundary, so doc/, analysis/ and present/ never
# include measurement code (src/measure, arch, kernels-micro); arch/ is the
# tables and CPU identification, below the perf_event and libpfm4 code of
# src/measure. And no include cycle: neither between headers nor between
# layers.
set -u
export LC_ALL=C
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 1
fail=0
err() { echo "FAIL: $*"; fail=1; }

# the layer of a path: kernels-micro/ belongs to measurement
layer() {
	case $1 in
	src/base/*) echo base ;;
	src/doc/*) echo doc ;;
	src/analysis/*) echo analysis ;;
	src/present/*) echo present ;;
	arch/*) echo arch ;;
	src/measure/* | kernels-micro/*) echo measure ;;
	src/cmd/*) echo cmd ;;
	*) echo other ;;
	esac
}
# what each layer may include besides itself
allowed() {
	case $1 in
	base) echo "" ;;
	doc) echo "base" ;;
	analysis) echo "base doc" ;;
	present) echo "base doc analysis" ;;
	arch) echo "base doc analysis" ;;
	measure) echo "base doc analysis arch" ;;
	cmd) echo "base doc analysis present measure arch" ;;
	esac
}

files=$(find src arch kernels-micro -name '*.[ch]' | sort)
declare -A where
for f in $files; do
	b=$(basename "$f")
	[ -n "${where[$b]:-}" ] && err "two headers named $b: ${where[$b]} and $f"
	where[$b]=$f
done

edges=$(mktemp) lay=$(mktemp) && trap 'rm -f "$edges" "$lay"' EXIT
for f in $files; do
	from=$(layer "$f")
	for h in $(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f"); do
		to_file=${where[$(basename "$h")]:-}
		[ -n "$to_file" ] || continue # a generated or test-only header
		to=$(layer "$to_file")
		case $f in *.h) echo "$f $to_file" >>"$edges" ;; esac
		[ "$from" = "$to" ] && continue
		echo "$from $to" >>"$lay"
		case " $(allowed "$from") " in
		*" $to "*) ;;
		*) err "$f includes $to_file: $from/ may not include $to/ code" ;;
		esac
	done
done
# tsort names a loop on stderr
if ! tsort "$edges" >/dev/null 2>"$edges.err"; then
	err "an include cycle between headers: $(tr '\n' ' ' <"$edges.err")"
fi
if ! sort -u "$lay" | tsort >/dev/null 2>"$lay.err"; then
	err "a cycle between layers: $(tr '\n' ' ' <"$lay.err")"
fi
rm -f "$edges.err" "$lay.err"
[ "$fail" = 0 ] && echo "PASS: $(echo "$files" | wc -w) files, every include follows the layers, no cycle"
exit "$fail"
