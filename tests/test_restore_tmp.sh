#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Issue 40, hostile pass item 4: a document's writer SIGKILLed during its
# final write leaves FILE.tmp.PID; 'restore FILE' removes it when PID is no
# longer running, and nothing else: not a live writer's, not another file's,
# not a name that only looks like one, not a directory or a link. The run
# directory is a scratch one: no THP knob and no real journal is touched.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/lib.sh"
: "${bin:?MTHPSCOPE_BIN}"
export MTHPSCOPE_RUNDIR=$tmp/run
mkdir "$tmp/run" "$tmp/d"

# a writer that was there and is gone: its pid is no longer running
sh -c 'echo $$ >"$0/dead"' "$tmp"
dead=$(cat "$tmp/dead")
kill -0 "$dead" 2>/dev/null && skip "pid $dead is running again"
f=$tmp/d/c.json
echo '{"half": ' >"$f.tmp.$dead"              # the killed write: goes
echo live >"$f.tmp.$$"                        # a live writer's (this shell): stays
echo other >"$tmp/d/other.json.tmp.$dead"     # another file's: stays
echo name >"$f.tmp.${dead}x"                  # not a pid: stays
mkdir "$f.tmp.1$dead"                         # a directory: stays
ln -s "$tmp/dead" "$f.tmp.2$dead"             # a link: stays
"$bin" restore "$f" >"$tmp/out" 2>&1 || err "restore FILE: exit $? ($(cat "$tmp/out"))"
grep -q "c.json: removed 1 temporary file of writers no longer running" "$tmp/out" ||
	err "restore FILE: not said: $(cat "$tmp/out")"
[ -e "$f.tmp.$dead" ] && err "the dead writer's $f.tmp.$dead stayed"
for k in "$f.tmp.$$" "$tmp/d/other.json.tmp.$dead" "$f.tmp.${dead}x" "$f.tmp.1$dead" "$f.tmp.2$dead"; do
	[ -e "$k" ] || [ -L "$k" ] || err "restore removed $k"
done
[ -e "$tmp/dead" ] || err "restore followed a link"
# nothing to remove: 0, and said
"$bin" restore "$f" >"$tmp/out" 2>&1 || err "restore again: exit $?"
grep -q 'removed 0 temporary files' "$tmp/out" || err "restore again: $(cat "$tmp/out")"
# a directory that is not there: a mistyped path is told (3), not "removed 0"
"$bin" restore "$tmp/none/x.json" >"$tmp/out" 2>&1
rc=$?
[ $rc = 3 ] && grep -q 'cannot read its directory' "$tmp/out" && ! grep -q 'removed 0' "$tmp/out" ||
	err "restore of a missing directory: exit $rc, $(cat "$tmp/out")"
exit $fail
