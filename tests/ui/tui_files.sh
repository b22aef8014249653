#!/usr/bin/env bash
# View 5, the file system (issue 17 part 5): it opens at the library's
# root, folders are entered and left, library files are marked and folders
# count their items, hidden files toggle, names that are not UTF-8 or hold
# control characters show safely, a folder not in the library is scanned
# into it, a file or folder goes to the playlist or the queue, Enter plays
# a file, an unreadable folder says so and the view stays. Real binary in a
# private tmux server, audio to a file.
. "$(dirname "$0")/../lib.sh"

. "$SRCDIR/tests/lib_tmux.sh"
tmux_suite files
printf '[output]\npace = true\n' >"$CONF"
MUSIC=$T_TMP/music
start_ui() { tmux_crate 110 30; }
c() { "$CRATE" --db "$DB" "$@"; }
# find TEXT: filter the view by name (the cursor lands on the first row shown).
find() { keys /; keys C-u; typed "$1"; keys Enter; }
count_lines() { c playlist list "$1" --format '%title%' 2>/dev/null | grep -c .; }

t_begin tui_files_setup
D=$SRCDIR/data/demo
mkdir -p "$MUSIC/lib/Disc 2" "$MUSIC/new" "$MUSIC/locked"
cp "$D/01 Harbour Lights.ogg" "$D/02 Salt Wind.ogg" "$MUSIC/lib/"
cp "$D/03 Morning (Morning mix).ogg" "$MUSIC/lib/Disc 2/"
cp "$D/02 Beat Street.opus" "$D/01 Kraftwerk Dreams.opus" "$MUSIC/new/"
cp "$D/01 Stairway Down.mp3" "$MUSIC/locked/"
touch "$MUSIC/lib/.hidden-note" "$MUSIC/lib/notes.txt"
touch "$MUSIC/lib/caf"$'\xe9'".txt" "$MUSIC/lib/esc"$'\x1b'"[2Jx.txt"
c scan --quiet "$MUSIC/lib" >/dev/null 2>&1 || t_fail "scan failed"
c playlist new Road >/dev/null && c playlist use Road >/dev/null || t_fail "playlist"
c search 'Beat Street' --format '%title%' | grep -q . && t_fail "new/ is in the library already"

t_begin tui_files_view_5_opens_at_the_root_with_marks
start_ui || t_fail "no title bar"
screen | grep -qF "5 Files" || t_fail "no tab for view 5"
keys 5
wait_for "lib – 1 folder, 5 files, 2 in the library" || t_fail "not at the root"
wait_for "Disc 2/" || t_fail "no folder row"
screen | grep -qF "Disc 2/" && screen | grep "Disc 2/" | grep -qF "1 item" ||
	t_fail "the folder does not count its item"
screen | grep -qF "✓ 01 Harbour Lights.ogg" || t_fail "no library mark"
screen | grep -qF "✓ notes.txt" && t_fail "a file not in the library is marked"
# Folders first, then files in natural, case-insensitive order.
order=$(screen | grep -oE "(Disc 2/|01 Harbour|02 Salt|caf|esc|notes)" | tr '\n' ' ')
[ "$order" = "Disc 2/ 01 Harbour 02 Salt caf esc notes " ] || t_fail "order: $order"

t_begin tui_files_names_are_shown_safely
screen | grep -qF "caf�.txt" || t_fail "a Latin-1 name is not shown with a replacement"
screen | grep -qF "esc�[2Jx.txt" || t_fail "a control character reached the screen"
wait_for "01 Harbour Lights.ogg" || t_fail "the screen was cleared by a name"

t_begin tui_files_hidden_toggle
screen | grep -qF ".hidden-note" && t_fail "hidden file shown"
keys .
wait_for ".hidden-note" || t_fail ". did not show hidden files"
keys .
wait_gone ".hidden-note" || t_fail ". did not hide them again"

