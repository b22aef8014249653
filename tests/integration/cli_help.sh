#!/usr/bin/env bash
# Per-command help and usage from the command table (src/cli/): help on
# stdout with exit 0, a wrong option or argument count that command's usage
# on stderr with exit 1. Before the table, `crate coll --help`, `crate
# playlist` and `crate rule bogus` said "unknown command 'coll'", `crate
# info --help` "--help: not in the library" and `crate play --help`
# "unknown option".
. "$(dirname "$0")/../lib.sh"

DB=$T_TMP/lib.db
export HOME=$T_TMP/home XDG_CONFIG_HOME=$T_TMP/home/.config XDG_DATA_HOME=$T_TMP/home/.local/share
mkdir -p "$HOME"
# run ARGS...: crate --db $DB ARGS; stdout in $OUT, stderr in $ERR, status in $RC.
run() { "$CRATE" --db "$DB" "$@" >"$T_TMP/out" 2>"$T_TMP/err"; RC=$?; OUT=$(cat "$T_TMP/out"); ERR=$(cat "$T_TMP/err"); }
# help_ok WHAT FIRST-LINE: exit 0, nothing on stderr, stdout starting with FIRST-LINE.
help_ok() {
	[ "$RC" -eq 0 ] || t_fail "$1: exit $RC (stderr: $ERR)"
	[ -z "$ERR" ] || t_fail "$1: stderr: $ERR"
	[ "$(printf '%s\n' "$OUT" | head -1)" = "$2" ] || t_fail "$1: stdout starts '$(printf '%s\n' "$OUT" | head -1)', not '$2'"
}
# usage_err WHAT LINE...: exit 1, nothing on stdout, each LINE on stderr.
usage_err() {
	local what=$1
	shift
	[ "$RC" -eq 1 ] || t_fail "$what: exit $RC"
	[ -z "$OUT" ] || t_fail "$what: stdout: $OUT"
	for l in "$@"; do
		printf '%s\n' "$ERR" | grep -qxF -- "$l" || t_fail "$what: no line '$l' on stderr: $ERR"
	done
}

t_begin help_lists_every_command
run help
help_ok "help" "crate $("$CRATE" --version | cut -d' ' -f2), a terminal music player built on collections"
[ "$OUT" = "$("$CRATE" --help)" ] || t_fail "crate help differs from crate --help"
for c in "scan" "coll save" "playlist export" "rule add" "analyze" "pshuffle" "help"; do
	printf '%s\n' "$OUT" | grep -q "^  $c " || t_fail "crate help lacks '$c'"
done

t_begin help_of_a_family
run help coll
help_ok "help coll" "crate coll: saved collections"
printf '%s\n' "$OUT" | grep -q '^  coll save NAME QUERY ' || t_fail "help coll lacks coll save: $OUT"
printf '%s\n' "$OUT" | grep -q '^  playlist' && t_fail "help coll lists playlist commands"
help_coll=$OUT
run coll --help
help_ok "coll --help" "crate coll: saved collections"
[ "$OUT" = "$help_coll" ] || t_fail "coll --help differs from help coll"

t_begin help_of_one_command
run coll save --help
help_ok "coll save --help" "usage: crate coll save NAME QUERY"
[ ! -e "$DB" ] || t_fail "help opened the library"
run help coll save
help_ok "help coll save" "usage: crate coll save NAME QUERY"
run info --help
help_ok "info --help" "usage: crate info [--json] ID|PATH..."
printf '%s\n' "$OUT" | grep -q -- "--json" || t_fail "info --help lacks its option"
run play --help
help_ok "play --help" "usage: crate play --no-ui [--device D] [--exact] QUERY|Playlists/NAME|FILE..."
printf '%s\n' "$OUT" | grep -q -- "--device D" || t_fail "play --help lacks --device"
run search -h
help_ok "search -h" "usage: crate search QUERY [--format F] [--json] [--order FIELDS|library] [--limit N] [--exact]"
# pshuffle's help said "created or replaced" of a list whose entries stay,
# and gave no defaults.
run pshuffle --help
help_ok "pshuffle --help" "usage: crate pshuffle NAME QUERY [--upcoming N] [--history N] [--mode random|smooth] [--drift D]"
printf '%s\n' "$OUT" | grep -q "replaced" && t_fail "pshuffle --help says replaced: $OUT"
printf '%s\n' "$OUT" | grep -q "keeps its entries and mode" || t_fail "pshuffle --help: $OUT"
printf '%s\n' "$OUT" | grep -q -- "--drift D .*wanders (0.3)" || t_fail "no default drift: $OUT"
run help nonesuch
usage_err "help nonesuch" "crate: help: no command 'nonesuch' (see crate help)"

t_begin group_word_without_a_command
run playlist
usage_err "playlist" "crate: 'playlist' needs a command" "crate playlist: playlists"
printf '%s\n' "$ERR" | grep -q '^  playlist new NAME' || t_fail "playlist: no command list: $ERR"
run rule bogus
usage_err "rule bogus" "crate: unknown command 'rule bogus'"
printf '%s\n' "$ERR" | grep -q '^  rule add ' || t_fail "rule bogus: no rule commands: $ERR"
run nonesuch
usage_err "nonesuch" "crate: unknown command 'nonesuch' (see crate --help)"

# `crate roots list` said only "usage: crate roots": a word after a command
# that takes none and heads a family is a guessed sub-command.
t_begin a_guessed_subcommand_names_itself_and_lists_the_family
run roots list
usage_err "roots list" "crate: unknown command 'roots list'"
printf '%s\n' "$ERR" | grep -q '^  roots remove ' || t_fail "roots list: no roots commands: $ERR"

t_begin wrong_option_or_count_gives_that_commands_usage
run coll save --bogus X y
usage_err "coll save --bogus" "crate: coll save: unknown option '--bogus'" "usage: crate coll save NAME QUERY"
run coll save OnlyName
usage_err "coll save NAME" "usage: crate coll save NAME QUERY"
run coll rename A B C
usage_err "coll rename A B C" "usage: crate coll rename OLD NEW"
run list --format
usage_err "list --format" "crate: list: option '--format' needs a value" "usage: crate list [--format '%artist% - %title%'] [--json]"
run info --json=yes 1
usage_err "info --json=yes" "crate: info: option '--json' takes no value" "usage: crate info [--json] ID|PATH..."
[ ! -e "$DB" ] || t_fail "a usage error opened the library"

t_begin options_in_their_usual_forms
run coll save Later 'a:x'
[ "$RC" -eq 0 ] || t_fail "coll save: $RC $ERR"
run list --format='%title%'
[ "$RC" -eq 0 ] || t_fail "list --format=F: $RC $ERR"
run coll show --json Later
[ "$RC" -eq 0 ] && printf '%s\n' "$OUT" | grep -q '"type"' || t_fail "coll show --json: $RC $OUT $ERR"
run coll show Later --json
[ "$RC" -eq 0 ] && printf '%s\n' "$OUT" | grep -q '"type"' || t_fail "coll show NAME --json: $RC $OUT"
run coll remove -f Later
[ "$RC" -eq 0 ] || t_fail "coll remove -f: $RC $ERR"
# an option after the query is an option (it used to become a query word)
run parse 'a:x OR a:y' --canonical
[ "$RC" -eq 0 ] && [ "$OUT" = "artist:x OR artist:y" ] || t_fail "parse QUERY --canonical: $RC '$OUT' $ERR"

t_end
