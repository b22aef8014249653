#!/usr/bin/env bash
# Playlist interchange (issue 18 part 3): `crate playlist export/import` in
# M3U8, PLS and XSPF round-trips the demo library; files written by other
# tools (tests/data/playlists: foobar2000 M3U8 with a BOM and CRLF, Winamp
# PLS out of order, VLC XSPF with URI-encoded relative locations and a
# stream URL, a Latin-1 M3U) import; missing entries and locations of
# other schemes or hosts are listed with exit 2; a file on disk that
# is not in the library is scanned on the way; a 200,000-line file and a
# FIFO are handled.
. "$(dirname "$0")/../lib.sh"
export HOME=$T_TMP/home XDG_CONFIG_HOME=$T_TMP/home/.config XDG_DATA_HOME=$T_TMP/home/.local/share
mkdir -p "$HOME"
DB=$T_TMP/lib.db
W=$T_TMP/w
MUSIC=$W/music
c() { "$CRATE" --db "$DB" "$@"; }
urls() { c playlist list "$1" --format '%url%' | sed 's/^ *[0-9]*\. //; s/^>[ 0-9]*\. //'; }

t_begin playlist_files_setup
mkdir -p "$MUSIC"
cp "$SRCDIR"/data/demo/* "$MUSIC"/ || t_fail "no demo files"
c scan --quiet "$MUSIC" >/dev/null 2>&1 || t_fail "scan"
c playlist new Mix >/dev/null 2>&1 && c playlist add Mix '*' >/dev/null 2>&1 || t_fail "playlist"
n=$(urls Mix | wc -l)
[ "$n" -ge 12 ] || t_fail "Mix has $n entries"

t_begin playlist_round_trip_m3u8_pls_xspf
for f in mix.m3u8 mix.pls mix.xspf; do
	for rel in "" --relative; do
		rm -f "$W/$f"
		c playlist export $rel Mix "$W/$f" || { t_fail "export $rel $f"; continue; }
		c playlist import "R $f$rel" "$W/$f" 2>/dev/null || t_fail "import $rel $f: exit $?"
		[ "$(urls "R $f$rel")" = "$(urls Mix)" ] || t_fail "round trip of $rel $f differs"
	done
done
grep -q '^#EXTINF:[0-9]*,Björk Sigurðardóttir - Vatnajökull$' "$W/mix.m3u8" || t_fail "extended M3U"
grep -q '^music/01 Vatnajökull.flac$' "$W/mix.m3u8" || t_fail "relative path"
grep -q 'file:///.*/music/01%20Vatnaj%C3%B6kull.flac' <(c playlist export --format xspf Mix) ||
	t_fail "XSPF location is a file URI"
c playlist export Mix "$W/again.m3u8" && c playlist import Again "$W/again.m3u8" 2>/dev/null &&
	c playlist export Again "$W/again2.m3u8" && cmp -s "$W/again.m3u8" "$W/again2.m3u8" ||
	t_fail "export of an import is not the same file"
c playlist import Mix "$W/mix.m3u8" 2>/dev/null
[ $? -eq 1 ] || t_fail "import over an existing playlist without --append"
c playlist import --append Mix "$W/mix.m3u8" 2>/dev/null || t_fail "--append"
[ "$(urls Mix | wc -l)" -eq $((2 * n)) ] || t_fail "--append did not append"

t_begin playlist_import_files_of_other_tools
cp "$SRCDIR"/tests/data/playlists/* "$W"/
out=$(c playlist import foobar "$W/foobar2000.m3u8" 2>&1); rc=$?
[ $rc -eq 2 ] || t_fail "foobar: exit $rc (want 2: one entry is missing)"
grep -q "foobar2000.m3u8:9: .*music/not here.mp3" <<<"$out" || t_fail "missing entry not listed: $out"
grep -q "3 of 4 entries imported" <<<"$out" || t_fail "foobar count: $out"
[ "$(urls foobar | sed 's|.*/||')" = "$(printf '01 Harbour Lights.ogg\n01 Vatnajökull.flac\n01 夜の街.mp3')" ] ||
	t_fail "foobar entries: $(urls foobar)"
c playlist import winamp "$W/winamp.pls" 2>/dev/null || t_fail "winamp: exit $?"
[ "$(urls winamp | sed 's|.*/||')" = "$(printf '03 AC-DC Current.opus\n02 Salt Wind.ogg\n01 Stairway Down.mp3')" ] ||
	t_fail "PLS order: $(urls winamp)"
