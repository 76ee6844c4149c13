# SPDX-License-Identifier: GPL-2.0-or-later
# Sourced by replay-check.sh and replay-table.sh: their options.
#
# replay_args USAGE OPTSTRING "$@": -b BIN (default $MTHPSCOPE_BIN or
# build/mthpscope), -p PASSES (4) and, where OPTSTRING has g, -g DIR into
# bin, passes and plot; replay_shift is how many words the options took
# (the caller shifts them). An unknown option or a -p that is not a positive
# number: exit 2; a BIN that is not an executable file: exit 3.
replay_usage() {
	echo "usage: $0 $replay_usage_words" >&2
	exit 2
}
replay_args() {
	replay_usage_words=$1 optstring=$2
	shift 2
	bin=${MTHPSCOPE_BIN:-build/mthpscope}
	passes=4 plot=
	OPTIND=1
	while getopts "$optstring" opt; do
		case $opt in
		b) bin=$OPTARG ;;
		p) passes=$OPTARG ;;
		g) plot=$OPTARG ;;
		*) replay_usage ;;
		esac
	done
	replay_shift=$((OPTIND - 1))
	case $passes in
	''|*[!0-9]*|0) echo "$0: -p $passes: the passes are a positive number" >&2; exit 2 ;;
	esac
	[ -f "$bin" ] && [ -x "$bin" ] ||
		{ echo "$0: no mthpscope at '$bin' (build it, or -b BIN)" >&2; exit 3; }
}
