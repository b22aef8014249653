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

t_begin a_pipe_device_whose_reader_leaves_does_not_kill_the_player
# ALSA's file plugin into a FIFO (how a snapcast server is fed): its
# reader going away mid-track killed crate with SIGPIPE (exit 141, not a
# word; the interface vanished the same way). The write now fails, and
# that is the audio device failing: said, exit 1, as a device that goes
# away is.
P=$T_TMP/pipehome; mkdir -p "$P"; mkfifo "$P/sink.fifo"
printf 'pcm.!default { type file; slave.pcm "null"; file "%s"; format "raw" }\n' "$P/sink.fifo" >"$P/.asoundrc"
ffmpeg -nostdin -v quiet -y -f lavfi -i "sine=f=300:d=3" -ac 2 "$T_TMP/m/long.flac"
head -c 65536 <"$P/sink.fifo" >/dev/null & # reads a little, then leaves
rdr=$!
HOME=$P timeout 60 "$CRATE" --db "$T_TMP/db" --config "$T_TMP/config" play --no-ui \
	"$T_TMP/m/long.flac" "$T_TMP/m/t1.flac" >"$T_TMP/pipe.out" 2>"$T_TMP/pipe.err"; rc=$?
wait $rdr
[ $rc -eq 1 ] || t_fail "exit $rc (141: killed by SIGPIPE): $(cat "$T_TMP/pipe.err")"
grep -q "audio device 'default': write failed" "$T_TMP/pipe.err" || t_fail "said: $(cat "$T_TMP/pipe.err")"

t_begin play_query_from_library_prints_artist_title
run scan "$T_TMP/m" >/dev/null 2>&1 || t_fail "scan failed"
out=$(run play --no-ui 'artist:Art2' 2>"$T_TMP/err"); rc=$?
[ $rc -eq 0 ] || t_fail "exit $rc: $(cat "$T_TMP/err")"
[ "$out" = "Art2 - Tune 2" ] || t_fail "printed '$out'"

