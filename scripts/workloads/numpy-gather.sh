#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The NumPy gather of doc/run.md and data/numpy-gather-vm-zen5-6.18: a random
# gather of ELEMENTS float64 over an ARRAY_MIB NumPy array
# (scripts/numpy-gather.py), run by Debian's /usr/bin/python3 with
# python3-numpy (installed with apt-get if missing): not a pyenv shim, whose
# own short processes would be most of the tree. Nothing is kept between runs.
#   numpy-gather.sh [--prepare] [ARRAY_MIB [ELEMENTS]]   (default 512 10000000)
# Its own figure, for run --metric: 'gather_ns=gather_ns_per_element: ([0-9.]+)'
#
# shellcheck source=scripts/workloads/lib.sh
source "$(dirname "$0")/lib.sh"
prepare=0
args=()
while [ $# -gt 0 ]; do
	case "$1" in
	--prepare) prepare=1 ;;
	-h|--help) wl_usage 0 ;;
	-*) wl_die 2 "unknown option '$1' (usage: numpy-gather.sh [--prepare] [ARRAY_MIB [ELEMENTS]])" ;;
	*[!0-9]*|0) wl_die 2 "invalid number '$1': ARRAY_MIB and ELEMENTS are positive integers" ;;
	*) args+=("$1") ;;
	esac
	shift
done
[ ${#args[@]} -le 2 ] || wl_die 2 "too many operands (usage: numpy-gather.sh [ARRAY_MIB [ELEMENTS]])"
[ ${#args[@]} -ge 1 ] || args=(512 10000000)
py=/usr/bin/python3
[ -x "$py" ] || wl_install python3
"$py" -c 'import numpy' 2>/dev/null || wl_install python3-numpy
[ "$prepare" = 1 ] && exit 0
exec "$py" "$(dirname "$0")/../numpy-gather.py" "${args[@]}"
