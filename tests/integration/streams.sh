#!/usr/bin/env bash
# Streams (issue 18 part 4) from a small HTTP server of this test on
# 127.0.0.1 (tests/data/stream_server.py): playback equals FFmpeg's decoding
# of the same bytes; ICY titles reach the output and the hook; a dropped
# connection reconnects; a stream that never sends audio, or stops sending
# it mid-play, times out with a message; garbage is an error, not a hang;
# a URL is a playlist entry (an item never scanned as a file); a radio
# playlist's URL plays the first stream it lists; a stream's
# end is neither its length nor a play.
. "$(dirname "$0")/../lib.sh"
if ! command -v python3 >/dev/null || ! command -v ffmpeg >/dev/null; then
	t_begin streams_setup; t_skip "needs python3 and ffmpeg"; t_end; exit $?
fi
H=$T_TMP/home
t_sink_home "$H" "$T_TMP/out.raw"
: >"$T_TMP/config"
run() { HOME=$H timeout 60 "$CRATE" --db "$T_TMP/db" --config "$T_TMP/config" "$@"; }
SPID=""
trap 'kill $SPID 2>/dev/null; rm -rf "$T_TMP"' EXIT

t_begin streams_setup
mkdir -p "$T_TMP/srv"
ffmpeg -nostdin -v quiet -y -f lavfi -i "sine=f=440:d=3" -ac 2 -ar 44100 -sample_fmt s16 \
	"$T_TMP/srv/tone.flac" || t_fail ffmpeg
python3 "$SRCDIR/tests/data/stream_server.py" "$T_TMP/srv" "$T_TMP/port" &
SPID=$!
for i in $(seq 1 50); do [ -s "$T_TMP/port" ] && break; sleep 0.1; done
PORT=$(cat "$T_TMP/port" 2>/dev/null)
[ -n "$PORT" ] || t_fail "no server"
U=http://127.0.0.1:$PORT
ffmpeg -nostdin -v quiet -y -f lavfi -i "sine=f=440:d=8" -ac 2 -ar 44100 "$T_TMP/srv/tone.mp3" ||
	t_fail "ffmpeg mp3"
ffmpeg -nostdin -v quiet -i "$T_TMP/srv/tone.flac" -f s16le -ac 2 -ar 44100 "$T_TMP/ref.raw"

t_begin stream_plays_the_same_samples_as_ffmpeg
rm -f "$T_TMP/out.raw"
out=$(run play --no-ui "$U/file/tone.flac" 2>"$T_TMP/err"); rc=$?
[ $rc -eq 0 ] || t_fail "exit $rc: $(cat "$T_TMP/err")"
cmp -s "$T_TMP/out.raw" "$T_TMP/ref.raw" || t_fail "stream output differs from ffmpeg's decoding ($(stat -c %s "$T_TMP/out.raw" 2>/dev/null) vs $(stat -c %s "$T_TMP/ref.raw") bytes)"

t_begin stream_icy_titles_reach_output_and_hook
cat >"$T_TMP/hook.sh" <<EOH
#!/bin/sh
printf '%s|%s\n' "\$CRATE_EVENT" "\$CRATE_TITLE" >>"$T_TMP/hook.out"
EOH
chmod +x "$T_TMP/hook.sh"
printf '[hooks]\non_change = %s\n' "$T_TMP/hook.sh" >"$T_TMP/hookconf"
out=$(HOME=$H timeout 60 "$CRATE" --db "$T_TMP/db" --config "$T_TMP/hookconf" play --no-ui "$U/icy/tone.flac" 2>"$T_TMP/err"); rc=$?
[ $rc -eq 0 ] || t_fail "exit $rc: $(cat "$T_TMP/err")"
grep -q "First Title" <<<"$out" && grep -q "Second Title" <<<"$out" || t_fail "titles not shown: $out"
for i in $(seq 1 50); do grep -q "title|Second Title" "$T_TMP/hook.out" 2>/dev/null && break; sleep 0.1; done
grep -q "^title|First Title$" "$T_TMP/hook.out" && grep -q "^title|Second Title$" "$T_TMP/hook.out" ||
	t_fail "hook: $(cat "$T_TMP/hook.out" 2>/dev/null)"

