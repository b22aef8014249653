#!/usr/bin/env bash
# The browser's levels (issue 17 part 4): browser.levels = genre album groups
# the columns by genre then album (whole screen), the first row of each
# column says what it lists and how many, a saved collection browsed with
# its own levels (crate coll levels, :coll levels) shows those and All
# Media the option again, `:set browser.levels` changes them live and refuses a property
# that names single tracks, and three levels on a 20x6 terminal degrade to
# the focused column. Real binary in a private tmux server.
. "$(dirname "$0")/../lib.sh"

. "$SRCDIR/tests/lib_tmux.sh"
tmux_suite levels
printf '[output]\npace = true\n[browser]\nlevels = genre album\n' >"$CONF"
MUSIC=$T_TMP/music
c() { "$CRATE" --db "$DB" "$@"; }

t_begin tui_levels_setup
mkdir -p "$MUSIC"
cp "$SRCDIR"/data/demo/* "$MUSIC"/ 2>/dev/null
c scan --quiet "$MUSIC" >/dev/null 2>&1 || t_fail "scan failed"
c coll save Rocks 'g:Rock OR g:Electronic' >/dev/null || t_fail "coll save"
c coll levels Rocks year album || t_fail "coll levels"
[ "$(c coll levels Rocks)" = "year album" ] || t_fail "coll levels shows '$(c coll levels Rocks)'"

t_begin tui_levels_genre_then_album
tmux_crate 80 16 || t_fail "no title bar"
want=" 1 Browser   2 Playlist   3 Collections   4 Rules   5 Files           All Media
 All 4 genres        All 5 albums         1. Björk Sigurðardóttir – Vat…   0:04
 Ambient             Ísland (2003)        2. Björk Sigurðardóttir – Str…   0:04
 Jazz                Late Trains (1979)   1. Mira Sol – Stairway Down      0:06
 Rock                Harbour Lights (19…  2. Mira Sol – Track 10           0:06
 Electronic          Circuit Songs (202…  1. The Lanterns – Harbour Lig…   0:06
                     夜の街 (2011)        2. The Lanterns – Salt Wind      0:06
                                          3. The Lanterns – Morning (Mo…   0:06
                                          1. Ørsted Drive – Kraftwerk D…   0:06
                                          2. The Beatniks – Beat Street    0:06
                                          3. Volt & Ampère – AC/DC Curr…   0:06
                                          1. 東京ソナタ – 夜の街           0:06
                                          2. Оркестр Сумерки – Синий тр…   0:06
 ■ stopped
 -:-- / -:-- [---------------------------------] vol 100%  repeat off  in order
? help  / search  : command  1-5 views  q quit"
wait_screen "$want" || t_fail "genre / album columns"

t_begin tui_levels_a_genre_lists_its_albums
# Jazz: two albums of two artists (the track rows say who plays: no
# column does).
keys j j
want=" 1 Browser   2 Playlist   3 Collections   4 Rules   5 Files           All Media
 All 4 genres        All 2 albums         1. Mira Sol – Stairway Down      0:06
 Ambient             Late Trains (1979)   2. Mira Sol – Track 10           0:06
 Jazz                夜の街 (2011)        1. 東京ソナタ – 夜の街           0:06
 Rock                                     2. Оркестр Сумерки – Синий тр…   0:06
 Electronic







 ■ stopped
 -:-- / -:-- [---------------------------------] vol 100%  repeat off  in order
? help  / search  : command  1-5 views  q quit"
wait_screen "$want" || t_fail "Jazz's albums"
keys l j j
wait_gone "Stairway Down" || t_fail "the album 夜の街 did not narrow the tracks"
screen | grep -q "Оркестр Сумерки – Синий" || t_fail "夜の街's second track"

t_begin tui_levels_a_collection_has_its_own
keys 3
wait_for "Rocks" || t_fail "collections view"
keys g j Enter # All Media, (Collections), Rocks
wait_for "Collections/Rocks" || t_fail "Rocks not browsed"
wait_for "All 2 years" || t_fail "Rocks' own levels: $(screen | sed -n 2p)"
screen | grep -qE '^ 1994 ' && screen | grep -qE '^ 2024 ' || t_fail "years column"
screen | grep -q "All 2 albums" || t_fail "albums of the years"
# :coll levels changes them while the browser shows the collection.
keys :
typed "coll levels Rocks genre"
keys Enter
wait_for "All 2 genres" || t_fail ":coll levels did not change the columns"
screen | grep -q "All 2 albums" && t_fail "one level: no album column"
keys 3 g Enter
wait_for "All 4 genres" || t_fail "All Media: the option's levels again"

t_begin tui_levels_set_live
keys :
typed "set browser.levels genre title"
keys Enter
wait_for "'title' cannot be a level" || t_fail "a level that names single tracks was not refused"
screen | grep -q "All 4 genres" || t_fail "a refused value changed the columns"
keys :
typed "set browser.levels year"
keys Enter
wait_for "All 5 years" || t_fail ":set browser.levels year"
screen | grep -qE '^ 1979 ' || t_fail "a year row"
screen | grep -q "All 5 albums" && t_fail "one level: no album column"
c coll levels Rocks --clear && [ "$(c coll levels Rocks)" = "(none: browser.levels applies)" ] ||
	t_fail "coll levels --clear"

t_begin tui_levels_three_on_a_small_terminal
keys :
typed "set browser.levels genre year album"
keys Enter
wait_for "All 4 genres" || t_fail "three levels"
keys h h h
screen | grep -q "All 5 years" || t_fail "the year column at 80 columns"
$TM resize-window -t "$S" -x 20 -y 6
wait_for "All 4 genres" || t_fail "20x6: the focused column"
keys l j l j l j
sleep 0.3
$TM resize-window -t "$S" -x 80 -y 16
wait_for "1 Browser" || t_fail "crate did not survive 20x6"
screen | grep -q "All 1 al" || t_fail "the selections made at 20x6: $(screen | sed -n 2p)"
keys q

t_begin tui_levels_one_track_is_not_tracks
# The first row's count said "1 tracks" when a column held one track.
tmux_crate 120 16 || t_fail "no title bar"
keys /
typed "t:stairway"
keys Enter
wait_for "All 1 genre" || t_fail "the search: $(screen | sed -n 2,3p)"
screen | grep -q "1 tracks" && t_fail "the count: $(screen | grep "1 tracks")"
screen | grep -Eq "All 1 genre +1 track +All 1 album +1 track " ||
	t_fail "the first row: $(screen | sed -n 3p)"
keys q

t_begin tui_levels_search_bar_s_tab_goes_back_a_column
# In the search bar Tab went to the next column, as outside it, but S-Tab
# did nothing: the key table's previous column could not be reached
# without leaving the bar. At 20x6 only the focused column shows.
NS=$((NS + 1)); old=$S; S=$SUITE$NS # too small for the title bar tmux_crate waits for
tmux_fresh_session "$old" "$S" 20 6 \
	"env LANG=C.UTF-8 TERM=xterm-256color '$CRATE' --db '$DB' --config '$CONF'; sleep 30"
wait_for "■ sto" || t_fail "no status row"
keys / C-u # the last test's search is restored: cleared
wait_for "All 4 genres" || t_fail "the genre column: $(screen | sed -n 2p)"
keys Tab
wait_for "All 5 albums" || t_fail "Tab: $(screen | sed -n 2p)"
keys BTab
wait_for "All 4 genres" || t_fail "S-Tab: $(screen | sed -n 2p)"
screen | head -1 | grep -q "^/" || t_fail "S-Tab left the bar: $(screen | head -1)"
keys Escape q

t_begin tui_levels_tracks_of_several_artists_say_whose
# Under an artist row the track rows left the artist out, also on Various
# Artists' "Circuit Songs", whose tracks are by three artists.
printf '[output]\npace = true\n' >"$T_TMP/va.conf"
tmux_crate 100 16 "$T_TMP/va.conf" || t_fail "no title bar"
keys / C-u Enter # the last test's search is restored: cleared
wait_for "All 5 artists" || t_fail "the artist column: $(screen | sed -n 2p)"
keys j j j j
wait_for "All 1 album          1. Ørsted Drive – Kraftwerk" ||
	t_fail "Various Artists' tracks: $(screen | sed -n 2,5p)"
keys k
wait_for "All 1 album          1. Harbour Lights  " ||
	t_fail "one artist's tracks name none: $(screen | sed -n 2,5p)"
keys q
t_begin tui_levels_all_artists_list_each_album_once
# With "All" artists the album column listed an album per artist: two
# artists' "Greatest Hits" were two rows nothing told apart, and every
# artist's loose tracks a "(no album)" row of their own. A column lists
# values: one row each, and an artist's own under that artist.
if command -v ffmpeg >/dev/null; then
	GH=$T_TMP/gh
	mkdir -p "$GH"
	tag() { # FILE ARTIST ALBUM TITLE [YEAR]
		ffmpeg -nostdin -v error -f lavfi -i 'sine=d=0.3' -metadata artist="$2" \
			${3:+-metadata album="$3"} -metadata title="$4" ${5:+-metadata date="$5"} \
			"$GH/$1" || t_fail "ffmpeg $1"
	}
	tag a1.flac "Ann Arbor" "Greatest Hits" "Ann One" 1981
	tag a2.flac "Ann Arbor" "Greatest Hits" "Ann Two" 1981
	tag a3.flac "Ann Arbor" "" "Ann Loose"
	tag b1.flac "Bob Bay" "Greatest Hits" "Bob One" 1992
	tag b2.flac "Bob Bay" "" "Bob Loose"
	saved=$DB DB=$T_TMP/gh.db
	c scan --quiet "$GH" >/dev/null 2>&1 || t_fail "scan of the Greatest Hits"
	tmux_crate 100 12 "$T_TMP/va.conf" || t_fail "no title bar"
	wait_for "All 2 artists" || t_fail "the artist column: $(screen | sed -n 2p)"
	[ "$(screen | grep -c "Greatest Hits")" = 1 ] && [ "$(screen | grep -c "(no album)")" = 1 ] ||
		t_fail "albums under All: $(screen | sed -n 2,6p)"
	screen | grep -q "All 2 albums" || t_fail "album count: $(screen | sed -n 2p)"
	# one row for two years: it shows neither (the first artist's was shown)
	screen | grep -q "Greatest Hits (" && t_fail "a year for both albums: $(screen | sed -n 2,6p)"
	keys l j j # (no album), then Greatest Hits: both artists' three tracks
	wait_for "Bob One" || t_fail "Greatest Hits under All: $(screen | sed -n 2,6p)"
	screen | grep -q "Ann Two" && ! screen | grep -q "Loose" ||
		t_fail "Greatest Hits under All: $(screen | sed -n 2,6p)"
	keys h j # Ann Arbor: her albums, and her year
	wait_gone "Bob One" || t_fail "Ann's albums: $(screen | sed -n 2,6p)"
	screen | grep -q "All 2 albums" || t_fail "Ann's album count: $(screen | sed -n 2p)"
	screen | grep -q "Greatest Hits (198" || t_fail "Ann's year: $(screen | sed -n 2,6p)"
	keys q
	DB=$saved
else
	t_skip "ffmpeg missing"
fi
t_end
