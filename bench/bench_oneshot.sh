#!/usr/bin/env bash
# One-shot commands, whole process from spawn to exit (bench/bench_oneshot.c):
# `crate --version`, `--help`, `remote status`, `remote next` (a crate runs
# in tmux on the small library, playing to ALSA's file plugin into
# /dev/null) and `crate search QUERY` on the small and on the big library,
# answered by a crate running on that library (through the socket).
# Each is also run through crate-core, the whole player, which is the path
# every command took before the launcher: the "before" column, measured in
# the same run. `true` is the floor (spawning any process on this machine).
#
#   bench/bench_oneshot.sh BUILDDIR TRACKS
#
# CRATE_BENCH_DB: the big generated library; CRATE_BENCH_SCAN_DB: the
# library scanned from real files (both optional: what is missing is skipped).
# CRATE_BENCH_BASELINE: a directory holding another build's crate and
# crate-core (e.g. main built in /tmp): `crate search` with no crate running
# is then also measured with it, on its own copy of the library (snapshot
# formats may differ), as oneshot_search_norun[_few]_<size>_baseline_ms.
# Every figure comes with a _cpu_ms twin (user + system time).
set -u
BUILDDIR=${1:-build}
TRACKS=${2:-1000000}
SRCDIR=$(cd "$(dirname "$0")/.." && pwd)
CRATE=$SRCDIR/$BUILDDIR/crate
CORE=$SRCDIR/$BUILDDIR/crate-core
ONESHOT=$SRCDIR/$BUILDDIR/bench/bench_oneshot
[ -x "$CRATE" ] && [ -x "$CORE" ] && [ -x "$ONESHOT" ] ||
	{ echo "bench_oneshot: build crate, crate-core and bench/bench_oneshot first" >&2; exit 1; }
RUNS=${CRATE_BENCH_ONESHOT_RUNS:-100}
SLOW_RUNS=${CRATE_BENCH_ONESHOT_SLOW_RUNS:-15}

W=$(mktemp -d /tmp/crate-bench-oneshot-XXXXXX)
TM="tmux -L crate-bench-oneshot-$$ -f /dev/null"
trap '$TM kill-server 2>/dev/null; rm -rf "$W"' EXIT
export HOME=$W XDG_RUNTIME_DIR=$W/run XDG_CONFIG_HOME=$W/cfg XDG_DATA_HOME=$W/data
mkdir -p "$XDG_RUNTIME_DIR" && chmod 700 "$XDG_RUNTIME_DIR"
printf 'pcm.!default { type file; slave.pcm "null"; file "/dev/null"; format "raw" }\n' >"$W/.asoundrc"

label_of() { awk -v n="$1" 'BEGIN { if (n >= 1000000 && n % 1000000 == 0) print n / 1000000 "m"; else if (n >= 1000) print int(n / 1000) "k"; else print n }'; }
both() { # name runs args...: through the launcher and through crate-core
	local name=$1 runs=$2
	shift 2
	"$ONESHOT" "oneshot_${name}_ms" "$runs" "$CRATE" "$@"
	"$ONESHOT" "oneshot_${name}_core_ms" "$SLOW_RUNS" "$CORE" "$@"
}

"$ONESHOT" oneshot_true_ms "$RUNS" /bin/true
both version "$RUNS" --version
both help "$RUNS" --help

# start_crate DB: the interface on DB in tmux; true once it answers on the socket.
start_crate() {
	$TM kill-server 2>/dev/null
	$TM new-session -d -s b -x 120 -y 40 "env LANG=C.UTF-8 TERM=xterm-256color '$CORE' --db '$1'"
	local i
	for i in $(seq 1200); do # a cold 1M library takes a while
		"$CRATE" remote ping >/dev/null 2>&1 && return 0
		sleep 0.1
	done
	echo "bench_oneshot: crate did not come up in tmux on $1" >&2
	return 1
}
# searches LABEL DB RUNS: `crate search` with a crate running on DB (the
# launcher's answer through the socket), then none running (the launcher
# execs crate-query), and crate-core itself; two queries: many results, few.
searches() {
	local label=$1 db=$2 runs=$3
	if start_crate "$db"; then
		"$ONESHOT" "oneshot_search_${label}_ms" "$runs" "$CRATE" --db "$db" search 't~love'
		"$ONESHOT" "oneshot_search_few_${label}_ms" "$runs" "$CRATE" --db "$db" search --limit 10 'y>2000 t~love'
	fi
	$TM kill-server 2>/dev/null
	sleep 0.5
	"$ONESHOT" "oneshot_search_${label}_core_ms" "$runs" "$CORE" --db "$db" search 't~love'
	"$ONESHOT" "oneshot_search_few_${label}_core_ms" "$runs" "$CORE" --db "$db" search --limit 10 'y>2000 t~love'
	norun "$label" "$db" "$runs" "$CRATE" ""
	if [ -n "${CRATE_BENCH_BASELINE:-}" ] && [ -x "$CRATE_BENCH_BASELINE/crate" ]; then
		cp "$db" "$W/baseline.db"
		"$CRATE_BENCH_BASELINE/crate" --db "$W/baseline.db" search --limit 0 x >/dev/null 2>&1
		sleep 3 # its snapshot is written by a detached process
		norun "$label" "$W/baseline.db" "$runs" "$CRATE_BENCH_BASELINE/crate" _baseline
		rm -f "$W"/baseline.db*
	fi
}
# norun LABEL DB RUNS CRATE SUFFIX: `crate search` with no crate running
# (the launcher finds no socket and runs crate-query, crate-core's search
# without the decoder libraries, which answers from the index snapshot:
# mapped in place since format 3, checked by block since 4; a baseline
# build may run crate-core).
norun() {
	local label=$1 db=$2 runs=$3 crate=$4 sfx=$5
	"$ONESHOT" "oneshot_search_norun_${label}${sfx}_ms" "$runs" "$crate" --db "$db" search 't~love'
	"$ONESHOT" "oneshot_search_norun_few_${label}${sfx}_ms" "$runs" "$crate" --db "$db" \
		search --limit 10 'y>2000 t~love'
}

SMALL=${CRATE_BENCH_SCAN_DB:-}
if [ -n "$SMALL" ] && [ -f "$SMALL" ] && command -v tmux >/dev/null; then
	# a private copy: the running crate writes its state into the database
	cp "$SMALL" "$W/small.db"
	if start_crate "$W/small.db"; then
		both remote_status "$RUNS" remote status
		both remote_next "$RUNS" remote next
		"$CRATE" remote stop >/dev/null 2>&1
	fi
	n=$(sqlite3 "$SMALL" 'SELECT count(*) FROM media' 2>/dev/null || echo small)
	searches "$(label_of "$n")" "$W/small.db" "$SLOW_RUNS"
fi
BIG=${CRATE_BENCH_DB:-}
if [ -n "$BIG" ] && [ -f "$BIG" ] && command -v tmux >/dev/null; then
	"$CORE" --db "$BIG" search --limit 0 x >/dev/null 2>&1 # a snapshot for the runs below
	RUNS_BIG=$SLOW_RUNS
	[ "$SLOW_RUNS" -gt 5 ] && RUNS_BIG=5
	searches "$(label_of "$TRACKS")" "$BIG" "$RUNS_BIG"
fi
$TM kill-server 2>/dev/null
exit 0
