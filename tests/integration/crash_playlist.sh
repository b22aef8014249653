#!/usr/bin/env bash
# Crash safety of playlist edits: a loop of `crate playlist add/move/remove`
# runs while `crate play --no-ui` plays the same playlist to ALSA's null
# device, and both are killed with SIGKILL at random moments. After each
# kill the database passes integrity_check, the playlist lists, and its
# length agrees with the edits the loop saw succeed (give or take the one
# edit in flight when the kill came).
. "$(dirname "$0")/../lib.sh"

ROUNDS=$(crash_rounds 10)
DB=$T_TMP/pl.db
LOG=$T_TMP/done.log
pl_len() { "$CRATE" --db "$DB" playlist list Mix 2>/dev/null | grep -c .; }

t_begin crash_playlist_setup
if ! command -v sqlite3 >/dev/null || ! command -v ffmpeg >/dev/null; then
	t_skip "needs sqlite3 and ffmpeg"; t_end; exit $?
fi
mkdir -p "$T_TMP/music"
for i in 1 2 3; do
	ffmpeg -v error -y -f lavfi -i "sine=frequency=$((300 * i)):duration=2:sample_rate=22050" -ac 1 \
		-metadata title="Song $i" -metadata artist="Artist $i" "$T_TMP/music/s$i.flac" || t_fail "ffmpeg failed"
done
"$CRATE" --db "$DB" scan --quiet "$T_TMP/music" >/dev/null 2>&1 || t_fail "scan failed"
"$CRATE" --db "$DB" playlist new Mix >/dev/null 2>&1 || t_fail "playlist new failed"
"$CRATE" --db "$DB" playlist add Mix 't~Song' >/dev/null 2>&1 || t_fail "playlist add failed"
[ "$(pl_len)" -eq 3 ] || t_fail "the playlist has $(pl_len) entries after adding 3"

# Each edit is logged with the length it leaves, only after crate exited 0.
cat >"$T_TMP/loop.sh" <<'EOF'
len=$1
while :; do
	"$CRATE" --db "$DB" playlist add Mix 't~Song' >/dev/null 2>>"$T_TMP/loop.err" && len=$((len + 3)) && echo "add $len" >>"$LOG"
	"$CRATE" --db "$DB" playlist move Mix 1 2 >/dev/null 2>&1 && echo "move $len" >>"$LOG"
	"$CRATE" --db "$DB" playlist remove Mix 2 >/dev/null 2>&1 && len=$((len - 1)) && echo "remove $len" >>"$LOG"
	if [ "$len" -gt 40 ]; then
		"$CRATE" --db "$DB" playlist remove Mix 5- >/dev/null 2>&1 && len=4 && echo "cut $len" >>"$LOG"
	fi
done
EOF

