#!/usr/bin/env bash
# Hostile things in a music folder: a FIFO, links to endless devices, a
# symlink loop, a 10 GB sparse "MP3", a directory named like a file, empty
# and garbage files, and a file that changes while it is read. The scan must
# finish (under a timeout), index the real audio next to them, report the
# rest, and never hang or crash.
. "$(dirname "$0")/../lib.sh"

D=$T_TMP/music
DB=$T_TMP/files.db
mkdir -p "$D/real"

t_begin hostile_files_make
if ! command -v ffmpeg >/dev/null; then t_skip "needs ffmpeg"; t_end; exit $?; fi
for i in 1 2 3; do
	ffmpeg -v error -y -f lavfi -i "sine=frequency=$((300 * i)):duration=0.3:sample_rate=22050" -ac 1 \
		-metadata title="Real $i" "$D/real/r$i.mp3" || t_fail "ffmpeg failed"
done
mkfifo "$D/fifo.mp3" || t_fail "mkfifo failed"
ln -s /dev/zero "$D/zero.flac"
ln -s /dev/urandom "$D/urandom.ogg"
ln -s /dev/stdin "$D/stdin.mp3"
ln -s . "$D/loop"
ln -s "$D" "$D/real/up"
ln -s "$D/missing-target.mp3" "$D/dangling.mp3"
truncate -s 10G "$D/sparse.mp3"
mkdir -p "$D/dir.mp3"
: >"$D/empty.mp3"
head -c 100000 /dev/urandom >"$D/garbage.flac"
{ printf 'ID3\004\000\000\177\177\177\177'; head -c 5000 /dev/urandom; } >"$D/huge-id3-size.mp3"
{ printf 'fLaC\000\377\377\377'; head -c 3000 /dev/urandom; } >"$D/bad-block.flac"

t_begin hostile_files_scan_finishes
# the scan must not block on the FIFO or /dev/stdin, nor read the endless devices to the end
timeout 120 "$CRATE" --db "$DB" scan "$D" </dev/null >"$T_TMP/out" 2>"$T_TMP/err" &
pid=$!
wait "$pid"
rc=$?
if [ $rc -eq 124 ]; then
	t_fail "crate scan did not finish within 120 s (hangs on a FIFO or device?)"
elif [ $rc -ge 128 ]; then
	t_fail "crate scan crashed (exit $rc): $(tail -3 "$T_TMP/err")"
elif [ $rc -ne 0 ] && [ $rc -ne 2 ]; then
	t_fail "crate scan exited $rc: $(head -3 "$T_TMP/err")"
fi

t_begin hostile_files_real_audio_indexed
"$CRATE" --db "$DB" list --format '%title%' >"$T_TMP/list" 2>&1 || t_fail "crate list failed"
for i in 1 2 3; do
	n=$(grep -c "^Real $i\$" "$T_TMP/list")
	[ "$n" -eq 1 ] || t_fail "'Real $i' is listed $n times (symlink loops must not index files twice)"
done
n=$(grep -c . "$T_TMP/list")
[ "$n" -eq 3 ] || t_fail "$n items indexed; only the 3 real files are audio: $(tr '\n' '|' <"$T_TMP/list")"

t_begin hostile_files_failures_reported
for f in empty.mp3 garbage.flac sparse.mp3; do
	grep -qF "$f" "$T_TMP/err" || t_fail "no error line names $f"
done
[ $rc -eq 2 ] || t_fail "the scan exited $rc although files failed (expected 2)"

t_begin hostile_files_changing_file
# a file rewritten during the scan: whatever is indexed, nothing breaks
mkdir -p "$T_TMP/changing"
cp "$D/real/r1.mp3" "$T_TMP/changing/c.mp3"
( for i in $(seq 1 40); do head -c 2000 /dev/urandom >"$T_TMP/changing/c.mp3"; cp "$D/real/r2.mp3" "$T_TMP/changing/c.mp3"; done ) &
wpid=$!
for i in 1 2 3 4 5; do
	timeout 60 "$CRATE" --db "$DB" scan --quiet "$T_TMP/changing" >/dev/null 2>&1
	rc=$?
	[ $rc -le 2 ] || { t_fail "scan of a changing file exited $rc"; break; }
done
wait "$wpid"
"$CRATE" --db "$DB" list >/dev/null 2>&1 || t_fail "crate list failed after scanning a changing file"

t_end
