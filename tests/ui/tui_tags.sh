#!/usr/bin/env bash
# Multi-valued tags in the interface (issue 18 part 6): a track with several
# artists is listed under each of them in the browser, and a value holding
# ';' is one artist. Driven through tmux like tests/ui/tui.sh.
. "$(dirname "$0")/../lib.sh"

if ! command -v tmux >/dev/null || ! command -v ffmpeg >/dev/null || ! t_have_corpus; then
	t_begin tui_tags_setup
	t_skip "needs tmux, ffmpeg and the corpus"
	t_end
	exit $?
fi

. "$SRCDIR/tests/lib_tmux.sh"
tmux_private_env
MUSIC=$T_TMP/music
TM="tmux -L crate-tags-$$ -f /dev/null"
trap '$TM kill-server 2>/dev/null; rm -rf "$T_TMP"' EXIT
S=tags1

# The artist column's row for NAME: its 0-based position below "All N artists"
# (the column follows the sidebar's "│ ", and ends at two spaces).
artist_row() {
	screen | sed -n '/All [0-9]* artists/,$p' | awk -v n="$1" '
		{ i = index($0, "│ "); line = substr($0, i + 4); sub(/  .*/, "", line) }
		line == n { print NR - 1; exit }'
}

t_begin tui_tags_setup
mkdir -p "$MUSIC"
cp "$CORPUS/taglib-silence-44-s.flac" "$MUSIC/duo.flac" # ARTIST=piman, ARTIST=jzig
cp "$CORPUS/musicmetadata-id3v2.4-with-multiple-album-artists-null-separated.mp3" "$MUSIC/v24.mp3"
ffmpeg -v error -y -f lavfi -i "sine=frequency=440:duration=1" -metadata artist=jzig \
	-metadata album="Solo Album" -metadata title=Alone "$MUSIC/solo.flac" || t_fail ffmpeg
ffmpeg -v error -y -f lavfi -i "sine=frequency=440:duration=1" -metadata artist="a;c;d" \
	-metadata album="Semi" -metadata title="One Value" "$MUSIC/semi.flac" || t_fail ffmpeg
"$CRATE" --db "$DB" scan --quiet "$MUSIC" >/dev/null 2>&1 || t_fail "scan failed"
$TM new-session -d -s $S -x 100 -y 30 "env LANG=C.UTF-8 TERM=xterm-256color '$CRATE' --db '$DB' --config '$CONF'; sleep 30"
wait_for " artists " || t_fail "no browser"

t_begin tui_track_listed_under_each_artist
for a in piman jzig ArtistOne ArtistTwo "a;c;d"; do
	[ -n "$(artist_row "$a")" ] || t_fail "no artist row '$a'"
done
for a in "a" "c" "d"; do
	[ -z "$(artist_row "$a")" ] || t_fail "';' split 'a;c;d' into an artist '$a'"
done
row=$(artist_row jzig)
if [ -n "$row" ]; then
	for ((i = 0; i < row; i++)); do keys j; done
	wait_for "Solo Album" || t_fail "jzig's own album"
	wait_for "Quod Libet Test" || t_fail "the album jzig shares with piman"
	keys l l
	wait_for "Silence" || t_fail "the shared track under jzig"
	keys h h g
fi
row=$(artist_row ArtistTwo)
if [ -n "$row" ]; then
	for ((i = 0; i < row; i++)); do keys j; done
	wait_for "Friday Night Light" || t_fail "ID3v2.4 second album artist's album"
	keys g
fi

t_begin tui_values_joined_for_display
keys g
wait_for "piman; jzig" || t_fail "track line joins the artists with '; '"
keys q
t_end
