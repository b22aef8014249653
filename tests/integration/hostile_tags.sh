#!/usr/bin/env bash
# Hostile tags: terminal escape sequences, C0/C1 control characters, invalid
# UTF-8, newlines, a 1 MB value and NUL bytes inside tag values, and escape
# sequences and newlines in free-form tag names. Scanning
# must not crash, and nothing crate prints (list, info, search, --json) may
# carry a raw control byte to the terminal: no ESC, no C0 other than the
# newline that ends a record, no C1.
. "$(dirname "$0")/../lib.sh"

D=$T_TMP/music
DB=$T_TMP/hostile.db
mkdir -p "$D"

# has_ctl FILE: true when FILE holds a control byte other than '\n'
# (C0, DEL, or a UTF-8 encoded C1 control U+0080..U+009F).
has_ctl() {
	LC_ALL=C grep -q $'[\x01-\x09\x0b-\x1f\x7f]' "$1" && return 0
	LC_ALL=C grep -qP '\xc2[\x80-\x9f]' "$1" 2>/dev/null && return 0
	LC_ALL=C tr -d '\n' <"$1" | od -An -tx1 | grep -qw 00
}
show_ctl() { LC_ALL=C grep -n $'[\x01-\x09\x0b-\x1f\x7f]' "$1" | head -3 | od -c | head -6; }

sine() { ffmpeg -v error -y -f lavfi -i "sine=frequency=550:duration=0.3:sample_rate=22050" -ac 1 "$@"; }

