#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# scripts/workloads/run-suite-guests.sh (issue 42: the suite in guests of two
# kernels) without booting one: every argument error (exit 2 with the
# reason; kbuild refused with why), then with a stand-in for guest-run.sh
# ($MTHPSCOPE_GUEST_RUN): one call per kernel, one after the other, with what
# sort needs brought in (--with bash, env, GNU sort, its input, the scripts),
# the guest's command (loopback up, run-suite.sh --no-timing with the
# scaled-down operands); per kernel its layout table (faults, coverage, pages
# per order) and per workload the compare of the two kernels' files, whose
# program tables, from an emulated CPU, have no time columns; and SIGTERM or
# SIGINT during a guest ends its whole process group (the stand-in's 'qemu'
# with it): exit 143/130, nothing left running; --layout DIR prints the
# same layout table from the files. The stand-in part SKIPs
# without jq or GNU sort.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/lib.sh"
sg=$src/scripts/workloads/run-suite-guests.sh
export MTHPSCOPE_WORKLOAD_CACHE=$tmp/cache
ka=linux-image-1.0.0+test-amd64-unsigned
kb=linux-image-2.0.0+test-amd64

# 1. argument errors: exit 2 and the reason, nothing made
expect none 2 '--kernels A,B is required' "$sg"
expect no-orders 2 '--orders LIST is required' "$sg" --kernels "$ka,$kb"
expect no-o 2 '-o DIR is required' "$sg" --kernels "$ka,$kb" --orders 0,4
expect no-value 2 '--kernels needs a value' "$sg" --kernels
expect one-kernel 2 "invalid --kernels '$ka': two kernels" "$sg" --kernels "$ka" --orders 0,4 -o "$tmp/o"
expect three-kernels 2 "two kernels, A,B" "$sg" --kernels "$ka,$kb,$kb" --orders 0,4 -o "$tmp/o"
expect same-name 2 "the two kernels have one name" "$sg" --kernels "$ka,/boot/vmlinuz-1.0.0+test-amd64" --orders 0,4 -o "$tmp/o"
expect orders 2 "invalid --orders '0,x'" "$sg" --kernels "$ka,$kb" --orders 0,x -o "$tmp/o"
expect no-base 2 'it needs 0' "$sg" --kernels "$ka,$kb" --orders 2,4 -o "$tmp/o"
expect reps 2 "invalid --reps '0'" "$sg" --kernels "$ka,$kb" --orders 0,4 --reps 0 -o "$tmp/o"
expect timeout 2 "invalid --timeout 'soon'" "$sg" --kernels "$ka,$kb" --orders 0,4 --timeout soon -o "$tmp/o"
expect mem 2 "invalid --mem '2'" "$sg" --kernels "$ka,$kb" --orders 0,4 --mem 2 -o "$tmp/o"
expect kbuild 2 'kbuild is left out of the guest suite: a tinyconfig build takes' \
	"$sg" --kernels "$ka,$kb" --orders 0,4 --only sort,kbuild -o "$tmp/o"
expect only 2 "unknown workload 'nope' in --only (known in guests: numpy-gather sort redis)" \
	"$sg" --kernels "$ka,$kb" --orders 0,4 --only nope -o "$tmp/o"
expect args-form 2 "invalid --args 'sort'" "$sg" --kernels "$ka,$kb" --orders 0,4 --args sort -o "$tmp/o"
expect args-name 2 "unknown workload 'sorter' in --args" "$sg" --kernels "$ka,$kb" --orders 0,4 --args sorter=5 -o "$tmp/o"
expect args-words 2 "invalid --args value '5;reboot'" "$sg" --kernels "$ka,$kb" --orders 0,4 --args 'sort=5;reboot' -o "$tmp/o"
expect unknown 2 "unknown argument '--fast'" "$sg" --kernels "$ka,$kb" --orders 0,4 --fast -o "$tmp/o"
: >"$tmp/file"
expect o-file 2 "is not a directory" "$sg" --kernels "$ka,$kb" --orders 0,4 -o "$tmp/file"
expect no-bin 3 'no mthpscope' "$sg" --kernels "$ka,$kb" --orders 0,4 -o "$tmp/o" --bin "$tmp/none"
[ -e "$tmp/o" ] && err "a usage error made the output directory"
expect layout-dir 2 '--layout needs a directory' "$sg" --layout "$tmp/none"
mkdir -p "$tmp/notres"
echo '{"schema": "mthpscope.presence/1"}' >"$tmp/notres/x.json"
expect layout-no-results 1 'no results file in' "$sg" --layout "$tmp/notres"
expect help 0 '' "$sg" --help
grep -q 'run-suite-guests.sh --kernels A,B --orders LIST -o DIR' "$tmp/out" || err "--help lacks the usage"
grep -q 'kbuild) is left out' "$tmp/out" || err "--help does not say kbuild is left out"

command -v jq >/dev/null || skip "jq missing"
[ -x /usr/bin/sort ] && /usr/bin/sort --version 2>/dev/null | grep -q GNU || skip "GNU sort missing"

