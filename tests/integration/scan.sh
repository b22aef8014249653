#!/usr/bin/env bash
# crate scan / info / list through the real binary: exit statuses, progress
# and per-file errors on stderr, JSON and --format output, sanitised text,
# refusing a corrupt database.
. "$(dirname "$0")/../lib.sh"

DB=$T_TMP/lib.db
M=$T_TMP/music
mkdir -p "$M/sub"
have_ffmpeg=1
gen() { # file, metadata...
	local f=$1; shift
	local md=() kv
	for kv in "$@"; do md+=(-metadata "$kv"); done
	ffmpeg -nostdin -v error -y -f lavfi -i "sine=d=0.3" "${md[@]}" "$f" || have_ffmpeg=0
}
gen "$M/a.flac" artist=Kraftwerk title=Nummern album=Computerwelt track=3 date=1981
gen "$M/sub/b.mp3" artist=Can "title=$(printf 'Vitamin \033[31mC')"
printf 'not audio\n' >"$M/notes.txt"
printf 'not audio\n' >"$M/broken.mp3"

t_begin scan_reports_failures_exit_2
if [ $have_ffmpeg = 0 ]; then t_skip "ffmpeg CLI not available"; else
	"$CRATE" --db "$DB" scan "$M" >"$T_TMP/out" 2>"$T_TMP/err"
	rc=$?
	[ $rc -eq 2 ] || t_fail "exit $rc, want 2"
	grep -q "broken.mp3: not audio" "$T_TMP/err" || t_fail "no error line for broken.mp3: $(cat "$T_TMP/err")"
	grep -q "notes.txt" "$T_TMP/err" && t_fail "notes.txt is not audio by name: ignored, not reported"
	grep -q "2 added, .* 1 ignored, 1 failed" "$T_TMP/err" || t_fail "no summary: $(cat "$T_TMP/err")"
	[ -s "$T_TMP/out" ] && t_fail "scan wrote to stdout"
fi

t_begin rescan_unchanged_exit_0
if [ $have_ffmpeg = 0 ]; then t_skip "ffmpeg CLI not available"; else
	rm "$M/broken.mp3" # notes.txt stays: ignored, so exit 0
	"$CRATE" --db "$DB" scan "$M" 2>"$T_TMP/err"
	rc=$?
	[ $rc -eq 0 ] || t_fail "exit $rc, want 0: $(cat "$T_TMP/err")"
	grep -q "2 unchanged" "$T_TMP/err" || t_fail "not incremental: $(cat "$T_TMP/err")"
	"$CRATE" --db "$DB" scan --quiet "$M" 2>"$T_TMP/err"
	[ -s "$T_TMP/err" ] && t_fail "--quiet printed: $(cat "$T_TMP/err")"
fi

t_begin list_format_and_order
if [ $have_ffmpeg = 0 ]; then t_skip "ffmpeg CLI not available"; else
	out=$("$CRATE" --db "$DB" list --format '%artist%|%title%|%tracknr%|%year%|%%|%nosuch%')
	want=$(printf 'Can|Vitamin \357\277\275[31mC|||%%|\nKraftwerk|Nummern|3|1981|%%|')
	[ "$out" = "$want" ] || t_fail "got [$out] want [$want]"
	printf '%s' "$out" | grep -q $'\033' && t_fail "escape character reached the terminal"
fi

t_begin list_json
if [ $have_ffmpeg = 0 ]; then t_skip "ffmpeg CLI not available"; else
	"$CRATE" --db "$DB" list --json >"$T_TMP/json" || t_fail "exit $?"
	grep -q '"artist": "Kraftwerk"' "$T_TMP/json" || t_fail "no artist in JSON"
	grep -q '"tracknr": 3' "$T_TMP/json" || t_fail "tracknr not a number"
	grep -q '\\u001b' "$T_TMP/json" || t_fail "control character not escaped in JSON"
	if command -v python3 >/dev/null; then
		python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert len(d)==2 and d[1]["title"]=="Nummern"' "$T_TMP/json" ||
			t_fail "invalid JSON: $(cat "$T_TMP/json")"
	fi
