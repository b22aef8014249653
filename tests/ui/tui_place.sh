#!/usr/bin/env bash
# Finding your place (issue 17, parts 3 and 7): `i` jumps to the playing
# track, the terminal title shows it, messages expire, `s` asks before
# replacing a collection, the search bar marks a long query's cut ends and
# says an incomplete query goes on. Real binary in a private tmux server,
# audio to a file.
. "$(dirname "$0")/../lib.sh"

. "$SRCDIR/tests/lib_tmux.sh"
tmux_suite place ffmpeg
printf '[output]\npace = true\n' >"$CONF"
MUSIC=$T_TMP/music
start_ui() { tmux_crate 140 30 "${1:-}"; } # [CONFIG]
c() { "$CRATE" --db "$DB" "$@"; }
titles() { c playlist list "$1" --format '%title%' | sed 's/^[ >]*[0-9]*\. //'; }
pane_title() { $TM display -p -t "$S" '#{pane_title}'; }
playing() { c remote status 2>/dev/null | sed -n 's/^track: //p'; }

t_begin tui_place_setup
mkdir -p "$MUSIC"
cp "$SRCDIR"/data/demo/* "$MUSIC"/ 2>/dev/null
# Two long tracks (the demo's last seconds): they still play while the tests look.
for who in "Long Player:Long Song" "Slow Band:Slow Song"; do
	ffmpeg -v error -y -f lavfi -i "sine=frequency=330:duration=200" -ac 2 \
		-metadata artist="${who%%:*}" -metadata album="${who%%:*} album" \
		-metadata title="${who#*:}" "$MUSIC/${who#*:}.flac" || t_fail "ffmpeg"
done
c scan --quiet "$MUSIC" >/dev/null 2>&1 || t_fail "scan failed"
c playlist new Road >/dev/null && c playlist add Road '* ORDER BY -title' >/dev/null ||
	t_fail "playlist"
c playlist use Road >/dev/null || t_fail "use"
mapfile -t road < <(titles Road)
[ "${#road[@]}" -ge 6 ] || t_fail "Road has ${#road[@]} entries"

t_begin tui_column_counts_say_what_they_count
start_ui || t_fail "no title bar"
wait_for "All 7 artists" || t_fail "browser"
screen | grep -qE 'All 7 artists +14 tracks' || t_fail "the All row does not say what it counts: $(screen | grep 'All 7 artists')"
# The current collection is not marked '>' (that is the playing track).
screen | grep -q '^•All Media' || t_fail "the current collection's mark: $(screen | grep 'All Media')"

t_begin tui_jump_to_playing_in_the_browser
# Play "Salt Wind" (The Lanterns) from the browser, walk away, press i.
keys /
typed 'a:"Long Player"'
keys Enter
wait_for "Long Song" || t_fail "search"
keys l l Enter
wait_for "Long Player – Long Song" || t_fail "not playing"
keys Escape
wait_for "14 tracks" || t_fail "search not cleared"
keys h h g
keys i
# The artist and album are chosen and the track row selected: `a` adds it.
n0=$(titles Road | wc -l)
keys a
wait_for "added 1 track" || t_fail "a after i"
[ "$(titles Road | tail -1)" = "Long Song" ] || t_fail "i selected '$(titles Road | tail -1)', not the playing track"
screen | grep -q "Long Player album" || t_fail "album column"
[ "$(titles Road | wc -l)" -eq $((n0 + 1)) ] || t_fail "Road did not grow by one"

t_begin tui_terminal_title_shows_the_playing_track
wait_until 3 sh -c "$TM display -p -t $S '#{pane_title}' | grep -qF 'crate: ▶ Long Player – Long Song'" ||
	t_fail "pane title: '$(pane_title)'"
keys v
wait_until 3 sh -c "[ \"\$($TM display -p -t $S '#{pane_title}')\" = crate ]" ||
	t_fail "stopped: pane title '$(pane_title)'"

t_begin tui_jump_to_playing_in_the_playlist
# Play Road's "Slow Song" from view 2, go to its top, then to view 3: i
# comes back to the playlist and that row (d removes exactly it).
keys 2
wait_for "Playlist Road" || t_fail "view 2"
want="Slow Song"
keys g
for ((k = 0; k < ${#road[@]}; k++)); do
	[ "${road[$k]}" = "$want" ] && break
	keys j
done
keys Enter
wait_until 3 sh -c "'$CRATE' --db '$DB' remote status | grep -qF -- '$want'" || t_fail "not playing $want"
keys g 1
wait_for "All 7 artists" || t_fail "view 1"
keys 3
wait_for "Collections" || t_fail "view 3"
keys i
wait_for "Playlist Road" || t_fail "i did not open the playlist"
wait_until 3 sh -c "$TM display -p -t $S '#{pane_title}' | grep -qF 'Slow Band – Slow Song'" ||
	t_fail "pane title: '$(pane_title)'"
keys d
for i in $(seq 40); do
	titles Road | grep -qxF -- "$want" || break
	sleep 0.05
done
titles Road | grep -qxF -- "$want" && t_fail "d after i did not remove the playing entry '$want'"
# Long Song was added above, Slow Song removed now.
[ "$(titles Road | wc -l)" -eq "${#road[@]}" ] || t_fail "not one entry removed"
keys v

t_begin tui_messages_expire_at_the_next_action
keys 1
wait_for "All 7 artists" || t_fail "view 1"
keys l l '*'
wait_for "Rate the selected track" || t_fail "no prompt"
keys 3
wait_for "3 stars" || t_fail "no message"
keys j
wait_gone "3 stars" 2 || t_fail "the message outlived the next key"
# ... and after a few seconds without keys.
keys '*'
wait_for "Rate the selected track" || t_fail "no prompt"
keys 2
wait_for "2 stars" || t_fail "no message"
sleep 3
screen | grep -q "2 stars" || t_fail "the message went too soon"
wait_gone "2 stars" 4 || t_fail "the message never expired"
# An error outlives a key pressed right after it, so it can be read.
keys :
typed "nosuchcommand"
keys Enter
wait_for "nosuchcommand" || t_fail "no error"
keys j
sleep 0.3
screen | grep -q "unknown command" || t_fail "the error went at once: $(screen | tail -1)"

t_begin tui_save_asks_before_replacing_a_collection
c coll save Mine 'a:"Mira Sol"' >/dev/null || t_fail "coll save"
keys /
typed "g:Jazz"
keys Enter
keys s
wait_for "Save search as" || t_fail "no save prompt"
typed "Mine"
keys Enter
wait_for "Collections/Mine exists. Replace it? (y/n)" || t_fail "did not ask"
keys n
wait_for "cancelled" || t_fail "n did not cancel"
c coll show Mine | grep -q "Mira Sol" || t_fail "n replaced it: $(c coll show Mine)"
keys s
wait_for "Save search as" || t_fail "no save prompt"
typed "Mine"
keys Enter
wait_for "Replace it?" || t_fail "did not ask again"
keys y
wait_for "saved Collections/Mine" || t_fail "y did not save"
c coll show Mine | grep -qi "jazz" || t_fail "y did not replace it: $(c coll show Mine)"
# A new name is saved without a question.
keys s
typed "Fresh"
keys Enter
wait_for "saved Collections/Fresh" || t_fail "a new name asked"
keys Escape

t_begin tui_search_bar_marks_cut_ends
keys /
typed "a:"
wait_for "keep typing:" || t_fail "no hint for an incomplete query"
screen | grep '^/' | grep -q "…" && t_fail "an ellipsis in the bar: $(screen | grep '^/')"
keys C-u
long=""
for w in alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike \
	november oscar papa quebec romeo sierra tango uniform victor whiskey xray yankee zulu; do
	long="$long$w "
done
typed "${long}end"
sleep 0.3
bar=$(screen | grep '^/' | head -1)
case "$bar" in
"/‹"*) ;;
*) t_fail "no left marker on a long query: '$bar'" ;;
esac
echo "$bar" | grep -q "end" || t_fail "the cursor's end is not shown: '$bar'"
echo "$bar" | grep -q "›" && t_fail "a right marker with the cursor at the end: '$bar'"
keys C-a
sleep 0.3
bar=$(screen | grep '^/' | head -1)
case "$bar" in
"/alpha bravo"*"›"*) ;;
*) t_fail "no right marker with the cursor at the start: '$bar'" ;;
esac
keys Escape
keys q
wait_until 3 sh -c "! $TM display -p -t $S '#{pane_title}' | grep -q 'crate'" ||
	t_fail "the title was not cleared on exit: '$(pane_title)'"

t_begin tui_title_off
printf '[output]\npace = true\n[display]\ntitle = off\n' >"$T_TMP/notitle"
start_ui "$T_TMP/notitle" || t_fail "no title bar"
keys /
keys C-u
typed 'a:"Long Player"'
keys Enter l l Enter
wait_for "Long Player – Long Song" || t_fail "not playing"
sleep 0.5
pane_title | grep -q "crate" && t_fail "display.title = off still set '$(pane_title)'"
keys v q
t_end
