# SPDX-License-Identifier: GPL-2.0-or-later
# Shared by the run and collapse tests (sourced, not a test itself): root and THP checks,
# the knobs read under the THP lock before and after, check_knobs, py.
# The caller sets BIN first.
THP=/sys/kernel/mm/transparent_hugepage
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (sysfs writes, PFNs)"; exit 77; }
[ -r "$THP/hpage_pmd_size" ] || { echo "SKIP: no THP sysfs"; exit 77; }
[ -e "$THP/hugepages-2048kB/enabled" ] || { echo "SKIP: needs the per-size knobs of a 2M PMD size (hugepages-2048kB: Linux 6.8 or newer, 4K pages)"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: needs python3 to read the JSON"; exit 77; }

# Every knob, counters excepted (khugepaged's move on their own).
knobs() {
	for f in "$THP"/enabled "$THP"/defrag "$THP"/shmem_enabled "$THP"/hugepages-*/enabled \
		 "$THP"/khugepaged/*; do
		case "$f" in */pages_collapsed|*/full_scans) continue ;; esac
		[ -r "$f" ] && printf '%s=%s\n' "${f#$THP/}" "$(cat "$f")"
	done
}

# Other mthpscope instances (other test suites on this machine) change the
# knobs while they hold the lock: read them only while holding it ourselves
# (the same flock the thp module takes; retried when the file was replaced).
# with_lock CMD...: CMD while holding it, as another instance would.
LOCK=${MTHPSCOPE_RUNDIR:-/run}/mthpscope.lock
with_lock() {
	local got=""
	while [ -z "$got" ]; do
		exec 9<>"$LOCK" || return 1
		flock -w "${MTHPSCOPE_LOCK_WAIT:-120}" 9 || { exec 9>&-; return 1; }
		if [ "$(stat -Lc %i /proc/self/fd/9)" = "$(stat -c %i "$LOCK" 2>/dev/null)" ]; then
			got=1
			"$@"
			rm -f "$LOCK" # as every holder does: removed while still held
		fi
		exec 9>&- # never held while mthpscope runs: it would wait for us
	done
}
knobs_locked() { with_lock knobs; }

# hold_knob KNOB WORD SECONDS: another instance's trial, in a subshell: while
# it holds the lock, $THP/KNOB reads WORD, then it is put back (also when
# killed). Returns once the lock is held and the knob changed.
hold_knob() {
	rm -f "$tmp/held"
	(
		trap 'exit 1' TERM INT
		trial() {
			was=$(grep -o '\[[a-z+]*\]' "$THP/$1" | tr -d '[]')
			trap 'echo "$was" >"$THP/$1"' EXIT
			echo "$2" >"$THP/$1" && : >"$tmp/held" && sleep "$3"
			echo "$was" >"$THP/$1"
			trap - EXIT # put back under the lock; never again after it
		}
		with_lock trial "$@"
	) &
	holder=$!
	for _ in $(seq 600); do [ -e "$tmp/held" ] && return 0; sleep 0.1; done
	return 1
}

before=$(knobs_locked) || { echo "SKIP: the THP lock stays busy"; exit 77; }

check_knobs() {
	local now
	now=$(knobs_locked)
	if [ "$now" != "$before" ]; then
		echo "FAIL: knobs changed after $1:"
		diff <(echo "$before") <(echo "$now")
		fail=1
	else
		echo "ok: every knob as before after $1"
	fi
}

# py EXPR FILE: evaluate a Python expression over the document 'd'.
py() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($1)" "$2"; }
