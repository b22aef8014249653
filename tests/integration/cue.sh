#!/usr/bin/env bash
# Cue sheets (issue 18 part 5): a FLAC album with a hand-written .cue
# beside it is one item per track with the sheet's tags; the album plays
# gapless through ALSA's file plugin and equals FFmpeg's decoding of the
# whole file, each track equals its sample range, statistics count per
# track, a rescan keeps the ids, a seek stays inside track 2 (MPRIS, when
# a private bus can be had), an embedded CUESHEET tag works the same, and
# a bad sheet (backwards index, no FILE, 999 tracks) is a per-file error
# with the audio indexed whole.
. "$(dirname "$0")/../lib.sh"

if ! command -v ffmpeg >/dev/null || ! command -v python3 >/dev/null; then
	t_begin cue_setup; t_skip "needs ffmpeg and python3"; t_end; exit $?
fi

H=$T_TMP/home
export HOME=$H XDG_CONFIG_HOME=$H/.config XDG_DATA_HOME=$H/.local/share
t_sink_home "$H" "$T_TMP/out.raw"
: >"$T_TMP/config"
DB=$T_TMP/lib.db
run() { timeout 60 "$CRATE" --db "$DB" --config "$T_TMP/config" "$@"; }
A=$T_TMP/album
mkdir -p "$A"

# 10 s of stereo noise (every sample distinct, so a shifted range shows)
# and a sheet in EAC's dialect: BOM, CRLF, a pregap (INDEX 00), a Latin-1
# title, quoted and bare values, a FILE naming the .wav it was ripped to.
ffmpeg -nostdin -v error -y -f lavfi -i 'anoisesrc=d=10:r=44100:seed=42' -ac 2 -sample_fmt s16 \
	-metadata artist="File Artist" -metadata album="File Album" "$A/Harbour.flac"
printf '\xef\xbb\xbfREM GENRE Ambient\r\nREM DATE 1999\r\nPERFORMER "Mira Sol"\r\n'\
'TITLE "Harbour Lights"\r\nFILE "Harbour.wav" WAVE\r\n'\
'  TRACK 01 AUDIO\r\n    TITLE "Morning"\r\n    INDEX 01 00:00:00\r\n'\
'  TRACK 02 AUDIO\r\n    TITLE "Caf\xe9 Noon"\r\n    PERFORMER "Guest Star"\r\n'\
'    INDEX 00 00:03:00\r\n    INDEX 01 00:03:37\r\n'\
'  TRACK 03 AUDIO\r\n    TITLE Evening Tide\r\n    INDEX 01 00:07:12\r\n' >"$A/Harbour.cue"
# Track starts in samples: 3 s 37 frames, 7 s 12 frames (588 samples a frame).
S2=$((3 * 44100 + 37 * 588)) S3=$((7 * 44100 + 12 * 588)) END=$((10 * 44100))
ffmpeg -nostdin -v error -y -i "$A/Harbour.flac" -f s16le -ac 2 -ar 44100 "$T_TMP/ref.raw"

# slice FROM TO: samples [FROM, TO) of the reference decoding, raw.
slice() { tail -c +$(($1 * 4 + 1)) "$T_TMP/ref.raw" | head -c $((($2 - $1) * 4)); }
# %duration_ms%: the split's precision (%duration% reads m:ss)
FMT='%tracknr%|%artist%|%albumartist%|%album%|%title%|%genre%|%date%|%duration_ms%'

