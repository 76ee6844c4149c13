#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A server with its client (issue 42): redis-server on 127.0.0.1, at a free
# private port, with its own empty directory, no persistence, in its own
# process group, with THP left to the system's settings (disable-thp no);
# redis-benchmark against it; then the server is stopped. On
# any end (the benchmark's, an error, SIGINT, SIGTERM, SIGHUP) the server's
# process group is sent SIGTERM, then SIGKILL after 5 s, and the directory is
# removed: no server is left. (Under mthpscope run, ptrace's EXITKILL and the
# end-of-trial kill of the tree are a second guard; the directory of a run so
# killed is removed by the next run.) Packages redis-server and
# redis-tools are installed with apt-get if missing.
#   redis.sh [--prepare] [REQUESTS]     (default 500000 per test)
# Tests SET, GET, LPUSH, LPOP with 512-byte values over 100000 keys, 16
# commands pipelined. It says "redis: server pid N on 127.0.0.1:PORT" on
# stderr once the server answers. For run --metric:
#   'get_rps=GET: ([0-9.]+) requests per second' --better higher
#
# shellcheck source=scripts/workloads/lib.sh
source "$(dirname "$0")/lib.sh"
prepare=0
n=500000
while [ $# -gt 0 ]; do
	case "$1" in
	--prepare) prepare=1 ;;
	-h|--help) wl_usage 0 ;;
	-*) wl_die 2 "unknown option '$1' (usage: redis.sh [--prepare] [REQUESTS])" ;;
	*[!0-9]*|0) wl_die 2 "invalid REQUESTS '$1': a positive number" ;;
	*) n=$1 ;;
	esac
	shift
done
wl_need redis-server redis-server
wl_need redis-benchmark redis-tools
wl_need redis-cli redis-tools
[ "$prepare" = 1 ] && exit 0

dir=$(wl_rundir "${TMPDIR:-/tmp}" mthpscope-redis)
server=
bench=
stop_server() {
	local i

	[ -z "$bench" ] || kill -TERM "$bench" 2>/dev/null || true
	if [ -n "$server" ] && kill -0 "$server" 2>/dev/null; then
		kill -TERM -- "-$server" 2>/dev/null
		for i in $(seq 50); do
			kill -0 "$server" 2>/dev/null || break
			sleep 0.1
		done
		kill -KILL -- "-$server" 2>/dev/null || true
		wait "$server" 2>/dev/null || true
	fi
	rm -rf "$dir"
}
trap stop_server EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM

port_free() { ! ss -Htln "sport = :$1" 2>/dev/null | grep -q .; }
start_server() {
	local port=$1 i

	# its own process group (job control on for this one job): the whole
	# group is what stop_server ends
	set -m
	# disable-thp no: redis (6.2 and later) turns THP off for itself with
	# prctl(PR_SET_THP_DISABLE) by default, and no folio setting would reach
	# it (run flagged order 4's trial: 3.4 % coverage, THP_enabled 0)
	redis-server --bind 127.0.0.1 --port "$port" --dir "$dir" --save '' \
		--appendonly no --daemonize no --disable-thp no --logfile "$dir/log" \
		</dev/null >/dev/null 2>&1 &
	server=$!
	set +m
	for i in $(seq 100); do
		kill -0 "$server" 2>/dev/null || return 1
		# ours, not another server that has the port
		redis-cli -h 127.0.0.1 -p "$port" info server 2>/dev/null |
			grep -q "^process_id:$server" && return 0
		sleep 0.1
	done
	return 1
}
for try in 1 2 3 4 5; do
	port=$((20000 + (RANDOM * 32768 + RANDOM) % 40000))
	port_free "$port" || continue
	start_server "$port" && break
	stop_server
	dir=$(mktemp -d "${TMPDIR:-/tmp}/mthpscope-redis.$$.XXXXXX")
	server=
done
[ -n "$server" ] || wl_die 3 "redis-server did not start (5 ports tried)"
echo "redis: server pid $server on 127.0.0.1:$port" >&2
# in the background and waited for: a trap runs during wait, not during a
# foreground command
redis-benchmark -h 127.0.0.1 -p "$port" -q -n "$n" -r 100000 -d 512 -P 16 \
	-t set,get,lpush,lpop >"$dir/bench.out" 2>&1 </dev/null &
bench=$!
st=0
wait "$bench" || st=$?
bench=
tr '\r' '\n' <"$dir/bench.out" | grep 'requests per second' ||
	{ tail -5 "$dir/bench.out" >&2; wl_die 1 "redis-benchmark failed (exit $st)"; }
