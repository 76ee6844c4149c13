#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The suite of real workloads (issue 42): each of scripts/workloads/ (kbuild,
# numpy-gather, sort, redis) measured whole by `mthpscope run --orders LIST
# --reps N -- WORKLOAD`, one after the other, into DIR:
#   NAME.json       the results file (mthpscope.results/1)
#   NAME.run.txt    run's end-of-run table and notes
#   NAME.lkml.txt   analyze --format lkml (the table the mTHP series post)
#   NAME.md         analyze --format markdown
#   suite.txt       per workload: its exit status and wall time, and the whole
#   suite.lkml.txt, suite.md  every measured workload's table, one after another
# Every workload is prepared first (packages, the kernel tree, the input),
# so no trial pays for it. A failed workload is said and the others go on
# (exit 1 at the end). SIGINT, SIGTERM or SIGHUP end the run in progress
# (mthpscope kills its tree; the server workload stops its server) and the
# suite, exit 130/143/129: no server is left running.
#   run-suite.sh --orders LIST -o DIR [--reps N] [--only NAME,...] [--bin MTHPSCOPE]
#                [--args NAME=WORDS]... [--no-timing]
#   --orders LIST  folio orders, comma-separated, with 0 (the base): 0,4
#   -o DIR         where the files go (made if missing)
#   --reps N       repetitions per order (default 3)
#   --only NAMES   these workloads alone (default: kbuild,numpy-gather,sort,redis)
#   --bin PATH     the mthpscope to run (default: $MTHPSCOPE_BIN, else
#                  mthpscope on PATH, else build/mthpscope of this tree)
#   --args NAME=WORDS  the workload's operands, split at spaces (repeat per
#                  workload): --args numpy-gather='64 1000000' --args sort=300000
#   --no-timing    for an emulated CPU (a TCG guest: run-suite-guests.sh):
#                  no workload's own figure (--metric: a time or a rate),
#                  the tables' verdict on faults (analyze --metric faults),
#                  and NAME.analysis.txt (analyze's text: faults, coverage,
#                  the TLB model); analyze leaves an emulated CPU's times
#                  out of the program table by itself
# Each run waits up to MTHPSCOPE_LOCK_WAIT seconds (default here 1800) for
# another mthpscope that is changing THP settings, instead of failing.
# Exit status: 0 every workload measured, 1 one failed, 2 usage error,
# 3 no mthpscope, or -o DIR cannot be written; when every workload's run
# was refused with the same 2 or 3 (an --orders or --reps mthpscope refuses,
# not root), that status.
# Example: scripts/workloads/run-suite.sh --orders 0,4 -o suite-0-4
#
set -u
here=$(cd "$(dirname "$0")" && pwd)
all=(kbuild numpy-gather sort redis)
usage() {
	[ -n "${1:-}" ] && echo "run-suite.sh: $1" >&2
	echo "usage: run-suite.sh --orders LIST -o DIR [--reps N] [--only NAME,...] [--bin MTHPSCOPE] [--args NAME=WORDS]... [--no-timing]" >&2
	exit 2
}
orders= out= reps=3 only= only_given= bin=${MTHPSCOPE_BIN:-} timing=1
declare -A wargs=()
add_args() {
	local name=${1%%=*}

	[[ "$1" == *=* ]] || usage "invalid --args '$1': NAME=WORDS, e.g. sort=300000"
	[[ " ${all[*]} " == *" $name "* ]] ||
		usage "unknown workload '$name' in --args (known: ${all[*]})"
	wargs[$name]=${1#*=}
}
while [ $# -gt 0 ]; do
	case "$1" in
	-h|--help) sed -n '3,/^#$/{/^#$/q;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
	--orders|-o|--output|--reps|--only|--bin|--args)
		[ $# -ge 2 ] || usage "$1 needs a value"
		case "$1" in
		--orders) orders=$2 ;;
		-o|--output) out=$2 ;;
		--reps) reps=$2 ;;
		--only) only=$2 only_given=1 ;;
		--bin) bin=$2 ;;
		--args) add_args "$2" ;;
		esac
		shift ;;
	--args=*) add_args "${1#*=}" ;;
	--no-timing) timing=0 ;;
	--orders=*) orders=${1#*=} ;;
	--output=*) out=${1#*=} ;;
	--reps=*) reps=${1#*=} ;;
	--only=*) only=${1#*=} only_given=1 ;;
	--bin=*) bin=${1#*=} ;;
	*) usage "unknown argument '$1'" ;;
	esac
	shift
done
[ -n "$orders" ] || usage "--orders LIST is required (e.g. --orders 0,4)"
[ -n "$out" ] || usage "-o DIR is required"
[[ "$orders" =~ ^[0-9]+(,[0-9]+)*$ ]] ||
	usage "invalid --orders '$orders': folio orders separated by commas, e.g. 0,4"
