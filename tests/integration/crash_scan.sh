#!/usr/bin/env bash
# Crash safety of scanning: `crate scan` killed with SIGKILL at random
# moments must leave a database that passes PRAGMA integrity_check, opens
# (`crate list`), and still holds every file an earlier committed scan had
# indexed. A second crate on a database in use gets safe shared access or a
# clear message, never corruption.
. "$(dirname "$0")/../lib.sh"

ROUNDS=$(crash_rounds 12)
LIB=$T_TMP/lib
DB=$T_TMP/crash.db

now_ms() { date +%s%3N; }
listed() { "$CRATE" --db "$1" list --format '%url%' 2>/dev/null | wc -l; }

# 1,530 small tagged files: 3 encoded templates copied into 30 folders.
make_library() {
	mkdir -p "$LIB/d0" || return 1
	local ext i j
	for ext in mp3 flac ogg; do
		ffmpeg -v error -y -f lavfi -i "sine=frequency=330:duration=0.3:sample_rate=22050" -ac 1 \
			-metadata artist="Crash Test" -metadata album="Album $ext" -metadata title="Tone" \
			"$T_TMP/t.$ext" || return 1
	done
	for i in $(seq 1 17); do
		for ext in mp3 flac ogg; do cp "$T_TMP/t.$ext" "$LIB/d0/track $i.$ext"; done
	done
	for j in $(seq 1 29); do cp -r "$LIB/d0" "$LIB/d$j"; done
	find "$LIB" -type f | wc -l
}

t_begin crash_scan_setup
if ! command -v sqlite3 >/dev/null || ! command -v ffmpeg >/dev/null; then
	t_skip "needs the sqlite3 and ffmpeg command-line tools"
	t_end
	exit $?
fi
NFILES=$(make_library)
[ "${NFILES:-0}" -gt 1000 ] || t_fail "could not make the test library ($NFILES files)"
# One full scan on a scratch database tells how long a scan takes here
# (ASan builds are much slower), so the kills land before, during and after
# the interesting part.
t0=$(now_ms)
"$CRATE" --db "$T_TMP/scratch.db" scan --quiet "$LIB" >"$T_TMP/out" 2>&1
rc=$?
FULL_MS=$(( $(now_ms) - t0 ))
[ $rc -eq 0 ] || t_fail "a full scan of $NFILES files exited $rc: $(head -3 "$T_TMP/out")"
n=$(listed "$T_TMP/scratch.db")
[ "$n" -eq "$NFILES" ] || t_fail "a full scan indexed $n of $NFILES files"
echo "    full scan of $NFILES files: $FULL_MS ms" >&2