t_begin a_station_is_named_from_its_start
# The station's name (icy-name) comes with the headers, before the first
# sound, but it reached crate after the track's notice: crate play
# --no-ui printed the URL's last part ("tone.flac?name=Tone%20Radio")
# and the hook's first event, "track", had no title (a scrobbler or a
# status bar showed nothing until the next event).
rm -f "$T_TMP/hook.out"
out=$(HOME=$H timeout 60 "$CRATE" --db "$T_TMP/db" --config "$T_TMP/hookconf" play --no-ui \
	"$U/icy/tone.flac?name=Tone%20Radio" 2>"$T_TMP/err"); rc=$?
[ $rc -eq 0 ] || t_fail "exit $rc: $(cat "$T_TMP/err")"
[ "$(head -1 <<<"$out")" = "Tone Radio" ] || t_fail "printed: $out"
for i in $(seq 1 50); do grep -q "^track|" "$T_TMP/hook.out" 2>/dev/null && break; sleep 0.1; done
grep -q "^track|Tone Radio$" "$T_TMP/hook.out" || t_fail "hook: $(cat "$T_TMP/hook.out" 2>/dev/null)"

t_begin stream_icy_title_in_latin1_is_read_as_such
# A station sending its titles in Latin-1 (many old SHOUTcast ones):
# the bytes went on as they were, so crate play printed "Caf?", the hook
# got invalid UTF-8 and MPRIS dropped the title.
rm -f "$T_TMP/hook.out"
out=$(HOME=$H timeout 60 "$CRATE" --db "$T_TMP/db" --config "$T_TMP/hookconf" play --no-ui \
	"$U/icy/tone.flac?t1=Caf%E9%20del%20Mar" 2>"$T_TMP/err"); rc=$?
[ $rc -eq 0 ] || t_fail "exit $rc: $(cat "$T_TMP/err")"
grep -q "^  Café del Mar$" <<<"$out" || t_fail "title shown: $out"
for i in $(seq 1 50); do grep -q "title|Second Title" "$T_TMP/hook.out" 2>/dev/null && break; sleep 0.1; done
grep -q "^title|Café del Mar$" "$T_TMP/hook.out" || t_fail "hook: $(cat "$T_TMP/hook.out" 2>/dev/null)"

t_begin stream_empty_icy_title_prints_no_empty_line
# StreamTitle='' (a station between songs, or one that never names them)
# printed a line of two spaces under crate play.
out=$(HOME=$H timeout 60 "$CRATE" --db "$T_TMP/db" --config "$T_TMP/config" play --no-ui \
	"$U/icy/tone.flac?t1=" 2>"$T_TMP/err"); rc=$?
[ $rc -eq 0 ] || t_fail "exit $rc: $(cat "$T_TMP/err")"
grep -q '^ *$' <<<"$out" && t_fail "an empty line: $(cat -A <<<"$out")"
grep -q "^  Second Title$" <<<"$out" || t_fail "output: $out"

t_begin stream_icy_title_in_remote_status
# What a status bar polls: the song the station plays now, then the
# stream's name, as the interface's status line has them.
ffmpeg -nostdin -v quiet -y -f lavfi -i "sine=f=440:d=20" -ac 2 -ar 44100 -sample_fmt s16 \
	"$T_TMP/srv/long.flac" || t_fail ffmpeg