out=$(c playlist import vlc "$W/vlc.xspf" 2>&1) || t_fail "vlc: exit $?: $out"
[ "$(urls vlc | sed 's|.*/||')" = "$(printf '02 Straße der Lichter.flac\n02 Синий троллейбус.mp3\nstream.ogg')" ] ||
	t_fail "XSPF entries: $(urls vlc)"
urls vlc | grep -qx "http://radio.example.invalid/stream.ogg" || t_fail "the stream entry is not its URL"
if command -v ffmpeg >/dev/null; then
	# not in the library yet: scanned on the way, under its Latin-1 name
	ffmpeg -v error -y -f lavfi -i "sine=frequency=440:duration=0.5" -f flac "$MUSIC/caf"$'\xe9'".flac" ||
		t_fail ffmpeg
	out=$(c playlist import latin1 "$W/latin1.m3u" 2>&1) || t_fail "latin1: $out"
	grep -q "(1 newly scanned)" <<<"$out" || t_fail "new file not scanned: $out"
	[ "$(urls latin1 | wc -l)" -eq 1 ] || t_fail "latin1 entries"
fi

t_begin playlist_import_reports_unplayable_locations
# Other schemes and other hosts' files are listed with a reason, not
# dropped; a CDATA location (valid XML) is read.
printf '#EXTM3U\nrtsp://example.com/x\nsmb://host/share/a.mp3\nfile://otherhost/a.mp3\n%s\n' \
	"$MUSIC/01 Harbour Lights.ogg" >"$W/schemes.m3u"
out=$(c playlist import schemes "$W/schemes.m3u" 2>&1); rc=$?
[ $rc -eq 2 ] || t_fail "schemes: exit $rc (want 2): $out"
grep -q "schemes.m3u:2: rtsp://example.com/x: unsupported scheme" <<<"$out" || t_fail "rtsp: $out"
grep -q "schemes.m3u:3: smb://host/share/a.mp3: unsupported scheme" <<<"$out" || t_fail "smb: $out"
grep -q "schemes.m3u:4: file://otherhost/a.mp3: remote host" <<<"$out" || t_fail "remote host: $out"
grep -q "1 of 4 entries imported.*3 not imported" <<<"$out" || t_fail "schemes count: $out"
printf '<?xml version="1.0"?>\n<playlist version="1" xmlns="http://xspf.org/ns/0/"><trackList>\n<track><location><![CDATA[file://%s]]></location></track>\n</trackList></playlist>\n' \
	"$MUSIC/01%20Harbour%20Lights.ogg" >"$W/cdata.xspf"
out=$(c playlist import cdata "$W/cdata.xspf" 2>&1) || t_fail "cdata: exit $?: $out"
[ "$(urls cdata)" = "$MUSIC/01 Harbour Lights.ogg" ] || t_fail "CDATA location: $(urls cdata) ($out)"

t_begin playlist_import_reports_each_entry_once
# A directory entry beside a file that must be scanned: the lookup after
# the scan must not list the directory again.
if command -v ffmpeg >/dev/null; then
	ffmpeg -v error -y -f lavfi -i "sine=frequency=330:duration=0.5" -f flac "$MUSIC/new one.flac" ||
		t_fail ffmpeg
	mkdir -p "$W/a folder"
	printf '%s\n' "$W/a folder" "$MUSIC/new one.flac" "$MUSIC/02 Salt Wind.ogg" >"$W/dir.m3u"
	out=$(c playlist import dir "$W/dir.m3u" 2>&1); rc=$?
	[ $rc -eq 2 ] || t_fail "dir: exit $rc: $out"
	[ "$(grep -c "dir.m3u:1: " <<<"$out")" -eq 1 ] || t_fail "the folder not listed once: $out"
	grep -q "2 of 3 entries imported (1 newly scanned), 1 not imported" <<<"$out" || t_fail "count: $out"
else
	t_skip "needs ffmpeg"
fi

