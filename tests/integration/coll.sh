#!/usr/bin/env bash
# The collection commands end to end on a library scanned from data/demo:
# search, coll save/show/list/rename/remove/export/import, playlist
# new/add/insert/move/remove/list/clear/shuffle/sort/use, pshuffle. Checks
# output and exit statuses (0 ok, 1 bad input), and that nothing from a
# tag or name reaches the terminal raw.
. "$(dirname "$0")/../lib.sh"

DB=$T_TMP/coll.db
c() { "$CRATE" --db "$DB" --config /dev/null "$@"; }
# run CMD...: stdout in $OUT, stderr in $ERR, status in $RC.
run() { c "$@" >"$T_TMP/out" 2>"$T_TMP/err"; RC=$?; OUT=$(cat "$T_TMP/out"); ERR=$(cat "$T_TMP/err"); }
expect_rc() { [ "$RC" -eq "$1" ] || t_fail "$2: exit $RC, expected $1 (stderr: $(head -c 300 "$T_TMP/err"))"; }
lines() { if [ -z "$1" ]; then echo 0; else printf '%s\n' "$1" | wc -l; fi; }
has_ctl() { LC_ALL=C grep -q $'[\x01-\x09\x0b-\x1f\x7f]' "$1"; }
json_ok() { [ "$(sqlite3 :memory: "SELECT json_valid(readfile('$1'))")" = 1 ]; }

t_begin coll_setup_library
if ! command -v sqlite3 >/dev/null; then t_skip "needs the sqlite3 command-line tool"; t_end; exit $?; fi
MUSIC=$SRCDIR/data/demo
if [ ! -d "$MUSIC" ]; then
	# No demo library: a few tagged files made on the spot.
	if ! command -v ffmpeg >/dev/null; then t_skip "needs data/demo or ffmpeg"; t_end; exit $?; fi
	MUSIC=$T_TMP/music; mkdir -p "$MUSIC"
	mk() { ffmpeg -v error -y -f lavfi -i "sine=frequency=$1:duration=0.3" -ac 1 \
		-metadata artist="$2" -metadata album="$3" -metadata title="$4" -metadata genre="$5" \
		-metadata date="$6" -metadata track="$7" "$MUSIC/$8"; }
	mk 300 "Mira Sol" "Late Trains" "Stairway Down" Pop 2001 1 a1.mp3
	mk 310 "Mira Sol" "Late Trains" "Track 10" Pop 2001 2 a2.mp3
	mk 320 "The Lanterns" "Harbour Lights" "Harbour Lights" Rock 1994 1 b1.flac
	mk 330 "The Lanterns" "Harbour Lights" "Salt Wind" Rock 1994 2 b2.flac
	mk 340 "The Lanterns" "Harbour Lights" "Morning (Morning mix)" Rock 1994 3 b3.ogg
	mk 350 "The Beatniks" "Circuit Songs" "Beat Street" Electronic 2024 2 c2.ogg
fi
c scan --quiet "$MUSIC" >/dev/null 2>&1 || t_fail "scan failed"
run search '*'
expect_rc 0 "search *"
NALL=$(lines "$OUT")
# Every file is a track: 12 in data/demo, 6 made on the spot.
nfiles=$(find "$MUSIC" -type f | wc -l)
[ "$NALL" -eq "$nfiles" ] || t_fail "$NALL items in the library, expected $nfiles"

t_begin coll_search_prints_matches
run search 'a:"Mira Sol"'
expect_rc 0 "search Mira Sol"
[ "$(lines "$OUT")" -eq 2 ] || t_fail "expected 2 Mira Sol tracks, got: $OUT"
case $OUT in *"Mira Sol - Late Trains - "*) ;; *) t_fail "default format: $OUT" ;; esac
run search 'a:"mira sol"' --format '%title%|%tracknr%'
[ "$(printf '%s\n' "$OUT" | head -1)" = "Stairway Down|1" ] || t_fail "--format: $OUT"
run search '*' --order -title --limit 2 --format '%title%'
expect_rc 0 "order/limit"
[ "$(lines "$OUT")" -eq 2 ] || t_fail "--limit 2 gave: $OUT"
first=$(c search '*' --format '%title%' | sort -r | head -1)
[ "$(printf '%s\n' "$OUT" | head -1)" = "$first" ] || t_fail "--order -title: $OUT (want $first first)"
c search '*' --json >"$T_TMP/s.json"
json_ok "$T_TMP/s.json" || t_fail "search --json is not valid JSON"
n=$(sqlite3 :memory: "SELECT json_array_length(readfile('$T_TMP/s.json'))")
[ "$n" -eq "$NALL" ] || t_fail "--json has $n items, expected $NALL"
# Two words unquoted are one query.
run search Harbour Lights --format '%title%'
want="Harbour Lights
Salt Wind
Morning (Morning mix)"
[ "$OUT" = "$want" ] || t_fail "search Harbour Lights (the album's three tracks, best first): $OUT"