printf '[output]\npace = true\n' >"$T_TMP/paced"
# paced NAME ARGS...: crate play --no-ui ARGS at the wall clock's pace, in
# the background ($pid), its output in $T_TMP/NAME.out and NAME.err.
paced() {
	local name=$1
	shift
	HOME=$H timeout 60 "$CRATE" --db "$T_TMP/db" --config "$T_TMP/paced" play --no-ui "$@" \
		>"$T_TMP/$name.out" 2>"$T_TMP/$name.err" &
	pid=$!
}
# until_remote_answers: the headless player's socket is up.
until_remote_answers() {
	local i
	for i in $(seq 100); do HOME=$H timeout 10 "$CRATE" remote status >/dev/null 2>&1 && return; sleep 0.1; done
}
# until_status_says PATTERN: poll crate remote status (10 s at most) until
# a line of it matches PATTERN (grep).
until_status_says() {
	local i
	for i in $(seq 100); do
		HOME=$H timeout 10 "$CRATE" remote status 2>/dev/null | grep -q "$1" && return
		sleep 0.1
	done
}
export XDG_RUNTIME_DIR=$T_TMP/run
mkdir -p "$XDG_RUNTIME_DIR" && chmod 700 "$XDG_RUNTIME_DIR"
HOME=$H timeout 60 "$CRATE" --db "$T_TMP/db" --config "$T_TMP/paced" play --no-ui "$U/icy/long.flac" \
	>/dev/null 2>&1 &
pid=$!
st=""
for i in $(seq 100); do
	st=$(HOME=$H timeout 10 "$CRATE" remote status 2>&1)
	grep -q '^track: .* Title (long.flac)$' <<<"$st" && break
	sleep 0.1
done
grep -q '^track: \(First\|Second\) Title (long.flac)$' <<<"$st" || t_fail "status: $st"
HOME=$H timeout 10 "$CRATE" remote stop >/dev/null 2>&1
wait $pid
unset XDG_RUNTIME_DIR

t_begin a_stream_url_ending_in_a_slash_is_named
# A station's URL ending in '/' (http://host:8000/, as many are): crate
# play --no-ui printed an empty line for it and crate remote status said
# "track: " with nothing after, where the interface showed the whole URL.
# All now name it by its last part ("long.flac" here; "host:8000" for a
# URL with no path).
export XDG_RUNTIME_DIR=$T_TMP/run
paced slash "$U/live/long.flac/"
st=""
for i in $(seq 100); do
	st=$(HOME=$H timeout 10 "$CRATE" remote status 2>/dev/null)
	grep -q '^position: 0:0[1-9]' <<<"$st" && break
	sleep 0.1
done
grep -q '^track: long.flac$' <<<"$st" || t_fail "status: $st"
HOME=$H timeout 10 "$CRATE" remote stop >/dev/null 2>&1
wait $pid
[ "$(cat "$T_TMP/slash.out")" = "long.flac" ] || t_fail "printed '$(cat "$T_TMP/slash.out")'"
unset XDG_RUNTIME_DIR

t_begin stream_reconnects_after_a_drop
rm -f "$T_TMP/out.raw"
out=$(run play --no-ui "$U/drop/tone.flac" 2>"$T_TMP/err"); rc=$?
[ $rc -eq 0 ] || t_fail "exit $rc: $(cat "$T_TMP/err")"
cmp -s "$T_TMP/out.raw" "$T_TMP/ref.raw" || t_fail "after the reconnect the audio differs"

t_begin stream_silent_times_out_garbage_fails
start=$(date +%s)
out=$(run play --no-ui "$U/silent" 2>&1); rc=$?
[ $rc -eq 1 ] || t_fail "silent: exit $rc"
grep -qi "timed out\|timeout" <<<"$out" || t_fail "silent: message '$out'"
[ $(( $(date +%s) - start )) -lt 40 ] || t_fail "silent took too long"
out=$(run play --no-ui "$U/garbage" 2>&1); rc=$?
[ $rc -eq 1 ] || t_fail "garbage: exit $rc ($out)"
[ -n "$out" ] || t_fail "garbage: no message"

t_begin stream_stopped_while_it_connects_stops
# crate remote stop (v, MPRIS Stop) while a station still connects: the
# stop was reported as the station's "Connection timed out" and the next
# entry played.
export XDG_RUNTIME_DIR=$T_TMP/run
paced stop "$U/silent" "$T_TMP/srv/long.flac"
until_remote_answers
sleep 1 # connecting: the server sends headers, then nothing
HOME=$H timeout 10 "$CRATE" remote stop >/dev/null 2>&1 || t_fail "remote stop"
wait $pid; rc=$?
[ $rc -eq 0 ] || t_fail "exit $rc after a stop"
[ ! -s "$T_TMP/stop.out" ] || t_fail "played after the stop: $(cat "$T_TMP/stop.out")"
[ ! -s "$T_TMP/stop.err" ] || t_fail "said: $(cat "$T_TMP/stop.err")"
unset XDG_RUNTIME_DIR

