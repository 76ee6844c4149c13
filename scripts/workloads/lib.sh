# SPDX-License-Identifier: GPL-2.0-or-later
# What every workload of scripts/workloads/ starts with (sourced, bash):
#   wl_name            the workload's name (its script's, without .sh)
#   wl_cache           a cache directory kept between runs: what is built or
#                      generated once (a kernel tree, an input file), never
#                      what a run measures. $MTHPSCOPE_WORKLOAD_CACHE, else
#                      /var/cache/mthpscope/workloads when writable, else
#                      ${XDG_CACHE_HOME:-~/.cache}/mthpscope/workloads
#   wl_usage STATUS    the script's header comment (lines 3 to the first
#                      blank comment line), then exit STATUS (0: on stdout)
#   wl_die STATUS MSG  "NAME: MSG" on stderr, exit STATUS (2 usage, 3 a
#                      missing package or resource)
#   wl_install PKG...  PKG... installed with apt-get (as root; otherwise
#                      exit 3 naming them)
#   wl_need CMD PKG... CMD on PATH, else wl_install PKG...
#   wl_once DIR CMD... CMD... run once to make DIR (given DIR.tmp to fill,
#                      renamed to DIR at its end): an interrupted one leaves
#                      no half-made DIR, the next run starts it again
#   wl_rundir PARENT PREFIX  a new directory PARENT/PREFIX.PID.XXXXXX for this
#                      run (printed), after removing those whose PID is gone:
#                      a run killed with SIGKILL (mthpscope ends a trial's
#                      group so, and no trap sees it) leaves its directory
# shellcheck shell=bash
set -eu
wl_name=$(basename "$0" .sh)
wl_self=$0

wl_die() {
	local st=$1
	shift
	echo "$wl_name: $*" >&2
	exit "$st"
}

wl_usage() {
	if [ "$1" = 0 ]; then
		sed -n '3,/^#$/{/^#$/q;s/^# \{0,1\}//;p}' "$wl_self"
	else
		sed -n '3,/^#$/{/^#$/q;s/^# \{0,1\}//;p}' "$wl_self" >&2
	fi
	exit "$1"
}

wl_cache_dir() {
	local d=${MTHPSCOPE_WORKLOAD_CACHE:-}

	if [ -z "$d" ]; then
		d=/var/cache/mthpscope/workloads
		mkdir -p "$d" 2>/dev/null && [ -w "$d" ] ||
			d=${XDG_CACHE_HOME:-$HOME/.cache}/mthpscope/workloads
	fi
	mkdir -p "$d" || wl_die 3 "cannot make the cache directory $d"
	echo "$d"
}
wl_cache=$(wl_cache_dir)

wl_install() {
	[ "$(id -u)" = 0 ] || wl_die 3 "run as root, or install $* (apt-get install $*)"
	echo "$wl_name: installing $*" >&2
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" \
		>/dev/null 2>&1 ||
		{ apt-get update -qq >/dev/null 2>&1 &&
		  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
			"$@" >/dev/null; } ||
		wl_die 3 "cannot install $*"
}

wl_need() {
	local cmd=$1
	shift
	command -v "$cmd" >/dev/null 2>&1 && return 0
	wl_install "$@"
	command -v "$cmd" >/dev/null 2>&1 || wl_die 3 "$cmd not found after installing $*"
}

wl_once() {
	local dir=$1
	shift
	[ -d "$dir" ] && return 0
	# two runs at once: the second waits for the first's DIR
	exec 9>"$dir.lock"
	flock 9
	[ -d "$dir" ] && { exec 9>&-; return 0; }
	rm -rf "$dir.tmp"
	mkdir -p "$dir.tmp"
	"$@" "$dir.tmp" || { rm -rf "$dir.tmp"; wl_die 3 "cannot make $dir"; }
	mv "$dir.tmp" "$dir"
	exec 9>&-
}

wl_rundir() {
	local parent=$1 prefix=$2 old p

	for old in "$parent/$prefix".*.*; do
		[ -d "$old" ] || continue
		p=${old##*/"$prefix".}
		p=${p%%.*}
		[ -n "$p" ] && ! kill -0 "$p" 2>/dev/null && rm -rf "$old"
	done
	mktemp -d "$parent/$prefix.$$.XXXXXX"
}
