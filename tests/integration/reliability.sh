#!/usr/bin/env bash
# Command-line regression tests of issue 14 ("Reliability round 2"): each
# test names its item. Real processes throughout: a second user (nobody)
# through setpriv, real sockets and a fake server for the remote client.
. "$(dirname "$0")/../lib.sh"

DB=$T_TMP/lib.db
export HOME=$T_TMP/home XDG_CONFIG_HOME=$T_TMP/home/.config XDG_DATA_HOME=$T_TMP/home/.local/share
mkdir -p "$HOME"
c() { "$CRATE" --db "$DB" "$@"; }

t_begin rel_setup
MUSIC=$T_TMP/music
mkdir -p "$MUSIC"
if command -v ffmpeg >/dev/null; then
	for i in 1 2 3; do
		ffmpeg -v error -y -f lavfi -i "sine=frequency=$((200 * i)):duration=1" -ac 1 \
			-metadata artist="Artist $i" -metadata title="Song $i" -metadata date=199$i \
			"$MUSIC/s$i.flac" || t_fail "ffmpeg"
	done
else
	cp "$SRCDIR"/data/demo/* "$MUSIC"/ 2>/dev/null
fi
c scan --quiet "$MUSIC" >/dev/null 2>&1 || t_fail "scan"
n=$(c list --format '%id%' 2>/dev/null | wc -l)
[ "$n" -ge 3 ] || t_fail "library has $n tracks"

# Item 2: a legal-looking save of a tree deeper than the loader reads back
# used to succeed and then lock every command out of the library.
t_begin rel_too_deep_save_is_refused_and_the_library_stays_usable
q=$(printf 'NOT %.0s' $(seq 255))"a:x"
out=$(c coll save Deep "$q" 2>&1)
rc=$?
[ $rc -ne 0 ] || t_fail "a 257-level collection was saved"
echo "$out" | grep -q "deeper than 256" || t_fail "message: $out"
out=$(c coll list 2>&1) || t_fail "coll list fails afterwards: $out"
c list --format '%title%' >/dev/null 2>&1 || t_fail "list fails afterwards"
c coll save Fine "a:x" >/dev/null 2>&1 || t_fail "a normal save fails afterwards"

# Item 2: a row another version (or a hand) wrote that cannot be read is
# reported and skipped; the rest opens; `coll remove` deletes it.
t_begin rel_unreadable_row_is_skipped_and_removable
deep=$(python3 -c 'print("{\"type\":\"complement\",\"operands\":["*300+"{\"type\":\"universe\"}"+"]}"*300)' 2>/dev/null)
[ -n "$deep" ] || deep='{"type": '
sqlite3 "$DB" "INSERT INTO coll_saved VALUES ('Collections', 'Broken', '$deep')" || t_fail "sqlite3"
out=$(c coll list 2>&1)
rc=$?
[ $rc -eq 0 ] || t_fail "coll list exit $rc: $out"
echo "$out" | grep -q "Fine" || t_fail "the readable collection is not listed: $out"
echo "$out" | grep -q "warning: .*Broken cannot be read" || t_fail "no warning naming the row: $out"
c list --format '%title%' >/dev/null 2>&1 || t_fail "list fails with an unreadable row"
c coll remove Broken >/dev/null 2>&1 || t_fail "coll remove of the unreadable row fails"
out=$(c coll list 2>&1)
echo "$out" | grep -q "warning" && t_fail "still warned after the remove: $out"
[ "$(sqlite3 "$DB" "SELECT count(*) FROM coll_saved WHERE name = 'Broken'")" = 0 ] ||
	t_fail "the row is still in the database"

# Item 7: a database in a directory its user cannot write opens read-only
# (the immutable fallback compared extended result codes with primary ones:
# SQLITE_READONLY_DIRECTORY is 1544). Run as another user (nobody): root
# may write anywhere.
t_begin rel_readonly_directory_opens_read_only
if [ "$(id -u)" -ne 0 ] || ! command -v setpriv >/dev/null; then
	t_skip "needs root and setpriv to run as another user"
else
	RO=$T_TMP/ro
	mkdir -p "$RO"
	c scan --quiet "$MUSIC" >/dev/null 2>&1
	cp "$DB" "$RO/lib.db"
	sqlite3 "$RO/lib.db" 'PRAGMA journal_mode=WAL' >/dev/null
	rm -f "$RO/lib.db-wal" "$RO/lib.db-shm" "$RO"/lib.db.index*
	chmod 755 "$T_TMP" "$RO"
	chmod 644 "$RO/lib.db"
	as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups env HOME=/nonexistent \
		XDG_CONFIG_HOME=/nonexistent XDG_RUNTIME_DIR=/nonexistent "$CRATE" --db "$RO/lib.db" "$@"; }
	out=$(as_nobody list --format '%title%' 2>&1)
	rc=$?
	[ $rc -eq 0 ] || t_fail "read-only open failed (exit $rc): $out"
	echo "$out" | grep -q "Song 1" || t_fail "no tracks listed: $out"
	out=$(as_nobody scan "$MUSIC" 2>&1) && t_fail "a scan into a read-only database succeeded"
	echo "$out" | grep -qi "read-only" || t_fail "scan message: $out"
	# An unreadable file: both reasons are given.
	chmod 600 "$RO/lib.db"
	out=$(as_nobody list 2>&1) && t_fail "an unreadable database opened"
	echo "$out" | grep -q "read-only" && echo "$out" | grep -qi "permission denied\|unable to open\|cannot" ||
		t_fail "message does not give the real reason: $out"
	chmod 700 "$T_TMP"
fi

t_end