# kill_rounds N WITH_PLAY: N rounds of edits (and playback), each ended by SIGKILL
kill_rounds() {
	local rounds=$1 with_play=$2 r ppid pid now last rc
	for r in $(seq 1 "$rounds"); do
		: >"$LOG"
		ppid=""
		if [ "$with_play" -eq 1 ]; then
			setsid "$CRATE" --db "$DB" play --no-ui --device null Playlists/Mix >/dev/null 2>"$T_TMP/play.err" &
			ppid=$!
		fi
		T_TMP=$T_TMP CRATE=$CRATE DB=$DB LOG=$LOG setsid bash "$T_TMP/loop.sh" "$len" &
		pid=$!
		sleep "$(awk -v ms="$ONE_MS" -v u="$RANDOM" 'BEGIN { printf "%.3f", (2 + u / 32768 * 8) * ms / 1000 }')"
		kill -9 -- -"$pid" 2>/dev/null
		[ -n "$ppid" ] && kill -9 -- -"$ppid" 2>/dev/null
		wait "$pid" 2>/dev/null
		if [ -n "$ppid" ]; then
			wait "$ppid" 2>/dev/null
			rc=$?
			[ $rc -lt 128 ] || [ $rc -eq 137 ] ||
				t_fail "round $r: crate play died with exit $rc: $(head -2 "$T_TMP/play.err")"
		fi
		ic=$(t_integrity "$DB")
		[ "$ic" = ok ] || { t_fail "round $r: integrity_check says: $ic"; return; }
		if ! "$CRATE" --db "$DB" playlist list Mix >"$T_TMP/list" 2>"$T_TMP/err"; then
			t_fail "round $r: playlist list fails after the kill: $(head -2 "$T_TMP/err")"
			return
		fi
		now=$(grep -c . "$T_TMP/list")
		last=$(tail -1 "$LOG" | cut -d' ' -f2)
		edits=$((edits + $(grep -c . "$LOG")))
		if [ -n "$last" ]; then
			# the edit after the last logged one may have been committed too
			case $now in
			"$last" | $((last + 3)) | $((last - 1)) | 4) ;;
			*)
				t_fail "round $r: $now entries, but the last edit reported done left $last (edits: $(tr '\n' ' ' <"$LOG"))"
				return ;;
			esac
		fi
		if LC_ALL=C grep -vqE '^[> ] *[0-9]+\. ' "$T_TMP/list"; then
			t_fail "round $r: a playlist line that is not an entry: $(LC_ALL=C grep -vE '^[> ] *[0-9]+\. ' "$T_TMP/list" | head -1)"
			return
		fi
		len=$now
		# nothing got done before the kill: give the next round more time
		[ -s "$LOG" ] || ONE_MS=$((ONE_MS * 2))
	done
}

t0=$(date +%s%3N)
"$CRATE" --db "$DB" playlist list Mix >/dev/null 2>&1
ONE_MS=$(( $(date +%s%3N) - t0 + 5 ))
len=$(pl_len)

t_begin crash_playlist_sigkill_rounds
edits=0
kill_rounds "$ROUNDS" 0
echo "    $ROUNDS kills; $edits edits reported done" >&2
[ "$edits" -gt 0 ] || t_fail "the loop never completed an edit"

t_begin crash_playlist_sigkill_rounds_while_playing
# A second crate plays the playlist while the edits run: its own writes
# (the play position) must not undo the other process's committed edits.
edits=0
kill_rounds $((ROUNDS / 2 + 1)) 1
echo "    $((ROUNDS / 2 + 1)) kills during playback; $edits edits reported done" >&2

t_begin crash_playlist_two_writers
# Two crates append to the same playlist at once: every append that
# reports success is in the list (no lost updates between processes).
"$CRATE" --db "$DB" playlist clear Mix >/dev/null 2>&1 || t_fail "playlist clear failed"
: >"$T_TMP/two.ok"
for w in 1 2; do
	(
		for i in $(seq 1 10); do
			"$CRATE" --db "$DB" playlist add Mix 't~Song' >/dev/null 2>>"$T_TMP/two.err" &&
				echo "$w" >>"$T_TMP/two.ok"
		done
	) &
done
wait
ok=$(grep -c . "$T_TMP/two.ok")
[ "$(pl_len)" -eq $((ok * 3)) ] || t_fail "$ok appends of 3 reported done, but the playlist has $(pl_len) entries"
[ "$ok" -gt 0 ] || t_fail "no append succeeded: $(head -2 "$T_TMP/two.err")"
if [ "$ok" -lt 20 ] && ! grep -qiE 'busy|locked' "$T_TMP/two.err"; then
	t_fail "$((20 - ok)) appends failed without saying the database is busy: $(head -2 "$T_TMP/two.err")"
fi

t_begin crash_playlist_usable_after_kills
"$CRATE" --db "$DB" playlist clear Mix >"$T_TMP/out" 2>&1 || t_fail "playlist clear: $(head -2 "$T_TMP/out")"
"$CRATE" --db "$DB" playlist add Mix 't~Song' >"$T_TMP/out" 2>&1 || t_fail "playlist add: $(head -2 "$T_TMP/out")"
[ "$(pl_len)" -eq 3 ] || t_fail "after clear + add the playlist has $(pl_len) entries, expected 3"
[ "$(t_integrity "$DB")" = ok ] || t_fail "integrity_check at the end: $(t_integrity "$DB")"

t_end