fi

t_begin info_by_id_and_path
if [ $have_ffmpeg = 0 ]; then t_skip "ffmpeg CLI not available"; else
	out=$("$CRATE" --db "$DB" info "$M/a.flac") || t_fail "info PATH exit $?"
	printf '%s\n' "$out" | grep -qx "artist = Kraftwerk" || t_fail "no artist line: $out"
	printf '%s\n' "$out" | grep -q "^duration = " || t_fail "no duration: $out"
	id=$(printf '%s\n' "$out" | sed -n 's/^id = //p')
	out2=$("$CRATE" --db "$DB" info "$id") || t_fail "info ID exit $?"
	[ "$out" = "$out2" ] || t_fail "info by id and by path differ"
	"$CRATE" --db "$DB" info 999 2>"$T_TMP/err"
	[ $? -eq 1 ] || t_fail "unknown id: want exit 1"
	grep -q "#999" "$T_TMP/err" || t_fail "message does not name the id"
fi

t_begin missing_path_reported
"$CRATE" --db "$DB" scan "$T_TMP/nonexistent" 2>"$T_TMP/err"
rc=$?
[ $rc -eq 2 ] || t_fail "exit $rc, want 2"
grep -q "nonexistent: No such file" "$T_TMP/err" || t_fail "$(cat "$T_TMP/err")"

t_begin database_in_a_missing_folder_is_named
# --db naming a folder that does not exist (a typo): the message names
# the folder; it said only "unable to open database file".
"$CRATE" --db "$T_TMP/no/such/lib.db" scan "$M" 2>"$T_TMP/err"; rc=$?
[ $rc -eq 1 ] || t_fail "exit $rc, want 1"
grep -qx "crate: $T_TMP/no/such/lib.db: cannot create the database: $T_TMP/no/such: No such file or directory" "$T_TMP/err" ||
	t_fail "message: $(cat "$T_TMP/err")"
[ -e "$T_TMP/no" ] && t_fail "a folder was created"

t_begin locked_database_is_explained
# Another program holding the write lock (a sqlite3 shell in a
# transaction): the scan waits 5 s, then says who may hold it; it said
# only "database is locked".
if [ $have_ffmpeg = 0 ] || ! command -v sqlite3 >/dev/null; then t_skip "needs ffmpeg and sqlite3"; else
	"$CRATE" --db "$T_TMP/locked.db" scan --quiet "$M" >/dev/null 2>&1
	touch "$M/a.flac"
	{ printf 'BEGIN EXCLUSIVE;\nSELECT 1;\n'; sleep 8; printf 'COMMIT;\n'; } |
		sqlite3 "$T_TMP/locked.db" >"$T_TMP/lock.out" &
	lpid=$!
	# its "1" says the lock is held (not a fixed 0.5 s, which load can outlast)
	for _ in $(seq 100); do [ -s "$T_TMP/lock.out" ] && break; sleep 0.05; done
	"$CRATE" --db "$T_TMP/locked.db" scan "$M" 2>"$T_TMP/err"; rc=$?
	[ $rc -eq 1 ] || t_fail "exit $rc, want 1"
	grep -q "database is locked (another program has held its write lock for over 5 s: another crate scan, a sqlite3 shell?); try again" "$T_TMP/err" ||
		t_fail "message: $(cat "$T_TMP/err")"
	wait "$lpid"
fi

t_begin corrupt_database_refused_untouched
head -c 5000 /dev/urandom >"$T_TMP/bad.db"
cp "$T_TMP/bad.db" "$T_TMP/bad.copy"
"$CRATE" --db "$T_TMP/bad.db" list 2>"$T_TMP/err"
rc=$?
[ $rc -eq 1 ] || t_fail "exit $rc, want 1"
grep -q "bad.db" "$T_TMP/err" || t_fail "message does not name the file: $(cat "$T_TMP/err")"
cmp -s "$T_TMP/bad.db" "$T_TMP/bad.copy" || t_fail "the corrupt file was modified"

