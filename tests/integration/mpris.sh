#!/usr/bin/env bash
# MPRIS (issue 18 part 1) over a private session bus (dbus-daemon --session,
# its address only in this test's environment): `crate play --no-ui` owns
# org.mpris.MediaPlayer2.crate; busctl reads Metadata, PlaybackStatus,
# Position, and calls PlayPause, Next, Seek; Seeked and PropertiesChanged
# signals are seen by dbus-monitor. Without a session bus nothing happens
# and nothing is printed.
. "$(dirname "$0")/../lib.sh"

if ! command -v dbus-daemon >/dev/null || ! command -v busctl >/dev/null || ! command -v ffmpeg >/dev/null; then
	t_begin mpris_setup; t_skip "needs dbus-daemon, busctl and ffmpeg"; t_end; exit $?
fi
if ! ldd "$(dirname "$CRATE")/crate-core" 2>/dev/null | grep -q libsystemd; then
	t_begin mpris_setup; t_skip "crate was built without MPRIS"; t_end; exit $?
fi

H=$T_TMP/home
export HOME=$H XDG_CONFIG_HOME=$H/.config XDG_DATA_HOME=$H/.local/share XDG_RUNTIME_DIR=$T_TMP/run
mkdir -p "$XDG_RUNTIME_DIR" "$XDG_CONFIG_HOME/crate" && chmod 700 "$XDG_RUNTIME_DIR"
t_sink_home "$H"
printf '[output]\npace = true\n' >"$XDG_CONFIG_HOME/crate/config"
DB=$T_TMP/lib.db
PIDS=""
trap 'kill $PIDS 2>/dev/null; rm -rf "$T_TMP"' EXIT

t_begin mpris_setup
mkdir -p "$T_TMP/music"
for i in 1 2 3; do
	ffmpeg -v error -y -f lavfi -i "sine=frequency=$((300 * i)):duration=20" -ac 2 -ar 44100 \
		-metadata artist="Artist $i" -metadata title="Song $i" -metadata album="Album" \
		-metadata track=$i "$T_TMP/music/$i.flac" || t_fail ffmpeg
done
"$CRATE" --db "$DB" scan --quiet "$T_TMP/music" >/dev/null 2>&1 || t_fail scan
ADDR=$(dbus-daemon --session --fork --nopidfile --print-address=1 --print-pid=3 3>"$T_TMP/dbus.pid" |
	head -1)
PIDS="$(cat "$T_TMP/dbus.pid")"
[ -n "$ADDR" ] || t_fail "no private bus"
export DBUS_SESSION_BUS_ADDRESS=$ADDR
B="busctl --address=$ADDR"
OBJ=/org/mpris/MediaPlayer2 P=org.mpris.MediaPlayer2.Player N=org.mpris.MediaPlayer2.crate
dbus-monitor --address "$ADDR" "type='signal',path='/org/mpris/MediaPlayer2'" >"$T_TMP/signals" 2>&1 &
PIDS="$PIDS $!"
"$CRATE" --db "$DB" play --no-ui 'album:Album' >"$T_TMP/play.out" 2>"$T_TMP/play.err" &
CPID=$!
PIDS="$PIDS $CPID"
ok=""
for i in $(seq 1 100); do
	$B get-property $N $OBJ $P PlaybackStatus 2>/dev/null | grep -q Playing && { ok=1; break; }
	sleep 0.1
done
[ -n "$ok" ] || t_fail "crate did not appear on the bus playing"
prop() { $B get-property $N $OBJ $P "$1" 2>/dev/null; }
wait_prop() { # PROP PATTERN
	for i in $(seq 1 50); do prop "$1" | grep -q "$2" && return 0; sleep 0.1; done
	echo "    $1 is $(prop "$1"), want $2" >&2; return 1
}

t_begin mpris_metadata_of_the_playing_track
m=$(prop Metadata)
grep -q '"xesam:title" s "Song 1"' <<<"$m" || t_fail "title: $m"
grep -q '"xesam:artist" as 1 "Artist 1"' <<<"$m" || t_fail "artist: $m"
grep -q '"mpris:length" x 200[0-9][0-9][0-9][0-9][0-9]' <<<"$m" || t_fail "length: $m"
grep -q '"mpris:trackid" o "/org/crate/track/[0-9]*"' <<<"$m" || t_fail "trackid: $m"
grep -q '"xesam:url" s "file://.*/music/1.flac"' <<<"$m" || t_fail "url: $m"
$B get-property $N $OBJ org.mpris.MediaPlayer2 Identity | grep -q '"crate"' || t_fail "Identity"