t_begin a_station_connecting_is_shown_playing
# While a station connects (play pressed, no audio yet), crate remote
# status (and MPRIS) said "stopped" with no track, as if play had done
# nothing, for as long as the server took (MPD says play while it buffers).
export XDG_RUNTIME_DIR=$T_TMP/run
paced opening "$U/silent"
until_remote_answers
sleep 1 # connecting: the server sends headers, then nothing
st=$(HOME=$H timeout 10 "$CRATE" remote status 2>&1)
grep -q '^state: playing$' <<<"$st" && grep -q '^track: silent$' <<<"$st" ||
	t_fail "while it connects: $st"
HOME=$H timeout 10 "$CRATE" remote stop >/dev/null 2>&1 || t_fail "remote stop"
wait $pid
unset XDG_RUNTIME_DIR

t_begin a_station_asked_while_another_plays_is_shown_as_asked
# next from a playing station to one that has not answered yet: crate
# remote status (and MPRIS, and the interface's status line) went on
# naming the station before, playing, its clock frozen, for as long as
# the new one took (15 s for one that never answers).
export XDG_RUNTIME_DIR=$T_TMP/run
paced switch "$U/live/long.flac" "$U/silent"
until_status_says '^position: 0:0[1-9]'
HOME=$H timeout 10 "$CRATE" remote next >/dev/null 2>&1 || t_fail "remote next"
sleep 1 # connecting: the server sends headers, then nothing
st=$(HOME=$H timeout 10 "$CRATE" remote status 2>&1)
grep -q '^state: playing$' <<<"$st" && grep -q '^track: silent$' <<<"$st" &&
	grep -q '^position: 0:00 / -:--$' <<<"$st" || t_fail "while the next one connects: $st"
HOME=$H timeout 10 "$CRATE" remote stop >/dev/null 2>&1 || t_fail "remote stop"
wait $pid
unset XDG_RUNTIME_DIR

t_begin next_on_the_last_entry_while_it_connects_stops_it
# next while the last entry, a station, still connects: crate remote next
# said "end of the list: nothing follows" and failed, and the station went
# on connecting, shown playing, until it gave up 15 s later (next on a
# last entry that plays stops it). The same with a missing file after it.
export XDG_RUNTIME_DIR=$T_TMP/run
for extra in "" "$T_TMP/gone.flac"; do
	paced lastnext "$U/silent" $extra
	until_remote_answers
	sleep 1 # connecting: the server sends headers, then nothing
	HOME=$H timeout 10 "$CRATE" remote next >/dev/null 2>&1 || t_fail "remote next failed${extra:+ (with $extra)}"
	for i in $(seq 30); do kill -0 $pid 2>/dev/null || break; sleep 0.1; done
	if kill -0 $pid 2>/dev/null; then
		t_fail "still playing 3 s after next${extra:+ (with $extra)}: $(HOME=$H timeout 10 "$CRATE" remote status 2>&1 | head -2)"
		HOME=$H timeout 10 "$CRATE" remote stop >/dev/null 2>&1
	fi
	wait $pid
done
unset XDG_RUNTIME_DIR

t_begin a_track_before_a_slow_station_plays_at_once
# The station after a file is connected to when the file ends (streams
# have no gapless hand-over): it was connected to as the file started,
# and the file stood at 0:00, silent, for as long as the station took
# (15 s for one that never answers).
export XDG_RUNTIME_DIR=$T_TMP/run
paced slow "$T_TMP/srv/long.flac" "$U/silent"
until_status_says '^track: '
sleep 3
st=$(HOME=$H timeout 10 "$CRATE" remote status 2>&1)
grep -q '^position: 0:0[2-4] / 0:20$' <<<"$st" || t_fail "3 s after the start: $st"
HOME=$H timeout 10 "$CRATE" remote stop >/dev/null 2>&1
wait $pid
unset XDG_RUNTIME_DIR

