#!/usr/bin/env bash
# Keystroke-to-screen while typing a query in the search bar: crate runs in
# tmux on a generated library, with CRATE_TRACE_FRAMES logging each frame
# (time from the key's arrival to the end of doupdate, which includes the
# parse, the evaluation, regrouping the browser columns and drawing). The
# query is typed one key at a time; every prefix is evaluated (or shown as
# incomplete/wrong). Prints JSON lines like the C benchmarks:
#   {"name":"ui_search_key_to_screen_1000000","median_ms":..,"min_ms":..,"max_ms":..,"p95_ms":..,"p99_ms":..,"n":..}
#
#   bench/bench_ui.sh BUILDDIR [TRACKS]      (default 1000000; needs tmux)
#
# BENCH_UI_TRACE_OUT=FILE keeps the frame trace (one JSON line a frame).
#
# With BENCH_UI_ANALYSIS=1 (bench_ui_analysis.sh) the same typing happens
# while the interface analyses 40 real files in the background ([analysis]
# auto): the library's generated rows count as done, so the analysis works
# on the real files and the figures are named ..._analysing_N.
set -u
BUILDDIR=${1:-build}
TRACKS=${2:-1000000}
SRCDIR=$(cd "$(dirname "$0")/.." && pwd)
CRATE=$SRCDIR/$BUILDDIR/crate
GEN=$SRCDIR/$BUILDDIR/bench/gen_library
command -v tmux >/dev/null || { echo "bench_ui: tmux missing: skipped" >&2; exit 0; }
[ -x "$CRATE" ] && [ -x "$GEN" ] || { echo "bench_ui: build crate and bench/gen_library first" >&2; exit 1; }

W=$(mktemp -d /tmp/crate-bench-ui-XXXXXX)
TM="tmux -L crate-bench-ui-$$ -f /dev/null"
trap '$TM kill-server 2>/dev/null; rm -rf "$W"' EXIT
DB=${CRATE_BENCH_DB:-$W/lib.db}
[ -f "$DB" ] || "$GEN" db "$DB" "$TRACKS" 42 >/dev/null 2>&1 || { echo "bench_ui: gen_library failed" >&2; exit 1; }
# Work on a copy: the interface keeps its search in the state file beside
# the database (resume), so a reused database would have the next run type
# onto the last run's query.
[ "$DB" = "$W/lib.db" ] || { cp "$DB" "$W/lib.db" && DB=$W/lib.db; } ||
	{ echo "bench_ui: cannot copy the database" >&2; exit 1; }

export HOME=$W XDG_RUNTIME_DIR=$W/run XDG_CONFIG_HOME=$W/cfg XDG_DATA_HOME=$W/data
mkdir -p "$XDG_RUNTIME_DIR" && chmod 700 "$XDG_RUNTIME_DIR"
CONF=$W/crate.conf SUFFIX=""
: >"$CONF"
if [ "${BENCH_UI_ANALYSIS:-0}" = 1 ]; then
	command -v ffmpeg >/dev/null && command -v sqlite3 >/dev/null ||
		{ echo "bench_ui: ffmpeg and sqlite3 needed for the analysis run: skipped" >&2; exit 0; }
	SUFFIX=_analysing
	mkdir -p "$W/music"
	ffmpeg -nostdin -v error -f lavfi -i 'anoisesrc=d=60:c=pink:a=0.1:seed=5' \
		-ac 2 -ar 44100 "$W/music/t0.flac" || { echo "bench_ui: ffmpeg failed" >&2; exit 1; }
	for i in $(seq 39); do cp "$W/music/t0.flac" "$W/music/t$i.flac"; done
	"$CRATE" --db "$DB" --config "$CONF" scan --quiet "$W/music" >/dev/null 2>&1 ||
		{ echo "bench_ui: scan failed" >&2; exit 1; }
	sqlite3 "$DB" "INSERT OR IGNORE INTO media_analysis(media_id, version, mtime, filesize,
		analysed, error) SELECT id, 1, mtime, filesize, 0, 'bench: generated row'
		FROM media WHERE CAST(url AS TEXT) NOT LIKE '$W/music/%'" ||
		{ echo "bench_ui: cannot mark the generated rows" >&2; exit 1; }
	printf '[analysis]\nauto = true\n' >"$CONF"
fi
analysed() { sqlite3 -cmd ".timeout 5000" "$DB" "SELECT count(*) FROM media_analysis WHERE error IS NULL"; }
TRACE=$W/frames.jsonl
$TM new-session -d -s b -x 160 -y 50 \
	"env CRATE_TRACE_FRAMES='$TRACE' LANG=C.UTF-8 TERM=xterm-256color '$CRATE' --db '$DB' --config '$CONF'"
for i in $(seq 1200); do # start-up loads the index: up to 120 s
	$TM capture-pane -p -t b 2>/dev/null | grep -q "1 Browser" && break
	sleep 0.1
done
if [ -n "$SUFFIX" ]; then
	for i in $(seq 300); do # the analysis shows on the status line once it runs
		$TM capture-pane -p -t b 2>/dev/null | grep -q "analysis " && break
		sleep 0.1
	done
	before=$(analysed)
