#!/usr/bin/env bash
# Reliability of the terminal interface (issue 14), driven through tmux on
# the shared corpus library: pointers kept across a scan's commit (item 1),
# the track column after a narrowing search (item 3), losing the terminal
# without SIGHUP (item 10), quitting as q does on SIGHUP, SIGTERM and
# Ctrl-C, and a key-fuzz smoke test (random keys and
# resizes; `make check-asan` runs it under ASan+UBSan, where a memory error
# aborts crate and fails the test).
. "$(dirname "$0")/../lib.sh"

if ! command -v tmux >/dev/null || ! command -v ffmpeg >/dev/null; then
	t_begin tui_rel_setup
	t_skip "needs tmux and ffmpeg"
	t_end
	exit $?
fi
if ! t_have_corpus; then
	t_begin tui_rel_setup
	t_skip "../shared/corpus not found"
	t_end
	exit $?
fi

. "$SRCDIR/tests/lib_tmux.sh"
tmux_private_env
printf '[output]\npace = true\n' >"$CONF"
TM="tmux -L crate-rel-$$ -f /dev/null"
trap '$TM kill-server 2>/dev/null; rm -rf "$T_TMP"' EXIT
# A sanitizer report goes to a file, so a crash is seen even when the pane is gone.
export ASAN_OPTIONS="log_path=$T_TMP/asan${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export UBSAN_OPTIONS="log_path=$T_TMP/ubsan:print_stacktrace=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
sanitizer_reports() { cat "$T_TMP"/asan.* "$T_TMP"/ubsan.* 2>/dev/null | head -30; }

S=rel0; NS=0
# start_crate [PREFIX]: crate in a fresh session; its pid in $T_TMP/pid.
# PREFIX runs in the shell first (e.g. "trap '' HUP;").
# The crate of the session before is gone first: one still dying holds the
# control socket, and the next one starts without it ("remote control off").
start_crate() {
	local old=$S oldpid
	oldpid=$(crate_pid)
	NS=$((NS + 1)); S=rel$NS
	$TM kill-session -t "$old" 2>/dev/null
	if [ -n "$oldpid" ] && ! wait_exit "$oldpid" 10; then
		t_fail "the crate of the session before still runs 10 s after its session closed"
		kill -9 "$oldpid" 2>/dev/null
	fi
	rm -f "$T_TMP/pid"
	tmux_fresh_session "$old" "$S" 100 30 \
		"${1:-} echo \$\$ >'$T_TMP/pid'; exec env LANG=C.UTF-8 TERM=xterm-256color '$CRATE' --db '$DB' --config '$CONF'"
	wait_for "1 Browser" 20
}
crate_pid() { cat "$T_TMP/pid" 2>/dev/null; }
alive() { local p; p=$(crate_pid); [ -n "$p" ] && kill -0 "$p" 2>/dev/null; }
# exited PID: the process has ended (a zombie its parent, tmux, has not
# reaped yet counts as ended).
exited() { ! kill -0 "$1" 2>/dev/null || [ "$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null)" = Z ]; }
# wait_exit PID SECONDS: wait until PID has ended; false if it has not.
wait_exit() {
	local i
	for ((i = 0; i < $2 * 10; i++)); do exited "$1" && return 0; sleep 0.1; done
	exited "$1"
}

t_begin tui_rel_setup
"$CRATE" --db "$DB" scan --quiet "$CORPUS" >/dev/null 2>&1
ntracks=$("$CRATE" --db "$DB" list --format '%id%' 2>/dev/null | wc -l)
[ "$ntracks" -ge 100 ] || t_fail "corpus library has $ntracks tracks"
EXTRA=$T_TMP/extra
mkdir -p "$EXTRA"
for i in 1 2; do
	ffmpeg -v error -y -f lavfi -i "sine=frequency=$((300 * i)):duration=1" -ac 1 \
		-metadata artist="Late Scan" -metadata title="Extra $i" "$EXTRA/extra$i.flac" ||
		t_fail "ffmpeg"
