#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A scan timeline (--interval) stopped by SIGTERM or SIGINT: exit 0 after the
# sample in progress; the JSON document holds exactly the samples taken (the
# note on stderr says how many), and text ends on a whole sample.
set -u
export LC_ALL=C
bin=${MTHPSCOPE_BIN:?}
tmp=$(mktemp -d)
sleep 60 &
target=$!
trap 'kill $target 2>/dev/null; rm -rf "$tmp"' EXIT
fail=0
err() { echo "FAIL: $*"; fail=1; }

"$bin" scan -p "$target" >/dev/null 2>"$tmp/probe"
rc=$?
[ $rc -eq 3 ] && { echo "SKIP: scan cannot see folios here: $(head -1 "$tmp/probe")"; exit 77; }
[ $rc -eq 0 ] || { echo "FAIL: scan -p: exit $rc: $(head -3 "$tmp/probe")"; exit 1; }

# stop: SIGNAL OUT ERR SCAN-ARGS...: start the scan, let it take samples,
# send SIGNAL once; the scan's exit status is left in $rc
stop() {
	local sig=$1 out=$2 errf=$3 pid
	shift 3
	"$bin" scan -p "$target" "$@" >"$out" 2>"$errf" &
	pid=$!
	# once its SIGINT and SIGTERM handlers are in place (SigCgt bits 2 and
	# 15), and a few samples later
	for _ in $(seq 100); do
		mask=$(awk '/^SigCgt:/ { print $2 }' /proc/$pid/status 2>/dev/null)
		[ -n "$mask" ] && (( (16#$mask & 16#4002) == 16#4002 )) && break
		sleep 0.1
	done
	sleep 0.5
	kill -s "$sig" "$pid"
	wait "$pid"
	rc=$?
}

for sig in TERM INT; do
	stop $sig "$tmp/doc.json" "$tmp/doc.err" -i 100 -n 100000 --format json
	[ $rc -eq 0 ] || err "json timeline, SIG$sig: exit $rc, expected 0: $(head -3 "$tmp/doc.err")"
	n=$(python3 -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["samples"]))' \
		"$tmp/doc.json" 2>&1)
	case $n in ''|*[!0-9]*) err "json timeline, SIG$sig: not a document: $n"; continue ;; esac
	[ "$n" -ge 1 ] && [ "$n" -lt 100000 ] || err "json timeline, SIG$sig: $n samples"
	grep -q "scan: interrupted: $n of 100000 samples taken" "$tmp/doc.err" ||
		err "json timeline, SIG$sig: no note of $n samples: $(cat "$tmp/doc.err")"
done

# text without --count runs until interrupted: every sample whole
stop INT "$tmp/text" "$tmp/text.err" -i 100
[ $rc -eq 0 ] || err "text timeline, SIGINT: exit $rc, expected 0"
[ -s "$tmp/text.err" ] && err "text timeline: stderr: $(head -3 "$tmp/text.err")"
python3 - "$tmp/text" <<'EOF' || fail=1
import sys
blocks = open(sys.argv[1]).read().split("# sample ")[1:]
if not blocks:
    sys.exit("FAIL: text timeline: no sample")
# the target sleeps: every sample has the lines of the first
lines = [len(b.rstrip("\n").split("\n")) for b in blocks]
if any(n != lines[0] for n in lines):
    sys.exit("FAIL: text timeline: sample lengths %s (the last cut?)" % lines)
EOF
[ $fail -eq 0 ] && echo "PASS: scan timelines stop at SIGTERM/SIGINT with whole samples"
exit $fail
