#!/usr/bin/env bash
# Rows you format (issue 17, part 4): format.track, format.track_all,
# format.playlist and format.status in the config and at `:set`, and the
# glyphs that tell the playing row from the current one and from marked
# ones. Real binary in a private tmux server, audio to a file.
. "$(dirname "$0")/../lib.sh"

. "$SRCDIR/tests/lib_tmux.sh"
tmux_suite format
c() { "$CRATE" --db "$DB" "$@"; }
# row TEXT: the screen's lines that contain TEXT (fixed string)
row() { screen | grep -F -- "$1"; }
# has_row REGEX: some screen line matches the extended REGEX as a whole
has_row() { screen | grep -qxE -- "$1"; }

t_begin tui_format_setup
cp -r "$SRCDIR"/data/demo "$T_TMP/music" || t_fail "no demo"
c scan --quiet "$T_TMP/music" >/dev/null 2>&1 || t_fail "scan failed"
c rate 'title:"Stairway Down"' 5 >/dev/null || t_fail "rate"
c playlist new Mix >/dev/null && c playlist add Mix 'a:"Mira Sol" OR album:夜の街' >/dev/null ||
	t_fail "playlist"
c playlist use Mix >/dev/null || t_fail "use"
cat >"$CONF" <<'CFG'
[output]
pace = true

[format]
track = "%{tracknr:>3}|%{title:10}|%=%{?rating>=4?HOT :}%duration%"
track_all = "%{albumartist|artist} / %title%"
playlist = "#%pos% %{title:6}%{?rating>=4? ★}%=[%{artist:>10}]"
status = "NOW %title%%=%{?rating?rated %rating%:unrated} "
CFG

t_begin tui_format_track_rows_from_the_config
tmux_crate 100 30 || t_fail "no title bar"
# "All artists": format.track_all, one row per track after the glyph cell
wait_for "Mira Sol / Stairway Down" || t_fail "format.track_all not used"
has_row '.*│.* Björk Sigurðardóttir / Vatnajökull' || t_fail "first row: $(row Vatnaj)"
has_row '.*│.* 東京ソナタ / Синий троллейбус' || t_fail "the fallback to artist: $(row Синий)"
# one artist: format.track; widths in cells, the right half ends at the edge
keys j j
wait_for "1|Stairway D|" || t_fail "format.track not used"
has_row '.*│.*   1\|Stairway D\| {18}HOT 0:06' || t_fail "rated row: $(row 'Stairway D')"
has_row '.*│.*   2\|Track 10  \| {22}0:06' || t_fail "unrated row: $(row 'Track 10')"

t_begin tui_format_playlist_rows_and_status
keys 2
wait_for "Playlist Mix" || t_fail "playlist view"
# the whole list: %pos%, a CJK title padded by cells, Cyrillic cut at 6 cells
exp=" #1 Stairw ★                                                                            [  Mira Sol]
 #2 Track                                                                               [  Mira Sol]
 #3 夜の街                                                                              [東京ソナタ]
 #4 Синий                                                                               [Оркестр Су]"
wait_until 3 sh -c "[ \"\$($TM capture-pane -p -t $S | sed -n 3,6p)\" = \"\$1\" ]" sh "$exp" ||
	t_fail "playlist rows: $(screen | sed -n 3,6p)"
keys g Enter
wait_for "NOW Stairway Down" || t_fail "format.status not used"
has_row ' . NOW Stairway Down +rated 5' || t_fail "status halves: $(row NOW)"

t_begin tui_format_glyphs_tell_playing_from_current
# the entry plays: the playing glyph; stopped, it is only the current one
screen | grep -q '^>#1 Stairw' || t_fail "playing row: $(row '#1 ')"
keys v
wait_for "stopped" || t_fail "v did not stop"
wait_until 3 sh -c "$TM capture-pane -p -t $S | grep -q '^•#1 Stairw'" ||
	t_fail "current row: $(row '#1 ')"
# the current collection is marked with the current glyph, not the playing one
keys 1
wait_for "All 5 artists" || t_fail "browser"
screen | grep -q '^•All Media' || t_fail "sidebar: $(row 'All Media')"
# marked rows: their own glyph
keys l l g Space
wait_until 3 sh -c "$TM capture-pane -p -t $S | grep -q '│.*+  1|Stairway D|'" ||
	t_fail "marked row: $(row 'Stairway D')"

t_begin tui_format_set_changes_rows_and_refuses_bad_formats
keys 2
wait_for "Playlist Mix" || t_fail "playlist view"
keys :
typed "set format.playlist '%{pos:>2}: %{albumartist|artist} – %title%'"
keys Enter
wait_for "format.playlist = %{pos:>2}" || t_fail "no message: $(screen | tail -1)"
wait_for "• 1: Mira Sol – Stairway Down" || t_fail ":set format.playlist not applied"
row ' 4: 東京ソナタ – Синий троллейбус' >/dev/null || t_fail "row 4: $(row ' 4:')"
keys :
typed "set format.playlist '%{pos'"
keys Enter
wait_for "column 1: %{ is not closed with }" || t_fail "no error: $(screen | tail -1)"
row '• 1: Mira Sol – Stairway Down' >/dev/null || t_fail "a bad format changed the rows"
keys :
typed "set display.glyph_current o"
keys Enter
wait_for "o 1: Mira Sol – Stairway Down" || t_fail ":set display.glyph_current not applied"
keys :
typed "set display.glyph_playing ⇒⇒"
keys Enter
wait_for "one character one cell wide" || t_fail "a two-character glyph accepted"
keys q

t_begin tui_format_bad_config_stops_at_start
printf '[format]\nstatus = "%%{title:>x}"\n' >"$T_TMP/bad"
out=$("$CRATE" --db "$DB" --config "$T_TMP/bad" 2>&1 </dev/null)
case "$out" in
*'bad:2: format.status = %{title:>x}: column 8: a width'*) ;;
*) t_fail "start with a bad format: $out" ;;
esac
t_end