t_begin play_query_forgives_as_search
# A field:value that finds nothing falls back to its words, as `crate
# search` does and says; --exact plays nothing.
out=$(run play --no-ui 't:tune' 2>"$T_TMP/err"); rc=$?
[ $rc -eq 0 ] || t_fail "t:tune: exit $rc: $(cat "$T_TMP/err")"
[ "$out" = "Art1 - Tune 1
Art2 - Tune 2" ] || t_fail "t:tune printed '$out' (library order)"
grep -q "no title 'tune'" "$T_TMP/err" || t_fail "t:tune did not say what it forgave: $(cat "$T_TMP/err")"
run play --no-ui --exact 't:tune' >/dev/null 2>"$T_TMP/err"; rc=$?
[ $rc -eq 1 ] || t_fail "--exact t:tune: exit $rc"

t_begin failed_files_exit_2_and_are_named
printf 'not audio' > "$T_TMP/m/junk.mp3"
out=$(run play --no-ui "$T_TMP/m/t1.flac" "$T_TMP/m/junk.mp3" "$T_TMP/m/t2.flac" 2>"$T_TMP/err"); rc=$?
[ $rc -eq 2 ] || t_fail "exit $rc"
grep -q 'junk.mp3' "$T_TMP/err" || t_fail "stderr does not name junk.mp3: $(cat "$T_TMP/err")"
[ "$(printf '%s\n' "$out" | wc -l)" -eq 2 ] || t_fail "expected two tracks: $out"

t_begin a_file_that_is_no_audio_is_said_so_as_the_scan_says_it
# A file FFmpeg cannot open was named with FFmpeg's word alone ("x.flac:
# End of file", "x.mp3: Invalid argument"), which does not say the file
# is the trouble; the scan said "not audio" and "empty file" already.
: >"$T_TMP/m/empty.mp3"
head -c 3000 "$T_TMP/m/t1.flac" >"$T_TMP/m/cut.flac"
out=$(run play --no-ui "$T_TMP/m/empty.mp3" "$T_TMP/m/cut.flac" "$T_TMP/m/t2.flac" 2>"$T_TMP/err"); rc=$?
[ $rc -eq 2 ] && [ "$out" = "Art2 - Tune 2" ] || t_fail "exit $rc, played: $out"
grep -q "empty.mp3: empty file (0 bytes)$" "$T_TMP/err" || t_fail "empty: $(cat "$T_TMP/err")"
grep -q "cut.flac: not audio (FFmpeg cannot open it): " "$T_TMP/err" || t_fail "cut: $(cat "$T_TMP/err")"

t_begin a_file_outside_the_library_plays_at_its_replaygain
# ReplayGain came from the library only: a file played by its path before
# any scan played at full level, its REPLAYGAIN_TRACK_GAIN ignored.
peak() { od -An -v -td2 -w2 "$1" | awk '{ v = $1 < 0 ? -$1 : $1; if (v > m) m = v } END { print m + 0 }'; }
ffmpeg -nostdin -v quiet -y -i "$T_TMP/m/t1.flac" -metadata REPLAYGAIN_TRACK_GAIN="-6.0206 dB" \
	"$T_TMP/m/outside.flac"
printf '[playback]\nreplaygain = track\n' >"$T_TMP/rg.conf"
rm -f "$T_TMP/out.raw"
HOME=$H timeout 60 "$CRATE" --db "$T_TMP/rg.db" --config "$T_TMP/rg.conf" play --no-ui \
	"$T_TMP/m/outside.flac" >/dev/null 2>"$T_TMP/err" || t_fail "play: $(cat "$T_TMP/err")"
full=$(peak "$T_TMP/ref.raw") got=$(peak "$T_TMP/out.raw")
[ $((full / 2 - got)) -le 1 ] && [ $((got - full / 2)) -le 1 ] ||
	t_fail "peak $got, full level $full: not halved"

t_begin a_replaygain_tag_out_of_range_is_ignored
# REPLAYGAIN_TRACK_GAIN=+200 dB on a library track was clamped to +51 dB,
# not ignored as README says: a quiet file played as a full-scale square
# wave. Ignored, the track plays as it is, sample for sample.
ffmpeg -nostdin -v quiet -y -i "$T_TMP/m/t1.flac" -metadata REPLAYGAIN_TRACK_GAIN="+200 dB" \
	-metadata title=Wild "$T_TMP/m/wild.flac"
HOME=$H timeout 60 "$CRATE" --db "$T_TMP/rg.db" --config "$T_TMP/rg.conf" scan --quiet \
	"$T_TMP/m/wild.flac" 2>"$T_TMP/err" || t_fail "scan: $(cat "$T_TMP/err")"
rm -f "$T_TMP/out.raw"
HOME=$H timeout 60 "$CRATE" --db "$T_TMP/rg.db" --config "$T_TMP/rg.conf" play --no-ui \
	't:Wild' >/dev/null 2>"$T_TMP/err" || t_fail "play: $(cat "$T_TMP/err")"
cmp -s "$T_TMP/out.raw" "$T_TMP/ref.raw" || t_fail "not played as it is: peak $(peak "$T_TMP/out.raw")"

t_begin an_opus_r128_gain_is_its_replaygain
# Opus files carry R128_TRACK_GAIN (1/256 dB towards -23 LUFS), what
# opusgain and beets write for them instead of REPLAYGAIN_*: it was
# ignored, such files played at full level. -2816 is -11 dB, -6 dB
# against ReplayGain's -18 LUFS: half the amplitude.
if ! ffmpeg -nostdin -v quiet -y -f lavfi -i "sine=f=300:d=1" -ac 2 -c:a libopus \
	-metadata R128_TRACK_GAIN=-2816 -metadata title=Opal "$T_TMP/m/opal.opus"; then
	t_skip "this ffmpeg cannot encode Opus"
else
	printf '[output]\nformat = s16\n' >"$T_TMP/s16.conf"
	printf '[playback]\nreplaygain = track\n[output]\nformat = s16\n' >"$T_TMP/s16rg.conf"
	HOME=$H timeout 60 "$CRATE" --db "$T_TMP/rg.db" --config "$T_TMP/s16.conf" scan --quiet \
		"$T_TMP/m/opal.opus" 2>"$T_TMP/err" || t_fail "scan: $(cat "$T_TMP/err")"
	opal_peak() {
		rm -f "$T_TMP/out.raw"
		HOME=$H timeout 60 "$CRATE" --db "$T_TMP/rg.db" --config "$T_TMP/$1.conf" play --no-ui \
			't:Opal' >/dev/null 2>"$T_TMP/err" || t_fail "play: $(cat "$T_TMP/err")"
		peak "$T_TMP/out.raw"
	}
	full=$(opal_peak s16) got=$(opal_peak s16rg)
	[ "$full" -gt 1000 ] && [ $((2 * got - full)) -le $((full / 50)) ] &&
		[ $((full - 2 * got)) -le $((full / 50)) ] || t_fail "peak $got, full level $full: not halved"
fi

t_begin a_missing_file_among_files_is_named_and_the_rest_plays
# A typo in one of the files named made the whole line a query: "nothing
# matches '.../t1.flac .../nope.flac': nothing to play", exit 1, nothing
# played. The missing one fails as a broken file does.
out=$(run play --no-ui "$T_TMP/m/t1.flac" "$T_TMP/m/nope.flac" 2>"$T_TMP/err"); rc=$?
[ $rc -eq 2 ] || t_fail "exit $rc: $(cat "$T_TMP/err")"
[ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] || t_fail "played: $out"
grep -q "nope.flac: No such file or directory" "$T_TMP/err" || t_fail "said: $(cat "$T_TMP/err")"
run play --no-ui "$T_TMP/m/nope.flac" >/dev/null 2>"$T_TMP/err"; rc=$?
[ $rc -eq 1 ] && grep -q "nope.flac: No such file or directory" "$T_TMP/err" ||
	t_fail "alone: exit $rc: $(cat "$T_TMP/err")"

t_begin missing_device_exits_1_with_message
run play --no-ui --device nosuchdevice "$T_TMP/m/t1.flac" >/dev/null 2>"$T_TMP/err"; rc=$?
[ $rc -eq 1 ] || t_fail "exit $rc"
grep -q "nosuchdevice" "$T_TMP/err" || t_fail "no device name in: $(cat "$T_TMP/err")"

t_begin headless_play_answers_crate_remote
# Over SSH there may be no D-Bus: the headless player listens on the control
# socket as the interface does (it answered "no running crate").
printf '[output]\npace = true\n' >"$T_TMP/paced"
for i in 3 4; do
	ffmpeg -nostdin -v quiet -y -f lavfi -i "sine=f=${i}00:d=30" -ac 2 -metadata artist="Art$i" \
		-metadata title="Long $i" "$T_TMP/m/long$i.flac"
done
export XDG_RUNTIME_DIR=$T_TMP/run
mkdir -p "$XDG_RUNTIME_DIR" && chmod 700 "$XDG_RUNTIME_DIR"
remote() { HOME=$H timeout 10 "$CRATE" remote "$@" 2>&1; }
HOME=$H timeout 60 "$CRATE" --db "$T_TMP/db" --config "$T_TMP/paced" play --no-ui \
	"$T_TMP/m/long3.flac" "$T_TMP/m/long4.flac" >"$T_TMP/hl.out" 2>"$T_TMP/hl.err" &
pid=$!
for i in $(seq 100); do remote status >/dev/null && break; sleep 0.1; done
out=$(remote status) || t_fail "remote status: $out"
case $out in *"state: playing"*) ;; *) t_fail "status: $out" ;; esac
out=$(remote pause) || t_fail "remote pause: $out"
out=$(remote status); case $out in *"state: paused"*) ;; *) t_fail "after pause: $out" ;; esac
remote play >/dev/null || t_fail "remote play"
# seek as :seek takes it (a hotkey's `crate remote seek +10`)
pos() { remote status | sed -n 's/^position: \([0-9:]*\) .*/\1/p'; }
remote seek 20 >/dev/null || t_fail "remote seek 20: $(remote seek 20)"
for i in $(seq 30); do case $(pos) in 0:2[0-3]) break ;; esac; sleep 0.1; done
case $(pos) in 0:2[0-3]) ;; *) t_fail "after seek 20: $(pos)" ;; esac
remote seek -0:10 >/dev/null || t_fail "remote seek -0:10"
for i in $(seq 30); do case $(pos) in 0:1[0-3]) break ;; esac; sleep 0.1; done
case $(pos) in 0:1[0-3]) ;; *) t_fail "after seek -0:10: $(pos)" ;; esac
out=$(remote seek 1:99); [ $? -eq 1 ] && grep -q "'1:99' is not a position" <<<"$out" ||
	t_fail "a bad position: $out"
