#!/usr/bin/env bash
# like: and smooth Party Shuffle on a library of synthesised "genres":
# four families of seven tracks (drone, kick at 128 BPM, hi-hats at 174,
# chimes at 90), each track with its own noise seed, tempo and level.
. "$(dirname "$0")/../lib.sh"

M=$T_TMP/m; mkdir -p "$M"
: > "$T_TMP/config"
run() { timeout 120 "$CRATE" --db "$T_TMP/db" --config "$T_TMP/config" "$@"; }
gen() { ffmpeg -nostdin -v error -y "$@" || t_fail "ffmpeg $*"; }

families() {
	local i v b
	for i in 1 2 3 4 5 6 7; do
		v=$(awk -v i="$i" 'BEGIN { printf "%.2f", 0.4 + 0.08 * i }')
		gen -f lavfi -i "anoisesrc=d=20:c=brown:a=$v:seed=$i" -af lowpass=f=300 -ac 2 \
			-metadata artist="Drone $i" -metadata title="drone$i" "$M/drone$i.flac"
		b=$((125 + i))
		gen -f lavfi -i "aevalsrc='$v*sin(2*PI*55*t)*exp(-12*mod(t,60/$b))':s=44100:d=20" \
			-f lavfi -i "anoisesrc=d=20:c=pink:a=0.02:seed=$i" -filter_complex amix=inputs=2 -ac 2 \
			-metadata artist="Kick $i" -metadata title="kick$i" "$M/kick$i.flac"
		b=$((171 + i))
		gen -f lavfi -i "anoisesrc=d=20:c=white:a=$v:seed=$((i + 10))" \
			-af "highpass=f=6000,volume='exp(-40*mod(t,60/$b))':eval=frame" -ac 2 \
			-metadata artist="Hats $i" -metadata title="hats$i" "$M/hats$i.flac"
		b=$((87 + i))
		gen -f lavfi -i "aevalsrc='$v*(sin(2*PI*880*t)+0.5*sin(2*PI*1320*t))*exp(-3*mod(t,60/$b))':s=44100:d=20" \
			-ac 2 -metadata artist="Chime $i" -metadata title="chime$i" "$M/chime$i.flac"
	done
}
t_shared_media similarity_families "$M" families
run scan "$M" >/dev/null 2>&1 || t_fail "scan"
run analyze >/dev/null 2>&1 || t_fail "analyze"
family() { echo "$1" | sed 's/[0-9]*$//'; }

t_begin like_returns_the_same_family_first
hits=0 total=0
# every title's id from one search (a search a title was half the
# processes of this test)
declare -A id_of=()
while read -r t id; do id_of[$t]=$id; done < <(run search --format '%title% %id%' '*' 2>/dev/null)
for f in "$M"/*.flac; do
	t=$(basename "$f" .flac)
	id=${id_of[$t]:-}
	near=$(run search --format '%title%' "like:#$id LIMIT 5" 2>"$T_TMP/err")
	[ -n "$near" ] || t_fail "like:#$id gives nothing: $(cat "$T_TMP/err")"
	for n in $near; do
		[ "$n" = "$t" ] && t_fail "like:#$id contains the item itself"
		total=$((total + 1))
		[ "$(family "$n")" = "$(family "$t")" ] && hits=$((hits + 1))
	done
done
echo "    precision@5: $hits / $total" >&2
[ "$total" -eq 140 ] || t_fail "expected 140 neighbours, got $total"
[ $((hits * 10)) -ge $((total * 8)) ] || t_fail "precision@5 $hits/$total is below 0.8"

t_begin like_on_an_artist_and_a_collection
out=$(run search --format '%title%' 'like:a:"Kick 1" LIMIT 4' 2>&1)
[ "$(printf '%s\n' "$out" | grep -c '^kick')" -ge 3 ] || t_fail "like:a:\"Kick 1\": $out"
run coll save Hats 't:hats1 OR t:hats2' >/dev/null 2>&1 || t_fail "coll save"
out=$(run search --format '%title%' 'like:in:Hats LIMIT 3' 2>&1)
[ "$(printf '%s\n' "$out" | grep -c '^hats')" -eq 3 ] || t_fail "like:in:Hats: $out"
out=$(run search --format '%title%' 'like:(t:chime1 OR t:chime2) g:nothing' 2>&1)
[ -z "$out" ] || t_fail "intersection with nothing: $out"

t_begin like_prints_parses_and_explains
out=$(run parse 'like:a:"Kick 1" LIMIT 3' 2>&1)
printf '%s' "$out" | grep -q '"type": *"similar"' || t_fail "parse: $out"
id=$(run search --format '%id%' 't:kick2' 2>/dev/null)
out=$(run explain 'like:a:"Kick 1"' "$id" 2>&1)
printf '%s' "$out" | grep -q 'rank [0-9]* of 27, distance [0-9]* to the centroid of 1 analysed item' ||
	t_fail "explain: $out"
out=$(run search 'like:t:nosuchtitle' 2>&1) && t_fail "like: of nothing accepted"
printf '%s' "$out" | grep -q "like:" || t_fail "message: $out"

# Mean distance between consecutive entries of a Party Shuffle, as
# `crate explain` measures it (squared distances in the quantised space).
mean_step() {
	local ids prev d sum=0 n=0
	ids=$(run playlist list "$1" --format '%id%' 2>/dev/null)
	prev=
	for id in $ids; do
		if [ -n "$prev" ]; then
			d=$(run explain "like:#$prev" "$id" 2>/dev/null | sed -n 's/.*distance \([0-9]*\).*/\1/p' | head -1)
			sum=$(awk -v s="$sum" -v d="$d" 'BEGIN { print s + sqrt(d) }'); n=$((n + 1))
		fi
		prev=$id
	done
	awk -v s="$sum" -v n="$n" 'BEGIN { printf "%.1f", n ? s / n : 0 }'
}