t_begin coll_search_bad_input_exits_1
run search 'artist:'
expect_rc 1 "incomplete query"
case $ERR in *"col "*) ;; *) t_fail "no column in: $ERR" ;; esac
run search 'in:Nope'
expect_rc 1 "missing reference"
case $ERR in *Nope*) ;; *) t_fail "missing collection not named: $ERR" ;; esac
run search
expect_rc 1 "no query"
case $ERR in *usage:*) ;; *) t_fail "no usage line: $ERR" ;; esac
run search '*' --limit lots
expect_rc 1 "--limit lots"
run search '*' --order ''
expect_rc 1 "--order ''"
run search $'a:\e[31mred('
expect_rc 1 "query with an escape"
has_ctl "$T_TMP/err" && t_fail "control bytes echoed to the terminal"

t_begin coll_save_show_list
run coll save "Rock 90s" 'g:Rock y:1990..1999'
expect_rc 0 "coll save"
run coll show "Rock 90s"
expect_rc 0 "coll show"
SHOWN=$OUT
[ -n "$SHOWN" ] || t_fail "coll show printed nothing"
a=$(c search 'in:"Rock 90s"'); b=$(c search "$SHOWN")
[ -n "$a" ] && [ "$a" = "$b" ] || t_fail "shown query '$SHOWN' differs from the saved one"
run coll list
expect_rc 0 "coll list"
printf '%s\n' "$OUT" | grep -qx 'Collections/Rock 90s' || t_fail "coll list: $OUT"
printf '%s\n' "$OUT" | grep -qx 'Playlists/Default' || t_fail "no Default playlist: $OUT"
run coll list Playlists
[ "$OUT" = Default ] || t_fail "coll list Playlists: $OUT"
run coll list Elsewhere
expect_rc 1 "unknown namespace"
run coll show --json "Rock 90s"
printf '%s' "$OUT" >"$T_TMP/r.json"
json_ok "$T_TMP/r.json" || t_fail "coll show --json: $OUT"
# Save replaces.
c coll save "Rock 90s" 'g:Rock' || t_fail "re-save"
[ "$(c coll list Collections | grep -c 'Rock 90s')" -eq 1 ] || t_fail "save duplicated"
c coll save "Rock 90s" 'g:Rock y:1990..1999'
run coll save "Bad" 'a:'
expect_rc 1 "saving a bad query"
run coll save "Bad" 'in:Nowhere'
expect_rc 1 "saving a dangling reference"
run coll save $'Esc\e[2J' '*'
expect_rc 1 "name with control characters"
has_ctl "$T_TMP/err" && t_fail "control bytes echoed"
run coll save
expect_rc 1 "coll save without arguments"

t_begin coll_rename_rewrites_references
c coll save Sub 'in:"Rock 90s" t~light' || t_fail "save Sub"
before=$(c search in:Sub)
run coll rename "Rock 90s" Nineties
expect_rc 0 "rename"
run coll show Sub
case $OUT in *Nineties*) ;; *) t_fail "reference not rewritten: $OUT" ;; esac
[ "$(c search in:Sub)" = "$before" ] || t_fail "results of Sub changed after rename"
run coll show "Rock 90s"
expect_rc 1 "old name still there"
run coll rename Nineties Sub
expect_rc 1 "rename onto an existing name"
run coll rename Nineties Playlists/Nineties
expect_rc 1 "rename across namespaces"

t_begin coll_a_plain_list_cannot_become_the_queue
# crate coll rename Playlists/Road Queue made Road the play queue (found
# by its name), a plain list whose entries then went one by one as they
# played; coll import of a plain list as Playlists/Queue did the same. A
# rename is refused, saying how to queue the tracks; an import makes a
# queue list, as playlist new Queue does; a queue list may take the name.
c playlist new QRoad >/dev/null 2>&1 && c playlist add QRoad '*' >/dev/null 2>&1 || t_fail "playlist"
c coll remove Playlists/Queue >/dev/null 2>&1
run coll rename Playlists/QRoad Queue
expect_rc 1 "rename of a plain list to Queue"
[ "$ERR" = "crate: Playlists/Queue is the play queue: only a queue list can take its name (crate playlist add Queue 'in:\"Playlists/QRoad\"' queues its tracks)" ] ||
	t_fail "rename says: $ERR"
c coll list | grep -qx 'Playlists/QRoad' || t_fail "QRoad is gone: $(c coll list)"
c coll export Playlists/QRoad "$T_TMP/qroad.json" >/dev/null 2>&1 || t_fail "export"
run coll import Playlists/Queue "$T_TMP/qroad.json"
expect_rc 0 "import as Queue"
c coll show Playlists/Queue | grep -q '"type": "queue"' || t_fail "imported as a plain list: $(c coll show Playlists/Queue)"
c coll remove Playlists/Queue >/dev/null 2>&1
echo '{"type": "match", "attributes": {"field": "artist", "value": "x"}, "operands": [{"type": "universe"}]}' >"$T_TMP/q.json"
run coll import Playlists/Queue "$T_TMP/q.json"
expect_rc 1 "a query imported as Queue"
c playlist new QLater --queue >/dev/null 2>&1 || t_fail "playlist new --queue"
run coll rename Playlists/QLater Queue
expect_rc 0 "rename of a queue list to Queue"
c coll remove Playlists/Queue >/dev/null 2>&1 # the queue is made on first use below

