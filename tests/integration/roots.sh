#!/usr/bin/env bash
# Managing roots and forgetting music (issue 16 item 4): `crate roots`
# lists every scanned folder, `crate roots remove DIR` stops watching it and
# forgets its items after confirmation (--yes), `crate forget QUERY` removes
# items without touching files (playlists keep a visible missing entry),
# `crate scan --prune` forgets items whose files are gone.
. "$(dirname "$0")/../lib.sh"
trap 'rm -rf "$T_TMP"' EXIT

DB=$T_TMP/lib.db
c() { "$CRATE" --db "$DB" "$@"; }
M=$T_TMP/music
mkdir -p "$M/a" "$M/b" "$T_TMP/other"
cp "$SRCDIR"/data/demo/*.mp3 "$M/a/"
cp "$SRCDIR"/data/demo/*.ogg "$M/b/"
cp "$SRCDIR"/data/demo/*.flac "$T_TMP/other/"

t_begin roots_listed_nested_not_added
c scan --quiet "$M" "$T_TMP/other" >/dev/null 2>&1 || t_fail "scan"
c scan --quiet "$M/a" >/dev/null 2>&1 || t_fail "scan of a folder inside a root"
roots=$(c roots)
want=$(printf '%s\n%s' "$(realpath "$M")" "$(realpath "$T_TMP/other")")
[ "$roots" = "$want" ] || t_fail "roots: [$roots], want [$want]"

t_begin roots_forget_asks_and_keeps_files
c forget 'title:"Track 10"' </dev/null >"$T_TMP/out" 2>"$T_TMP/err"
rc=$?
[ $rc -eq 1 ] || t_fail "forget without --yes and without a terminal exited $rc"
grep -q -- "--yes" "$T_TMP/err" || t_fail "no hint about --yes: $(cat "$T_TMP/err")"
[ "$(c search 'title:"Track 10"' --format '%id%' | wc -l)" -eq 1 ] || t_fail "forgotten without --yes"
c playlist add Default 'album:"Late Trains"' >/dev/null 2>&1 || t_fail "playlist add"
c forget --yes 'title:"Track 10"' >/dev/null 2>&1 || t_fail "forget --yes"
[ "$(c search 'title:"Track 10"' --format '%id%' | wc -l)" -eq 0 ] || t_fail "still in the library"
[ -f "$M/a/02 Track 10.mp3" ] || t_fail "the file was touched"
c playlist list Default >"$T_TMP/pl" 2>&1
grep -q "no longer in the library" "$T_TMP/pl" || t_fail "the playlist hides the forgotten entry: $(cat "$T_TMP/pl")"
grep -q "Stairway Down" "$T_TMP/pl" || t_fail "the playlist lost its other entry"

t_begin roots_forget_of_a_query_search_forgives_says_why
# crate search a:Lanterns lists The Lanterns' tracks (it forgives), and
# crate forget a:Lanterns said only "nothing matches 'a:Lanterns'": forget
# takes a query as written, and now says so.
c forget --yes a:Lanterns >"$T_TMP/out" 2>&1 && t_fail "forgot something"
[ "$(cat "$T_TMP/out")" = "crate: nothing matches 'a:Lanterns' as written: nothing forgotten (forget never forgives a query; crate search forgives this one to 3 tracks)" ] ||
	t_fail "says: $(cat "$T_TMP/out")"
[ "$(c search --format '%id%' 'a:"The Lanterns"' | wc -l)" -eq 3 ] || t_fail "items went"
c forget --yes a:zzzz >"$T_TMP/out" 2>&1
[ "$(cat "$T_TMP/out")" = "crate: nothing matches 'a:zzzz': nothing forgotten" ] || t_fail "no match: $(cat "$T_TMP/out")"

t_begin roots_missing_entry_is_named_until_forgotten
# A file gone from its folder keeps its row (marked missing): the CLI names
# its entry from the stored tags, as the interface does, and says it is
# missing; it said "(#N is no longer in the library)", as for a forgotten
# one, and export left it out.
c playlist new Gone >/dev/null 2>&1 && c playlist add Gone 'album:"Harbour Lights"' >/dev/null 2>&1 ||
	t_fail "playlist"
rm "$M/b/02 Salt Wind.ogg"
c scan --quiet "$M" >/dev/null 2>&1
c playlist list Gone >"$T_TMP/pl" 2>&1
grep -qx " *[0-9]*\. The Lanterns - Harbour Lights - Salt Wind  (missing)" "$T_TMP/pl" ||
	t_fail "the missing entry: $(cat "$T_TMP/pl")"
grep -q "no longer in the library" "$T_TMP/pl" && t_fail "called gone: $(cat "$T_TMP/pl")"
[ "$(c playlist list Gone --format '%title%' | grep -c 'Salt Wind  (missing)$')" -eq 1 ] ||
	t_fail "--format: $(c playlist list Gone --format '%title%' 2>&1)"
c playlist list Gone --json | grep -q '"missing": true, "url": "[^"]*/02 Salt Wind.ogg", "artist": "The Lanterns"' ||
	t_fail "--json: $(c playlist list Gone --json 2>&1)"