t_begin smooth_party_shuffle_steps_are_smaller_than_uniform
run pshuffle Uniform '*' --upcoming 15 >/dev/null 2>&1 || t_fail "uniform"
run pshuffle Smooth '*' --upcoming 15 --mode smooth --drift 0 >/dev/null 2>"$T_TMP/err" || t_fail "smooth"
[ "$(cat "$T_TMP/err")" = "created Playlists/Smooth, a Party Shuffle picking from '*'" ] ||
	t_fail "a warning over analysed tracks: $(cat "$T_TMP/err")"
u=$(mean_step Uniform) s=$(mean_step Smooth)
echo "    mean step: uniform $u, smooth $s" >&2
awk -v u="$u" -v s="$s" 'BEGIN { exit !(s > 0 && s < 0.6 * u) }' || t_fail "smooth $s vs uniform $u"
# Artists stay apart and nothing repeats.
titles=$(run playlist list Smooth --format '%artist%' 2>/dev/null | sed 's/^ *[0-9]*\. //')
[ "$(printf '%s\n' "$titles" | uniq -d | wc -l)" -eq 0 ] || t_fail "same artist twice in a row"
[ "$(printf '%s\n' "$titles" | sort | uniq -d | wc -l)" -eq 0 ] || t_fail "a repeat"

t_begin smooth_mode_is_kept_and_checked
run coll show Playlists/Smooth 2>/dev/null | grep -q smooth || t_fail "mode not stored"
run pshuffle Bad '*' --mode wobbly >/dev/null 2>&1 && t_fail "bad mode accepted"
run pshuffle Bad '*' --drift 2 >/dev/null 2>&1 && t_fail "bad drift accepted"

t_begin smooth_mode_over_tracks_not_analysed_says_so
# Nothing to pick by sound: the list was made without a word and its
# picks were random.
U=$T_TMP/unheard; mkdir -p "$U"
cp "$M/kick1.flac" "$U/a.flac"; cp "$M/chime1.flac" "$U/b.flac"; cp "$M/hats1.flac" "$U/c.flac"
run scan "$U" >/dev/null 2>&1 || t_fail "scan"
out=$(run pshuffle Unheard "u~$U/" --mode smooth 2>&1) || t_fail "pshuffle: $out"
[ "$out" = "crate: warning: none of the 3 tracks 'u~$U/' matches is analysed: Playlists/Unheard picks at random until they are ('crate analyze')
created Playlists/Unheard, a Party Shuffle picking from 'u~$U/'" ] ||
	t_fail "message: $out"
out=$(run pshuffle Random "u~$U/" 2>&1) || t_fail "pshuffle random: $out"
[ "$out" = "created Playlists/Random, a Party Shuffle picking from 'u~$U/'" ] ||
	t_fail "a warning for random picks: $out"
run analyze "u~$U/" >/dev/null 2>&1 || t_fail "analyze"
out=$(run pshuffle Unheard "u~$U/" --mode smooth 2>&1) || t_fail "pshuffle again: $out"
[ "$out" = "Playlists/Unheard now picks from 'u~$U/'" ] || t_fail "a warning once analysed: $out"

t_begin drift_without_smooth_mode_is_refused
# A drift only smooth picks read: given to a list that picks at random it
# was stored without a word and did nothing.
out=$(run pshuffle Plain '*' --drift 0.1 2>&1) && t_fail "--drift without --mode smooth accepted: $out"
case $out in *"--drift is for smooth mode"*"add --mode smooth"*) ;; *) t_fail "message: $out" ;; esac
run coll show Playlists/Plain >/dev/null 2>&1 && t_fail "Playlists/Plain made all the same"
out=$(run pshuffle Plain '*' --mode random --drift 0.1 2>&1) && t_fail "--mode random --drift accepted: $out"
# A smooth list takes a new drift without --mode again.
run pshuffle Smooth '*' --drift 0.9 >/dev/null 2>&1 || t_fail "a new drift for a smooth list"
run coll show Playlists/Smooth 2>/dev/null | grep -q '"drift": "0.90"' || t_fail "drift not stored"

