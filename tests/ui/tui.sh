#!/usr/bin/env bash
# The terminal interface, driven through tmux: the real binary on a library
# scanned from data/demo (plus a file whose title holds terminal escapes),
# a private tmux server, a temporary HOME whose .asoundrc sends audio to a
# file. Screens are read with capture-pane; every wait polls for its
# condition with a timeout (no fixed sleeps before a check).
. "$(dirname "$0")/../lib.sh"

if ! command -v tmux >/dev/null || ! command -v ffmpeg >/dev/null; then
	t_begin tui_setup
	t_skip "needs tmux and ffmpeg"
	t_end
	exit $?
fi

. "$SRCDIR/tests/lib_tmux.sh"
tmux_private_env
# The file device is not a clock: pace playback in real time so "playing" lasts.
printf '[output]\npace = true\n' >"$CONF"
MUSIC=$T_TMP/music
TM="tmux -L crate-ui-$$ -f /dev/null"
trap '$TM kill-server 2>/dev/null; rm -rf "$T_TMP"' EXIT

S=ui0; NS=0
# new_session W H COMMAND: a fresh session (the old one is closed).
new_session() {
	local old=$S
	NS=$((NS + 1)); S=ui$NS
	tmux_fresh_session "$old" "$S" "$1" "$2" "$3; sleep 30"
}
start_ui() { # [extra env...]
	new_session 100 30 "env $* LANG=C.UTF-8 TERM=xterm-256color '$CRATE' --db '$DB' --config '$CONF'"
	wait_for "1 Browser" 5
}
remote() { "$CRATE" --db "$DB" remote "$@"; }