t_begin next_while_a_station_connects_goes_on_at_once
# next (b, crate remote next, a media key) while a station still
# connects: the next entry plays at once; it waited for the station's
# open to give up (15 s for one that never answers).
export XDG_RUNTIME_DIR=$T_TMP/run
paced next "$U/silent" "$T_TMP/srv/long.flac"
until_remote_answers
sleep 1 # connecting: the server sends headers, then nothing
HOME=$H timeout 10 "$CRATE" remote next >/dev/null 2>&1 || t_fail "remote next"
for i in $(seq 30); do grep -q . "$T_TMP/next.out" && break; sleep 0.1; done
[ "$(cat "$T_TMP/next.out")" = "long.flac" ] || t_fail "3 s after next: '$(cat "$T_TMP/next.out")'"
HOME=$H timeout 10 "$CRATE" remote stop >/dev/null 2>&1
wait $pid
[ ! -s "$T_TMP/next.err" ] || t_fail "said: $(cat "$T_TMP/next.err")"
unset XDG_RUNTIME_DIR

t_begin stream_that_stalls_mid_play_times_out
out=$(run play --no-ui "$U/stall/tone.mp3" 2>&1); rc=$?
[ $rc -eq 2 ] || t_fail "exit $rc, not 2 (an entry failed): '$out'"
grep -q "stall/tone.mp3: timed out" <<<"$out" || t_fail "message '$out'"

t_begin stream_that_stalls_while_the_player_is_held_up_times_out
# The same stall on a loaded machine: FFmpeg's own read timeout (as long
# as crate's) ended the wait before crate noticed, and that was taken for
# the stream's clean end: exit 0, nothing said, after 30 s. The player is
# held (SIGSTOP) across the 15 s mark, as load holds it.
HOME=$H timeout 60 "$CRATE" --db "$T_TMP/db" --config "$T_TMP/config" play --no-ui \
	"$U/stall/tone.mp3" >"$T_TMP/hold.out" 2>&1 &
pid=$!
for i in $(seq 100); do grep -q 'tone.mp3' "$T_TMP/hold.out" && break; sleep 0.1; done
sleep 1 # the first half is decoded (no pacing): the read waits from here
child=$(pgrep -P $pid)
sleep 12
kill -STOP $child
sleep 4
kill -CONT $child
wait $pid; rc=$?
[ $rc -eq 2 ] || t_fail "exit $rc, not 2 (an entry failed): '$(cat "$T_TMP/hold.out")'"
grep -q "stall/tone.mp3: timed out" "$T_TMP/hold.out" || t_fail "message '$(cat "$T_TMP/hold.out")'"

t_begin a_stream_that_cannot_seek_says_so_and_plays_on
# Left or crate remote seek on a station (no length, no ranges): the seek
# FFmpeg could not make was taken for the track's failure ("skipped", the
# next entry, or crate play --no-ui ended, exit 2), or it read ahead for
# as long as the jump with the player silent, or it reconnected and called
# the station's "now" 0:00.
export XDG_RUNTIME_DIR=$T_TMP/run
paced seek "$U/live/long.flac" "$T_TMP/srv/tone.flac"
until_status_says '^position: 0:02'
# crate remote seek says it, exit 1 (it exited 0 without a word, the
# refusal only in the status afterwards), as MPD answers an error.
out=$(HOME=$H timeout 10 "$CRATE" remote seek 1 2>&1); rc=$?
[ $rc -eq 1 ] && grep -q 'long.flac: this stream cannot seek' <<<"$out" ||
	t_fail "remote seek: exit $rc: $out"
# It plays on from 0:02 (not back at 0:01, not stopped): polled, as a
# loaded machine may take a while to say 0:03.
for i in $(seq 100); do
	st=$(HOME=$H timeout 10 "$CRATE" remote status 2>&1)
	grep -q '^position: 0:0[3-9] ' <<<"$st" && break
	sleep 0.1
