#!/usr/bin/env bash
# `crate parse` (JSON, --tree, --canonical, errors with a caret and exit 1)
# and `crate explain` on a library scanned from data/demo (twelve tracks;
# their tags are listed in scripts/make-demo.sh).
. "$(dirname "$0")/../lib.sh"

DB=$T_TMP/parse.db
c() { "$CRATE" --db "$DB" --config /dev/null "$@"; }
# run CMD...: stdout in $OUT, stderr in $ERR, status in $RC.
run() { c "$@" >"$T_TMP/out" 2>"$T_TMP/err"; RC=$?; OUT=$(cat "$T_TMP/out"); ERR=$(cat "$T_TMP/err"); }
expect_rc() { [ "$RC" -eq "$1" ] || t_fail "$2: exit $RC, expected $1 (stderr: $(head -c 300 "$T_TMP/err"))"; }
has_ctl() { LC_ALL=C grep -q $'[\x01-\x09\x0b-\x1f\x7f]' "$1"; }
json_ok() { [ "$(sqlite3 :memory: "SELECT json_valid(readfile('$1'))")" = 1 ]; }
json_get() { sqlite3 :memory: "SELECT json_extract(readfile('$1'), '$2')"; }
# The media id of the track titled $1 (ids follow the scan, not the list above).
id_of() { c search --format '%id%' "title:\"$1\"" 2>/dev/null; }

t_begin parse_needs_no_library
# parse works on the text alone: no database is opened or created.
run parse 'a:bjork y>2000'
expect_rc 0 "parse 'a:bjork y>2000'"
[ ! -e "$DB" ] || t_fail "crate parse created the database"

t_begin parse_json_shape
if ! command -v sqlite3 >/dev/null; then
	t_skip "needs the sqlite3 command-line tool"
else
	c parse 'a:bjork y>2000' >"$T_TMP/q.json" 2>"$T_TMP/err" || t_fail "parse failed: $(cat "$T_TMP/err")"
	json_ok "$T_TMP/q.json" || t_fail "not valid JSON: $(cat "$T_TMP/q.json")"
	[ "$(json_get "$T_TMP/q.json" '$.type')" = intersection ] || t_fail "two terms are not an intersection"
	[ "$(json_get "$T_TMP/q.json" '$.operands[0].type')" = equals ] || t_fail "a:bjork is not equals"
	[ "$(json_get "$T_TMP/q.json" '$.operands[0].attributes.field')" = artist ] ||
		t_fail "the alias a: does not expand to artist"
	[ "$(json_get "$T_TMP/q.json" '$.operands[0].attributes.value')" = bjork ] || t_fail "wrong value"
	[ "$(json_get "$T_TMP/q.json" '$.operands[0].operands[0].type')" = universe ] ||
		t_fail "a filter without an operand does not apply to the universe"
	[ "$(json_get "$T_TMP/q.json" '$.operands[1].type')" = greater ] || t_fail "y>2000 is not greater"
	[ "$(json_get "$T_TMP/q.json" '$.operands[1].attributes.field')" = year ] || t_fail "y: is not year"
	# Words given unquoted as several arguments are one query.
	run parse a:bjork 'y>2000'
	[ "$OUT" = "$(cat "$T_TMP/q.json")" ] || t_fail "several arguments parse differently from one"
	# --list: bare numbers are playlist positions.
	c parse --list '3' >"$T_TMP/l.json"
	[ "$(json_get "$T_TMP/l.json" '$.attributes.type')" = position ] ||
		t_fail "--list '3' is not a position filter: $(cat "$T_TMP/l.json")"
	# Tag text is escaped in JSON: no raw control bytes reach the terminal.
	c parse $'title:"\x1b[31mred"' >"$T_TMP/esc.json"
	has_ctl "$T_TMP/esc.json" && t_fail "parse printed a raw ESC"
	json_ok "$T_TMP/esc.json" || t_fail "escaped JSON is not valid"
fi

t_begin parse_tree_and_canonical
run parse --tree 'a:bjork OR (g:Jazz y<1990)'
expect_rc 0 "parse --tree"
want='union  (col 1-25)
  equals field="artist" value="bjork"  (col 1-7)
  intersection  (col 13-25)
    equals field="genre" value="Jazz"  (col 13-18)
    smaller field="year" value="1990"  (col 20-25)'
