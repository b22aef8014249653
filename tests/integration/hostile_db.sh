#!/usr/bin/env bash
# A corrupt or foreign database: every command fails with a clear message
# naming the file (exit 1, never a crash), and the file stays byte-identical:
# crate never "repairs" or overwrites a database it cannot trust.
. "$(dirname "$0")/../lib.sh"

D=$T_TMP/music
GOOD=$T_TMP/good.db
mkdir -p "$D"

sum() { cksum <"$1"; }

# try_all DB WHAT: run the commands that open a library; each must fail
# cleanly naming DB and leave its bytes alone.
try_all() {
	local db=$1 what=$2 before after cmd rc
	before=$(sum "$db")
	local cmds=("list" "scan --quiet $D" "info 1" "playlist list")
	"$CRATE" --help 2>&1 | grep -q '^  coll list' && cmds+=("coll list")
	"$CRATE" --help 2>&1 | grep -q '^  search ' && cmds+=("search x")
	"$CRATE" --help 2>&1 | grep -q '^  coll save ' && cmds+=("coll save Saved a:x")
	for cmd in "${cmds[@]}"; do
		# shellcheck disable=SC2086
		"$CRATE" --db "$db" $cmd >"$T_TMP/out" 2>"$T_TMP/err"
		rc=$?
		if [ $rc -ge 128 ]; then
			t_fail "$what: crate $cmd crashed (exit $rc)"
		elif [ $rc -eq 0 ]; then
			t_fail "$what: crate $cmd succeeded on it"
		elif ! grep -qF "$(basename "$db")" "$T_TMP/err"; then
			t_fail "$what: crate $cmd's message does not name the file: $(head -2 "$T_TMP/err")"
		elif [ "$(wc -l <"$T_TMP/err")" -ne 1 ]; then
			t_fail "$what: crate $cmd's message is not one line: $(cat -A "$T_TMP/err")"
		fi
		after=$(sum "$db")
		if [ "$before" != "$after" ]; then
			t_fail "$what: crate $cmd changed the file"
			return
		fi
	done
	[ ! -s "$db-wal" ] || t_fail "$what: a non-empty -wal file appeared next to it"
}

t_begin hostile_db_setup
if ! command -v sqlite3 >/dev/null || ! command -v ffmpeg >/dev/null; then
	t_skip "needs the sqlite3 and ffmpeg command-line tools"; t_end; exit $?
fi
for i in 1 2 3 4 5 6; do
	ffmpeg -v error -y -f lavfi -i "sine=frequency=$((200 * i)):duration=0.2:sample_rate=22050" -ac 1 \
		-metadata title="Tone $i" -metadata artist="Artist $i" "$D/t$i.flac" || t_fail "ffmpeg failed"
done
"$CRATE" --db "$GOOD" scan --quiet "$D" >/dev/null 2>&1 || t_fail "scanning the fixtures failed"
# make the database big enough that a damaged page sits past the header
# (the 60-letter title made once: two processes a row were 600 in all)
t60=$(printf 'T%.0s' $(seq 1 60))
for i in $(seq 1 300); do printf 'INSERT INTO media_string(value) VALUES(%s);
INSERT INTO media(url, title, artist_sid) VALUES(CAST(%s AS BLOB), %s, last_insert_rowid());\n' \
	"'A $i'" "'/x/$i.flac'" "'$t60 $i'"; done >"$T_TMP/fill.sql"
sqlite3 "$GOOD" <"$T_TMP/fill.sql" 2>"$T_TMP/err" || echo "    (could not pad the database: $(head -1 "$T_TMP/err"))" >&2
# everything in the main file (the -wal empty), still in WAL mode as crate
# leaves it, so a copy of the main file is the whole database
"$CRATE" --db "$GOOD" list >/dev/null 2>&1 || t_fail "the good database does not list"
sqlite3 "$GOOD" 'PRAGMA wal_checkpoint(TRUNCATE);' >/dev/null
SIZE=$(stat -c %s "$GOOD")
[ "$SIZE" -gt 16384 ] || t_fail "the good database is only $SIZE bytes"

t_begin hostile_db_random_bytes
head -c 65536 /dev/urandom >"$T_TMP/random.db"
try_all "$T_TMP/random.db" "random bytes"

t_begin hostile_db_text_file
printf 'this is not a database\n' >"$T_TMP/text.db"
try_all "$T_TMP/text.db" "a text file"

t_begin hostile_db_bad_header
cp "$GOOD" "$T_TMP/header.db"
printf 'XXXXXXXXXXXXXXXX' | dd of="$T_TMP/header.db" bs=1 seek=0 conv=notrunc status=none
try_all "$T_TMP/header.db" "a damaged header"