t_begin tui_files_up_and_into_folders
keys BSpace
wait_for "music – 3 folders, 0 files" || t_fail "Backspace did not go up"
screen | grep "lib/" | grep -qF "3 items" || t_fail "lib/ does not count 3 items"
keys Enter
wait_for "lib – 1 folder" || t_fail "Enter on the folder we came from did not open it"
keys h
wait_for "music – 3 folders" || t_fail "h did not go up"
find new
keys l
wait_for "new – 0 folders, 2 files, 0 in the library" || t_fail "l did not enter new/"
keys Left
wait_for "music – 3 folders" || t_fail "Left did not go up"
keys Right
wait_for "new – 0 folders" || t_fail "Right did not enter"

t_begin tui_files_a_file_not_in_the_library_says_so
keys a
wait_for "this file is not in the library (A adds it)" || t_fail "no message"
[ "$(count_lines Road)" -eq 0 ] || t_fail "something was added to Road"

t_begin tui_files_A_scans_a_folder_into_the_library
keys BSpace
wait_for "music – 3 folders" || t_fail "up"
find new
keys A
wait_for "scan done: 2 added" 20 || t_fail "the scan did not run"
c search 'Beat Street' --format '%title%' | grep -q "Beat Street" || t_fail "crate search does not find it"
keys Escape
wait_for "lib/" || t_fail "the find was not cleared"
screen | grep "new/" | grep -qF "2 items" || t_fail "new/ does not count its items after the scan"

t_begin tui_files_a_adds_a_file_and_a_folder_to_the_playlist
keys Enter
wait_for "new – 0 folders, 2 files, 2 in the library" || t_fail "marks after the scan"
find Kraftwerk
keys a
wait_for "added 1 track to Road" || t_fail "no message for the file"
[ "$(count_lines Road)" -eq 1 ] || t_fail "Road has $(count_lines Road) entries"
keys BSpace
wait_for "music – 3 folders" || t_fail "up"
find lib
keys a
wait_for "added 3 tracks to Road" || t_fail "no message for the folder"
mapfile -t road < <(c playlist list Road --format '%title%' | sed 's/^[ >]*[0-9]*\. //')
# The folder's tracks in the view's order: its subfolder first.
[ "${road[*]}" = "Kraftwerk Dreams Morning (Morning mix) Harbour Lights Salt Wind" ] ||
	t_fail "Road: ${road[*]}"

t_begin tui_files_e_enqueues
keys Enter
wait_for "lib – 1 folder" || t_fail "into lib"
find Salt
keys e
wait_for "queued 1 track" || t_fail "no message"
c playlist list Queue --format '%title%' | grep -q "Salt Wind" || t_fail "not in the queue"

t_begin tui_files_enter_plays_a_file
# Only that file plays: the active playlist (Road) keeps its entries and
# stays the active one.
road_before=$(c playlist list Road --format '%title%')
find Harbour
keys Enter
wait_for "▶" 10 || t_fail "nothing plays"
screen | grep "▶" | grep -qF "Harbour Lights" || t_fail "the status line does not show the file"
screen | grep -qF ">✓ 01 Harbour Lights.ogg" || t_fail "the row does not show it plays"
[ "$(c playlist list Road --format '%title%')" = "$road_before" ] ||
	t_fail "Enter on a file changed the playlist"
c coll list Playlists | grep -q "^Road" || t_fail "Road is gone"
[ "$(c playlist list --format '%title%')" = "$road_before" ] ||
	t_fail "Road is no longer the active playlist"
keys v