t_begin mpris_advertises_no_uri_it_refuses_to_open
# SupportedUriSchemes said "file" (and six audio types) while OpenUri
# refuses every URI: a client took crate for a player that opens files.
# Empty lists say OpenUri is not supported.
R=org.mpris.MediaPlayer2
[ "$($B get-property $N $OBJ $R SupportedUriSchemes)" = "as 0" ] ||
	t_fail "schemes: $($B get-property $N $OBJ $R SupportedUriSchemes)"
[ "$($B get-property $N $OBJ $R SupportedMimeTypes)" = "as 0" ] ||
	t_fail "types: $($B get-property $N $OBJ $R SupportedMimeTypes)"
$B call $N $OBJ $P OpenUri s "file://$T_TMP/music/2.flac" 2>/dev/null && t_fail "OpenUri accepted"

t_begin mpris_playpause_next_seek
$B call $N $OBJ $P PlayPause || t_fail "PlayPause call"
wait_prop PlaybackStatus Paused || t_fail "not paused"
$B call $N $OBJ $P PlayPause || t_fail "PlayPause call"
wait_prop PlaybackStatus Playing || t_fail "not playing again"
$B call $N $OBJ $P Next || t_fail "Next call"
wait_prop Metadata '"Song 2"' || t_fail "Next did not move to Song 2"
$B call $N $OBJ $P Seek x 10000000 || t_fail "Seek call"
for i in $(seq 1 50); do
	pos=$(prop Position | awk '{print $2}')
	[ "${pos:-0}" -ge 10000000 ] && break
	sleep 0.1
done
[ "${pos:-0}" -ge 10000000 ] || t_fail "Position after Seek +10 s: $pos"
grep -q 'member=Seeked' "$T_TMP/signals" || t_fail "no Seeked signal"
grep -q 'member=PropertiesChanged' "$T_TMP/signals" || t_fail "no PropertiesChanged signal"
$B set-property $N $OBJ $P Volume d 0.5 || t_fail "set Volume"
wait_prop Volume "0.5" || t_fail "Volume"
$B call $N $OBJ $P Stop || t_fail "Stop call"
for i in $(seq 1 50); do kill -0 $CPID 2>/dev/null || break; sleep 0.1; done
kill -0 $CPID 2>/dev/null && t_fail "crate play did not end after Stop"
grep -q "Song 2" "$T_TMP/play.out" || t_fail "play output: $(cat "$T_TMP/play.out")"

t_begin mpris_url_of_a_stream_and_of_a_name_not_utf8
# xesam:url is a stream's own URL (it was "file://http%3A//..."), and a
# file whose name is not UTF-8 has its percent-encoded URI (it had none).
python3 "$SRCDIR/tests/data/stream_server.py" "$T_TMP/music" "$T_TMP/port" &
PIDS="$PIDS $!"
for i in $(seq 1 50); do [ -s "$T_TMP/port" ] && break; sleep 0.1; done
U=http://127.0.0.1:$(cat "$T_TMP/port")/file/1.flac
cp "$T_TMP/music/2.flac" "$T_TMP/caf"$'\xe9'".flac"
# url_while_playing WHAT PATTERN: play WHAT, check its xesam:url, stop.
url_while_playing() {
	"$CRATE" --db "$DB" play --no-ui "$1" >/dev/null 2>&1 &
	local pid=$!
	wait_prop PlaybackStatus Playing || t_fail "$1 is not playing"
	prop Metadata | grep -q "\"xesam:url\" s \"$2\"" || t_fail "url of $1: $(prop Metadata)"
	$B call $N $OBJ $P Stop
	wait $pid
}
url_while_playing "$U" "$U"
url_while_playing "$T_TMP/caf"$'\xe9'".flac" "file://.*/caf%E9.flac"