t_begin coll_pshuffle_refuses_the_queue
# crate pshuffle Queue '*' made the play queue (found by its name) a Party
# Shuffle, silently: its random picks played before everything, refilled
# without end.
run pshuffle Queue '*'
expect_rc 1 "pshuffle Queue"
[ "$ERR" = "crate: Playlists/Queue is the play queue: it cannot be a Party Shuffle (give the Party Shuffle another name)" ] ||
	t_fail "says: $ERR"
c coll list | grep -qx 'Playlists/Queue' && t_fail "a Queue was made: $(c coll show Playlists/Queue)"

t_begin coll_remove_refused_then_forced
run coll remove Nineties
expect_rc 1 "remove with referrers"
case $ERR in *Collections/Sub*) ;; *) t_fail "referrer not listed: $ERR" ;; esac
run coll remove --force Nineties
expect_rc 0 "remove --force"
[ "$(c search in:Sub)" = "$before" ] || t_fail "results of Sub changed after forced remove"
c coll list | grep -q Nineties && t_fail "Nineties still listed"
run coll remove Nineties
expect_rc 1 "remove a missing collection"

t_begin coll_all_media_and_cycles
run coll save "All Media" 'a:x'
expect_rc 1 "save over All Media"
run coll remove "All Media"
expect_rc 1 "remove All Media"
run coll show "All Media"
expect_rc 0 "show All Media"
c coll save A '*' && c coll save B 'in:A a:x' || t_fail "save A, B"
run coll save A 'in:B'
expect_rc 1 "indirect cycle"
case $ERR in *cycle*) ;; *) t_fail "cycle not explained: $ERR" ;; esac
run coll save A 'in:A'
expect_rc 1 "direct cycle"

t_begin coll_export_import_round_trip
run coll export Sub "$T_TMP/sub.json"
expect_rc 0 "export to a file"
json_ok "$T_TMP/sub.json" || t_fail "exported file is not JSON"
run coll import Copy "$T_TMP/sub.json"
expect_rc 0 "import"
[ "$(c coll show Copy)" = "$(c coll show Sub)" ] || t_fail "import differs from export"
[ "$(c coll export Copy)" = "$(cat "$T_TMP/sub.json")" ] || t_fail "export to stdout differs"
c coll export Copy | c coll import FromStdin - || t_fail "import from stdin"
printf '{"type":"union","operands":[{"type":"foo"}]}' >"$T_TMP/bad.json"
run coll import Bad "$T_TMP/bad.json"
expect_rc 1 "import of a bad type"
case $ERR in *bad.json*"operands[0].type: unknown type 'foo'"*) ;; *) t_fail "import error: $ERR" ;; esac
run coll import Bad "$T_TMP/missing.json"
expect_rc 1 "import of a missing file"
run coll import Playlists/Q "$T_TMP/sub.json"
expect_rc 1 "a query imported as a playlist"
printf '{"type":"pshuffle","operands":[{"type":"universe"}],"idlist":[1,2]}' >"$T_TMP/ps.json"
run coll import Playlists/FromXmms2 "$T_TMP/ps.json"
expect_rc 0 "XMMS2 pshuffle shape"
run coll export "$T_TMP/x.json"
expect_rc 1 "export of a namespace-less path name"

t_begin coll_import_refuses_an_existing_name
# As playlist import does: replacing a saved one (here one that another
# collection uses) takes --force.
c coll save UsesCopy 'in:Copy' || t_fail "save UsesCopy"
before=$(c coll show Copy)
printf '{"type":"universe"}' >"$T_TMP/all.json"
run coll import Copy "$T_TMP/all.json"
expect_rc 1 "import over an existing collection"
case $ERR in *"Collections/Copy exists"*--force*) ;; *) t_fail "message: $ERR" ;; esac
[ "$(c coll show Copy)" = "$before" ] || t_fail "replaced without --force: $(c coll show Copy)"
run coll import Playlists/FromXmms2 "$T_TMP/ps.json"
expect_rc 1 "import over an existing playlist"
run coll import --force Copy "$T_TMP/all.json"
expect_rc 0 "import --force"
[ "$(c coll show Copy)" != "$before" ] || t_fail "--force did not replace"