t_begin cue_scan_makes_one_item_per_track_with_the_sheets_tags
run scan "$A" >"$T_TMP/scan.out" 2>&1; rc=$?
[ $rc -eq 0 ] || t_fail "scan exit $rc: $(cat "$T_TMP/scan.out")"
got=$(run search --order tracknr --format "$FMT" '*' 2>&1)
want="1|Mira Sol|Mira Sol|Harbour Lights|Morning|Ambient|1999|$((S2 * 1000 / 44100))
2|Guest Star|Mira Sol|Harbour Lights|Café Noon|Ambient|1999|$(((S3 - S2) * 1000 / 44100))
3|Mira Sol|Mira Sol|Harbour Lights|Evening Tide|Ambient|1999|$(((END * 1000 / 44100) - 7 * 1000 - 12 * 1000 / 75))"
[ "$got" = "$want" ] || t_fail "items:
$got
want:
$want"
urls=$(run search --order tracknr --format '%url%' '*' 2>&1)
[ "$urls" = "$A/Harbour.flac#1
$A/Harbour.flac#2
$A/Harbour.flac#3" ] || t_fail "urls (the whole file must not be an item too): $urls"
# --json's uri is the file's with the track as its fragment (it was
# file:///...Harbour.flac%232, which decodes to a file that is not there)
uri=$(run search --json 'n:2' 2>&1 | sed -n 's/.*"uri": "\([^"]*\)".*/\1/p')
[ "$uri" = "file://$A/Harbour.flac#2" ] || t_fail "uri of track 2: $uri"
ID1=$(run search --format '%id%' 'n:1' 2>/dev/null)
ID2=$(run search --format '%id%' 'n:2' 2>/dev/null)
ID3=$(run search --format '%id%' 'n:3' 2>/dev/null)

t_begin cue_album_plays_gapless_equal_to_the_whole_decode
rm -f "$T_TMP/out.raw"
out=$(run play --no-ui 'l:"Harbour Lights"' 2>"$T_TMP/err"); rc=$?
[ $rc -eq 0 ] || t_fail "exit $rc: $(cat "$T_TMP/err")"
[ "$out" = "Mira Sol - Morning
Guest Star - Café Noon
Mira Sol - Evening Tide" ] || t_fail "printed: $out"
cmp -s "$T_TMP/out.raw" "$T_TMP/ref.raw" ||
	t_fail "the album's output ($(stat -c %s "$T_TMP/out.raw") bytes) differs from the whole decode ($(stat -c %s "$T_TMP/ref.raw") bytes)"

t_begin cue_each_track_is_its_sample_range
for t in "1 0 $S2 $ID1" "2 $S2 $S3 $ID2" "3 $S3 $END $ID3"; do
	set -- $t
	rm -f "$T_TMP/out.raw"
	run play --no-ui "#$4" >/dev/null 2>"$T_TMP/err" || t_fail "track $1: $(cat "$T_TMP/err")"
	slice "$2" "$3" | cmp -s - "$T_TMP/out.raw" ||
		t_fail "track $1: $(stat -c %s "$T_TMP/out.raw") bytes, not samples $2..$3 of the file"
done
# `crate play FILE` on the split file plays its tracks
rm -f "$T_TMP/out.raw"
out=$(run play --no-ui "$A/Harbour.flac" 2>"$T_TMP/err") || t_fail "play FILE: $(cat "$T_TMP/err")"
[ "$(printf '%s\n' "$out" | wc -l)" -eq 3 ] || t_fail "play FILE printed: $out"
cmp -s "$T_TMP/out.raw" "$T_TMP/ref.raw" || t_fail "play FILE: output differs from the whole decode"

t_begin cue_statistics_count_per_track
got=$(run search --order tracknr --format '%timesplayed%' '*' 2>&1 | tr '\n' ' ')
[ "$got" = "3 3 3 " ] || t_fail "timesplayed: $got (want 3 each: album, alone, play FILE)"

t_begin cue_info_on_the_split_file_lists_its_tracks
out=$(run info "$A/Harbour.flac" 2>&1); rc=$?
[ $rc -eq 0 ] || t_fail "exit $rc: $out"
grep -q "split by its cue sheet into 3 tracks" <<<"$out" || t_fail "info: $out"
grep -q "#$ID2  2. Guest Star - Café Noon" <<<"$out" || t_fail "info lacks track 2: $out"
run info "$ID2" | grep -qx "cue_start = $S2" || t_fail "info #$ID2 lacks cue_start = $S2"

t_begin cue_rescan_keeps_the_ids
run scan "$A" >"$T_TMP/scan.out" 2>&1 || t_fail "rescan: $(cat "$T_TMP/scan.out")"
grep -q "1 unchanged" "$T_TMP/scan.out" || t_fail "not unchanged: $(cat "$T_TMP/scan.out")"
sed -i 's/Evening Tide/Night Tide/' "$A/Harbour.cue"
touch -d '+2 seconds' "$A/Harbour.cue" # an edited sheet is a changed file
run scan "$A" >"$T_TMP/scan.out" 2>&1 || t_fail "rescan: $(cat "$T_TMP/scan.out")"
grep -q "1 updated" "$T_TMP/scan.out" || t_fail "the edited sheet was not read: $(cat "$T_TMP/scan.out")"
[ "$(run search --format '%id% %title%' 'n:3')" = "$ID3 Night Tide" ] || t_fail "track 3 after the edit: $(run search --format '%id% %title%' 'n:3')"
[ "$(run search --order tracknr --format '%id%' '*' | tr '\n' ' ')" = "$ID1 $ID2 $ID3 " ] ||
	t_fail "ids changed"
[ "$(run search --format '%timesplayed%' "#$ID1")" = 3 ] || t_fail "statistics lost"

t_begin cue_seek_stays_inside_track_2
if command -v dbus-daemon >/dev/null && command -v busctl >/dev/null &&
	ldd "$(dirname "$CRATE")/crate-core" 2>/dev/null | grep -q libsystemd; then
	export XDG_RUNTIME_DIR=$T_TMP/run
	mkdir -p "$XDG_RUNTIME_DIR" && chmod 700 "$XDG_RUNTIME_DIR"
	ADDR=$(dbus-daemon --session --fork --nopidfile --print-address=1 --print-pid=3 \
		3>"$T_TMP/dbus.pid" | head -1)
	trap 'kill $(cat "$T_TMP/dbus.pid") 2>/dev/null; rm -rf "$T_TMP"' EXIT
	B="busctl --address=$ADDR"
	OBJ=/org/mpris/MediaPlayer2 P=org.mpris.MediaPlayer2.Player N=org.mpris.MediaPlayer2.crate
	printf '[output]\npace = true\n' >"$T_TMP/paced"
	rm -f "$T_TMP/out.raw"
	DBUS_SESSION_BUS_ADDRESS=$ADDR timeout 60 "$CRATE" --db "$DB" --config "$T_TMP/paced" \
		play --no-ui "#$ID2" >/dev/null 2>"$T_TMP/err" &
	CPID=$!
	ok=""
	for i in $(seq 1 100); do
		$B get-property $N $OBJ $P PlaybackStatus 2>/dev/null | grep -q Playing && { ok=1; break; }
		sleep 0.05
	done
	[ -n "$ok" ] || t_fail "crate did not appear on the bus"
	len=$($B get-property $N $OBJ $P Metadata | grep -o '"mpris:length" x [0-9]*' | awk '{print $3}')
	[ "${len:-0}" -eq $(((S3 - S2) * 1000 / 44100 * 1000)) ] || t_fail "length $len is not track 2's"
	$B call $N $OBJ $P Seek x 1500000 || t_fail "Seek call"
	for i in $(seq 1 50); do
		pos=$($B get-property $N $OBJ $P Position 2>/dev/null | awk '{print $2}')
		[ "${pos:-0}" -ge 1500000 ] && break
		sleep 0.05
	done
	[ "${pos:-0}" -ge 1500000 ] && [ "${pos:-0}" -lt "${len:-0}" ] ||
		t_fail "position $pos after +1.5 s is not inside the track (length $len)"
	wait $CPID || t_fail "play: $(cat "$T_TMP/err")"
	slice "$S2" "$S3" >"$T_TMP/track2.raw"
	# What played: the track's start, then (after the seek) its rest to the
	# end exactly, each an exact run of the track's samples.
	python3 - "$T_TMP/out.raw" "$T_TMP/track2.raw" <<'EOF' || t_fail "output is not track 2 with a jump forward"
import sys
out = open(sys.argv[1], "rb").read()
ref = open(sys.argv[2], "rb").read()
head = 0
while head < len(out) and head < len(ref) and out[head] == ref[head]:
    head += 1
head -= head % 4
tail = len(out) - head
target = (len(ref) - tail) // 4
# +1.5 s from the position heard (the device's buffer was written ahead)
ok = head > 0 and tail > 0 and out[head:] == ref[len(ref) - tail:] and \
    1.5 * 44100 <= target <= 2.0 * 44100 and target > head // 4
if not ok:
    print(f"    played {head // 4} samples, then {tail // 4} from {target}", file=sys.stderr)
sys.exit(0 if ok else 1)
EOF
else
	t_skip "needs dbus-daemon, busctl and crate built with MPRIS"
fi

t_begin cue_embedded_cuesheet_tag_splits_the_file
E=$T_TMP/embedded
mkdir -p "$E"
ffmpeg -nostdin -v error -y -f lavfi -i 'anoisesrc=d=4:r=44100:seed=9' -ac 2 -sample_fmt s16 \
	-metadata CUESHEET="$(printf 'PERFORMER "Emb"\nTITLE "Inside"\nFILE "x.wav" WAVE\nTRACK 01 AUDIO\nTITLE "One"\nINDEX 01 00:00:00\nTRACK 02 AUDIO\nTITLE "Two"\nINDEX 01 00:01:50\n')" \
	"$E/e.flac"
run scan "$E" >"$T_TMP/scan.out" 2>&1 || t_fail "scan: $(cat "$T_TMP/scan.out")"
got=$(run search --order tracknr --format '%url%|%title%|%album%' 'l:Inside' 2>&1)
[ "$got" = "$E/e.flac#1|One|Inside
$E/e.flac#2|Two|Inside" ] || t_fail "items: $got"
run info "$(run search --format '%id%' 't:Two')" | grep -q '^cuesheet' && t_fail "the CUESHEET tag is kept on the tracks"
run scan "$E" >"$T_TMP/scan.out" 2>&1
grep -q "1 unchanged" "$T_TMP/scan.out" || t_fail "a rescan read it again: $(tail -1 "$T_TMP/scan.out")"

t_begin cue_sheet_named_otherwise_is_found_by_its_file_line
# A rip's sheet named after the album ("Mira Sol - Tides.cue") whose FILE
# line names the image ("CDImage.wav", the .flac beside it): used, as MPD
# and foobar2000 use it. Another file's own sheet (other.cue beside
# other.flac) names it too but stays that file's.
N=$T_TMP/named
mkdir -p "$N"
ffmpeg -nostdin -v error -y -f lavfi -i 'sine=f=440:d=4' -ac 2 -metadata title="Image" "$N/CDImage.flac"
ffmpeg -nostdin -v error -y -f lavfi -i 'sine=f=220:d=4' -ac 2 -metadata title="Other" "$N/other.flac"
printf 'PERFORMER "Mira Sol"\nTITLE "Tides"\nFILE "CDImage.wav" WAVE\nTRACK 01 AUDIO\nTITLE "Ebb"\nINDEX 01 00:00:00\nTRACK 02 AUDIO\nTITLE "Flow"\nINDEX 01 00:02:00\n' \
	>"$N/Mira Sol - Tides.cue"
printf 'FILE "CDImage.flac" WAVE\nTRACK 01 AUDIO\nTITLE "Not Mine"\nINDEX 01 00:00:00\nTRACK 02 AUDIO\nTITLE "Nor This"\nINDEX 01 00:01:00\n' \
	>"$N/other.cue"
run scan "$N" >"$T_TMP/scan.out" 2>&1 || t_fail "scan: $(cat "$T_TMP/scan.out")"
got=$(run search --order url --format '%url%|%title%' 'u~named/' 2>&1)
[ "$got" = "$N/CDImage.flac#1|Ebb
$N/CDImage.flac#2|Flow
$N/other.flac#1|Not Mine
$N/other.flac#2|Nor This" ] || t_fail "items: $got"

t_begin cue_sheet_edited_within_the_second_of_its_scan_is_read_again
# A sheet fixed right after a scan (the watch scans 400 ms after a save)
# keeps its size and, on a fast hand, the second of its mtime.
SAME=$T_TMP/same
mkdir -p "$SAME"
ffmpeg -nostdin -v error -y -f lavfi -i 'sine=f=440:d=4' -ac 2 "$SAME/Rip.flac"
sheet() { printf 'FILE "Rip.wav" WAVE\nTRACK 01 AUDIO\nTITLE "%s"\nINDEX 01 00:00:00\nTRACK 02 AUDIO\nTITLE "%s"\nINDEX 01 00:02:00\n' "$1" "$2" >"$SAME/Rip.cue"; }
sheet Sunrise Sunset
touch -d '2024-05-01 12:00:00.100' "$SAME/Rip.flac" "$SAME/Rip.cue"
run scan "$SAME" >"$T_TMP/scan.out" 2>&1 || t_fail "scan: $(cat "$T_TMP/scan.out")"
sheet Daybreak Twilit
touch -d '2024-05-01 12:00:00.700' "$SAME/Rip.cue"
run scan "$SAME" >"$T_TMP/scan.out" 2>&1 || t_fail "rescan: $(cat "$T_TMP/scan.out")"
grep -q "1 updated" "$T_TMP/scan.out" || t_fail "the edited sheet was not read: $(tail -1 "$T_TMP/scan.out")"
got=$(run search --order tracknr --format '%title%' 'u~same/' | tr '\n' ' ')
[ "$got" = "Daybreak Twilit " ] || t_fail "titles after the edit: $got"
run scan "$SAME" >"$T_TMP/scan.out" 2>&1
grep -q "1 unchanged" "$T_TMP/scan.out" || t_fail "not unchanged after: $(tail -1 "$T_TMP/scan.out")"

t_begin cue_sheet_deleted_makes_the_file_whole_again
# A sheet older than its audio (written first, as rippers do, or copied
# with its date) and then deleted: the file is one item again, its tracks
# missing. The next scan kept the tracks (README told to touch the audio).
DEL=$T_TMP/deleted
mkdir -p "$DEL"
ffmpeg -nostdin -v error -y -f lavfi -i 'sine=f=330:d=4' -ac 2 -metadata title="Whole Rip" "$DEL/Rip.flac"
printf 'FILE "Rip.wav" WAVE\nTRACK 01 AUDIO\nTITLE "Part One"\nINDEX 01 00:00:00\nTRACK 02 AUDIO\nTITLE "Part Two"\nINDEX 01 00:02:00\n' >"$DEL/Rip.cue"
touch -d '2024-05-01 12:00:00' "$DEL/Rip.cue"
touch -d '2024-05-01 12:05:00' "$DEL/Rip.flac"
run scan "$DEL" >"$T_TMP/scan.out" 2>&1 || t_fail "scan: $(cat "$T_TMP/scan.out")"
got=$(run search --order tracknr --format '%title%' 'u~deleted/' | tr '\n' '|')
[ "$got" = "Part One|Part Two|" ] || t_fail "split: $got"
rm "$DEL/Rip.cue"
run scan "$DEL" >"$T_TMP/scan.out" 2>&1 || t_fail "rescan: $(cat "$T_TMP/scan.out")"
grep -q "1 updated" "$T_TMP/scan.out" || t_fail "the file was not read again: $(tail -1 "$T_TMP/scan.out")"
got=$(run search --format '%url%|%title%' 'u~deleted/')
[ "$got" = "$DEL/Rip.flac|Whole Rip" ] || t_fail "after the sheet went: $got"
run scan "$DEL" >"$T_TMP/scan.out" 2>&1
grep -q "1 unchanged" "$T_TMP/scan.out" || t_fail "not unchanged after: $(tail -1 "$T_TMP/scan.out")"

t_begin cue_split_file_moved_with_its_sheet_keeps_its_ids
# An album folder (image + sheet) moved or renamed: its tracks keep their
# ids, rating and playlist places, as a moved file does. They used to be
# added anew, the old tracks left missing.
MV=$T_TMP/moves
mkdir -p "$MV/Incoming/Rip"
ffmpeg -nostdin -v error -y -f lavfi -i 'sine=f=550:d=4' -ac 2 -metadata title="Moving Rip" "$MV/Incoming/Rip/Rip.flac"
printf 'FILE "Rip.wav" WAVE\nTRACK 01 AUDIO\nTITLE "Going"\nINDEX 01 00:00:00\nTRACK 02 AUDIO\nTITLE "Gone"\nINDEX 01 00:02:00\n' >"$MV/Incoming/Rip/Rip.cue"
run scan "$MV" >"$T_TMP/scan.out" 2>&1 || t_fail "scan: $(cat "$T_TMP/scan.out")"
before=$(run search --order tracknr --format '%id%' 'u~moves/' | tr '\n' ' ')
run rate 't:Going' 5 >/dev/null 2>&1 || t_fail "rate"
run playlist new Moves >/dev/null 2>&1 && run playlist add Moves 't:Gone' >/dev/null 2>&1 || t_fail "playlist"
mkdir -p "$MV/Library"
mv "$MV/Incoming/Rip" "$MV/Library/Mira Sol - Rip"
run scan "$MV" >"$T_TMP/scan.out" 2>&1 || t_fail "rescan: $(cat "$T_TMP/scan.out")"
grep -q "0 added, 1 updated" "$T_TMP/scan.out" || t_fail "the move: $(tail -1 "$T_TMP/scan.out")"
after=$(run search --order tracknr --format '%id%' 'u~moves/' | tr '\n' ' ')
[ "$after" = "$before" ] || t_fail "ids: [$before] -> [$after]"
got=$(run search --order tracknr --format '%url%|%rating%' 'u~moves/')
[ "$got" = "$MV/Library/Mira Sol - Rip/Rip.flac#1|5
$MV/Library/Mira Sol - Rip/Rip.flac#2|" ] || t_fail "after the move: $got"
n=$(sqlite3 "$DB" "SELECT count(*) FROM media WHERE CAST(url AS TEXT) LIKE '$MV/%'" 2>/dev/null || echo x)
[ "$n" = 2 ] || t_fail "$n rows for the two tracks"
pl=$(run playlist list Moves 2>&1)
grep -q "Gone" <<<"$pl" && ! grep -q "missing" <<<"$pl" || t_fail "the playlist: $pl"

t_begin cue_bad_sheets_are_per_file_errors_and_the_audio_is_indexed_whole
BAD=$T_TMP/bad
mkdir -p "$BAD"
for n in backwards nofile many; do
	ffmpeg -nostdin -v error -y -f lavfi -i 'sine=f=440:d=3' -ac 2 -metadata title="Whole $n" "$BAD/$n.flac"
done
printf 'FILE "backwards.wav" WAVE\nTRACK 01 AUDIO\nINDEX 01 00:02:00\nTRACK 02 AUDIO\nINDEX 01 00:01:00\n' >"$BAD/backwards.cue"
printf 'TITLE "No file"\nTRACK 01 AUDIO\nINDEX 01 00:00:00\n' >"$BAD/nofile.cue"
{ echo 'FILE "many.wav" WAVE'; for i in $(seq 1 999); do printf 'TRACK %03d AUDIO\nINDEX 01 %02d:%02d:00\n' "$i" $((i / 60)) $((i % 60)); done; } >"$BAD/many.cue"
run scan "$BAD" >"$T_TMP/scan.out" 2>&1; rc=$?
[ $rc -eq 2 ] || t_fail "scan exit $rc (want 2)"
grep -q "backwards.cue: line 5: INDEX at 00:01:00 is before the previous index (00:02:00)" "$T_TMP/scan.out" ||
	t_fail "backwards: $(cat "$T_TMP/scan.out")"
grep -q "nofile.cue: line 2: TRACK before any FILE line" "$T_TMP/scan.out" || t_fail "no FILE: $(cat "$T_TMP/scan.out")"
grep -q "many.cue: line 200: track 100: a cue sheet holds tracks 1 to 99" "$T_TMP/scan.out" || t_fail "999 tracks: $(cat "$T_TMP/scan.out")"
grep -q "indexed as one item" "$T_TMP/scan.out" || t_fail "does not say the audio is indexed whole"
grep -q "3 added.*0 failed, 3 cue sheets not used" "$T_TMP/scan.out" || t_fail "summary: $(tail -1 "$T_TMP/scan.out")"
got=$(run search --order title --format '%url%|%title%' 'u~bad/' 2>&1)
[ "$got" = "$BAD/backwards.flac|Whole backwards
$BAD/many.flac|Whole many
$BAD/nofile.flac|Whole nofile" ] || t_fail "whole files: $got"

t_begin cue_tracks_exported_say_that_only_crate_reads_them
# playlist export writes a cue track as its url, X.flac#2, as MPD's saved
# playlists name its own X.cue/track0002: crate imports it back, but no
# other player finds such a file, and the export said nothing of it.
EX=$T_TMP/export
mkdir -p "$EX"
ffmpeg -nostdin -v error -y -f lavfi -i 'sine=f=440:d=4' -ac 2 "$EX/CD.flac"
printf 'FILE "CD.wav" WAVE\nTRACK 01 AUDIO\nTITLE One\nINDEX 01 00:00:00\nTRACK 02 AUDIO\nTITLE Two\nINDEX 01 00:02:00\n' >"$EX/CD.cue"
run scan --quiet "$EX" >/dev/null 2>&1 || t_fail "scan"
run playlist new CueOut >/dev/null 2>&1 && run playlist add CueOut "u~$EX/" >/dev/null 2>&1 || t_fail "playlist"
run playlist export CueOut "$T_TMP/cue.m3u8" >"$T_TMP/out" 2>&1 || t_fail "export: exit $?: $(cat "$T_TMP/out")"
[ "$(head -1 "$T_TMP/out")" = "crate: warning: 2 entries of Playlists/CueOut are tracks of cue sheets, written as FILE#N (FILE.flac#2), which crate reads back and other players do not" ] ||
	t_fail "export says: $(cat "$T_TMP/out")"
[ "$(tail -1 "$T_TMP/out")" = "exported Playlists/CueOut to $T_TMP/cue.m3u8: 2 entries" ] || t_fail "summary: $(cat "$T_TMP/out")"
grep -qx "$EX/CD.flac#2" "$T_TMP/cue.m3u8" || t_fail "the file: $(cat "$T_TMP/cue.m3u8")"
run playlist import CueBack "$T_TMP/cue.m3u8" >/dev/null 2>&1 || t_fail "import back"
[ "$(run playlist list CueBack --format '%title%')" = "One
Two" ] || t_fail "read back: $(run playlist list CueBack 2>&1)"

t_begin cue_split_file_named_by_a_playlist_imports_as_its_tracks
# A playlist of another player naming the album's image (CD.flac, as
# crate play FILE takes it) was refused: "CD.flac: not playable (see
# crate scan)", exit 2, though crate plays the file as its tracks.
printf '#EXTM3U\n#EXTINF:4,Album\nexport/CD.flac\n' >"$T_TMP/image.m3u"
out=$(run playlist import Image "$T_TMP/image.m3u" 2>&1) || t_fail "import: exit $?: $out"
grep -q "1 of 1 entry imported (0 newly scanned; 1 file split by its cue sheet, as 2 tracks), 0 not imported" <<<"$out" ||
	t_fail "says: $out"
[ "$(run playlist list Image --format '%title%')" = "One
Two" ] || t_fail "entries: $(run playlist list Image 2>&1)"
# one not scanned yet is scanned on the way, then split
mkdir -p "$T_TMP/new"
cp "$EX/CD.flac" "$EX/CD.cue" "$T_TMP/new/"
printf '%s\n' "$T_TMP/new/CD.flac" >"$T_TMP/new.m3u"
out=$(run playlist import New "$T_TMP/new.m3u" 2>&1) || t_fail "import new: exit $?: $out"
[ "$(run playlist list New --format '%url%')" = "$T_TMP/new/CD.flac#1
$T_TMP/new/CD.flac#2" ] || t_fail "new: $(run playlist list New --format '%url%' 2>&1) ($out)"

t_begin cue_tracks_named_as_mpd_names_them_are_imported
# MPD's saved playlists name a cue sheet's track CD.cue/track0002
# (relative to its music folder, a root here): "Not a directory".
mkdir -p "$T_TMP/mpdlists"
printf 'CD.cue/track0002\n%s/CD.cue/track0001\nCD.cue/track0009\n' "$EX" >"$T_TMP/mpdlists/cue.m3u"
out=$(run playlist import MpdCue "$T_TMP/mpdlists/cue.m3u" 2>&1); rc=$?
[ $rc -eq 2 ] || t_fail "exit $rc: $out"
[ "$(run playlist list MpdCue --format '%title%')" = "Two
One" ] || t_fail "entries: $(run playlist list MpdCue 2>&1) ($out)"
grep -q "cue.m3u:3: $EX/CD.cue/track0009: a track of a cue sheet that the library does not have" <<<"$out" ||
	t_fail "track 9: $out"

t_begin cue_sheet_named_instead_of_its_audio_file
# The sheet given where its audio is taken: crate play --no-ui CD.cue said
# "CD.cue: End of file" (FFmpeg opened the text as audio), info said "not
# in the library", and a playlist entry CD.cue "not playable".
out=$(run info "$EX/CD.cue" 2>&1) || t_fail "info: exit $?: $out"
[ "$(head -1 <<<"$out")" = "$EX/CD.cue: a cue sheet of 2 tracks:" ] || t_fail "info: $out"
out=$(run play --no-ui "$EX/CD.cue" 2>&1) || t_fail "play: exit $?: $out"
[ "$out" = "One
Two" ] || t_fail "play: $out"
mkdir -p "$T_TMP/sheet"
cp "$EX/CD.flac" "$EX/CD.cue" "$T_TMP/sheet/"
out=$(run play --no-ui "$T_TMP/sheet/CD.cue" 2>&1) && t_fail "play of a sheet not scanned: exit 0: $out"
grep -q "CD.cue: a cue sheet, whose audio file $T_TMP/sheet/CD.flac is not in the library" <<<"$out" ||
	t_fail "play of a sheet not scanned: $out"
printf 'sheet/CD.cue\n' >"$T_TMP/sheet.m3u"
out=$(run playlist import Sheet "$T_TMP/sheet.m3u" 2>&1) || t_fail "import: exit $?: $out"
[ "$(run playlist list Sheet --format '%url%')" = "$T_TMP/sheet/CD.flac#1
$T_TMP/sheet/CD.flac#2" ] || t_fail "import: $(run playlist list Sheet --format '%url%' 2>&1) ($out)"
printf 'FILE "Gone.wav" WAVE\nTRACK 01 AUDIO\nINDEX 01 00:00:00\n' >"$T_TMP/sheet/Gone.cue"
printf 'sheet/Gone.cue\n' >"$T_TMP/gone.m3u"
out=$(run playlist import Gone "$T_TMP/gone.m3u" 2>&1); rc=$?
[ $rc -eq 2 ] && grep -q "gone.m3u:1: .*Gone.cue: a cue sheet whose audio file is not in its folder" <<<"$out" ||
	t_fail "a sheet without its audio: exit $rc: $out"
t_end