# An ID3v2.3 tag written byte by byte: ffmpeg cannot put NUL bytes in a value.
# frame ID TEXT(printf format, may hold \000): encoding byte 0 (Latin-1) + text
id3_frame() {
	local body; body=$(printf "\\000$2" | od -An -tx1 | tr -d ' \n')
	local n=$(( ${#body} / 2 ))
	printf '%s' "$1"
	printf "\\$(printf %03o $((n >> 24 & 255)))\\$(printf %03o $((n >> 16 & 255)))"
	printf "\\$(printf %03o $((n >> 8 & 255)))\\$(printf %03o $((n & 255)))"
	printf '\000\000'
	printf "\\000$2"
}
id3_tag() { # frames file -> a whole tag
	local n; n=$(stat -c %s "$1")
	printf 'ID3\003\000\000'
	printf "\\$(printf %03o $((n >> 21 & 127)))\\$(printf %03o $((n >> 14 & 127)))"
	printf "\\$(printf %03o $((n >> 7 & 127)))\\$(printf %03o $((n & 127)))"
	cat "$1"
}

t_begin hostile_tags_make_files
if ! command -v ffmpeg >/dev/null; then t_skip "needs ffmpeg"; t_end; exit $?; fi
ESC_TITLE=$'\e[31mRED\e[0m\e]0;pwned\a\e[2J'
sine -metadata title="$ESC_TITLE" -metadata artist=$'ctl\x01\x02\x7f and C1 \xc2\x9b[2J end' \
	-metadata album=$'bad \xff\xfe\xc3 utf8 \xed\xa0\x80 surrogate' -metadata genre=$'line1\nline2\rline3\ttab' \
	"$D/escapes.mp3" || t_fail "ffmpeg could not write escapes.mp3"
sine -metadata title=$'\e[6n query the terminal' -metadata artist=$'\x9b31m raw C1 byte' \
	-metadata comment=$'\e]52;c;cGF5bG9hZA==\a clipboard' \
	-metadata $'\e[31mEVIL\e[0m'="escape in the tag name" -metadata $'new\nline'="newline in the tag name" \
	"$D/escapes.flac" ||
	t_fail "ffmpeg could not write escapes.flac"
# a 1 MB title (too long for a command-line argument: through an ffmetadata file)
{
	echo ';FFMETADATA1'
	printf 'title='
	head -c 1048576 /dev/zero | tr '\0' 'x'
	printf '\nartist=Big Value\n'
} >"$T_TMP/meta.txt"
ffmpeg -v error -y -f lavfi -i "sine=frequency=550:duration=0.3:sample_rate=22050" -i "$T_TMP/meta.txt" \
	-map 0 -map_metadata 1 -ac 1 "$D/huge.flac" || t_fail "ffmpeg could not write huge.flac"
# NUL bytes inside values: hand-made ID3v2.3 frames in front of a bare MP3 stream
sine -write_id3v1 0 -id3v2_version 0 -f mp3 "$T_TMP/bare.mp3" || t_fail "ffmpeg could not write bare.mp3"
{
	id3_frame TIT2 'before\000\033[31mafter NUL'
	id3_frame TPE1 'Nul\000Artist\000\033]0;x\007'
	id3_frame TALB '\000leading NUL'
} >"$T_TMP/frames"
{ id3_tag "$T_TMP/frames"; cat "$T_TMP/bare.mp3"; } >"$D/nul.mp3"
NFILES=$(find "$D" -type f | wc -l)
[ "$NFILES" -eq 4 ] || t_fail "made $NFILES of 4 files"

t_begin hostile_tags_scan
"$CRATE" --db "$DB" scan "$D" >"$T_TMP/scan.out" 2>"$T_TMP/scan.err"
rc=$?
[ $rc -le 2 ] || t_fail "crate scan exited $rc"
[ $rc -le 1 ] && [ $rc -ne 0 ] && t_fail "crate scan failed: $(head -3 "$T_TMP/scan.err")"
for f in "$T_TMP/scan.out" "$T_TMP/scan.err"; do
	if LC_ALL=C grep -q $'\e' "$f"; then
		# a progress line on a tty may use its own escapes; we are not on a tty
		t_fail "crate scan printed an ESC byte ($f)"
	fi
done

t_begin hostile_tags_list_is_clean
"$CRATE" --db "$DB" list --format '%artist%|%album%|%title%|%genre%|%comment%' >"$T_TMP/list" 2>"$T_TMP/err"
rc=$?
[ $rc -eq 0 ] || t_fail "crate list exited $rc: $(head -2 "$T_TMP/err")"
if has_ctl "$T_TMP/list"; then t_fail "crate list printed control bytes:"; show_ctl "$T_TMP/list" >&2; fi
n=$(wc -l <"$T_TMP/list")
[ "$n" -eq "$NFILES" ] || t_fail "crate list printed $n lines for $NFILES files (a newline in a tag split a record?)"
grep -q 'RED' "$T_TMP/list" || t_fail "the escaped title's text is gone from crate list"
grep -q 'before' "$T_TMP/list" || t_fail "the title with a NUL byte lost its first part"
"$CRATE" --db "$DB" list >"$T_TMP/list2" 2>&1 || t_fail "crate list (default format) failed"
has_ctl "$T_TMP/list2" && t_fail "crate list (default format) printed control bytes"

t_begin hostile_tags_format_tab_stays_a_tab
# A tab of the format is the script's column separator (a tab in a value
# is a space, so it cannot add a column); every other control still goes.
"$CRATE" --db "$DB" list --format $'%id%\t%title%|%comment%' >"$T_TMP/tsv" 2>"$T_TMP/err" ||
	t_fail "crate list --format with a tab failed: $(head -2 "$T_TMP/err")"
bad=$(awk -F'\t' 'NF != 2' "$T_TMP/tsv" | wc -l)
[ "$bad" -eq 0 ] || t_fail "$bad of $(wc -l <"$T_TMP/tsv") lines do not have exactly the format's one tab"
tr -d '\t' <"$T_TMP/tsv" >"$T_TMP/tsv.notab"
has_ctl "$T_TMP/tsv.notab" && t_fail "crate list --format with a tab printed other control bytes"

t_begin hostile_tags_info_is_clean
for id in $(seq 1 "$NFILES"); do
	"$CRATE" --db "$DB" info "$id" >"$T_TMP/info" 2>&1
	rc=$?
	[ $rc -eq 0 ] || t_fail "crate info $id exited $rc: $(head -2 "$T_TMP/info")"
	if has_ctl "$T_TMP/info"; then t_fail "crate info $id printed control bytes"; show_ctl "$T_TMP/info" >&2; fi
done
"$CRATE" --db "$DB" info "$D/huge.flac" >"$T_TMP/info" 2>&1 || t_fail "crate info PATH of the 1 MB title failed"

t_begin hostile_tags_json_is_valid
"$CRATE" --db "$DB" list --json >"$T_TMP/list.json" 2>"$T_TMP/err" || t_fail "crate list --json failed: $(head -2 "$T_TMP/err")"
LC_ALL=C grep -q $'[\x01-\x1f\x7f]' "$T_TMP/list.json" && t_fail "crate list --json holds raw control bytes (JSON needs \\u escapes)"
if command -v sqlite3 >/dev/null; then
	v=$(sqlite3 :memory: "SELECT json_valid(CAST(readfile('$T_TMP/list.json') AS TEXT)), json_array_length(CAST(readfile('$T_TMP/list.json') AS TEXT))" 2>&1)
	[ "$v" = "1|$NFILES" ] || t_fail "crate list --json is not a valid array of $NFILES items (json_valid|length = $v)"
fi

t_begin hostile_tags_search_is_clean
for q in RED 'a~ctl' 't~x' '"*"'; do
	"$CRATE" --db "$DB" search "$q" >"$T_TMP/search" 2>&1
	rc=$?
	[ $rc -le 1 ] || t_fail "crate search '$q' exited $rc"
	has_ctl "$T_TMP/search" && t_fail "crate search '$q' printed control bytes"
done

t_end
