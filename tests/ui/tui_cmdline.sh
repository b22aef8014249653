#!/usr/bin/env bash
# The ':' line as a shell's (issue 17, part 2): Tab completes commands,
# collection names (quoted when they hold spaces) and paths with '~';
# Up/C-r walk a history that survives a restart, the search bar has its
# own; :set changes options live; :seek takes 1:30, +10, -0:05, 50%.
# And `crate rule add` with a bare word naming no collection is refused
# (issue 17, part 6). Real binary in a private tmux server, audio to a file.
. "$(dirname "$0")/../lib.sh"

. "$SRCDIR/tests/lib_tmux.sh"
tmux_suite cmdline ffmpeg
# The file device is not a clock: pace playback in real time so it lasts.
printf '[output]\npace = true\n' >"$CONF"
MUSIC=$T_TMP/music
start_ui() { tmux_crate 110 30; }
quit_ui() {
	keys q
	for i in $(seq 40); do screen | grep -q "1 Browser" || break; sleep 0.1; done
}
cr() { "$CRATE" --db "$DB" --config "$CONF" "$@"; }
# the bottom row
bottom() { screen | tail -1; }

t_begin tui_cmdline_setup
mkdir -p "$MUSIC" "$H/tilde music"
cp "$SRCDIR"/data/demo/*.flac "$MUSIC"/ 2>/dev/null
ffmpeg -v error -y -f lavfi -i "sine=frequency=330:duration=100" -ac 2 -metadata artist="Long Player" \
	-metadata title="Long Song" "$MUSIC/long.flac" || t_fail "ffmpeg"
ffmpeg -v error -y -f lavfi -i "sine=frequency=440:duration=3" -ac 2 -metadata artist="Tilde Artist" \
	-metadata title="Tilde Song" "$H/tilde music/t.flac" || t_fail "ffmpeg"
mkdir -p "$H/My Music" "$H/Mx"
ffmpeg -v error -y -f lavfi -i "sine=frequency=550:duration=3" -ac 2 -metadata artist="Spaced Artist" \
	-metadata title="Spaced Song" "$H/My Music/s.flac" || t_fail "ffmpeg"
cr scan --quiet "$MUSIC" >/dev/null 2>&1 || t_fail "scan failed"
cr coll save "Rock Classics" 'year<1990' 2>/dev/null || t_fail "coll save"
cr coll save "Rock Nineties" 'year>=1990' 2>/dev/null || t_fail "coll save"
start_ui || t_fail "no title bar"

t_begin tui_cmdline_tab_completes_a_command
keys :
typed "pshuf"
keys Tab
typed "X" # a unique candidate is followed by a space
wait_for ":pshuffle X" || t_fail "pshuf<Tab> is not 'pshuffle ': $(bottom)"
keys C-u
typed "se"
keys Tab
# several: listed to the right of the line; Tab again cycles through them
wait_for "search  seek  set" || t_fail "candidates not listed: $(bottom)"
keys Tab
wait_for ":search" || t_fail "Tab did not cycle to the first: $(bottom)"
keys Tab
wait_for ":seek" || t_fail "Tab did not cycle to the second: $(bottom)"
keys BTab
wait_for ":search" || t_fail "S-Tab did not cycle back: $(bottom)"
keys Escape
# a new line typed as the last one was left: Tab completes it afresh rather
# than cycling on through the last line's candidates (to "seek")
keys :
typed "search "
keys Tab
wait_for "nothing to complete" || t_fail "Tab went on with the last line's candidates: $(bottom)"
keys Escape

t_begin tui_cmdline_tab_offers_no_command_the_interface_refuses
# remote and play --no-ui are for the shell (the : line refuses them):
# "re" is "repeat" alone, "rem" nothing (Tab offered remote, then refused it).
keys :
typed "re"
keys Tab
typed "X"
wait_for ":repeat X" || t_fail "re<Tab> is not 'repeat ': $(bottom)"
keys C-u
typed "rem"
keys Tab
wait_for "nothing to complete" || t_fail "rem<Tab> offered something: $(bottom)"
keys Escape

t_begin tui_cmdline_tab_completes_a_name_with_spaces
keys :
typed "coll show Ro"
keys Tab
wait_for ':coll show "Rock' || t_fail "common prefix not inserted, quoted: $(bottom)"
wait_for "Rock Classics  Rock Nineties" || t_fail "names not listed: $(bottom)"
typed "N"
wait_for ':coll show "Rock N' || t_fail "the quote is not left open after 'Rock ': $(bottom)"
keys Tab
wait_for ':coll show "Rock Nineties"' || t_fail "name not completed: $(bottom)"
keys Enter
wait_for "year>=1990" || t_fail "the completed line did not run: $(bottom)"

t_begin tui_cmdline_tab_after_in_quotes_only_the_name
# in:"Rock Nineties" is what the query parser reads; a quote around the
# whole word made it in:Rock and the word Nineties
keys :
typed "search in:Ro"
keys Tab
wait_for ':search in:"Rock ' || t_fail "the common prefix is not quoted after in: $(bottom)"
typed "N"
keys Tab
wait_for ':search in:"Rock Nineties"' || t_fail "in: not completed: $(bottom)"
keys Enter
sleep 0.5
bottom | grep -q "no collection" && t_fail "the completed search did not run: $(bottom)"
keys / C-u Enter # the whole library again, for the tests below
keys :
typed "coll save Later in:Rock\\ N"
keys Tab
wait_for ':coll save Later in:"Rock Nineties"' || t_fail "in: after coll save: $(bottom)"
keys Enter
saved_later() { [ "$(cr coll show Later 2>&1)" = 'in:"Rock Nineties"' ]; }
wait_until 3 saved_later || t_fail "the completed coll save did not save in: $(cr coll show Later 2>&1)"

t_begin tui_cmdline_tab_completes_a_path_with_tilde
keys :
typed "scan ~/til"
keys Tab
wait_for ':scan ~/tilde\ music/' || t_fail "path not completed: $(bottom)"
keys Tab
wait_for ':scan ~/tilde\ music/t.flac' || t_fail "file not completed: $(bottom)"
keys C-w C-w
typed '"~/tilde music"'
keys Enter
# finds ARTIST TITLE: the library has that track (a :scan ran)
finds() { cr search "a:\"$1\"" 2>/dev/null | grep -q "$2"; }
wait_until 10 finds "Tilde Artist" "Tilde Song" || t_fail ":scan with ~ did not scan the folder"

t_begin tui_cmdline_a_folder_with_a_space_cycled_to_runs
# a quote opened for the folder was left open: "unterminated quote"
keys :
typed "scan ~/M"
keys Tab
wait_for "~/Mx/  ~/My Music/" || t_fail "folders not listed: $(bottom)"
keys Tab Tab
wait_for ':scan ~/My\ Music/' || t_fail "not cycled to the folder: $(bottom)"
keys Enter
wait_until 10 finds "Spaced Artist" "Spaced Song" || t_fail "the completed :scan did not run: $(bottom)"

t_begin tui_cmdline_own_commands_without_their_words_give_the_usage
# ":save" said "unknown command 'save'"
keys :
typed "save"
keys Enter
wait_for "usage: save NAME" || t_fail ":save without a name: $(bottom)"
keys :
typed "seek"
keys Enter
wait_for "usage: seek POSITION" || t_fail ":seek without a position: $(bottom)"
keys :
typed "frobnicate now"
keys Enter
# it said "crate: unknown command 'frobnicate' (see crate --help)"
wait_for "unknown command 'frobnicate' (Tab on an empty : line lists them)" ||
	t_fail "an unknown command: $(bottom)"
keys :
typed "help frobnicate"
keys Enter
# it said "crate: help: no command 'frobnicate' (see crate help)"
wait_for "help: no command 'frobnicate' (Tab on an empty : line lists them)" ||
	t_fail ":help of an unknown command: $(bottom)"
keys :
typed "help seek"
keys Enter
# one of the interface's own: "crate: help: no command 'seek' (see crate help)"
wait_for "usage: seek POSITION (90, 1:30, +10, -0:05 or 50%)" || t_fail ":help seek: $(bottom)"

t_begin tui_cmdline_own_commands_with_extra_words_give_the_usage
# Words too many were dropped without a word: ":q now" quit, ":next 5"
# went one track on, ":smooth on 0.5 x" and ":analyze start x" ran.
for line in "q now|usage: quit" "next 5|usage: next" "pause now|usage: pause" \
	"smooth on 0.5 x|usage: smooth [on|off] [DRIFT]" "add|usage: add PATH|URL" \
	"analyze start x|usage: analyze [start|pause|resume|stop]"; do
	keys :
	typed "${line%%|*}"
	keys Enter
	wait_for "${line#*|}" || t_fail ":${line%%|*}: $(bottom)"
	keys :
	typed "vol +0"
	keys Enter # the next line's usage is its own, not this one's
	wait_gone "usage:" || t_fail ":vol +0 left the usage: $(bottom)"
done
screen | grep -q "1 Browser" || t_fail "crate is gone"

t_begin tui_cmdline_unknown_subcommand_says_so_on_the_message_line
# ':playlist bogus' showed the group's list (right) and, on the message
# line in red, its last line: "'crate help COMMAND' (or 'crate COMMAND
# --help') says more about one.", not the error, which came first.
keys :
typed "playlist bogus"
keys Enter
wait_for "playlist bogus  lines" || t_fail "no pane: $(bottom)"
bottom | grep -q "unknown command 'playlist bogus'" || t_fail ":playlist bogus: $(bottom)"
keys q
keys :
typed "coll"
keys Enter
wait_for "coll  lines" || t_fail "no pane: $(bottom)"
bottom | grep -q "'coll' needs a command" || t_fail ":coll: $(bottom)"
keys q

t_begin tui_cmdline_save_into_playlists_is_refused_without_asking
# ':save Playlists/Default' asked "Playlists/Default exists. Replace it?
# (y/n)", and a yes was then refused: a search is no list.
keys :
typed "save Playlists/Default"
keys Enter
wait_for "only lists can be saved in Playlists" || t_fail "not refused: $(screen | tail -2)"
screen | grep -q "Replace it?" && t_fail "asked: $(screen | tail -2)"
keys Escape

t_begin tui_cmdline_vol_out_of_range_is_refused
# ':vol 99999999999999999999' set the volume to 0 (the number cut to an
# int): it is refused, as crate remote vol refuses it, the volume kept.
keys :
typed "vol 40"
keys Enter
wait_for "vol 40%" || t_fail ":vol 40: $(screen | tail -2)"
keys :
typed "vol 99999999999999999999"
keys Enter
wait_for "is not a volume (0-100, +N or -N)" || t_fail "not refused: $(bottom)"
screen | grep -q "vol 40%" || t_fail "the volume changed: $(screen | tail -2)"
keys :
typed "vol +5"
keys Enter
wait_for "vol 45%" || t_fail ":vol +5: $(screen | tail -2)"
keys :
typed "vol 100"
keys Enter
wait_for "vol 100%" || t_fail ":vol 100: $(screen | tail -2)"

t_begin tui_cmdline_seek_while_stopped_says_so
# ':seek 10' with nothing playing did nothing and said nothing.
keys :
typed "seek 10"
keys Enter
wait_for "seek: nothing is playing" || t_fail ":seek while stopped: $(bottom)"

t_begin tui_cmdline_file_arguments_expand_tilde
# Tab completes ~/ and leaves it on the line, but only :scan read it:
# ":playlist export Mix ~/mix.m3u8" said "~/mix.m3u8: No such file or
# directory" (so did import, coll export and import).
cr playlist new Mix >/dev/null 2>&1 && cr playlist add Mix '*' >/dev/null 2>&1 || t_fail "Mix"
n=$(cr playlist list Mix | wc -l)
# run_line LINE: the line entered on ':'
run_line() {
	keys :
	typed "$1"
	keys Enter
	sleep 0.3
	bottom | grep -q "No such file" && t_fail ":$1: $(bottom)"
}
run_line "playlist export Mix ~/mix.m3u8"
wait_until 3 test -s "$H/mix.m3u8" || t_fail "no $H/mix.m3u8: $(bottom)"
run_line "playlist import Back ~/mix.m3u8"
wait_until 3 cr coll show Playlists/Back >/dev/null 2>&1 || t_fail "no Back: $(bottom)"
[ "$(cr playlist list Back | wc -l)" = "$n" ] || t_fail "Back: $(cr playlist list Back | wc -l) entries"
run_line 'coll export Playlists/Mix $HOME/mix.json'
wait_until 3 test -s "$H/mix.json" || t_fail "no $H/mix.json: $(bottom)"
run_line "coll import Playlists/Again ~/mix.json"
wait_until 3 cr coll show Playlists/Again >/dev/null 2>&1 || t_fail "no Again: $(bottom)"

t_begin tui_cmdline_info_reads_a_path_with_tilde
# :info ~/tilde\ music/t.flac, the path Tab completes, said "not in the
# library": info took the ~ as it stood, as the other FILE arguments did.
cr scan --quiet "$H/tilde music" >/dev/null 2>&1 || t_fail "scan"
keys :
typed 'info ~/tilde\ music/t.flac'
keys Enter
if wait_for "lines above"; then
	screen | grep -q "title = Tilde Song" || t_fail ":info: $(screen | tail -4)"
	keys q # closes the pane (without it, q would quit)
else
	t_fail ":info: $(bottom)"
fi

t_begin tui_cmdline_coll_commands_say_what_they_did
# :coll save, rename, remove, export and import and :playlist export FILE
# answered "done" (a shell, nothing): not what was saved, nor that a save
# replaced a collection of that name, which s in the browser asks about.
said() {
	keys :
	typed "$1"
	keys Enter
	wait_for "$2" || t_fail ":$1: $(bottom)"
}
said "coll save Said year<1990" "saved Collections/Said"
said "coll save Said year<2000" "replaced Collections/Said"
said "coll rename Said Told" "renamed Collections/Said to Collections/Told"
said "coll export Told ~/told.json" "exported Collections/Told to ~/told.json"
said "coll import Again2 ~/told.json" "saved Collections/Again2 from ~/told.json"
said "coll remove Told" "removed Collections/Told"
said "playlist export Mix ~/mix.pls" "exported Playlists/Mix to ~/mix.pls: $n entries"
[ "$(cr coll save Said2 'year<1990' 2>&1)" = "saved Collections/Said2" ] ||
	t_fail "a shell is not told: $(cr coll save Said2 'year<1990' 2>&1)"

t_begin tui_cmdline_set_changes_options_live
keys :
typed "set playback.volume_step 10"
keys Enter
wait_for "playback.volume_step = 10 (was 5)" || t_fail "volume step: $(bottom)"
keys :
typed "set layout.sidebar 40"
keys Enter
wait_for "layout.sidebar = 40 (was 18)" || t_fail "sidebar: $(bottom)"
keys :
typed "set playback.replaygain album"
keys Enter
wait_for "playback.replaygain = album (was off)" || t_fail "replaygain: $(bottom)"
keys :
typed "set playback.replaygain"
keys Enter
wait_for "playback.replaygain = album" || t_fail ":set OPTION does not show it: $(bottom)"
keys :
typed "set playback.volume 500"
keys Enter
wait_for "must be a whole number in 0..100" || t_fail "range not checked: $(bottom)"
keys :
typed "set output.device hw:9"
keys Enter
wait_for "output.device is read at start" || t_fail "a start-only option: $(bottom)"
keys :
typed "set nosuch.option 1"
keys Enter
wait_for "no option 'nosuch.option'" || t_fail "unknown option: $(bottom)"
keys :
typed "set playback.re"
keys Tab
wait_for "playback.repeat  playback.replaygain" || t_fail "options not completed: $(bottom)"
keys Escape

t_begin tui_cmdline_seek_positions_on_a_playing_track
keys /
typed 'a:"Long Player"'
keys Enter
wait_for "Long Song" || t_fail "search"
keys l l Enter
wait_for "Long Player – Long Song" || t_fail "not playing"
# seek_to ARG PATTERN: `:seek ARG`, then wait until crate's status shows a
# position matching PATTERN.
seek_to() {
	keys :
	typed "seek $1"
	keys Enter
	wait_until 5 sh -c "'$CRATE' --db '$DB' --config '$CONF' remote status 2>&1 | grep -qE '$2'" ||
		t_fail ":seek $1: $(cr remote status 2>&1)"
}
seek_to 1:30 "position: 1:3[0-2] / 1:40"
seek_to -0:20 "position: 1:1[0-2] / 1:40"
seek_to 50% "position: 0:5[0-2] / 1:40"
keys :
typed "seek 1:75"
keys Enter
wait_for "'1:75' is not a position" || t_fail "bad position: $(bottom)"
# the volume step set above: one '-' is 10 points
keys -
wait_until 5 sh -c "'$CRATE' --db '$DB' --config '$CONF' remote status 2>&1 | grep -q 'volume: 90%'" ||
	t_fail "volume step 10 not used: $(cr remote status 2>&1)"
keys :
typed "repeat all"
keys Enter
wait_for "repeat all" || t_fail ":repeat all"
keys :
typed "repeat"
keys Enter
wait_for "repeat one" || t_fail ":repeat without an argument does not cycle"
keys :
typed "shuffle"
keys Enter
wait_for "shuffle tracks" || t_fail ":shuffle without an argument does not cycle"
keys v

t_begin tui_cmdline_history_survives_a_restart
keys :
typed "set layout.artist 30"
keys Enter
wait_for "layout.artist = 30" || t_fail "set"
quit_ui
[ -s "$DB.history" ] || t_fail "no history file beside the database"
grep -qx "set layout.artist 30" "$DB.history" || t_fail "not in the file: $(cat "$DB.history")"
grep -qx 'a:"Long Player"' "$DB.search-history" || t_fail "search not kept apart"
grep -q 'Long Player' "$DB.history" && t_fail "a search went into the ':' history"
start_ui || t_fail "no restart"
keys :
keys Up
wait_for ":set layout.artist 30" || t_fail "Up does not bring the last line back: $(bottom)"
keys Up
wait_for ":shuffle" || t_fail "Up again is not the line before: $(bottom)"
keys Down
wait_for ":set layout.artist 30" || t_fail "Down does not come back: $(bottom)"
keys C-u
typed "1:"
keys C-r
wait_for ":seek 1:75" || t_fail "C-r did not find the newest line with '1:': $(bottom)"
keys C-r
wait_for ":seek 1:30" || t_fail "C-r again did not go further back: $(bottom)"
keys Escape
# the next line neither searches on nor walks on from there
keys :
keys Up
wait_for ":set layout.artist 30" || t_fail "Up on a new line is not the newest line: $(bottom)"
bottom | grep -q "C-r" && t_fail "the last line's C-r is shown: $(bottom)"
keys Escape
keys /
keys C-p
wait_for 'a:"Long Player"' || t_fail "the search bar's history: $(screen | head -3)"
keys Escape

t_begin tui_cmdline_rule_add_refuses_a_bare_word
err=$(cr rule add Nope 2>&1); rc=$?
[ $rc -eq 1 ] || t_fail "exit $rc"
case $err in *"'Nope' names no collection; use --query to mean a search"*) ;; *) t_fail "message: $err" ;; esac
[ -z "$(cr rule list 2>/dev/null)" ] || t_fail "a rule was added: $(cr rule list)"
cr rule add --query Nope 2>/dev/null || t_fail "--query refused"
cr rule list 2>/dev/null | grep -q "query Nope" || t_fail "not a query rule: $(cr rule list)"
keys 4
wait_for "Collection or query" || t_fail "no rules view"
keys a
wait_for "New rule for collection or query:" || t_fail "no target prompt"
typed "Rock Clasics"
keys Enter
wait_for "'Rock Clasics' names no collection" || t_fail "a mistyped name in the pane: $(bottom)"
# the question is asked again with the answer kept (issue 17.6)
wait_for "New rule for collection or query: Rock Clasics" || t_fail "not asked again: $(bottom)"
keys C-u
typed "Rock C"
keys Tab
wait_for "New rule for collection or query: Rock Classics" || t_fail "no name completion: $(bottom)"
keys Enter
wait_for "Equalizer preset:" || t_fail "no preset prompt"
typed "vi"
keys Tab
wait_for "Equalizer preset: vinyl" || t_fail "no preset completion: $(bottom)"
keys Enter
wait_for "Collections/Rock Classics" || t_fail "rule not added"
cr rule list 2>/dev/null | grep -q "Collections/Rock Classics -> eq=vinyl" || t_fail "CLI: $(cr rule list)"
quit_ui

t_begin tui_cmdline_long_wide_line_shows_the_character_at_the_cursor
# A line of wide characters longer than the row: moved back from its end,
# the cursor stood on the "…" that cuts the row, its character hidden.
# The cell under the cursor must hold the character the cursor is on.
# cell_at COL: the character drawn at column COL of the bottom row
cell_at() {
	screen | tail -1 | python3 -c '
import sys, unicodedata
col, want = 0, int(sys.argv[1])
for ch in sys.stdin.read().rstrip("\n"):
    w = 2 if unicodedata.east_asian_width(ch) in "WF" else 1
    if col <= want < col + w:
        print(ch)
        break
    col += w' "$1"
}
cursor_x() { $TM display -p -t "$S" '#{cursor_x}'; }
cursor_on() { [ "$(cell_at "$(cursor_x)")" = "$1" ]; }
NS=$((NS + 1)); old=$S; S=$SUITE$NS
tmux_fresh_session "$old" "$S" 40 12 \
	"env LANG=C.UTF-8 TERM=xterm-256color '$CRATE' --db '$DB' --config '$CONF'; sleep 30"
wait_for "1 Browser" 5 || t_fail "no title bar"
keys :
typed 'search 全角全角全角全角全角全角全角全角全角全角全角全角'
wait_for "全角全角全角" || t_fail "the line: $(bottom)"
keys End Left Left
wait_until 5 cursor_on "全" ||
	t_fail "under the cursor (column $(cursor_x)): '$(cell_at "$(cursor_x)")' in '$(bottom)'"
keys Left
wait_until 5 cursor_on "角" ||
	t_fail "under the cursor (column $(cursor_x)): '$(cell_at "$(cursor_x)")' in '$(bottom)'"
keys Escape
quit_ui

t_begin tui_cmdline_scan_alone_does_what_crate_scan_does
# ":scan" alone rescanned the roots only: a root gone with nothing of the
# library under it (a folder renamed and scanned under its new name) was
# forgotten by `crate scan` but tried by every :scan and counted failed,
# and a file given to crate scan by name that was deleted stayed present.
mkdir -p "$H/Old"
cp "$MUSIC/long.flac" "$H/Old/"
cp "$H/tilde music/t.flac" "$H/loose.flac"
cr scan --quiet "$H/Old" "$H/loose.flac" >/dev/null 2>&1 || t_fail "scan"
mv "$H/Old" "$H/New"
cr scan --quiet "$H/New" >/dev/null 2>&1 || t_fail "scan of New"
rm "$H/loose.flac"
tmux_crate 230 30 || t_fail "no title bar" # room for the whole message
keys :
typed "scan"
keys Enter
wait_for "$H/Old: gone, with nothing of the library under it: no longer scanned" 10 ||
	t_fail "the emptied root is not said: $(bottom)"
bottom | grep -q "scan done: .* 0 failed, 1 gone" || t_fail "summary: $(bottom)"
cr roots | grep -q "/Old$" && t_fail "still a root: $(cr roots)"
[ -z "$(cr search --format '%url%' 'u~loose.flac' 2>/dev/null)" ] || t_fail "the deleted file is still present"

t_begin tui_cmdline_scan_of_a_typo_says_no_such_file
# ":scan ~/Musci" was scanned as a root that went and counted "1 failed"
keys :
typed "scan ~/Musci"
keys Enter
wait_for "scan: $H/Musci: No such file or directory" || t_fail ":scan of a typo: $(bottom)"
quit_ui

t_end
