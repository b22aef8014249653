#!/usr/bin/env bash
# crate rate: ratings on one scale, stored in the database, never in files.
. "$(dirname "$0")/../lib.sh"

mkdir -p "$T_TMP/m"
c() { "$CRATE" --db "$T_TMP/db" "$@"; }
for i in 1 2 3; do
	ffmpeg -nostdin -v quiet -y -f lavfi -i "sine=f=${i}00:d=0.2" -ac 2 -metadata artist="Art$i" \
		-metadata title="Tune $i" "$T_TMP/m/t$i.flac"
done
# A file that brings its own rating (Vorbis comment, percent).
ffmpeg -nostdin -v quiet -y -f lavfi -i "sine=f=500:d=0.2" -ac 2 -metadata artist=Art4 \
	-metadata title="Tune 4" -metadata RATING=60 "$T_TMP/m/t4.flac"
c scan --quiet "$T_TMP/m" >/dev/null 2>&1

t_begin rate_query_and_id
sum=$(md5sum "$T_TMP"/m/*.flac)
c rate 'a:Art1 OR a:Art2' 4 2>"$T_TMP/err" || t_fail "rate query: $(cat "$T_TMP/err")"
grep -q "rated 2 tracks" "$T_TMP/err" || t_fail "no count: $(cat "$T_TMP/err")"
id=$(c search 'a:Art3' --format '%id%')
c rate "$id" 5 2>/dev/null || t_fail "rate id"
[ "$(c search 'r>=4' --format '%title%' | sort | tr '\n' ,)" = "Tune 1,Tune 2,Tune 3," ] ||
	t_fail "r>=4: $(c search 'r>=4' --format '%title%')"
[ "$(c search 'a:Art4' --format '%rating%')" = 3 ] || t_fail "file's RATING=60 is not 3 stars"
c rate "$id" 0 2>/dev/null || t_fail "rate 0"
[ -z "$(c search 'a:Art3' --format '%rating%')" ] || t_fail "0 does not clear"
[ "$sum" = "$(md5sum "$T_TMP"/m/*.flac)" ] || t_fail "a file was written"

t_begin rate_a_file_by_its_path
# crate info takes a file's path, and a hook gets the playing file's: rate
# took the path for a query ("nothing matches '.../t2.flac': no rating
# set"). A file the library has is rated; another path is still a query.
c rate "$T_TMP/m/t2.flac" 1 2>"$T_TMP/err" || t_fail "rate FILE: $(cat "$T_TMP/err")"
[ "$(c search 'a:Art2' --format '%rating%')" = 1 ] || t_fail "t2 is not 1 star"
(cd "$T_TMP/m" && c rate t2.flac 2 2>/dev/null) || t_fail "rate a relative FILE"
[ "$(c search 'a:Art2' --format '%rating%')" = 2 ] || t_fail "t2 is not 2 stars"
c rate "$T_TMP/m/none.flac" 3 >/dev/null 2>"$T_TMP/err" && t_fail "a file not there rated"
grep -q "nothing matches" "$T_TMP/err" || t_fail "unclear: $(cat "$T_TMP/err")"

t_begin rate_refuses_bad_input
c rate 'a:Art1' 6 >/dev/null 2>&1 && t_fail "6 accepted"
c rate 'a:Art1' x >/dev/null 2>&1 && t_fail "x accepted"
c rate 'a:Nobody' 3 >/dev/null 2>"$T_TMP/err" && t_fail "no match accepted"
grep -q "nothing matches" "$T_TMP/err" || t_fail "unclear: $(cat "$T_TMP/err")"
c rate 'a:(' 3 >/dev/null 2>&1 && t_fail "bad query accepted"
t_end
