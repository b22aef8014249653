#!/usr/bin/env bash
# A cold scan of one flat folder (no cue sheet in it), whole process:
#
#   scan_flat_<n>_files_ms   <n> copies of a demo file in a single folder,
#       into an empty database; median of RUNS. 4000 should cost about 4x
#       1000: a scan once read the whole folder again for every file (to
#       look for a cue sheet named after the album), so its cost grew with
#       the square of the folder's size.
#
#   bench/bench_scan_flat.sh BUILDDIR [TRACKS]   (TRACKS unused). Prints
#   JSON lines like the C benchmarks.
set -u
BUILDDIR=${1:-build}
SRCDIR=$(cd "$(dirname "$0")/.." && pwd)
. "$SRCDIR/bench/median_ms.sh"
CRATE=$SRCDIR/$BUILDDIR/crate
[ -x "$CRATE" ] || { echo "bench_scan_flat: build crate first" >&2; exit 1; }
RUNS=${CRATE_BENCH_SCAN_FLAT_RUNS:-3}

W=$(mktemp -d /tmp/crate-bench-scan-flat-XXXXXX)
trap 'rm -rf "$W"' EXIT
export HOME=$W XDG_CONFIG_HOME=$W/cfg XDG_DATA_HOME=$W/data
for n in 1000 4000; do
	rm -rf "$W/flat"
	mkdir -p "$W/flat"
	for i in $(seq "$n"); do
		cp "$SRCDIR/data/demo/02 Salt Wind.ogg" "$W/flat/t$i.ogg" || exit 1
	done
	ms=()
	for _ in $(seq "$RUNS"); do
		rm -f "$W"/run.db*
		t0=$(date +%s%N)
		"$CRATE" --db "$W/run.db" scan --quiet "$W/flat" >/dev/null 2>&1
		rc=$? t1=$(date +%s%N)
		[ $rc -eq 0 ] || { echo "bench_scan_flat: scan of $n files: exit $rc" >&2; exit 1; }
		ms+=($(((t1 - t0) / 1000000)))
	done
	printf '%s\n' "${ms[@]}" | median_json "scan_flat_${n}_files_ms"
done