t_begin tui_setup
mkdir -p "$MUSIC"
cp "$SRCDIR"/data/demo/* "$MUSIC"/ 2>/dev/null
ffmpeg -v error -y -f lavfi -i "sine=frequency=440:duration=1" -ac 2 -ar 44100 \
	-metadata artist="Evil Tags" -metadata album="Escapes" \
	-metadata title=$'\e[31mRED\a and \e]0;pwned\a' "$MUSIC/evil.flac" || t_fail "ffmpeg"
"$CRATE" --db "$DB" scan --quiet "$MUSIC" >/dev/null 2>&1 || t_fail "scan failed"
n=$("$CRATE" --db "$DB" list --format '%title%' | wc -l)
[ "$n" -ge 13 ] || t_fail "library has $n tracks"

t_begin tui_starts_and_browses
start_ui || t_fail "no title bar"
wait_for "Mira Sol" || t_fail "artist column"
wait_for "All 6 artists" || t_fail "All 6 artists row"
# Down to "Mira Sol"'s row: artists are in library order.
# Artists are in library order: All, Björk, Evil Tags, Mira Sol, ...
keys j j j
wait_for "Late Trains (1979)" || t_fail "album of the selected artist"
wait_gone "Harbour Lights" || t_fail "tracks of other artists shown"
keys l
wait_for "Stairway Down" || t_fail "tracks of the album"
keys l

t_begin tui_play_album
keys Enter
wait_until 5 test -s "$H/out.raw"
[ -s "$H/out.raw" ] || t_fail "nothing written to the audio device"
wait_for "Mira Sol – Stairway Down (Late Trains)" || t_fail "status line"
out=$(remote status 2>&1)
echo "$out" | grep -q "state: playing" || t_fail "remote status: $out"
echo "$out" | grep -q "track: Mira Sol - Stairway Down" || t_fail "remote status track: $out"
echo "$out" | grep -q "position: 0:0" || t_fail "remote status position: $out"
pos=$(echo "$out" | grep position)
moved() { [ "$(remote status 2>&1 | grep position)" != "$pos" ]; }
wait_until 5 moved || t_fail "position does not move from $pos"
keys b
wait_for "Mira Sol – Track 10" || t_fail "next track"
keys v
wait_for "stopped" || t_fail "stop"

t_begin tui_search_refreshes_as_you_type
keys /
typed "t~street"
wait_for "Beat Street" || t_fail "result not shown"
wait_gone "Harbour Lights" 2 || t_fail "non-matching track still shown"
wait_for "1 track" || t_fail "result count"

t_begin tui_malformed_query_keeps_results
# One keystroke that breaks the query: the results must stay.
typed ")"
wait_for "error: col 9: unbalanced ')'" || t_fail "no error with its column"
screen | grep -q "Beat Street" || t_fail "old results were dropped"
keys BSpace
wait_gone "error: col" 2 || t_fail "error stays after fixing the query"
typed " AND"
wait_gone "error:" 1 || t_fail "an incomplete query shows as an error"
keys C-u
typed "t~street"
wait_for "1 track" || t_fail "search back"

t_begin tui_search_ranks_and_forgives
# Ranked: the track matching both words comes first (library order would
# put it last); a typo shows what it also matched.
keys C-u
typed "morning OR lights"
wait_for "3 tracks" || t_fail "morning OR lights: count"
first=$(screen | grep -n "Lanterns – Morning" | head -1 | cut -d: -f1)
salt=$(screen | grep -n "Salt Wind" | head -1 | cut -d: -f1)
[ -n "$first" ] && [ -n "$salt" ] && [ "$first" -lt "$salt" ] ||
	t_fail "the track matching both words is not first: $(screen)"
keys C-u
typed "lantrens"
wait_for "also showing matches for lanterns" || t_fail "no note for a corrected word"
wait_for "3 tracks" || t_fail "the corrected word found nothing"
# the rest of the query takes every forgiven track away: nothing is shown,
# so nothing is said to be shown
typed " y>2999"
wait_for "0 tracks" || t_fail "lantrens y>2999 found something"
screen | grep -q "also showing" && t_fail "a note promises tracks beside none: $(screen)"
keys C-u
typed "t~street"
wait_for "1 track" || t_fail "search back"
wait_gone "also showing" 2 || t_fail "the note outlives its search"

t_begin tui_save_search_shows_in_collections
keys Enter
keys s
wait_for "Save search as:" || t_fail "no prompt"
typed "Street songs"
keys Enter
wait_for "saved Collections/Street songs" || t_fail "not saved"
keys 3
wait_for "Street songs" || t_fail "not in the collections view"
screen | grep "Street songs" | grep -q "~street" || t_fail "query not shown next to it"
"$CRATE" --db "$DB" coll list 2>/dev/null | grep -q "Street songs" || t_fail "not in the database"
keys 1

t_begin tui_save_keeps_what_the_search_forgave
# The view shows The Lanterns for the typo: saved, it must find them too
# (a saved collection is never forgiven, so the typo alone found nothing).
keys /
keys C-u
typed "lantrens"
wait_for "also showing matches for lanterns" || t_fail "no note for a corrected word"
keys Enter
keys s
wait_for "Save search as:" || t_fail "no prompt"
typed "Lanterns typo"
keys Enter
wait_for "saved Collections/Lanterns typo as shown (also showing matches for lanterns)" ||
	t_fail "the message does not say what was saved"
got=$("$CRATE" --db "$DB" search --format '%artist%' 'in:"Lanterns typo"' 2>&1 | sort -u)
[ "$got" = "The Lanterns" ] || t_fail "the saved search finds '$got', the view showed The Lanterns"
keys /
keys C-u
typed "t~street"
keys Enter
wait_for "1 track" || t_fail "search back"

t_begin tui_collection_name_being_typed_says_keep_typing
# in:"Street so on its way to in:"Street songs": not an error in red.
keys /
keys C-u
typed 'in:"Street so'
wait_for "keep typing: col 4: no collection 'Street so' in Collections" ||
	t_fail "a saved collection's name being typed is an error"
typed 'ngs"'
wait_for "1 track" || t_fail "in:\"Street songs\" found nothing"
keys C-u
typed "in:Zzz"
wait_for "error: col 4: no collection 'Zzz' in Collections" || t_fail "a name nothing starts with"
keys C-u
typed "t~street"
keys Enter
wait_for "1 track" || t_fail "search back"

t_begin tui_party_shuffle_refills
keys :
typed "pshuffle Party * --upcoming 5"
keys Enter
keys 3
wait_for "Party [party]" || t_fail "not in the collections"
keys G Enter
wait_for "Party Shuffle Party" || t_fail "playlist view"
first=$(screen | grep -m1 '^ *>\? *1\. ' | sed 's/^[ >]*1\. //; s/ *[0-9]:[0-9][0-9] *$//')
[ -n "$first" ] || t_fail "no first entry"
keys Enter
wait_for "(active)" || t_fail "not active"
keys b
keys b
entry1() { screen | grep -m1 '^ *>\? *1\. ' | sed 's/^[ >]*1\. //; s/ *[0-9]:[0-9][0-9] *$//'; }
popped() { [ "$(entry1)" != "$first" ]; }
wait_until 5 popped || t_fail "played entries were not popped ($first)"
# Refilled to the playing entry and --upcoming 5.
refilled() { [ "$(screen | grep -c '^ *>\? *[0-9]\+\. ')" -eq 6 ]; }
wait_until 5 refilled || t_fail "$(screen | grep -c '^ *>\? *[0-9]\+\. ') entries after refill, expected 6"
keys v
keys 1

t_begin tui_escape_sequences_are_harmless
keys /
keys C-u
typed "a:\"Evil Tags\""
wait_for "RED" || t_fail "track not found"
before=$(screen -e)
keys Enter
# Enter leaves the search bar: its highlight changes.
redrawn() { [ "$(screen -e)" != "$before" ]; }
wait_until 5 redrawn || t_fail "no redraw after Enter"
raw=$(screen -e)
# Our own SGR colours are fine; an injected red foreground, BEL or OSC is not.
printf '%s' "$raw" | grep -q $'\e\\[31m' && t_fail "injected SGR 31 reached the terminal"
printf '%s' "$raw" | grep -q $'\a' && t_fail "BEL reached the terminal"
printf '%s' "$raw" | grep -q $'\e\\]0;' && t_fail "OSC reached the terminal"
screen | grep -q '\[31mRED' || t_fail "escaped text not shown as text"
keys Escape Escape
keys /
keys C-u
keys Enter

t_begin tui_socket_is_private
sock=$XDG_RUNTIME_DIR/crate/socket
[ -S "$sock" ] || t_fail "no socket at $sock"
[ "$(stat -c %a "$sock")" = 600 ] || t_fail "socket mode $(stat -c %a "$sock")"
[ "$(stat -c %a "$XDG_RUNTIME_DIR/crate")" = 700 ] || t_fail "directory mode"

t_begin tui_remote_commands
out=$(remote status 2>&1) || t_fail "remote status failed: $out"
echo "$out" | grep -q "state:" || t_fail "status without state: $out"
out=$(remote search 'a:"Mira Sol"' 2>&1) || t_fail "remote search: $out"
[ "$out" = "2 tracks" ] || t_fail "remote search said: $out"
wait_for 'a:"Mira Sol"' || t_fail "UI does not show the remote search"
# Counted as the search bar counts: forgiving, with what it forgave (plain
# evaluation said 0 for what the interface then showed as 2 tracks).
out=$(remote search 'a:mira' 2>&1) || t_fail "remote search a:mira: $out"
case $out in "2 tracks — no artist 'mira'"*) ;; *) t_fail "remote search a:mira said: $out" ;; esac
wait_for "2 tracks — no artist 'mira'" || t_fail "the interface does not show what the remote search said"
out=$(remote search 'a:"Mira Sol"' 2>&1) || t_fail "remote search: $out"
wait_for 'a:"Mira Sol"' || t_fail "UI does not show the remote search again"
out=$(remote search 'a:(' 2>&1) && t_fail "malformed query accepted"
echo "$out" | grep -q "col" || t_fail "malformed query error: $out"
big=$(head -c 5000 /dev/zero | tr '\0' x)
out=$(remote search "$big" 2>&1) && t_fail "oversized line accepted"
out=$(printf '%s\n' "$(head -c 6000 /dev/zero | tr '\0' y)" | timeout 5 socat - "UNIX-CONNECT:$sock" 2>/dev/null || true)
remote ping >/dev/null 2>&1 || t_fail "player unusable after bad input"
out=$(remote frobnicate 2>&1) && t_fail "unknown command accepted"

t_begin tui_resize_small_and_back
# The whole small screen, drawn for its size: the remote search's results
# and the status line, cut with an ellipsis. The remote's message ("done")
# lasts 5 s; it is let go first so that the screens do not race it.
wait_gone "done" 8 || t_fail "the message does not expire"
$TM resize-window -t $S -x 20 -y 6
wait_screen '/a:"Mira Sol"
  1. Mira S…   0:06
  2. Mira S…   0:06

 ■ sto… -:-- / -:--' || t_fail "the 20x6 screen"
$TM resize-window -t $S -x 30 -y 8
wait_screen '/a:"Mira Sol"         2 tracks
  1. Mira Sol – Stair…   0:06
  2. Mira Sol – Track…   0:06



 ■ stopped        -:-- / -:--' || t_fail "the 30x8 screen"
$TM resize-window -t $S -x 100 -y 30
wait_for "1 Browser" || t_fail "no title bar after resizing back"
wait_for "Mira Sol" || t_fail "browser after resizing back"
remote ping >/dev/null 2>&1 || t_fail "crate died while resizing"

t_begin tui_help_lists_bindings
keys '?'
wait_for "vol_up" || t_fail "help"
screen | grep -Eq "^ c +pause " || t_fail "pause keys not listed"
keys PgDn
wait_for "mark_matches" || t_fail "the mark keys not listed"
screen | grep -Eq "^ Space +mark " || t_fail "Space is not listed as mark"
screen | grep -Eq "^ u +undo " || t_fail "u is not listed as undo"
keys q
wait_gone "vol_up" || t_fail "help does not close"

t_begin tui_mouse_clicks_tabs_and_sidebar
# SGR mouse reports (xterm-256color's kmous is \E[<): a press and a release
# at column X, row Y (from 0) make a click. The tabs are " 1 Browser ",
# " 2 Playlist ", " 3 Collections ", " 4 Rules " one cell apart; the cell
# after a tab chooses it too.
click() {
	typed "$(printf '\033[<0;%d;%dM\033[<0;%d;%dm' $(($1 + 1)) $(($2 + 1)) $(($1 + 1)) $(($2 + 1)))"
}
click 30 0
wait_for "(the whole library)" || t_fail "the Collections tab"
click 45 0
wait_for "first match wins" || t_fail "the Rules tab"
click 24 0
wait_for "Party Shuffle Party" || t_fail "the cell after the Playlist tab"
click 11 0
wait_for "All 1 artist " || t_fail "the cell after the Browser tab (its search shows one artist)"
# The sidebar (100 columns) opens what is clicked.
y=$(screen | grep -n '^  Street songs' | head -1 | cut -d: -f1)
[ -n "$y" ] && click 3 $((y - 1))
wait_for "Collections/Street songs" || t_fail "a click in the sidebar does not browse"
y=$(screen | grep -nE '^(\+|•| )All Media' | head -1 | cut -d: -f1)
[ -n "$y" ] && click 3 $((y - 1))
wait_gone "Collections/Street songs" || t_fail "back to All Media"

t_begin tui_no_running_crate
keys q
# The pane runs "crate ...; sleep 30": sleep is in front once crate has exited.
gone() { [ "$($TM display-message -p -t "$S" '#{pane_current_command}')" = sleep ]; }
wait_until 5 gone || t_fail "crate did not quit"
out=$(remote status 2>&1); rc=$?
[ $rc -eq 1 ] || t_fail "exit $rc"
echo "$out" | grep -q "crate: no running crate (socket " || t_fail "message: $out"

# A frame reaches the terminal in one write, or a few when it is large,
# not a write per cursor move (ncurses flushes at every move until the
# screen has been through endwin once): over SSH each write can be a
# packet of its own. /proc/PID/io counts the process's write calls.
t_begin tui_frames_are_written_whole
start_ui || t_fail "no start"
pid=$(pgrep -P "$($TM display-message -p -t "$S" '#{pane_pid}')" | head -1)
writes() { awk '/^syscw:/ { print $2 }' "/proc/$pid/io"; }
[ -n "$pid" ] && [ -n "$(writes)" ] || t_fail "no crate process to count the writes of"
w0=$(writes)
for v in 2 1 2 1 2 1; do
	before=$(screen -e)
	keys "$v"
	wait_until 5 redrawn || t_fail "view $v not drawn"
done
w1=$(writes)
[ $((w1 - w0)) -le 30 ] || t_fail "$((w1 - w0)) writes for 6 frames that redraw most of the screen"
keys q
wait_until 5 gone || t_fail "crate did not quit"

# A keystroke that leaves the result as it was (a space, "y>19" after
# "y>1", a backspace to a recalled result) keeps the columns as they are
# instead of grouping every result again (at a million tracks, 3-6 ms of
# such a frame). The frame trace says whether a keystroke regrouped.
t_begin tui_unchanged_results_keep_the_columns
TRACE=$T_TMP/frames.jsonl
start_ui CRATE_TRACE_FRAMES="$TRACE" || t_fail "no start"
keys / C-u
typed "t~street"
wait_for "1 track" || t_fail "no result"
sleep 0.3
cols() { screen | grep -v "t~street"; }
before=$(cols)
typed " "
wait_until 5 grep -q '"query_bytes":9,' "$TRACE" || t_fail "no frame for the space"
line=$(grep '"what":"search_key"' "$TRACE" | grep '"query_bytes":9,' | tail -1)
case $line in
*'"results":1,'*'"regrouped":0'*) ;;
*) t_fail "a space that changes nothing regrouped the columns: $line" ;;
esac
sleep 0.3
[ "$(cols)" = "$before" ] || t_fail "the screen changed: $(diff <(echo "$before") <(cols))"
keys C-u
wait_for "All 6 artists" || t_fail "the cleared search does not list everything"
line=$(grep '"what":"search_key"' "$TRACE" | grep '"query_bytes":0,' | tail -1)
case $line in
*'"regrouped":1'*) ;;
*) t_fail "a keystroke that changes the results did not regroup: $line" ;;
esac
keys Escape q
wait_until 5 gone || t_fail "crate did not quit"

t_begin tui_no_color_and_vt100
start_ui NO_COLOR=1 || t_fail "no start with NO_COLOR"
raw=$(screen -e)
printf '%s' "$raw" | grep -q $'\e\\[3[0-7]m' && t_fail "colours despite NO_COLOR"
keys q
wait_until 5 gone || t_fail "crate did not quit" # it writes $DB.state as it exits
rm -f "$DB.state" # a fresh start: no resumed search hiding the CJK artist
new_session 80 24 "env LANG=C TERM=vt100 '$CRATE' --db '$DB'"
wait_for "1 Browser" || t_fail "vt100 / C locale"
wait_for "???" || t_fail "CJK not replaced in an ASCII locale"
keys q

t_begin tui_collections_view_shows_the_configured_upcoming
# A Party Shuffle made without --upcoming keeps [pshuffle] upcoming ahead,
# and view 3 says so (it said the built-in 20).
CONF3=$T_TMP/upcoming.conf
printf '[pshuffle]\nupcoming = 4\n' >"$CONF3"
"$CRATE" --db "$DB" --config "$CONF3" pshuffle Four '*' >/dev/null 2>&1 || t_fail "pshuffle"
new_session 100 30 "env LANG=C.UTF-8 TERM=xterm-256color '$CRATE' --db '$DB' --config '$CONF3'"
wait_for "1 Browser" || t_fail "no start"
keys 3
wait_for "Four" || t_fail "not in the collections"
wait_for "(upcoming 4)" || t_fail "$(screen | grep -m1 'Four')"
keys q

t_end