t_begin hostile_db_damaged_page
cp "$GOOD" "$T_TMP/page.db"
# overwrite the middle of the file (b-tree pages) with garbage
head -c 4096 /dev/urandom | dd of="$T_TMP/page.db" bs=1 seek=$((SIZE / 2 / 4096 * 4096)) conv=notrunc status=none
if sqlite3 "$T_TMP/page.db" 'PRAGMA quick_check' 2>&1 | grep -qx ok; then
	t_skip "the damage landed on a free page (quick_check still ok)"
else
	try_all "$T_TMP/page.db" "a damaged page"
fi

t_begin hostile_db_damaged_page_message_is_one_line
# quick_check's report spans lines ("*** in database main ***" then
# "Page 2: btreeInitPage() ..."): list, search and the interface printed
# it with the newline, scan on one line; every command now prints one line.
cp "$GOOD" "$T_TMP/page2.db"
printf 'GARBAGE%.0s' $(seq 1 100) | dd of="$T_TMP/page2.db" bs=1 seek=4096 conv=notrunc status=none
try_all "$T_TMP/page2.db" "a damaged page 2"
grep -q "in database main \*\*\* Page 2: " "$T_TMP/err" || t_fail "the reason: $(cat -A "$T_TMP/err")"
# no command: the interface, which refuses the file before it starts
"$CRATE" --db "$T_TMP/page2.db" </dev/null >/dev/null 2>"$T_TMP/err" && t_fail "the interface started"
[ "$(wc -l <"$T_TMP/err")" -eq 1 ] || t_fail "the interface's message: $(cat -A "$T_TMP/err")"

t_begin hostile_db_error_text_never_carries_control_characters
# An error quoting a --db or --config path (or anything else) reached the
# terminal as it was: an escape sequence in the name drove the terminal.
# Every top-level error line is folded once where it is printed.
bad=$(printf '%s/no dir/x\033[31mred\033]0;title\007.db' "$T_TMP")
# no_controls WHAT FILE: one line, no control character but its newline
no_controls() {
	[ "$(wc -l <"$2")" -eq 1 ] || t_fail "$1: not one line: $(cat -A "$2")"
	LC_ALL=C grep -q '[[:cntrl:]]' "$2" && t_fail "$1: a control character: $(cat -A "$2")"
	grep -q 'red.*title' "$2" || t_fail "$1: the name is not quoted: $(cat -A "$2")"
}
"$CRATE" --db "$bad" list >/dev/null 2>"$T_TMP/err" && t_fail "list opened $bad"
no_controls "list" "$T_TMP/err"
# no command: the interface, refused before it starts (main's error path)
"$CRATE" --db "$bad" </dev/null >/dev/null 2>"$T_TMP/err" && t_fail "the interface started"
no_controls "the interface" "$T_TMP/err"
conf=$(printf '%s/c\033[31mred\033]0;title\007.conf' "$T_TMP")
printf '[broken\n' >"$conf"
"$CRATE" --db "$GOOD" --config "$conf" list >/dev/null 2>"$T_TMP/err" && t_fail "a broken config read"
no_controls "a config file" "$T_TMP/err"
# A value the checks refuse is quoted with its control characters shown
# as U+FFFD, as every other error shows them (they were '?').
printf '[display]\ntitle = o\033[31mff\n' >"$T_TMP/value.conf"
"$CRATE" --db "$GOOD" --config "$T_TMP/value.conf" list >/dev/null 2>"$T_TMP/err" &&
	t_fail "a bad display.title read"
grep -qF "title = o�[31mff: must be yes or no" "$T_TMP/err" ||
	t_fail "a config value's control character: $(cat -A "$T_TMP/err")"

t_begin hostile_db_truncated
cp "$GOOD" "$T_TMP/trunc.db"
truncate -s $((SIZE / 2 / 4096 * 4096 - 1000)) "$T_TMP/trunc.db"
try_all "$T_TMP/trunc.db" "a truncated file"

t_begin hostile_db_newer_schema
cp "$GOOD" "$T_TMP/newer.db"
sqlite3 "$T_TMP/newer.db" "UPDATE schema_version SET version = 999 WHERE component = 'medialib';
	PRAGMA wal_checkpoint(TRUNCATE);" >/dev/null 2>"$T_TMP/err" ||
	t_fail "cannot fake a newer schema: $(head -1 "$T_TMP/err")"
try_all "$T_TMP/newer.db" "a newer schema"

t_begin hostile_db_good_still_fine
before=$(sum "$GOOD")
"$CRATE" --db "$GOOD" list >"$T_TMP/out" 2>&1 || t_fail "the good database no longer lists: $(head -2 "$T_TMP/out")"
grep -q 'Tone 3' "$T_TMP/out" || t_fail "the good database lost its items"

t_end
