#!/usr/bin/env bash
# A live library: with the interface open, changes made by other programs
# (a CLI scan, `crate coll save`, `crate pshuffle`, a rating written by
# another connection) show up by themselves, and the browser keeps its
# selection and its search. Each wait allows a few seconds on a loaded
# machine; the time itself is measured by bench/bench_live.sh.
. "$(dirname "$0")/../lib.sh"

if ! command -v tmux >/dev/null || ! command -v sqlite3 >/dev/null; then
	t_begin live_setup
	t_skip "needs tmux and sqlite3"
	t_end
	exit $?
fi

. "$SRCDIR/tests/lib_tmux.sh"
tmux_private_env
TM="tmux -L crate-live-$$ -f /dev/null"
# crate may still write its state file as the server goes: rm once more
trap '$TM kill-server 2>/dev/null; rm -rf "$T_TMP" 2>/dev/null || { sleep 0.5; rm -rf "$T_TMP"; }' EXIT
S=live0; NS=0
new_session() {
	local old=$S
	NS=$((NS + 1)); S=live$NS
	tmux_fresh_session "$old" "$S" "$1" "$2" "$3; sleep 30"
}
start_ui() {
	new_session 120 30 "env LANG=C.UTF-8 TERM=xterm-256color '$CRATE' --db '$DB' --config '$CONF'"
	wait_for "1 Browser" 5
}
crate() { "$CRATE" --db "$DB" "$@"; }

