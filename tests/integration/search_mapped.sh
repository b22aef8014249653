#!/usr/bin/env bash
# `crate search` without a running crate reads the index snapshot in place
# (mlib_index_snapshot_map): on the corpus-backed library its output is
# the same as from the SQLite load, as plain lines and as JSON; a damaged
# snapshot gives the same answer (loaded from SQLite, the file rewritten);
# a stale one is not used.
. "$(dirname "$0")/../lib.sh"

DB=$T_TMP/corpus.db
c() { "$CRATE" --db "$DB" --config /dev/null "$@"; }
QUERIES=("a:*" "t~a OR t~e" "NOT t~the" "year>1990" "duration<60000" "~flac" "g:rock OR g:jazz"
	"t~a ORDER BY -title" "url~wav LIMIT 3" "artist:nobody-at-all")
# answers FILE: every query's output (lines, then --json) into FILE.
answers() {
	local q
	: >"$1"
	for q in "${QUERIES[@]}"; do
		{
			echo "== $q"
			c search "$q" 2>&1
			echo "rc=$?"
			c search --json --order library "$q" 2>&1
		} >>"$1"
	done
}
snap_version() { od -A n -t u4 -j 8 -N 4 "$DB.index" | tr -d ' '; }

t_begin search_mapped_setup
if [ ! -d "$CORPUS" ]; then
	t_skip "corpus missing ($CORPUS)"
	t_end
	exit $?
fi
timeout 300 "$CRATE" --db "$DB" scan --quiet "$CORPUS" >/dev/null 2>&1
[ "$(c search 'a:*' | wc -l)" -gt 10 ] || t_fail "the corpus library has few items"

t_begin search_mapped_same_as_sqlite
rm -f "$DB.index"
mkdir "$DB.index" # not a file: every search loads from SQLite, none can write one
answers "$T_TMP/sqlite"
rmdir "$DB.index" || t_fail "a snapshot was written over the directory"
c search 'a:*' >/dev/null # writes the snapshot
for i in $(seq 50); do [ -s "$DB.index" ] && break; sleep 0.1; done
[ "$(snap_version)" = 5 ] || t_fail "no mappable (format 5) snapshot: $(snap_version)"
cp "$DB.index" "$T_TMP/good.index"
answers "$T_TMP/mapped"
cmp -s "$T_TMP/good.index" "$DB.index" || t_fail "a search through the mapping rewrote the snapshot"
diff "$T_TMP/sqlite" "$T_TMP/mapped" >"$T_TMP/diff" || t_fail "mapped answers differ: $(head -20 "$T_TMP/diff")"

t_begin search_mapped_damage_falls_back
# A byte flipped in a title the search prints (its original or folded
# text, whichever the file holds first): the search notices as it reads
# it, answers from SQLite and rewrites the file.
size=$(stat -c %s "$DB.index")
cp "$T_TMP/good.index" "$DB.index"
title=$(c search --format '%title%' --limit 1 "${QUERIES[1]}")
at=$(grep -obaF -- "$title" "$DB.index" | head -1 | cut -d: -f1)
[ -n "$title" ] && [ -n "$at" ] || t_fail "no title '$title' found in the snapshot"
printf '\377' | dd of="$DB.index" bs=1 seek=$((at + ${#title} / 2)) conv=notrunc status=none
cp "$DB.index" "$T_TMP/bad.index"
c search "${QUERIES[1]}" >"$T_TMP/out" 2>"$T_TMP/err"
[ "$?" -eq 0 ] && [ ! -s "$T_TMP/err" ] || t_fail "damaged: exit or stderr '$(cat "$T_TMP/err")'"
c search "${QUERIES[1]}" >"$T_TMP/want" 2>&1
answers "$T_TMP/damaged"
diff "$T_TMP/sqlite" "$T_TMP/damaged" >"$T_TMP/diff" || t_fail "answers differ: $(head -20 "$T_TMP/diff")"
cmp -s "$T_TMP/bad.index" "$DB.index" && t_fail "the damaged snapshot was not rewritten"
# Damage to every property, one run each: the same answers every time.
for frac in 3 5 7 9 11 13 17; do
	cp "$T_TMP/good.index" "$DB.index"
	printf '\001' | dd of="$DB.index" bs=1 seek=$((size * (frac - 2) / frac)) conv=notrunc status=none
	c search --json "${QUERIES[0]}" >"$T_TMP/out" 2>&1 || t_fail "damaged at $frac: exit $?"
	c search --json "${QUERIES[0]}" >"$T_TMP/want" 2>&1
	cmp -s "$T_TMP/out" "$T_TMP/want" || t_fail "damaged at 1/$frac: answer differs"
done

t_begin search_mapped_sees_later_changes
# A rating given after the snapshot was written (statistics: the snapshot
# stays, the change is applied), then a scan (the snapshot is stale).
cp "$T_TMP/good.index" "$DB.index"
id=$(c search --format '%id%' --limit 1 --order library 'a:*')
c rate "$id" 4 >/dev/null 2>&1 || t_fail "rate failed"
rating() { c search --format '%id% %rating%' --order library 'a:*' | awk -v i="$id" '$1 == i { print $2 }'; }
[ "$(rating)" = 4 ] || t_fail "a rating after the snapshot: '$(rating)'"
cp "$T_TMP/good.index" "$DB.index" # an older snapshot back: the rating row still applies
[ "$(rating)" = 4 ] || t_fail "after the old snapshot came back: '$(rating)'"
mkdir -p "$T_TMP/more" && cp "$(find "$CORPUS" -name '*.flac' | head -1)" "$T_TMP/more/new.flac"
n0=$(c search --format '%id%' 'a:* OR NOT a:*' | wc -l)
c scan --quiet "$T_TMP/more" >/dev/null 2>&1
cp "$T_TMP/good.index" "$DB.index" # stale now
n1=$(c search --format '%id%' 'a:* OR NOT a:*' | wc -l)
[ "$n1" -eq $((n0 + 1)) ] || t_fail "a stale snapshot answered: $n0 then $n1 items"

t_end
