#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Man pages and --version: every command has a page generated from its option
# table; each page renders with man -l without a groff warning at 80 columns
# and names every option --help names; 'help CMD' shows the page, or --help
# without man; --version is the tool.version of the documents.
set -u
export LC_ALL=C
bin=${MTHPSCOPE_BIN:?}
mandir=$(dirname "$bin")/man
command -v man >/dev/null || { echo "SKIP: man is not installed (apt-get install man-db)"; exit 77; }
[ -d "$mandir" ] || { echo "SKIP: no $mandir (a cross build generates no man pages)"; exit 77; }
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
fail=0
err() { echo "FAIL: $*"; fail=1; }

cmds=$("$bin" --help | awk '/^Commands:/{on=1; next} on && /^  [a-z]/{print $1} on && /^$/{exit}')
[ "$(echo "$cmds" | wc -w)" -ge 9 ] || err "command list from --help: '$cmds'"

render() { MANWIDTH=80 man --warnings -l "$1" 2>"$tmp/warn" | col -b >"$tmp/page"; }
for page in mthpscope $(for c in $cmds; do echo "mthpscope-$c"; done); do
	p=$mandir/$page.1
	[ -s "$p" ] || { err "$page.1 missing"; continue; }
	[ -s "$p.gz" ] && zcmp -s "$p.gz" "$p" || err "$page.1.gz is not $page.1"
	render "$p"
	[ -s "$tmp/warn" ] && err "$page: groff warnings: $(head -3 "$tmp/warn")"
	grep -q "^NAME" "$tmp/page" && grep -q "^DESCRIPTION" "$tmp/page" || err "$page: no NAME/DESCRIPTION"
	grep -q "^SEE ALSO" "$tmp/page" || err "$page: no SEE ALSO"
done
render "$mandir/mthpscope.1"
for c in $cmds; do
	grep -q "mthpscope-$c(1)" "$tmp/page" || err "mthpscope(1) does not list $c"
done
for c in $cmds; do
	render "$mandir/mthpscope-$c.1"
	grep -q "^OPTIONS" "$tmp/page" || err "$c: no OPTIONS"
	# every long and short option of the table (--help prints the table)
	for o in $("$bin" "$c" --help | grep -oE '^ +(-[a-zA-Z], )?--[a-z0-9-]+' | grep -oE -- '--?[a-zA-Z0-9-]+'); do
		grep -qE -- "(^|[ ,])$o([ ,]|$)" "$tmp/page" || err "$c: option $o not in its man page"
	done
	# each summary from the command table
	summary=$("$bin" --help | awk -v c="$c" '$1 == c {$1=""; sub(/^ +/, ""); print}')
	grep -qF -- "${summary:0:30}" <(tr -s ' \n' ' ' <"$tmp/page") || err "$c: summary '$summary' not in NAME"
done

# help CMD: the page through man; without man on PATH, --help
"$bin" help run >"$tmp/help" 2>&1 || err "help run: exit $?"
grep -q "mthpscope-run" "$tmp/help" && grep -q "^OPTIONS" "$tmp/help" || err "help run: not the man page: $(head -3 "$tmp/help")"
PATH=$tmp/nothing "$bin" help run >"$tmp/help" 2>&1 || err "help run without man: exit $?"
head -1 "$tmp/help" | grep -q "^Usage: mthpscope run" || err "help run without man: $(head -2 "$tmp/help")"
"$bin" help run extra >"$tmp/out" 2>"$tmp/err"; rc=$?
[ $rc = 2 ] && grep -q "help: unexpected argument 'extra'" "$tmp/err" && [ ! -s "$tmp/out" ] ||
	err "help run extra: exit $rc, $(cat "$tmp/err")"
"$bin" help nosuch >/dev/null 2>"$tmp/err"; rc=$?
[ $rc = 2 ] && grep -q "unknown command 'nosuch'" "$tmp/err" || err "help nosuch: exit $rc, $(cat "$tmp/err")"
"$bin" --man-page nosuch /dev/null >/dev/null 2>&1; [ $? = 2 ] || err "--man-page nosuch: not exit 2"
"$bin" --man-page run "$tmp/missing.txt" >/dev/null 2>&1; [ $? = 1 ] || err "--man-page with a missing description: not exit 1"

# a full disk: exit 1, not a truncated page reported as written
if mknod "$tmp/full" c 1 7 2>/dev/null; then
	"$bin" --man-page run "${MTHPSCOPE_SRC:?}/doc/man/run.txt" >"$tmp/full" 2>/dev/null; rc=$?
	[ $rc = 1 ] || err "--man-page to a full device: exit $rc"
	"$bin" --bash-completion >"$tmp/full" 2>/dev/null; rc=$?
	[ $rc = 1 ] || err "--bash-completion to a full device: exit $rc"
	# man ignores its own write error: the page comes through us
	"$bin" help run >"$tmp/full" 2>"$tmp/err"; rc=$?
	[ $rc = 1 ] && grep -q "writing to standard output failed: No space left on device" "$tmp/err" ||
		err "help run to a full device: exit $rc, $(cat "$tmp/err")"
	PATH=$tmp/nothing "$bin" help run >"$tmp/full" 2>"$tmp/err"; rc=$?
	[ $rc = 1 ] && grep -q "No space left on device" "$tmp/err" ||
		err "help run without man to a full device: exit $rc, $(cat "$tmp/err")"
fi

# --version: the same string as the documents' tool.version
v=$("$bin" --version) || err "--version: exit $?"
[[ $v =~ ^mthpscope\ [0-9]+\.[0-9]+\.[0-9]+ ]] || err "--version: '$v'"
tv=$("$bin" info --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["tool"]["version"])')
[ "$v" = "mthpscope $tv" ] || err "--version '$v' but tool.version '$tv'"
# and of the documents analysis and comparison print (a reviewer keeps them)
fx=$MTHPSCOPE_SRC/tests/data/knee2.json
for c in "analyze --format json $fx" "compare --format json $fx $fx"; do
	# shellcheck disable=SC2086
	tv=$("$bin" $c 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["tool"]["version"])')
	[ "$v" = "mthpscope $tv" ] || err "$c: tool.version '$tv', --version '$v'"
done
if git -C "${MTHPSCOPE_SRC:?}" rev-parse --git-dir >/dev/null 2>&1; then
	d=$(git -C "$MTHPSCOPE_SRC" describe --tags --always)
	[[ $v == *"+git.$d"* ]] || echo "note: --version '$v' is not of this commit ($d): rebuild"
fi

[ $fail = 0 ] && echo "PASS: man pages of $(echo $cmds | wc -w) commands, help, --version"
exit $fail
