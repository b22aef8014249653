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

# Item 8: `crate remote` used to talk to whoever served the socket in a
# directory someone else created first (/tmp/crate-<uid> when
# XDG_RUNTIME_DIR is unset), and a server trickling one byte every few
# seconds held it forever. Fake servers (python3, real Unix sockets), one of
# them run as another user; each logs what it received.
t_begin rel_remote_refuses_foreign_socket_places
if ! command -v python3 >/dev/null; then
	t_skip "needs python3 for the fake servers"
else
	# the system's python: another user may not reach a per-user install
	PY=$(command -v /usr/bin/python3 || command -v python3)
	FAKE=$T_TMP/fake_server.py
	cat >"$FAKE" <<'PY'
import os, socket, sys, time
path, log, mode = sys.argv[1], sys.argv[2], sys.argv[3]
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind(path)
s.listen(8)
open(path + ".ready", "w").close()
while True:
    c, _ = s.accept()
    c.settimeout(2)
    try:
        data = c.recv(4096)
    except OSError:
        data = b""
    with open(log, "ab") as f:
        f.write(data)
    if mode == "trickle":
        while True:
            try:
                c.send(b"x")
            except OSError:
                break
            time.sleep(1)
    else:
        try:
            c.send(b"state: answered by a stranger\nOK\n")
        except OSError:
            pass
    c.close()
PY
	chmod 755 "$T_TMP"
	# start_fake DIR MODE [USER-PREFIX...]: a server at DIR/crate/socket
	start_fake() {
		local dir=$1 mode=$2; shift 2
		rm -f "$T_TMP/fake.log"; touch "$T_TMP/fake.log"; chmod 666 "$T_TMP/fake.log"
		"$@" "$PY" "$FAKE" "$dir/crate/socket" "$T_TMP/fake.log" "$mode" &
		FAKE_PID=$!
		for _ in $(seq 50); do [ -e "$dir/crate/socket.ready" ] && break; sleep 0.1; done
		rm -f "$dir/crate/socket.ready"
	}
	stop_fake() { kill "$FAKE_PID" 2>/dev/null; wait "$FAKE_PID" 2>/dev/null; }
	trap 'stop_fake; rm -rf "$T_TMP"' EXIT
	remote_as_me() { XDG_RUNTIME_DIR=$1 timeout 30 "$CRATE" --db "$DB" remote status 2>&1; }

	# a) the directory belongs to another user
	R=$T_TMP/rt-a; mkdir -p "$R/crate"; chmod 755 "$R"; chmod 777 "$R/crate"
	start_fake "$R" answer
	if [ "$(id -u)" -eq 0 ]; then chown 65534 "$R/crate"; fi
	chmod 700 "$R/crate"
	out=$(remote_as_me "$R")
	if [ "$(id -u)" -eq 0 ]; then
		echo "$out" | grep -q "refusing" || t_fail "a directory of uid 65534 was used: $out"
		[ ! -s "$T_TMP/fake.log" ] || t_fail "the stranger received: $(cat "$T_TMP/fake.log")"
	fi
	stop_fake
	# b) our directory, but others may use it
	R=$T_TMP/rt-b; mkdir -p "$R/crate"; chmod 777 "$R/crate"
	start_fake "$R" answer
	out=$(remote_as_me "$R")
	echo "$out" | grep -q "refusing" || t_fail "a mode 777 directory was used: $out"
	[ ! -s "$T_TMP/fake.log" ] || t_fail "sent through a 777 directory: $(cat "$T_TMP/fake.log")"
	stop_fake
	# c) a symlink in the directory's place
	R=$T_TMP/rt-c; mkdir -p "$R" "$T_TMP/elsewhere"; chmod 700 "$T_TMP/elsewhere"
	ln -s "$T_TMP/elsewhere" "$R/crate"
	start_fake "$R" answer
	out=$(remote_as_me "$R")
	echo "$out" | grep -q "refusing" || t_fail "a symlinked directory was used: $out"
	[ ! -s "$T_TMP/fake.log" ] || t_fail "sent through a symlink: $(cat "$T_TMP/fake.log")"
	stop_fake
	# d) our directory and socket file, but the server runs as another user
	if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null; then
		R=$T_TMP/rt-d; mkdir -p "$R/crate"; chmod 755 "$R"; chmod 777 "$R/crate"
		start_fake "$R" answer setpriv --reuid=65534 --regid=65534 --clear-groups
		chown 0 "$R/crate/socket"; chmod 700 "$R/crate"
		out=$(remote_as_me "$R")
		echo "$out" | grep -q "refusing.*uid 65534" || t_fail "a server of uid 65534 was used: $out"
		[ ! -s "$T_TMP/fake.log" ] || t_fail "the other user's server received: $(cat "$T_TMP/fake.log")"
		stop_fake
	fi
	# e) the real thing: a private directory and our own server answers
	R=$T_TMP/rt-e; mkdir -p "$R/crate"; chmod 700 "$R/crate"
	start_fake "$R" answer
	out=$(remote_as_me "$R")
	echo "$out" | grep -q "answered" || t_fail "a proper socket was refused: $out"
	grep -q "^status" "$T_TMP/fake.log" || t_fail "the command did not arrive: $(cat "$T_TMP/fake.log")"
	stop_fake
	chmod 700 "$T_TMP"