done

# Item 1: the scan thread commits on its own connection; the next edit
# reloads the store. The active playlist's name held across that reload
# was freed (ASan: heap-use-after-free in entry_find; a release build
# reported "Playlists/<heap bytes> does not exist").
t_begin tui_add_after_a_scan_uses_the_active_playlist
start_crate || t_fail "no title bar"
keys :
typed "scan $EXTRA"
keys Enter
wait_for "scan done" 60 || t_fail "scan did not finish"
keys l l a
wait_for "added 1 track" 15 || t_fail "'a' after the scan did not add to the active playlist"
screen | grep -q "does not exist" && t_fail "the active playlist was lost: $(screen | grep 'does not exist')"
alive || t_fail "crate died: $(sanitizer_reports)"
n=$("$CRATE" --db "$DB" playlist list 2>/dev/null | grep -c .)
[ "$n" -ge 1 ] || t_fail "nothing in the active playlist ($n)"

# Item 3: the track column kept positions of the old results and read them
# in a new, smaller result set (ASan: heap-buffer-overflow in
# browser_rebuild_tracks).
t_begin tui_narrowing_search_keeps_the_track_column_in_bounds
keys Escape 1
keys g l l G
keys /
typed "#5"
sleep 0.5
typed "0"
sleep 0.3
keys BSpace BSpace BSpace
sleep 0.3
alive || t_fail "crate died: $(sanitizer_reports)"
keys Escape
wait_for "1 Browser" 10 || t_fail "the interface does not answer"
[ -z "$(sanitizer_reports)" ] || t_fail "sanitizer: $(sanitizer_reports)"

# The key-fuzz smoke test: random keys (never q or :, which quit or run
# commands) with resizes in between, for a few seconds; crate must stay
# alive, answer, and raise no sanitizer report.
t_begin tui_key_fuzz_smoke
start_crate || t_fail "no title bar"
KEYS=(j k l h g G Enter Space v b z Left Right + - r S / n N Escape a e s d 1 2 3 4 K J
	'?' C-l PgUp PgDn Home End Tab BTab BSpace Up Down x y '#' 5 '~' '(' ')' '"' '*' '!' 0)
RANDOM=${CRATE_KEYFUZZ_SEED:-14}
end=$((SECONDS + ${CRATE_KEYFUZZ_SECONDS:-6}))
sent=0
while [ $SECONDS -lt $end ]; do
	batch=()
	for _ in 1 2 3 4 5 6 7 8; do batch+=("${KEYS[RANDOM % ${#KEYS[@]}]}"); done
	keys "${batch[@]}" 2>/dev/null
	sent=$((sent + 8))
	if [ $((RANDOM % 6)) -eq 0 ]; then
		$TM resize-window -t "$S" -x $((10 + RANDOM % 140)) -y $((3 + RANDOM % 50)) 2>/dev/null
	fi
	alive || break
	sleep 0.02
done
alive || t_fail "crate died after $sent keys (seed ${CRATE_KEYFUZZ_SEED:-14}): $(sanitizer_reports)"
$TM resize-window -t "$S" -x 100 -y 30 2>/dev/null
keys Escape Escape 1 C-l
wait_for "1 Browser" 10 || t_fail "the interface does not answer after $sent keys"
[ -z "$(sanitizer_reports)" ] || t_fail "sanitizer: $(sanitizer_reports)"

# Item 10: SIGHUP ignored (nohup, su -c, some SSH setups) and the terminal
# gone: crate used to poll the dead terminal at 70-93 % CPU forever. It
# must quit the way 'q' does (control socket removed, database closed).
t_begin tui_terminal_loss_without_sighup_exits
start_crate "trap '' HUP;" || t_fail "no title bar"
pid=$(crate_pid)
[ -n "$pid" ] || t_fail "no pid"
sock=$XDG_RUNTIME_DIR/crate/socket; [ -S "$sock" ] || t_fail "no control socket while running"
remote_off=$(screen | grep -o 'remote control off.*')
$TM kill-server 2>/dev/null
for _ in $(seq 200); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
if kill -0 "$pid" 2>/dev/null; then
	cpu=$(ps -o %cpu= -p "$pid" 2>/dev/null)
	t_fail "crate still runs 20 s after its terminal went away (cpu ${cpu}%)"
	kill -9 "$pid" 2>/dev/null
