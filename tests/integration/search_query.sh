#!/usr/bin/env bash
# crate-query (src/query.c): `crate search` with no running crate runs in a
# program linked with SQLite alone. It loads no FFmpeg, TagLib, ALSA,
# curses or C++ runtime, and on the corpus library it prints what
# crate-core prints, on stdout and stderr with the same exit status, for
# answers, forgiven words, bad queries, bad options, --help and a database
# it cannot open.
. "$(dirname "$0")/../lib.sh"

CORE=$(dirname "$CRATE")/crate-core
QUERY=$(dirname "$CRATE")/crate-query
DB=$T_TMP/corpus.db
# outcome PROGRAM ARGS...: stdout, stderr and status of one run, as text.
outcome() {
	"$@" >"$T_TMP/o" 2>"$T_TMP/e"
	local rc=$?
	printf '== %s\n' "${*:2}"
	cat "$T_TMP/o"
	echo "-- stderr"
	cat "$T_TMP/e"
	echo "-- rc=$rc"
}
CASES=(
	"a:*" "t~a OR t~e" "NOT t~the" "year>1990" "~flac" "g:rock OR g:jazz"
	"t~a ORDER BY -title" "url~wav LIMIT 3" "artist:nobody-at-all" "tilte:x" "t~(" "a:zzqx"
	"--json --order library a:*" "--format %id%|%title%|%rating% --limit 5 a:*"
	"--exact beatels" "beatels" "--order -year,title --limit 7 t~a" "--limit x a:*"
	"--limit -1 a:*" "--bogus a:*" "--help" "" "in:nothere"
)
# answers PROGRAM: every case, then a database that cannot be opened.
answers() {
	local c
	for c in "${CASES[@]}"; do
		# shellcheck disable=SC2086 # the words of a case are its arguments
		outcome "$1" --db "$DB" --config /dev/null search $c
	done
	outcome "$1" --db "$T_TMP/no/such/dir/x.db" --config /dev/null search a:x
	outcome "$1" --db "$DB" --config "$T_TMP/bad.conf" search a:x
}

t_begin search_query_loads_no_media_libraries
if ! command -v readelf >/dev/null; then
	t_skip "needs readelf (binutils)"
else
	needed=$(readelf -d "$QUERY" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
	echo "$needed" | grep -q '^libsqlite3' || t_fail "crate-query does not link SQLite: $needed"
	# a sanitizer build's crate-query adds the sanitizers' runtimes alone
	bad=$(echo "$needed" | grep -vE '^lib(sqlite3|m|c|pthread|asan|ubsan)\.so' | tr '\n' ' ')
	[ -z "$bad" ] || t_fail "crate-query links $bad"
fi
run_direct=$("$QUERY" --db "$DB" list 2>&1)
[ $? -eq 1 ] && echo "$run_direct" | grep -q "run crate" || t_fail "crate-query list: '$run_direct'"

t_begin search_query_same_as_core
if [ ! -d "$CORPUS" ]; then
	t_skip "corpus missing ($CORPUS)"
	t_end
	exit $?
fi
timeout 300 "$CORE" --db "$DB" scan --quiet "$CORPUS" >/dev/null 2>&1
"$CORE" --db "$DB" --config /dev/null coll save fav 'g:rock' >/dev/null 2>&1 || t_fail "coll save"
CASES+=("in:fav")
printf '[library]\nnot a line\n' >"$T_TMP/bad.conf"
answers "$CORE" >"$T_TMP/core"
answers "$CRATE" >"$T_TMP/launcher"
answers "$QUERY" >"$T_TMP/query"
[ "$(grep -c '^-- rc=0' "$T_TMP/core")" -gt 10 ] || t_fail "few cases answered: $(head -c 600 "$T_TMP/core")"
[ "$(grep -c '^-- rc=1' "$T_TMP/core")" -gt 3 ] || t_fail "few cases failed: $(grep -A3 stderr "$T_TMP/core" | head -20)"
diff "$T_TMP/core" "$T_TMP/launcher" >"$T_TMP/diff" || t_fail "crate differs from crate-core: $(head -20 "$T_TMP/diff")"
diff "$T_TMP/core" "$T_TMP/query" >"$T_TMP/diff" || t_fail "crate-query differs from crate-core: $(head -20 "$T_TMP/diff")"

t_end
