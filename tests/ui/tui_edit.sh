#!/usr/bin/env bash
# Editing lists in place (issue 17): K/J (P/p) move entries in the playlist
# and the queue, Space marks a row, m marks what the search matches, M
# clears, and d, e, a, * act on the marks; u undoes the last playlist edit,
# after a restart too, and refuses when another process edited the list
# since. Real binary in a private tmux server, audio to a file.
. "$(dirname "$0")/../lib.sh"

. "$SRCDIR/tests/lib_tmux.sh"
tmux_suite edit
MUSIC=$T_TMP/music
start_ui() { tmux_crate 100 30; }
c() { "$CRATE" --db "$DB" "$@"; }
titles() { c playlist list "$1" --format '%title%' | sed 's/^[ >]*[0-9]*\. //' | tr '\n' '|'; }
# wait_titles LIST WANT: poll until LIST's titles (joined by |) are WANT.
wait_titles() {
	local i got
	for ((i = 0; i < 60; i++)); do
		got=$(titles "$1")
		[ "$got" = "$2" ] && return 0
		sleep 0.05
	done
	echo "    --- $1: $got" >&2
	echo "    --- want: $2" >&2
	return 1
}
# The list as an array of titles, A[0] first.
load() { IFS='|' read -r -a A <<<"$(titles Edit)"; }
join() { local IFS='|'; echo "$*|"; }