fi
: >"$TRACE"
QUERY='a~the OR t~love y>1990 NOT g:Pop'
$TM send-keys -t b /
sleep 0.3
for ((i = 0; i < ${#QUERY}; i++)); do
	$TM send-keys -t b -l -- "${QUERY:i:1}"
	sleep 0.15 # one key per frame: measure each, not a burst
done
for ((i = 0; i < 8; i++)); do
	$TM send-keys -t b BSpace
	sleep 0.15
done
sleep 0.5
if [ -n "$SUFFIX" ]; then
	during=$(($(analysed) - before))
	echo "bench_ui: $during files analysed while typing" >&2
	[ "$during" -gt 0 ] || { echo "bench_ui: the analysis did not run while typing" >&2; exit 1; }
fi
$TM send-keys -t b Escape q
sleep 0.3

[ -n "${BENCH_UI_TRACE_OUT:-}" ] && cp "$TRACE" "$BENCH_UI_TRACE_OUT"
grep '"what":"search_key"' "$TRACE" | sed 's/.*"key_to_screen_ms":\([0-9.]*\).*/\1/' | sort -n >"$W/ms"
n=$(wc -l <"$W/ms")
[ "$n" -gt 0 ] || { echo "bench_ui: no frames traced" >&2; exit 1; }
awk -v n="$n" -v t="$TRACKS" -v sfx="$SUFFIX" '
	{ v[NR] = $1 }
	END {
		med = (n % 2) ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
		p95 = v[int(n * 0.95 + 0.999)]
		p99 = v[int(n * 0.99 + 0.999)]
		printf "{\"name\":\"ui_search_key_to_screen%s_%d\",\"median_ms\":%.3f,\"min_ms\":%.3f,\"max_ms\":%.3f,\"p95_ms\":%.3f,\"p99_ms\":%.3f,\"n\":%d}\n", sfx, t, med, v[1], v[n], p95, p99, n
	}' "$W/ms"
# The same frames' CPU time (both threads of the process): on a machine
# other work shares, wall time measures the machine as much as crate.
grep '"what":"search_key"' "$TRACE" | sed 's/.*"cpu_ms":\([0-9.]*\).*/\1/' | sort -n |
	awk -v t="$TRACKS" -v sfx="$SUFFIX" '{ v[NR] = $1 } END { if (!NR) exit
		m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		printf "{\"name\":\"ui_search_key_cpu%s_%d\",\"median_ms\":%.3f,\"min_ms\":%.3f,\"max_ms\":%.3f,\"p95_ms\":%.3f,\"n\":%d}\n", sfx, t, m, v[1], v[NR], v[int(NR * 0.95 + 0.999)], NR }'
grep '"what":"search_key"' "$TRACE" | sed 's/.*"eval_ms":\([0-9.]*\).*/\1/' | sort -n |
	awk -v t="$TRACKS" -v sfx="$SUFFIX" '{ v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2;
		printf "{\"name\":\"ui_search_eval%s_%d\",\"median_ms\":%.3f,\"min_ms\":%.3f,\"max_ms\":%.3f,\"n\":%d}\n", sfx, t, m, v[1], v[NR], NR }'
# The idle preparation's steps while typing (after start-up the search
# bar's tables are made between keys): a key pressed during one waits for
# its end, a wait the frames above do not count.
grep '"what":"idle_step"' "$TRACE" | sed 's/.*"ms":\([0-9.]*\).*/\1/' | sort -n |
	awk -v t="$TRACKS" -v sfx="$SUFFIX" '{ v[NR] = $1; s += $1 } END { if (!NR) exit
		m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		printf "{\"name\":\"ui_idle_step%s_%d\",\"median_ms\":%.3f,\"max_ms\":%.3f,\"sum_ms\":%.3f,\"n\":%d}\n", sfx, t, m, v[NR], s, NR }'
# The heavy frames (a result of more than 15 % of the library, evaluated
# and grouped anew, not recalled): where their time goes, each step's
# median (filter: the evaluation less listing, ranking and grouping).
grep '"what":"search_key"' "$TRACE" | awk -v t="$TRACKS" -v sfx="$SUFFIX" '
	function field(name,   m) { return match($0, "\"" name "\":[0-9.]+") ? substr($0, RSTART + length(name) + 3, RLENGTH - length(name) - 3) + 0 : 0 }
	function median(a, n,   i, j, x) {
		for (i = 2; i <= n; i++) { x = a[i]; for (j = i - 1; j >= 1 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x }
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
	field("results") > 0.15 * t && (field("list_ms") > 0 || field("rank_ms") > 0) {
		n++; key[n] = field("key_to_screen_ms"); lst[n] = field("list_ms"); rnk[n] = field("rank_ms")
		grp[n] = field("group_ms"); drw[n] = field("draw_ms")
		flt[n] = field("eval_ms") - lst[n] - rnk[n] - grp[n]
		if (key[n] > max) max = key[n]
	}
	END { if (!n) exit
		printf "{\"name\":\"ui_search_heavy_frames%s_%d\",\"median_ms\":%.3f,\"max_ms\":%.3f,\"filter_median_ms\":%.3f,\"list_median_ms\":%.3f,\"rank_median_ms\":%.3f,\"group_median_ms\":%.3f,\"draw_median_ms\":%.3f,\"n\":%d}\n",
			sfx, t, median(key, n), max, median(flt, n), median(lst, n), median(rnk, n), median(grp, n), median(drw, n), n }'