t_begin retag_within_the_second_of_the_scan_is_read_again
# A tagger that rewrites a file in place (padding keeps its size) right
# after a scan, within the same second.
if [ $have_ffmpeg = 0 ]; then t_skip "ffmpeg CLI not available"; else
	R=$T_TMP/retag
	mkdir -p "$R"
	gen "$R/song.flac" title=Before
	gen "$T_TMP/retagged.flac" title=Latter
	[ "$(stat -c %s "$R/song.flac")" = "$(stat -c %s "$T_TMP/retagged.flac")" ] || t_fail "sizes differ"
	touch -d '2024-05-01 12:00:00.100' "$R/song.flac"
	"$CRATE" --db "$T_TMP/retag.db" scan "$R" 2>"$T_TMP/err" || t_fail "scan: $(cat "$T_TMP/err")"
	cat "$T_TMP/retagged.flac" >"$R/song.flac"
	touch -d '2024-05-01 12:00:00.600' "$R/song.flac"
	"$CRATE" --db "$T_TMP/retag.db" scan "$R" 2>"$T_TMP/err" || t_fail "rescan: $(cat "$T_TMP/err")"
	grep -q "1 updated" "$T_TMP/err" || t_fail "the retagged file was not read: $(tail -1 "$T_TMP/err")"
	got=$("$CRATE" --db "$T_TMP/retag.db" list --format '%title%')
	[ "$got" = Latter ] || t_fail "title after the retag: $got"
fi

t_begin hidden_files_and_folders_are_not_scanned
# As MPD, cmus and beets do: a drive's trash, Syncthing's old versions and
# macOS's ._ files beside the songs are not the library (they were: the
# deleted and the old songs were items, each ._ file a failure, exit 2).
if [ $have_ffmpeg = 0 ]; then t_skip "ffmpeg CLI not available"; else
	HD=$T_TMP/hidden
	mkdir -p "$HD/Album" "$HD/.Trash-1000/files" "$HD/.stversions/Album"
	gen "$HD/Album/song.flac" title=Kept
	cp "$HD/Album/song.flac" "$HD/.Trash-1000/files/deleted.flac"
	cp "$HD/Album/song.flac" "$HD/.stversions/Album/song~20240501-120000.flac"
	printf '\0\5\26\7\0\2\0\0Mac OS X        ' >"$HD/Album/._song.flac"
	"$CRATE" --db "$T_TMP/hidden.db" scan "$HD" 2>"$T_TMP/err"; rc=$?
	[ $rc -eq 0 ] || t_fail "exit $rc: $(cat "$T_TMP/err")"
	grep -q "scanned 1 files: 1 added, 0 updated, 0 unchanged, 0 ignored, 0 failed" "$T_TMP/err" ||
		t_fail "summary: $(tail -1 "$T_TMP/err")"
	got=$("$CRATE" --db "$T_TMP/hidden.db" list --format '%url%')
	[ "$got" = "$HD/Album/song.flac" ] || t_fail "items: $got"
	# A hidden folder given to scan is walked.
	"$CRATE" --db "$T_TMP/hidden.db" scan "$HD/.stversions" 2>"$T_TMP/err" || t_fail "scan of .stversions: $(cat "$T_TMP/err")"
	grep -q "1 added" "$T_TMP/err" || t_fail "a hidden root: $(tail -1 "$T_TMP/err")"
fi