[ "$OUT" = "$want" ] || t_fail "tree differs:
$OUT"
# Columns count characters, not bytes.
run parse --tree 'a:björk OR t:x'
printf '%s\n' "$OUT" | grep -q 'value="x"  (col 12-14)' || t_fail "columns after 'ö' are off: $OUT"
run parse --canonical 'artist:björk year>2000'
[ "$OUT" = 'artist:björk year>2000' ] || t_fail "canonical text: '$OUT'"
run parse --canonical 'a:x OR a:y g:Rock'
expect_rc 0 "parse --canonical"
# The canonical text parses back to the same collection.
c parse 'a:x OR a:y g:Rock' >"$T_TMP/a.json"
c parse "$OUT" >"$T_TMP/b.json"
cmp -s "$T_TMP/a.json" "$T_TMP/b.json" || t_fail "canonical '$OUT' does not parse back to the same JSON"
run parse --tree $'title:"\x1b[31mred"'
printf '%s' "$OUT" >"$T_TMP/tree"
has_ctl "$T_TMP/tree" && t_fail "parse --tree printed a raw control byte"

t_begin parse_errors_show_a_caret
run parse 'a:bjork AND (g:Jazz'
expect_rc 1 "unbalanced '('"
[ -z "$OUT" ] || t_fail "an error printed to stdout: $OUT"
printf '%s\n' "$ERR" | head -1 | grep -q '^crate: col 13: ' || t_fail "no 'col 13' message: $ERR"
[ "$(printf '%s\n' "$ERR" | sed -n 2p)" = '  a:bjork AND (g:Jazz' ] || t_fail "query line missing: $ERR"
[ "$(printf '%s\n' "$ERR" | sed -n 3p)" = "$(printf '%*s^' 14 '')" ] || t_fail "caret not under col 13: $ERR"
# The caret counts characters: 'ï' is one column, two bytes.
run parse 'tïtle:"x" OR )'
expect_rc 1 "'OR )'"
printf '%s\n' "$ERR" | head -1 | grep -q '^crate: col 11: ' || t_fail "wrong column: $ERR"
[ "$(printf '%s\n' "$ERR" | sed -n 3p)" = "$(printf '%*s^' 12 '')" ] || t_fail "caret not under col 11: $ERR"
# An unterminated quote runs to the end (query-syntax.md); the error
# echoes hostile query text sanitised.
run parse 'a:"open'
expect_rc 0 "an unterminated quote"
run parse $'a:\x1b[2J OR'
expect_rc 1 "'OR' at the end"
printf '%s' "$ERR" >"$T_TMP/err2"
has_ctl "$T_TMP/err2" && t_fail "the error echoed a raw control byte"
run parse
expect_rc 1 "parse without a query"
printf '%s\n' "$ERR" | grep -q '^usage: crate parse' || t_fail "no usage line: $ERR"
run parse --bogus x
expect_rc 1 "unknown option"

t_begin explain_setup_library
MUSIC=$SRCDIR/data/demo
if [ ! -d "$MUSIC" ]; then
	t_skip "data/demo is missing"
	t_end
	exit $?
fi
run scan --quiet "$MUSIC"
expect_rc 0 "scan data/demo"
n=$(c search --format '%id%' '*' | wc -l)
[ "$n" -eq 12 ] || t_fail "$n items scanned from data/demo, expected 12"
STAIRWAY=$(id_of "Stairway Down")
VATNA=$(id_of "Vatnajökull")
MORNING=$(id_of "Morning (Morning mix)")
[ -n "$STAIRWAY" ] && [ -n "$VATNA" ] && [ -n "$MORNING" ] || t_fail "demo titles not found"

t_begin explain_says_why_in
run explain 'g:Jazz y<1990' "$STAIRWAY"
expect_rc 0 "explain in"
want="yes  intersection
  yes  genre:Jazz  -- genre 'Jazz' equals 'Jazz'
  yes  year<1990  -- year 1979 is < 1990"
