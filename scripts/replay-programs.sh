#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The merged policy against the real kernel, range by range, on real programs:
# with -k KERNEL, boots the kernel (scripts/guest-run.sh --shell, TCG, one
# guest) with python3.11 (a minimal stdlib: encodings, mmap), GNU sort and
# scripts/replay-sparse.py brought in, and runs scripts/replay-guest-programs.sh
# there, which writes each program's presence map before (PROG-N-p0.json) and
# after (PROG-N-p1.json) khugepaged's passes at max_ptes_none N into DIR.
# Then, for every such pair in DIR: 'collapse --replay merged' of P0 with the
# same settings (--orders 2-9, --max-ptes-none N, -p PASSES) writes
# PROG-N-replay.json (--final-map), scripts/replay-compare.sh compares it with
# P1 range by range into PROG-N-compare.tsv. Prints one line per pair and the
# total, "agree: N of M ranges (P%)"; with -m PCT, exit 1 when the total is
# below PCT. A DIR with the maps packed (maps.tar.xz, as in data/) is read
# from a copy: the replays and comparisons go there, not into DIR. Needs jq.
#
#   scripts/replay-programs.sh [-b BIN] [-p PASSES] [-m PCT] [-k KERNEL [-g GUEST-BIN]] DIR
# -g: the binary the guest runs (default BIN; a Release build is faster under TCG).
# $MPNS and $PROGS choose the guest's runs (scripts/replay-guest-programs.sh).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
usage() {
	echo "usage: $0 [-b BIN] [-p PASSES] [-m PCT] [-k KERNEL [-g GUEST-BIN]] DIR" >&2
	exit 2
}
bin=${MTHPSCOPE_BIN:-build/mthpscope}
passes=4 min= kernel= gbin=
while getopts b:p:m:k:g: opt; do
	case $opt in
	b) bin=$OPTARG ;;
	p) passes=$OPTARG ;;
	m) min=$OPTARG ;;
	k) kernel=$OPTARG ;;
	g) gbin=$OPTARG ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 1 ] || usage
dir=$1
case $passes in '' | *[!0-9]*) echo "$0: -p PASSES must be a number" >&2; exit 2 ;; esac
case $min in *[!0-9.]*) echo "$0: -m PCT must be a number" >&2; exit 2 ;; esac
command -v jq >/dev/null || { echo "$0: needs jq" >&2; exit 3; }

if [ -n "$kernel" ]; then
	py=/usr/bin/python3.11 pylib=/usr/lib/python3.11
	for f in "$py" "$pylib/encodings" "$pylib/os.py" /usr/bin/sort; do
		[ -e "$f" ] || { echo "$0: $f missing: the guest's programs come from the host (python3.11, coreutils)" >&2; exit 3; }
	done
	mmapso=$(ls "$pylib"/lib-dynload/mmap.*.so)
	mkdir -p "$dir"
	# the settings, then the knobs' start and the programs' script, as one shell script
	cmd="MPNS='${MPNS:-0 255 511}' PROGS='${PROGS:-sparse sort}' PASSES=$passes DIAG='${DIAG:-}'
SPARSE=$here/replay-sparse.py
$(cat "$here/replay-guest-knobs.sh" "$here/replay-guest-programs.sh")"
	"$here/guest-run.sh" --arch x86_64 --accel tcg --mem 1G --timeout "${GUEST_TIMEOUT:-1500}" \
		--bin "${gbin:-$bin}" --kernel "$kernel" --out "$dir" \
		--with "$py" --with "$pylib/encodings" --with "$pylib/os.py" --with "$mmapso" \
		--with /usr/bin/sort --with "$here/replay-sparse.py" --shell -- "$cmd" >"$dir/guest.log"
fi

if [ -z "$kernel" ] && [ -f "$dir/maps.tar.xz" ] && ! ls "$dir"/*-p0.json >/dev/null 2>&1; then
	unpacked=$(mktemp -d) || exit 1
	trap 'rm -rf "$unpacked"' EXIT
	tar -xJf "$dir/maps.tar.xz" -C "$unpacked" || exit 1
	dir=$unpacked
fi
total=0 ok=0 pairs=0
for p0 in "$dir"/*-p0.json; do
	[ -e "$p0" ] || break
	base=${p0%-p0.json}
	p1=$base-p1.json
	[ -e "$p1" ] || { echo "$0: $p0 has no $p1" >&2; exit 1; }
	name=$(basename "$base")
	mpn=${name##*-}
	"$bin" collapse --replay merged --presence "$p0" --orders 2-9 --max-ptes-none "$mpn" \
		--passes "$passes" --final-map "$base-replay.json" --json >/dev/null
	"$here/replay-compare.sh" "$p1" "$base-replay.json" >"$base-compare.tsv" 2>"$base-compare.err"
	line=$(cat "$base-compare.err")
	rm -f "$base-compare.err"
	echo "$name: $line"
	set -- $(awk -F'\t' 'NR > 1 && $4 != "only-one" { n++; if ($4 == "yes") ok++ }
		END { print ok + 0, n + 0 }' "$base-compare.tsv")
	ok=$((ok + $1)) total=$((total + $2)) pairs=$((pairs + 1))
done
[ "$pairs" -gt 0 ] || { echo "$0: no PROG-N-p0.json maps in $dir" >&2; exit 1; }
pct=$(awk -v a="$ok" -v n="$total" 'BEGIN { printf "%.1f", n ? 100 * a / n : 0 }')
echo "agree: $ok of $total ranges ($pct%) in $pairs maps"
if [ -n "$min" ] && awk -v p="$pct" -v m="$min" 'BEGIN { exit !(p < m) }'; then
	echo "$0: agreement $pct% is below $min%" >&2
	exit 1
fi
exit 0