t_begin tui_files_a_file_not_in_the_library_plays_by_its_name
# No id, no tags: the status line, its times and the terminal's title show
# the file's name (they said "stopped" and -:-- while it played).
keys BSpace
wait_for "music – 3 folders" || t_fail "up"
find locked
keys Enter
wait_for "locked – 0 folders, 1 file, 0 in the library" || t_fail "into locked/"
keys Enter
wait_for "▶ 01 Stairway Down.mp3" 10 || t_fail "status line: $(screen | grep -F '▶')"
wait_until 3 sh -c "$TM display -p -t $S '#{pane_title}' | grep -qF 'crate: ▶ 01 Stairway Down.mp3'" ||
	t_fail "pane title: '$($TM display -p -t "$S" '#{pane_title}')'"
screen | grep -qF -- "-:-- / -:--" && t_fail "no times while it plays"
keys v
keys BSpace
wait_for "music – 3 folders" || t_fail "up again"
find lib
keys Enter
wait_for "lib – 1 folder" || t_fail "back into lib/"

t_begin tui_files_an_unreadable_folder_leaves_the_view_where_it_was
keys BSpace # the find goes with the folder left
wait_for "music – 3 folders" || t_fail "up"
find locked
if [ "$(id -u)" -eq 0 ]; then
	rm -rf "$MUSIC/locked" # root reads any folder: a folder gone cannot be read either
	why="No such file or directory"
else
	chmod 000 "$MUSIC/locked"
	why="Permission denied"
fi
keys Enter
wait_for "cannot open $MUSIC/locked: $why" || t_fail "no message"
screen | grep -qF "music – 3 folders" || t_fail "the view moved"

t_begin tui_files_help_lists_the_keys
keys '?'
wait_for "Help" || t_fail "no help"
for i in 1 2 3 4; do
	screen | grep -qF "show / hide hidden files" && break
	keys PgDn
	sleep 0.2
done
screen | grep -qF "show / hide hidden files" || t_fail "help lacks the hidden key"
screen | grep -qF "view 5: files" || t_fail "help lacks view 5"
keys q


t_begin tui_files_errors_view_shows_each_reason_whole_at_80_columns
# ":errors" at 80 columns cut a reason to half the row when it did not
# fit beside its path ("not audio (FFmpeg cannot open i…"): each path now
# has its rows and its reason the rows under it, wrapped.
mkdir -p "$MUSIC/bad"
printf 'not audio at all' >"$MUSIC/bad/a_file_with_a_name_long_enough_to_need_room.mp3"
tmux_crate 80 24 || t_fail "no title bar"
keys :
typed "scan $MUSIC/bad"
keys Enter
wait_for "scan done:" 10 || t_fail "no summary at the end of the scan"
keys :
typed "errors"
keys Enter
wait_for "1 problem in the last scan" 3 || t_fail "no errors view"
why=$(c scan "$MUSIC/bad" 2>&1 | sed -n 's/.*need_room\.mp3: //p' | head -1)
[ -n "$why" ] || t_fail "no reason from the CLI"
screen | grep -q "…" && t_fail "cut: $(screen | grep "…")"
screen | tr -s ' \n' ' ' | grep -qF "$why" || t_fail "the reason '$why': $(screen | sed -n 2,6p)"
keys q

t_begin tui_files_enter_on_a_playlist_file_plays_its_entries
# Enter on road.m3u played the file as audio ("skipped .../road.m3u:
# Invalid data found when processing input"). It plays the entries, as
# crate play FILE does, and says the one it left out.
mkdir -p "$MUSIC/lists"
printf '#EXTM3U\n../lib/02 Salt Wind.ogg\n../lib/gone.ogg\n' >"$MUSIC/lists/road.m3u"
tmux_crate 110 30 || t_fail "no title bar"
keys 5
wait_for "music – " || t_fail "not at the root"
find lists
keys Enter
wait_for "lists – 0 folders, 1 file" || t_fail "into lists/"
keys Enter
wait_for "▶ The Lanterns – Salt Wind" 10 || t_fail "status line: $(screen | grep -F '▶')"
wait_for "line 3: $MUSIC/lib/gone.ogg: No such file or directory" || t_fail "the entry left out is not said"
keys v
t_end