t_begin crash_scan_sigkill_rounds
prev=0 kills=0 finished=0
for r in $(seq 1 "$ROUNDS"); do
	# every third round starts over with a new database (a killed cold scan)
	if [ $((r % 3)) -eq 1 ]; then
		rm -f "$DB" "$DB-wal" "$DB-shm"
		prev=0
	fi
	# after a few rounds, change some files so rescans rewrite rows too
	if [ $((r % 3)) -eq 0 ]; then
		for f in "$LIB"/d$((r % 30))/*.mp3; do cp "$T_TMP/t.ogg" "$f"; done
	fi
	# u^2 spreads the kills over the whole of a cold scan yet lands many
	# inside the much shorter rescans too
	delay=$(awk -v u="$RANDOM" -v full="$FULL_MS" 'BEGIN { u /= 32768; printf "%d", u * u * full * 1.2 }')
	"$CRATE" --db "$DB" scan --quiet "$LIB" >/dev/null 2>&1 &
	pid=$!
	sleep "$(awk -v ms="$delay" 'BEGIN { printf "%.3f", ms / 1000 }')"
	kill -9 "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	rc=$?
	if [ $rc -eq 137 ]; then kills=$((kills + 1)); else finished=$((finished + 1)); fi
	[ -f "$DB" ] || { [ $rc -eq 137 ] && continue; t_fail "round $r: no database after exit $rc"; break; }
	ic=$(t_integrity "$DB")
	if [ "$ic" != ok ]; then
		t_fail "round $r (killed after $delay ms): integrity_check says: $ic"
		break
	fi
	if ! "$CRATE" --db "$DB" list --format '%url%' >"$T_TMP/list" 2>"$T_TMP/err"; then
		t_fail "round $r: crate list fails after the kill: $(head -2 "$T_TMP/err")"
		break
	fi
	n=$(wc -l <"$T_TMP/list")
	if [ "$n" -lt "$prev" ]; then
		t_fail "round $r: $n files indexed after the kill, $prev were committed before"
		break
	fi
	if [ $rc -ne 137 ] && [ $rc -le 2 ] && [ "$n" -ne "$NFILES" ]; then
		t_fail "round $r: the scan reported done (exit $rc) but $n of $NFILES files are listed"
		break
	fi
	prev=$n
done
echo "    $ROUNDS rounds: $kills killed mid-way, $finished finished first" >&2
[ $kills -gt 0 ] || t_fail "no scan was ever killed mid-way (timing too coarse?)"

t_begin crash_scan_completes_after_kills
"$CRATE" --db "$DB" scan --quiet "$LIB" >"$T_TMP/out" 2>&1
rc=$?
[ $rc -eq 0 ] || t_fail "a scan after the kills exited $rc: $(head -3 "$T_TMP/out")"
[ "$(t_integrity "$DB")" = ok ] || t_fail "integrity_check after the final scan: $(t_integrity "$DB")"
n=$(listed "$DB")
[ "$n" -eq "$NFILES" ] || t_fail "$n of $NFILES files indexed after the final scan (duplicates or losses)"

# ok_or_clear RC ERRFILE WHAT: exit 0, or a clear message about the busy
# database; a crash or an unexplained failure is a bug.
ok_or_clear() {
	if [ "$1" -ge 128 ]; then
		t_fail "$3 crashed (exit $1)"
	elif [ "$1" -ne 0 ] && ! grep -qiE 'busy|locked|in use' "$2"; then
		t_fail "$3 failed (exit $1) without a clear message: $(head -2 "$2")"
	fi
}

t_begin crash_scan_second_crate_on_busy_db
# The library is open elsewhere (the UI, a list) while a scan writes: readers
# and a second writer share it safely. The database exists already, as it
# does whenever crate has run before.
rm -f "$DB" "$DB-wal" "$DB-shm"
"$CRATE" --db "$DB" scan --quiet "$LIB/d0" >/dev/null 2>&1
"$CRATE" --db "$DB" scan --quiet "$LIB" >"$T_TMP/scan1" 2>&1 &
pid=$!
for i in $(seq 1 15); do
	"$CRATE" --db "$DB" list --format '%url%' >/dev/null 2>"$T_TMP/err"
	rc=$?
	[ $rc -eq 0 ] || { t_fail "crate list exited $rc while a scan ran: $(head -2 "$T_TMP/err")"; break; }
	sleep 0.05
done
"$CRATE" --db "$DB" scan --quiet "$LIB/d1" >/dev/null 2>"$T_TMP/err2"
ok_or_clear $? "$T_TMP/err2" "a second scan during the first"
wait "$pid"
rc1=$?
[ $rc1 -eq 0 ] || t_fail "the first scan exited $rc1: $(head -3 "$T_TMP/scan1")"
[ "$(t_integrity "$DB")" = ok ] || t_fail "integrity_check after concurrent use: $(t_integrity "$DB")"
n=$(listed "$DB")
[ "$n" -eq "$NFILES" ] || t_fail "$n of $NFILES files indexed after concurrent scans"

t_begin crash_scan_racing_first_open
# Several crates create the same new database at once: each one works or
# says the database is busy; the database ends up sound.
rm -f "$DB" "$DB-wal" "$DB-shm"
pids=""
for i in 1 2 3 4; do
	"$CRATE" --db "$DB" scan --quiet "$LIB/d$i" >/dev/null 2>"$T_TMP/race$i" &
	pids="$pids $!"
done
i=0
for p in $pids; do
	i=$((i + 1))
	wait "$p"
	ok_or_clear $? "$T_TMP/race$i" "racing scan $i"
done
[ "$(t_integrity "$DB")" = ok ] || t_fail "integrity_check after racing opens: $(t_integrity "$DB")"
"$CRATE" --db "$DB" list >/dev/null 2>"$T_TMP/err" || t_fail "crate list after racing opens: $(head -2 "$T_TMP/err")"

t_end