t_begin coll_playlist_edits
run playlist new Road
expect_rc 0 "playlist new"
run playlist new Road
expect_rc 1 "playlist new twice"
run playlist add Road 'a:"Mira Sol"'
expect_rc 0 "playlist add"
run playlist insert Road 1 't:"Salt Wind"'
expect_rc 0 "playlist insert"
run playlist list Road --format '%title%'
[ "$(printf '%s\n' "$OUT" | sed 's/^ *[0-9]*\. //')" = "Salt Wind
Stairway Down
Track 10" ] || t_fail "after add+insert: $OUT"
run playlist move Road 1 3
expect_rc 0 "move"
run playlist list Road --format '%title%'
[ "$(printf '%s\n' "$OUT" | sed 's/^ *[0-9]*\. //' | tail -1)" = "Salt Wind" ] || t_fail "move: $OUT"
run playlist sort Road -title
expect_rc 0 "sort"
run playlist list Road --format '%title%'
[ "$(printf '%s\n' "$OUT" | sed 's/^ *[0-9]*\. //' | head -1)" = "Track 10" ] || t_fail "sort -title: $OUT"
run playlist remove Road 1,3
expect_rc 0 "remove 1,3"
run playlist list Road --format '%title%'
[ "$(lines "$OUT")" -eq 1 ] || t_fail "after remove: $OUT"
run playlist remove Road 5
expect_rc 1 "remove past the end"
run playlist remove Road 2-1
expect_rc 1 "reversed range"
run playlist add Nope '*'
expect_rc 1 "add to a missing playlist"
run playlist add Collections/Sub '*'
expect_rc 1 "a collection is not a playlist"
run playlist list Road --json
printf '%s' "$OUT" >"$T_TMP/pl.json"
json_ok "$T_TMP/pl.json" || t_fail "playlist list --json: $OUT"
run playlist clear Road
expect_rc 0 "clear"
run playlist list Road
[ -z "$OUT" ] || t_fail "clear left: $OUT"
run playlist move Road 1 2
expect_rc 1 "move in an empty list"

t_begin coll_active_playlist
run playlist add '*'
expect_rc 0 "add to the active playlist"
[ "$(c playlist list Default | wc -l)" -eq "$NALL" ] || t_fail "Default is not the active playlist"
run playlist use Road
expect_rc 0 "use"
c playlist add 't:"Beat Street"' 2>/dev/null
[ "$(c playlist list Road | wc -l)" -eq 1 ] || t_fail "add did not go to the active Road"
run coll remove Playlists/Road
expect_rc 1 "remove the active playlist"
run playlist use Nope
expect_rc 1 "use a missing playlist"
run playlist shuffle
expect_rc 0 "shuffle the active playlist"
c playlist use Default
run playlist shuffle Default
[ "$(c playlist list Default --format '%id%' | sed 's/^ *[0-9]*\. //' | sort -n)" = \
  "$(c search '*' --format '%id%' | sort -n)" ] || t_fail "shuffle lost or added entries"

t_begin coll_playlist_add_makes_the_queue_on_first_use
# Playlists/Queue is made on first use, by `e` in the interface and by
# the command line alike: a script can queue on a library that never did.
c coll show Playlists/Queue >/dev/null 2>&1 && t_fail "the queue exists before its first use"
run playlist add Queue 't:"Beat Street"'
expect_rc 0 "add to a queue never used"
[ "$(c playlist list Queue --format '%title%' | sed 's/^ *[0-9]*\. //')" = "Beat Street" ] ||
	t_fail "queue entries: $(c playlist list Queue)"
c coll show Playlists/Queue | grep -q '"type": "queue"' || t_fail "not a queue list: $(c coll show Playlists/Queue)"
run playlist add Nope 't:"Beat Street"'
expect_rc 1 "add to another playlist that does not exist"
grep -q "Playlists/Nope does not exist" <<<"$ERR" || t_fail "message: $ERR"

t_begin coll_pshuffle_fills_without_repeats
run pshuffle Party '*' --upcoming 5
expect_rc 0 "pshuffle"
ids=$(c playlist list Party --format '%id%' | sed 's/^ *[0-9]*\. //')
[ "$(lines "$ids")" -eq 5 ] || t_fail "Party has $(lines "$ids") entries, expected 5"
[ "$(printf '%s\n' "$ids" | sort -u | wc -l)" -eq 5 ] || t_fail "duplicates in Party: $ids"
run coll show Playlists/Party
case $OUT in *pshuffle*) ;; *) t_fail "not a pshuffle: $OUT" ;; esac
# A source smaller than the list: accepted, each source item at most once.
run pshuffle Small 'a:"Mira Sol"' --upcoming 5
expect_rc 0 "pshuffle over 2 tracks"
ids=$(c playlist list Small --format '%id%' | sed 's/^ *[0-9]*\. //')
[ "$(lines "$ids")" -eq 2 ] || t_fail "Small has $(lines "$ids") entries"
[ -z "$(printf '%s\n' "$ids" | sort | uniq -d)" ] || t_fail "a track twice: $ids"
# A source that matches nothing: a warning, not silence.
run pshuffle Nothing 'a:"Nobody At All"'
expect_rc 0 "pshuffle over nothing"
printf '%s\n' "$ERR" | grep -q "warning: .*matches nothing" || t_fail "no warning: $ERR"
# --history N and playlist new --queue make the list types JSON import made.
run pshuffle Hist '*' --history 3
expect_rc 0 "pshuffle --history"
run coll show Playlists/Hist
case $OUT in *'"history": "3"'*) ;; *) t_fail "no history in: $OUT" ;; esac
run playlist new Later --queue
expect_rc 0 "playlist new --queue"
run coll show Playlists/Later
case $OUT in *'"type": "queue"'*) ;; *) t_fail "not a queue: $OUT" ;; esac
# `playlist new Queue` without --queue made a plain list that still acted
# as the queue (found by name): the list named Queue is always the queue.
run coll remove Playlists/Queue
run playlist new Queue
expect_rc 0 "playlist new Queue"
printf '%s\n' "$ERR" | grep -qxF "created Playlists/Queue (the queue: played entries are removed)" ||
	t_fail "playlist new Queue said: $ERR"