[[ ",$orders," == *,0,* ]] || usage "invalid --orders '$orders': it needs 0, the base every size is compared with"
[[ "$reps" =~ ^[1-9][0-9]*$ ]] || usage "invalid --reps '$reps': a positive number"
reps_word=reps
[ "$reps" = 1 ] && reps_word=rep
[ -e "$out" ] && [ ! -d "$out" ] && usage "-o '$out' is not a directory"
names=("${all[@]}")
if [ -n "$only_given" ]; then
	IFS=, read -r -a names <<<"$only"
	[ ${#names[@]} -gt 0 ] || usage "--only '' names no workload"
	seen=" "
	for n in "${names[@]}"; do
		[[ " ${all[*]} " == *" $n "* ]] ||
			usage "unknown workload '$n' in --only (known: ${all[*]})"
		[[ "$seen" == *" $n "* ]] && usage "workload '$n' twice in --only (its files would be written twice)"
		seen+="$n "
	done
fi
if [ -z "$bin" ]; then
	bin=$(command -v mthpscope || echo "$here/../../build/mthpscope")
fi
[ -f "$bin" ] && [ -x "$bin" ] ||
	{ echo "run-suite.sh: no mthpscope at '$bin' (build it, or --bin PATH)" >&2; exit 3; }
mkdir -p "$out" 2>/dev/null && [ -w "$out" ] ||
	{ echo "run-suite.sh: cannot write into -o '$out'" >&2; exit 3; }
export MTHPSCOPE_LOCK_WAIT=${MTHPSCOPE_LOCK_WAIT:-1800}

# What each workload is given, and its own figure for --metric (none on an
# emulated CPU: the figure would be the emulator's time)
metric_args() {
	extra=()
	[ "$timing" = 1 ] || return 0
	case "$1" in
	numpy-gather) extra=(--metric 'gather_ns=gather_ns_per_element: ([0-9.]+)') ;;
	redis) extra=(--metric 'get_rps=GET: ([0-9.]+) requests per second' --better higher) ;;
	esac
}

child=
stop() {
	# the run in progress ends (mthpscope kills its tree), and so does the suite
	[ -n "$child" ] && kill -TERM "$child" 2>/dev/null && wait "$child" 2>/dev/null
	echo "run-suite.sh: interrupted" >&2
	exit "$1"
}
trap 'stop 129' HUP
trap 'stop 130' INT
trap 'stop 143' TERM
# LOG CMD...: CMD in the background (its output to LOG, unless ''), waited
# for: the traps run during the wait (and with the suite's own stderr: a
# redirection of this function's call would hold for them too)
waited() {
	local log=$1
	shift
	if [ -n "$log" ]; then
		"$@" >"$log" 2>&1 &
	else
		"$@" &
	fi
	child=$!
	wait "$child"
	local st=$?
	child=
	return $st
}

# the workload's operands (--args), split at spaces
operands() {
	ops=()
	[ -z "${wargs[$1]:-}" ] || read -r -a ops <<<"${wargs[$1]}"
}
# analyze's options for the tables: on faults with --no-timing
tables=()
[ "$timing" = 1 ] || tables=(--metric faults)
for n in "${names[@]}"; do
	operands "$n"
	waited '' "$here/$n.sh" --prepare ${ops[@]+"${ops[@]}"} ||
		{ echo "run-suite.sh: $n cannot be prepared" >&2; exit 3; }
done
fail=0 same=
t_suite=$(date +%s)
: >"$out/suite.txt"
for n in "${names[@]}"; do
	t0=$(date +%s)
	echo "run-suite.sh: $n (orders $orders, $reps $reps_word)" >&2
	metric_args "$n"
	operands "$n"
	waited "$out/$n.run.txt" "$bin" run --orders "$orders" --reps "$reps" \
		${extra[@]+"${extra[@]}"} -o "$out/$n.json" -- "$here/$n.sh" ${ops[@]+"${ops[@]}"}
	st=$?
	if [ $st = 0 ]; then
		"$bin" analyze --format lkml "$out/$n.json" ${tables[@]+"${tables[@]}"} \
			>"$out/$n.lkml.txt" 2>&1 &&
			"$bin" analyze --format markdown "$out/$n.json" ${tables[@]+"${tables[@]}"} \
			>"$out/$n.md" 2>&1 || st=$?
	fi
	if [ $st = 0 ] && [ "$timing" = 0 ]; then
		"$bin" analyze "$out/$n.json" --metric faults >"$out/$n.analysis.txt" 2>&1 || st=$?
	fi
	[ $st = 0 ] || { fail=1; echo "run-suite.sh: $n failed (exit $st): $out/$n.run.txt" >&2; }
	# every run refused alike (2: an --orders or --reps mthpscope refuses; 3:
	# not root, no THP): the suite's status is that one
	if [ -z "$same" ]; then same=$st; elif [ "$same" != "$st" ]; then same=x; fi
	printf '%-14s exit %d  %d s\n' "$n" "$st" $(( $(date +%s) - t0 )) >>"$out/suite.txt"
done
printf '%-14s orders %s, %s %s: %d s\n' suite "$orders" "$reps" "$reps_word" $(( $(date +%s) - t_suite )) >>"$out/suite.txt"
: >"$out/suite.lkml.txt"
: >"$out/suite.md"
for n in "${names[@]}"; do
	[ -s "$out/$n.lkml.txt" ] && [ -s "$out/$n.md" ] || continue
	printf '== %s ==\n' "$n" >>"$out/suite.lkml.txt"
	cat "$out/$n.lkml.txt" >>"$out/suite.lkml.txt"
	printf '## %s\n\n' "$n" >>"$out/suite.md"
	cat "$out/$n.md" >>"$out/suite.md"
done
cat "$out/suite.txt"
case $fail:$same in 1:2|1:3) exit "$same" ;; esac
exit $fail