t_begin mpris_no_seeked_signal_for_a_refused_seek
# A station refuses a seek ("this stream cannot seek") and plays on, yet
# Seeked was sent at once with the position asked for: a client's
# progress jumped 30 s into a live stream.
L="http://127.0.0.1:$(cat "$T_TMP/port")/live/1.flac?name=Test%20FM"
"$CRATE" --db "$DB" play --no-ui "$L" >/dev/null 2>&1 &
lpid=$!
wait_prop PlaybackStatus Playing || t_fail "the station is not playing"
# Named by its station (icy-name), not by its URL.
wait_prop Metadata '"xesam:title" s "Test FM"' || t_fail "title of a named station"
before=$(grep -c 'member=Seeked' "$T_TMP/signals")
$B call $N $OBJ $P Seek x 30000000 || t_fail "Seek call"
sleep 1
after=$(grep -c 'member=Seeked' "$T_TMP/signals")
[ "$after" = "$before" ] || t_fail "Seeked sent for a refused seek ($before then $after)"
pos=$(prop Position | awk '{print $2}')
[ "${pos:-0}" -lt 20000000 ] || t_fail "Position after a refused seek: $pos"
$B call $N $OBJ $P Stop
wait $lpid

t_begin mpris_in_the_interface
if command -v tmux >/dev/null; then
	TM="tmux -L crate-mpris-$$ -f /dev/null"
	PIDS="$PIDS"
	"$CRATE" --db "$DB" playlist add Default 'album:Album' >/dev/null 2>&1 || t_fail "playlist add"
	$TM new-session -d -s m -x 100 -y 30 "env DBUS_SESSION_BUS_ADDRESS='$ADDR' HOME='$H' XDG_CONFIG_HOME='$XDG_CONFIG_HOME' XDG_RUNTIME_DIR='$XDG_RUNTIME_DIR' LANG=C.UTF-8 TERM=xterm-256color '$CRATE' --db '$DB'; sleep 30"
	ok=""
	for i in $(seq 1 100); do
		$B get-property $N $OBJ $P PlaybackStatus 2>/dev/null | grep -q Stopped && { ok=1; break; }
		sleep 0.1
	done
	[ -n "$ok" ] || t_fail "the interface is not on the bus"
	$B call $N $OBJ $P PlayPause || t_fail "PlayPause in the interface"
	wait_prop Metadata '"Song 1"' || t_fail "the interface did not start the active playlist"
	$TM capture-pane -p -t m | grep -q "Song 1" || t_fail "the status line does not show Song 1"
	$B call $N $OBJ $P Stop
	# Next at the end of the list has no effect (the specification), not a
	# D-Bus error a media key would print: a list of one short track
	# played to its end.
	ffmpeg -v error -y -f lavfi -i "sine=frequency=500:duration=1" -ac 2 -ar 44100 \
		-metadata title="Short" "$T_TMP/music/short.flac" || t_fail ffmpeg
	"$CRATE" --db "$DB" scan --quiet "$T_TMP/music" >/dev/null 2>&1 || t_fail "scan short"
	"$CRATE" --db "$DB" playlist new Short >/dev/null 2>&1
	"$CRATE" --db "$DB" playlist add Short 'title:Short' >/dev/null 2>&1 || t_fail "playlist add Short"
	$TM send-keys -t m ':playlist use Short' Enter
	sleep 0.5
	$TM send-keys -t m 2 g Enter # play the list shown from its first entry
	wait_prop Metadata '"Short"' || t_fail "Short did not play"
	for i in $(seq 1 100); do prop PlaybackStatus | grep -q Stopped && break; sleep 0.1; done
	prop PlaybackStatus | grep -q Stopped || t_fail "Short did not end: $(prop Metadata | grep -o 'xesam:title" s "[^"]*"') $($TM capture-pane -p -t m | tail -4)"
	$B call $N $OBJ $P Next 2>"$T_TMP/next.err" || t_fail "Next at the list's end failed: $(cat "$T_TMP/next.err")"
	$B call $N $OBJ $P Previous 2>"$T_TMP/prev.err" || t_fail "Previous failed: $(cat "$T_TMP/prev.err")"
	$TM send-keys -t m q
	sleep 0.3
	$TM kill-server 2>/dev/null
else
	t_skip "needs tmux"
fi

t_begin mpris_without_a_session_bus_is_silent
: >"$T_TMP/unpaced" # the file sink unpaced: the track plays out at once
out=$(env -u DBUS_SESSION_BUS_ADDRESS XDG_RUNTIME_DIR=$T_TMP/nobus timeout 20 "$CRATE" --db "$DB" \
	--config "$T_TMP/unpaced" play --no-ui 'title:"Song 3"' 2>&1 >/dev/null)
rc=$?
[ $rc -eq 0 ] || t_fail "exit $rc"
[ -z "$out" ] || t_fail "printed: $out"
t_end
