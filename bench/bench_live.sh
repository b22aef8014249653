#!/usr/bin/env bash
# The live library (issue 16), with crate's interface running in tmux:
#
#   watch_change_to_screen_20k   a file copied into a watched folder of a
#       20,000-track library until its title is on the screen (quiet period,
#       scan of the folder, index rebuild and the frame): median of 20.
#   watch_idle_cpu               CPU of that idle, watching crate over 60 s,
#       in percent of one core (utime + stime from /proc/PID/stat).
#   watch_rss_per_dir            resident memory per watched folder: a crate
#       watching 5,000 empty folders minus one watching 1, per folder.
#   (The kernel's own cost per watch is not measured: Slab in /proc/meminfo
#   moves by megabytes with everything else a shared machine does.)
#
#   bench/bench_live.sh BUILDDIR [TRACKS]   (TRACKS: the library, default 20000)
# Prints JSON lines like the C benchmarks. Needs tmux and ffmpeg.
set -u
BUILDDIR=${1:-build}
TRACKS=20000 # the figure is defined for 20k tracks, whatever the run's size
SRCDIR=$(cd "$(dirname "$0")/.." && pwd)
CRATE=$SRCDIR/$BUILDDIR/crate
GEN=$SRCDIR/$BUILDDIR/bench/gen_library
command -v tmux >/dev/null && command -v ffmpeg >/dev/null ||
	{ echo "bench_live: tmux and ffmpeg needed: skipped" >&2; exit 0; }
[ -x "$CRATE" ] && [ -x "$GEN" ] || { echo "bench_live: build crate and bench/gen_library first" >&2; exit 1; }
IDLE_S=${BENCH_LIVE_IDLE_S:-60}
ROUNDS=${BENCH_LIVE_ROUNDS:-20}

W=$(mktemp -d /tmp/crate-bench-live-XXXXXX)
TM="tmux -L crate-bench-live-$$ -f /dev/null"
trap '$TM kill-server 2>/dev/null; rm -rf "$W"' EXIT
export HOME=$W XDG_RUNTIME_DIR=$W/run XDG_CONFIG_HOME=$W/cfg XDG_DATA_HOME=$W/data
mkdir -p "$XDG_RUNTIME_DIR" && chmod 700 "$XDG_RUNTIME_DIR"
screen() { $TM capture-pane -p -t b 2>/dev/null; }
ms_now() { date +%s%N | cut -b1-13; }
start_ui() { # db
	$TM kill-session -t b 2>/dev/null
	$TM new-session -d -s b -x 160 -y 50 "exec env LANG=C.UTF-8 TERM=xterm-256color '$CRATE' --db '$1'"
	for _ in $(seq 600); do
		screen | grep -q "1 Browser" && break
		sleep 0.1
	done
	PID=$($TM display -p -t b '#{pane_pid}')
}
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }

# ---- change on disk -> on the screen ----
DB=$W/lib.db
"$GEN" db "$DB" "$TRACKS" 42 >/dev/null 2>&1 || { echo "bench_live: gen_library failed" >&2; exit 1; }
M=$W/music STAGE=$W/stage
mkdir -p "$M" "$STAGE"
ffmpeg -v error -y -f lavfi -i "sine=frequency=150:duration=0.3" -ac 1 \
	-metadata artist="Live Bench" -metadata title="Seed" "$M/seed.flac" ||
	{ echo "bench_live: ffmpeg failed" >&2; exit 1; }
for i in $(seq 101 $((100 + ROUNDS))); do
	ffmpeg -v error -y -f lavfi -i "sine=frequency=$((i * 3)):duration=0.3" -ac 1 \
		-metadata artist="Live Bench" -metadata title="LiveProbe $i" "$STAGE/p$i.flac" ||
		{ echo "bench_live: ffmpeg failed" >&2; exit 1; }
done
"$CRATE" --db "$DB" scan --quiet "$M" >/dev/null 2>&1 # records the root
start_ui "$DB"
$TM send-keys -t b / && sleep 0.3
$TM send-keys -t b -l -- 't~LiveProbe' && $TM send-keys -t b Enter
sleep 1
: >"$W/ms"
for i in $(seq 101 $((100 + ROUNDS))); do
	t0=$(ms_now)
	cp "$STAGE/p$i.flac" "$M/new$i.flac"
	for _ in $(seq 500); do
		screen | grep -q "LiveProbe $i" && break
		sleep 0.01
	done
	t1=$(ms_now)
	echo $((t1 - t0)) >>"$W/ms"
	sleep 0.5
done
sort -n "$W/ms" -o "$W/ms"
awk '{ v[NR] = $1 } END { n = NR; med = (n % 2) ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
	printf "{\"name\":\"watch_change_to_screen_20k\",\"median_ms\":%d,\"min_ms\":%d,\"max_ms\":%d,\"n\":%d}\n", med, v[1], v[n], n }' "$W/ms"

# ---- idle CPU of the watching crate ----
hz=$(getconf CLK_TCK)
c0=$(cpu_ticks "$PID")
sleep "$IDLE_S"
c1=$(cpu_ticks "$PID")
awk -v a="$c0" -v b="$c1" -v hz="$hz" -v s="$IDLE_S" \
	'BEGIN { printf "{\"name\":\"watch_idle_cpu\",\"value\":%.3f,\"unit\":\"%%\"}\n", (b - a) / hz / s * 100 }'
$TM kill-session -t b 2>/dev/null

# ---- memory per watched folder ----
rss_kb() { awk '/^VmRSS/ { print $2 }' "/proc/$1/status"; }
measure() { # dirs -> resident kB of a crate watching that many folders
	local d=$W/tree$1 db=$W/tree$1.db
	mkdir -p "$d"
	for i in $(seq 2 "$1"); do mkdir -p "$d/$((i / 100))/$i"; done
	"$CRATE" --db "$db" scan --quiet "$d" >/dev/null 2>&1
	start_ui "$db"
	sleep 2
	rss_kb "$PID"
	$TM kill-session -t b 2>/dev/null
	sleep 0.5
}
N=5000
r1=$(measure 1)
rn=$(measure $N)
dirs=$(find "$W/tree$N" -type d | wc -l)
awk -v a="$r1" -v b="$rn" -v n="$dirs" \
	'BEGIN { printf "{\"name\":\"watch_rss_per_dir\",\"value\":%.0f,\"unit\":\"bytes\"}\n", (b - a) * 1024 / (n - 1) }'
