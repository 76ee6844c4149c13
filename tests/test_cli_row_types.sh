#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The CLI_ROW_* macros (src/cmd/cli.h) check the member's type at compile
# time, as perf's OPT_* do: a row bound to a member of the wrong type does
# not compile (a double under CLI_ROW_INT, an int under CLI_ROW_FLAG, a
# long under CLI_ROW_DOUBLE, a char array under CLI_ROW_STRING), and the
# right types do (an enum under CLI_ROW_WORD, a uint64_t under CLI_ROW_SIZE).
set -u
src=${MTHPSCOPE_SRC:?}
cc=${CC:-cc}
command -v "$cc" >/dev/null || { echo "SKIP: no C compiler ($cc)"; exit 77; }
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
fail=0
# row ROW FIELD-TYPE: compile one table row bound to a member of that type
row() {
	cat >"$tmp/t.c" <<EOT
#include <stdbool.h>
#include <stdint.h>
#include "cli.h"
enum e { E0, E1 };
struct o { $2 f; };
static const char *const w[] = { "a", NULL };
const struct cli_opt t[] = { { "x", 0, "X", "h", $1 }, CLI_END };
EOT
	"$cc" -std=gnu11 -fsyntax-only -I"$src/src/cmd" -I"$src/src/base" -I"$src/src/doc" \
		"$tmp/t.c" 2>"$tmp/err"
}
ok() { row "$1" "$2" || { echo "FAIL: $1 on $2 does not compile: $(head -3 "$tmp/err")"; fail=1; }; }
# refused by the type check itself (a negative array size), not another error
bad() {
	if row "$1" "$2"; then echo "FAIL: $1 on $2 compiles"; fail=1
	elif ! grep -q "negative" "$tmp/err"; then echo "FAIL: $1 on $2: $(head -3 "$tmp/err")"; fail=1; fi
}

ok 'CLI_ROW_INT(struct o, f, 0, 9)' int
ok 'CLI_ROW_INT(struct o, f, 0, 9)' 'unsigned long long'
bad 'CLI_ROW_INT(struct o, f, 0, 9)' double
bad 'CLI_ROW_INT(struct o, f, 0, 9)' 'const char *'
ok 'CLI_ROW_FLAG(struct o, f)' bool
bad 'CLI_ROW_FLAG(struct o, f)' int
ok 'CLI_ROW_DOUBLE(struct o, f, 0, 1)' double
bad 'CLI_ROW_DOUBLE(struct o, f, 0, 1)' long
ok 'CLI_ROW_SIZE(struct o, f, 1)' uint64_t
bad 'CLI_ROW_SIZE(struct o, f, 1)' int
ok 'CLI_ROW_WORD(struct o, f, w)' 'enum e'
bad 'CLI_ROW_WORD(struct o, f, w)' double
ok 'CLI_ROW_STRING(struct o, f)' 'const char *'
bad 'CLI_ROW_STRING(struct o, f)' 'int'
exit $fail
