#!/usr/bin/env bash
# The launcher (src/launcher.c): `crate --version`, `--help` and `remote`
# are answered by a program that loads no FFmpeg, TagLib, ALSA, ncurses or
# SQLite; `search` runs crate-query and every other command crate-core,
# with the same arguments, found next to crate (build tree) or in
# ../libexec/crate/ (installed tree).
. "$(dirname "$0")/../lib.sh"

CORE=$(dirname "$CRATE")/crate-core
# run CMD...: stdout in $OUT, stderr in $ERR, status in $RC.
run() { "$@" >"$T_TMP/out" 2>"$T_TMP/err"; RC=$?; OUT=$(cat "$T_TMP/out"); ERR=$(cat "$T_TMP/err"); }

t_begin launcher_loads_no_media_libraries
if ! command -v readelf >/dev/null; then
	t_skip "needs readelf (binutils)"
else
	needed=$(readelf -d "$CRATE" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
	[ -n "$needed" ] || t_fail "readelf found no NEEDED entries in $CRATE"
	bad=$(echo "$needed" | grep -E '^lib(av|sw|asound|tag|ncurses|tinfo|sqlite|stdc\+\+)' | tr '\n' ' ')
	[ -z "$bad" ] || t_fail "crate links $bad (one-shot commands would load them)"
fi

t_begin launcher_version_and_help_match_core
run "$CRATE" --version
[ "$RC" -eq 0 ] && [ "$OUT" = "$("$CORE" --version)" ] || t_fail "--version: '$OUT' (exit $RC)"
run "$CRATE" --help
[ "$RC" -eq 0 ] || t_fail "--help: exit $RC"
[ "$OUT" = "$("$CORE" --help)" ] || t_fail "--help differs from crate-core --help"
echo "$OUT" | grep -q "remote play|pause" || t_fail "--help lacks the command list"
run "$CRATE" --db "$T_TMP/x.db" -h
[ "$RC" -eq 0 ] && [ "$OUT" = "$("$CORE" --help)" ] || t_fail "-h after --db: exit $RC"
[ ! -e "$T_TMP/x.db" ] || t_fail "--help created the database"

t_begin launcher_bad_options
run "$CRATE" --bogus
[ "$RC" -eq 1 ] || t_fail "--bogus: exit $RC"
echo "$ERR" | head -1 | grep -q "^crate: unknown option '--bogus'" || t_fail "--bogus: $ERR"
echo "$ERR" | grep -q "^usage: crate" || t_fail "--bogus: no help on stderr"
run "$CRATE" --db
[ "$RC" -eq 1 ] && [ "$ERR" = "crate: --db needs a path" ] || t_fail "--db without a path: $RC '$ERR'"

t_begin launcher_remote_without_crate
mkdir -p "$T_TMP/run" && chmod 700 "$T_TMP/run"
run env XDG_RUNTIME_DIR="$T_TMP/run" "$CRATE" remote status
[ "$RC" -eq 1 ] || t_fail "remote status with no crate running: exit $RC"
echo "$ERR" | grep -q "no running crate" || t_fail "remote status: $ERR"
run env XDG_RUNTIME_DIR="$T_TMP/run" "$CRATE" remote bogus
[ "$RC" -eq 1 ] && echo "$ERR" | grep -q "unknown command 'bogus'" || t_fail "remote bogus: $RC $ERR"
echo "$ERR" | grep -q "^usage: crate remote" || t_fail "remote bogus: no usage: $ERR"

t_begin launcher_remote_search_refuses_options_of_search
# crate remote search lanterns --json sent "lanterns --json" as the query:
# the running crate answered "0 tracks" and showed that search. An option
# of crate search is refused before anything is sent; after -- it is a word.
run env XDG_RUNTIME_DIR="$T_TMP/run" "$CRATE" remote search lanterns --json
[ "$RC" -eq 1 ] || t_fail "remote search ... --json: exit $RC"
echo "$ERR" | grep -q "remote search: '--json' is not a query word" || t_fail "--json: $ERR"
run env XDG_RUNTIME_DIR="$T_TMP/run" "$CRATE" remote search --format %title% lanterns
echo "$ERR" | grep -q "'--format' is not a query word" || t_fail "--format: $ERR"
run env XDG_RUNTIME_DIR="$T_TMP/run" "$CRATE" remote search -- --json
[ "$RC" -eq 1 ] && echo "$ERR" | grep -q "no running crate" || t_fail "-- --json: $RC $ERR"
run env XDG_RUNTIME_DIR="$T_TMP/run" "$CRATE" remote search --
echo "$ERR" | grep -q "^usage: crate remote" || t_fail "search with only --: $ERR"

t_begin launcher_runs_core_commands
run "$CRATE" --db "$T_TMP/lib.db" --config /dev/null search 'artist:nobody'
[ "$RC" -eq 0 ] && [ -z "$OUT" ] || t_fail "search through the launcher: exit $RC, '$OUT' '$ERR'"
[ -f "$T_TMP/lib.db" ] || t_fail "search did not open the database"
run "$CRATE" --db "$T_TMP/lib.db" frobnicate
[ "$RC" -eq 1 ] && echo "$ERR" | grep -q "unknown command 'frobnicate'" || t_fail "frobnicate: $RC '$ERR'"

t_begin launcher_finds_installed_core
# The layout `make install` writes: PREFIX/bin/crate,
# PREFIX/libexec/crate/crate-core and crate-query.
P=$T_TMP/prefix
mkdir -p "$P/bin" "$P/libexec/crate"
cp "$CRATE" "$P/bin/crate" && cp "$CORE" "$P/libexec/crate/crate-core" &&
	cp "$(dirname "$CRATE")/crate-query" "$P/libexec/crate/crate-query"
run "$P/bin/crate" --db "$T_TMP/lib.db" --config /dev/null search 'artist:nobody'
[ "$RC" -eq 0 ] || t_fail "installed layout: exit $RC '$ERR'"
rm "$P/libexec/crate/crate-core"
run "$P/bin/crate" --db "$T_TMP/lib.db" list
[ "$RC" -eq 1 ] || t_fail "without crate-core: exit $RC"
echo "$ERR" | grep -q "^crate: cannot run crate-core" || t_fail "without crate-core: '$ERR'"
run "$P/bin/crate" --db "$T_TMP/lib.db" --config /dev/null search 'artist:nobody'
[ "$RC" -eq 0 ] || t_fail "search needs crate-query, not crate-core: exit $RC '$ERR'"
rm "$P/libexec/crate/crate-query"
run "$P/bin/crate" --db "$T_TMP/lib.db" search x
[ "$RC" -eq 1 ] && echo "$ERR" | grep -q "^crate: cannot run crate-query" ||
	t_fail "without crate-query: exit $RC '$ERR'"
run "$P/bin/crate" --version
[ "$RC" -eq 0 ] || t_fail "--version needs no crate-core: exit $RC"

t_end