t_begin playlist_export_says_what_it_left_out
# Entries whose items were forgotten have no location: the file is written
# without them, and export says so with exit 2 (it said nothing, exit 0).
c playlist new Gone >/dev/null 2>&1 && c playlist add Gone '*' >/dev/null 2>&1 || t_fail "playlist"
total=$(urls Gone | wc -l)
c forget --yes 'a:"Mira Sol"' >/dev/null 2>&1 || t_fail "forget"
c playlist export Gone "$W/gone.m3u8" 2>"$T_TMP/gone.err"; rc=$?
[ $rc -eq 2 ] || t_fail "export with forgotten entries: exit $rc"
grep -q "2 entries of Playlists/Gone no longer in the library: left out" "$T_TMP/gone.err" ||
	t_fail "stderr: $(cat "$T_TMP/gone.err")"
[ "$(grep -vc '^#' "$W/gone.m3u8")" -eq $((total - 2)) ] || t_fail "the file lacks other entries"

t_begin scan_offers_and_imports_playlists
W2=$T_TMP/w2
mkdir -p "$W2/music"
cp "$SRCDIR"/data/demo/* "$W2/music/"
cp "$SRCDIR"/tests/data/playlists/winamp.pls "$SRCDIR"/tests/data/playlists/vlc.xspf "$W2/"
out=$("$CRATE" --db "$T_TMP/lib2.db" scan "$W2" 2>&1)
grep -q "2 playlist files found (crate scan --playlists imports them)" <<<"$out" || t_fail "not offered: $out"
"$CRATE" --db "$T_TMP/lib2.db" coll list Playlists 2>/dev/null | grep -q winamp && t_fail "imported without --playlists"
out=$("$CRATE" --db "$T_TMP/lib2.db" scan --playlists "$W2" 2>&1); rc=$?
[ $rc -eq 0 ] || t_fail "scan --playlists: exit $rc: $out"
grep -q "Playlists/winamp: 3 of 3 entries imported" <<<"$out" || t_fail "winamp: $out"
[ "$("$CRATE" --db "$T_TMP/lib2.db" playlist list vlc --format '%title%' | wc -l)" -eq 3 ] ||
	t_fail "vlc playlist"

t_begin scan_playlists_says_which_files_it_left_alone
# A playlist file whose name a playlist has (a second scan --playlists,
# x.pls beside x.m3u) was skipped without a word: the rescan printed
# nothing of the playlists, as if it had found none.
out=$("$CRATE" --db "$T_TMP/lib2.db" scan --playlists "$W2" 2>&1); rc=$?
[ $rc -eq 0 ] || t_fail "exit $rc: $out"
grep -q "winamp.pls: Playlists/winamp exists, left as it is" <<<"$out" || t_fail "winamp: $out"
grep -q "vlc.xspf: Playlists/vlc exists, left as it is" <<<"$out" || t_fail "vlc: $out"
[ "$("$CRATE" --db "$T_TMP/lib2.db" playlist list winamp | wc -l)" -eq 3 ] || t_fail "winamp changed"

t_begin playlist_export_over_a_file_keeps_it_when_the_write_fails
# Export wrote over FILE in place: a write that failed (a full disk, here
# a file size limit) left the playlist file cut, the old one lost. The
# new one is written beside it and renamed over it; its mode is kept.
ids=$(c search '*' --order library --format '%id%' | tr '\n' ,)
big=$(for i in $(seq 300); do printf '%s' "$ids"; done)
printf '{"type":"idlist","idlist":[%s%s]}' "$big" "${ids%%,*}" |
	c coll import --force Playlists/Big - >/dev/null 2>&1 || t_fail "Big"
printf '#EXTM3U\nold.flac\n' >"$W/keep.m3u8"
chmod 640 "$W/keep.m3u8"
out=$( (trap '' XFSZ; ulimit -f 100; c playlist export Big "$W/keep.m3u8") 2>&1) && t_fail "no error: $out"
[ "$(cat "$W/keep.m3u8")" = "$(printf '#EXTM3U\nold.flac')" ] ||
	t_fail "the old file was lost: $(head -c 200 "$W/keep.m3u8") ($out)"
ls -A "$W" | grep -q '^\.keep' && t_fail "a temporary file was left: $(ls -A "$W")"
printf '{"type":"idlist","idlist":[%s,%s]}' "${ids%%,*}" "${ids%%,*}" |
	c coll import --force Playlists/Two - >/dev/null 2>&1 || t_fail "Two"
out=$(c playlist export Two "$W/keep.m3u8" 2>&1) || t_fail "export over it: $out"
[ "$(stat -c %a "$W/keep.m3u8")" = 640 ] || t_fail "mode $(stat -c %a "$W/keep.m3u8")"
[ "$(grep -vc '^#' "$W/keep.m3u8")" = 2 ] || t_fail "written: $(head -3 "$W/keep.m3u8")"

t_begin scan_playlists_lists_the_entries_it_could_not_import
# As playlist import does: each with its line and why (the counts alone
# said something failed, not what).
W3=$T_TMP/w3
mkdir -p "$W3/music"
cp "$SRCDIR/data/demo/01 Vatnajökull.flac" "$W3/music/"
printf '#EXTM3U\nmusic/01 Vatnajökull.flac\nmusic/gone.flac\n' >"$W3/half.m3u"
out=$("$CRATE" --db "$T_TMP/lib3.db" scan --playlists "$W3" 2>&1); rc=$?
[ $rc -eq 2 ] || t_fail "exit $rc: $out"
grep -q "half.m3u:3: .*gone.flac" <<<"$out" || t_fail "the missing entry is not listed: $out"
grep -q "Playlists/half: 1 of 2 entries imported" <<<"$out" || t_fail "count: $out"

t_begin scan_playlists_names_a_file_whose_name_no_playlist_can_have
# A playlist file named with a control character was refused with
# "crate: Playlists: a collection name cannot hold control characters",
# which named no file, and only after the files it lists were scanned.
W5=$T_TMP/w5
mkdir -p "$W5/music" "$W5/lists"
cp "$SRCDIR/data/demo/02 Salt Wind.ogg" "$W5/music/"
printf '../music/02 Salt Wind.ogg\n' >"$W5/lists/bad"$'\x1b'"name.m3u"
out=$("$CRATE" --db "$T_TMP/lib5.db" scan --playlists "$W5/lists" 2>&1); rc=$?
[ $rc -eq 2 ] || t_fail "exit $rc: $out"
grep -q "lists/bad.name.m3u: not imported: Playlists: a collection name cannot hold control characters" <<<"$out" ||
	t_fail "the file is not named: $out"
[ -z "$("$CRATE" --db "$T_TMP/lib5.db" list 2>/dev/null)" ] || t_fail "its entries were scanned"

t_begin playlist_import_reads_mpd_playlists_relative_to_the_library
# MPD saves playlists (~/.mpd/playlists/road.m3u) with locations relative
# to its music folder, not to the playlist's: each was "No such file or
# directory" there. An entry no file answers beside the playlist is
# looked for under each library root.
mkdir -p "$T_TMP/mpd/playlists"
printf '02 Salt Wind.ogg\n01 Vatnaj\303\266kull.flac\nnot here.ogg\n' >"$T_TMP/mpd/playlists/road.m3u"
out=$(c playlist import mpdroad "$T_TMP/mpd/playlists/road.m3u" 2>&1); rc=$?
[ $rc -eq 2 ] || t_fail "exit $rc: $out"
grep -q "2 of 3 entries imported" <<<"$out" || t_fail "count: $out"
grep -q "road.m3u:3: .*not here.ogg: No such file" <<<"$out" || t_fail "the missing one: $out"
[ "$(urls mpdroad)" = "$MUSIC/02 Salt Wind.ogg
$MUSIC/01 Vatnajökull.flac" ] || t_fail "entries: $(urls mpdroad)"

t_begin playlist_import_hostile_files
# 200,000 lines, CRLF, a BOM, ../ escapes past the root, lines of junk
awk 'BEGIN {
	printf "\357\273\277#EXTM3U\r\n"
	for (i = 0; i < 200000; i++) {
		m = i % 4
		if (m == 0) printf "music/01 Harbour Lights.ogg\r\n"
		else if (m == 1) printf "#EXTINF:6,x\r\n"
		else if (m == 2) printf "../../../../../../../../../../music/02 Salt Wind.ogg\r\n"
		else printf "junk %d\r\n", i
	}
}' >"$W/big.m3u"
out=$(c playlist import big "$W/big.m3u" 2>&1); rc=$?
[ $rc -eq 2 ] || t_fail "big: exit $rc"
grep -q "50000 of 150000 entries imported" <<<"$out" || t_fail "big: $(tail -1 <<<"$out")"
mkfifo "$W/fifo.m3u"
out=$(timeout 10 "$CRATE" --db "$DB" playlist import fifo "$W/fifo.m3u" 2>&1); rc=$?
[ $rc -eq 1 ] && grep -q "not a regular file" <<<"$out" || t_fail "FIFO: exit $rc: $out"
printf '<?xml version="1.0"?><html><body>not a playlist</body></html>' >"$W/bad.xspf"
out=$(c playlist import bad "$W/bad.xspf" 2>&1); rc=$?
[ $rc -eq 1 ] && grep -q "not an XSPF playlist" <<<"$out" || t_fail "bad XSPF: exit $rc: $out"
c playlist list bad >/dev/null 2>&1 && t_fail "a failed import left a playlist"
t_integrity "$DB" | grep -qx ok || t_fail "integrity"
t_begin playlist_export_keeps_names_a_line_cannot_hold
# A file whose name holds a newline or a tab, or ends with a space, is
# written to M3U8 and PLS as a file:// URI (percent-encoded), not as a
# line that names another file: the export imports back whole.
W4=$T_TMP/w4
mkdir -p "$W4/m"
for n in "$(printf 'new\nline.ogg')" "$(printf 'tab\there.ogg')" "space.ogg "; do
	cp "$SRCDIR/data/demo/02 Salt Wind.ogg" "$W4/m/$n"
done
c4() { "$CRATE" --db "$T_TMP/lib4.db" "$@"; }
c4 scan --quiet "$W4/m" >/dev/null 2>&1 || t_fail "scan"
c4 playlist new Odd >/dev/null 2>&1 && c4 playlist add Odd '*' >/dev/null 2>&1 || t_fail "playlist"
want=$(c4 playlist list Odd --format '%id%')
[ "$(printf '%s\n' "$want" | wc -l)" -eq 3 ] || t_fail "Odd: $want"
for f in odd.m3u8 odd.pls; do
	for rel in "" --relative; do
		rm -f "$W4/$f"
		c4 playlist export $rel Odd "$W4/$f" || { t_fail "export $rel $f"; continue; }
		grep -q 'file://.*/m/new%0Aline.ogg' "$W4/$f" || t_fail "$rel $f: the newline's name is not a URI: $(cat "$W4/$f")"
		out=$(c4 playlist import "B $f$rel" "$W4/$f" 2>&1) || t_fail "import $rel $f: $out"
		[ "$(c4 playlist list "B $f$rel" --format '%id%')" = "$want" ] ||
			t_fail "round trip of $rel $f differs: $out"
	done