# A bad volume is said as :vol says it (it answered with the usage).
out=$(remote vol 150); [ $? -eq 1 ] && grep -q "vol: 150 is not a volume (0-100, +N or -N)" <<<"$out" ||
	t_fail "vol 150: $out"
out=$(remote vol loud); [ $? -eq 1 ] && grep -q "vol: 'loud' is not a number" <<<"$out" ||
	t_fail "vol loud: $out"
remote next >/dev/null || t_fail "remote next"
for i in $(seq 50); do grep -q 'Long 4' "$T_TMP/hl.out" && break; sleep 0.1; done
grep -q 'Art4 - Long 4\|long4.flac' "$T_TMP/hl.out" || t_fail "next did not start the second file: $(cat "$T_TMP/hl.out")"
remote stop >/dev/null || t_fail "remote stop"
for i in $(seq 50); do kill -0 $pid 2>/dev/null || break; sleep 0.1; done
if kill -0 $pid 2>/dev/null; then
	t_fail "still playing 5 s after remote stop"
	kill $pid
fi
wait $pid; rc=$?
[ $rc -eq 0 ] || t_fail "exit $rc after remote stop: $(cat "$T_TMP/hl.err")"
[ ! -e "$XDG_RUNTIME_DIR/crate/socket" ] || t_fail "the control socket is left behind"
remote status >/dev/null && t_fail "remote status answered after the player ended"

