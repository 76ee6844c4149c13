#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# No function longer than 80 lines in src/ and arch/ (doc/ARCHITECTURE.md):
# a function runs from the line that opens its body with "{" in column 0 to
# the "}" in column 0 that closes it (the kernel's brace style, which the
# code follows); its length is the lines between the two.
set -u
export LC_ALL=C
root=$(cd "$(dirname "$0")/.." && pwd)
max=${MAX_FUNCTION_LINES:-80}
cd "$root" || exit 1
out=$(find src arch -name '*.c' | sort | xargs awk -v max="$max" '
	FNR == 1 { open = 0 }
	/^\{/ { open = FNR; name = prev; next }
	/^\}/ && open { n = FNR - open - 1; if (n > max) printf "%s:%d: %s: %d lines\n", FILENAME, open, name, n; open = 0 }
	{ if ($0 ~ /^[A-Za-z_].*\(/) prev = $0 }
')
if [ -n "$out" ]; then
	echo "FAIL: functions over $max lines:"
	echo "$out"
	exit 1
fi
echo "PASS: no function over $max lines in src/ and arch/"
