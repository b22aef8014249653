# tmux helpers for the UI suites (source after tests/lib.sh). The caller sets
# TM (the tmux command with its own server socket) and S (the session name).

# tmux_private_env: HOME, XDG directories and the runtime directory (for the
# control socket) under $T_TMP, audio to $H/out.raw; sets H, DB and CONF.
tmux_private_env() {
	H=$T_TMP/home
	export HOME=$H XDG_CONFIG_HOME=$H/.config XDG_DATA_HOME=$H/.local/share XDG_RUNTIME_DIR=$T_TMP/run
	mkdir -p "$XDG_RUNTIME_DIR" && chmod 700 "$XDG_RUNTIME_DIR"
	t_sink_home "$H"
	DB=$T_TMP/lib.db
	CONF=$H/config
}

screen() { $TM capture-pane -p -t "$S" "$@" 2>/dev/null; }
# wait_for TEXT [SECONDS]: poll the screen until it shows TEXT.
wait_for() {
	local i n=$(( ${2:-5} * 20 ))
	for ((i = 0; i < n; i++)); do
		screen | grep -qF -- "$1" && return 0
		sleep 0.05
	done
	echo "    --- screen while waiting for '$1':" >&2
	screen | grep -v '^ *$' | sed 's/^/    | /' >&2
	return 1
}
# wait_gone TEXT [SECONDS]: poll until TEXT has left the screen.
wait_gone() {
	local i n=$(( ${2:-5} * 20 ))
	for ((i = 0; i < n; i++)); do
		screen | grep -qF -- "$1" || return 0
		sleep 0.05
	done
	return 1
}
# wait_screen EXPECTED [SECONDS]: poll until the whole screen (capture-pane:
# trailing blanks and blank last lines dropped) is EXPECTED; shows both when not.
wait_screen() {
	local i n=$(( ${2:-5} * 20 ))
	for ((i = 0; i < n; i++)); do
		[ "$(screen)" = "$1" ] && return 0
		sleep 0.05
	done
	echo "    --- expected screen:" >&2
	printf '%s\n' "$1" | sed 's/^/    | /' >&2
	echo "    --- screen:" >&2
	screen | sed 's/^/    | /' >&2
	return 1
}
# wait_until SECONDS COMMAND...: poll until COMMAND succeeds.
wait_until() {
	local i n=$(( $1 * 20 ))
	shift
	for ((i = 0; i < n; i++)); do
		"$@" && return 0
		sleep 0.05
	done
	return 1
}
keys() { $TM send-keys -t "$S" "$@"; }
typed() { $TM send-keys -t "$S" -l -- "$1"; }

# tmux_fresh_session OLD NEW W H COMMAND: close session OLD, open NEW.
# A session "keep" holds the server up meanwhile: killing a server's last
# session ends the server, and a new-session racing that exit fails with
# "server exited unexpectedly" (seen under load in CI).
tmux_fresh_session() {
	$TM has-session -t keep 2>/dev/null || $TM new-session -d -s keep -x 20 -y 5 "sleep 86400"
	$TM kill-session -t "$1" 2>/dev/null
	$TM new-session -d -s "$2" -x "$3" -y "$4" "$5"
}

# tmux_suite NAME [COMMAND...]: the preamble of a UI suite. Without tmux (or
# one of the commands) the suite is one skipped test, tui_NAME_setup, and the
# script exits. Otherwise: a private environment (tmux_private_env), TM for a
# private server crate-NAME-PID, killed with T_TMP at exit (made writable
# first: a suite may have taken permissions away), and session names NAME1,
# NAME2, ... for tmux_crate.
tmux_suite() {
	local name=$1 c
	shift
	for c in tmux "$@"; do
		command -v "$c" >/dev/null && continue
		t_begin "tui_${name}_setup"
		t_skip "needs tmux${*:+ and $*}"
		t_end
		exit $?
	done
	tmux_private_env
	TM="tmux -L crate-$name-$$ -f /dev/null"
	SUITE=$name S=${name}0 NS=0
	# crate may still write its state file as the server goes: rm once more
	trap '$TM kill-server 2>/dev/null; chmod -R u+rwx "$T_TMP" 2>/dev/null
		rm -rf "$T_TMP" 2>/dev/null || { sleep 0.5; rm -rf "$T_TMP"; }' EXIT
}

# tmux_crate W H [CONFIG]: crate on $DB with CONFIG (default $CONF) in a
# fresh W x H session; waits for its title bar.
tmux_crate() {
	local old=$S
	NS=$((NS + 1)); S=$SUITE$NS
	tmux_fresh_session "$old" "$S" "$1" "$2" \
		"env LANG=C.UTF-8 TERM=xterm-256color '$CRATE' --db '$DB' --config '${3:-$CONF}'; sleep 30"
	wait_for "1 Browser" 5
}
