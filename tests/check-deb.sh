#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Checks of the .deb that `cpack -G DEB` wrote (scripts/test.sh builds it in
# a Release tree and calls this; not a ctest test, whose build has ASan):
# control fields, Depends from dpkg-shlibdeps, the file list, the unpacked
# binary working from its own tree, lintian without errors.
# MTHPSCOPE_DEB_INSTALL=1 also does dpkg -i, mthpscope info, dpkg -r (root;
# only when no mthpscope package is installed already).
set -u
export LC_ALL=C
deb=${1:?usage: check-deb.sh PACKAGE.deb}
[ -s "$deb" ] || { echo "FAIL: $deb missing"; exit 1; }
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
fail=0
err() { echo "FAIL: $*"; fail=1; }
field() { dpkg-deb -f "$deb" "$1"; }

[ "$(field Package)" = mthpscope ] || err "Package: $(field Package)"
[ "$(field Recommends)" = gnuplot-nox ] || err "Recommends: $(field Recommends)"
dep=$(field Depends)
for lib in libc6 libjansson4 libhwloc15 libpfm4 libpcre2-8-0; do
	[[ $dep == *"$lib"* ]] || err "Depends lacks $lib: '$dep'"
done
[[ $dep == *asan* || $dep == *ubsan* ]] && err "Depends names a sanitizer runtime: '$dep'"
dpkg-deb -c "$deb" | awk '{print $6}' | sed 's|^\./|/|' >"$tmp/list"
for f in /usr/bin/mthpscope /usr/share/mthpscope/gnuplot/common.gp /usr/share/man/man1/mthpscope.1.gz \
	/usr/share/man/man1/mthpscope-run.1.gz /usr/share/bash-completion/completions/mthpscope \
	/usr/share/doc/mthpscope/README.md /usr/share/doc/mthpscope/run.md /usr/share/doc/mthpscope/copyright /usr/share/doc/mthpscope/changelog.gz; do
	grep -qx "$f" "$tmp/list" || err "$f not in the package"
done

dpkg -x "$deb" "$tmp/root" || err "dpkg -x"
b=$tmp/root/usr/bin/mthpscope
"$b" --version | grep -q "^mthpscope [0-9]" || err "unpacked --version"
"$b" info >/dev/null || err "unpacked info: exit $?"
if command -v man >/dev/null; then
	MANPATH=$tmp/none "$b" help run 2>&1 | grep -q "^OPTIONS" || err "unpacked 'help run' finds no man page"
fi
if command -v gnuplot >/dev/null; then
	(unset MTHPSCOPE_GNUPLOT_DIR; "$b" plot "$(dirname "$0")/data/knee2.json" -o "$tmp/fig" >/dev/null) ||
		err "unpacked plot: exit $?"
fi

if command -v lintian >/dev/null; then
	lintian "$deb" 2>&1 | grep -v "running with root privileges" >"$tmp/lintian"
	grep '^E:' "$tmp/lintian" && err "lintian errors"
	sed 's/^/lintian: /' "$tmp/lintian"
else
	echo "note: lintian missing: not run"
fi

if [ "${MTHPSCOPE_DEB_INSTALL:-0}" = 1 ]; then
	if dpkg -s mthpscope >/dev/null 2>&1; then
		echo "note: a mthpscope package is installed already: dpkg -i not tried"
	else
		dpkg -i "$deb" >"$tmp/dpkg" 2>&1 || { cat "$tmp/dpkg"; err "dpkg -i"; }
		(cd / && mthpscope info >/dev/null) || err "installed mthpscope info: exit $?"
		dpkg -r mthpscope >/dev/null 2>&1 || err "dpkg -r"
	fi
fi

[ $fail = 0 ] && echo "PASS: $(basename "$deb"): Depends $dep; Recommends gnuplot-nox; lintian without errors"
exit $fail
