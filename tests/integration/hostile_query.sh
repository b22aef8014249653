#!/usr/bin/env bash
# Hostile queries and names: SQL fragments, unbalanced quotes, 10,000 nested
# parentheses, very long chains and values. Each gives results or a clear
# error with a column (exit 1) -- never a crash or a stack overflow -- and the
# database is untouched by anything that looks like SQL.
. "$(dirname "$0")/../lib.sh"

D=$T_TMP/music
DB=$T_TMP/q.db
mkdir -p "$D"

rep() { # rep N STRING: STRING N times
	local out="" s=$2 n=$1
	while [ "$n" -gt 0 ]; do
		[ $((n & 1)) -eq 1 ] && out=$out$s
		s=$s$s
		n=$((n >> 1))
	done
	printf '%s' "$out"
}

# q_ok WHAT RC ERRFILE: results (0) or a clear error naming a column (1)
q_ok() {
	if [ "$2" -ge 128 ]; then
		t_fail "$1: crashed (exit $2)"
	elif [ "$2" -ne 0 ] && [ "$2" -ne 1 ]; then
		t_fail "$1: exit $2"
	elif [ "$2" -eq 1 ] && ! grep -qE 'col [0-9]+|empty query|too deep|nest' "$3"; then
		t_fail "$1: an error without a position: $(head -c 300 "$3")"
	fi
}

t_begin hostile_query_setup
if ! command -v ffmpeg >/dev/null || ! command -v sqlite3 >/dev/null; then
	t_skip "needs ffmpeg and sqlite3"; t_end; exit $?
fi
for i in 1 2 3; do
	ffmpeg -v error -y -f lavfi -i "sine=frequency=$((300 * i)):duration=0.2:sample_rate=22050" -ac 1 \
		-metadata title="Song $i" -metadata artist="O'Brien \"Quoted\" $i" "$D/s$i.flac" || t_fail "ffmpeg failed"
done
"$CRATE" --db "$DB" scan --quiet "$D" >/dev/null 2>&1 || t_fail "scan failed"
COUNT=$("$CRATE" --db "$DB" list --format '%url%' | wc -l)
[ "$COUNT" -eq 3 ] || t_fail "$COUNT items indexed, expected 3"

t_begin hostile_query_sql_fragments
queries=(
	"'; DROP TABLE media; --"
	"a:\"x' OR '1'='1\""
	"t:%' OR 1=1 --"
	"a:x); DELETE FROM media; --"
	"\"; DROP TABLE media; --"
	"a:' UNION SELECT url FROM media --"
	"title~%"
	"title~_"
	"u:*' OR ''='"
)
for q in "${queries[@]}"; do
	"$CRATE" --db "$DB" search "$q" >"$T_TMP/out" 2>"$T_TMP/err"
	rc=$?
	q_ok "search [$q]" $rc "$T_TMP/err"
done
# % and _ are not wildcards: nothing has them in its title
n=$("$CRATE" --db "$DB" search 'title~%' 2>/dev/null | wc -l)
[ "$n" -eq 0 ] || t_fail "title~% matched $n items: '%' works as an SQL wildcard"
n=$("$CRATE" --db "$DB" search "a~O'Brien" --format '%title%' 2>/dev/null | wc -l)
[ "$n" -eq 3 ] || t_fail "a~O'Brien found $n of 3 items"
n=$("$CRATE" --db "$DB" search 'a~"\"Quoted\""' --format '%title%' 2>/dev/null | wc -l)
[ "$n" -eq 3 ] || t_fail "a~'\"Quoted\"' (escaped quotes) found $n of 3 items"
[ "$(sqlite3 "$DB" 'SELECT count(*) FROM media')" = 3 ] || t_fail "the media table changed"

t_begin hostile_query_unbalanced
for q in '"unterminated' "'single" 'a:"' '((a' 'a))' ')' '(' 'a:(' 'NOT' 'a AND' 'OR b' '#' '#5-3' '\'; do
	"$CRATE" --db "$DB" search "$q" >"$T_TMP/out" 2>"$T_TMP/err"
	q_ok "search [$q]" $? "$T_TMP/err"
done

t_begin hostile_query_deep_nesting
deep="$(rep 10000 '(')a$(rep 10000 ')')"
"$CRATE" --db "$DB" search "$deep" >"$T_TMP/out" 2>"$T_TMP/err"
rc=$?
q_ok "10,000 nested parentheses" $rc "$T_TMP/err"
[ $rc -eq 1 ] || t_fail "10,000 nested parentheses were accepted (the limit is 256)"
"$CRATE" --db "$DB" search "$(rep 10000 '(')" >"$T_TMP/out" 2>"$T_TMP/err"
q_ok "10,000 opening parentheses" $? "$T_TMP/err"
"$CRATE" --db "$DB" search "$(rep 10000 'NOT ')a" >"$T_TMP/out" 2>"$T_TMP/err"
q_ok "10,000 NOTs" $? "$T_TMP/err"
"$CRATE" --db "$DB" search "$(rep 5000 'a:x OR ')a:y" >"$T_TMP/out" 2>"$T_TMP/err"
q_ok "a chain of 5,000 ORs" $? "$T_TMP/err"
"$CRATE" --db "$DB" search "$(rep 5000 't~Song ')" >"$T_TMP/out" 2>"$T_TMP/err"
rc=$?
q_ok "5,000 juxtaposed terms" $rc "$T_TMP/err"
[ $rc -ne 0 ] || [ "$(wc -l <"$T_TMP/out")" -eq 3 ] || t_fail "5,000 juxtaposed 't~Song' did not find the 3 songs"
"$CRATE" --db "$DB" search "t:$(rep 100000 x)" >"$T_TMP/out" 2>"$T_TMP/err"
q_ok "a 100 kB value" $? "$T_TMP/err"

t_begin hostile_query_saved_names
for name in "'; DROP TABLE media; --" 'Robert"); DELETE FROM coll; --' $'\e[31mred' 'a/b' '..'; do
	"$CRATE" --db "$DB" coll save "$name" 't~Song' >"$T_TMP/out" 2>"$T_TMP/err"
	rc=$?
	[ $rc -lt 128 ] || t_fail "coll save [$name] crashed (exit $rc)"
done
"$CRATE" --db "$DB" coll save "'; DROP TABLE media; --" 't~Song' >/dev/null 2>&1 ||
	t_fail "a name with SQL in it cannot be saved"
"$CRATE" --db "$DB" coll list >"$T_TMP/list" 2>&1 || t_fail "coll list failed"
grep -qF "'; DROP TABLE media; --" "$T_TMP/list" || t_fail "the SQL-looking name is not listed as is"
LC_ALL=C grep -q $'\e' "$T_TMP/list" && t_fail "coll list printed an ESC byte"
n=$("$CRATE" --db "$DB" search "in:\"'; DROP TABLE media; --\"" 2>/dev/null | wc -l)
[ "$n" -eq 3 ] || t_fail "in:\"'; DROP TABLE media; --\" found $n of 3 items"
"$CRATE" --db "$DB" coll save Deep "$deep" >"$T_TMP/out" 2>"$T_TMP/err"
rc=$?
[ $rc -eq 1 ] || t_fail "coll save of 10,000 nested parentheses: exit $rc"

t_begin hostile_query_db_intact
[ "$(t_integrity "$DB")" = ok ] || t_fail "integrity_check: $(t_integrity "$DB")"
n=$("$CRATE" --db "$DB" list --format '%url%' | wc -l)
[ "$n" -eq "$COUNT" ] || t_fail "$n items after the hostile queries, $COUNT before"

t_end