t_begin tui_edit_setup
mkdir -p "$MUSIC"
cp "$SRCDIR"/data/demo/* "$MUSIC"/ 2>/dev/null
c scan --quiet "$MUSIC" >/dev/null 2>&1 || t_fail "scan failed"
c playlist new Edit >/dev/null && c playlist add Edit '* ORDER BY title' >/dev/null ||
	t_fail "playlist"
c playlist use Edit >/dev/null || t_fail "use"
load
O=("${A[@]}")
[ "${#O[@]}" -ge 8 ] || t_fail "Edit has ${#O[@]} entries"

t_begin tui_edit_move_entries_with_K_J_P_p
start_ui || t_fail "no title bar"
keys 2
wait_for "Playlist Edit" || t_fail "playlist view"
keys g J
wait_titles Edit "$(join "${O[1]}" "${O[0]}" "${O[@]:2}")" || t_fail "J did not move entry 1 down"
wait_for "moved 1 entry down" || t_fail "no message"
# the cursor followed the entry: K brings it back
keys K
wait_titles Edit "$(join "${O[@]}")" || t_fail "K did not move it back"
keys g p
wait_titles Edit "$(join "${O[1]}" "${O[0]}" "${O[@]:2}")" || t_fail "p did not move down"
keys P
wait_titles Edit "$(join "${O[@]}")" || t_fail "P did not move up"
# at the top already: nothing changes, and it says so
keys g K
wait_for "already at the top" || t_fail "no message at the edge"

t_begin tui_edit_space_marks_and_moves_marked
keys g Space Space j Space
# rows 1, 2 and 4 show the mark glyph
wait_until 3 sh -c "[ \$($TM capture-pane -p -t $S | grep -c '^+ *[0-9]*\\. ') -eq 3 ]" ||
	t_fail "marked rows not shown: $(screen | grep '^+')"
screen | grep -q '^+   1\. ' || t_fail "row 1 not marked: $(screen | grep '   1\. ')"
screen | grep -q '^ *3\. ' || screen | grep -q '^.   3\. ' || t_fail "row 3 missing"
screen | grep -q '^+   3\. ' && t_fail "row 3 marked"
keys J
# 1 2 4 marked, moved down: 4 over 5, 2 over 3, 1 over 2's old place
wait_titles Edit "$(join "${O[2]}" "${O[0]}" "${O[1]}" "${O[4]}" "${O[3]}" "${O[@]:5}")" ||
	t_fail "J with marks"
wait_for "moved 3 entries down" || t_fail "no message"
# the marks followed their entries (now rows 2, 3, 5)
screen | grep -q '^+   2\. ' && screen | grep -q '^+   5\. ' || t_fail "marks did not follow"
keys K
wait_titles Edit "$(join "${O[@]}")" || t_fail "K with marks did not move them back"
keys M
wait_for "marks cleared" || t_fail "M"
[ "$(screen | grep -c '^+ *[0-9]*\. ')" -eq 0 ] || t_fail "marks still shown after M"

t_begin tui_edit_mark_matches_remove_marked_and_undo
keys /
typed "t~e"
keys Enter
n_match=0
for t in "${O[@]}"; do case "$t" in *[eE]*) n_match=$((n_match + 1)) ;; esac; done
keys m
wait_for "marked $n_match entr" || t_fail "m did not mark the $n_match finds"
keys Escape d
keep=()
for t in "${O[@]}"; do case "$t" in *[eE]*) ;; *) keep+=("$t") ;; esac; done
wait_titles Edit "$(join "${keep[@]}")" || t_fail "d did not remove exactly the marked entries"
wait_for "removed $n_match entries" || t_fail "no message"
keys u
wait_titles Edit "$(join "${O[@]}")" || t_fail "u did not restore the list"
wait_for "undid the removal of $n_match entries in Edit" || t_fail "no undo message"
# more than one level: the marked rows' K, then their J
keys u
wait_titles Edit "$(join "${O[2]}" "${O[0]}" "${O[1]}" "${O[4]}" "${O[3]}" "${O[@]:5}")" ||
	t_fail "a second u did not undo the K before"
keys u
wait_titles Edit "$(join "${O[@]}")" || t_fail "a third u did not undo the J"

t_begin tui_edit_marks_follow_their_entries_when_the_list_changes
# Entries 3 and 5 marked, another program removed entry 1 (as the queue
# playing on or a Party Shuffle refill does): the marks went, and d then
# removed the cursor row alone. They go with their entries, as the cursor.
keys M g j j Space j Space
wait_until 3 sh -c "[ \$($TM capture-pane -p -t $S | grep -c '^+ *[35]\\. ') -eq 2 ]" ||
	t_fail "rows 3 and 5 not marked: $(screen | grep '^+')"
c playlist remove Edit 1 >/dev/null || t_fail "playlist remove"
wait_titles Edit "$(join "${O[@]:1}")" || t_fail "the shell's removal"
wait_until 3 sh -c "[ \$($TM capture-pane -p -t $S | grep -c '^+ *[24]\\. ') -eq 2 ]" ||
	t_fail "the marks did not follow: $(screen | grep '^+')"
keys d
wait_titles Edit "$(join "${O[1]}" "${O[3]}" "${O[@]:5}")" || t_fail "d did not remove the marked"
wait_for "removed 2 entries" || t_fail "d: $(screen | tail -1)"
keys u
wait_titles Edit "$(join "${O[@]:1}")" || t_fail "u did not undo d"
keys u
wait_titles Edit "$(join "${O[@]}")" || t_fail "u did not undo the shell's removal"

t_begin tui_edit_enqueue_and_add_marked_in_the_browser
keys 1
wait_for "All 5 artists" || t_fail "browser"
keys l l g Space Space
keys e
wait_for "queued 2 marked tracks" || t_fail "e with marks"
[ "$(c playlist list Queue --format '%title%' | wc -l)" -eq 2 ] || t_fail "Queue: $(titles Queue)"
keys M /
typed 'a:"Mira Sol"'
keys Enter
wait_for "Track 10" || t_fail "search"
keys m
wait_for "marked 2 tracks" || t_fail "m in the browser: $(screen | tail -1)"
keys '*'
wait_for "Rate the marked tracks" || t_fail "the rating prompt does not say marked"
keys 3
wait_for "rated 2 marked tracks: 3 stars" || t_fail "* with marks"
[ "$(c search 'r:3' --format '%title%' | wc -l)" -eq 2 ] || t_fail "r:3 finds $(c search 'r:3' --format '%title%')"
keys a
wait_for "added 2 marked tracks to Edit" || t_fail "a with marks"
load
[ "${#A[@]}" -eq $((${#O[@]} + 2)) ] || t_fail "Edit has ${#A[@]} entries"
keys u
wait_titles Edit "$(join "${O[@]}")" || t_fail "u did not take back the addition"
keys Q
wait_for "Playlist Queue" || t_fail "queue view"
mapfile -t q < <(c playlist list Queue --format '%title%' | sed 's/^[ >]*[0-9]*\. //')
keys G K
wait_titles Queue "$(join "${q[1]}" "${q[0]}")" || t_fail "K in the queue view"

t_begin tui_edit_undo_survives_restart
keys Q
wait_for "Playlist Edit" || t_fail "playlist view"
keys g J
wait_titles Edit "$(join "${O[1]}" "${O[0]}" "${O[@]:2}")" || t_fail "J"
keys q
start_ui || t_fail "no title bar after restart"
keys u
wait_titles Edit "$(join "${O[@]}")" || t_fail "u after a restart"
wait_for "undid the move of 1 entry in Edit" || t_fail "no message"

t_begin tui_edit_undo_refused_after_another_process
keys 2
wait_for "Playlist Edit" || t_fail "playlist view"
keys g J
wait_titles Edit "$(join "${O[1]}" "${O[0]}" "${O[@]:2}")" || t_fail "J"
# A shell's playlist edit is recorded (and u takes it back: see
# tui_edit_undo_takes_back_the_shells_edits); coll import over the list is
# a change that is not.
c coll export Playlists/Edit | sed 's/\[\([0-9]*\), \([0-9]*\),/[\2, \1,/' |
	c coll import --force Playlists/Edit - >/dev/null || t_fail "coll import"
load
other=("${A[@]}")
keys u
wait_for "was changed since" || t_fail "undo not refused: $(screen | tail -2)"
sleep 0.3
wait_titles Edit "$(join "${other[@]}")" || t_fail "the other process's edit was clobbered"
keys q

t_begin tui_edit_undo_takes_back_clear_shuffle_sort_and_remove
# ':playlist clear' said "done" and u then refused ("changed since (by
# another process or command)"): the list was lost, as was the order of
# a list shuffled or sorted by mistake. These edits are recorded too.
start_ui || t_fail "no title bar"
keys 2
wait_for "Playlist Edit" || t_fail "playlist view"
load
before=$(join "${A[@]}")
n=${#A[@]}
changed() { [ "$(titles Edit)" != "$before" ]; }
# undo_after COMMAND LABEL: the command changes Edit, u puts it back
undo_after() {
	keys :
	typed "$1"
	keys Enter
	wait_until 3 changed || t_fail "$1 changed nothing"
	keys u
	wait_titles Edit "$before" || t_fail "u after $1"
	wait_for "undid the $2 in Edit" || t_fail "$1: $(screen | tail -2)"
}
undo_after "playlist clear Edit" "clearing of $n entries"
undo_after "playlist shuffle Edit" "shuffle of $n entries"
undo_after "playlist sort Edit -title" "sort of $n entries"
undo_after "playlist remove Edit 1-3" "removal of 3 entries"
keys q

t_begin tui_edit_undo_takes_back_the_shells_edits
# crate playlist add, insert, move and import --append were not recorded:
# u refused ("was changed since") or took back an older edit, so an import
# into the wrong list could not be taken back. They are recorded now, as
# clear, remove, shuffle and sort were.
start_ui || t_fail "no title bar"
keys 2
wait_for "Playlist Edit" || t_fail "playlist view"
load
before=$(join "${A[@]}")
changed() { [ "$(titles Edit)" != "$before" ]; }
c playlist list Edit --format '%url%' | sed 's/^[ >]*[0-9]*\. //' | head -2 >"$T_TMP/two.m3u"
q="title:\"${A[0]}\""
n=$(c search --exact "$q" | wc -l)
[ "$n" -ge 1 ] || t_fail "$q finds nothing"
added="addition of $n $( [ "$n" = 1 ] && echo entry || echo entries)"
# shell_undo LABEL COMMAND...: the command changes Edit, u puts it back
shell_undo() {
	local label=$1
	shift
	c "$@" >/dev/null 2>&1 || t_fail "$* failed"
	wait_until 3 changed || t_fail "$* changed nothing"
	keys u
	wait_titles Edit "$before" || t_fail "u after $*"
	wait_for "undid the $label in Edit" || t_fail "$*: $(screen | tail -2)"
}
shell_undo "$added" playlist add Edit "$q" --exact
shell_undo "$added" playlist insert Edit 2 "$q" --exact
shell_undo "move of 1 entry" playlist move Edit 1 3
shell_undo "addition of 2 entries" playlist import --append Edit "$T_TMP/two.m3u"
keys q

t_begin tui_edit_cmdline_edits_say_what_they_did
# ':playlist clear Edit' answered "done" (a shell, nothing at all): not
# which list, how many entries, nor that u takes it back.
start_ui || t_fail "no title bar"
keys 2
wait_for "Playlist Edit" || t_fail "playlist view"
load
before=$(join "${A[@]}")
n=${#A[@]}
c coll export Playlists/Edit >"$T_TMP/edit.json"
# said COMMAND MESSAGE: the ':' line's answer, then u puts Edit back
said() {
	keys :
	typed "$1"
	keys Enter
	wait_for "$2" || t_fail ":$1: $(screen | tail -1)"
	if [ "${2% (u undoes)}" != "$2" ]; then
		keys u
		wait_titles Edit "$before" || t_fail "u after :$1"
	fi
}
said "playlist clear Edit" "cleared Playlists/Edit: $n entries (u undoes)"
said "playlist shuffle Edit" "shuffled Playlists/Edit: $n entries (u undoes)"
said "playlist sort Edit -title" "sorted Playlists/Edit by -title: $n entries (u undoes)"
said "playlist move Edit 1 2" "moved entry 1 of Playlists/Edit to position 2 (u undoes)"
said "playlist remove Edit 2-3" "removed 2 entries from Playlists/Edit (u undoes)"
said "playlist import --append Edit $T_TMP/two.m3u" "2 of 2 entries imported (0 newly scanned), 0 not imported (u undoes)"
said "add http://radio.example.invalid/u.mp3" "added the stream to the playlist (u undoes)"
said "playlist add Edit zzqqxx" "nothing matches 'zzqqxx'"
said "playlist new Other" "created Playlists/Other"
said "playlist jump Edit Other" "Playlists/Edit jumps to Playlists/Other when it ends"
said "playlist clear Other" "Playlists/Other is empty already"
keys q
# a shell is told too, on stderr, without the key
[ "$(c playlist sort Edit -title 2>&1 >/dev/null)" = "sorted Playlists/Edit by -title: $n entries" ] ||
	t_fail "shell sort: $(c playlist sort Edit -title 2>&1)"
[ "$(c playlist sort Edit -title 2>&1 >/dev/null)" = "Playlists/Edit is in that order already" ] ||
	t_fail "shell sort again: $(c playlist sort Edit -title 2>&1)"
# as it was for the tests below
c playlist jump Edit --none >/dev/null 2>&1
c coll remove Playlists/Other >/dev/null 2>&1
c coll import --force Playlists/Edit "$T_TMP/edit.json" >/dev/null || t_fail "put Edit back"

t_begin tui_edit_find_forgives_as_the_browser_does_and_counts
# The browser's search finds "The Lanterns" for lantern (a typo away) and
# Björk for a:bjork (her name's words): the playlist's find does too, and
# counts its matches where the browser counts its tracks.
c playlist use Edit >/dev/null || t_fail "use Edit"
start_ui || t_fail "no title bar"
keys 2
wait_for "Playlist Edit" || t_fail "playlist view"
keys /
typed "lantern"
keys Enter
wait_for "3 of ${#O[@]} entries — also showing matches for lanterns" ||
	t_fail "lantern: no count or note"
# from the last entry, n wraps to the first match: Space marks it
first=$(c playlist list Edit --format '%pos%. %artist%' | grep -m1 'Lanterns' | cut -d. -f1)
keys G n Space
wait_until 3 sh -c "$TM capture-pane -p -t $S | grep -qE '^\+ +$first\. The Lanterns'" ||
	t_fail "n did not go to the first match (entry $first): $(screen | grep '^+')"
keys M m
wait_for "marked 3 entries" || t_fail "m did not mark the 3 matches"
keys M / C-u
typed "a:bjork"
keys Enter
wait_for "2 of ${#O[@]} entries — no artist 'bjork'" || t_fail "a:bjork: no count or note"
keys / C-u Enter
wait_gone "of ${#O[@]} entries" || t_fail "the count outlives its find"
keys q

t_begin tui_edit_one_entry_is_not_entries
# A count of 1 is singular wherever entries are counted.
c playlist new One >/dev/null && c playlist add One "t:\"${O[0]}\"" >/dev/null 2>&1 &&
	c playlist use One >/dev/null || t_fail "playlist One"
start_ui || t_fail "no title bar"
keys 2
wait_for "Playlist One (active) – 1 entry" || t_fail "the header does not say 1 entry"
keys 3
wait_for "1 entry" || t_fail "the collections view does not say 1 entry"
screen | grep -qE '(^|[^0-9])1 entries' && t_fail "'1 entries' on the collections view"
keys :
typed "playlist move One 1 2"
keys Enter
wait_for "position 2 is past the end (1 entry)" || t_fail "the refusal does not say 1 entry"
keys q

t_begin tui_edit_rate_on_an_artist_row_rates_its_tracks
# * on an artist row takes all its tracks, as a, e and Space do, and the
# prompt says how many; it rated the first of them alone.
start_ui || t_fail "no title bar"
keys 1
wait_for " artist" || t_fail "browser"
keys M /
keys C-u
typed 'a:"Mira Sol"'
keys Enter
wait_for "Track 10" || t_fail "search"
keys h h h g j '*'
wait_for "Rate the 2 tracks of the selected row: 0-5" || t_fail "the prompt: $(screen | tail -1)"
keys 5
wait_for "rated 2 tracks: 5 stars" || t_fail "the message: $(screen | tail -1)"
[ "$(c search 'a:"Mira Sol" r:5' --format '%title%' | wc -l)" -eq 2 ] ||
	t_fail "r:5 finds $(c search 'r:5' --format '%title%' | tr '\n' '|')"
keys q

t_begin tui_edit_find_moves_the_cursor_to_the_first_match
# / word Enter puts the cursor on the first match at or after it, as in
# cmus, vim and less (it stayed, and only n moved it); past the last one
# it wraps to the top and says so; no match says so and leaves the
# cursor; the cursor follows the typing too. Space shows where it is.
c playlist use Edit >/dev/null || t_fail "use Edit"
marked_rows() { screen | grep -oE '^\+ +[0-9]+\.' | grep -oE '[0-9]+' | tr '\n' ' '; }
marked_are() { [ "$(marked_rows)" = "$1" ]; }
wait_marked() { wait_until 3 marked_are "$1" || t_fail "$2: marked rows $(marked_rows), want $1"; }
# Mira Sol's are entries 7 and 9, The Lanterns' 3, 5 and 6 (by title)
mira=$(c playlist list Edit --format '%artist%' | grep -n 'Mira Sol' | cut -d: -f1 | tr '\n' ' ')
lant=$(c playlist list Edit --format '%artist%' | grep -n 'Lanterns' | cut -d: -f1 | head -1)
start_ui || t_fail "no title bar"
keys 2
wait_for "Playlist Edit" || t_fail "playlist view"
keys g /
typed "mira"
keys Enter
wait_for "2 of ${#O[@]} entries" || t_fail "no count"
keys Space n Space
wait_marked "$mira" "Enter then n"
keys M G / C-u
typed "lanterns"
keys Enter
wait_for "find wrapped to the top" || t_fail "the wrap is not said"
keys Space
wait_marked "$lant " "Enter from the last entry"
keys M / C-u
typed "zzqx"
keys Enter
wait_for "no match for zzqx" || t_fail "no match is not said"
keys Space
wait_marked "$((lant + 1)) " "Enter with no match"
keys M g / C-u
typed "salt"
wait_for "1 of ${#O[@]} entries" || t_fail "no count while typing"
keys Escape Space
wait_marked "$(c playlist list Edit --format '%title%' | grep -n 'Salt Wind' | cut -d: -f1) " \
	"typing salt"
keys M
# views 3 and 4 find by name: Enter goes to the match there too
c coll save Night 'a:"Mira Sol"' >/dev/null && c rule add 'y>1900' >/dev/null 2>&1 &&
	c rule add 'y<1800' >/dev/null 2>&1 || t_fail "coll save, rule add"
keys 3
wait_for "Night" || t_fail "collections view"
keys g /
typed "one"
keys Enter d
wait_for "Remove Playlists/One?" || t_fail "view 3: d on $(screen | tail -1)"
keys n 4
wait_for "y<1800" || t_fail "rules view"
keys g /
typed "1800"
keys Enter d
wait_for "Remove rule 2 (y<1800)?" || t_fail "view 4: d on $(screen | tail -1)"
keys n q
c rule remove 2 >/dev/null 2>&1 && c rule remove 1 >/dev/null 2>&1 || t_fail "rule remove"

t_begin tui_edit_messages_are_read_whole_on_a_narrow_screen
# At 20x6 the find's message was cut to "find wrapped to the…", and at 80
# columns a long error lost its end: a message wider than the bottom row
# now goes on in the rows above it while it shows.
start_ui || t_fail "no title bar"
keys 2
wait_for "Playlist Edit" || t_fail "playlist view"
$TM resize-window -t "$S" -x 20 -y 6
keys G / C-u
typed "lanterns"
keys Enter
wait_for "find wrapped to the" || t_fail "the wrap is not said: $(screen | tail -2)"
screen | tail -2 | head -1 | grep -qx "find wrapped to the *" &&
	screen | tail -1 | grep -qx "  top *" || t_fail "the message at 20x6: $(screen | tail -2)"
keys / C-u Escape
# a question too: it was cut to "Rate the selected …", the keys it
# takes not shown
keys '*'
wait_for "clears)" || t_fail "the rate prompt at 20x6: $(screen | tail -3)"
[ "$(screen | tail -3 | sed 's/ *$//' | tr '\n' '|')" = "Rate the selected|  track: 0-5 (0|  clears)|" ] ||
	t_fail "the rate prompt at 20x6: $(screen | tail -3)"
keys Escape
wait_for "cancelled" || t_fail "Esc did not cancel the rating"
$TM resize-window -t "$S" -x 80 -y 24
keys :
typed "playlist add Edit 'a:nobody_at_all_is_here OR t:and_no_title_matches_either'"
keys Enter
wait_for "nothing added to Playlists/Edit" ||
	t_fail "the end of the error is cut: $(screen | tail -2)"
screen | tail -2 | head -1 | grep -q "^crate: nothing matches 'a:nobody_at_all_is_here" ||
	t_fail "its start: $(screen | tail -2)"
keys q

t_begin tui_edit_find_follows_the_list_shown
# The find's marks are positions: Q showing the queue kept those made on
# the list left, so the bar counted Edit's matches ("2 of 3 entries") and
# m marked the queue's entries at Edit's match positions.
c playlist add Queue 't:"Track 10"' >/dev/null 2>&1 || t_fail "enqueue"
qmira=$(c playlist list Queue --format '%artist%' | grep -n 'Mira Sol' | cut -d: -f1 | tr '\n' ' ')
qn=$(c playlist list Queue --format '%title%' | wc -l)
nq=$(wc -w <<<"$qmira")
start_ui || t_fail "no title bar"
keys 2
wait_for "Playlist Edit" || t_fail "playlist view"
keys / C-u
typed "mira"
keys Enter
wait_for "2 of ${#O[@]} entries" || t_fail "no count on Edit"
keys Q
wait_for "Playlist Queue" || t_fail "Q"
wait_for "$nq of $qn entries" || t_fail "the count on the queue"
keys m
wait_marked "$qmira" "m on the queue"
keys M Q
wait_for "2 of ${#O[@]} entries" || t_fail "the count back on Edit"
keys / C-u Enter q

t_begin tui_edit_find_counts_its_matches_in_views_3_and_4
# View 2's find says "0 of 12 entries" as it is typed; the collections
# and rules views said nothing, so a find matching nothing looked like one
# matching. They count too.
c rule add 'y>1900' >/dev/null 2>&1 && c rule add 'y<1800' >/dev/null 2>&1 || t_fail "rule add"
start_ui || t_fail "no title bar"
keys 3
wait_for "Night" || t_fail "collections view"
keys /
typed "zzqx"
wait_for "no match" || t_fail "view 3: no count for zzqx"
keys C-u
typed "e"
wait_for "5 matches" || t_fail "view 3: the count for e (All Media, Default, Edit, One, Queue)"
keys Escape 4
wait_for "y<1800" || t_fail "rules view"
keys /
typed "1800"
wait_for "1 match" || t_fail "view 4: the count for 1800"
keys Escape q
c rule remove 2 >/dev/null 2>&1 && c rule remove 1 >/dev/null 2>&1 || t_fail "rule remove"

t_begin tui_edit_a_and_e_in_view_3_take_the_collections_tracks
# In view 3, a and e on a saved collection said "nothing selected" with
# the cursor on it: they now add its tracks to the active playlist and to
# the queue, in its order, as Enter would browse them.
c coll save Pair 'a:"Mira Sol" ORDER BY title' >/dev/null || t_fail "coll save"
want=$(c search 'a:"Mira Sol" ORDER BY title' --format '%title%' | tr '\n' '|')
c playlist new Into >/dev/null && c playlist use Into >/dev/null || t_fail "playlist Into"
c playlist clear Queue >/dev/null 2>&1
start_ui || t_fail "no title bar"
keys 3
wait_for "Pair" || t_fail "collections view"
keys / C-u
typed "pair"
keys Enter a
wait_for "added 2 tracks to Into" || t_fail "a on Pair: $(screen | tail -1)"
wait_titles Into "$want" || t_fail "Into after a"
keys e
wait_for "queued 2 tracks" || t_fail "e on Pair: $(screen | tail -1)"
wait_titles Queue "$want" || t_fail "the queue after e"
keys / C-u Escape q

t_begin tui_edit_n_without_a_find_says_so
# n and N with nothing found did nothing and said nothing (m said why).
start_ui || t_fail "no title bar"
keys 2
wait_for "Playlist" || t_fail "playlist view"
keys n
wait_for "no find to step through: / finds" || t_fail "n: $(screen | tail -1)"
keys 3 N
wait_for "no find to step through: / finds" || t_fail "N in view 3: $(screen | tail -1)"
keys 2 /
typed "a:"
keys Enter n
wait_for "the find is not a query yet: / to finish it" || t_fail "n on a:: $(screen | tail -1)"
keys / C-u Escape q

t_begin tui_edit_forgotten_entry_is_no_longer_in_the_library
# An entry whose row is gone (crate forget, scan --prune) reads as the CLI
# says it, not '?  (missing)' like an unknown file; an entry whose file is
# only missing keeps its stored name and '(missing)'. Last: it changes the
# library.
c playlist new Gone >/dev/null && c playlist add Gone "t:\"${O[0]}\"" >/dev/null 2>&1 &&
	c playlist add Gone "t:\"${O[1]}\"" >/dev/null 2>&1 && c playlist use Gone >/dev/null ||
	t_fail "playlist Gone"
ids=($(c playlist list Gone --format '%id%'))
url=$(c playlist list Gone --format '%url%' | sed -n 2p)
[ "${#ids[@]}" -eq 2 ] && [ -f "$url" ] || t_fail "entries: ${ids[*]}, url $url"
c forget --yes "t:\"${O[0]}\"" >/dev/null 2>&1 || t_fail "forget"
rm -f "$url" && c scan --quiet "$MUSIC" >/dev/null 2>&1
c playlist list Gone | grep -q "(#${ids[0]} is no longer in the library)" ||
	t_fail "the CLI: $(c playlist list Gone 2>&1)"
start_ui || t_fail "no title bar"
keys 2
wait_for "Playlist Gone" || t_fail "playlist view"
wait_for "1. #${ids[0]} (no longer in the library)" ||
	t_fail "the forgotten entry: $(screen | grep -F '1. ')"
screen | grep -qF '?  (missing)' && t_fail "shown as an unknown missing file: $(screen | grep -F '(missing)')"
screen | grep -F '2. ' | grep -qF "${O[1]}  (missing)" || t_fail "the missing entry: $(screen | grep -F '2. ')"
keys q
t_end
