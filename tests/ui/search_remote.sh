#!/usr/bin/env bash
# `crate search` answered by a running crate (src/launcher.c, the `cli`
# line of the control socket): with the interface up on the same database
# the launcher prints exactly what crate-core prints, without running
# crate-core; another database, a query error or an argument the line
# protocol cannot carry go to crate-core, so the output is always its own.
. "$(dirname "$0")/../lib.sh"

if ! command -v tmux >/dev/null; then
	t_begin search_remote_setup
	t_skip "needs tmux"
	t_end
	exit $?
fi

. "$SRCDIR/tests/lib_tmux.sh"
tmux_private_env
: >"$CONF"
TM="tmux -L crate-sr-$$ -f /dev/null"
S=sr
trap '$TM kill-server 2>/dev/null; rm -rf "$T_TMP"' EXIT
CORE=$(dirname "$CRATE")/crate-core
# A launcher without crate-core or crate-query beside it: it can only answer
# through the socket (a search no running crate answers execs crate-query).
ALONE=$T_TMP/alone/crate
mkdir -p "$T_TMP/alone" && cp "$CRATE" "$ALONE"
# run CMD...: stdout in $OUT, stderr in $ERR, status in $RC.
run() { "$@" >"$T_TMP/out" 2>"$T_TMP/err"; RC=$?; OUT=$(cat "$T_TMP/out"); ERR=$(cat "$T_TMP/err"); }
same_as_core() { # args...: the launcher and crate-core print the same, exit the same
	run "$CRATE" --db "$DB" --config "$CONF" search "$@"
	local out=$OUT err=$ERR rc=$RC
	run "$CORE" --db "$DB" --config "$CONF" search "$@"
	[ "$out" = "$OUT" ] && [ "$err" = "$ERR" ] && [ "$rc" = "$RC" ] ||
		t_fail "search $*: launcher and crate-core differ (exit $rc vs $RC)"
}

t_begin search_remote_setup
"$CRATE" --db "$DB" scan --quiet "$SRCDIR/data/demo" >/dev/null 2>&1 || t_fail "scan failed"
n=$("$CRATE" --db "$DB" search --format '%id%' 'title~e' | wc -l)
[ "$n" -ge 3 ] || t_fail "the demo library has $n tracks with an e in the title"
$TM new-session -d -s $S -x 100 -y 30 "env LANG=C.UTF-8 TERM=xterm-256color '$CORE' --db '$DB' --config '$CONF'; sleep 30"
wait_for "1 Browser" 10 || t_fail "the interface did not start"
for i in $(seq 100); do "$CRATE" remote ping >/dev/null 2>&1 && break; sleep 0.05; done

t_begin search_remote_answers_without_core
run "$ALONE" --db "$DB" --config "$CONF" search 'title~e'
[ "$RC" -eq 0 ] || t_fail "exit $RC: $ERR"
[ "$OUT" = "$("$CORE" --db "$DB" --config "$CONF" search 'title~e')" ] ||
	t_fail "the running crate's answer differs from crate-core's"
[ "$(echo "$OUT" | wc -l)" -eq "$n" ] || t_fail "$(echo "$OUT" | wc -l) lines, expected $n"
# the database named by a relative path and by a symbolic link is the same file
ln -s "$DB" "$T_TMP/link.db"
(cd "$T_TMP" && "$ALONE" --db link.db search 'title~e') >"$T_TMP/out2" 2>&1 ||
	t_fail "through a symbolic link: $(cat "$T_TMP/out2")"

t_begin search_remote_prints_what_core_prints
same_as_core 'title~e'
same_as_core --json 'title~e'
same_as_core --format '%id%: %artist% / %title%' --order title --limit 3 -- 'title~e'
same_as_core --order -year artist:nobody
same_as_core --limit 0 'title~e'
same_as_core 'title~e' OR 'artist~a'
# what the search forgave, on stderr, through the socket too (it was lost)
same_as_core 'a:bjork'
run "$ALONE" --db "$DB" --config "$CONF" search 'a:bjork'
[ "$RC" -eq 0 ] && [ -n "$OUT" ] || t_fail "a:bjork through the socket: $RC '$OUT'"
case $ERR in "crate: no artist 'bjork'"*) ;; *) t_fail "a:bjork: stderr '$ERR'" ;; esac

t_begin search_remote_errors_come_from_core
same_as_core 'title~('
same_as_core --limit x 'title~e'
same_as_core --bogus 'title~e'
same_as_core
same_as_core --order nosuchfield 'title~e'
run "$ALONE" --db "$DB" search 'title~('
[ "$RC" -eq 1 ] && echo "$ERR" | grep -q "cannot run crate-query" ||
	t_fail "a query error was not left to crate-query: $RC '$ERR'"

t_begin search_remote_only_for_the_same_database
cp "$DB" "$T_TMP/other.db"
run "$ALONE" --db "$T_TMP/other.db" search 'title~e'
[ "$RC" -eq 1 ] && echo "$ERR" | grep -q "cannot run crate-query" ||
	t_fail "another database was answered by the running crate: $RC '$OUT'"
run "$CRATE" --db "$T_TMP/other.db" search 'title~e'
[ "$RC" -eq 0 ] && [ "$(echo "$OUT" | wc -l)" -eq "$n" ] || t_fail "other database: exit $RC"
run "$ALONE" --db "$T_TMP/new.db" search 'title~e'
[ "$RC" -eq 1 ] && [ ! -e "$T_TMP/new.db" ] || t_fail "a missing database was answered: $RC"

t_begin search_remote_unsendable_arguments_go_to_core
run "$ALONE" --db "$DB" search $'title~e\tx'
[ "$RC" -eq 1 ] && echo "$ERR" | grep -q "cannot run crate-query" ||
	t_fail "an argument with a tab was sent: $RC '$ERR'"
same_as_core $'title~e\tx'
long=$(head -c 5000 /dev/zero | tr '\0' 'e')
run "$ALONE" --db "$DB" search "title~$long"
[ "$RC" -eq 1 ] && echo "$ERR" | grep -q "cannot run crate-query" ||
	t_fail "a line over the protocol's limit was sent: $RC"

t_begin search_remote_without_a_running_crate
$TM kill-server 2>/dev/null
for i in $(seq 100); do "$CRATE" remote ping >/dev/null 2>&1 || break; sleep 0.05; done
same_as_core 'title~e'
run "$ALONE" --db "$DB" search 'title~e'
[ "$RC" -eq 1 ] || t_fail "answered with no crate running"

t_end
