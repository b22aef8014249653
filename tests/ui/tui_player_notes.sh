#!/usr/bin/env bash
# What the player says in the interface: a skipped track names its title
# apart from the reason, and the reasons the player stops for (every entry
# failed, the playlist was removed by another program) reach the message
# line and `crate remote status`. Real binary in a private tmux server,
# audio to a file.
. "$(dirname "$0")/../lib.sh"

. "$SRCDIR/tests/lib_tmux.sh"
tmux_suite notes ffmpeg
# The file device is not a clock: pace playback in real time so it lasts.
printf '[output]\npace = true\n' >"$CONF"
MUSIC=$T_TMP/music
c() { "$CRATE" --db "$DB" --config "$CONF" "$@"; }
bottom() { screen | tail -1; }
# play_list NAME: make NAME the active playlist and play its first entry
play_list() {
	c playlist use "$1" >/dev/null || t_fail "use $1"
	keys 2
	wait_for "Playlist $1" || t_fail "playlist view of $1"
	keys g Enter
}

t_begin tui_notes_setup
mkdir -p "$MUSIC"
ffmpeg -v error -y -f lavfi -i "sine=frequency=330:duration=100" -ac 2 -metadata artist="Long Player" \
	-metadata title="Long Song" "$MUSIC/long.flac" || t_fail "ffmpeg"
ffmpeg -v error -y -f lavfi -i "sine=frequency=440:duration=3" -ac 2 -metadata title="Broken Song" \
	"$MUSIC/broken.flac" || t_fail "ffmpeg"
ffmpeg -v error -y -f lavfi -i "sine=frequency=550:duration=4" -ac 2 -metadata artist="Short Player" \
	-metadata title="Short Song" "$MUSIC/short.flac" || t_fail "ffmpeg"
c scan --quiet "$MUSIC" >/dev/null 2>&1
printf 'not audio' >"$MUSIC/broken.flac" # in the library, but it cannot be opened
c playlist new Bad >/dev/null && c playlist add Bad 't:"Broken Song"' >/dev/null 2>&1 || t_fail "playlist Bad"
c playlist new Tmp2 >/dev/null && c playlist add Tmp2 't:"Short Song"' >/dev/null 2>&1 && c playlist add Tmp2 't:"Long Song"' >/dev/null 2>&1 || t_fail "playlist Tmp2"
tmux_crate 120 30 || t_fail "no title bar"

t_begin tui_notes_a_skip_names_the_title_apart_from_the_reason
# "skipped Broken Song/.../broken.flac: ..." ran the title into the path
play_list Bad
wait_for "skipped \"Broken Song\": $MUSIC/broken.flac: " || t_fail "skip message: $(bottom)"

t_begin tui_notes_every_entry_failing_says_it_stopped
# only the last "skipped ..." showed; the reason stayed in the player
keys :
typed "repeat all"
keys Enter
play_list Bad
wait_for "stopped: no entry of Bad could be played" || t_fail "no stop reason: $(bottom)"
out=$(c remote status 2>&1)
echo "$out" | grep -q "^message: stopped: no entry of Bad could be played" ||
	t_fail "remote status: $out"
keys :
typed "repeat off"
keys Enter

t_begin tui_notes_a_removed_playlist_says_why
play_list Tmp2
wait_for "Short Player – Short Song" || t_fail "not playing: $(bottom)"
c playlist use Bad >/dev/null 2>&1 # the active one cannot be removed
c coll remove --force Playlists/Tmp2 >/dev/null 2>&1 || t_fail "remove Tmp2"
# playback stops after the track, and says why
wait_for "playlist Tmp2 was removed" 10 || t_fail "no message: $(bottom)"
out=$(c remote status 2>&1)
echo "$out" | grep -q "^message: playlist Tmp2 was removed" || t_fail "remote status: $out"

t_begin tui_notes_a_skip_of_a_gone_entry_names_it_as_the_list_does
# An entry whose track left the library (crate forget, a drive gone) was
# 'skipped "?": media N is no longer in the library'; view 2 lists it as #N.
c playlist new Gone >/dev/null && c playlist add Gone 't:"Short Song"' >/dev/null 2>&1 &&
	c playlist add Gone 't:"Long Song"' >/dev/null 2>&1 || t_fail "playlist Gone"
id=$(c search 't:"Short Song"' --format '%id%')
c forget --yes 't:"Short Song"' >/dev/null 2>&1 || t_fail "forget"
play_list Gone
wait_for "skipped \"#$id\": media $id is no longer in the library" ||
	t_fail "skip message: $(bottom)"

keys q
t_end