done


t_begin playlist_export_xspf_is_utf8_whatever_the_tags
# XSPF says it is UTF-8, but a tag or a stream URL that is not (a Latin-1
# ID3 title, a station from a Latin-1 M3U) was written as its bytes: XML
# parsers (VLC's, xmllint) refused the whole file.
if command -v ffmpeg >/dev/null && command -v iconv >/dev/null; then
	mkdir -p "$W/latin"
	ffmpeg -v error -y -f lavfi -i "sine=frequency=440:duration=0.5" \
		-metadata title="Caf"$'\xe9'" del Mar" "$W/latin/cafe.mp3" || t_fail ffmpeg
	c scan --quiet "$W/latin" >/dev/null 2>&1 || t_fail "scan"
	printf '#EXTM3U\n%s\nhttp://radio.example.invalid/caf\351.mp3\n' "$W/latin/cafe.mp3" >"$W/latin/l.m3u"
	c playlist import latinx "$W/latin/l.m3u" >/dev/null 2>&1 || t_fail "import"
	c playlist export --format xspf latinx >"$W/latin/l.xspf" || t_fail "export"
	iconv -f UTF-8 -t UTF-8 "$W/latin/l.xspf" >/dev/null 2>&1 ||
		t_fail "the XSPF is not UTF-8: $(grep -a '<title>\|<location>http' "$W/latin/l.xspf" | od -c | head -4)"
	grep -q "<title>Caf.* del Mar</title>" "$W/latin/l.xspf" || t_fail "title: $(cat "$W/latin/l.xspf")"
	grep -q "<location>http://radio.example.invalid/caf%E9.mp3</location>" "$W/latin/l.xspf" ||
		t_fail "URL: $(cat "$W/latin/l.xspf")"
