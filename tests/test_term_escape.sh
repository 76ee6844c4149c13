#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Issue 40, hostile pass item 1: a name from /proc, a document or a command
# line never reaches the terminal as a control byte. A process names a memfd
# "\e[31mEVIL\e[0m\e]0;PWNED\a" (memfd_create); scan --pid and record of it,
# and analyze, compare and record -i of documents edited to carry the same
# bytes in pattern names, VMA names and config.command, print no ESC, BEL or
# other control byte (but \n and \t), nor a C1 control of UTF-8, and no
# escape cut in the middle ("\x1" without its second digit).
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/lib.sh"
helper=$(dirname "${bin:?MTHPSCOPE_BIN}")/tests/helper_alloc
pid=
at_exit '[ -n "$pid" ] && kill "$pid" 2>/dev/null'
evil=$'\e[31mEVIL\e[0m\e]0;PWNED\a'
pat=$'\e[31mEVIL\e]0;P\a' # a pattern's name is at most 31 bytes
# clean NAME FILE [MUST]: FILE holds no control byte but \n and \t, no C1
# control (0xc2 0x80-0x9f), no cut escape; MUST (when given) is in it, escaped
clean() {
	local name=$1 f=$2 must=${3:-} n
	n=$(LC_ALL=C tr -d '\t\n\040-\176\200-\377' <"$f" | wc -c)
	[ "$n" = 0 ] && ! LC_ALL=C grep -q $'\xc2[\x80-\x9f]' "$f" ||
		err "$name: $n control bytes reach the terminal: $(cat -v "$f" | grep -m1 -a '\^\[\|\^G')"
	! grep -aqE '\\x([^0-9a-f]|[0-9a-f]([^0-9a-f]|$))' "$f" ||
		err "$name: an escape cut in the middle: $(grep -aE -m1 '\\x([^0-9a-f]|[0-9a-f]([^0-9a-f]|$))' "$f")"
	[ -z "$must" ] || grep -aqF -- "$must" "$f" || err "$name: '$must' not shown: $(head -c 400 "$f")"
}
# run NAME CMD...: stdout and stderr both checked, the exit status said when not 0 or 1
run() {
	local name=$1 rc
	shift
	"$@" >"$tmp/out" 2>&1
	rc=$?
	[ "$rc" -le 1 ] || err "$name: exit $rc: $(head -c 300 "$tmp/out" | cat -v)"
}

# documents: the same bytes in a pattern name, a command's argv, the host's CPU
swap() { jq --arg old "$1" --arg new "$2" '(.. | strings | select(. == $old)) |= $new'; }
swap chase-tlb "$pat" <"$data/flat.json" >"$tmp/flat.json"
jq --arg p "$pat" 'walk(if type == "object" and .pattern == "command" then .pattern = $p
	else . end)' "$data/command_flat.json" | swap /usr/bin/bench "$evil$evil" >"$tmp/cmd.json"
jq --arg e "$evil" '.host.cpu_model = $e' "$data/compare-base.json" >"$tmp/cb.json"
for f in flat cmd; do
	for fmt in text markdown; do
		run "analyze $f $fmt" "$bin" analyze --format "$fmt" "$tmp/$f.json"
		clean "analyze $f --format $fmt" "$tmp/out"
	done
done
run "analyze (pattern)" "$bin" analyze "$tmp/flat.json"
clean "analyze (pattern)" "$tmp/out" '\x1b[31mEVIL'
for fmt in text markdown lkml; do
	run "compare $fmt" "$bin" compare --format "$fmt" "$tmp/cb.json" "$data/compare-hi.json"
	clean "compare --format $fmt" "$tmp/out"
	run "compare command $fmt" "$bin" compare --format "$fmt" "$tmp/cmd.json" "$data/command_higher.json"
	clean "compare (command) --format $fmt" "$tmp/out"
done
jq --arg e "$evil" '.config.command = [$e, "x\u009b"] | .vmas[0].name = "/x/" + $e
	| .vmas[1].name = $e + $e + $e | .windows[0].vma = $e' \
	"$data/record/record-tlb.json" >"$tmp/rec.json"
for fmt in text markdown; do
	run "record -i $fmt" "$bin" record -i "$tmp/rec.json" --format "$fmt"
	clean "record -i --format $fmt" "$tmp/out" '\x1b[31mEVIL'
done
# a name from the command line, in an error message
run "analyze NAME" "$bin" analyze "$tmp/$evil"
clean "analyze missing file" "$tmp/out" 'PWNED\x07'

# a live process: scan --pid and record, as root
if [ "$(id -u)" != 0 ]; then
	echo "note: not root: scan --pid and record of a live process skipped"
	exit $fail
fi
"$helper" 8 sleep=20000 "memfd=$evil" pidfile="$tmp/pid" >/dev/null &
pid=$!
for _ in $(seq 100); do [ -s "$tmp/pid" ] && break; sleep 0.1; done
for mode in "" --rollup --tlb; do
	run "scan --pid $mode" "$bin" scan --pid "$(cat "$tmp/pid")" $mode
	clean "scan --pid $mode" "$tmp/out" "$([ -z "$mode" ] && echo 'memfd:\x1b[31mEVIL')"
done
kill "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
pid=
run "record" "$bin" record -o "$tmp/r.json" -- "$helper" 8 "memfd=$evil"
clean "record" "$tmp/out" 'memfd:\x1b[31mEVIL'
grep -a 'memfd:\\x1b\[31mEVIL\\x1b\[0m  *shmem' "$tmp/out" >/dev/null ||
	err "record: the VMA column is not cut between escapes: $(grep -a shmem "$tmp/out")"
run "record -i" "$bin" record -i "$tmp/r.json"
clean "record -i (recorded)" "$tmp/out" 'PWNED\x07'
exit $fail
