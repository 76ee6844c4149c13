# SPDX-License-Identifier: GPL-2.0-or-later
# The scripts' options that take a value, from a list instead of a case arm
# each. Sourced; the sourcing script defines die RC MESSAGE.
#
#   valued="kernel out guest-timeout=gtimeout"
#   while [ $# -gt 0 ]; do
#	if opt_value "$valued" "$@"; then shift 2; continue; fi
#	case "$1" in ... esac
#   done
#
# opt_value SPECS ARG [VALUE ...]: when ARG is --NAME for a NAME of SPECS
# (words NAME, or NAME=VARIABLE where the variable's name differs), sets that
# variable to VALUE and returns 0; an empty or missing VALUE is a usage error
# (die 2). Returns 1 when ARG is none of them.
opt_value() {
	local spec

	for spec in $1; do
		[ "$2" = "--${spec%%=*}" ] || continue
		[ $# -ge 3 ] && [ -n "$3" ] || die 2 "$2 needs a value"
		printf -v "${spec#*=}" '%s' "$3"
		return 0
	done
	return 1
}