t_begin like_of_an_item_without_a_sound_says_why
# Analysed, but half a second of sound (or a file that could not be
# analysed): "run 'crate analyze'" sent the user to a command that changes
# nothing.
W=$T_TMP/nosound; mkdir -p "$W"
gen -f lavfi -i "sine=f=440:d=0.5" -ac 2 -metadata title=blip "$W/blip.flac"
have_bad=false
if t_have_corpus; then
	cp "$CORPUS/flactestbench-faulty_11_-_incorrect_metadata_block_length.flac" "$W/bad.flac"
	have_bad=true
fi
run scan "$W" >/dev/null 2>&1; run analyze "u~$W/" >/dev/null 2>&1
blip=$(run search --format '%id%' 't:blip' 2>/dev/null)
[ -n "$(run search --format '%loudness%' 't:blip' 2>/dev/null)" ] || t_fail "blip not analysed"
out=$(run search "like:#$blip" 2>&1) && t_fail "like: of a blip gave: $out"
[ "$out" = "crate: like: #$blip has too little sound to compare (under a second; if it is longer, 'crate analyze --again' measures it anew)" ] ||
	t_fail "blip: $out"
if $have_bad; then
	bad=$(run search --format '%id%' "u~$W/bad.flac" 2>/dev/null)
	out=$(run search "like:#$bad" 2>&1) && t_fail "like: of a failed file gave: $out"
	[ "$out" = "crate: like: #$bad could not be analysed (its analysis_error says why)" ] ||
		t_fail "failed file: $out"
	out=$(run search "like:u~$W/" 2>&1)
	case $out in *"none of the 2 items has a sound to compare: 1 could not be analysed"*) ;;
	*) t_fail "both: $out" ;; esac
fi

t_begin a_bpm_tag_is_the_tempo_like_and_smooth_compare
# A BPM tag wins over the measured tempo in `crate info`; the similarity
# space went on comparing the measured one, so a track a DJ tool tagged at
# half tempo stayed as near its family as before.
k1=$(run search --format '%id%' 't:kick1' 2>/dev/null)
k2=$(run search --format '%id%' 't:kick2' 2>/dev/null)
dist() { run explain "like:#$k1" "$k2" 2>/dev/null | sed -n 's/.*distance \([0-9]*\).*/\1/p' | head -1; }
before=$(dist)
gen -i "$M/kick2.flac" -metadata BPM=64 -c copy "$T_TMP/kick2.flac"
mv "$T_TMP/kick2.flac" "$M/kick2.flac"
run scan "$M" >/dev/null 2>&1 || t_fail "rescan"
run analyze >/dev/null 2>&1 || t_fail "analyze"
[ "$(run search --format '%id%' 't:kick2' 2>/dev/null)" = "$k2" ] || t_fail "kick2 has a new id"
[ "$(run search --format '%bpm%' 't:kick2' 2>/dev/null)" = 64 ] || t_fail "the tag is not the bpm"
after=$(dist)
echo "    kick1 to kick2: $before, tagged 64 BPM: $after" >&2
[ -n "$before" ] && [ -n "$after" ] && [ "$after" -gt $((before + 100)) ] ||
	t_fail "the tag did not move kick2: $before then $after"

t_end