run coll show Playlists/Queue
case $OUT in *'"type": "queue"'*) ;; *) t_fail "Queue is not a queue: $OUT" ;; esac
run pshuffle Hist2 '*' --history -1
expect_rc 1 "--history -1"
run pshuffle Road '*'
expect_rc 1 "pshuffle over an ordinary playlist"
run pshuffle Party2 'a:'
expect_rc 1 "pshuffle with a bad query"
run pshuffle Party2 '*' --upcoming 0
expect_rc 1 "--upcoming 0"

t_begin coll_pshuffle_keeps_the_configured_upcoming
# [pshuffle] upcoming is the size of a Party Shuffle made without --upcoming.
printf '[pshuffle]\nupcoming = 3\n' >"$T_TMP/ps.cfg"
"$CRATE" --db "$DB" --config "$T_TMP/ps.cfg" pshuffle Conf '*' >/dev/null 2>&1 ||
	t_fail "pshuffle with a config"
run playlist list Conf
[ "$(lines "$OUT")" -eq 3 ] || t_fail "[pshuffle] upcoming = 3 gave $(lines "$OUT") entries"
run pshuffle Conf2 '*' --upcoming 4
run playlist list Conf2
[ "$(lines "$OUT")" -eq 4 ] || t_fail "--upcoming 4 gave $(lines "$OUT") entries"

t_begin coll_playlist_jump_sets_the_jumplist
c playlist new JumpFrom >/dev/null 2>&1
c playlist new JumpTo >/dev/null 2>&1
run playlist jump JumpFrom JumpTo
expect_rc 0 "playlist jump"
run coll show Playlists/JumpFrom
case $OUT in *'"jumplist": "JumpTo"'*) ;; *) t_fail "no jumplist in: $OUT" ;; esac
run playlist jump JumpFrom Nowhere
expect_rc 1 "a jump to a missing playlist"
printf '%s\n' "$ERR" | grep -q 'Playlists/Nowhere does not exist' || t_fail "unclear message: $ERR"
run playlist jump JumpFrom --none
expect_rc 0 "playlist jump --none"
run coll show Playlists/JumpFrom
case $OUT in *jumplist*) t_fail "jumplist not cleared: $OUT" ;; esac

# playlist add / insert and rate act on what `crate search` lists for the
# same query: forgiven as search forgives it (a typo, field:value falling
# back to words), said the same way on stderr; --exact takes it as written.
t_begin coll_query_commands_forgive_as_search
c playlist new Forgive 2>/dev/null
run playlist add Forgive lantrens
expect_rc 0 "playlist add with a typo"
case $ERR in *"also showing matches for lanterns"*) ;; *) t_fail "add did not say what it forgave: $ERR" ;; esac
want=$(c search --order library lantrens --format '%id%' 2>/dev/null)
got=$(c playlist list Forgive --format '%id%' | sed 's/^ *[0-9]*\. //')
[ -n "$want" ] && [ "$got" = "$want" ] || t_fail "playlist add lantrens added [$got], search lists [$want]"
run playlist insert Forgive 1 a:mira
expect_rc 0 "playlist insert with field:value"
case $ERR in *"no artist 'mira'"*) ;; *) t_fail "insert did not say what it forgave: $ERR" ;; esac
want=$(c search --order library a:mira --format '%id%' 2>/dev/null)
got=$(c playlist list Forgive --format '%id%' | sed 's/^ *[0-9]*\. //' | head -2)
[ "$(lines "$want")" -eq 2 ] && [ "$got" = "$want" ] || t_fail "insert a:mira put [$got] first, search lists [$want]"
run playlist add Forgive --exact lantrens
expect_rc 1 "playlist add --exact (nothing matches)"
case $ERR in "crate: nothing matches 'lantrens': nothing added to Playlists/Forgive") ;; *) t_fail "--exact forgave: $ERR" ;; esac
run rate a:mira 4
expect_rc 0 "rate with field:value"
case $ERR in *"no artist 'mira'"*"rated 2 tracks 4"*) ;; *) t_fail "rate a:mira: $ERR" ;; esac
[ "$(c search 'a:"Mira Sol" r:4' --format '%id%' | wc -l)" -eq 2 ] || t_fail "rate a:mira did not rate Mira Sol"
run rate --exact a:mira 3
expect_rc 1 "rate --exact finds nothing"
c rate a:mira 0 2>/dev/null

