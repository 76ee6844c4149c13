#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The tree's own promises (doc/ARCHITECTURE.md, "Folders and contracts"):
# COPYING holds the license, every C file carries its SPDX line, and every
# path of this repository that a comment, script or document cites exists
# (a file moved without its citations leaves a reader at a dead end).
set -u
export LC_ALL=C
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 1
fail=0
err() { echo "FAIL: $*"; fail=1; }

git rev-parse --git-dir >/dev/null 2>&1 || { echo "SKIP: not a git checkout (the tracked files are the tree)"; exit 77; }
files=$(git ls-files)

grep -q 'GNU GENERAL PUBLIC LICENSE' COPYING 2>/dev/null && grep -q 'Version 2, June 1991' COPYING ||
	err "COPYING is missing or not the GPL version 2 text"

n=0
for f in $(echo "$files" | grep -E '\.[ch]$'); do
	n=$((n + 1))
	head -3 "$f" | grep -q 'SPDX-License-Identifier: GPL-2.0-or-later' || err "$f: no SPDX line in its first 3 lines"
done
[ "$n" -gt 100 ] || err "only $n C files found"

# Paths as the tree writes them: a top folder of this repository, then a
# name; not preceded by a path character (so $src/scripts and the kernel's
# arch/x86/... are not ours). Templates (NAME, CMD, a trailing _ or -) are
# not paths; a built helper is cited by its source's name without .c.
texts=$(echo "$files" | grep -vE '^(data|tests/data|tests/fuzz/corpus[^/]*)/' |
	grep -E '\.(c|h|sh|py|md|txt|gp|cmake)$|CMakeLists\.txt$|^\.ci/')
n=0
while read -r cite; do
	p=${cite#*:}
	case $p in *NAME* | *CMD* | *_ | *- | */) continue ;; esac
	n=$((n + 1))
	[ -e "$p" ] || [ -e "$p.c" ] || err "${cite%%:*} cites $p, which is not in the repository"
done < <(for f in $texts; do
	grep -oP '(?<![A-Za-z0-9_/$.{}-])(src|tests|scripts|doc|kernels-micro|cmake|debian|\.ci)/[A-Za-z0-9_./-]+' "$f" |
		sed 's/[.,:;]*$//' | sed "s|^|$f:|"
done | sort -u)
[ "$n" -gt 50 ] || err "only $n citations found: the pattern no longer matches the tree"
[ $fail = 0 ] && echo "ok: COPYING, SPDX lines, and $n cited paths exist"
exit $fail