t_begin symlink_loop_is_a_note_not_a_failure
# A link to a folder above it (ln -s .. loop) is skipped as MPD and cmus
# skip it; it used to count as an unreadable folder, so every scan of the
# library exited 2.
if [ $have_ffmpeg = 0 ]; then t_skip "ffmpeg CLI not available"; else
	LD=$T_TMP/loopy
	mkdir -p "$LD/Album"
	gen "$LD/Album/song.flac" title=Once
	ln -s .. "$LD/Album/loop"
	"$CRATE" --db "$T_TMP/loop.db" scan "$LD" 2>"$T_TMP/err"; rc=$?
	[ $rc -eq 0 ] || t_fail "exit $rc, want 0: $(cat "$T_TMP/err")"
	grep -q "^crate: note: $LD/Album/loop: .*symlink loop.*not followed" "$T_TMP/err" ||
		t_fail "no note: $(cat "$T_TMP/err")"
	grep -q "unreadable" "$T_TMP/err" && t_fail "the loop counted as unreadable: $(tail -1 "$T_TMP/err")"
	grep -q "scanned 1 files: 1 added" "$T_TMP/err" || t_fail "summary: $(tail -1 "$T_TMP/err")"
	"$CRATE" --db "$T_TMP/loop.db" scan --quiet 2>"$T_TMP/err"; rc=$?
	[ $rc -eq 0 ] || t_fail "rescan: exit $rc, want 0"
	[ -s "$T_TMP/err" ] && t_fail "--quiet printed: $(cat "$T_TMP/err")"
fi

t_begin a_link_to_a_file_in_the_library_is_no_second_item
# A folder of favourites made of links to the albums' files: each file is
# one item, at its own path, whichever name the walk meets first (each
# link was a second item, a duplicate in every search). A link to a file
# outside the library is an item at the link's path, once.
if [ $have_ffmpeg = 0 ]; then t_skip "ffmpeg CLI not available"; else
	FD=$T_TMP/favs
	mkdir -p "$FD/Album" "$FD/0 favourites" "$T_TMP/elsewhere"
	gen "$FD/Album/01.flac" title=One
	gen "$FD/Album/02.flac" title=Two
	gen "$T_TMP/elsewhere/x.flac" title=Outside
	ln -s ../Album/01.flac "$FD/0 favourites/01.flac"
	ln -s 02.flac "$FD/Album/best.flac"
	ln -s "$T_TMP/elsewhere/x.flac" "$FD/0 favourites/x.flac"
	ln -s "$T_TMP/elsewhere/x.flac" "$FD/0 favourites/y.flac"
	"$CRATE" --db "$T_TMP/favs.db" scan "$FD" 2>"$T_TMP/err"; rc=$?
	[ $rc -eq 0 ] || t_fail "exit $rc: $(cat "$T_TMP/err")"
	got=$("$CRATE" --db "$T_TMP/favs.db" list --format '%title% %url%' | sort)
	want=$(printf '%s\n' "One $FD/Album/01.flac" "Outside $FD/0 favourites/x.flac" "Two $FD/Album/02.flac")
	[ "$got" = "$want" ] || t_fail "items: [$got], want [$want]"
	grep -q "scanned 3 files: 3 added" "$T_TMP/err" || t_fail "summary: $(tail -1 "$T_TMP/err")"
	# A new link sorted before the one stored: the stored one stays the item.
	ln -s "$T_TMP/elsewhere/x.flac" "$FD/0 favourites/w.flac"
	"$CRATE" --db "$T_TMP/favs.db" scan "$FD/0 favourites" 2>"$T_TMP/err" || t_fail "scan of the links alone: $(cat "$T_TMP/err")"
	grep -q "0 added" "$T_TMP/err" || t_fail "the links alone: $(tail -1 "$T_TMP/err")"
	grep -q "gone" "$T_TMP/err" && t_fail "the links alone: $(tail -1 "$T_TMP/err")"
	n=$("$CRATE" --db "$T_TMP/favs.db" list --format '%id%' | wc -l)
	[ "$n" -eq 3 ] || t_fail "$n items after a scan of the links"
fi