# info of several items, some not in the library: those found are printed,
# the others named on stderr, and the exit status is 2 (done, some items
# failed), as the exit statuses promise; 1 only when none was found.
t_begin coll_info_of_some_missing_items_exits_2
id=$(c search 't:"Salt Wind"' --format '%id%')
for json in "" --json; do
	# shellcheck disable=SC2086 # an empty $json is no argument
	run info $json "$id" 99999
	expect_rc 2 "info $json $id 99999"
	case $OUT in *"Salt Wind"*) ;; *) t_fail "info $json $id 99999 did not print $id: $OUT" ;; esac
	case $ERR in *"#99999 is not in the library"*) ;; *) t_fail "info $json: unclear message: $ERR" ;; esac
	# shellcheck disable=SC2086
	run info $json 99999 /no/such/file.ogg
	expect_rc 1 "info $json of nothing in the library"
	# shellcheck disable=SC2086
	run info $json "$id"
	expect_rc 0 "info $json $id"
done

# A sort field no track has is a typo that would sort nothing: playlist
# sort and search --order refuse it (exit 1, saying so), as coll levels
# does; play statistics sort even before anything was played.
t_begin coll_sort_by_a_field_no_track_has_is_refused
c playlist new Sorted 2>/dev/null
c playlist add Sorted '*' 2>/dev/null
before=$(c playlist list Sorted --format '%id%')
run playlist sort Sorted artsit
expect_rc 1 "playlist sort artsit"
case $ERR in *"no track in the library has 'artsit' (a typo?)"*) ;; *) t_fail "unclear message: $ERR" ;; esac
[ "$(c playlist list Sorted --format '%id%')" = "$before" ] || t_fail "the refused sort changed the list"
run search '*' --order -yaer
expect_rc 1 "search --order -yaer"
case $ERR in *"no track in the library has 'yaer'"*) ;; *) t_fail "search --order: unclear message: $ERR" ;; esac
[ -z "$OUT" ] || t_fail "search --order -yaer printed: $OUT"
run search '*' --order -lastplayed,Title
expect_rc 0 "search --order -lastplayed,Title"
run playlist sort Sorted -timesskipped,year
expect_rc 0 "playlist sort -timesskipped,year"

t_end

t_begin coll_sort_by_a_field_starting_with_random_does_not_shuffle
# Only the keyword random (or random(N)) shuffles; "randomness" is a field
# like any other. Sorted is the list the test above made.
keep=$(c playlist list Sorted --format '%id%')
for f in randomness random_x 'random(x)' 'random(' '-random'; do
	run search '*' --order "$f"
	expect_rc 1 "search --order $f"
	[ -z "$OUT" ] || t_fail "search --order $f printed: $OUT"
	run playlist sort Sorted "$f"
	expect_rc 1 "playlist sort $f"
	[ "$(c playlist list Sorted --format '%id%')" = "$keep" ] || t_fail "playlist sort $f changed the list"
done
case $(c search '*' --order randomness 2>&1) in
*"no track in the library has 'randomness'"*) ;;
*) t_fail "randomness: not refused as a field no track has" ;;
esac
for f in random 'random(42)' RANDOM; do
	run search '*' --order "$f"
	expect_rc 0 "search --order $f"
	[ "$(lines "$OUT")" -eq "$NALL" ] || t_fail "search --order $f: $(lines "$OUT") lines, expected $NALL"
done
[ "$(c search '*' --order 'random(7)')" = "$(c search '*' --order 'random(7)')" ] ||
	t_fail "random(7) is not the same order twice"

t_begin coll_commands_acting_on_no_match_exit_1
# A command that acts on what a query matches and matches nothing did
# nothing: exit 1 and "nothing matches 'QUERY': ...", as rate said already.
# A search that finds nothing is an answer: empty, exit 0. (Sorted is the
# list the sort tests made.)
keep=$(c playlist list Sorted --format '%id%')
for add in "add Sorted" "insert Sorted 1"; do
	# shellcheck disable=SC2086
	run playlist $add zzzz
	expect_rc 1 "playlist $add zzzz"
	[ "$ERR" = "crate: nothing matches 'zzzz': nothing added to Playlists/Sorted" ] || t_fail "playlist $add: $ERR"
done
[ "$(c playlist list Sorted --format '%id%')" = "$keep" ] || t_fail "the list changed"
run rate zzzz 3
expect_rc 1 "rate zzzz"
[ "$ERR" = "crate: nothing matches 'zzzz': no rating set" ] || t_fail "rate: $ERR"
run forget --yes zzzz
expect_rc 1 "forget zzzz"
[ "$ERR" = "crate: nothing matches 'zzzz': nothing forgotten" ] || t_fail "forget: $ERR"
run analyze --quiet zzzz
expect_rc 1 "analyze zzzz"
[ "$ERR" = "crate: nothing matches 'zzzz': nothing analysed" ] || t_fail "analyze: $ERR"
run play --no-ui zzzz
expect_rc 1 "play --no-ui zzzz"
[ "$ERR" = "crate: nothing matches 'zzzz': nothing to play" ] || t_fail "play: $ERR"
run search zzzz
expect_rc 0 "search zzzz"
[ -z "$OUT$ERR" ] || t_fail "search zzzz said: $OUT$ERR"