t_begin headless_play_says_pause_and_resume
# What the player printed during the remote session above: each track, and
# the pause and the resume as indented words, never a blank line.
grep -q '^ *$' "$T_TMP/hl.out" && t_fail "a blank line in the output: $(cat -A "$T_TMP/hl.out")"
[ "$(grep '^  ' "$T_TMP/hl.out")" = "  paused
  resumed" ] || t_fail "pause and resume not said: $(cat "$T_TMP/hl.out")"
t_begin headless_play_follows_edits_from_another_shell
# `crate playlist add Queue ...` from another shell while `crate play
# --no-ui` plays: the queued track follows the playing one, as in the
# interface (the headless player never reloaded the lists).
run playlist new Queue --queue >/dev/null 2>&1
HOME=$H timeout 60 "$CRATE" --db "$T_TMP/db" --config "$T_TMP/paced" play --no-ui \
	"$T_TMP/m/long3.flac" "$T_TMP/m/long4.flac" >"$T_TMP/hl.out" 2>"$T_TMP/hl.err" &
pid=$!
for i in $(seq 100); do remote status >/dev/null && break; sleep 0.1; done
run playlist add Queue 'artist:Art2' >/dev/null 2>&1 || t_fail "playlist add Queue"
for i in $(seq 30); do remote status | grep -q '^next: Tune 2$' && break; sleep 0.1; done
remote status | grep -q '^next: Tune 2$' || t_fail "the queued track does not follow: $(remote status)"
remote next >/dev/null || t_fail "remote next"
for i in $(seq 50); do grep -q 'Tune 2' "$T_TMP/hl.out" && break; sleep 0.1; done
grep -qx 'Art2 - Tune 2' "$T_TMP/hl.out" || t_fail "next did not play the queued track: $(cat "$T_TMP/hl.out")"
remote stop >/dev/null
wait $pid

t_begin remote_status_reads_hours_as_the_interface_does
# An hour-long mix: 1:01:40, as the status line and %duration% read it
# (remote status said 61:40).
ffmpeg -nostdin -v quiet -y -f lavfi -i "anullsrc=r=8000:cl=mono" -t 3700 "$T_TMP/m/mix.flac" ||
	t_fail ffmpeg
HOME=$H timeout 60 "$CRATE" --db "$T_TMP/db" --config "$T_TMP/paced" play --no-ui \
	"$T_TMP/m/mix.flac" >/dev/null 2>&1 &
pid=$!
for i in $(seq 100); do remote status | grep -q '^position: ' && break; sleep 0.1; done
remote status | grep -q '^position: 0:0[0-9] / 1:01:40$' || t_fail "status: $(remote status)"
remote stop >/dev/null
wait $pid

t_begin remote_status_names_the_next_track_as_it_names_the_playing_one
# A file without a title tag is named by its file name, next as track:
# next said "(untitled)" for one in the library, and nothing at all for a
# file played by its path that the library does not have.
mkdir -p "$T_TMP/bare"
for i in 5 6; do
	ffmpeg -nostdin -v quiet -y -f lavfi -i "sine=f=${i}00:d=30" -ac 2 "$T_TMP/bare/bare$i.flac"
done
next_line() {
	HOME=$H timeout 60 "$CRATE" --db "$T_TMP/db" --config "$T_TMP/paced" play --no-ui \
		"$T_TMP/bare/bare5.flac" "$T_TMP/bare/bare6.flac" >/dev/null 2>&1 &
	local pid=$!
	for i in $(seq 100); do remote status | grep -q '^track: ' && break; sleep 0.1; done
	for i in $(seq 20); do remote status | grep -q '^next: ' && break; sleep 0.1; done
	remote status | grep '^next: '
	remote stop >/dev/null
	wait $pid
}
out=$(next_line)
[ "$out" = "next: bare6.flac" ] || t_fail "not in the library: '$out'"
run scan "$T_TMP/bare" >/dev/null 2>&1 || t_fail "scan"
out=$(next_line)
[ "$out" = "next: bare6.flac" ] || t_fail "in the library: '$out'"

t_begin headless_next_onto_entries_without_a_file_ends_the_player
# next when what follows has no file any more (forgotten, or its drive
# gone): playback stops there, and crate play --no-ui ended never: the
# stop went unsaid (only the timeout ended it).
run scan "$T_TMP/m" >/dev/null 2>&1 # junk.mp3: exit 2
run playlist new Ends >/dev/null 2>&1
run playlist add Ends 'title:"Long 3"' >/dev/null 2>&1 && run playlist add Ends 'title:"Long 4"' \
	>/dev/null 2>&1 || t_fail "playlist add"
run forget --yes 'title:"Long 4"' >/dev/null 2>&1 || t_fail "forget"
HOME=$H timeout 60 "$CRATE" --db "$T_TMP/db" --config "$T_TMP/paced" play --no-ui Playlists/Ends \
	>"$T_TMP/ends.out" 2>"$T_TMP/ends.err" &
pid=$!
for i in $(seq 100); do remote status | grep -q '^track: ' && break; sleep 0.1; done
remote next >/dev/null
for i in $(seq 50); do kill -0 $pid 2>/dev/null || break; sleep 0.1; done
if kill -0 $pid 2>/dev/null; then
	t_fail "still running 5 s after next: $(remote status)"
	kill $pid # a stop went unsaid too
fi
wait $pid; rc=$?
[ $rc -eq 2 ] || t_fail "exit $rc, not 2 (an entry was skipped): $(cat "$T_TMP/ends.err")"
[ "$(cat "$T_TMP/ends.out")" = "Art3 - Long 3" ] || t_fail "played: $(cat "$T_TMP/ends.out")"

t_begin headless_a_gone_entry_ahead_is_said_once
# The entry after the playing one has no file any more: it was said ("no
# longer in the library") again at every edit of any list from another
# shell, as the follower is chosen again, and once more at next.
run scan "$T_TMP/m" >/dev/null 2>&1 # Long 4 back, a new item; Ends keeps the gone one
run playlist add Ends 'title:"Long 4"' >/dev/null 2>&1 || t_fail "playlist add"
HOME=$H timeout 60 "$CRATE" --db "$T_TMP/db" --config "$T_TMP/paced" play --no-ui Playlists/Ends \
	>"$T_TMP/once.out" 2>"$T_TMP/once.err" &
pid=$!
for i in $(seq 100); do remote status | grep -q '^next: Long 4' && break; sleep 0.1; done
for k in 1 2; do
	run playlist new "Other$k" >/dev/null 2>&1
	sleep 0.6 # the player reloads the lists (every 250 ms) and chooses again
done
remote next >/dev/null
for i in $(seq 50); do grep -q 'Long 4' "$T_TMP/once.out" && break; sleep 0.1; done
remote stop >/dev/null
wait $pid
[ "$(cat "$T_TMP/once.out")" = "Art3 - Long 3
Art4 - Long 4" ] || t_fail "played: $(cat "$T_TMP/once.out")"
[ "$(grep -c 'no longer in the library' "$T_TMP/once.err")" -eq 1 ] ||
	t_fail "said: $(cat "$T_TMP/once.err")"

t_begin play_without_no_ui_is_refused
run play "$T_TMP/m/t1.flac" >/dev/null 2>&1 && t_fail "accepted"

t_begin play_names_tracks_as_remote_status_does
# A track with a title and no artist was "Unknown artist - Tune 5", a
# track with two artists showed the first only, and one without a title
# lost its artist, where crate remote status (and the interface) say
# "Tune 5", "piman; jzig - Silence", "Artist - file.flac".
mkdir -p "$T_TMP/named"
ffmpeg -nostdin -v quiet -y -f lavfi -i "sine=f=500:d=0.3" -ac 2 -metadata title="Tune 5" \
	"$T_TMP/named/t5.flac"
ffmpeg -nostdin -v quiet -y -f lavfi -i "sine=f=600:d=0.3" -ac 2 -metadata artist="Art6" \
	"$T_TMP/named/t6.flac"
run scan "$T_TMP/named" >/dev/null 2>&1 || t_fail "scan failed"
out=$(run play --no-ui 'url~t5.flac OR url~t6.flac' 2>"$T_TMP/err"); rc=$?
[ $rc -eq 0 ] || t_fail "exit $rc: $(cat "$T_TMP/err")"
[ "$out" = "Tune 5
Art6 - t6.flac" ] || t_fail "printed '$out'"
if t_have_corpus; then
	mkdir -p "$T_TMP/two" && cp "$CORPUS/taglib-silence-44-s.flac" "$T_TMP/two/"
	run scan "$T_TMP/two" >/dev/null 2>&1
	out=$(run play --no-ui 'url~taglib-silence-44-s' 2>"$T_TMP/err")
	[ "$out" = "piman; jzig - Silence" ] || t_fail "two artists: '$out'"
fi

t_begin a_signal_stops_the_player_as_remote_stop_does
# SIGTERM (systemctl stop, kill) or Ctrl-C killed crate play --no-ui at
# once: the hook never heard "stop" (a status bar fed by it went on
# showing the track) and the control socket was left behind. It now
# stops as crate remote stop does, then dies of the signal (143), as a
# shell loop around it expects.
printf '#!/bin/sh\necho "$CRATE_EVENT" >>"%s"\n' "$T_TMP/sig.events" >"$T_TMP/sig.sh"
chmod +x "$T_TMP/sig.sh"
printf '[output]\npace = true\n[hooks]\non_change = %s\n' "$T_TMP/sig.sh" >"$T_TMP/sigconf"
export XDG_RUNTIME_DIR=$T_TMP/run
HOME=$H timeout 60 "$CRATE" --db "$T_TMP/db" --config "$T_TMP/sigconf" play --no-ui \
	"$T_TMP/m/long3.flac" >/dev/null 2>"$T_TMP/sig.err" &
pid=$!
for i in $(seq 100); do grep -q track "$T_TMP/sig.events" 2>/dev/null && break; sleep 0.1; done
kill -TERM $pid
wait $pid; rc=$?
[ $rc -eq 143 ] || t_fail "exit $rc: $(cat "$T_TMP/sig.err")"
for i in $(seq 50); do grep -q stop "$T_TMP/sig.events" 2>/dev/null && break; sleep 0.1; done
[ "$(cat "$T_TMP/sig.events")" = "track
stop" ] || t_fail "hook events: $(cat "$T_TMP/sig.events")"
[ ! -e "$XDG_RUNTIME_DIR/crate/socket" ] || t_fail "the control socket is left behind"
unset XDG_RUNTIME_DIR

t_begin a_playlist_file_plays_its_entries
# crate play --no-ui road.m3u opened the playlist as audio: "road.m3u:
# Invalid data found when processing input", exit 1, while a station's
# listen.pls over http played. Its entries play in order; one that is
# missing is named with its line and the others play (exit 2).
printf '#EXTM3U\r\n#EXTINF:1,Art2 - Tune 2\r\nm/t2.flac\r\nm/gone.flac\r\n%s\r\n' "$T_TMP/m/t1.flac" >"$T_TMP/road.m3u"
out=$(run play --no-ui "$T_TMP/road.m3u" 2>"$T_TMP/err"); rc=$?
[ $rc -eq 2 ] || t_fail "exit $rc: $(cat "$T_TMP/err")"
[ "$out" = "Art2 - Tune 2
Art1 - Tune 1" ] || t_fail "played: $out ($(cat "$T_TMP/err"))"
grep -q "road.m3u:4: $T_TMP/m/gone.flac: No such file or directory" "$T_TMP/err" ||
	t_fail "said: $(cat "$T_TMP/err")"

t_end