fi

# Item 8: one deadline for the whole exchange: a server sending a byte
# a second used to hold `remote status` for as long as it liked.
t_begin rel_remote_has_an_overall_deadline
if ! command -v python3 >/dev/null; then
	t_skip "needs python3"
else
	R=$T_TMP/rt-t; mkdir -p "$R/crate"; chmod 700 "$R/crate"
	start_fake "$R" trickle
	t0=$SECONDS
	out=$(remote_as_me "$R")
	took=$((SECONDS - t0))
	[ $took -le 10 ] || t_fail "remote status took $took s against a trickling server"
	echo "$out" | grep -q "no answer from crate within" || t_fail "message: $out"
	stop_fake
fi

# Item 16: ALSA's file plugin truncates its target; crate run as root with
# output.device = file:/etc/passwd overwrote it. An existing non-audio file
# is refused unless output.file_overwrite = yes.
t_begin rel_file_device_does_not_overwrite_other_files
VICTIM=$T_TMP/precious.txt
printf 'root:x:0:0:do not truncate me\n' >"$VICTIM"
before=$(cat "$VICTIM")
out=$(timeout 30 "$CRATE" --db "$DB" play --no-ui --device "file:$VICTIM" "$MUSIC/s1.flac" 2>&1)
[ "$(cat "$VICTIM")" = "$before" ] || t_fail "--device file:$VICTIM overwrote it"
echo "$out" | grep -q "would overwrite" || t_fail "message: $out"
CONF=$T_TMP/victim.conf
printf '[output]\ndevice = "file:'"'"'%s'"'"',raw"\n' "$VICTIM" >"$CONF"
out=$(timeout 30 "$CRATE" --db "$DB" --config "$CONF" play --no-ui "$MUSIC/s1.flac" 2>&1)
[ "$(cat "$VICTIM")" = "$before" ] || t_fail "output.device = file:'$VICTIM',raw overwrote it"
echo "$out" | grep -q "would overwrite" || t_fail "config message: $out"
# an audio output file (or a new one) is fine
out=$(timeout 30 "$CRATE" --db "$DB" play --no-ui --device "file:$T_TMP/out.raw" "$MUSIC/s1.flac" 2>&1) ||
	t_fail "file:out.raw refused: $out"
[ -s "$T_TMP/out.raw" ] || t_fail "nothing written to out.raw"

# Item 12: an out-of-range volume was used as it was ("vol 1569325055%");
# now crate names the line and the range, and every bad value at once.
t_begin rel_config_values_are_checked_with_their_lines
CONF=$T_TMP/bad.conf
printf '[playback]\nvolume = 2147483647\n\nreplaygain_preamp = nan\n' >"$CONF"
out=$("$CRATE" --db "$DB" --config "$CONF" list 2>&1) && t_fail "a volume of 2147483647 was accepted"
echo "$out" | grep -q "line 2: playback.volume = 2147483647: must be a whole number in 0..100" ||
	t_fail "message: $out"
echo "$out" | grep -q "line 4: playback.replaygain_preamp" || t_fail "second problem missing: $out"
printf '[playback]\nvolume = 40\n' >"$CONF"
"$CRATE" --db "$DB" --config "$CONF" list >/dev/null 2>&1 || t_fail "a good config is refused"
# the example configuration, every option uncommented, is valid
sed 's/^#\([a-z_]* = \)/\1/' "$SRCDIR/data/config.example" | grep -v '^\(up\|down\|page_up\)\b' >"$CONF"
out=$("$CRATE" --db "$DB" --config "$CONF" list 2>&1 >/dev/null) || t_fail "config.example with its defaults: $out"

t_end