done
grep -q '^state: playing$' <<<"$st" && grep -q '^track: long.flac$' <<<"$st" &&
	grep -q '^position: 0:0[3-9] ' <<<"$st" &&
	grep -q '^message: .*long.flac: this stream cannot seek' <<<"$st" || t_fail "after the seek: $st"
HOME=$H timeout 10 "$CRATE" remote stop >/dev/null 2>&1
wait $pid; rc=$?
[ $rc -eq 0 ] || t_fail "exit $rc: $(cat "$T_TMP/seek.err")"
[ "$(cat "$T_TMP/seek.out")" = "long.flac" ] || t_fail "played: $(cat "$T_TMP/seek.out")"
unset XDG_RUNTIME_DIR

t_begin stream_is_a_playlist_entry
run playlist new Radio 2>/dev/null || t_fail "playlist new"
run playlist add Radio "$U/file/tone.flac" 2>/dev/null || t_fail "playlist add URL"
[ "$(run playlist list Radio --format '%url%' | sed 's/^ *[0-9]*\. //')" = "$U/file/tone.flac" ] ||
	t_fail "entry: $(run playlist list Radio --format '%url%')"
rm -f "$T_TMP/out.raw"
run play --no-ui Playlists/Radio >/dev/null 2>&1 || t_fail "playing the playlist"
cmp -s "$T_TMP/out.raw" "$T_TMP/ref.raw" || t_fail "playlist stream output differs"
run scan "$T_TMP/srv" >/dev/null 2>&1
[ "$(run search "url:$U/file/tone.flac" --format '%url%' | wc -l)" -eq 1 ] || t_fail "stream item lost after a scan"

t_begin stream_playlist_url_plays_the_stream_it_lists
# What stations publish: a playlist naming the stream. By its name
# (.pls, .m3u) or its Content-Type (audio/x-scpls), its first stream
# that opens plays (/etc/passwd is a path on the server, which has none),
# named by the playlist; one listing nothing playable fails.
printf '[playlist]\nNumberOfEntries=2\nFile1=/etc/passwd\nFile2=%s\nTitle2=Tone FM\n' \
	"$U/file/tone.flac" >"$T_TMP/srv/station.pls"
cp "$T_TMP/srv/station.pls" "$T_TMP/srv/listen"
printf '#EXTM3U\n#EXTINF:-1,Tone M3U\n%s\n' "$U/file/tone.flac" >"$T_TMP/srv/station.m3u"
printf '[playlist]\nNumberOfEntries=1\nFile1=rtsp://127.0.0.1/x\n' >"$T_TMP/srv/empty.pls"
run playlist new Stations 2>/dev/null || t_fail "playlist new"
run playlist add Stations "$U/list/station.pls" 2>/dev/null || t_fail "playlist add .pls"
rm -f "$T_TMP/out.raw"
out=$(run play --no-ui Playlists/Stations 2>"$T_TMP/err"); rc=$?
[ $rc -eq 0 ] || t_fail "pls: exit $rc: $(cat "$T_TMP/err")"
cmp -s "$T_TMP/out.raw" "$T_TMP/ref.raw" || t_fail "pls: not the listed stream's audio"
grep -q "Tone FM" <<<"$out" || t_fail "pls: not named: $out"
printf '%s\n' "$U/list/listen" >"$T_TMP/listen.m3u"
run playlist import Listen "$T_TMP/listen.m3u" 2>/dev/null || t_fail "import: exit $?"
rm -f "$T_TMP/out.raw"
run play --no-ui Playlists/Listen >/dev/null 2>"$T_TMP/err" || t_fail "typed: $(cat "$T_TMP/err")"
cmp -s "$T_TMP/out.raw" "$T_TMP/ref.raw" || t_fail "audio/x-scpls: not the listed stream's audio"
rm -f "$T_TMP/out.raw"
out=$(run play --no-ui "$U/list/station.m3u" 2>"$T_TMP/err") || t_fail "m3u: $(cat "$T_TMP/err")"
cmp -s "$T_TMP/out.raw" "$T_TMP/ref.raw" || t_fail "m3u: not the listed stream's audio"
grep -q "Tone M3U" <<<"$out" || t_fail "m3u: not named: $out"
out=$(run play --no-ui "$U/list/empty.pls" 2>&1); rc=$?
[ $rc -eq 1 ] || t_fail "empty: exit $rc ($out)"
grep -q "empty.pls: the playlist lists no http(s) stream to play" <<<"$out" || t_fail "empty: '$out'"
out=$(run play --no-ui "$U/list/gone.pls" 2>&1); rc=$?
[ $rc -eq 1 ] || t_fail "gone: exit $rc ($out)"
grep -q "gone.pls: cannot fetch the playlist" <<<"$out" || t_fail "gone: '$out'"

