#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The suite of real workloads in guests of two kernels (issue 42: kernel A/B):
# per kernel one qemu TCG boot (scripts/guest-run.sh --shell, one after the
# other) that runs run-suite.sh --no-timing there, with what the workloads
# need brought from this host at the same paths (--with): bash, env,
# /usr/bin/python3 with the modules numpy-gather.py loads (found by running
# it here once, small), GNU sort, redis-server, redis-benchmark, redis-cli,
# scripts/workloads/ and sort's input from the workload cache. Then per
# workload `mthpscope compare` of the two kernels' files. Under TCG time
# measures the emulator: the tables rest on faults, folio layout and the
# model (analyze --metric faults; analyze leaves an emulated CPU's times out
# of the program table), and no workload's own time or rate is recorded.
#   run-suite-guests.sh --kernels A,B --orders LIST -o DIR [--reps N]
#                       [--only NAME,...] [--args NAME=WORDS]... [--bin PATH]
#                       [--mem SIZE] [--timeout SEC]
#   --kernels A,B  two kernels: Debian package names or image paths
#                  (guest-run.sh --kernel), A the baseline
#   --orders LIST  folio orders with 0, as run-suite.sh: 0,4
#   -o DIR         DIR/KERNEL/ per kernel (NAME.json, NAME.run.txt,
#                  NAME.lkml.txt, NAME.md, NAME.analysis.txt, suite.txt,
#                  layout.txt, info.txt, guest.log, guest.err), DIR/compare-NAME.txt
#                  and .md, DIR/suite-guests.txt (every kernel's layout.txt)
#   --reps N       repetitions per order (default 2)
#   --only NAMES   of numpy-gather,sort,redis (default: all three)
#   --args NAME=WORDS  the workload's operands in the guest (defaults, scaled
#                  down for TCG: numpy-gather='64 1000000', sort=300000,
#                  redis=20000)
#   --bin PATH     the x86_64 mthpscope for the guests and the compare
#                  (default: $MTHPSCOPE_BIN, else build/mthpscope)
#   --mem SIZE     guest memory (default 2G); --timeout SEC per boot
#                  (default 1800)
#   run-suite-guests.sh --layout DIR   prints the layout table of DIR's
#                  results files (layout.txt) and exits (needs jq)
# The kernel build (kbuild) is left out: a tinyconfig build takes 2 to 14
# minutes natively on this project's VM, and programs run about 7 times
# slower under TCG (sort.sh 300000: 1.8 s in the guest, 0.27 s natively).
# SIGINT, SIGTERM or SIGHUP end the guest in progress (its whole process
# group, qemu with it) and the script, exit 130/143/129: no qemu is left.
# Exit: 0 every guest ran and every workload measured and compared; 1 a
# workload or a guest failed (the others go on); 2 usage; 3 cannot run here
# (a program, jq, or the guest itself: no qemu, no kernel).
# $MTHPSCOPE_GUEST_RUN stands in for scripts/guest-run.sh (tests).
# Example: scripts/workloads/run-suite-guests.sh -o sg --orders 0,4 \
#   --kernels linux-image-6.12.95+deb12-amd64-unsigned,linux-image-7.3.4+deb13-amd64
#
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
guest_run=${MTHPSCOPE_GUEST_RUN:-$top/scripts/guest-run.sh}
all=(numpy-gather sort redis)
declare -A wargs=([numpy-gather]='64 1000000' [sort]=300000 [redis]=20000)
usage() {
	[ -n "${1:-}" ] && echo "run-suite-guests.sh: $1" >&2
	echo "usage: run-suite-guests.sh --kernels A,B --orders LIST -o DIR [--reps N] [--only NAME,...] [--args NAME=WORDS]... [--bin PATH] [--mem SIZE] [--timeout SEC] | --layout DIR" >&2
	exit 2
}
kbuild_out="kbuild is left out of the guest suite: a tinyconfig build takes 2 to 14 minutes natively here and programs run about 7 times slower under TCG (sort.sh 300000: 1.8 s in the guest, 0.27 s here), an hour or more per kernel even at one rep (run-suite.sh runs it on the host)"
known() {
	[ "$1" = kbuild ] && usage "$kbuild_out"
	[[ " ${all[*]} " == *" $1 "* ]] || usage "unknown workload '$1' in $2 (known in guests: ${all[*]})"
}
add_args() {
	[[ "$1" == *=* ]] || usage "invalid --args '$1': NAME=WORDS, e.g. sort=300000"
	known "${1%%=*}" --args
	wargs[${1%%=*}]=${1#*=}
}
layout_only=
kernels= orders= out= reps=2 only= bin=${MTHPSCOPE_BIN:-$top/build/mthpscope} mem=2G timeout=1800
while [ $# -gt 0 ]; do
	case "$1" in
	-h|--help) sed -n '3,/^#$/{/^#$/q;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
	--layout)
		[ $# -ge 2 ] && [ -d "$2" ] || usage "--layout needs a directory of results files"
		layout_only=$2
		shift ;;
	--kernels|--orders|-o|--output|--reps|--only|--args|--bin|--mem|--timeout)
		[ $# -ge 2 ] && [ -n "$2" ] || usage "$1 needs a value"
		case "$1" in
		--kernels) kernels=$2 ;;
		--orders) orders=$2 ;;
		-o|--output) out=$2 ;;
		--reps) reps=$2 ;;
		--only) only=$2 ;;
		--args) add_args "$2" ;;
		--bin) bin=$2 ;;
		--mem) mem=$2 ;;
		--timeout) timeout=$2 ;;
		esac
		shift ;;
	*) usage "unknown argument '$1'" ;;
	esac
	shift