# 2. a stand-in for guest-run.sh: says its arguments, and writes an emulated
# program's results file (the synthetic kernel build, tests/data) as the
# guest's sort.json; with STUB_HANG=1 it starts a 'qemu' (sleep) and waits
cat >"$tmp/guest-run" <<'STUB'
#!/usr/bin/env bash
printf '%s\n' "$@" >>"$STUB_LOG"
echo "=call=" >>"$STUB_LOG"
while [ $# -gt 0 ] && [ "$1" != --out ]; do shift; done
out=$2
if [ "${STUB_HANG:-0}" = 1 ]; then
	sleep 300 &
	echo $! >"$STUB_QEMU"
	wait
	exit 0
fi
mkdir -p "$out"
jq '.host.emulated = true | .host.emulation = "QEMU TCG (test)"' "$STUB_FIXTURE" >"$out/sort.json"
echo "sort           exit 0  1 s" >"$out/suite.txt"
STUB
chmod +x "$tmp/guest-run"
export MTHPSCOPE_GUEST_RUN=$tmp/guest-run STUB_LOG=$tmp/calls STUB_QEMU=$tmp/qemu.pid
export STUB_FIXTURE=$data/command_kbuild.json
expect stub 0 'kbuild is left out' "$sg" --kernels "$ka,$kb" --orders 0,4 --reps 1 --only sort \
	--args sort=1000 -o "$tmp/sg" --bin "$bin"
[ "$(grep -c '^=call=$' "$tmp/calls")" = 2 ] || err "not one guest per kernel: $(cat "$tmp/calls")"
for w in /usr/bin/bash /usr/bin/env /usr/bin/sort "$tmp/cache/sort-1000" "$src/scripts/workloads"; do
	grep -qx -- "$w" "$tmp/calls" || err "--with $w not brought into the guest"
done
[ "$(wc -l <"$tmp/cache/sort-1000/nums.txt")" = 1000 ] || err "sort's input of 1000 lines not made"
grep -qx -- "--kernel" "$tmp/calls" && grep -qx -- "$ka" "$tmp/calls" && grep -qx -- "$kb" "$tmp/calls" ||
	err "the kernels were not given to guest-run.sh"
grep -q '^ip link set lo up' "$tmp/calls" || err "the guest's loopback is not brought up"
grep -q "run-suite.sh.* --orders 0,4 --reps 1 --only sort --no-timing .*--args sort=1000" "$tmp/calls" ||
	err "the guest's suite command: $(grep run-suite "$tmp/calls")"
grep -q "python3" "$tmp/calls" && err "python brought in for sort alone"
for l in 1.0.0+test-amd64 2.0.0+test-amd64; do
	[ -s "$tmp/sg/$l/sort.json" ] || err "$l: no sort.json"
	grep -Eq '^sort +0 +4K +3 +30105298 +100% +396\.0 +0:100%$' "$tmp/sg/$l/layout.txt" ||
		err "$l: layout.txt: $(cat "$tmp/sg/$l/layout.txt")"
	grep -Eq '^sort +4 +64K +3 ' "$tmp/sg/$l/layout.txt" || err "$l: layout.txt lacks order 4"
	grep -q 'No time: the CPU is emulated' "$tmp/sg/$l/layout.txt" || err "$l: layout.txt lacks the note"
	grep -q "^== $l$" "$tmp/sg/suite-guests.txt" || err "suite-guests.txt lacks $l"
done
# --layout DIR: the same table from the files alone
expect layout 0 '' "$sg" --layout "$tmp/sg/1.0.0+test-amd64"
cmp -s "$tmp/out" "$tmp/sg/1.0.0+test-amd64/layout.txt" || err "--layout DIR differs from layout.txt"
c=$tmp/sg/compare-sort.txt
grep -q "== 1.0.0+test-amd64/sort.json: the program, per metric ==" "$c" ||
	err "compare-sort.txt: no side table: $(head -c 600 "$c")"
grep -Eq "^size +faults +peak memory +coverage$" "$c" || err "compare-sort.txt: time columns shown"
grep -q "Emulated CPU (QEMU TCG): real, user$" "$c" || err "compare-sort.txt: the emulated CPU not said"
grep -q "(emulated CPU, QEMU TCG)" "$c" || err "compare-sort.txt: the host line does not say emulated"
grep -q "^Difference: 2.0.0+test-amd64/sort.json - 1.0.0+test-amd64/sort.json" "$c" ||
	err "compare-sort.txt: no difference"
grep -Eq "wall_ns|user_ns|sys_ns" "$c" && err "compare-sort.txt: a time row"
[ -s "$tmp/sg/compare-sort.md" ] || err "no compare-sort.md"

# 3. a signal during a guest: its process group ends ('qemu' with it)
dfl_int() {
	exec perl -e '$SIG{INT} = "DEFAULT"; exec @ARGV or die "$ARGV[0]: $!\n"' "$@"
}
for sig in TERM INT; do
	rm -f "$STUB_QEMU"
	STUB_HANG=1 dfl_int "$sg" --kernels "$ka,$kb" --orders 0,4 --only sort --args sort=1000 \
		-o "$tmp/h$sig" --bin "$bin" >"$tmp/h.out" 2>"$tmp/h.err" &
	pid=$!
	for _ in $(seq 100); do [ -s "$STUB_QEMU" ] && break; sleep 0.1; done
	q=$(cat "$STUB_QEMU" 2>/dev/null)
	[ -n "$q" ] || { err "SIG$sig: the stand-in guest did not start"; kill -KILL "$pid"; continue; }
	at_exit "kill -KILL $q 2>/dev/null"
	kill "-$sig" "$pid"
	wait "$pid"
	st=$?
	want=$([ $sig = TERM ] && echo 143 || echo 130)
	[ "$st" = "$want" ] || err "SIG$sig: exit $st, expected $want"
	for _ in $(seq 50); do kill -0 "$q" 2>/dev/null || break; sleep 0.1; done
	kill -0 "$q" 2>/dev/null && err "SIG$sig: the guest's 'qemu' ($q) still runs"
	grep -q interrupted "$tmp/h.err" || err "SIG$sig: no 'interrupted': $(cat "$tmp/h.err")"
	[ -d "$tmp/h$sig/2.0.0+test-amd64" ] && err "SIG$sig: the second guest started"
done
[ $fail = 0 ] && echo "ok: arguments, one guest per kernel with sort's needs, layout and compare without times, no 'qemu' left after SIGTERM or SIGINT"
exit $fail
