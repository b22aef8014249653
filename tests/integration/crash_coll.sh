#!/usr/bin/env bash
# Crash safety of saved collections: a loop of `crate coll save` and
# `crate coll rename` is killed with SIGKILL (loop and crate together) at
# random moments. After each kill the database passes integrity_check,
# `crate coll list` works, and every save and rename the loop saw succeed
# (exit 0) is there: saved names present, renamed ones under the new name.
. "$(dirname "$0")/../lib.sh"

ROUNDS=$(crash_rounds 10)
DB=$T_TMP/coll.db
LOG=$T_TMP/done.log

t_begin crash_coll_setup
if ! command -v sqlite3 >/dev/null || ! command -v ffmpeg >/dev/null; then
	t_skip "needs sqlite3 and ffmpeg"; t_end; exit $?
fi
mkdir -p "$T_TMP/music"
for i in 1 2 3; do
	ffmpeg -v error -y -f lavfi -i "sine=frequency=$((300 * i)):duration=0.2:sample_rate=22050" -ac 1 \
		-metadata title="Song $i" -metadata artist="Artist $i" "$T_TMP/music/s$i.flac" || t_fail "ffmpeg failed"
done
"$CRATE" --db "$DB" scan --quiet "$T_TMP/music" >/dev/null 2>&1 || t_fail "scan failed"
: >"$LOG"
echo 0 >"$T_TMP/counter"

# The loop: saves C<i> (a query, and one referring to the previous name),
# renames the previous one; logs each step only after crate exited 0.
cat >"$T_TMP/loop.sh" <<'EOF'
i=$(cat "$T_TMP/counter")
while :; do
	i=$((i + 1)); echo "$i" >"$T_TMP/counter.new" && mv "$T_TMP/counter.new" "$T_TMP/counter" # atomic: a kill never leaves it empty
	"$CRATE" --db "$DB" coll save "C$i" "t~Song a:\"Artist $((i % 3 + 1))\"" >/dev/null 2>&1 &&
		echo "save C$i" >>"$LOG"
	if [ $((i % 2)) -eq 0 ]; then
		"$CRATE" --db "$DB" coll rename "C$((i - 1))" "R$((i - 1))" >/dev/null 2>&1 &&
			echo "rename C$((i - 1)) R$((i - 1))" >>"$LOG"
	fi
done
EOF

t_begin crash_coll_sigkill_rounds
# how long one crate command takes here (ASan builds are slower)
t0=$(date +%s%3N)
"$CRATE" --db "$DB" coll save Probe 't~Song' >/dev/null 2>&1 || t_fail "coll save does not work"
ONE_MS=$(( $(date +%s%3N) - t0 + 5 ))
for r in $(seq 1 "$ROUNDS"); do
	T_TMP=$T_TMP CRATE=$CRATE DB=$DB LOG=$LOG setsid bash "$T_TMP/loop.sh" &
	pid=$!
	sleep "$(awk -v ms="$ONE_MS" -v u="$RANDOM" 'BEGIN { printf "%.3f", (2 + u / 32768 * 6) * ms / 1000 }')"
	kill -9 -- -"$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	ic=$(t_integrity "$DB")
	[ "$ic" = ok ] || { t_fail "round $r: integrity_check says: $ic"; break; }
	if ! "$CRATE" --db "$DB" coll list >"$T_TMP/list" 2>"$T_TMP/err"; then
		t_fail "round $r: coll list fails after the kill: $(head -2 "$T_TMP/err")"
		break
	fi
	# replay the log: what must exist now
	missing="" stale=""
	declare -A want=()
	while read -r op a b; do
		case $op in
		save) want[$a]=1 ;;
		rename) unset "want[$a]"; want[$b]=1 ;;
		esac
	done <"$LOG"
	for name in "${!want[@]}"; do
		grep -qx "Collections/$name\|$name" "$T_TMP/list" && continue
		# the rename in flight when the kill came may have committed unlogged
		case $name in C*) grep -qx "Collections/R${name#C}\|R${name#C}" "$T_TMP/list" && continue ;; esac
		missing="$missing $name"
	done
	while read -r op a b; do
		[ "$op" = rename ] && grep -qx "Collections/$a\|$a" "$T_TMP/list" && stale="$stale $a"
	done <"$LOG"
	unset want
	[ -z "$missing" ] || { t_fail "round $r: saved but gone:$missing"; break; }
	[ -z "$stale" ] || { t_fail "round $r: renamed but still under the old name:$stale"; break; }
	# nothing new got done before the kill: give the next round more time
	[ "$(grep -c . "$LOG")" -gt "${logged:-0}" ] || ONE_MS=$((ONE_MS * 2))
	logged=$(grep -c . "$LOG")
done
n=$(grep -c . "$LOG")
echo "    $ROUNDS kills; $n changes reported done" >&2
[ "$n" -gt 0 ] || t_fail "the loop never completed a change"

t_begin crash_coll_two_writers
# Two crates save different collections into one database at the same time:
# each save that reports success survives the other's (no lost updates).
for w in A B; do
	(
		for i in $(seq 1 15); do
			"$CRATE" --db "$DB" coll save "$w$i" "t~Song" >/dev/null 2>>"$T_TMP/two.err" &&
				echo "$w$i" >>"$T_TMP/two.$w"
		done
	) &
done
wait
"$CRATE" --db "$DB" coll list >"$T_TMP/list" 2>&1 || t_fail "coll list after two writers failed"
lost=""
for name in $(cat "$T_TMP/two.A" "$T_TMP/two.B" 2>/dev/null); do
	grep -qx "Collections/$name\|$name" "$T_TMP/list" || lost="$lost $name"
done
[ -z "$lost" ] || t_fail "saves reported done but lost to the other writer:$lost"
ndone=$(cat "$T_TMP/two.A" "$T_TMP/two.B" 2>/dev/null | wc -l)
[ "$ndone" -gt 0 ] || t_fail "no save succeeded: $(head -2 "$T_TMP/two.err")"
if [ "$ndone" -lt 30 ] && ! grep -qiE 'busy|locked' "$T_TMP/two.err"; then
	t_fail "$((30 - ndone)) saves failed without saying the database is busy: $(head -2 "$T_TMP/two.err")"
fi
[ "$(t_integrity "$DB")" = ok ] || t_fail "integrity_check after two writers: $(t_integrity "$DB")"

t_begin crash_coll_usable_after_kills
"$CRATE" --db "$DB" coll save After 't~Song' >"$T_TMP/out" 2>&1 || t_fail "coll save after the kills: $(head -2 "$T_TMP/out")"
n=$("$CRATE" --db "$DB" search 'in:After' 2>/dev/null | wc -l)
[ "$n" -eq 3 ] || t_fail "in:After finds $n of 3 items"
last=$(grep '^save' "$LOG" | tail -1 | cut -d' ' -f2)
if [ -n "$last" ]; then
	"$CRATE" --db "$DB" coll show "$last" >"$T_TMP/out" 2>&1 || t_fail "coll show $last failed"
	grep -q 'Song' "$T_TMP/out" || t_fail "coll show $last lost its query: $(head -2 "$T_TMP/out")"
fi

t_end