t_begin stream_playlist_url_tries_each_stream_it_lists
# A station lists mirrors, some gone: the next one plays, as in MPD.
printf '[playlist]\nNumberOfEntries=2\nFile1=http://127.0.0.1:1/gone.mp3\nTitle1=Gone FM\nFile2=%s\nTitle2=Tone Mirror\n' \
	"$U/file/tone.flac" >"$T_TMP/srv/mirrors.pls"
rm -f "$T_TMP/out.raw"
out=$(run play --no-ui "$U/list/mirrors.pls" 2>"$T_TMP/err"); rc=$?
[ $rc -eq 0 ] || t_fail "mirrors: exit $rc: $(cat "$T_TMP/err")"
cmp -s "$T_TMP/out.raw" "$T_TMP/ref.raw" || t_fail "mirrors: not the second stream's audio"
grep -q "Tone Mirror" <<<"$out" || t_fail "mirrors: not named by the stream that plays: $out"

t_begin stream_playlist_with_relative_entries_plays_them_from_its_server
# A station's playlist naming its stream by a path on its server
# ("/file/tone.flac", or "../file/tone.flac" beside the playlist, as a
# URL in a web page is read) failed: "the playlist lists no http(s)
# stream to play". They are resolved against the playlist's URL.
printf '#EXTM3U\n#EXTINF:-1,Rel FM\n../file/tone.flac\n' >"$T_TMP/srv/rel.m3u"
printf '[playlist]\nNumberOfEntries=1\nFile1=/file/tone.flac\nTitle1=Abs FM\n' >"$T_TMP/srv/abs.pls"
for l in rel.m3u abs.pls; do
	rm -f "$T_TMP/out.raw"
	out=$(run play --no-ui "$U/list/$l" 2>"$T_TMP/err"); rc=$?
	[ $rc -eq 0 ] || t_fail "$l: exit $rc: $(cat "$T_TMP/err")"
	cmp -s "$T_TMP/out.raw" "$T_TMP/ref.raw" || t_fail "$l: not the listed stream's audio"
done
grep -q "Abs FM" <<<"$out" || t_fail "not named by the playlist: $out"

t_begin stream_playlist_naming_a_playlist_is_followed
# A station's .pls naming its .m3u, which names the stream: followed, as
# MPD does; a playlist naming itself ends with the last error, not a loop.
printf '[playlist]\nNumberOfEntries=1\nFile1=%s\nTitle1=Outer FM\n' "$U/list/station.m3u" \
	>"$T_TMP/srv/outer.pls"
rm -f "$T_TMP/out.raw"
out=$(run play --no-ui "$U/list/outer.pls" 2>"$T_TMP/err"); rc=$?
[ $rc -eq 0 ] || t_fail "nested: exit $rc: $(cat "$T_TMP/err")"
cmp -s "$T_TMP/out.raw" "$T_TMP/ref.raw" || t_fail "nested: not the inner playlist's stream"
grep -q "Tone M3U" <<<"$out" || t_fail "nested: not named by the entry that plays: $out"
printf '[playlist]\nNumberOfEntries=1\nFile1=%s\n' "$U/list/self.pls" >"$T_TMP/srv/self.pls"
out=$(timeout 30 env HOME="$H" "$CRATE" --db "$T_TMP/db" --config "$T_TMP/config" play --no-ui "$U/list/self.pls" 2>&1); rc=$?
[ $rc -eq 1 ] || t_fail "self: exit $rc ($out)"
grep -q "self.pls" <<<"$out" || t_fail "self: '$out'"

