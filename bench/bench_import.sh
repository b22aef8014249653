#!/usr/bin/env bash
# Importing a big playlist file (`crate playlist import`), whole process:
#
#   playlist_import_<k>k_lines_ms   an M3U of <k>,000 lines (CRLF, a BOM):
#       a quarter entries in the library (the twelve demo files), a quarter
#       ../ escapes past the root, a quarter junk, a quarter #EXTINF; median
#       of RUNS, each into a fresh copy of the library. 50k and 200k: the
#       cost must grow with the lines, not with their square (the list of
#       missing entries once grew by one element per entry).
#
#   bench/bench_import.sh BUILDDIR [TRACKS]   (TRACKS unused: the library is
#   the demo's). Prints JSON lines like the C benchmarks.
set -u
BUILDDIR=${1:-build}
SRCDIR=$(cd "$(dirname "$0")/.." && pwd)
. "$SRCDIR/bench/median_ms.sh"
CRATE=$SRCDIR/$BUILDDIR/crate
[ -x "$CRATE" ] || { echo "bench_import: build crate first" >&2; exit 1; }
RUNS=${CRATE_BENCH_IMPORT_RUNS:-5}

W=$(mktemp -d /tmp/crate-bench-import-XXXXXX)
trap 'rm -rf "$W"' EXIT
export HOME=$W XDG_CONFIG_HOME=$W/cfg XDG_DATA_HOME=$W/data
mkdir -p "$W/music"
cp "$SRCDIR"/data/demo/* "$W/music/"
"$CRATE" --db "$W/base.db" scan --quiet "$W/music" >/dev/null 2>&1 ||
	{ echo "bench_import: scan of the demo files failed" >&2; exit 1; }

for lines in 50000 200000; do
	awk -v n="$lines" 'BEGIN {
		printf "\357\273\277#EXTM3U\r\n"
		for (i = 0; i < n; i++) {
			m = i % 4
			if (m == 0) printf "music/01 Harbour Lights.ogg\r\n"
			else if (m == 1) printf "#EXTINF:6,x\r\n"
			else if (m == 2) printf "../../../../../../../../../../music/02 Salt Wind.ogg\r\n"
			else printf "junk %d\r\n", i
		}
	}' >"$W/big.m3u"
	ms=()
	for _ in $(seq "$RUNS"); do
		rm -f "$W"/run.db*
		cp "$W/base.db" "$W/run.db"
		t0=$(date +%s%N)
		"$CRATE" --db "$W/run.db" playlist import big "$W/big.m3u" >/dev/null 2>&1
		rc=$? t1=$(date +%s%N)
		[ $rc -eq 2 ] || { echo "bench_import: import of $lines lines: exit $rc" >&2; exit 1; }
		ms+=($(((t1 - t0) / 1000000)))
	done
	printf '%s\n' "${ms[@]}" | median_json "playlist_import_$((lines / 1000))k_lines_ms"
done
