#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Bash completion, generated from the option tables: commands, each
# command's options, the words of --pattern/--format/--mode/--backend/
# --defrag (each accepted by its command), the orders of a kernel (from a
# fake sysfs), file names for result-file arguments.
set -u
export LC_ALL=C
bin=${MTHPSCOPE_BIN:?} data=${MTHPSCOPE_SRC:?}/tests/data
comp=$(dirname "$bin")/completion/mthpscope
[ -s "$comp" ] || { echo "SKIP: no $comp (a cross build generates no completion)"; exit 77; }
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
fail=0
err() { echo "FAIL: $*"; fail=1; }

cmp -s "$comp" <("$bin" --bash-completion) || err "$comp is not what --bash-completion prints"
bash -n "$comp" || err "$comp: syntax"
# shellcheck source=/dev/null
source "$comp"
# complete WORD... : the words typed so far, the last one being completed
complete_words() {
	COMP_WORDS=("$@")
	COMP_CWORD=$(($# - 1))
	COMPREPLY=()
	_mthpscope mthpscope
	printf '%s\n' "${COMPREPLY[@]}" | sort | tr '\n' ' ' | sed 's/ $//'
}
expect() { # expected, words...
	local want=$1 got
	shift
	got=$(complete_words "$@")
	[ "$got" = "$want" ] || err "complete '$*': got '$got', want '$want'"
}

cmds=$("$bin" --help | awk '/^Commands:/{on=1; next} on && /^  [a-z]/{print $1} on && /^$/{exit}')
expect "$(printf '%s\n' $cmds help | sort | tr '\n' ' ' | sed 's/ $//')" mthpscope ""
expect "record restore run" mthpscope r
expect "collapse compare" mthpscope help co
expect "--help --version -V -h" mthpscope -
# every option --help lists, and only those
for c in $cmds; do
	want=$("$bin" "$c" --help | grep -oE '^ +(-[a-zA-Z], )?--[a-z0-9-]+' | grep -oE -- '--?[a-zA-Z0-9-]+' | sort | tr '\n' ' ' | sed 's/ $//')
	expect "$want" mthpscope "$c" -
done
expect "--max-ptes-none --measure --min-order --mode" mthpscope collapse --m
# value words, and each accepted by the command (or named in its --help)
expect "chase-mem chase-tlb random store stream" mthpscope run --pattern ""
expect "chase-tlb,store chase-tlb,stream" mthpscope run --pattern chase-tlb,st
expect "auto pmu timing" mthpscope run --backend ""
expect "always defer defer+madvise madvise never" mthpscope run --defrag ""
expect "khugepaged madvise" mthpscope collapse --mode ""
expect "khugepaged madvise" mthpscope collapse --mode =
expect "madvise" mthpscope collapse --mode = m
expect "json lkml markdown text" mthpscope compare --format ""
expect "png svg" mthpscope compare --plot-format ""
expect "json lkml markdown text" mthpscope analyze --format ""
expect "png svg" mthpscope plot --format ""
for f in $(complete_words mthpscope analyze --format ""); do
	"$bin" analyze "$data/knee2.json" --format "$f" >/dev/null || err "analyze --format $f: exit $?"
done
for f in $(complete_words mthpscope compare --format ""); do
	"$bin" compare "$data/compare-base.json" "$data/compare-lo.json" --format "$f" >/dev/null 2>&1 || err "compare --format $f: exit $?"
done
for p in $(complete_words mthpscope run --pattern ""); do
	"$bin" run --help | grep -q -- "$p" || err "run --help does not name pattern $p"
done
for w in $(complete_words mthpscope run --defrag ""); do
	"$bin" run --help | tr -s ' \n' ' ' | grep -q -- "$w" || err "run --help does not name defrag $w"
done
for w in $(complete_words mthpscope collapse --mode ""); do
	"$bin" collapse --help | grep -q -- "$w" || err "collapse --help does not name mode $w"
done

# orders of this kernel: 0 and one per hugepages-<N>kB (a fake sysfs)
mkdir -p "$tmp/thp/hugepages-16kB" "$tmp/thp/hugepages-64kB" "$tmp/thp/hugepages-2048kB"
ps=$(getconf PAGESIZE)
if [ "$ps" = 4096 ]; then
	MTHPSCOPE_SYSFS_THP=$tmp/thp expect "0 2 4 9 all" mthpscope run --orders ""
	MTHPSCOPE_SYSFS_THP=$tmp/thp expect "0,0 0,2 0,4 0,9 0,all" mthpscope collapse --orders 0,
else
	echo "note: page size $ps: the order list checks assume 4 KiB pages"
fi
# result files: *.json and directories for analyze/compare, any file for -o
mkdir -p "$tmp/files/sub dir" && touch "$tmp/files/r1.json" "$tmp/files/r2.json" "$tmp/files/notes.txt"
cd "$tmp/files" || exit 1
expect "r1.json r2.json sub dir" mthpscope analyze ""
expect "r1.json r2.json sub dir" mthpscope compare r1.json ""
expect "r1.json r2.json" mthpscope plot r
expect "notes.txt r1.json r2.json sub dir" mthpscope run -o ""
expect "sub dir" mthpscope plot r1.json -o ""
expect "" mthpscope run --reps ""

[ $fail = 0 ] && echo "PASS: completion of commands, options, words, orders, files"
exit $fail
