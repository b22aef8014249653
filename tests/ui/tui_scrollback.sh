#!/usr/bin/env bash
# The ':' line runs the command layer in-process with an output sink (no
# dup2 of the terminal's descriptors): one line of output goes to the
# message line; more opens the scrollback pane, whole, scrollable, closed
# with q. Before the sink, ':info 1' showed only its last line with a
# count ("genre = ... (21 lines)").
. "$(dirname "$0")/../lib.sh"

if ! command -v tmux >/dev/null; then
	t_begin tui_scrollback_setup
	t_skip "needs tmux"
	t_end
	exit $?
fi

. "$SRCDIR/tests/lib_tmux.sh"
tmux_private_env
: >"$CONF"
TM="tmux -L crate-sb-$$ -f /dev/null"
trap '$TM kill-server 2>/dev/null; rm -rf "$T_TMP"' EXIT
S=sb
cr() { "$CRATE" --db "$DB" --config "$CONF" "$@"; }
command_line() { keys :; typed "$1"; keys Enter; }

t_begin tui_scrollback_setup
cr scan --quiet "$SRCDIR/data/demo" >/dev/null 2>&1 || t_fail "scan failed"
INFO=$(cr info 1 2>/dev/null)
NINFO=$(printf '%s\n' "$INFO" | wc -l)
[ "$NINFO" -gt 12 ] || t_fail "info 1 has only $NINFO lines; the test needs more than the pane shows"
LAST=$(printf '%s\n' "$INFO" | tail -1)
# A short window: the pane shows fewer lines than info prints.
$TM new-session -d -s $S -x 90 -y 14 \
	"env LANG=C.UTF-8 TERM=xterm-256color '$CRATE' --db '$DB' --config '$CONF'; sleep 30"
wait_for "1 Browser" 5 || t_fail "no title bar"

t_begin tui_info_shows_whole_output_in_scrollback
command_line "info 1"
wait_for ":info 1  lines 1-" || t_fail "no scrollback pane"
screen | grep -qx "id = 1 *" || t_fail "first line 'id = 1' not shown"
# more than one line of the output is visible at once
shown=$(screen | grep -cE '^[a-z_]+ = ')
[ "$shown" -gt 3 ] || t_fail "only $shown output lines visible"
screen | grep -qF "$LAST" && t_fail "the last line fits: the window is too tall for the test"
wait_for "lines above (q closes)" || t_fail "no hint on the message line"

t_begin tui_scrollback_scrolls
keys G
wait_for "$LAST" || t_fail "G did not show the last line '$LAST'"
wait_gone "id = 1" || t_fail "the first line still shows after G"
keys g
wait_for "id = 1" || t_fail "g did not go back to the top"
keys j
wait_for ":info 1  lines 2-" || t_fail "j did not scroll one line"
keys k
wait_for ":info 1  lines 1-" || t_fail "k did not scroll back"
keys PageDown
wait_gone ":info 1  lines 1-" || t_fail "PgDn did not scroll"
keys PageUp
wait_for ":info 1  lines 1-" || t_fail "PgUp did not scroll back"

# End and Home as tmux sends them (ESC [4~, ESC [1~) under TERM=xterm,
# whose terminfo knows other sequences: End used to arrive as Escape then
# "[4~", closing the pane and switching to view 4.
t_begin tui_end_and_home_as_tmux_sends_them
keys g
$TM send-keys -t "$S" -H 1b 5b 34 7e
wait_for "$LAST" || t_fail "End (ESC [4~) did not go to the last line"
screen | grep -q ":info 1  lines" || t_fail "End closed the scrollback pane"
screen | grep -q "4 Rules" && screen | grep -q "^ *Rule" && t_fail "End switched to view 4"
$TM send-keys -t "$S" -H 1b 5b 31 7e
wait_for "id = 1" || t_fail "Home (ESC [1~) did not go back to the top"

t_begin tui_scrollback_q_dismisses
keys q
wait_gone ":info 1  lines" || t_fail "q did not close the pane"
wait_for "1 Browser" || t_fail "the interface is gone"
screen | grep -q "A browser" >/dev/null # the browser is back (its columns)
$TM list-sessions >/dev/null 2>&1 || t_fail "q quit crate instead of closing the pane"

t_begin tui_one_line_output_stays_on_the_message_line
command_line "coll save Later a:x"
command_line "coll list Collections"
wait_for "Later" || t_fail "coll list's one line not on the message line"
screen | grep -q ":coll list" && t_fail "one line opened the scrollback pane"
command_line "coll show NoSuch"
wait_for "crate: Collections/NoSuch does not exist" || t_fail "error not on the message line"

t_begin tui_help_of_a_command_in_scrollback
command_line "help coll save"
wait_for ":help coll save  lines" || t_fail ":help coll save not in the pane"
# It said "usage: crate coll save ..." (typed ':coll save' here).
wait_for "usage: coll save NAME QUERY" || t_fail "no usage line"
screen | grep -q "usage: crate " && t_fail "the usage is the shell's: $(screen)"
keys Escape
wait_gone ":help coll save  lines" || t_fail "Esc did not close the pane"
# The group's list ended "'crate help COMMAND' (or 'crate COMMAND --help')".
command_line "help coll"
wait_for ":help coll  lines" || t_fail ":help coll not in the pane"
keys G
wait_for "':help COMMAND' (or ':COMMAND --help') says more about one." ||
	t_fail ":help coll's last line: $(screen)"
keys Escape
wait_gone ":help coll  lines" || t_fail "Esc did not close the pane"
command_line "coll save OnlyName"
wait_for "usage: coll save NAME QUERY" || t_fail ":coll save with one word: $(bottom)"
command_line "help coll save"
wait_for ":help coll save  lines" || t_fail ":help coll save not in the pane again"
keys Escape
wait_gone ":help coll save  lines" || t_fail "Esc did not close the pane"

t_begin tui_scrollback_wraps_long_lines_at_80_columns
# At 80 columns ':help playlist' cut its descriptions ("create an empty
# playlist (--queu…"): a line wider than the pane now goes on in the next
# rows, under the table's column, and rewraps when the window changes.
$TM resize-window -t $S -x 80 -y 30
command_line "help playlist"
wait_for ":help playlist  lines" || t_fail ":help playlist not in the pane"
screen | grep -q "…" && t_fail "a line is cut: $(screen | grep "…")"
screen | grep -Eq "^  playlist new NAME \[--queue\] +create an empty playlist *$" ||
	t_fail "the first row: $(screen | grep "playlist new")"
screen | grep -A2 "playlist new" | grep -Eq "^ {47}removed\) *$" ||
	t_fail "the rest of it: $(screen | grep -A2 "playlist new")"
$TM resize-window -t $S -x 40 -y 30
wait_for "    create an empty playlist (--queue:" || t_fail "not rewrapped at 40 columns"
# the pane's rows, without its heading and the status rows under it
screen | sed '1,2d' | head -n -3 | grep -q "…" &&
	t_fail "a line is cut at 40 columns: $(screen | grep "…")"
keys q
$TM resize-window -t $S -x 90 -y 14

t_end
