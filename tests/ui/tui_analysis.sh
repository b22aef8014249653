#!/usr/bin/env bash
# Background analysis in the interface: it starts by itself ([analysis]
# auto), shows its progress on the status line, pauses, resumes after a
# restart, and its results reach the index the interface searches.
. "$(dirname "$0")/../lib.sh"

if ! command -v tmux >/dev/null || ! command -v ffmpeg >/dev/null; then
	t_begin tui_analysis_setup
	t_skip "needs tmux and ffmpeg"
	t_end
	exit $?
fi

. "$SRCDIR/tests/lib_tmux.sh"
tmux_private_env
printf '[analysis]\nauto = true\n' >"$CONF"
MUSIC=$T_TMP/music
TM="tmux -L crate-an-$$ -f /dev/null"
trap '$TM kill-server 2>/dev/null; rm -rf "$T_TMP"' EXIT
S=an0; NS=0
new_session() {
	local old=$S
	NS=$((NS + 1)); S=an$NS
	tmux_fresh_session "$old" "$S" 110 30 "$1; sleep 30"
}
start_ui() {
	new_session "env LANG=C.UTF-8 TERM=xterm-256color '$CRATE' --db '$DB' --config '$CONF'"
	wait_for "1 Browser" 5
}
cr() { "$CRATE" --db "$DB" --config "$CONF" "$@"; }
analysed() { sqlite3 -cmd ".timeout 5000" "$DB" "SELECT count(*) FROM media_analysis" 2>/dev/null; }

make_clicks() {
	local i b
	for i in $(seq 1 24); do
		b=$((80 + i * 4))
		ffmpeg -nostdin -v error -y -f lavfi \
			-i "aevalsrc='0.5*sin(2*PI*1500*t)*exp(-60*mod(t,60/$b))':s=44100:d=40" \
			-metadata artist="Click $i" -metadata title="Beat $b" "$MUSIC/c$i.flac" || t_fail ffmpeg
	done
}

t_begin tui_analysis_setup
mkdir -p "$MUSIC"
t_shared_media tui_analysis_clicks "$MUSIC" make_clicks
cr scan --quiet "$MUSIC" >/dev/null 2>&1 || t_fail "scan"
[ "$(analysed)" = 0 ] || t_fail "analysed before the interface ran"

t_begin tui_analysis_starts_by_itself_and_pauses
start_ui || t_fail "no interface"
wait_for "analysis " 10 || t_fail "no progress on the status line"
$TM send-keys -t "$S" : && $TM send-keys -t "$S" -l "analyze pause" && $TM send-keys -t "$S" Enter
wait_for "(paused)" 5 || t_fail "not paused"
sleep 1 # the file in progress is finished first
n1=$(analysed); sleep 1.5; n2=$(analysed)
[ "$n1" = "$n2" ] || t_fail "analysis went on while paused ($n1 -> $n2)"
[ "$n1" -lt 24 ] || t_skip "finished before the pause could be seen"

t_begin tui_analysis_resumes_after_restart
$TM send-keys -t "$S" : && $TM send-keys -t "$S" -l "quit" && $TM send-keys -t "$S" Enter
sleep 0.5
before=$(analysed)
start_ui || t_fail "no interface"
for _ in $(seq 600); do [ "$(analysed)" = 24 ] && break; sleep 0.1; done
[ "$(analysed)" = 24 ] || t_fail "analysed $(analysed) of 24 (had $before before the restart)"
wait_gone "analysis " 10 || t_fail "the status line still shows the analysis"

t_begin tui_analysis_results_are_searchable
$TM send-keys -t "$S" /
$TM send-keys -t "$S" -l "bpm:119..121"
wait_for "Beat 120" 5 || t_fail "bpm search in the interface"
out=$(cr search --format '%title%' 'bpm:119..121' 2>&1)
[ "$out" = "Beat 120" ] || t_fail "crate search: $out"
# A running crate answers like: too (crate remote search, and crate search
# when it is handed to the running crate).
out=$(cr remote search 'like:t:"Beat 120"' 2>&1)
case $out in *"23 tracks"*) ;; *) t_fail "remote search like: $out" ;; esac
out=$(cr search --format '%title%' 'like:t:"Beat 120" LIMIT 1' 2>&1)
case $out in "Beat 120") t_fail "like: gave the seed itself" ;; "Beat "*) ;; *) t_fail "search like: with a running crate: $out" ;; esac