done
# --- per workload and order: the trials, faults, coverage, peak memory and
# the pages per order (of the scanned anonymous memory, over every scan)
layout() {
	local f found=0

	printf '%-13s %5s %6s %3s %10s %8s %9s  %s\n' workload order size n faults coverage "peak MiB" \
		"pages per order (share of the scanned anonymous pages)"
	for f in "$1"/*.json; do
		[ -e "$f" ] || continue
		jq -e '(.schema // "") | startswith("mthpscope.results/")' "$f" >/dev/null 2>&1 ||
			{ echo "run-suite-guests.sh: $f: not a results file (mthpscope.results/1), skipped" >&2; continue; }
		found=$((found + 1))
		jq -r --arg n "$(basename "$f" .json)" '
		def median: sort | if length == 0 then null
			elif length % 2 == 1 then .[(length - 1) / 2]
			else (.[length / 2 - 1] + .[length / 2]) / 2 end;
		def num: if . == null then "-" else tostring end;
		.host.page_size as $ps
		| [.trials[] | select(.pattern == "command" and (.exit.code // 0) == 0)]
		| group_by(.order)[]
		| (reduce (.[] | .folios.hist // {} | to_entries[]) as $e ({}; .[$e.key] += $e.value)) as $h
		| ($h | add // 0) as $all
		| [$n, .[0].order, (($ps // 4096) * pow(2; .[0].order) / 1024), length,
		   ([.[] | (.metrics.page_faults.value // .metrics.minor_faults.value) // empty] | median | num),
		   ([.[] | .folios.coverage // empty] | median | num),
		   ([.[] | .metrics.max_rss_bytes.value // empty] | median | num),
		   ([$h | to_entries | sort_by(.key | tonumber)[] | select($all > 0)
		     | "\(.key):\((.value * 1000 / $all | round) / 10)%"] | join(" "))]
		| @tsv' "$f" | awk -F'\t' 'function f(v, fmt, k) { return v == "-" ? v : sprintf(fmt, v * k) }
		{ printf "%-13s %5s %5sK %3s %10s %8s %9s  %s\n", $1, $2, $3, $4, f($5, "%.0f", 1),
			f($6, "%.0f%%", 100), f($7, "%.1f", 1 / 1048576), $8 }'
	done
	echo "faults: median page faults of the tree per trial (perf's page-faults, else rusage's minor"
	echo "faults); coverage: median share of the anonymous memory in folios of the order or larger"
	echo "over the program's life; pages per order: ORDER:SHARE of the pages the scans saw, summed"
	echo "over every scan of every trial. No time: the CPU is emulated (QEMU TCG)."
	[ "$found" -gt 0 ] || { echo "run-suite-guests.sh: no results file in $1" >&2; return 1; }
}

if [ -n "$layout_only" ]; then
	command -v jq >/dev/null || { echo "run-suite-guests.sh: jq missing" >&2; exit 3; }
	layout "$layout_only"
	exit
fi
[ -n "$kernels" ] || usage "--kernels A,B is required (two kernels)"
[ -n "$orders" ] || usage "--orders LIST is required (e.g. --orders 0,4)"
[ -n "$out" ] || usage "-o DIR is required"
IFS=, read -r -a ks <<<"$kernels"
[ ${#ks[@]} = 2 ] && [ -n "${ks[0]}" ] && [ -n "${ks[1]}" ] ||
	usage "invalid --kernels '$kernels': two kernels, A,B"
[[ "$orders" =~ ^[0-9]+(,[0-9]+)*$ ]] ||
	usage "invalid --orders '$orders': folio orders separated by commas, e.g. 0,4"
[[ ",$orders," == *,0,* ]] || usage "invalid --orders '$orders': it needs 0, the base every size is compared with"
[[ "$reps" =~ ^[1-9][0-9]*$ ]] || usage "invalid --reps '$reps': a positive number"
[[ "$timeout" =~ ^[1-9][0-9]*$ ]] || usage "invalid --timeout '$timeout': seconds"
[[ "$mem" =~ ^[1-9][0-9]*[MG]$ ]] || usage "invalid --mem '$mem': a size with its unit, like 2G"
[ -e "$out" ] && [ ! -d "$out" ] && usage "-o '$out' is not a directory"
names=("${all[@]}")
if [ -n "$only" ]; then
	IFS=, read -r -a names <<<"$only"
	[ ${#names[@]} -gt 0 ] || usage "--only '' names no workload"
	for n in "${names[@]}"; do known "$n" --only; done
fi
for a in "${wargs[@]}"; do
	[[ "$a" =~ ^[0-9\ ]+$ ]] || usage "invalid --args value '$a': numbers separated by spaces"
done
# a kernel's directory: its package name without linux-image- and -unsigned,
# or its image's file name
name_of() {
	local n

	n=$(basename "$1")
	n=${n#linux-image-}
	n=${n#vmlinuz-}
	echo "${n%-unsigned}"
}
la=$(name_of "${ks[0]}") lb=$(name_of "${ks[1]}")
[ "$la" != "$lb" ] || usage "the two kernels have one name ('$la'): give two different kernels"
echo "run-suite-guests.sh: $kbuild_out" >&2

# --- what the guests need, from this host
die3() { echo "run-suite-guests.sh: $*" >&2; exit 3; }
[ -x "$bin" ] || die3 "no mthpscope at '$bin' (build it, or --bin PATH)"
# absolute: the compare runs in DIR
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
command -v jq >/dev/null || die3 "jq missing (apt-get install jq): the layout tables are made with it"
withs=(/usr/bin/bash /usr/bin/env "$here" "$top/scripts/numpy-gather.py")
need() { for f in "$@"; do [ -x "$f" ] || die3 "$f missing: the guest's programs come from this host"; done; }
need /usr/bin/bash /usr/bin/env
cache=$(bash -c "source '$here/lib.sh' && echo \"\$wl_cache\"") || die3 "no workload cache"
work=$(mktemp -d "${TMPDIR:-/tmp}/mthpscope-sg.XXXXXX") || exit 3
gpid=
cleanup() { rm -rf "$work"; }
trap cleanup EXIT
# numpy-gather: python3 and the files its run loads (sys.modules at exit),
# each with its compiled form when there is one
python_files() {
	/usr/bin/python3 - "$top/scripts/numpy-gather.py" <<'PY' 2>"$work/py.err" | grep '^/' | sort -u
import atexit, runpy, sys
def files():
    for m in list(sys.modules.values()):
        f = getattr(m, "__file__", None)
        if f:
            print(f)
    tag = sys.implementation.cache_tag
    print("/cache_tag " + tag)
atexit.register(files)
path = sys.argv[1]
sys.argv = [path, "1", "1000"]
runpy.run_path(path, run_name="__main__")
PY
}
for n in "${names[@]}"; do
	case $n in
	numpy-gather)
		[ -x /usr/bin/python3 ] && /usr/bin/python3 -c 'import numpy' 2>/dev/null ||
			die3 "/usr/bin/python3 with numpy missing (apt-get install python3-numpy)"
		# and the codecs whole: the guest's locale may pick another than here
		withs+=(/usr/bin/python3 "$(/usr/bin/python3 -c 'import encodings, os; print(os.path.dirname(encodings.__file__))')")
		python_files >"$work/py.files" && [ -s "$work/py.files" ] ||
			die3 "cannot list numpy-gather.py's modules: $(tail -n 1 "$work/py.err")"
		tag=$(sed -n 's|^/cache_tag ||p' "$work/py.files")
		while read -r f; do
			[ -e "$f" ] || continue
			withs+=("$f")
			c="$(dirname "$f")/__pycache__/$(basename "${f%.py}").$tag.pyc"
			[[ "$f" == *.py ]] && [ -e "$c" ] && withs+=("$c")
		done <"$work/py.files" ;;
	sort)
		need /usr/bin/sort
		withs+=(/usr/bin/sort)
		read -r -a ops <<<"${wargs[sort]}"
		MTHPSCOPE_WORKLOAD_CACHE=$cache "$here/sort.sh" --prepare "${ops[@]}" ||
			die3 "sort's input cannot be made"
		withs+=("$cache/sort-${ops[0]:-3000000}") ;;
	redis)
		for p in redis-server redis-benchmark redis-cli; do
			need "/usr/bin/$p"
			withs+=("/usr/bin/$p")
		done ;;
	esac
done
with_args=()
for w in "${withs[@]}"; do with_args+=(--with "$w"); done

# --- the guest's script: loopback up (redis), GNU programs before
# busybox's, then the suite; its files land in /out
q() { printf '%q' "$1"; }
suite_args="--orders $orders --reps $reps --only $(IFS=,; echo "${names[*]}") --no-timing --bin /usr/bin/mthpscope -o /out"
for n in "${names[@]}"; do suite_args+=" --args $(q "$n=${wargs[$n]}")"; done
gcmd="export PATH=/usr/bin:/bin MTHPSCOPE_WORKLOAD_CACHE=$(q "$cache") HOME=/root
ip link set lo up 2>/dev/null || ifconfig lo 127.0.0.1 up
uname -r >/out/uname.txt
mthpscope info >/out/info.txt 2>&1
bash $(q "$here/run-suite.sh") $suite_args"

# --- signals: the guest in progress (its process group: guest-run.sh, qemu)
# ends, then the script
stop() {
	if [ -n "$gpid" ]; then
		kill -TERM -- "-$gpid" 2>/dev/null
		for _ in $(seq 50); do kill -0 -- "-$gpid" 2>/dev/null || break; sleep 0.1; done
		kill -KILL -- "-$gpid" 2>/dev/null
		wait "$gpid" 2>/dev/null
	fi
	echo "run-suite-guests.sh: interrupted" >&2
	exit "$1"
}
trap 'stop 129' HUP
trap 'stop 130' INT
trap 'stop 143' TERM

mkdir -p "$out" || exit 3
fail=0
for i in 0 1; do
	k=${ks[$i]} l=$([ $i = 0 ] && echo "$la" || echo "$lb")
	d=$out/$l
	rm -rf "$d"
	mkdir -p "$d" || exit 3
	echo "run-suite-guests.sh: $l: ${names[*]} at orders $orders, $reps rep(s), in a TCG guest" >&2
	t0=$(date +%s)
	# its own process group (job control for this one job): stop() ends it whole
	set -m
	MTHPSCOPE_GUEST_ENV="ASAN_OPTIONS=detect_leaks=0" "$guest_run" --arch x86_64 --accel tcg \
		--mem "$mem" --timeout "$timeout" --bin "$bin" --kernel "$k" --out "$d" \
		"${with_args[@]}" --shell -- "$gcmd" >"$d/guest.log" 2>"$d/guest.err" &
	gpid=$!
	set +m
	wait "$gpid"
	st=$?
	gpid=
	echo "guest exit $st, $(( $(date +%s) - t0 )) s" >>"$d/guest.err"
	# no guest at all here (no qemu, no kernel, no busybox): no use going on
	[ $st = 3 ] && [ ! -e "$d/uname.txt" ] &&
		die3 "cannot run a guest here: $(grep -v '^guest exit' "$d/guest.err" | tail -n 1)"
	if [ $st != 0 ] && [ $st != 1 ]; then
		fail=1
		echo "run-suite-guests.sh: the guest of $l failed (exit $st): $d/guest.err" >&2
		tail -n 5 "$d/guest.err" >&2
		continue
	fi
	[ $st = 0 ] || { fail=1; echo "run-suite-guests.sh: $l: a workload failed: $d/suite.txt" >&2; }
	layout "$d" >"$d/layout.txt" || fail=1
done

# --- the kernel A/B: per workload both kernels' files, on faults and memory
: >"$out/suite-guests.txt"
for l in "$la" "$lb"; do
	{ echo "== $l"; cat "$out/$l/layout.txt" 2>/dev/null; echo; } >>"$out/suite-guests.txt"
done
for n in "${names[@]}"; do
	a=$la/$n.json b=$lb/$n.json
	[ -s "$out/$a" ] && [ -s "$out/$b" ] || { echo "compare $n: a side is missing" >>"$out/suite-guests.txt"; fail=1; continue; }
	# perf's page-faults where every trial of both has it, else rusage's
	fm=$(jq -s -r 'if all(.[].trials[]; .metrics.page_faults) then "page_faults"
		else "minor_faults" end' "$out/$a" "$out/$b")
	for fmt in text markdown; do
		ext=$([ $fmt = text ] && echo txt || echo md)
		(cd "$out" && "$bin" compare --format $fmt --metric "$fm,max_rss_bytes" "$a" "$b") \
			>"$out/compare-$n.$ext" 2>&1 || { fail=1; echo "run-suite-guests.sh: compare of $n failed: $out/compare-$n.$ext" >&2; }
	done
done
cat "$out/suite-guests.txt"
exit $fail
