#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Lint of scripts/ (issue 40: the code that made data/'s datasets lives here,
# covered): every shell script parses (bash -n), every C file compiles
# (-Wall -Werror, syntax only), every Python file compiles, and each has
# its SPDX line (scripts/workloads/ too); data/ holds no code.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/lib.sh"
cc=${CC:-cc}
n=0
for f in "$src"/scripts/*.sh "$src"/scripts/workloads/*.sh; do
	n=$((n + 1))
	bash -n "$f" 2>"$tmp/e" || err "${f#"$src"/}: $(head -2 "$tmp/e")"
	head -3 "$f" | grep -q 'SPDX-License-Identifier: GPL-2.0-or-later' || err "${f#"$src"/}: no SPDX line"
done
if command -v "$cc" >/dev/null; then
	for f in "$src"/scripts/*.c; do
		n=$((n + 1))
		# scripts/bench-scan.c uses the tool's own headers
		"$cc" -std=gnu11 -Wall -Wextra -Werror -fsyntax-only -include time.h \
			-I"$src/src/base" -I"$src/src/doc" -I"$src/src/measure" -I"$src/src/analysis" \
			-I"$src/arch" "$f" 2>"$tmp/e" ||
			err "${f#"$src"/}: $(head -3 "$tmp/e")"
	done
fi
if command -v python3 >/dev/null; then
	for f in "$src"/scripts/*.py; do
		n=$((n + 1))
		python3 -c 'import ast, sys; ast.parse(open(sys.argv[1]).read(), sys.argv[1])' "$f" \
			2>"$tmp/e" || err "${f#"$src"/}: $(tail -1 "$tmp/e")"
		head -3 "$f" | grep -q 'SPDX-License-Identifier: GPL-2.0-or-later' || err "${f#"$src"/}: no SPDX line"
	done
fi
code=$(cd "$src" && find data -type f \( -name '*.c' -o -name '*.h' -o -name '*.sh' -o -name '*.py' \))
[ -z "$code" ] || err "code in data/ (it goes to scripts/): $code"
[ "$n" -gt 20 ] || err "only $n scripts checked"
[ $fail = 0 ] && echo "ok: $n scripts parse or compile; data/ holds no code"
exit $fail
