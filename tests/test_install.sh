#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# cmake --install into a scratch prefix: binary, gnuplot templates, man pages,
# bash completion, README and the guides of doc/; the installed binary finds its templates and man
# pages relative to itself (with $MTHPSCOPE_GNUPLOT_DIR still overriding).
set -u
export LC_ALL=C
bin=${MTHPSCOPE_BIN:?} src=${MTHPSCOPE_SRC:?}
build=$(dirname "$bin")
[ -d "$build/man" ] || { echo "SKIP: no man pages in $build (a cross build)"; exit 77; }
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
fail=0
err() { echo "FAIL: $*"; fail=1; }
unset MTHPSCOPE_GNUPLOT_DIR

p=$tmp/prefix
cmake --install "$build" --prefix "$p" >"$tmp/log" 2>&1 || { cat "$tmp/log"; echo "FAIL: cmake --install"; exit 1; }
ib=$p/bin/mthpscope
[ -x "$ib" ] || err "bin/mthpscope not installed"
for t in "$src"/scripts/gnuplot/*.gp; do
	cmp -s "$t" "$p/share/mthpscope/gnuplot/$(basename "$t")" || err "template $(basename "$t") not installed"
done
cmds=$("$bin" --help | awk '/^Commands:/{on=1; next} on && /^  [a-z]/{print $1} on && /^$/{exit}')
for page in mthpscope $(for c in $cmds; do echo "mthpscope-$c"; done); do
	[ -s "$p/share/man/man1/$page.1.gz" ] || err "man page $page.1.gz not installed"
done
[ "$(ls "$p/share/man/man1" | wc -l)" = $(( $(echo $cmds | wc -w) + 1 )) ] || err "man1 holds $(ls "$p/share/man/man1")"
cmp -s "$p/share/bash-completion/completions/mthpscope" "$build/completion/mthpscope" || err "completion not installed"
cmp -s "$p/share/doc/mthpscope/README.md" "$src/README.md" || err "README not installed"
for g in "$src"/doc/*.md; do
	[ "$(basename "$g")" = ARCHITECTURE.md ] && continue
	cmp -s "$p/share/doc/mthpscope/$(basename "$g")" "$g" || err "guide doc/$(basename "$g") not installed"
done

[ "$("$ib" --version)" = "$("$bin" --version)" ] || err "installed --version differs"
"$ib" info >/dev/null || err "installed info: exit $?"
# help CMD reads the installed page (man -l), without MANPATH
if command -v man >/dev/null; then
	MANPATH=$tmp/none "$ib" help scan 2>&1 | grep -q "^OPTIONS" || err "installed 'help scan' shows no man page"
fi

# the templates: the installed ones (marked here), unless the variable says otherwise
if command -v gnuplot >/dev/null; then
	echo "# installed-template-marker" >>"$p/share/mthpscope/gnuplot/common.gp"
	"$ib" plot "$src/tests/data/knee2.json" -o "$tmp/fig" >/dev/null || err "installed plot: exit $?"
	grep -q installed-template-marker "$tmp/fig/gain.gp" || err "installed plot did not use <prefix>/share/mthpscope/gnuplot"
	MTHPSCOPE_GNUPLOT_DIR=$src/scripts/gnuplot "$ib" plot "$src/tests/data/knee2.json" -o "$tmp/fig2" >/dev/null ||
		err "installed plot with MTHPSCOPE_GNUPLOT_DIR: exit $?"
	grep -q installed-template-marker "$tmp/fig2/gain.gp" && err "MTHPSCOPE_GNUPLOT_DIR does not override"
	# the build tree, uninstalled, still uses the source tree's
	"$bin" plot "$src/tests/data/knee2.json" -o "$tmp/fig3" >/dev/null || err "build-tree plot: exit $?"
	grep -q installed-template-marker "$tmp/fig3/gain.gp" && err "the build tree used an installed template"
	# a moved prefix still works (relative to the executable)
	mv "$p" "$tmp/moved"
	"$tmp/moved/bin/mthpscope" plot "$src/tests/data/knee2.json" -o "$tmp/fig4" >/dev/null || err "moved prefix plot: exit $?"
	grep -q installed-template-marker "$tmp/fig4/gain.gp" || err "a moved prefix lost its templates"
else
	echo "note: gnuplot missing: template look-up not checked"
fi

[ $fail = 0 ] && echo "PASS: install to a prefix; templates and man pages found beside the binary"
exit $fail
