#!/usr/bin/env bash
# crate play --no-ui: headless playback to ALSA's file plugin.
. "$(dirname "$0")/../lib.sh"

H=$T_TMP/home; mkdir -p "$T_TMP/m"
t_sink_home "$H" "$T_TMP/out.raw"
: > "$T_TMP/config"
run() { HOME=$H timeout 60 "$CRATE" --db "$T_TMP/db" --config "$T_TMP/config" "$@"; }
for i in 1 2; do
	ffmpeg -nostdin -v quiet -y -f lavfi -i "sine=f=${i}00:d=0.5" -ac 2 -metadata artist="Art$i" \
		-metadata title="Tune $i" "$T_TMP/m/t$i.flac"
done

t_begin play_files_prints_and_outputs_exact_audio
out=$(run play --no-ui "$T_TMP/m/t1.flac" 2>"$T_TMP/err"); rc=$?
[ $rc -eq 0 ] || t_fail "exit $rc: $(cat "$T_TMP/err")"
[ "$out" = "t1.flac" ] || t_fail "printed '$out'"
ffmpeg -nostdin -v quiet -i "$T_TMP/m/t1.flac" -f s16le -ac 2 -ar 44100 "$T_TMP/ref.raw"
cmp -s "$T_TMP/out.raw" "$T_TMP/ref.raw" || t_fail "output differs from ffmpeg's decoding"

t_begin play_query_from_library_prints_artist_title
run scan "$T_TMP/m" >/dev/null 2>&1 || t_fail "scan failed"
out=$(run play --no-ui 'artist:Art2' 2>"$T_TMP/err"); rc=$?
[ $rc -eq 0 ] || t_fail "exit $rc: $(cat "$T_TMP/err")"
[ "$out" = "Art2 - Tune 2" ] || t_fail "printed '$out'"

t_begin failed_files_exit_2_and_are_named
printf 'not audio' > "$T_TMP/m/junk.mp3"
out=$(run play --no-ui "$T_TMP/m/t1.flac" "$T_TMP/m/junk.mp3" "$T_TMP/m/t2.flac" 2>"$T_TMP/err"); rc=$?
[ $rc -eq 2 ] || t_fail "exit $rc"
grep -q 'junk.mp3' "$T_TMP/err" || t_fail "stderr does not name junk.mp3: $(cat "$T_TMP/err")"
[ "$(printf '%s\n' "$out" | wc -l)" -eq 2 ] || t_fail "expected two tracks: $out"

t_begin missing_device_exits_1_with_message
run play --no-ui --device nosuchdevice "$T_TMP/m/t1.flac" >/dev/null 2>"$T_TMP/err"; rc=$?
[ $rc -eq 1 ] || t_fail "exit $rc"
grep -q "nosuchdevice" "$T_TMP/err" || t_fail "no device name in: $(cat "$T_TMP/err")"

t_begin play_without_no_ui_is_refused
run play "$T_TMP/m/t1.flac" >/dev/null 2>&1 && t_fail "accepted"

t_end