else
	[ -z "$sock" ] || [ ! -e "$sock" ] ||
		t_fail "control socket $sock left behind: not a clean quit${remote_off:+ (the screen said: $remote_off)}"
	[ ! -s "$DB-wal" ] || t_fail "$DB-wal left behind: the database was not closed"
	[ "$(t_integrity "$DB")" = ok ] || t_fail "integrity: $(t_integrity "$DB")"
fi
[ -z "$(sanitizer_reports)" ] || t_fail "sanitizer: $(sanitizer_reports)"

# A hang-up (an SSH link dropped, a terminal window closed), SIGTERM (kill,
# a logout) and Ctrl-C quit as 'q' does: crate used to die of them,
# leaving its control socket behind and the last seconds of its resume
# state unsaved (it saves every 3 s). The search typed just before the
# signal is in the state file afterwards.
quits_cleanly_on() { # SIGNAL HOW: HOW is "kill" (the signal sent to crate) or "tmux" (the session closed)
	start_crate || t_fail "no title bar"
	local pid word=Sig$1x
	pid=$(crate_pid)
	[ -n "$pid" ] || t_fail "no pid"
	[ -S "$sock" ] || t_fail "no control socket while running"
	keys / C-u
	typed "$word"
	keys Enter
	wait_for "$word" 10 || t_fail "the search was not typed"
	if [ "$2" = tmux ]; then
		$TM kill-session -t "$S"
	else
		kill -"$1" "$pid"
	fi
	if ! wait_exit "$pid" 10; then
		t_fail "crate still runs 10 s after SIG$1"
		kill -9 "$pid" 2>/dev/null
		return
	fi
	[ ! -e "$sock" ] || t_fail "SIG$1: control socket left behind: not a clean quit"
	[ ! -s "$DB-wal" ] || t_fail "SIG$1: $DB-wal left behind: the database was not closed"
	grep -qx "search=$word" "$DB.state" 2>/dev/null ||
		t_fail "SIG$1: the search typed before it was not saved: $(grep '^search=' "$DB.state" 2>&1)"
	[ -z "$(sanitizer_reports)" ] || t_fail "sanitizer: $(sanitizer_reports)"
}
t_begin tui_hangup_quits_cleanly
quits_cleanly_on HUP tmux
t_begin tui_sigterm_quits_cleanly
quits_cleanly_on TERM kill
t_begin tui_sigint_quits_cleanly
quits_cleanly_on INT kill

# Item 15: eight idle same-user clients used to fill the control socket for
# 5 s, and the next client was closed unanswered ("malformed answer from
# crate"). Now idle clients go after 2 s and others wait in the queue.
t_begin tui_idle_clients_do_not_lock_out_the_remote
start_crate || t_fail "no title bar"
PY=$(command -v /usr/bin/python3 || command -v python3)
if [ -z "$PY" ]; then
	t_skip "needs python3 for the idle clients"
else
	"$PY" -c '
import socket, sys, time
socks = []
for i in range(8):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(sys.argv[1])
    socks.append(s)
time.sleep(8)
' "$XDG_RUNTIME_DIR/crate/socket" &
	idle=$!
	sleep 0.5
	t0=$SECONDS
	out=$("$CRATE" --db "$DB" remote ping 2>&1)
	rc=$?
	[ $rc -eq 0 ] || t_fail "remote ping with 8 idle clients: exit $rc: $out"
	echo "$out" | grep -q "malformed" && t_fail "misleading message: $out"
	[ $((SECONDS - t0)) -le 6 ] || t_fail "took $((SECONDS - t0)) s"
	kill $idle 2>/dev/null
	wait $idle 2>/dev/null
fi

t_end
