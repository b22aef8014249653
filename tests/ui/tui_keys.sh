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

t_end