t_begin tui_analyze_with_nothing_to_do_says_so
# Every file analysed: ':analyze' said "analysis done: 0 files, 0 not
# analysed", as if it had failed.
$TM send-keys -t "$S" Escape : && $TM send-keys -t "$S" -l "analyze" && $TM send-keys -t "$S" Enter
wait_for "nothing to analyse: every file is analysed already" 10 || t_fail "no message"
screen | grep -q "analysis done: 0 files" && t_fail "analysis done: 0 files"
if t_have_corpus; then
	# A file that failed is counted, not called analysed.
	cp "$CORPUS/flactestbench-faulty_11_-_incorrect_metadata_block_length.flac" "$MUSIC/bad.flac"
	cr scan --quiet "$MUSIC" >/dev/null 2>&1
	cr analyze >/dev/null 2>&1
	for _ in $(seq 100); do # the interface's index catches up
		$TM send-keys -t "$S" : && $TM send-keys -t "$S" -l "analyze" && $TM send-keys -t "$S" Enter
		wait_for "nothing to analyse: 1 file could not be analysed before" 1 >/dev/null 2>&1 && break
	done
	wait_for "nothing to analyse: 1 file could not be analysed before (analysis_error:* finds them" 1 ||
		t_fail "the failed file is not counted"
	rm -f "$MUSIC/bad.flac"
	cr scan --quiet "$MUSIC" >/dev/null 2>&1
fi

t_begin tui_smooth_toggles_the_party_shuffle_shown
$TM send-keys -t "$S" Escape : && $TM send-keys -t "$S" -l "quit" && $TM send-keys -t "$S" Enter
sleep 0.5
cr pshuffle Party '*' --upcoming 5 >/dev/null 2>&1 || t_fail "pshuffle"
cr playlist use Party >/dev/null 2>&1 || t_fail "use"
start_ui || t_fail "no interface"
$TM send-keys -t "$S" 2
wait_for "Party" 5 || t_fail "view 2 does not show Party"
$TM send-keys -t "$S" : && $TM send-keys -t "$S" -l "smooth 0.2" && $TM send-keys -t "$S" Enter
wait_for "each pick sounds like the one before" 5 || t_fail "no message"
out=$(cr coll show Playlists/Party 2>&1)
printf '%s' "$out" | grep -q smooth || t_fail "mode not stored: $out"
# The list says how it picks: view 2's header and view 3's row.
wait_for "Party Shuffle Party (active) – smooth, drift 0.20 – 5 entries" 5 ||
	t_fail "view 2's header does not say smooth"
$TM send-keys -t "$S" 3
wait_for "(upcoming 5, smooth, drift 0.20)" 5 || t_fail "view 3 does not say smooth"
$TM send-keys -t "$S" 2
$TM send-keys -t "$S" : && $TM send-keys -t "$S" -l "smooth" && $TM send-keys -t "$S" Enter
wait_for "random picks" 5 || t_fail "no toggle back"
wait_for "Party Shuffle Party (active) – 5 entries" 5 || t_fail "the header still says smooth"
$TM send-keys -t "$S" : && $TM send-keys -t "$S" -l "smooth 7" && $TM send-keys -t "$S" Enter
wait_for "drift is a number" 5 || t_fail "bad drift accepted"
# Random picks read no drift: one given with off is refused, not kept.
$TM send-keys -t "$S" : && $TM send-keys -t "$S" -l "smooth off 0.4" && $TM send-keys -t "$S" Enter
wait_for "a drift is for smooth mode" 5 || t_fail "a drift with off accepted"
cr coll show Playlists/Party 2>&1 | grep -q '"drift": "0.40"' && t_fail "the drift of off was stored"

t_begin tui_analysis_auto_off_is_respected
# The interface still running (auto = true) would analyse again what the
# reset below deletes: it quits first (it did so only when the next one
# started, and under load analysed in between).
$TM send-keys -t "$S" Escape : && $TM send-keys -t "$S" -l "quit" && $TM send-keys -t "$S" Enter
wait_gone "1 Browser" 10 || t_fail "the interface did not quit"
printf '[analysis]\nauto = false\n' >"$CONF"
cr scan --quiet "$MUSIC" >/dev/null 2>&1
sqlite3 "$DB" "DELETE FROM media_analysis" || t_fail "reset"
start_ui || t_fail "no interface"
sleep 2
[ "$(analysed)" = 0 ] || t_fail "analysed with auto = false"
screen | grep -q "analysis " && t_fail "status shows an analysis"
# Nothing analysed: :smooth says it cannot pick by sound yet.
$TM send-keys -t "$S" 2 : && $TM send-keys -t "$S" -l "smooth on" && $TM send-keys -t "$S" Enter
wait_for "Playlists/Party: smooth, but none of the 24 tracks it draws from is analysed" 5 ||
	t_fail ":smooth on over tracks not analysed"

t_end
