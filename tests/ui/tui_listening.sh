#!/usr/bin/env bash
# The listening loop in the interface (issue 13): positions in the playlist
# view are the list's entries, `e` appends to the queue, S and :shuffle /
# :repeat set the modes. Real binary in a private tmux server, audio to a file.
. "$(dirname "$0")/../lib.sh"

. "$SRCDIR/tests/lib_tmux.sh"
tmux_suite listening ffmpeg
printf '[output]\npace = true\n' >"$CONF"
MUSIC=$T_TMP/music
start_ui() { tmux_crate 100 30; }
c() { "$CRATE" --db "$DB" "$@"; }
titles() { c playlist list "$1" --format '%title%' | sed 's/^[ >]*[0-9]*\. //'; }

t_begin tui_listening_setup
mkdir -p "$MUSIC"
cp "$SRCDIR"/data/demo/* "$MUSIC"/ 2>/dev/null
c scan --quiet "$MUSIC" >/dev/null 2>&1 || t_fail "scan failed"
# Road: the library backwards, so entry positions differ from library ones.
c playlist new Road >/dev/null && c playlist add Road '* ORDER BY -title' >/dev/null ||
	t_fail "playlist"
c playlist use Road >/dev/null || t_fail "use"
mapfile -t before < <(titles Road)
[ "${#before[@]}" -ge 6 ] || t_fail "Road has ${#before[@]} entries"

t_begin tui_playlist_positions_are_entries
start_ui || t_fail "no title bar"
keys 2
wait_for "Playlist Road" || t_fail "playlist view"
keys /
typed "2"
keys Enter
keys g n d
# The second entry went, nothing else.
for i in $(seq 40); do
	mapfile -t after < <(titles Road)
	[ "${#after[@]}" -lt "${#before[@]}" ] && break
	sleep 0.05
done
[ "${#after[@]}" -eq $((${#before[@]} - 1)) ] || t_fail "${#after[@]} entries left"
want=("${before[0]}" "${before[@]:2}")
[ "${after[*]}" = "${want[*]}" ] || t_fail "removed the wrong entry: ${after[*]} (was ${before[*]})"

t_begin tui_e_appends_to_the_queue
keys 1
wait_for "All 5 artists" || t_fail "browser"
keys l l
keys e
wait_for "queued 1 track" || t_fail "no message"
keys j e
wait_for "queued 1 track" || t_fail "no second message"
n=$(c playlist list Queue --format '%title%' | wc -l)
[ "$n" -eq 2 ] || t_fail "Queue has $n entries"
c search 'in:Playlists/Queue' --format '%title%' | grep -q . || t_fail "in:Playlists/Queue is empty"

t_begin tui_queue_key_shows_and_edits_the_queue
mapfile -t q < <(titles Queue)
keys Q
wait_for "Playlist Queue" || t_fail "Q did not show the queue"
keys g d
for i in $(seq 40); do
	[ "$(titles Queue | wc -l)" -eq 1 ] && break
	sleep 0.05
done
[ "$(titles Queue)" = "${q[1]}" ] || t_fail "d in the queue view left '$(titles Queue)', want '${q[1]}'"
keys Q
wait_for "Playlist Road" || t_fail "Q again did not go back to the active playlist"
keys 1
wait_for "All 5 artists" || t_fail "browser"

t_begin tui_rate_key_sets_the_rating
keys '*'
wait_for "Rate the selected track: 0-5" || t_fail "no prompt"
keys 4
wait_for "4 stars" || t_fail "no message"
n=$(c search 'r>=4' --format '%title%' | wc -l)
[ "$n" -eq 1 ] || t_fail "r>=4 finds $n"
wait_for '★★★★' 2 || t_fail "stars not shown in the track list"

t_begin tui_shuffle_and_repeat_modes
keys S
wait_for "shuffle tracks" || t_fail "S: tracks"
keys S
wait_for "shuffle albums" || t_fail "S: albums"
keys :
typed "shuffle off"
keys Enter
wait_for "shuffle off" || t_fail ":shuffle off"
keys :
typed "repeat all"
keys Enter
wait_for "repeat all" || t_fail ":repeat all"
keys :
typed "shuffle sideways"
keys Enter
wait_for "usage: shuffle [off|tracks|albums]" || t_fail "bad mode accepted"
keys q

t_begin tui_modes_say_a_party_shuffle_plays_in_order
# S and :repeat all while a Party Shuffle played said "shuffle tracks",
# "repeat all", and nothing changed: it is consumed in order (README).
c pshuffle Party '*' --upcoming 3 >/dev/null 2>&1 && c playlist use Party >/dev/null ||
	t_fail "pshuffle"
start_ui || t_fail "no title bar"
keys 2
wait_for "Party Shuffle Party" || t_fail "Party not shown"
keys g Enter
wait_for "▶" || t_fail "Enter did not play"
keys S
wait_for "shuffle tracks (Party is a Party Shuffle: it plays in order)" ||
	t_fail "S: $(screen | tail -1)"
keys :
typed "repeat all"
keys Enter
wait_for "repeat all (Party is a Party Shuffle: it plays in order)" ||
	t_fail ":repeat all: $(screen | tail -1)"
keys :
typed "shuffle off"
keys Enter
wait_for "shuffle off" || t_fail ":shuffle off"
screen | tail -1 | grep -q "plays in order" && t_fail "off has a note: $(screen | tail -1)"
keys v q
for i in $(seq 40); do screen | grep -q "1 Browser" || break; sleep 0.1; done
c playlist use Road >/dev/null || t_fail "use Road"

t_begin tui_enter_plays_the_selected_track_with_the_whole_column
# Enter on the browser's second track, shuffle on: that track plays, and
# the whole column is the list (cmus's library view): before, a random
# track of the rows from the selection down played, and prev could not go
# above it.
mapfile -t lib < <(c list --format '%artist% - %title%')
start_ui || t_fail "no title bar"
keys 1
wait_for "All 5 artists" || t_fail "browser"
keys :
typed "shuffle tracks"
keys Enter
wait_for "shuffle tracks" || t_fail ":shuffle tracks"
keys h h h l l j Enter
out=
for i in $(seq 60); do
	out=$(c remote status 2>&1)
	echo "$out" | grep -q "^track: " && break
	sleep 0.05
done
echo "$out" | grep -qxF "track: ${lib[1]}" || t_fail "Enter on '${lib[1]}' played: $out"
echo "$out" | grep -qF "playlist: (temporary list, entry 2 of ${#lib[@]})" ||
	t_fail "not the whole column, at entry 2: $out"
keys :
typed "shuffle off"
keys Enter
wait_for "shuffle off" || t_fail ":shuffle off"
c remote stop >/dev/null 2>&1
keys q
for i in $(seq 40); do $TM has-session -t $S 2>/dev/null && screen | grep -q "crate" || break; sleep 0.1; done

t_begin tui_resume_restores_the_session
# A long track to seek in; play it, seek to 1:00, change volume and modes,
# browse with a search, go to view 2, quit; start again: all of it is back,
# paused at the offset.
ffmpeg -v error -y -f lavfi -i "sine=frequency=330:duration=100" -ac 2 -metadata artist="Long Player" \
	-metadata title="Long Song" "$MUSIC/long.flac" || t_fail "ffmpeg"
c scan --quiet "$MUSIC" >/dev/null 2>&1
start_ui || t_fail "no title bar"
keys /
typed "a:\"Long Player\""
keys Enter
wait_for "Long Song" || t_fail "search"
keys l l Enter
wait_for "Long Player – Long Song" || t_fail "not playing"
keys :
typed "seek 60"
keys Enter
keys :
typed "vol 55"
keys Enter
keys :
typed "shuffle albums"
keys Enter
keys :
typed "repeat one"
keys Enter
keys 2
sleep 0.5
keys q
for i in $(seq 40); do $TM has-session -t $S 2>/dev/null && screen | grep -q "crate" || break; sleep 0.1; done
sleep 0.5
start_ui || t_fail "no title bar after restart"
wait_for "Playlist" 3 || t_fail "view 2 not restored"
# The resumed track is opened after the interface is up: status says
# stopped until it is (a sanitizer build under load took longer than the
# view to come back).
wait_until 10 sh -c "'$CRATE' --db '$DB' remote status 2>&1 | grep -q '^state: paused'"
out=$(c remote status 2>&1)
echo "$out" | grep -q "state: paused" || t_fail "not paused: $out"
echo "$out" | grep -q "track: Long Player - Long Song" || t_fail "track: $out"
echo "$out" | grep -qE "position: 1:0[01] / 1:40" || t_fail "offset: $out"
echo "$out" | grep -q "volume: 55%" || t_fail "volume: $out"
echo "$out" | grep -q "repeat: one" || t_fail "repeat: $out"
echo "$out" | grep -q "shuffle: albums" || t_fail "shuffle: $out"
keys 1
wait_for 'a:"Long Player"' || t_fail "search not restored"

t_begin tui_resume_after_a_crash
keys :
typed "vol 40"
keys Enter
# the state is written every 3 s: until it holds the new volume
wait_until 10 grep -qx 'volume=40' "$DB.state" || t_fail "state not written: $(cat "$DB.state")"
pane=$($TM display -p -t $S '#{pane_pid}')
pid=$(ps -o pid= --ppid "$pane" | head -1)
[ -n "$pid" ] || t_fail "no crate process"
kill -9 $pid
sleep 0.5
start_ui || t_fail "no title bar after the crash"
wait_until 10 sh -c "'$CRATE' --db '$DB' remote status 2>&1 | grep -q '^track: Long Player - Long Song'"
out=$(c remote status 2>&1)
echo "$out" | grep -q "volume: 40%" || t_fail "volume after a crash: $out"
echo "$out" | grep -q "track: Long Player - Long Song" || t_fail "track after a crash: $out"
keys q

t_begin tui_resume_of_a_station_goes_on_live
# A radio station has no offsets: resumed, it starts again where it is
# now (it was opened at the offset quit at, every second of it read
# through first: after an hour of listening, an hour of silence).
if ! command -v python3 >/dev/null; then
	t_skip "needs python3"
else
	mkdir -p "$T_TMP/srv"
	ffmpeg -v error -y -f lavfi -i "sine=frequency=440:duration=20" -ac 2 "$T_TMP/srv/station.mp3" ||
		t_fail "ffmpeg"
	python3 "$SRCDIR/tests/data/stream_server.py" "$T_TMP/srv" "$T_TMP/port" &
	spid=$!
	for i in $(seq 50); do [ -s "$T_TMP/port" ] && break; sleep 0.1; done
	c playlist new Radio >/dev/null && c playlist use Radio >/dev/null &&
		c playlist add Radio "http://127.0.0.1:$(cat "$T_TMP/port")/live/station.mp3" >/dev/null 2>&1 ||
		t_fail "playlist Radio"
	for i in $(seq 40); do $TM has-session -t $S 2>/dev/null && screen | grep -q "crate" || break; sleep 0.1; done
	start_ui || t_fail "no title bar"
	keys 2
	wait_for "Playlist Radio" || t_fail "Radio not shown"
	keys Enter
	wait_until 15 sh -c "'$CRATE' remote status | grep -q '^position: 0:0[3-9]'" ||
		t_fail "the station does not play: $(c remote status 2>&1)"
	keys q
	for i in $(seq 40); do $TM has-session -t $S 2>/dev/null && screen | grep -q "crate" || break; sleep 0.1; done
	grep -q '^position_ms=[3-9][0-9][0-9][0-9]$' "$DB.state" || t_fail "state: $(cat "$DB.state")"
	start_ui || t_fail "no title bar after restart"
	wait_until 10 sh -c "'$CRATE' remote status | grep -q '^state: paused'" ||
		t_fail "not resumed paused: $(c remote status 2>&1)"
	out=$(c remote status 2>&1)
	echo "$out" | grep -q "track: station.mp3" || t_fail "track: $out"
	echo "$out" | grep -q "position: 0:00 / -:--" || t_fail "not from the start: $out"
	keys c
	wait_until 10 sh -c "'$CRATE' remote status | grep -q '^position: 0:0[1-9]'" ||
		t_fail "does not play on: $(c remote status 2>&1)"
	keys q
	for i in $(seq 40); do $TM has-session -t $S 2>/dev/null && screen | grep -q "crate" || break; sleep 0.1; done
fi

t_begin tui_a_station_is_named_by_its_server
# The station's name (icy-name) names the playing stream in the status
# line and, once the index catches up in the background, its playlist
# row: both showed the URL's last part ("station.mp3") for ever.
if ! command -v python3 >/dev/null; then
	t_skip "needs python3"
else
	c playlist add Radio "http://127.0.0.1:$(cat "$T_TMP/port")/live/station.mp3?name=Night%20FM" \
		>/dev/null 2>&1 || t_fail "playlist add"
	start_ui || t_fail "no title bar"
	keys 2
	wait_for "Playlist Radio" || t_fail "Radio not shown"
	keys G Enter
	wait_for "▶ Night FM" 15 || t_fail "status line: $(screen | tail -3)"
	wait_until 10 sh -c "'$CRATE' --db '$DB' playlist list Radio | grep -q 'Night FM'" ||
		t_fail "the item got no title: $(c playlist list Radio 2>&1)"
	# the row too: the name twice on the screen (row and status line)
	wait_until 10 sh -c "$TM capture-pane -p -t '$S' | grep -c 'Night FM' | grep -qx '[2-9]'" ||
		t_fail "playlist row: $(screen)"
	keys q
fi

t_begin tui_a_station_connecting_shows_playing
# Enter on a station that has not answered yet: the status line said
# "■ stopped" for as long as it took (up to 15 s), as if nothing happened.
if ! command -v python3 >/dev/null; then
	t_skip "needs python3"
else
	for i in $(seq 40); do $TM has-session -t $S 2>/dev/null && screen | grep -q "crate" || break; sleep 0.1; done
	c playlist add Radio "http://127.0.0.1:$(cat "$T_TMP/port")/silent" >/dev/null 2>&1 ||
		t_fail "playlist add"
	start_ui || t_fail "no title bar"
	keys 2
	wait_for "Playlist Radio" || t_fail "Radio not shown"
	keys G Enter
	wait_for "▶ silent" 5 || t_fail "status line while it connects: $(screen | tail -3)"
	keys v q
fi
kill $spid 2>/dev/null
t_end