c playlist export Gone "$T_TMP/gone.m3u8" 2>"$T_TMP/err" || t_fail "export: $(cat "$T_TMP/err")"
grep -q "/02 Salt Wind.ogg$" "$T_TMP/gone.m3u8" || t_fail "export left it out: $(cat "$T_TMP/gone.m3u8")"

t_begin roots_missing_entry_keeps_its_id
# %id% is the entry's own number, known while its file is gone (it was
# empty, as the numbers that describe the file are).
sid=$(sqlite3 "$DB" "SELECT id FROM media WHERE missing = 1" 2>/dev/null)
[ -n "$sid" ] || t_fail "no missing row"
c playlist list Gone --format '%id% %title% [%duration%]' >"$T_TMP/pl" 2>&1
grep -qx "$sid Salt Wind \\[\\]  (missing)" "$T_TMP/pl" || t_fail "--format %id%: $(cat "$T_TMP/pl")"

t_begin roots_scan_prune_forgets_missing
n=$(sqlite3 "$DB" "SELECT count(*) FROM media WHERE missing = 1" 2>/dev/null || echo x)
[ "$n" = 1 ] || t_fail "$n rows marked missing, want 1"
c scan --prune >"$T_TMP/out" 2>&1 || t_fail "scan --prune: $(cat "$T_TMP/out")"
grep -q "forgot 1 missing item" "$T_TMP/out" || t_fail "prune says: $(cat "$T_TMP/out")"
n=$(sqlite3 "$DB" "SELECT count(*) FROM media WHERE missing = 1" 2>/dev/null || echo x)
[ "$n" = 0 ] || t_fail "$n missing rows after --prune"
c playlist list Gone >"$T_TMP/pl" 2>&1
grep -q "(#[0-9]* is no longer in the library)" "$T_TMP/pl" || t_fail "the pruned entry: $(cat "$T_TMP/pl")"
grep -q "Salt Wind" "$T_TMP/pl" && t_fail "a forgotten entry still named: $(cat "$T_TMP/pl")"

t_begin roots_remove_forgets_its_items
before=$(c list --format '%id%' | wc -l)
c roots remove "$T_TMP/other" </dev/null >/dev/null 2>&1 && t_fail "removed without --yes"
c roots remove --yes "$T_TMP/other" >"$T_TMP/out" 2>&1 || t_fail "roots remove: $(cat "$T_TMP/out")"
c roots | grep -q other && t_fail "still a root"
after=$(c list --format '%id%' | wc -l)
[ $((before - after)) -eq 2 ] || t_fail "$before items before, $after after: want the 2 under it gone"
[ -f "$T_TMP/other/01 Vatnajökull.flac" ] || t_fail "files touched"
c roots remove --yes /no/such/root >/dev/null 2>"$T_TMP/err" && t_fail "removing an unknown root succeeded"
grep -q "not a scanned folder" "$T_TMP/err" || t_fail "unclear: $(cat "$T_TMP/err")"