t_begin live_setup
A=$T_TMP/a; B=$T_TMP/b
mkdir -p "$A" "$B"
for f in "$SRCDIR"/data/demo/*; do
	case $f in *.opus) cp "$f" "$B"/ ;; *) cp "$f" "$A"/ ;; esac
done
: >"$CONF"
crate scan --quiet "$A" >/dev/null 2>&1 || t_fail "scan"

t_begin live_cli_scan_shows_and_keeps_selection
start_ui || t_fail "no interface"
wait_for "Mira Sol" || t_fail "artist column"
# Artists in library order: All, Björk, Mira Sol, The Lanterns, ...
keys j j
wait_for "Late Trains" || t_fail "album of the selected artist"
wait_gone "Harbour Lights" || t_fail "other artists' albums shown"
screen | grep -q "Various Artists" && t_fail "B is not scanned yet"
crate scan --quiet "$B" >/dev/null 2>&1 || t_fail "CLI scan"
# B's album is a compilation: grouped under its album artist.
wait_for "Various Artists" 4 || t_fail "the CLI scan's tracks are not shown"
wait_for "Late Trains" 1 || t_fail "selected artist's album gone"
screen | grep -q "Harbour Lights" && t_fail "the artist selection was lost"

t_begin live_coll_save_and_pshuffle_show
crate coll save "Lively" 'artist:Mira' >/dev/null 2>&1 || t_fail "coll save"
wait_for "Lively" 4 || t_fail "a collection saved by the CLI is not shown"
crate pshuffle "Partytime" 'artist:Lanterns' >/dev/null 2>&1 || t_fail "pshuffle"
wait_for "Partytime" 4 || t_fail "a Party Shuffle made by the CLI is not shown"

t_begin live_rating_keeps_search
keys /
typed 'rating>3'
keys Enter
wait_gone "Stairway Down" || t_fail "search did not apply"
sqlite3 "$DB" "UPDATE media SET rating = 5 WHERE CAST(url AS TEXT) LIKE '%Stairway Down%'" ||
	t_fail "sqlite3"
wait_for "Stairway Down" 4 || t_fail "a rating written by another program is not shown"
wait_for "rating>3" 1 || t_fail "the search text was lost"
screen | grep -q "Harbour Lights" && t_fail "the search was lost"

t_begin live_rule_from_cli_shows
keys Escape
keys 4
wait_for "first match wins" || t_fail "rules view"
crate rule add 'artist:Mira' --volume 3 >/dev/null 2>&1 || t_fail "rule add"
wait_for "artist:Mira" 4 || t_fail "a rule added by the CLI is not shown"

t_begin live_browsed_collection_follows_rename_and_removal
# Browsing a saved collection, the browser follows another program's
# rename (heading, sidebar mark) and goes back to All Media, saying so,
# when it is removed, instead of erring on the stale name.
keys 3 g j
wait_for "Lively" 2 || t_fail "collections view"
keys Enter
wait_for "Collections/Lively" 4 || t_fail "not browsing Lively"
crate coll rename Lively Livelier >/dev/null 2>&1 || t_fail "coll rename"
wait_for "Collections/Livelier" 4 || t_fail "the browser did not follow the rename"
wait_for "• Livelier" 1 || t_fail "the sidebar does not mark the renamed collection"
screen | grep -q "no such collection" && t_fail "an error about the old name"
crate coll remove Livelier >/dev/null 2>&1 || t_fail "coll remove"
wait_for "is gone: browsing All Media" 4 || t_fail "the removal was not said"
wait_for "•All Media" 1 || t_fail "the browser did not go back to All Media"
screen | grep -q "no such collection" && t_fail "an error about the removed name"

t_begin live_collections_cursor_follows_a_rename
# View 3's cursor on a collection another program renames stays on it
# under its new name (here it sorts first), so d asks about that one, not
# about whatever row took its old place.
crate coll save "Mellow" 'artist:Lanterns' >/dev/null 2>&1 || t_fail "coll save"
crate coll save "Night" 'artist:Mira' >/dev/null 2>&1 || t_fail "coll save"
keys 3 g j j
wait_for "Night" 4 || t_fail "collections view"
keys d
wait_for "Remove Collections/Night?" 2 || t_fail "the cursor is not on Night"
keys n
crate coll rename Night Aurora >/dev/null 2>&1 || t_fail "coll rename"
wait_for "Aurora" 4 || t_fail "the rename is not shown"
keys d
wait_for "Remove Collections/Aurora?" 2 || t_fail "the cursor left the renamed collection"
keys n
crate coll remove Aurora >/dev/null 2>&1 || t_fail "coll remove"
crate coll remove Mellow >/dev/null 2>&1 || t_fail "coll remove"

t_begin live_collections_removal_answered_after_it_went_elsewhere
# "Remove Collections/Night? (y/n)" asked, another program removed Night,
# and y removed Collections/Zenith, the row the cursor then stood on.
crate coll save "Night" 'artist:Mira' >/dev/null 2>&1 || t_fail "coll save"
crate coll save "Zenith" 'artist:Lanterns' >/dev/null 2>&1 || t_fail "coll save"
keys 3 g j
wait_for "Zenith" 4 || t_fail "collections view"
keys d
wait_for "Remove Collections/Night?" 2 || t_fail "the cursor is not on Night"
crate coll remove Night >/dev/null 2>&1 || t_fail "coll remove"
wait_gone "  Night " 4 || t_fail "the removal is not shown"
keys y
wait_for "Collections/Night does not exist" 2 || t_fail "the answer: $(screen | tail -1)"
crate coll show Zenith >/dev/null 2>&1 || t_fail "y removed Collections/Zenith"
crate coll remove Zenith >/dev/null 2>&1

t_begin live_opened_playlist_follows_rename_and_removal
# View 2 opened on a playlist that is not the active one (Enter in view 3)
# stays on it when another program renames it, rather than showing the
# active playlist in its place, where d would then remove entries; its
# removal is said.
crate playlist new Road >/dev/null 2>&1 || t_fail "playlist new"
crate playlist add Road 'artist:"Mira Sol"' >/dev/null 2>&1 || t_fail "playlist add"
keys 3 G
wait_for "Road" 4 || t_fail "collections view"
keys Enter
wait_for "Playlist Road – 2 entries" 4 || t_fail "the playlist is not shown"
crate coll rename Playlists/Road Trip >/dev/null 2>&1 || t_fail "coll rename"
wait_for "Playlist Trip – 2 entries" 4 || t_fail "view 2 did not follow the rename"
crate coll remove Playlists/Trip >/dev/null 2>&1 || t_fail "coll remove"
wait_for "Playlists/Trip is gone: showing the active playlist" 4 || t_fail "the removal was not said"
wait_for "(active)" 1 || t_fail "not on the active playlist"

t_begin live_playlist_cursor_stays_on_its_entry
# Another program moves entries: the cursor stays on the entry it was on
# (Space marks the cursor's row), as in cmus and ncmpcpp.
crate playlist new Order >/dev/null 2>&1 || t_fail "playlist new"
crate playlist add Order 'artist:"The Lanterns"' >/dev/null 2>&1 || t_fail "playlist add"
crate playlist use Order >/dev/null 2>&1 || t_fail "playlist use"
keys 2
wait_for "Playlist Order" 4 || t_fail "the playlist view"
keys g j
sleep 0.3
crate playlist move Order 1 3 >/dev/null 2>&1 || t_fail "playlist move"
wait_for "3. The Lanterns – Harbour Lights" 4 || t_fail "the move is not shown"
keys Space
wait_for "+   1. The Lanterns – Salt Wind" 2 || t_fail "the cursor left its entry"
keys M
crate playlist use Default >/dev/null 2>&1 || t_fail "playlist use Default"
keys 1

t_begin live_playlist_cursor_stays_on_a_repeat_whose_twin_went
# The cursor on the second of two repeats of a track stays on it when the
# first one goes (as a Party Shuffle drops its played entries): there was
# no second repeat any more, so the cursor kept the position, another
# entry's.
crate playlist new Twice >/dev/null 2>&1 || t_fail "playlist new"
for i in 1 2; do
	crate playlist add Twice 'artist:"The Lanterns"' >/dev/null 2>&1 || t_fail "playlist add"
done
crate playlist use Twice >/dev/null 2>&1 || t_fail "playlist use"
keys 2
wait_for "6. The Lanterns – Morning" 4 || t_fail "the playlist view"
keys g j j j j
sleep 0.3
crate playlist remove Twice 2 >/dev/null 2>&1 || t_fail "playlist remove"
wait_for "4. The Lanterns – Salt Wind" 4 || t_fail "the removal is not shown"
keys Space
wait_for "+   4. The Lanterns – Salt Wind" 2 || t_fail "the cursor left its entry"
keys M
crate playlist use Default >/dev/null 2>&1 || t_fail "playlist use Default"
keys 1

t_begin live_cli_rescan_removes
keys Escape
keys 1
wait_for "Harbour Lights" || t_fail "search not cleared"
rm "$A/01 Harbour Lights.ogg"
crate scan --quiet "$A" >/dev/null 2>&1 || t_fail "CLI rescan"
wait_for "The Lanterns         2" 4 || t_fail "a file gone in a CLI scan is still shown"

t_begin live_ui_scan_home_and_errors_view
# ":scan ~/new" expands the home folder; the end says what failed, and
# ":errors" lists every failure with its reason.
mkdir -p "$HOME/new"
cp "$SRCDIR/data/demo/01 Vatnajökull.flac" "$HOME/new/x.flac"
printf 'not audio' >"$HOME/new/broken.mp3"
printf 'text' >"$HOME/new/README.md"
keys Escape
keys 1
keys :
typed 'scan ~/new'
keys Enter
wait_for "scan done:" 10 || t_fail "no summary at the end of the scan"
wait_for "1 ignored, 1 failed" 1 || t_fail "the summary does not count ignored and failed"
keys :
typed 'errors'
keys Enter
wait_for "Scan problems" 3 || t_fail "no errors view"
wait_for "broken.mp3" 1 || t_fail "the failed file is not listed"
wait_for "not audio" 1 || t_fail "its reason is not shown"
keys q

t_begin live_ui_scan_progress_line
if [ -f "$CORPUS/MANIFEST.tsv" ]; then
	keys :
	typed "scan $CORPUS"
	keys Enter
	wait_for "/s " 20 || wait_for "building the index" 5 || t_fail "no progress line during a scan"
	wait_for "scan done:" 120 || t_fail "the corpus scan did not finish"
else
	t_skip "no corpus"
fi

t_begin live_watch_copy_500_is_one_update
# The folder scanned by the CLI is a root: the interface watches it.
keys Escape
keys 1
ffmpeg -v error -y -f lavfi -i "sine=frequency=500:duration=0.2" -ac 1 \
	-metadata artist="Burst Band" -metadata title=Burst "$T_TMP/burst.flac" || t_fail "ffmpeg"
mkdir -p "$A/burst"
t_copies "$T_TMP/burst.flac" 500 "$A/burst/b%d.flac"
# (the artist column may not reach "Burst Band" on screen: multi-artist
# corpus files list each artist, so the message line is what is watched)
wait_for "library updated: 500 added" 10 || t_fail "the copy was not picked up as one update of 500"
n=$(crate search 'artist:"Burst Band"' --format '%id%' | wc -l)
[ "$n" -eq 500 ] || t_fail "$n of 500 copied files indexed"

t_begin live_watch_move_keeps_ids_and_playlists
crate playlist new Road >/dev/null 2>&1
crate playlist add Road 'album:"Late Trains"' >/dev/null 2>&1 || t_fail "playlist add"
before=$(crate search 'album:"Late Trains"' --format '%id% %title%' | sort)
mkdir -p "$A/moved/deeper"
mv "$A"/*.mp3 "$A/moved/deeper/"
wait_for "library updated: 0 added, 4 updated, 0 gone" 10 || t_fail "the move is not seen as one update"
after=$(crate search 'album:"Late Trains"' --format '%id% %title%' | sort)
[ "$before" = "$after" ] || t_fail "ids changed by a move: [$before] -> [$after]"
crate search 'album:"Late Trains"' --format '%url%' | grep -q "/moved/deeper/" || t_fail "urls not updated"
n=$(crate playlist list Road --format '%title%' | grep -c -E "Stairway Down|Track 10")
[ "$n" -eq 2 ] || t_fail "the playlist lost its entries after the move ($n of 2)"

t_begin live_watch_delete_marks_missing
id=$(crate search 'title:"Salt Wind"' --format '%id%')
rm "$A/02 Salt Wind.ogg"
wait_for "1 gone" 10 || t_fail "a deleted file is not noticed"
m=$(sqlite3 "$DB" "SELECT missing FROM media WHERE id = $id")
[ "$m" = 1 ] || t_fail "a deleted file is not marked missing (missing=$m)"
rm -rf "$A/burst"
wait_for "500 gone" 10 || t_fail "a deleted folder is not noticed"
screen | grep -q "problem" && t_fail "deleting a folder was reported as a problem"

t_begin live_watch_limit_falls_back_to_rescans
if ! unshare -U -r sh -c 'echo 1 >/proc/sys/user/max_inotify_watches' 2>/dev/null; then
	t_skip "cannot set max_inotify_watches in a user namespace"
else
	# A library of its own: one root with a few folders, one watch allowed.
	L=$T_TMP/lim; LDB=$T_TMP/lim.db
	mkdir -p "$L/one" "$L/two/sub"
	cp "$SRCDIR"/data/demo/*.mp3 "$L/one/"
	crate_l() { "$CRATE" --db "$LDB" "$@"; }
	crate_l scan --quiet "$L" >/dev/null 2>&1 || t_fail "scan"
	printf '[library]\nrescan_interval = 1\n' >"$CONF"
	new_session 160 30 "unshare -U -r sh -c 'echo 1 >/proc/sys/user/max_inotify_watches; exec env LANG=C.UTF-8 TERM=xterm-256color \"\$0\" --db \"\$1\" --config \"\$2\"' '$CRATE' '$LDB' '$CONF'"
	wait_for "max_user_watches" 5 || t_fail "the watch limit is not reported"
	wait_for "sysctl" 1 || t_fail "the message does not say how to raise it"
	ffmpeg -v error -y -f lavfi -i "sine=frequency=700:duration=0.2" -ac 1 \
		-metadata artist="Rescan Found" -metadata title=Late "$L/two/sub/late.flac" || t_fail "ffmpeg"
	wait_for "Rescan Found" 8 || t_fail "the periodic rescan did not pick the new file up"
	: >"$CONF"
fi
# The root of the running interface deleted, seen gone, and made again:
# its three items must come back (not missing) by the periodic rescan.
root_goes_and_comes_back() {
	wait_for "1 Browser" 5 || t_fail "no interface"
	rm -rf "$G/root"
	wait_for "3 gone" 10 || t_fail "the root's going is not noticed"
	mkdir -p "$G/root"
	cp "$SRCDIR"/data/demo/*.ogg "$G/root/"
	local back=
	for _ in $(seq 1 50); do
		[ "$(sqlite3 "$GDB" "SELECT count(*) FROM media WHERE missing = 0")" = 3 ] && { back=1; break; }
		sleep 0.2
	done
	[ -n "$back" ] || t_fail "the items did not come back: $(sqlite3 "$GDB" "SELECT id, missing FROM media")"
}

t_begin live_watch_root_deleted_and_made_again_comes_back
# A root whose folder goes (a disk unmounted, the folder deleted) marks its
# items missing; when it is back the periodic rescans find them again, ids
# kept. Nothing watched for it once its watch was gone: the items stayed
# missing until crate was started again.
G=$T_TMP/gone; GDB=$T_TMP/gone.db
mkdir -p "$G/root"
cp "$SRCDIR"/data/demo/*.ogg "$G/root/"
"$CRATE" --db "$GDB" scan --quiet "$G/root" >/dev/null 2>&1 || t_fail "scan"
ids=$(sqlite3 "$GDB" "SELECT group_concat(id) FROM media")
printf '[library]\nrescan_interval = 1\n' >"$CONF"
new_session 160 30 "env LANG=C.UTF-8 TERM=xterm-256color '$CRATE' --db '$GDB' --config '$CONF'"
root_goes_and_comes_back
[ "$(sqlite3 "$GDB" "SELECT group_concat(id) FROM media")" = "$ids" ] || t_fail "ids changed"
: >"$CONF"

t_begin live_watch_rescans_stop_once_the_root_is_back
# Once the root is watched again the periodic rescans stop: every scan
# runs on_scan_done, and none may run while nothing changes. (They went on
# every rescan_interval for the rest of the session, a whole library's
# rescan every 5 minutes after one unplugged disk.)
printf '#!/bin/sh\necho scan >>"%s"\n' "$T_TMP/scans" >"$T_TMP/count-scan.sh"
chmod +x "$T_TMP/count-scan.sh"
printf '[library]\nrescan_interval = 1\n[hooks]\non_scan_done = %s\n' "$T_TMP/count-scan.sh" >"$CONF"
new_session 160 30 "env LANG=C.UTF-8 TERM=xterm-256color '$CRATE' --db '$GDB' --config '$CONF'"
root_goes_and_comes_back
sleep 1.5 # the scan that found them ends, its hook runs
before=$(wc -l <"$T_TMP/scans")
sleep 3.5
after=$(wc -l <"$T_TMP/scans")
[ "$after" = "$before" ] || t_fail "$((after - before)) rescans in 3.5 s after the root came back"
# and the watch works again: a new file is seen at once
cp "$SRCDIR/data/demo/01 Vatnajökull.flac" "$G/root/"
for _ in $(seq 1 25); do
	[ "$(sqlite3 "$GDB" "SELECT count(*) FROM media WHERE missing = 0")" = 4 ] && break
	sleep 0.2
done
[ "$(sqlite3 "$GDB" "SELECT count(*) FROM media WHERE missing = 0")" = 4 ] || t_fail "the root is not watched again"
: >"$CONF"

t_begin live_scan_alone_rescans_every_root
# ":scan" with no folder scans the roots again, as `crate scan` does (it
# said "usage: scan DIR..."); here with the watch off, as over SSHFS.
W=$T_TMP/unwatched; WDB=$T_TMP/unwatched.db
mkdir -p "$W/one" "$W/two"
cp "$SRCDIR"/data/demo/*.ogg "$W/one/"
"$CRATE" --db "$WDB" scan --quiet "$W/one" "$W/two" >/dev/null 2>&1 || t_fail "scan"
printf '[library]\nwatch = false\nrescan_interval = 0\n' >"$CONF"
new_session 160 30 "env LANG=C.UTF-8 TERM=xterm-256color '$CRATE' --db '$WDB' --config '$CONF'"
wait_for "1 Browser" 5 || t_fail "no interface"
cp "$SRCDIR"/data/demo/*.opus "$W/two/"
cp "$SRCDIR/data/demo/01 Vatnajökull.flac" "$W/two/bad.flac"
printf 'TITLE "No file"\nTRACK 01 AUDIO\nINDEX 01 00:00:00\n' >"$W/two/bad.cue"
rm "$W/one/02 Salt Wind.ogg"
keys :
typed 'scan'
keys Enter
wait_for "scan done:" 10 || t_fail "no scan: $(screen | tail -1)"
wait_for "4 added, 0 updated, 2 unchanged, 1 ignored, 0 failed, 1 gone, 1 cue sheet not used" 2 ||
	t_fail "the summary (the file that went and the sheet must be said): $(screen | tail -1)"
[ "$(sqlite3 "$WDB" "SELECT sum(missing = 0) || ' ' || sum(missing) FROM media")" = "6 1" ] ||
	t_fail "the library after :scan: $(sqlite3 "$WDB" "SELECT sum(missing = 0) || ' ' || sum(missing) FROM media")"
: >"$CONF"

t_begin live_watch_retries_a_scan_the_locked_database_refused
# Files copied while another program holds the database's write lock
# (a sqlite3 session, a backup): the watch's scan fails after SQLite's
# wait, and is tried again once the lock is gone. The batch used to be
# dropped: the files stayed unknown until something else changed there.
K=$T_TMP/locked; KDB=$T_TMP/locked.db
mkdir -p "$K"
cp "$SRCDIR"/data/demo/*.ogg "$K/"
"$CRATE" --db "$KDB" scan --quiet "$K" >/dev/null 2>&1 || t_fail "scan"
new_session 160 30 "env LANG=C.UTF-8 TERM=xterm-256color '$CRATE' --db '$KDB' --config '$CONF'"
wait_for "1 Browser" 5 || t_fail "no interface"
{ printf 'BEGIN EXCLUSIVE;\nSELECT 1;\n'; sleep 8; printf 'COMMIT;\n'; } |
	sqlite3 "$KDB" >"$T_TMP/klock.out" 2>/dev/null &
lock=$!
# its "1" says the lock is held (not a fixed 0.5 s, which load can outlast)
wait_until 5 test -s "$T_TMP/klock.out"
cp "$SRCDIR"/data/demo/*.opus "$K/"
wait_for "database is locked" 10 || t_fail "the refused scan is not said"
wait "$lock"
back=
for _ in $(seq 1 75); do
	[ "$(sqlite3 "$KDB" "SELECT count(*) FROM media")" = 6 ] && { back=1; break; }
	sleep 0.2
done
[ -n "$back" ] || t_fail "the copied files were not added once the lock was gone: $(sqlite3 "$KDB" "SELECT count(*) FROM media") rows"

t_begin live_watch_follows_a_linked_folder
# A library merged from two disks with a link (root/Extra -> the other
# disk's folder): files copied there show up, under the link's name the
# scan stored. They were never seen while the interface ran.
L2=$T_TMP/linked; L2DB=$T_TMP/linked.db
mkdir -p "$L2/root" "$L2/disk2"
cp "$SRCDIR"/data/demo/*.ogg "$L2/disk2/"
ln -s "$L2/disk2" "$L2/root/Extra"
"$CRATE" --db "$L2DB" scan --quiet "$L2/root" >/dev/null 2>&1 || t_fail "scan"
new_session 160 30 "env LANG=C.UTF-8 TERM=xterm-256color '$CRATE' --db '$L2DB' --config '$CONF'"
wait_for "1 Browser" 5 || t_fail "no interface"
cp "$SRCDIR"/data/demo/*.opus "$L2/disk2/"
wait_for "library updated: 3 added" 10 || t_fail "the files copied into the linked folder were not seen"
n=$(sqlite3 "$L2DB" "SELECT count(*) FROM media WHERE CAST(url AS TEXT) LIKE '$L2/root/Extra/%'")
[ "$n" = 6 ] || t_fail "$n items under root/Extra, want 6"

t_begin live_cli_progress_bar_on_a_terminal
# `crate scan` on a terminal draws a bar on stderr, then leaves the summary
# as the last line. 6,000 small files keep it busy for a while.
mkdir -p "$T_TMP/many"
t_copies "$T_TMP/burst.flac" 6000 "$T_TMP/many/m%d.flac"
# script(1) gives the scan a terminal and keeps every byte it wrote, so the
# check sees each redraw however fast the scan is (screen captures raced it).
ts=$T_TMP/scan.typescript
script -qefc "'$CRATE' --db '$T_TMP/bar.db' scan '$T_TMP/many'" "$ts" >/dev/null 2>&1 </dev/null ||
	t_fail "scan on a terminal failed"
grep -aqE '\[[#-]+\] [0-9]+/[0-9]+ files|finding files: [0-9]' "$ts" || t_fail "no progress bar while scanning"
# What the terminal shows last: the text after the last carriage return of
# the last non-empty line, without escape sequences.
last=$(tr -d '\000' <"$ts" | sed 's/\x1b\[[0-9;]*[A-Za-z]//g' | grep -av '^[[:space:]]*$' | grep -avE '^Script (started|done) on' | tail -n 1 | awk -F'\r' '{ for (i = NF; i > 0; i--) if ($i != "") { print $i; exit } }')
case $last in "scanned 6000 files:"*) ;; *) t_fail "the summary is not the last line: $last" ;; esac
t_end
