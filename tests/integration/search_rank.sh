#!/usr/bin/env bash
# Searches as people run them (issue 19): every `crate search` example in the
# README finds something on the demo library (data/demo); relevance order,
# --order library, ORDER BY, --exact, what was forgiven on stderr, and
# `crate explain --score`.
. "$(dirname "$0")/../lib.sh"

DB=$T_TMP/rank.db
c() { "$CRATE" --db "$DB" --config /dev/null "$@"; }
run() { c "$@" >"$T_TMP/out" 2>"$T_TMP/err"; RC=$?; OUT=$(cat "$T_TMP/out"); ERR=$(cat "$T_TMP/err"); }

t_begin search_rank_setup
MUSIC=$SRCDIR/data/demo
if [ ! -d "$MUSIC" ]; then
	t_skip "data/demo is missing"
	t_end
	exit $?
fi
c scan --quiet "$MUSIC" >/dev/null 2>&1 || t_fail "scan data/demo"

t_begin readme_examples_find_something
n=0
while IFS= read -r q; do
	n=$((n + 1))
	run search --format '%title%' "$q"
	[ "$RC" -eq 0 ] || t_fail "README example '$q' exits $RC: $ERR"
	[ -n "$OUT" ] || t_fail "README example '$q' finds nothing on the demo library"
done < <(sed -n "s/^ *crate search '\(.*\)'\( .*\)\{0,1\}$/\1/p" "$SRCDIR/README" |
	sed "s/'  .*//")
[ "$n" -ge 10 ] || t_fail "only $n crate search examples found in the README"

t_begin search_ranks_relevance_first
# Library order puts "Morning (Morning mix)" last of the album; it is the
# only track with both words.
run search --format '%title%' 'morning OR lights'
[ "$(printf '%s\n' "$OUT" | head -1)" = "Morning (Morning mix)" ] || t_fail "ranked: $OUT"
run search --format '%title%' --order library 'morning OR lights'
[ "$(printf '%s\n' "$OUT" | tail -1)" = "Morning (Morning mix)" ] ||
	t_fail "--order library is not library order: $OUT"
run search --format '%title%' 'morning OR lights ORDER BY -title'
[ "$OUT" = "$(printf 'Salt Wind\nMorning (Morning mix)\nHarbour Lights')" ] ||
	t_fail "ORDER BY does not win: $OUT"
run search --format '%title%' --order title 'morning OR lights'
[ "$(printf '%s\n' "$OUT" | head -1)" = "Harbour Lights" ] || t_fail "--order title: $OUT"
# LIMIT keeps the best one, not the first in library order.
run search --format '%title%' 'morning OR lights LIMIT 1'
[ "$OUT" = "Morning (Morning mix)" ] || t_fail "LIMIT 1 of a ranked search: $OUT"

t_begin search_forgives_and_says_so
run search --format '%artist%' 'a:bjork'
[ "$RC" -eq 0 ] && [ "$(printf '%s\n' "$OUT" | sort -u)" = "Björk Sigurðardóttir" ] ||
	t_fail "a:bjork: $OUT"
printf '%s\n' "$ERR" | grep -qF "no artist 'bjork'; showing the words 'bjork' in artist: Björk Sigurðardóttir" ||
	t_fail "a:bjork note: $ERR"
run search --format '%title%' --exact 'a:bjork'
[ "$RC" -eq 0 ] && [ -z "$OUT" ] && [ -z "$ERR" ] || t_fail "--exact a:bjork: '$OUT' '$ERR'"
run search --format '%artist%' 'lantrens'
[ "$(printf '%s\n' "$OUT" | sort -u)" = "The Lanterns" ] || t_fail "typo: $OUT"
printf '%s\n' "$ERR" | grep -qF "also showing matches for lanterns" || t_fail "typo note: $ERR"
run search --format '%artist%' '"lantrens"'
[ -z "$OUT" ] || t_fail "a quoted word was corrected: $OUT"
run search --format '%title%' --json 'lantrens'
[ "${OUT:0:1}" = "[" ] || t_fail "--json output does not start with the array: $OUT"
# A saved collection stays exact.
c coll save Bj 'a:bjork' >/dev/null 2>&1 || t_fail "coll save"
run search --format '%title%' 'in:Bj'
[ -z "$OUT" ] || t_fail "a saved a:bjork was forgiven: $OUT"

t_begin search_that_finds_nothing_promises_nothing
# What was forgiven found tracks, but the rest of the query took them
# away: no "showing ..." beside an empty result, only what is missing.
run search --format '%title%' 'lantrens y>2999'
[ "$RC" -eq 0 ] && [ -z "$OUT" ] || t_fail "lantrens y>2999: '$OUT'"
printf '%s\n' "$ERR" | grep -q showing && t_fail "typo note beside nothing: $ERR"
run search --format '%title%' 'a:bjork y>2999'
[ "$RC" -eq 0 ] && [ -z "$OUT" ] || t_fail "a:bjork y>2999: '$OUT'"
[ "$ERR" = "crate: no artist 'bjork'" ] || t_fail "a:bjork y>2999 note: '$ERR'"

t_begin search_cjk_words
for q in 夜 ソナタ 東京 '夜の'; do
	run search --format '%title%' "$q"
	printf '%s\n' "$OUT" | grep -qx '夜の街' || t_fail "'$q' does not find 夜の街: $OUT"
done
run search --format '%title%' 'ソ東'
[ -z "$OUT" ] || t_fail "characters not in a row matched: $OUT"

t_begin explain_score
id=$(c search --format '%id%' 't:"Morning (Morning mix)"')
run explain --score 'morning OR lights' "$id"
[ "$RC" -eq 0 ] || t_fail "explain --score exits $RC: $ERR"
printf '%s\n' "$OUT" | grep -qF "score: #$id ranks 1 of 3 (relevance order)" || t_fail "rank line: $OUT"
printf '%s\n' "$OUT" | grep -qF "'morning' in title 'Morning (Morning mix)': whole word, 400 points" ||
	t_fail "title match: $OUT"
printf '%s\n' "$OUT" | grep -qF "words matched: 2 of 2; match points: 700" || t_fail "totals: $OUT"
run explain --score 'morning OR lights ORDER BY title' "$id"
printf '%s\n' "$OUT" | grep -qF "not ranked: ORDER BY" || t_fail "ORDER BY explain: $OUT"
run explain --score
[ "$RC" -eq 1 ] || t_fail "explain --score without arguments exits $RC"

t_end