t_begin roots_remove_keep_says_what_it_did
# crate roots remove --keep DIR printed nothing at all (":roots remove
# --keep DIR" said "done"): it says the root went and the items stay.
mkdir -p "$T_TMP/kept"
cp "$SRCDIR"/data/demo/*.ogg "$T_TMP/kept/"
c scan --quiet "$T_TMP/kept" >/dev/null 2>&1 || t_fail "scan"
c roots remove --keep "$T_TMP/kept" >"$T_TMP/out" 2>&1 || t_fail "roots remove --keep: $(cat "$T_TMP/out")"
[ "$(cat "$T_TMP/out")" = "removed the root $(realpath "$T_TMP/kept"): its items stay in the library (a plain crate scan still looks at them)" ] ||
	t_fail "says: [$(cat "$T_TMP/out")]"
c roots | grep -q "/kept$" && t_fail "still a root"
[ "$(c search --format '%id%' "u~$T_TMP/kept/" | wc -l)" -eq 3 ] || t_fail "the items went"
c forget --yes "u~$T_TMP/kept/" >/dev/null 2>&1

t_begin roots_file_moved_between_two_scans_keeps_its_id
# A file moved from one root to another (an import tool's inbox to the
# library) and the roots scanned one after the other: the first scan marks
# it missing, the second finds it under its name; it used to be added anew,
# its rating, plays and playlist places left on a missing row.
IN=$T_TMP/inbox LIB=$T_TMP/library
mkdir -p "$IN" "$LIB"
cp "$SRCDIR/data/demo/01 Kraftwerk Dreams.opus" "$SRCDIR/data/demo/02 Beat Street.opus" "$IN/"
c scan --quiet "$IN" "$LIB" >/dev/null 2>&1 || t_fail "scan"
id=$(c search --format '%id%' 'title:"Beat Street"')
c rate "#$id" 4 >/dev/null 2>&1 || t_fail "rate"
c playlist new Moved >/dev/null 2>&1 && c playlist add Moved "#$id" >/dev/null 2>&1 || t_fail "playlist"
mv "$IN/02 Beat Street.opus" "$LIB/"
c scan "$IN" >"$T_TMP/out" 2>&1 || t_fail "scan of the inbox: $(cat "$T_TMP/out")"
grep -q "1 gone (marked missing)" "$T_TMP/out" || t_fail "inbox scan: $(tail -1 "$T_TMP/out")"
c scan "$LIB" >"$T_TMP/out" 2>&1 || t_fail "scan of the library: $(cat "$T_TMP/out")"
grep -q "0 added, 1 updated" "$T_TMP/out" || t_fail "library scan: $(tail -1 "$T_TMP/out")"
got=$(c search --format '%id% %rating% %url%' 'title:"Beat Street"')
[ "$got" = "$id 4 $LIB/02 Beat Street.opus" ] || t_fail "after the move: [$got], want [$id 4 $LIB/...]"
n=$(sqlite3 "$DB" "SELECT count(*) FROM media WHERE CAST(url AS TEXT) LIKE '%Beat Street%'" 2>/dev/null || echo x)
[ "$n" = 1 ] || t_fail "$n rows for the file, want 1"
c playlist list Moved >"$T_TMP/pl" 2>&1
grep -q "Beat Street" "$T_TMP/pl" && ! grep -q "missing" "$T_TMP/pl" || t_fail "the playlist: $(cat "$T_TMP/pl")"
# A missing row whose path holds its file again belongs to that file, not
# to a copy (cp -p) found elsewhere.
kid=$(c search --format '%id%' 'title:"Kraftwerk Dreams"')
mkdir -p "$T_TMP/away" && mv "$IN/01 Kraftwerk Dreams.opus" "$T_TMP/away/"
c scan --quiet "$IN" >/dev/null 2>&1
mv "$T_TMP/away/01 Kraftwerk Dreams.opus" "$IN/" && cp -p "$IN/01 Kraftwerk Dreams.opus" "$LIB/"
c scan --quiet "$LIB" >/dev/null 2>&1 && c scan --quiet "$IN" >/dev/null 2>&1
got=$(c search --format '%id% %url%' 'title:"Kraftwerk Dreams"' | sort -n | head -1)
[ "$got" = "$kid $IN/01 Kraftwerk Dreams.opus" ] || t_fail "the returned file: [$got]"

t_begin roots_deleted_folder_named_relatively_goes_missing
# rm -rf an album, then "crate scan Album" from its parent: its items are
# missing, as with the folder's absolute path (they stayed in the library,
# playable entries for files that are gone).
REL=$T_TMP/rel
mkdir -p "$REL/Album"
cp "$SRCDIR"/data/demo/*.ogg "$REL/Album/"
(cd "$REL" && c scan --quiet Album) >/dev/null 2>&1 || t_fail "scan"
rm -rf "$REL/Album"
(cd "$REL" && c scan Album/) >"$T_TMP/out" 2>&1
grep -q "3 gone (marked missing)" "$T_TMP/out" || t_fail "scan of the deleted folder: $(tail -1 "$T_TMP/out")"
n=$(sqlite3 "$DB" "SELECT count(*) FROM media WHERE missing = 1 AND CAST(url AS TEXT) LIKE '$REL/Album/%'" 2>/dev/null || echo x)
[ "$n" = 3 ] || t_fail "$n of its 3 items missing"
[ "$(c search --format '%id%' "u~$REL/Album/" | wc -l)" -eq 0 ] || t_fail "still searchable"

t_begin roots_a_gone_root_is_said_not_found
# The scan above: the folder itself is gone, which is what it says (it
# said "1 folder unreadable", as for a folder without permission).
grep -q "Album/\?: No such file or directory (deleted, renamed, or on a disk that is not mounted)" "$T_TMP/out" ||
	t_fail "the gone root is not named as such: $(cat "$T_TMP/out")"
grep -q ", 1 root not found" "$T_TMP/out" || t_fail "summary: $(tail -1 "$T_TMP/out")"
grep -q "unreadable" "$T_TMP/out" && t_fail "a gone root counted as an unreadable folder: $(tail -1 "$T_TMP/out")"

t_begin roots_a_path_that_never_was_is_no_root_gone
# crate scan ~/Musci (a typo) said "No such file or directory (deleted,
# renamed, or on a disk that is not mounted)", a note that 'crate roots
# remove DIR' forgets it (which then said it was not a scanned folder),
# and "1 root not found". A path that is not there and never held
# anything of the library is said as ls says it; the rest is scanned.
c scan "$T_TMP/Musci" >"$T_TMP/out" 2>&1; st=$?
[ $st -eq 2 ] || t_fail "a typo alone: exit $st"
[ "$(cat "$T_TMP/out")" = "crate: $T_TMP/Musci: No such file or directory" ] || t_fail "a typo: $(cat "$T_TMP/out")"
c scan "$T_TMP/Musci" "$M" >"$T_TMP/out" 2>&1; st=$?
[ $st -eq 2 ] || t_fail "a typo beside a root: exit $st"
grep -q "not found\|roots remove" "$T_TMP/out" && t_fail "a typo beside a root: $(cat "$T_TMP/out")"
grep -q "^scanned " "$T_TMP/out" || t_fail "the root was not scanned: $(cat "$T_TMP/out")"

t_begin roots_a_gone_folder_inside_a_root_is_not_a_root_to_remove
# crate scan ~/Music/OldAlbum after deleting it marked its tracks missing
# and then advised 'crate roots remove DIR', which refuses a folder that
# is no root ("not a scanned folder"). It names what does forget them.
S=$T_TMP/sub
mkdir -p "$S/Old" "$S/Keep"
cp "$SRCDIR"/data/demo/*.opus "$S/Old/"
cp "$SRCDIR"/data/demo/*.mp3 "$S/Keep/"
c scan --quiet "$S" >/dev/null 2>&1 || t_fail "scan"
rm -r "$S/Old"
(cd "$S" && c scan Old) >"$T_TMP/out" 2>&1
grep -q "roots remove" "$T_TMP/out" && t_fail "advice that roots remove refuses: $(cat "$T_TMP/out")"
grep -q "^crate: note: what was there is marked missing; 'crate scan --prune' forgets it$" "$T_TMP/out" ||
	t_fail "no word of --prune: $(cat "$T_TMP/out")"
grep -q "gone (marked missing)" "$T_TMP/out" || t_fail "not marked missing: $(cat "$T_TMP/out")"
# a root itself gone, named relatively: roots remove is the advice
mv "$S" "$T_TMP/sub2"
(cd "$T_TMP" && c scan sub) >"$T_TMP/out" 2>&1
grep -q "^crate: note: 'crate roots remove DIR' forgets a folder gone for good$" "$T_TMP/out" ||
	t_fail "a gone root: $(cat "$T_TMP/out")"
c roots remove --yes "$T_TMP/sub" >/dev/null 2>&1 || t_fail "roots remove of the gone root"
rm -rf "$T_TMP/sub2"

t_begin roots_remove_of_a_deleted_folder_named_relatively
# The deleted album folder was a root: `crate roots remove Album` from its
# parent removes it, as its absolute path does (it said "Album: not a
# scanned folder" while `crate roots` listed it).
(cd "$REL" && c roots remove --yes Album) >"$T_TMP/out" 2>&1 || t_fail "roots remove: $(cat "$T_TMP/out")"
grep -q "forgot 3 items" "$T_TMP/out" || t_fail "roots remove says: $(cat "$T_TMP/out")"
c roots | grep -q "^$REL/Album$" && t_fail "still a root: $(c roots)"

t_begin roots_scan_without_a_path_rescans_every_root
# `crate scan` alone looks at every root again, as `mpc update` and cmus's
# :update-cache do (it printed the usage and exited 1).
cp "$SRCDIR/data/demo/01 Vatnajökull.flac" "$LIB/new.flac"
rm "$IN/01 Kraftwerk Dreams.opus"
c scan >"$T_TMP/out" 2>&1; rc=$?
[ $rc -eq 0 ] || t_fail "exit $rc: $(cat "$T_TMP/out")"
grep -q "1 added.* 1 gone (marked missing)" "$T_TMP/out" || t_fail "summary: $(tail -1 "$T_TMP/out")"
[ "$(c search --format '%url%' "u~$LIB/new.flac")" = "$LIB/new.flac" ] || t_fail "the new file under a root is not in the library"
c --db "$T_TMP/empty.db" scan >"$T_TMP/out" 2>&1 && t_fail "no roots: exit 0"
grep -q "no folder is scanned yet: 'crate scan DIR' adds one" "$T_TMP/out" || t_fail "no roots: $(cat "$T_TMP/out")"
# Files given by name are no roots, but a plain scan looks at them too,
# as cmus's :update-cache looks at every file it has: a library of them
# is rescanned (it said "no folder is scanned yet" and exited 1, as if it
# were empty, then that only crate scan FILE rescanned them); once they
# are gone, it says so.
mkdir -p "$T_TMP/byname"
cp "$SRCDIR/data/demo/01 Vatnajökull.flac" "$T_TMP/byname/"
c --db "$T_TMP/files.db" scan --quiet "$T_TMP/byname/01 Vatnajökull.flac" >/dev/null 2>&1 ||
	t_fail "scan of one file"
c --db "$T_TMP/files.db" scan >"$T_TMP/out" 2>&1 || t_fail "files only: exit $?: $(cat "$T_TMP/out")"
grep -q "^scanned 1 files: 0 added, 0 updated, 1 unchanged" "$T_TMP/out" || t_fail "files only: $(cat "$T_TMP/out")"
rm "$T_TMP/byname/01 Vatnajökull.flac"
c --db "$T_TMP/files.db" scan >/dev/null 2>&1
c --db "$T_TMP/files.db" scan >"$T_TMP/out" 2>&1 && t_fail "files only, gone: exit 0"
grep -qF "crate: no folder is scanned yet, and the library's 1 item, from files given by name, is gone (crate scan --prune forgets them); 'crate scan DIR' adds a folder" "$T_TMP/out" ||
	t_fail "files only, gone: $(cat "$T_TMP/out")"

t_begin roots_a_file_given_by_name_that_goes_is_marked_missing
# crate scan FILE, the file deleted, then crate scan (every root): the
# file stayed in the library as present, a search hit and a playlist
# entry that could not play, as no scan ever looked at it again. A plain
# scan looks at such files with the roots: gone, it is marked missing,
# without calling it a root not found; back, it returns with its id.
BN=$T_TMP/byname2
mkdir -p "$BN/root" "$BN/loose"
cp "$SRCDIR"/data/demo/*.ogg "$BN/root/"
cp "$SRCDIR"/data/demo/*.mp3 "$BN/loose/"
bc() { "$CRATE" --db "$BN.db" "$@"; }
bc scan --quiet "$BN/root" >/dev/null 2>&1 || t_fail "scan of the root"
bc scan --quiet "$BN/loose/01 Stairway Down.mp3" "$BN/loose/02 Track 10.mp3" >/dev/null 2>&1 ||
	t_fail "scan of two files"
id=$(bc search --format '%id%' 'title:"Stairway Down"')
mv "$BN/loose/01 Stairway Down.mp3" "$BN/away.mp3"
bc scan >"$T_TMP/out" 2>&1 || t_fail "plain scan: exit $?: $(cat "$T_TMP/out")"
grep -q "^scanned 4 files: 0 added, 0 updated, 4 unchanged, 0 ignored, 0 failed, 1 gone (marked missing) (" "$T_TMP/out" ||
	t_fail "plain scan: $(cat "$T_TMP/out")"
grep -q "not found\|No such file" "$T_TMP/out" && t_fail "the file called a lost root: $(cat "$T_TMP/out")"
[ -z "$(bc search --format '%id%' 'title:"Stairway Down"')" ] || t_fail "still present"
mv "$BN/away.mp3" "$BN/loose/01 Stairway Down.mp3"
bc scan >"$T_TMP/out" 2>&1 || t_fail "plain scan, back: $(cat "$T_TMP/out")"
[ "$(bc search --format '%id%' 'title:"Stairway Down"')" = "$id" ] || t_fail "back with another id: $(cat "$T_TMP/out")"
[ "$(bc roots)" = "$(realpath "$BN/root")" ] || t_fail "roots: $(bc roots)"
# Many files given by name (a shell's glob): each is looked at, and one
# deleted goes missing, the others unchanged.
mkdir -p "$BN/many"
t_copies "$SRCDIR/data/demo/02 Salt Wind.ogg" 40 "$BN/many/t%d.ogg"
bc scan --quiet "$BN"/many/*.ogg >/dev/null 2>&1 || t_fail "scan of 40 files"
rm "$BN/many/t7.ogg"
bc scan >"$T_TMP/out" 2>&1 || t_fail "plain scan of many: $(cat "$T_TMP/out")"
grep -q "^scanned 44 files: 0 added, 0 updated, 44 unchanged, 0 ignored, 0 failed, 1 gone (marked missing) (" "$T_TMP/out" ||
	t_fail "plain scan of many: $(cat "$T_TMP/out")"

t_begin roots_prune_keeps_what_a_disk_not_mounted_holds
# crate scan --prune while a disk is unplugged (its root gone, or its
# mount point empty) forgot every item on it: back with the disk, they
# were new items, their ratings, play counts and playlist places lost.
# Only files deleted under roots that are there are forgotten now.
P=$T_TMP/prune
mkdir -p "$P/disk" "$P/mnt" "$P/home"
cp "$SRCDIR"/data/demo/*.ogg "$P/disk/"
cp "$SRCDIR"/data/demo/*.ogg "$P/mnt/"
cp "$SRCDIR"/data/demo/*.mp3 "$P/home/"
pc() { "$CRATE" --db "$P.db" "$@"; }
pc scan --quiet "$P/disk" "$P/mnt" "$P/home" >/dev/null 2>&1 || t_fail "scan"
ids=$(pc list --format '%id% %url%' | sort)
mv "$P/disk" "$P/away"               # the root itself gone
mkdir "$P/mnt.away" && mv "$P/mnt"/* "$P/mnt.away/" # a mount point left empty
rm "$P/home/$(ls "$P/home" | head -1)" # a file deleted for good
pc scan >/dev/null 2>&1
pc scan --prune >"$T_TMP/out" 2>&1 || t_fail "scan --prune: $(cat "$T_TMP/out")"
grep -qx "forgot 1 missing item" "$T_TMP/out" || t_fail "prune: $(cat "$T_TMP/out")"
grep -q "^kept 6 missing items under roots that are not there" "$T_TMP/out" || t_fail "prune: $(cat "$T_TMP/out")"
mv "$P/away" "$P/disk"
mv "$P/mnt.away"/* "$P/mnt/"
pc scan >/dev/null 2>&1
got=$(pc list --format '%id% %url%' | sort)
[ "$(printf '%s\n' "$got" | grep -e "$P/disk/" -e "$P/mnt/")" = "$(printf '%s\n' "$ids" | grep -e "$P/disk/" -e "$P/mnt/")" ] ||
	t_fail "the disk's items came back as: [$got], were [$ids]"

t_begin roots_a_root_linked_into_another_is_one_item_each
# ~/Music/ext -> /data/ext, and /data/ext a root of its own: each file is
# one item, at its real path, whichever root a scan starts from (it was
# two items, and crate scan of all roots marked one of them missing, which
# crate scan /data/ext brought back). Scanned first through the link, the
# item keeps its id when its folder becomes a root.
L=$T_TMP/linked
mkdir -p "$L/Music" "$L/data/ext"
cp "$SRCDIR"/data/demo/*.ogg "$L/data/ext/"
cp "$SRCDIR"/data/demo/*.mp3 "$L/Music/"
ln -s ../data/ext "$L/Music/ext"
lc() { "$CRATE" --db "$L.db" "$@"; }
lc scan --quiet "$L/Music" >/dev/null 2>&1 || t_fail "scan Music"
first=$(lc list --format '%id% %title%' | sort)
lc scan "$L/data/ext" >"$T_TMP/out" 2>&1 || t_fail "scan ext: $(cat "$T_TMP/out")"
grep -q "0 added, 3 updated" "$T_TMP/out" || t_fail "the root's files: $(tail -1 "$T_TMP/out")"
lc scan >"$T_TMP/out" 2>&1 || t_fail "scan: $(cat "$T_TMP/out")"
grep -q "scanned 7 files: 0 added, 0 updated, 7 unchanged" "$T_TMP/out" || t_fail "all roots: $(tail -1 "$T_TMP/out")"
lc scan "$L/Music" >"$T_TMP/out" 2>&1 || t_fail "scan Music again: $(cat "$T_TMP/out")"
grep -q "gone" "$T_TMP/out" && t_fail "Music again: $(tail -1 "$T_TMP/out")"
[ "$(lc list --format '%id% %title%' | sort)" = "$first" ] || t_fail "items: $(lc list --format '%id% %url%')"
[ "$(lc list --format '%url%' | grep -c "$L/data/ext/")" -eq 3 ] || t_fail "urls: $(lc list --format '%url%')"
[ "$(sqlite3 "$L.db" 'SELECT count(*) FROM media' 2>/dev/null || echo 7)" = 7 ] || t_fail "rows: $(sqlite3 "$L.db" 'SELECT id, missing, CAST(url AS TEXT) FROM media')"

t_begin roots_a_renamed_root_keeps_its_ids
# mv ~/Music ~/Muzak, then crate scan ~/Muzak: the files are the same, and
# keep their ids (each was added again, its old item left to go missing
# with its play counts, rating and playlist places).
RN=$T_TMP/rename
mkdir -p "$RN/Music/Album"
cp "$SRCDIR"/data/demo/*.ogg "$RN/Music/Album/"
rc() { "$CRATE" --db "$RN.db" "$@"; }
rc scan --quiet "$RN/Music" >/dev/null 2>&1 || t_fail "scan"
before=$(rc list --format '%id% %title%' | sort)
mv "$RN/Music" "$RN/Muzak"
rc scan "$RN/Muzak" >"$T_TMP/out" 2>&1 || t_fail "scan of the new name: $(cat "$T_TMP/out")"
grep -q "0 added, 3 updated" "$T_TMP/out" || t_fail "summary: $(tail -1 "$T_TMP/out")"
[ "$(rc list --format '%id% %title%' | sort)" = "$before" ] || t_fail "ids: $(rc list --format '%id% %url%')"
[ "$(rc list --format '%url%' | grep -c "$RN/Muzak/Album/")" -eq 3 ] || t_fail "urls: $(rc list --format '%url%')"

t_begin roots_a_renamed_root_is_forgotten_once_its_items_moved
# After the rename above, ~/Music stayed a root: every plain `crate scan`
# said "1 root not found" and exited 2 until `crate roots remove`. Gone,
# with nothing of the library under it, it is no root any more.
rc scan >"$T_TMP/out" 2>&1; st=$?
[ $st -eq 0 ] || t_fail "exit $st: $(cat "$T_TMP/out")"
grep -qF "crate: note: $(realpath "$RN")/Music: gone, with nothing of the library under it: no longer scanned" "$T_TMP/out" ||
	t_fail "not said: $(cat "$T_TMP/out")"
grep -q "root not found" "$T_TMP/out" && t_fail "still not found: $(cat "$T_TMP/out")"
[ "$(rc roots)" = "$(realpath "$RN")/Muzak" ] || t_fail "roots: $(rc roots)"
# A root whose items are still there (a disk not mounted) is kept, and
# the scan says how to forget it.
mkdir -p "$RN/Disk"
cp "$SRCDIR"/data/demo/*.mp3 "$RN/Disk/"
rc scan --quiet "$RN/Disk" >/dev/null 2>&1 || t_fail "scan of Disk"
mv "$RN/Disk" "$RN/Unplugged"
rc scan >"$T_TMP/out" 2>&1; st=$?
[ $st -eq 2 ] || t_fail "a root not found: exit $st"
grep -q ", 1 root not found" "$T_TMP/out" || t_fail "summary: $(cat "$T_TMP/out")"
grep -qF "crate: note: 'crate roots remove DIR' forgets a folder gone for good" "$T_TMP/out" ||
	t_fail "no hint: $(cat "$T_TMP/out")"
rc roots | grep -q "/Disk$" || t_fail "the unmounted root was forgotten: $(rc roots)"

t_end