else
	t_skip "needs ffmpeg and iconv"
fi

t_begin playlist_relative_export_keeps_names_that_look_like_comments
# "#9 Dream.ogg" beside the playlist, written as it is, was read back as a
# comment; " lead.ogg" lost its leading space. Both go out from "./".
mkdir -p "$W/odd"
cp "$MUSIC/01 Harbour Lights.ogg" "$W/odd/#9 Dream.ogg"
cp "$MUSIC/02 Salt Wind.ogg" "$W/odd/ lead.ogg"
c scan --quiet "$W/odd" >/dev/null 2>&1 || t_fail "scan"
c playlist new odd >/dev/null 2>&1 && c playlist add odd 'u~odd/' >/dev/null 2>&1 || t_fail "playlist"
c playlist export --relative odd "$W/odd/odd.m3u8" || t_fail "export"
out=$(c playlist import odd2 "$W/odd/odd.m3u8" 2>&1) || t_fail "import: exit $?: $out"
[ "$(urls odd2)" = "$(urls odd)" ] && [ "$(urls odd | wc -l)" -eq 2 ] ||
	t_fail "round trip: $(urls odd2) / $(urls odd) / $(cat "$W/odd/odd.m3u8")"

t_begin playlist_relative_pls_export_keeps_a_leading_space
# PLS too: "File1= lead.ogg" was read back as "lead.ogg", no such file.
c playlist export --relative odd "$W/odd/odd.pls" || t_fail "export"
out=$(c playlist import odd3 "$W/odd/odd.pls" 2>&1) || t_fail "import: exit $?: $out"
[ "$(urls odd3)" = "$(urls odd)" ] ||
	t_fail "round trip: $(urls odd3) / $(urls odd) / $(cat "$W/odd/odd.pls")"