t_begin coll_import_of_a_folder_says_so
# A folder given as the file to read: fopen takes it, the read fails with
# EISDIR, which is what the user is told (not "read error").
run coll import FromDir "$T_TMP"
expect_rc 1 "coll import of a folder"
[ "$ERR" = "crate: $T_TMP: Is a directory" ] || t_fail "coll import: $ERR"
c coll show FromDir >/dev/null 2>&1 && t_fail "the refused import saved a collection"
run analyze --import "$T_TMP"
expect_rc 1 "analyze --import of a folder"
[ "$ERR" = "crate: $T_TMP: Is a directory" ] || t_fail "analyze --import: $ERR"

t_begin coll_show_of_a_playlist_by_its_name_alone_says_where_it_is
# A name alone means Collections/NAME; a playlist of that name is pointed to.
run playlist new Shown
run coll show Shown
expect_rc 1 "coll show of a playlist by its name alone"
grep -q "Collections/Shown does not exist (Playlists/Shown does: name it so)" <<<"$ERR" ||
	t_fail "no pointer to the playlist: $ERR"
run coll show Playlists/Shown
expect_rc 0 "coll show Playlists/Shown"
run coll show Nowhere
grep -qx "crate: Collections/Nowhere does not exist" <<<"$ERR" || t_fail "plain miss: $ERR"

t_begin coll_format_with_json_says_it_is_ignored
# --json gives every property, so a --format beside it is not used: a
# script asking for '%title%' got JSON and no word why. The JSON is still
# printed (exit 0), and stderr says the format is ignored.
c playlist new FJ >/dev/null 2>&1
set -f
for cmd in "search * --json --format %title%" "list --json --format %title%" \
	"playlist list FJ --json --format %title%"; do
	run $cmd
	[ "$RC" -eq 0 ] || t_fail "$cmd: exit $RC: $ERR"
	[ "${OUT:0:1}" = "[" ] || t_fail "$cmd: not the JSON array: '$OUT'"
	grep -q -- "--format is ignored with --json" <<<"$ERR" || t_fail "$cmd: '$ERR'"
done
set +f
run search '*' --format '%title%' --limit 1
[ "$RC" -eq 0 ] && [ -n "$OUT" ] && [ -z "$ERR" ] || t_fail "--format alone: exit $RC, '$OUT' '$ERR'"

t_begin coll_playlist_list_format_is_the_whole_line
# playlist list --format '%url%' printed "    1. /music/a.mp3": a script
# asking for paths had to cut a number off each line, and %pos% (the
# entry's number in format.playlist) was empty there. A format given is
# the whole line, as search's; %pos% is the entry's number.
c playlist new PF >/dev/null 2>&1 && c playlist add PF '*' >/dev/null 2>&1
run playlist list PF --format '%url%'
[ "$OUT" = "$(c search '*' --order library --format '%url%')" ] || t_fail "--format %url%: $OUT"
run playlist list PF --format '%pos%/%title%'
[ "$(printf '%s\n' "$OUT" | head -2 | cut -d/ -f1 | tr '\n' ' ')" = "1 2 " ] || t_fail "%pos%: $OUT"
run playlist list PF
case $OUT in "    1. "*) ;; *) t_fail "without --format the entries are no longer numbered: $OUT" ;; esac

t_begin coll_playlist_list_json_says_each_entrys_place
# playlist list marks the current entry ("> 2."), but its --json gave
# items alone: a script could not tell which entry was current, nor
# (with a track listed twice) which entry an object was.
ids=$(c search '*' --order library --format '%id%' | head -2 | tr '\n' ,)
printf '{"type":"idlist","attributes":{"position":"1"},"idlist":[%s%s]}' "$ids" \
	"$(echo "$ids" | cut -d, -f1)" | c coll import --force Playlists/PJ - >/dev/null 2>&1 ||
	t_fail "coll import"
run playlist list PJ --json
printf '%s' "$OUT" >"$T_TMP/pj.json"
json_ok "$T_TMP/pj.json" || t_fail "not JSON: $OUT"
[ "$(sqlite3 :memory: "SELECT group_concat(json_extract(value, '\$.pos') || ':' ||
	coalesce(json_extract(value, '\$.current'), 0), ' ') FROM json_each(readfile('$T_TMP/pj.json'))")" = \
	"1:0 2:1 3:0" ] || t_fail "pos and current: $OUT"

