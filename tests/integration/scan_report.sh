#!/usr/bin/env bash
# What `crate scan` says (issue 16 item 3, issue 14 item 13): files that are
# not audio are "ignored", never failures; exit status 2 only when audio
# failed; every failure is listed before the summary, which is the last
# line; nothing but that when stderr is not a terminal; on a full disk the
# summary says what was stored and what was not, and the counts agree with
# the database.
. "$(dirname "$0")/../lib.sh"

MNT=()
cleanup() {
	local m
	for m in "${MNT[@]}"; do umount "$m" 2>/dev/null; done
	rm -rf "$T_TMP"
}
trap cleanup EXIT

t_begin scan_report_setup
if ! command -v ffmpeg >/dev/null || ! command -v python3 >/dev/null; then
	t_skip "needs ffmpeg and python3"; t_end; exit $?
fi
D=$T_TMP/album
mkdir -p "$D"
for i in 1 2; do
	ffmpeg -v error -y -f lavfi -i "sine=frequency=$((300 * i)):duration=0.2" -ac 1 \
		-metadata title="Song $i" "$D/s$i.flac" || t_fail "ffmpeg"
done
echo "# notes" >"$D/README.md"
printf 'JFIF' >"$D/cover.jpg"
printf 'FILE "s1.flac" WAVE\n' >"$D/album.cue"
python3 -c 'import socket,sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$D/control" ||
	t_fail "socket"

t_begin scan_report_not_audio_is_ignored
DB=$T_TMP/lib.db
"$CRATE" --db "$DB" scan "$D" >"$T_TMP/out" 2>"$T_TMP/err"
rc=$?
[ $rc -eq 0 ] || t_fail "exit $rc for a folder whose only non-audio files are ignored: $(cat "$T_TMP/err")"
grep -q "4 ignored" "$T_TMP/err" || t_fail "summary does not say 4 ignored: $(cat "$T_TMP/err")"
grep -q "0 failed" "$T_TMP/err" || t_fail "summary: $(cat "$T_TMP/err")"
[ "$(wc -l <"$T_TMP/err")" -eq 1 ] || t_fail "more than the summary on a non-terminal: $(cat "$T_TMP/err")"
[ ! -s "$T_TMP/out" ] || t_fail "stdout is not empty"

t_begin scan_report_own_database_files_ignored
# The database inside the scanned folder: itself, -wal, -shm, .index.
DB2=$D/inside.db
"$CRATE" --db "$DB2" scan "$D" >/dev/null 2>&1
"$CRATE" --db "$DB2" scan "$D" >"$T_TMP/out" 2>"$T_TMP/err"
rc=$?
[ $rc -eq 0 ] || t_fail "exit $rc scanning the folder holding the database: $(cat "$T_TMP/err")"
grep -qE "inside\.db|not audio" "$T_TMP/err" && t_fail "crate's own files reported: $(cat "$T_TMP/err")"
rm -f "$D"/inside.db*

t_begin scan_report_failures_listed_before_the_summary
printf 'not an mp3' >"$D/broken.mp3"
LONG=$D/$(printf 'x%.0s' $(seq 1 200))/$(printf 'y%.0s' $(seq 1 200))
mkdir -p "$LONG"
printf 'not a flac either' >"$LONG/broken2.flac"
"$CRATE" --db "$DB" scan "$D" >"$T_TMP/out" 2>"$T_TMP/err"
rc=$?
[ $rc -eq 2 ] || t_fail "exit $rc when audio files failed (expected 2)"
tail -n 1 "$T_TMP/err" | grep -q "^scanned .* files: .* 2 failed" ||
	t_fail "the summary is not the last line: $(tail -n 2 "$T_TMP/err")"
grep -q "broken.mp3: not audio" "$T_TMP/err" || t_fail "broken.mp3 not listed with its reason"
grep "broken2.flac" "$T_TMP/err" | grep -q "not audio" ||
	t_fail "the long path's reason is cut off: $(grep broken2 "$T_TMP/err" | tail -c 200)"
n=$(grep -c '^crate: ' "$T_TMP/err")
[ "$n" -eq 2 ] || t_fail "$n failure lines for 2 failures"
rm -rf "$D/broken.mp3" "$D/$(printf 'x%.0s' $(seq 1 200))"

t_begin scan_report_full_disk_says_what_was_stored
FULL=$T_TMP/small
mkdir -p "$FULL"
if [ "$(id -u)" -ne 0 ] || ! mount -t tmpfs -o size=1m tmpfs "$FULL" 2>/dev/null; then
	t_skip "cannot mount a 1 MB tmpfs (needs root)"
else
	MNT+=("$FULL")
	BIG=$T_TMP/big
	mkdir -p "$BIG"
	comment=$(printf 'c%.0s' $(seq 1 3000))
	ffmpeg -v error -y -f lavfi -i "sine=frequency=900:duration=0.2:sample_rate=22050" -ac 1 \
		-metadata title="Filler" -metadata comment="$comment" -metadata lyrics="$comment$comment" \
		"$T_TMP/filler.flac" || t_fail "ffmpeg"
	t_copies "$T_TMP/filler.flac" 600 "$BIG/f%d.flac"
	DB=$FULL/lib.db
	"$CRATE" --db "$DB" scan --quiet "$D" >/dev/null 2>&1 || t_fail "first scan"
	dd if=/dev/zero of="$FULL/ballast" bs=4k count=150 status=none 2>/dev/null
	"$CRATE" --db "$DB" scan "$BIG" >"$T_TMP/out" 2>"$T_TMP/err"
	rc=$?
	last=$(tail -n 1 "$T_TMP/err")
	echo "    full disk: exit $rc: $last" >&2
	if [ $rc -eq 0 ]; then
		t_skip "the disk did not fill up"
	else
		[ $rc -eq 1 ] || t_fail "exit $rc on a full disk (expected 1)"
		echo "$last" | grep -q "^scan stopped after 600 files: .* not stored" ||
			t_fail "the last line does not say what was not stored: $last"
		added=$(echo "$last" | sed -n 's/.*: \([0-9]*\) added.*/\1/p')
		notst=$(echo "$last" | sed -n 's/.*; \([0-9]*\) files* not stored.*/\1/p')
		rm -f "$FULL/ballast"
		listed=$("$CRATE" --db "$DB" list --format '%title%' | grep -c Filler)
		[ "$added" = "$listed" ] || t_fail "the summary says $added added, the library has $listed"
		[ "$((added + notst))" -eq 600 ] || t_fail "$added stored + $notst not stored != 600 found"
	fi
fi
t_end