t_begin playlist_import_keeps_the_names_of_streams
# A radio playlist names its stations (#EXTINF, PLS TitleN, XSPF title):
# the name is the stream's title, shown and written back on export. A
# Latin-1 PLS names it in Latin-1; a stream already named keeps its name.
printf '#EXTM3U\r\n#EXTINF:-1,Radio Paradise\r\nhttp://radio.example.invalid/rp.mp3\r\n#EXTINF:-1,\r\nhttp://radio.example.invalid/untitled.ogg\r\n' >"$W/radio.m3u"
c playlist import radio "$W/radio.m3u" 2>/dev/null || t_fail "radio: exit $?"
[ "$(c playlist list radio --format '%title%' | sed 's/^ *[0-9]*\. //')" = "$(printf 'Radio Paradise\nuntitled.ogg')" ] ||
	t_fail "stream names: $(c playlist list radio --format '%title%')"
c playlist export radio "$W/radio2.m3u8" || t_fail "export"
grep -qx '#EXTINF:-1,Radio Paradise' "$W/radio2.m3u8" || t_fail "export lost the name: $(cat "$W/radio2.m3u8")"
printf '[playlist]\nFile1=http://radio.example.invalid/untitled.ogg\nTitle1=Caf\351 Jazz\nFile2=http://radio.example.invalid/rp.mp3\nTitle2=Another Name\nNumberOfEntries=2\n' >"$W/radio.pls"
c playlist import radiopls "$W/radio.pls" 2>/dev/null || t_fail "pls: exit $?"
[ "$(c playlist list radiopls --format '%title%' | sed 's/^ *[0-9]*\. //')" = "$(printf 'Café Jazz\nRadio Paradise')" ] ||
	t_fail "PLS names: $(c playlist list radiopls --format '%title%')"