t_begin info_of_a_missing_item_says_it_is_missing
# crate info of an item whose file is gone, by id or by its (relative)
# path: it is in the library, marked missing; it said "media #1 is not in
# the library" by id, and "not in the library" by a relative path.
if [ $have_ffmpeg = 0 ]; then t_skip "ffmpeg CLI not available"; else
	GD=$T_TMP/goneinfo
	mkdir -p "$GD"
	gen "$GD/song.flac" title=Gone
	"$CRATE" --db "$T_TMP/gone.db" scan --quiet "$GD" || t_fail "scan"
	id=$("$CRATE" --db "$T_TMP/gone.db" list --format '%id%')
	rm "$GD/song.flac"
	"$CRATE" --db "$T_TMP/gone.db" scan --quiet "$GD"
	"$CRATE" --db "$T_TMP/gone.db" info "$id" 2>"$T_TMP/err"; rc=$?
	[ $rc -eq 1 ] || t_fail "by id: exit $rc"
	grep -qx "crate: media #$id is missing: $GD/song.flac is gone (crate scan --prune forgets it)" "$T_TMP/err" ||
		t_fail "by id: $(cat "$T_TMP/err")"
	(cd "$GD" && "$CRATE" --db "$T_TMP/gone.db" info song.flac) 2>"$T_TMP/err"
	grep -q "media #$id is missing" "$T_TMP/err" || t_fail "by a relative path: $(cat "$T_TMP/err")"
	"$CRATE" --db "$T_TMP/gone.db" info 999 2>"$T_TMP/err"
	grep -qx "crate: media #999 is not in the library" "$T_TMP/err" || t_fail "unknown id: $(cat "$T_TMP/err")"
fi

t_begin info_of_a_folder_lists_its_items
# crate info ~/Music/Album said "not in the library" (exit 1), as for a
# file never scanned, though every file in it is. A folder lists its
# items, as a file split by its cue sheet lists its tracks (--json:
# their objects); one with none says so.
if [ $have_ffmpeg = 0 ]; then t_skip "ffmpeg CLI not available"; else
	out=$("$CRATE" --db "$DB" info "$M" 2>"$T_TMP/err"); rc=$?
	[ $rc -eq 0 ] || t_fail "exit $rc: $(cat "$T_TMP/err")"
	[ "$(head -1 <<<"$out")" = "$M: a folder of 2 items:" ] || t_fail "says: $out"
	grep -q "^  #[0-9]*  Can - Vitamin" <<<"$out" || t_fail "sub/b.mp3 not listed: $out"
	grep -q "^  #[0-9]*  Kraftwerk - Nummern" <<<"$out" || t_fail "a.flac not listed: $out"
	[ "$("$CRATE" --db "$DB" info --json "$M/sub" | grep -c '"id"')" -eq 1 ] ||
		t_fail "--json: $("$CRATE" --db "$DB" info --json "$M/sub")"
	mkdir -p "$T_TMP/emptydir"
	"$CRATE" --db "$DB" info "$T_TMP/emptydir" 2>"$T_TMP/err"; rc=$?
	[ $rc -eq 1 ] && grep -q "emptydir: a folder with no library item under it" "$T_TMP/err" ||
		t_fail "an empty folder: exit $rc: $(cat "$T_TMP/err")"
fi

t_begin corpus_scan_completes
if ! t_have_corpus; then t_skip "corpus not found"; else
	timeout 300 "$CRATE" --db "$T_TMP/corpus.db" scan "$CORPUS" 2>"$T_TMP/err"
	rc=$?
	[ $rc -eq 2 ] || t_fail "exit $rc, want 2 (some corpus files are broken audio)"
	n=$("$CRATE" --db "$T_TMP/corpus.db" list --format '%id%' | wc -l)
	[ "$n" -ge 207 ] || t_fail "only $n items indexed"
	nerr=$(grep -c '^crate: ' "$T_TMP/err")
	nign=$(tail -n 1 "$T_TMP/err" | sed -n 's/.* \([0-9]*\) ignored.*/\1/p')
	[ $((n + nerr + nign)) -ge 331 ] || t_fail "$n items + $nerr errors + $nign ignored < 331 files"
fi

t_end