t_begin coll_json_keys_are_not_repeated_by_tags
# A file tagged POS=7, CURRENT=yes and URI=zz (free-form tags are
# properties) gave playlist list --json objects with "pos" twice, the tag
# and the entry's number, "uri" twice, the tag and the file's: a reader
# took either. The keys crate adds win; the tags stay in crate info.
if command -v ffmpeg >/dev/null; then
	DK=$T_TMP/keys
	mkdir -p "$DK"
	ffmpeg -v error -y -f lavfi -i "sine=frequency=300:duration=0.3" -metadata title=Keyed \
		-metadata pos=7 -metadata current=yes -metadata uri=zz "$DK/k.flac" || t_fail "ffmpeg"
	ck() { "$CRATE" --db "$T_TMP/keys.db" --config /dev/null "$@"; }
	ck scan --quiet "$DK" >/dev/null 2>&1 || t_fail "scan"
	ck playlist new K >/dev/null 2>&1 && ck playlist add K '*' >/dev/null 2>&1 || t_fail "playlist"
	for cmd in "playlist list K --json" "list --json" "info --json 1"; do
		out=$(ck $cmd 2>&1)
		for key in pos current uri; do
			[ "$(grep -o "\"$key\":" <<<"$out" | wc -l)" -le 1 ] || t_fail "$cmd: \"$key\" twice: $out"
		done
		grep -q '"uri": "file://' <<<"$out" || t_fail "$cmd: the file's uri: $out"
	done
	ck playlist list K --json | grep -q '"pos": 1}' || t_fail "the entry's place: $(ck playlist list K --json)"
	ck info 1 | grep -qx 'pos = 7' || t_fail "crate info lost the tag: $(ck info 1)"
else
	t_skip "needs ffmpeg"
fi

t_begin coll_json_gives_a_name_that_is_not_utf8_back
# JSON text must be UTF-8, so "url" shows a Latin-1 byte as U+FFFD; "uri"
# (file://, percent-encoded) gives every byte back, and a script finds the
# file from it.
D8=$T_TMP/latin1
mkdir -p "$D8"
cp "$MUSIC/$(ls "$MUSIC" | head -1)" "$D8/caf"$'\xe9'".ogg"
c8() { "$CRATE" --db "$T_TMP/latin1.db" --config /dev/null "$@"; }
c8 scan --quiet "$D8" >/dev/null 2>&1 || t_fail "scan"
c8 playlist new L >/dev/null 2>&1 && c8 playlist add L '*' >/dev/null 2>&1 || t_fail "playlist"
set -f # the search's *: a query, not a glob
for cmd in "list --json" "info --json 1" "search * --json" "playlist list L --json"; do
	c8 $cmd >"$T_TMP/l.json" 2>"$T_TMP/err" || t_fail "$cmd: exit $?: $(cat "$T_TMP/err")"
	json_ok "$T_TMP/l.json" || t_fail "$cmd: not JSON: $(cat "$T_TMP/l.json")"
	uri=$(sqlite3 :memory: "SELECT json_extract(readfile('$T_TMP/l.json'), '\$[0].uri')")
	[ "$uri" = "file://$D8/caf%E9.ogg" ] || t_fail "$cmd: uri '$uri' in $(cat "$T_TMP/l.json")"
	path=$(printf '%b' "$(sed 's|^file://||; s/%\([0-9A-F][0-9A-F]\)/\\x\1/g' <<<"$uri")")
	[ -f "$path" ] || t_fail "$cmd: the uri names no file"
done
set +f
c search '*' --json --limit 1 >"$T_TMP/l.json"
uri=$(sqlite3 :memory: "SELECT json_extract(readfile('$T_TMP/l.json'), '\$[0].uri')")
case $uri in file:///*) ;; *) t_fail "a UTF-8 name has no uri: '$uri'" ;; esac

t_begin coll_pshuffle_picks_no_stream
# A radio stream in the library was picked like a track: the party then
# stayed on a station that never ends.
DS=$T_TMP/streams.db
cs() { "$CRATE" --db "$DS" --config /dev/null "$@"; }
cs scan --quiet "$MUSIC" >/dev/null 2>&1 || t_fail "scan"
printf '#EXTM3U\nhttp://127.0.0.1:9/one.mp3\nhttps://127.0.0.1:9/two.mp3\n' >"$T_TMP/radio.m3u"
cs playlist import Radio "$T_TMP/radio.m3u" >/dev/null 2>&1 || t_fail "import"
# --upcoming beyond the source: every item that may join does
cs pshuffle Party '*' --upcoming 100 >/dev/null 2>&1 || t_fail "pshuffle"
out=$(cs playlist list Party --format '%url%' 2>&1)
case $out in *http*) t_fail "a stream picked: $out" ;; esac
[ "$(lines "$out")" -eq "$NALL" ] || t_fail "Party holds $(lines "$out") of $NALL tracks"
out=$(cs pshuffle Air 'u~http' 2>&1) || t_fail "pshuffle of streams: $out"
[ "$out" = "crate: warning: nothing 'u~http' matches can be picked (Party Shuffle takes no stream, nor a track a rule keeps out): Playlists/Air stays empty
created Playlists/Air, a Party Shuffle picking from 'u~http'" ] ||
	t_fail "streams only: $out"

t_end