t_begin stream_is_named_by_its_station
# A station's server names it (icy-name, as almost every one does): a
# stream added by URL was named by its URL's last part for ever (remote
# status "track: long.flac", the playlist, MPRIS, hooks), where MPD shows
# the station's name. The name names it while it plays and becomes the
# item's title (it had none); a Latin-1 name is read as such.
S="$U/live/long.flac?name=Caf%E9%20FM"
run playlist new Named >/dev/null 2>&1
run playlist add Named "$S" >/dev/null 2>&1 || t_fail "playlist add"
export XDG_RUNTIME_DIR=$T_TMP/run
cat >"$T_TMP/namehook.sh" <<EOH
#!/bin/sh
printf '%s|%s\n' "\$CRATE_EVENT" "\$CRATE_TITLE" >>"$T_TMP/namehook.out"
EOH
chmod +x "$T_TMP/namehook.sh"
printf '[output]\npace = true\n[hooks]\non_change = %s\n' "$T_TMP/namehook.sh" >"$T_TMP/named"
HOME=$H timeout 60 "$CRATE" --db "$T_TMP/db" --config "$T_TMP/named" play --no-ui "Playlists/Named" \
	>/dev/null 2>"$T_TMP/named.err" &
pid=$!
st=""
for i in $(seq 100); do
	st=$(HOME=$H timeout 10 "$CRATE" remote status 2>/dev/null)
	grep -q '^track: Café FM$' <<<"$st" && break
	sleep 0.1
done
grep -q '^track: Café FM$' <<<"$st" || t_fail "status: $st"
for i in $(seq 50); do
	[ "$(run playlist list Named --format '%title%' | sed 's/^[ >]*[0-9]*\. //')" = "Café FM" ] && break
	sleep 0.1
done
[ "$(run playlist list Named --format '%title%' | sed 's/^[ >]*[0-9]*\. //')" = "Café FM" ] ||
	t_fail "entry: $(run playlist list Named --format '%title%')"
HOME=$H timeout 10 "$CRATE" remote pause >/dev/null 2>&1
for i in $(seq 50); do grep -q '^pause|' "$T_TMP/namehook.out" 2>/dev/null && break; sleep 0.1; done
grep -q '^pause|Café FM$' "$T_TMP/namehook.out" || t_fail "hook: $(cat "$T_TMP/namehook.out")"
HOME=$H timeout 10 "$CRATE" remote stop >/dev/null 2>&1
wait $pid
unset XDG_RUNTIME_DIR
# A title it has (a playlist file's #EXTINF) is never replaced.
S2="$U/live/long.flac?name=Other%20FM"
printf '#EXTM3U\n#EXTINF:-1,My Station\n%s\n' "$S2" >"$T_TMP/mine.m3u"
run playlist import Mine "$T_TMP/mine.m3u" >/dev/null 2>&1 || t_fail "import"
(HOME=$H timeout 5 "$CRATE" --db "$T_TMP/db" --config "$T_TMP/paced" play --no-ui "$S2" >/dev/null 2>&1)
info=$(run info "$S2" 2>&1)
grep -q '^title = Other FM' <<<"$info" && t_fail "a title was replaced: $info"

t_begin stream_cut_short_is_neither_a_length_nor_a_play
# Content-Length announced, cut at half on every connection: 4 s heard.
run playlist add Radio "$U/half/tone.mp3" >/dev/null 2>&1 || t_fail "playlist add"
run play --no-ui "$U/half/tone.mp3" >/dev/null 2>&1
info=$(run info "$U/half/tone.mp3" 2>&1)
grep -q "^duration = " <<<"$info" && t_fail "a duration was stored: $info"
grep -q "^timesplayed = [1-9]" <<<"$info" && t_fail "counted as played: $info"
t_end