[ "$OUT" = "$want" ] || t_fail "explain (in) differs:
$OUT"
# Word search finds "morning" inside "(Morning mix)"; '#ID' works too.
run explain 'title~morning' "#$MORNING"
expect_rc 0 "explain #ID"
printf '%s\n' "$OUT" | head -1 | grep -q '^yes ' || t_fail "title~morning misses 'Morning (Morning mix)': $OUT"

t_begin explain_says_why_out
run explain 'g:Jazz y<1990' "$VATNA"
expect_rc 0 "explain out"
want="no   intersection
  no   genre:Jazz  -- genre 'Ambient' does not equal 'Jazz'
  no   year<1990  -- year 2003 is not < 1990"
[ "$OUT" = "$want" ] || t_fail "explain (out) differs:
$OUT"
# Accent-insensitive: bjork equals Björk.
run explain 'a:"bjork sigurdardottir"' "$VATNA"
printf '%s\n' "$OUT" | head -1 | grep -q '^yes ' || t_fail "bjork does not equal Björk: $OUT"
run explain 'NOT a:"bjork sigurdardottir"' "$VATNA"
printf '%s\n' "$OUT" | head -1 | grep -q '^no ' || t_fail "NOT a:bjork holds Björk: $OUT"

t_begin explain_errors
run explain 'g:Jazz' 99999
expect_rc 1 "an id not in the library"
printf '%s\n' "$ERR" | grep -q '99999' || t_fail "the message does not name the id: $ERR"
run explain 'g:Jazz' abc
expect_rc 1 "not an id"
printf '%s\n' "$ERR" | grep -q "'abc' is not a media id" || t_fail "unclear message: $ERR"
run explain 'g:Jazz (' "$STAIRWAY"
expect_rc 1 "a query error"
[ "$(printf '%s\n' "$ERR" | sed -n 3p)" = "$(printf '%*s^' 9 '')" ] || t_fail "caret not under col 8: $ERR"
# explain, unlike parse, checks references.
run explain 'in:Nope' "$STAIRWAY"
expect_rc 1 "a missing reference"
printf '%s\n' "$ERR" | grep -q "Nope" || t_fail "the message does not name the collection: $ERR"
run explain 'g:Jazz'
expect_rc 1 "explain without an id"

t_begin search_as_people_type_it
# Issue 22: a quoted star finds every item with an artist, album or title
# (all twelve demo tracks); spaces around a comparison are accepted.
n=$(c search --format '%id%' '"*"' | wc -l)
[ "$n" -eq 12 ] || t_fail "search '\"*\"' found $n items, expected 12"
want=$(c search --format '%id%' 'year>2000' | sort -n)
[ "$(printf '%s\n' "$want" | wc -l)" -eq 7 ] || t_fail "year>2000 should find 7 demo tracks: $want"
for q in 'year > 2000' 'year >2000' 'year> 2000' 'y  >  2000'; do
	got=$(c search --format '%id%' "$q" | sort -n)
	[ "$got" = "$want" ] || t_fail "'$q' finds other tracks than year>2000: $got"
done
run parse --canonical 'year >= 2000 a != x'
[ "$OUT" = "year>=2000 artist!=x" ] || t_fail "printing is not canonical: $OUT"
# The near misses say what was probably meant, with a column.
run search 'a:foo && a:bar'
expect_rc 1 "&&"
printf '%s\n' "$ERR" | head -1 | grep -qF "col 7: '&&' is not an operator: did you mean AND?" ||
	t_fail "&& error: $ERR"
run search "'artist':Mira"
expect_rc 1 "quoted field name"
printf '%s\n' "$ERR" | head -1 | grep -qF "did you mean 'artist:Mira'?" || t_fail "quoted name error: $ERR"
run search '+ artist'
printf '%s\n' "$ERR" | head -1 | grep -qF "col 2: expected a field name after '+': did you mean '+artist'?" ||
	t_fail "'+ artist' error: $ERR"
run search ' '
expect_rc 1 "the empty query"
printf '%s\n' "$ERR" | head -1 | grep -qF "col 1: empty query" || t_fail "empty query error: $ERR"

t_end