t_begin playlist_import_reads_windows_paths
# A playlist written on Windows: a relative entry with backslashes is the
# same path with '/' when no file has its very name (a Linux name may hold
# a backslash: such a file is taken first); a drive-letter or UNC path
# names no file here and is listed saying so.
W5=$T_TMP/w5
mkdir -p "$W5/pl/sub" "$W5/Music" "$W5/pl/a"
cp "$MUSIC/02 Salt Wind.ogg" "$W5/pl/sub/"
cp "$MUSIC/01 Stairway Down.mp3" "$W5/Music/x.mp3"
cp "$MUSIC/03 AC-DC Current.opus" "$W5/pl/a"'\b.opus'
cp "$MUSIC/01 Harbour Lights.ogg" "$W5/pl/a/b.opus"
printf '#EXTM3U\r\n#EXTINF:3,The Lanterns - Salt Wind\r\nsub\\02 Salt Wind.ogg\r\n..\\Music\\x.mp3\r\na\\b.opus\r\nC:\\Music\\y.mp3\r\nsub\\gone.ogg\r\n\\\\host\\share\\z.mp3\r\n' >"$W5/pl/win.m3u8"
printf '[playlist]\nFile1=sub\\02 Salt Wind.ogg\nNumberOfEntries=1\n' >"$W5/pl/win.pls"
c5() { "$CRATE" --db "$T_TMP/lib5.db" "$@"; }
out=$(c5 playlist import Win "$W5/pl/win.m3u8" 2>&1); rc=$?
[ $rc -eq 2 ] || t_fail "exit $rc (want 2: three entries name nothing): $out"
want=$(printf '%s\n' "$W5/pl/sub/02 Salt Wind.ogg" "$W5/Music/x.mp3" "$W5/pl/a\\b.opus")
got=$(c5 playlist list Win --format '%url%' | sed 's/^ *[0-9]*\. //')
[ "$got" = "$want" ] || t_fail "entries: $got (output: $out)"
grep -q 'win.m3u8:6: C:\\Music\\y.mp3: a Windows path, which names no file here' <<<"$out" ||
	t_fail "drive letter not explained: $out"
grep -q "win.m3u8:7: $W5/pl/sub/gone.ogg: No such file or directory (written sub\\\\gone.ogg, read with '/' for" <<<"$out" ||
	t_fail "missing relative entry not explained: $out"
grep -q 'win.m3u8:8: \\\\host\\share\\z.mp3: a Windows path' <<<"$out" || t_fail "UNC path not explained: $out"
grep -q "3 of 6 entries imported" <<<"$out" || t_fail "count: $out"
out=$(c5 playlist import WinPls "$W5/pl/win.pls" 2>&1) || t_fail "PLS: exit $?: $out"
[ "$(c5 playlist list WinPls --format '%url%' | sed 's/^ *[0-9]*\. //')" = "$W5/pl/sub/02 Salt Wind.ogg" ] ||
	t_fail "PLS entry: $out"


t_begin playlist_reimport_keeps_the_name_of_a_missing_stream
# A stream row marked missing keeps its name; importing its URL again from
# a line that names nothing brings the row back with that name.
[ "$(sqlite3 "$DB" "UPDATE media SET missing = 1 WHERE url = CAST('http://radio.example.invalid/rp.mp3' AS BLOB); SELECT changes()")" = 1 ] ||
	t_fail "sqlite3"
printf 'http://radio.example.invalid/rp.mp3\n' >"$W/bare.m3u"
c playlist import bare "$W/bare.m3u" 2>/dev/null || t_fail "bare: exit $?"
[ "$(c playlist list bare --format '%title%' | sed 's/^ *[0-9]*\. //')" = "Radio Paradise" ] ||
	t_fail "the name was lost: $(c playlist list bare --format '%title%')"
[ "$(c search 'title:"Radio Paradise"' --format '%url%')" = "http://radio.example.invalid/rp.mp3" ] ||
	t_fail "not found by its name: $(c search 'title:"Radio Paradise"' --format '%url%')"

t_begin playlist_import_help_says_what_append_does
# --help said --append adds "instead of replacing its entries", but an
# import without it over an existing playlist is refused, never a replace.
printf '%s\n' "$MUSIC/02 Salt Wind.ogg" >"$W/one.m3u"
c playlist import Mix "$W/one.m3u" >/dev/null 2>&1 && t_fail "an import over Mix was not refused"
help=$(c playlist import --help | grep -- '--append')
grep -q "replac" <<<"$help" && t_fail "--help promises a replace: $help"
grep -q "existing" <<<"$help" || t_fail "--help does not say it adds to an existing one: $help"

t_begin playlist_export_to_a_folder_says_so
# crate playlist export Mix ~/Music (a folder) said "say --format m3u, pls
# or xspf (or name the file ...)", as if a file name lacked its extension.
mkdir -p "$W/outdir"
out=$(c playlist export Mix "$W/outdir" 2>&1) && t_fail "exported into a folder"
[ "$out" = "crate: $W/outdir: Is a directory (playlist export writes a FILE)" ] || t_fail "says: $out"
out=$(c playlist export --format m3u Mix "$W/outdir/" 2>&1) && t_fail "exported into a folder"
[ "$out" = "crate: $W/outdir/: Is a directory (playlist export writes a FILE)" ] || t_fail "--format: $out"
t_end
