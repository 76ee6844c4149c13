#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# scripts/workloads/ (issue 42): the suite's and each workload's argument
# errors (exit 2 with the reason), sort.sh's input made once into the cache
# and the same on the next run, run-suite.sh's files per workload (with a
# stand-in mthpscope that runs nothing), the server with THP left on (redis
# turns it off for itself by default), and no server left running when the
# server workload, alone or under run-suite.sh, is ended by SIGTERM or SIGINT.
# The server part SKIPs without redis-server and redis-benchmark
# (scripts/setup.sh --tests installs them).
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/lib.sh"
wl=$src/scripts/workloads
suite=$wl/run-suite.sh
export MTHPSCOPE_WORKLOAD_CACHE=$tmp/cache

# A stand-in for mthpscope: 'run ... -o FILE -- CMD...' says its arguments,
# writes {} to FILE and,
# with STUB_RUN=1, runs CMD (exec: CMD is the suite's child), with
# STUB_RUN_EXIT=N exits N instead; 'analyze
# --format F FILE' prints 'table F'
cat >"$tmp/stub" <<'STUB'
#!/usr/bin/env bash
if [ "$1" = analyze ]; then echo "table $3"; exit 0; fi
echo "run: $*"
[ -n "${STUB_RUN_EXIT:-}" ] && exit "$STUB_RUN_EXIT"
while [ $# -gt 0 ] && [ "$1" != -- ]; do
	[ "$1" = -o ] && { echo '{}' >"$2"; shift; }
	shift
done
shift
[ "${STUB_RUN:-0}" = 1 ] && exec "$@"
exit 0
STUB
chmod +x "$tmp/stub"

# 1. argument errors: exit 2 and the reason
expect suite-none 2 '--orders LIST is required' "$suite"
expect suite-no-o 2 '-o DIR is required' "$suite" --orders 0,4
expect suite-no-value 2 '--orders needs a value' "$suite" --orders
expect suite-orders 2 "invalid --orders '0,x'" "$suite" --orders 0,x -o "$tmp/o"
expect suite-no-base 2 'it needs 0' "$suite" --orders 2,4 -o "$tmp/o"
expect suite-reps 2 "invalid --reps '0'" "$suite" --orders 0,4 --reps 0 -o "$tmp/o"
expect suite-only 2 "unknown workload 'nope'" "$suite" --orders 0,4 --only sort,nope -o "$tmp/o"
expect suite-unknown 2 "unknown argument '--fast'" "$suite" --orders 0,4 --fast -o "$tmp/o"
expect suite-only-empty 2 "--only '' names no workload" "$suite" --orders 0,4 --only '' -o "$tmp/o"
expect suite-only-twice 2 "workload 'sort' twice" "$suite" --orders 0,4 --only sort,sort -o "$tmp/o"
expect suite-bin-dir 3 'no mthpscope' "$suite" --orders 0,4 -o "$tmp/o" --bin "$tmp"
: >"$tmp/file"
expect suite-o-file 2 "is not a directory" "$suite" --orders 0,4 -o "$tmp/file"
expect suite-bin 3 'no mthpscope' "$suite" --orders 0,4 -o "$tmp/o" --bin "$tmp/none"
[ -e "$tmp/o" ] && err "suite: a usage error made the output directory"
expect suite-help 0 '' "$suite" --help
grep -q 'run-suite.sh --orders LIST -o DIR' "$tmp/out" || err "suite --help lacks the usage"
expect kbuild-option 2 "unknown option '--bad'" "$wl/kbuild.sh" --bad
expect kbuild-target 2 "invalid TARGET 'foo'" "$wl/kbuild.sh" foo
expect kbuild-jobs 2 "invalid KBUILD_JOBS 'x'" env KBUILD_JOBS=x "$wl/kbuild.sh"
expect sort-n 2 "invalid N '3M'" "$wl/sort.sh" 3M
# twice the lines the cache's filesystem holds (about 10 bytes a line), read
# off this host's disk rather than assumed: refused before awk writes
mkdir -p "$tmp/cache"
avail_kib=$(df -Pk "$tmp/cache" | awk 'NR == 2 { print $4 }')
huge=$((avail_kib * 1024 / 10 * 2 + 1000))
if [ ${#huge} -le 12 ]; then
	expect sort-n-huge 3 "needs about" "$wl/sort.sh" "$huge"
	[ -e "$tmp/cache/sort-$huge" ] || [ -e "$tmp/cache/sort-$huge.tmp" ] &&
		err "sort.sh $huge: input started on a disk that cannot hold it"
else
	echo "SKIP sort-n-huge: $avail_kib KiB free, more than a 12-digit N can exceed"
fi
expect sort-n-absurd 2 "too many lines" "$wl/sort.sh" 9999999999999999999999
expect numpy-operands 2 'too many operands' "$wl/numpy-gather.sh" 1 2 3
expect redis-requests 2 "invalid REQUESTS 'many'" "$wl/redis.sh" many
for f in "$wl"/*.sh; do
	[ "${f##*/}" = lib.sh ] && continue
	expect "${f##*/}-help" 0 '' "$f" --help
	grep -q . "$tmp/out" || err "${f##*/} --help says nothing"
done

# 2. sort.sh: the input made once into the cache, the same the next time
expect sort-first 0 '' "$wl/sort.sh" 1000
grep -qx 'sorted lines: 1000' "$tmp/out" || err "sort.sh: $(cat "$tmp/out")"
sum1=$(md5sum <"$tmp/cache/sort-1000/nums.txt")
[ "$(wc -l <"$tmp/cache/sort-1000/nums.txt")" = 1000 ] || err "sort.sh: not 1000 lines"
touch -d '2000-01-01' "$tmp/cache/sort-1000/nums.txt"
expect sort-again 0 '' "$wl/sort.sh" 1000
[ "$(md5sum <"$tmp/cache/sort-1000/nums.txt")" = "$sum1" ] &&
	[ "$(stat -c %Y "$tmp/cache/sort-1000/nums.txt")" = 946684800 ] ||
	err "sort.sh: the cached input was made again"

# 3. run-suite.sh's files (the stand-in runs nothing)
expect suite-files 0 '' "$suite" --orders 0,4 --reps 1 --only sort -o "$tmp/s" --bin "$tmp/stub"
# every run refused alike: the suite says that status, else 1
expect suite-all-usage 2 'sort failed (exit 2)' env STUB_RUN_EXIT=2 "$suite" --orders 0,4 --reps 1 --only sort -o "$tmp/s2" --bin "$tmp/stub"
expect suite-all-env 3 'sort failed (exit 3)' env STUB_RUN_EXIT=3 "$suite" --orders 0,4 --reps 1 --only sort -o "$tmp/s2" --bin "$tmp/stub"
expect suite-failed 1 'sort failed (exit 1)' env STUB_RUN_EXIT=1 "$suite" --orders 0,4 --reps 1 --only sort -o "$tmp/s2" --bin "$tmp/stub"
for f in sort.json sort.run.txt sort.lkml.txt sort.md suite.txt suite.lkml.txt suite.md; do
	[ -s "$tmp/s/$f" ] || err "suite: no $f"
done
grep -qx 'table lkml' "$tmp/s/sort.lkml.txt" || err "suite: lkml table: $(cat "$tmp/s/sort.lkml.txt")"
grep -qx 'table markdown' "$tmp/s/sort.md" || err "suite: markdown table"
[ "$(cat "$tmp/s/suite.lkml.txt")" = "$(printf '== sort ==\ntable lkml')" ] ||
	err "suite.lkml.txt: $(cat "$tmp/s/suite.lkml.txt")"
grep -q '^## sort$' "$tmp/s/suite.md" || err "suite.md: no heading"
grep -q '^sort  *exit 0' "$tmp/s/suite.txt" && grep -q '^suite  *orders 0,4, 1 rep: ' "$tmp/s/suite.txt" ||
	err "suite.txt: $(cat "$tmp/s/suite.txt")"

# 4. no server left: redis.sh alone and under run-suite.sh, ended by a signal
command -v redis-server >/dev/null && command -v redis-benchmark >/dev/null ||
	skip "redis-server or redis-benchmark missing (scripts/setup.sh --tests installs them)"
# with SIGINT at its default, as at a terminal (a script's background job
# starts with SIGINT ignored, and bash cannot trap a signal ignored at entry)
dfl_int() {
	exec perl -e '$SIG{INT} = "DEFAULT"; exec @ARGV or die "$ARGV[0]: $!\n"' "$@"
}
# NAME SIGNAL LOG CMD...: start CMD, signal it once LOG (its stderr when '')
# says the server answers
server_gone() {
	local name=$1 sig=$2 log=${3:-$tmp/$1.err} pid spid i
	shift 3
	TMPDIR=$tmp dfl_int "$@" >"$tmp/$name.out" 2>"$tmp/$name.err" &
	pid=$!
	for i in $(seq 300); do
		spid=$(sed -n 's/^redis: server pid \([0-9]*\) .*/\1/p' "$log" 2>/dev/null)
		[ -n "$spid" ] && break
		sleep 0.1
	done
	if [ -z "$spid" ]; then
		kill -KILL "$pid" 2>/dev/null
		err "$name: the server did not start: $(head -c 300 "$tmp/$name.err")"
		return
	fi
	at_exit "kill -KILL $spid 2>/dev/null"
	# redis turns THP off for itself unless told not to: no folio size
	# would reach it (THP_enabled 0 in its status)
	if grep -q '^THP_enabled:' "/proc/$spid/status" 2>/dev/null; then
		grep -q '^THP_enabled:[[:space:]]*1' "/proc/$spid/status" ||
			err "$name: the server has THP disabled for itself"
	fi
	kill "-$sig" "$pid"
	wait "$pid"
	local st=$?
	for i in $(seq 80); do
		kill -0 "$spid" 2>/dev/null || break
		sleep 0.1
	done
	kill -0 "$spid" 2>/dev/null && err "$name: server $spid still runs after SIG$sig"
	case "$sig" in INT) want=130 ;; TERM) want=143 ;; esac
	[ "$st" = "$want" ] || err "$name: exit $st after SIG$sig, expected $want"
	ls -d "$tmp"/mthpscope-redis.* 2>/dev/null | grep -qv "\.$$\.live$" &&
		err "$name: its directory is left"
}
# a directory left by a run killed with SIGKILL (its pid gone) is removed
# by the next run; one of a live pid is not
mkdir "$tmp/mthpscope-redis.999999999.dead" "$tmp/mthpscope-redis.$$.live"
server_gone redis-term TERM '' "$wl/redis.sh" 100000000
[ -e "$tmp/mthpscope-redis.999999999.dead" ] && err "redis.sh: a dead run's directory is left"
[ -d "$tmp/mthpscope-redis.$$.live" ] || err "redis.sh: a live run's directory was removed"
rmdir "$tmp/mthpscope-redis.$$.live"
server_gone redis-int INT '' "$wl/redis.sh" 100000000
export STUB_RUN=1
server_gone suite-term TERM "$tmp/r/redis.run.txt" "$suite" --orders 0,4 --reps 1 --only redis -o "$tmp/r" --bin "$tmp/stub"
server_gone suite-int INT "$tmp/r2/redis.run.txt" "$suite" --orders 0,4 --reps 1 --only redis -o "$tmp/r2" --bin "$tmp/stub"
grep -q 'interrupted' "$tmp/suite-int.err" || err "suite: no 'interrupted': $(cat "$tmp/suite-int.err")"
[ $fail = 0 ] && echo "ok: workload arguments, sort's cache, the suite's files, no server left after SIGTERM or SIGINT"
exit $fail
