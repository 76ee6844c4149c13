#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Why THP is missing or limited (src/measure/kconfig.c), on stand-in kernel
# files: a PREEMPT_RT config without CONFIG_TRANSPARENT_HUGEPAGE (in
# /boot/config-<release> and in /proc/config.gz), a config that has it but
# no sysfs, no config at all, a 6.1 and a 6.12 sysfs without
# hugepages-<N>kB, and transparent_hugepage=never on the command line. info
# names the reason; run and collapse refuse with it (exit 3).
set -u
bin=${MTHPSCOPE_BIN:?}
fail=0 pass=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mk() { mkdir -p "$(dirname "$1")"; printf '%s\n' "$2" >"$1"; }
# expect NAME WANT_STATUS PATTERN CMD...: the status, and PATTERN in stdout+stderr
expect() {
	local name=$1 want=$2 pat=$3
	shift 3
	"$@" >"$tmp/out" 2>&1
	local got=$?
	if [ "$got" != "$want" ]; then
		echo "FAIL $name: exit $got, want $want"; head -5 "$tmp/out"; fail=$((fail + 1))
	elif ! grep -q -- "$pat" "$tmp/out"; then
		echo "FAIL $name: '$pat' not in:"; head -20 "$tmp/out"; fail=$((fail + 1))
	else
		echo "ok: $name: $(grep -m1 -o -- "$pat.\{0,60\}" "$tmp/out")"; pass=$((pass + 1))
	fi
}

rt=6.12.57+deb12-rt-amd64
mk "$tmp/boot/config-$rt" "CONFIG_PREEMPT_RT=y
CONFIG_HAVE_ARCH_TRANSPARENT_HUGEPAGE=y
# CONFIG_READ_ONLY_THP_FOR_FS is not set"
mk "$tmp/proc/cmdline" "BOOT_IMAGE=/vmlinuz root=/dev/vda quiet"
E=(env MTHPSCOPE_KERNEL_RELEASE=$rt MTHPSCOPE_BOOT_DIR=$tmp/boot MTHPSCOPE_PROC_ROOT=$tmp/proc
   MTHPSCOPE_THP_ROOT=$tmp/nothp)

# 1. RT kernel, /boot/config: not configured, and why
expect rt-info 0 "built without CONFIG_TRANSPARENT_HUGEPAGE" "${E[@]}" "$bin" info
expect rt-info-rt 0 "as its PREEMPT_RT configuration requires" "${E[@]}" "$bin" info
"${E[@]}" "$bin" info --json >"$tmp/j" 2>/dev/null
if python3 - "$tmp/j" "$tmp/boot/config-$rt" <<'PY'; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
import json, sys
t = json.load(open(sys.argv[1]))["thp"]
k = t["kernel"]
assert t["available"] is False and "CONFIG_TRANSPARENT_HUGEPAGE" in t["reason"], t
assert k["transparent_hugepage_config"] is False and k["preempt_rt"] is True, k
assert k["config"] == sys.argv[2] and k["sysfs"] is False and k["per_size"] is False, k
print("ok: rt info --json")
PY
if [ "$(id -u)" = 0 ]; then
	expect rt-run 3 "built without CONFIG_TRANSPARENT_HUGEPAGE" "${E[@]}" "$bin" run --quick
	expect rt-collapse 3 "built without CONFIG_TRANSPARENT_HUGEPAGE" "${E[@]}" "$bin" collapse --span 4M
fi
expect rt-not-too-old 0 "Transparent" "${E[@]}" "$bin" info
grep -q "6.8" "$tmp/out" && { echo "FAIL: an RT 6.12 kernel is called too old"; fail=$((fail + 1)); }

# 2. the same config as /proc/config.gz (no /boot/config-<release>)
gzip -c "$tmp/boot/config-$rt" >"$tmp/proc/config.gz"
expect rt-config-gz 0 "CONFIG_TRANSPARENT_HUGEPAGE ($tmp/proc/config.gz)" \
	"${E[@]}" MTHPSCOPE_BOOT_DIR=$tmp/noboot "$bin" info

# 3. configured, but the sysfs root is missing
mk "$tmp/boot2/config-$rt" "CONFIG_TRANSPARENT_HUGEPAGE=y"
expect configured-no-sysfs 0 "has CONFIG_TRANSPARENT_HUGEPAGE=y" "${E[@]}" MTHPSCOPE_BOOT_DIR=$tmp/boot2 "$bin" info

# 4. no config anywhere: says it cannot tell
rm "$tmp/proc/config.gz"
expect no-config 0 "is there to tell" "${E[@]}" MTHPSCOPE_BOOT_DIR=$tmp/noboot "$bin" info

# 5. sysfs without hugepages-<N>kB: 6.1 is too old, 6.12 is not
old=$tmp/thp-old
mk "$old/enabled" "always [madvise] never"; mk "$old/defrag" "always defer defer+madvise [madvise] never"
mk "$old/hpage_pmd_size" 2097152; mk "$old/khugepaged/max_ptes_none" 511
expect old-6.1 0 "needs Linux 6.8 or newer" "${E[@]}" MTHPSCOPE_THP_ROOT=$old \
	MTHPSCOPE_KERNEL_RELEASE=6.1.0-41-amd64 "$bin" info
expect odd-6.12 0 "is not older than 6.8" "${E[@]}" MTHPSCOPE_THP_ROOT=$old "$bin" info
mk "$old/hugepages-2048kB/enabled" "always [inherit] madvise never"
"${E[@]}" MTHPSCOPE_THP_ROOT=$old "$bin" info >"$tmp/out" 2>&1
if grep -q "limited:\|not available" "$tmp/out"; then
	echo "FAIL: a kernel with per-size mTHP gets a reason"; fail=$((fail + 1))
else pass=$((pass + 1)); fi

# 6. transparent_hugepage=never at boot: a note while the knob still says never
mk "$tmp/proc/cmdline" "BOOT_IMAGE=/vmlinuz transparent_hugepage=never quiet -- transparent_hugepage=always"
mk "$old/enabled" "always madvise [never]"
expect cmdline-never 0 "turned off at boot (transparent_hugepage=never" "${E[@]}" MTHPSCOPE_THP_ROOT=$old "$bin" info
mk "$old/enabled" "always [madvise] never"
"${E[@]}" MTHPSCOPE_THP_ROOT=$old "$bin" info >"$tmp/out" 2>&1
if grep -q "turned off at boot" "$tmp/out"; then
	echo "FAIL: the boot note stays after the knob was written"; fail=$((fail + 1))
else pass=$((pass + 1)); fi
mk "$tmp/proc/cmdline" "quiet -- transparent_hugepage=never"
mk "$old/enabled" "always madvise [never]"
"${E[@]}" MTHPSCOPE_THP_ROOT=$old "$bin" info >"$tmp/out" 2>&1
if grep -q "turned off at boot" "$tmp/out"; then
	echo "FAIL: init's arguments (after --) taken for the kernel's"; fail=$((fail + 1))
else pass=$((pass + 1)); fi

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
