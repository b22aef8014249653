#!/usr/bin/env bash
# Texts that name keys follow [keys] in the config: the bottom row's hint
# (an action without a key left out), the help's heading and summary; and
# the help's seek and volume lines say playback.seek_step / volume_step.
# Real binary in a private tmux server.
. "$(dirname "$0")/../lib.sh"

. "$SRCDIR/tests/lib_tmux.sh"
tmux_suite keys
cat >"$CONF" <<'CONF'
[keys]
help = F2
command =
view_files = 9
quit = x
mark = t
add = y
enqueue = E
[playback]
volume_step = 10
seek_step = 15
CONF

t_begin tui_keys_hint_and_help_name_the_keys_as_bound
tmux_crate 100 40 || t_fail "no title bar"
wait_for "F2 help  / search  1 2 3 4 9 views  x quit" ||
	t_fail "the hint does not follow [keys]: $(screen | tail -1)"
keys F2
wait_for "vol_up" || t_fail "F2 did not open the help"
screen | grep -q "Help – x or Esc to go back" || t_fail "heading: $(screen | head -1)"
screen | grep -Eq "vol_up +volume up 10 %" || t_fail "volume step not said"
screen | grep -Eq "seek_back +seek back 15 s" || t_fail "seek step not said"
keys G
wait_for "Marks: t marks a row" || t_fail "the summary names the default key"
screen | grep -q "9 files:" || t_fail "view 5's key: $(screen | grep files:)"
screen | grep -q "Command line ((unbound))" || t_fail "the unbound ':' is named"
keys x

t_begin tui_keys_help_heading_fits_at_80_columns
# At 80 columns the heading was cut to "Help – x or Esc to…": where the
# tabs leave too little room it says it shorter.
tmux_crate 80 24 || t_fail "no title bar"
keys F2
wait_for "vol_up" || t_fail "F2 did not open the help"
screen | head -1 | grep -q "Files  *Help – x: back *$" || t_fail "heading: $(screen | head -1)"

t_begin tui_keys_help_wraps_at_80_columns
# At 80 columns the help cut fifteen of its lines ("search (a query:
# filters the browser, find…"): a line wider than the window now goes on
# in the rows under it, under the description's column.
keys j j j
wait_gone "page_up" || t_fail "j did not scroll the help"
screen | grep -A1 "search (a query: filters the browser, finds *$" |
	grep -Eq "^ {37}in a list\) *$" || t_fail "the search line: $(screen | grep -A1 "search (")"
for page in 1 2 3 4 5; do
	screen | sed '1d' | head -n -3 | grep -q "…" && t_fail "page $page cuts: $(screen | grep "…")"
	keys C-f
	sleep 0.2
done
keys G
wait_for "ORDER BY -year LIMIT 20" || t_fail "G does not reach the help's last line"
keys x

t_begin tui_keys_tabs_name_the_view_keys_as_bound
# The tabs said "5 Files" with view_files bound to 9 (5 then did nothing).
tmux_crate 100 20 || t_fail "no title bar"
wait_for " 1 Browser   2 Playlist   3 Collections   4 Rules   9 Files " ||
	t_fail "the tabs: $(screen | head -1)"
keys 9
wait_for "folder" || t_fail "9 did not open the files view"
keys x

t_begin tui_keys_empty_playlist_says_what_fills_it
# An empty list's line names the key that fills it, as bound: add (y
# here) fills only the active playlist, enqueue (E) only the queue; an
# opened playlist that is not active says how to make it so ("'a' in the
# browser adds tracks here" was wrong for both, and for a rebound add).
c() { "$CRATE" --db "$DB" "$@" >/dev/null 2>&1; }
c playlist new Other || t_fail "playlist new"
tmux_crate 100 20 || t_fail "no title bar"
keys Q
wait_for "the queue is empty: E appends the selection to it" || t_fail "Q without a queue"
c playlist new Queue --queue || t_fail "playlist new --queue"
keys 2
wait_for "(empty: y in the browser adds tracks here)" ||
	t_fail "the active playlist's hint"
keys 3
wait_for "Other" || t_fail "collections view"
keys G k Enter
wait_for "Playlist Other – 0 entries" || t_fail "Other not opened"
wait_for "(empty: y in the browser adds to the active playlist; :playlist use makes this one active)" ||
	t_fail "a playlist not active"
keys 3 G Enter
wait_for "Playlist Queue [queue] – 0 entries" || t_fail "the queue not opened"
wait_for "(empty: E in the browser appends tracks here)" || t_fail "the queue's hint"
keys x

t_end
