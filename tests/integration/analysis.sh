#!/usr/bin/env bash
# crate analyze: loudness against FFmpeg's ebur128 filter, tempo against
# click tracks of known BPM, results kept across rescans, bad input, and
# computed ReplayGain heard through ALSA's file plugin.
. "$(dirname "$0")/../lib.sh"

M=$T_TMP/m; mkdir -p "$M"
H=$T_TMP/home; t_sink_home "$H" "$T_TMP/out.raw"
: > "$T_TMP/config"
run() { HOME=$H timeout 120 "$CRATE" --db "$T_TMP/db" --config "$T_TMP/config" "$@"; }
gen() { ffmpeg -nostdin -v error -y "$@" || t_fail "ffmpeg $*"; }
sine() { # sine FILE DBFS SECONDS [extra ffmpeg args]: stereo 1 kHz, peak at DBFS
	local f=$1 a; a=$(awk -v d="$2" 'BEGIN { printf "%.9f", 10^(d/20) }'); shift 3
	gen -f lavfi -i "aevalsrc=$a*sin(2*PI*1000*t)|$a*sin(2*PI*1000*t):s=48000:d=20" "$@" "$f"
}
# ffmpeg_lufs FILE [dualmono]: integrated loudness (3 decimals) by ffmpeg's ebur128 filter.
ffmpeg_lufs() {
	ffmpeg -nostdin -v error -i "$1" -af "ebur128=metadata=1:peak=true${2:+:dualmono=true},ametadata=print:file=-" \
		-f null - 2>/dev/null | sed -n 's/^lavfi.r128.I=//p' | tail -1
}
ffmpeg_tp() {
	ffmpeg -nostdin -v error -i "$1" -af "ebur128=metadata=1:peak=true,ametadata=print:file=-" \
		-f null - 2>/dev/null | sed -n 's/^lavfi.r128.true_peak=//p' | tail -1
}
prop() { run search --format "%$2%" "t:$1" 2>/dev/null; }
near() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(a != "" && b != "" && d <= t) }'; }

synthesised() {
	local b
	sine "$M/t23.flac" -23 20 -metadata title=t23 -metadata album=Both
	sine "$M/t33.flac" -33 20 -metadata title=t33 -metadata album=Both
	gen -f lavfi -i "anoisesrc=d=20:c=pink:a=0.3:seed=7" -ac 2 -ar 44100 -c:a libmp3lame -b:a 192k \
		-metadata title=pink "$M/pink.mp3"
	gen -f lavfi -i "aevalsrc=0.2*sin(2*PI*440*t):s=44100:d=10" -metadata title=mono "$M/mono.flac"
	for b in 90 120 128 174; do
		gen -f lavfi -i "aevalsrc='0.5*sin(2*PI*1500*t)*exp(-60*mod(t,60/$b))':s=44100:d=30" \
			-metadata title="click$b" "$M/click$b.flac"
	done
}
t_shared_media analysis_synthesised "$M" synthesised
gen -f lavfi -i "anullsrc=r=44100:cl=stereo" -t 5 -metadata title=silence "$M/silence.flac"
gen -f lavfi -i "sine=f=300:d=1" -metadata title=onesec "$M/onesec.flac"
gen -f lavfi -i "sine=f=500:d=3" -af "pan=7.1|c0=c0|c1=c0|c2=c0|c3=c0|c4=c0|c5=c0|c6=c0|c7=c0" \
	-metadata title=eight "$M/eight.flac"
gen -f lavfi -i "sine=f=500:d=3:sample_rate=192000" -metadata title=hirate "$M/hirate.flac"
# A file that scans (good header) but whose audio is garbage after 1 s.
gen -f lavfi -i "sine=f=700:d=20" -metadata title=broken "$M/broken.flac"
size=$(stat -c %s "$M/broken.flac")
head -c $((size / 10)) "$M/broken.flac" > "$T_TMP/b" && head -c $((size - size / 10)) /dev/urandom >> "$T_TMP/b"
cp "$T_TMP/b" "$M/broken.flac"

run scan "$M" >/dev/null 2>&1 || t_fail "scan"

t_begin analyze_analyses_every_file_and_reports
run analyze >"$T_TMP/out" 2>"$T_TMP/err"; rc=$?
[ $rc -eq 0 ] || [ $rc -eq 2 ] || t_fail "exit $rc: $(cat "$T_TMP/err")"
grep -q "^analysed 13 of 13 files" "$T_TMP/err" || t_fail "report: $(cat "$T_TMP/err")"
run analyze >/dev/null 2>"$T_TMP/err2" || t_fail "second run failed"
# nothing left: said so, with the way to measure again (not "analysed 0 of 0
# files"); broken.flac's random bytes may make it one that failed (below)
if grep -q "not analysed: .*broken.flac" "$T_TMP/err"; then
	grep -q "^nothing to analyse: 1 file could not be analysed before" "$T_TMP/err2" ||
		t_fail "second run did work again, or did not say why not: $(cat "$T_TMP/err2")"
else
	grep -qx "nothing to analyse: every file is analysed already ('crate analyze --again' measures them anew)" "$T_TMP/err2" ||
		t_fail "second run did work again, or did not say why not: $(cat "$T_TMP/err2")"
fi

t_begin loudness_within_0.1_lu_of_ffmpeg_ebur128
for t in t23:-23 t33:-33 pink: mono:dualmono eight:; do
	name=${t%%:*} f=$(ls "$M/$name".*) ours=$(prop "$name" loudness)
	ref=$(ffmpeg_lufs "$f" "$( [ "${t#*:}" = dualmono ] && echo 1)")
	near "$ours" "$ref" 0.1 || t_fail "$name: crate $ours, ffmpeg $ref"
	case ${t#*:} in -*) near "$ours" "${t#*:}" 0.1 || t_fail "$name: crate $ours, EBU ${t#*:}" ;; esac
done

t_begin true_peak_within_0.2_db_of_ffmpeg
ours=$(prop pink truepeak) ref=$(ffmpeg_tp "$M/pink.mp3")
ref_db=$(awk -v p="$ref" 'BEGIN { printf "%.3f", 20*log(p)/log(10) }')
near "$ours" "$ref_db" 0.2 || t_fail "crate $ours dBTP, ffmpeg $ref_db"

t_begin tempo_of_click_tracks_within_1_bpm
for b in 90 120 128 174; do
	got=$(prop "click$b" bpm)
	near "$got" "$b" 1 || t_fail "click $b: $got"
done
[ "$(run search --format '%title%' 'bpm:118..124' 2>/dev/null)" = click120 ] ||
	t_fail "bpm:118..124 gives $(run search --format '%title%' 'bpm:118..124' 2>&1)"
[ "$(run search --format '%title%' 'loudness>-24 loudness<-22' 2>/dev/null)" = t23 ] ||
	t_fail "loudness range query"

t_begin a_bpm_tag_wins_with_no_confidence_of_ours
# The tag's 60 was shown with our confidence in our own 120 (0.9), so
# bpm_confidence>0.5 found a tempo nobody had measured.
G=$T_TMP/tagged; mkdir -p "$G"
ffmpeg -nostdin -v error -y -i "$M/click120.flac" -metadata BPM=60 -c copy "$G/click120.flac" ||
	t_fail "tag"
tg() { HOME=$H timeout 120 "$CRATE" --db "$T_TMP/tagged.db" --config "$T_TMP/config" "$@"; }
tg scan "$G" >/dev/null 2>&1 && tg analyze >/dev/null 2>&1 || t_fail "scan and analyze"
out=$(tg info "$G/click120.flac" 2>&1 | grep '^bpm')
[ "$out" = "bpm = 60" ] || t_fail "tagged file: $out"
[ -n "$(prop click120 bpm_confidence)" ] || t_fail "an untagged file lost its confidence"

t_begin album_loudness_over_both_tracks
a1=$(prop t23 album_loudness) a2=$(prop t33 album_loudness)
[ -n "$a1" ] && [ "$a1" = "$a2" ] || t_fail "album loudness '$a1' '$a2'"
near "$a1" -25.5 1.5 || t_fail "album loudness $a1 not between the tracks"
[ -z "$(prop pink album_loudness)" ] || t_fail "a file without album has album loudness"

t_begin bad_input_gives_a_result_or_a_reason
[ -z "$(prop silence loudness)" ] || t_fail "silence has a loudness"
[ -z "$(prop silence bpm)" ] || t_fail "silence has a tempo"
[ -n "$(prop onesec loudness)" ] || t_fail "1-second file: no loudness"
[ -n "$(prop eight loudness)" ] || t_fail "8 channels: no loudness"
[ -n "$(prop hirate loudness)" ] || t_fail "192 kHz: no loudness"
if [ -z "$(prop broken loudness)" ]; then
	# Not analysed: then the reason is kept and was printed.
	[ -n "$(prop broken analysis_error)" ] || t_fail "broken: neither result nor reason"
	grep -q "not analysed: .*broken.flac" "$T_TMP/err" || t_fail "broken: reason not printed"
fi

t_begin a_file_without_decodable_audio_is_not_analysed
# It opens, but every packet fails (playback says "no audio could be
# decoded"): it was counted as analysed, with no result and no reason.
if ! t_have_corpus; then
	t_skip "no corpus"
else
	F=flactestbench-faulty_11_-_incorrect_metadata_block_length.flac
	N=$T_TMP/nodec; mkdir -p "$N"; cp "$CORPUS/$F" "$N/"
	nd() { HOME=$H timeout 120 "$CRATE" --db "$T_TMP/nodec.db" --config "$T_TMP/config" "$@"; }
	nd scan "$N" >/dev/null 2>&1
	nd analyze >/dev/null 2>"$T_TMP/err10"
	grep -q "^analysed 0 of 1 files, 1 not analysed" "$T_TMP/err10" || t_fail "report: $(cat "$T_TMP/err10")"
	why=$(nd info "$N/$F" 2>&1 | sed -n 's/^analysis_error = //p')
	case $why in *"no audio could be decoded"*) ;; *) t_fail "analysis_error: '$why'" ;; esac
	# --quiet still names it (it said nothing at all, exit 2), and prints
	# no summary.
	nd analyze --again --quiet >/dev/null 2>"$T_TMP/err12"; rc=$?
	[ $rc -eq 2 ] || t_fail "--quiet: exit $rc"
	grep -q "^crate: not analysed: $N/$F: no audio could be decoded" "$T_TMP/err12" ||
		t_fail "--quiet does not name the file: '$(cat "$T_TMP/err12")'"
	[ "$(wc -l <"$T_TMP/err12")" -eq 1 ] || t_fail "--quiet printed more: $(cat "$T_TMP/err12")"
	# Run again, nothing is tried: the file is named as one that failed,
	# not counted among "every file is analysed already".
	nd analyze >/dev/null 2>"$T_TMP/err11" || t_fail "second run: exit $?: $(cat "$T_TMP/err11")"
	grep -qx "nothing to analyse: 1 file could not be analysed before ('crate search analysis_error:\*' lists them) and is tried again only when changed or with 'crate analyze --again'" "$T_TMP/err11" ||
		t_fail "second run: $(cat "$T_TMP/err11")"
fi

t_begin results_survive_rescan_and_follow_changes
before=$(prop t33 loudness)
run scan "$M" >/dev/null 2>&1 || t_fail "rescan"
[ "$(prop t33 loudness)" = "$before" ] || t_fail "rescan lost the result"
sleep 1
sine "$M/t33.flac" -13 20 -metadata title=t33 -metadata album=Both
run scan "$M" >/dev/null 2>&1 || t_fail "rescan after change"
[ -z "$(prop t33 loudness)" ] || t_fail "stale result shown for a changed file"
run analyze 't:t33' >/dev/null 2>"$T_TMP/err3" || t_fail "analyze t33: $(cat "$T_TMP/err3")"
grep -q "^analysed 1 of 1 files" "$T_TMP/err3" || t_fail "$(cat "$T_TMP/err3")"
near "$(prop t33 loudness)" -13 0.1 || t_fail "new loudness $(prop t33 loudness)"

t_begin analysis_exports_and_imports_with_info_json
ids=$(run search --format '%id%' '+loudness' 2>/dev/null | tr '\n' ' ')
run info --json $ids > "$T_TMP/export.json" 2>"$T_TMP/err5" || t_fail "info --json: $(cat "$T_TMP/err5")"
grep -q '"analysis": {"version":1' "$T_TMP/export.json" || t_fail "no analysis in: $(head -c 300 "$T_TMP/export.json")"
other() { timeout 120 "$CRATE" --db "$T_TMP/other.db" --config "$T_TMP/config" "$@"; }
other scan "$M" >/dev/null 2>&1 || t_fail "scan other"
other analyze --import "$T_TMP/export.json" >/dev/null 2>"$T_TMP/err6" || t_fail "import: $(cat "$T_TMP/err6")"
grep -q "imported $(echo $ids | wc -w) analyses, skipped 0" "$T_TMP/err6" || t_fail "$(cat "$T_TMP/err6")"
# one item's export: "1 analysis", not "1 analyses"
run info --json "${ids%% *}" > "$T_TMP/one.json" 2>/dev/null || t_fail "info --json of one"
other analyze --import "$T_TMP/one.json" >/dev/null 2>"$T_TMP/err6b" || t_fail "import one: $(cat "$T_TMP/err6b")"
grep -q "^imported 1 analysis, skipped 0" "$T_TMP/err6b" || t_fail "one import: $(cat "$T_TMP/err6b")"
# every exported item, by path, in one info each (an item a line): the
# same but for the id and the time it was added
urls=$(run search --format '%url%' '+loudness' 2>/dev/null)
[ "$(echo "$urls" | wc -w)" -eq "$(echo $ids | wc -w)" ] || t_fail "urls: $urls for ids $ids"
# shellcheck disable=SC2086 # the paths (in $T_TMP) have no spaces
run info --json $urls 2>/dev/null | sed 's/"id": [0-9]*, //; s/"added": [0-9]*, //' >"$T_TMP/a.json"
# shellcheck disable=SC2086
other info --json $urls 2>/dev/null | sed 's/"id": [0-9]*, //; s/"added": [0-9]*, //' >"$T_TMP/b.json"
[ "$(grep -c '"url"' "$T_TMP/a.json")" -eq "$(echo $ids | wc -w)" ] || t_fail "info: $(head -c 300 "$T_TMP/a.json")"
cmp -s "$T_TMP/a.json" "$T_TMP/b.json" ||
	t_fail "differs after import: $(diff "$T_TMP/a.json" "$T_TMP/b.json" | grep -o '"url": "[^"]*"' | head -1)"
other analyze >/dev/null 2>"$T_TMP/err7"
grep -q "^analysed $((13 - $(echo $ids | wc -w))) of $((13 - $(echo $ids | wc -w))) files" "$T_TMP/err7" ||
	t_fail "imported files analysed again: $(cat "$T_TMP/err7")"
printf '[{"url": 1' > "$T_TMP/bad.json"
other analyze --import "$T_TMP/bad.json" >/dev/null 2>"$T_TMP/err8"; rc=$?
[ $rc -eq 1 ] || t_fail "malformed JSON: exit $rc"
grep -q "crate: " "$T_TMP/err8" || t_fail "no message for malformed JSON"
# The message names the file at fault, not the database.
grep -q "crate: $T_TMP/bad.json: not JSON" "$T_TMP/err8" ||
	t_fail "malformed JSON not named: $(cat "$T_TMP/err8")"
printf '{"url": "x"}' > "$T_TMP/object.json"
other analyze --import "$T_TMP/object.json" >/dev/null 2>"$T_TMP/err9"; rc=$?
[ $rc -eq 1 ] || t_fail "an object, not an array: exit $rc"
grep -q "object.json: a JSON object, not an array" "$T_TMP/err9" ||
	t_fail "an object, not an array: $(cat "$T_TMP/err9")"

t_begin analysis_import_finds_a_name_that_is_not_utf8
# The export's "url" is JSON text, so a name that is not UTF-8 comes out
# with U+FFFD; the import finds the file by its "uri", which keeps every byte.
N=$T_TMP/n8; mkdir -p "$N"
cp "$M/mono.flac" "$N/$(printf 'caf\351.flac')"
n8() { HOME=$H timeout 120 "$CRATE" --db "$T_TMP/$1.db" --config "$T_TMP/config" "${@:2}"; }
n8 a scan "$N" >/dev/null 2>&1 && n8 a analyze >/dev/null 2>&1 || t_fail "scan and analyze"
n8 a info --json "$(n8 a search --format '%id%' '*' 2>/dev/null)" >"$T_TMP/n8.json" 2>/dev/null ||
	t_fail "info --json"
n8 b scan "$N" >/dev/null 2>&1 || t_fail "scan b"
n8 b analyze --import "$T_TMP/n8.json" >/dev/null 2>"$T_TMP/n8.err" ||
	t_fail "import: exit $?: $(cat "$T_TMP/n8.err")"
grep -q "^imported 1 analysis, skipped 0" "$T_TMP/n8.err" || t_fail "import: $(cat "$T_TMP/n8.err")"

t_begin a_file_away_during_analyze_is_tried_again
# A folder away (a drive not mounted) while analyze ran was stored as
# "No such file or directory", and once back unchanged was never tried
# again without --again.
A=$T_TMP/away; mkdir -p "$A"
cp "$M/t23.flac" "$M/mono.flac" "$A/"
aw() { HOME=$H timeout 120 "$CRATE" --db "$T_TMP/away.db" --config "$T_TMP/config" "$@"; }
aw scan "$A" >/dev/null 2>&1 || t_fail "scan"
mv "$A" "$A.gone"
aw analyze >/dev/null 2>"$T_TMP/aw1"; rc=$?
mv "$A.gone" "$A"
[ $rc -eq 2 ] || t_fail "analyze with the folder away: exit $rc"
grep -q "^crate: not analysed: $A/t23.flac: No such file or directory" "$T_TMP/aw1" ||
	t_fail "not named: $(cat "$T_TMP/aw1")"
aw analyze >/dev/null 2>"$T_TMP/aw2" || t_fail "analyze with the folder back: exit $?: $(cat "$T_TMP/aw2")"
grep -q "^analysed 2 of 2 files, 0 not analysed" "$T_TMP/aw2" || t_fail "back: $(cat "$T_TMP/aw2")"
[ -n "$(aw search --format '%loudness%' 't:t23' 2>/dev/null)" ] || t_fail "no loudness once back"

t_begin streams_are_not_analysed
# A radio stream in the library was decoded like a file: a live station for
# five minutes until the time limit failed it, one off the air (here a port
# nobody listens on) stored as a failure, exit 2 either way.
S=$T_TMP/st; mkdir -p "$S"
cp "$M/mono.flac" "$S/"
printf '#EXTM3U\nhttp://127.0.0.1:9/radio.mp3\n' >"$S/radio.m3u"
st() { HOME=$H timeout 120 "$CRATE" --db "$T_TMP/st.db" --config "$T_TMP/config" "$@"; }
st scan "$S" >/dev/null 2>&1 && st playlist import Radio "$S/radio.m3u" >/dev/null 2>&1 ||
	t_fail "scan and import"
[ -n "$(st search --format '%id%' 'u~http://127.0.0.1:9/' 2>/dev/null)" ] || t_fail "no stream item"
st analyze >/dev/null 2>"$T_TMP/st1" || t_fail "exit $?: $(cat "$T_TMP/st1")"
grep -q "http" "$T_TMP/st1" && t_fail "the stream was tried: $(cat "$T_TMP/st1")"
grep -q "^analysed 1 of 1 files, 0 not analysed" "$T_TMP/st1" || t_fail "$(cat "$T_TMP/st1")"
st analyze --again >/dev/null 2>"$T_TMP/st2" || t_fail "--again: exit $?: $(cat "$T_TMP/st2")"
grep -q "^analysed 1 of 1 files, 0 not analysed" "$T_TMP/st2" || t_fail "--again: $(cat "$T_TMP/st2")"

t_begin killing_analyze_loses_at_most_the_file_in_progress
K=$T_TMP/k; mkdir -p "$K"
# 8 minute-long files: the kill comes after 3 are stored, so the resumed
# run analyses about 5 (with 16 files it analysed about 13)
NK=8
for i in $(seq 1 "$NK"); do
	gen -f lavfi -i "anoisesrc=d=60:c=pink:a=0.2:seed=$i" -ac 2 -ar 44100 -metadata title="k$i" "$K/k$i.flac"
done
kill_db() { timeout 120 "$CRATE" --db "$T_TMP/kill.db" --config "$T_TMP/config" "$@"; }
kill_db scan "$K" >/dev/null 2>&1 || t_fail "scan"
kill_db analyze >/dev/null 2>&1 &
pid=$!
for _ in $(seq 900); do # until a few files are stored (90 s under load), then kill -9
	n=$(sqlite3 -cmd ".timeout 5000" "$T_TMP/kill.db" "SELECT count(*) FROM media_analysis" 2>/dev/null)
	[ "${n:-0}" -ge 3 ] && break
	sleep 0.1
done
kill -9 $pid 2>/dev/null; wait $pid 2>/dev/null
[ "$(t_integrity "$T_TMP/kill.db")" = ok ] || t_fail "integrity: $(t_integrity "$T_TMP/kill.db")"
done1=$(sqlite3 "$T_TMP/kill.db" "SELECT count(*) FROM media_analysis WHERE error IS NULL")
[ "$done1" -ge 3 ] || t_fail "only $done1 stored before the kill"
if [ "$done1" -lt "$NK" ]; then
	kill_db analyze >/dev/null 2>"$T_TMP/err9" || t_fail "resume: $(cat "$T_TMP/err9")"
	grep -q "^analysed $((NK - done1)) of $((NK - done1)) files" "$T_TMP/err9" ||
		t_fail "resume redid work or missed files ($done1 before): $(cat "$T_TMP/err9")"
fi
[ "$(kill_db search --format '%title%' '+loudness' 2>/dev/null | wc -l)" -eq "$NK" ] || t_fail "not all analysed"

t_begin bad_query_is_a_parse_error
run analyze 'a:(' >/dev/null 2>"$T_TMP/err4" && t_fail "accepted"
grep -q "col" "$T_TMP/err4" || t_fail "no column: $(cat "$T_TMP/err4")"

# Output loudness of what crate played: ffmpeg reads the raw sink file.
played_lufs() {
	rm -f "$T_TMP/out.raw"
	run play --no-ui "t:$1" >/dev/null 2>&1 || t_fail "play $1"
	ffmpeg_lufs_raw "$T_TMP/out.raw"
}
ffmpeg_lufs_raw() {
	ffmpeg -nostdin -v error -f s16le -ar 44100 -ac 2 -i "$1" \
		-af "ebur128=metadata=1,ametadata=print:file=-" -f null - 2>/dev/null |
		sed -n 's/^lavfi.r128.I=//p' | tail -1
}

t_begin computed_replaygain_evens_untagged_files_through_alsa
R=$T_TMP/rg; mkdir -p "$R"
gen -f lavfi -i "anoisesrc=d=8:c=pink:a=0.6:seed=1" -ac 2 -ar 44100 -sample_fmt s16 -metadata title=loud "$R/loud.flac"
gen -f lavfi -i "anoisesrc=d=8:c=pink:a=0.03:seed=2" -ac 2 -ar 44100 -sample_fmt s16 -metadata title=quiet "$R/quiet.flac"
run scan "$R" >/dev/null 2>&1 && run analyze 't:loud OR t:quiet' >/dev/null 2>&1 || t_fail "scan/analyze"
off_l=$(played_lufs loud) off_q=$(played_lufs quiet)
printf '[playback]\nreplaygain = track\n' > "$T_TMP/config"
on_l=$(played_lufs loud) on_q=$(played_lufs quiet)
near "$off_l" "$off_q" 1 && t_fail "test files are not different enough ($off_l, $off_q)"
near "$on_l" "$on_q" 1 || t_fail "with replaygain = track: loud $on_l, quiet $on_q LUFS (without: $off_l, $off_q)"
near "$on_l" -18 1.5 || t_fail "not at the -18 LUFS reference: $on_l"
: > "$T_TMP/config"

t_begin a_gain_tag_without_a_peak_does_not_clip
# +6 dB from a tag on a sine peaking at -1 dBFS, and no peak tag: the
# samples were clipped flat at full scale, though the analysis knew the
# peak. Clipped output has thousands of samples at full scale; a sine
# lowered to fit touches it a few times at most.
gen -f lavfi -i "aevalsrc=0.891*sin(2*PI*1000*t)|0.891*sin(2*PI*1000*t):s=44100:d=4" \
	-sample_fmt s16 -metadata title=hot -metadata REPLAYGAIN_TRACK_GAIN="+6.00 dB" "$R/hot.flac"
run scan "$R" >/dev/null 2>&1 && run analyze 't:hot' >/dev/null 2>&1 || t_fail "scan/analyze"
[ "$(run search --format '%replaygain_track_gain%|%replaygain_track_peak%' 't:hot' 2>/dev/null)" = "+6.00 dB|" ] ||
	t_fail "tags: $(run search --format '%replaygain_track_gain%|%replaygain_track_peak%' 't:hot' 2>&1)"
printf '[playback]\nreplaygain = track\n' > "$T_TMP/config"
rm -f "$T_TMP/out.raw"
run play --no-ui 't:hot' >/dev/null 2>&1 || t_fail "play"
: > "$T_TMP/config"
full=$(od -An -v -td2 -w2 "$T_TMP/out.raw" | awk '$1 >= 32767 || $1 <= -32767 { n++ } END { print n + 0 }')
total=$(( $(stat -c %s "$T_TMP/out.raw") / 2 ))
[ "$total" -gt 300000 ] || t_fail "played $total samples"
[ "$full" -lt 100 ] || t_fail "$full of $total samples clipped at full scale"

t_begin album_loudness_follows_a_track_that_leaves
# A track retagged to another album, deleted or forgotten leaves the album:
# the rest of it takes a loudness without it (it kept the one computed
# with it, so album ReplayGain played the tracks left at the wrong level).
P=$T_TMP/pair; mkdir -p "$P"
sine "$P/p20.flac" -20 20 -metadata title=p20 -metadata album=Pair
sine "$P/p23.flac" -23 20 -metadata title=p23 -metadata album=Pair
sine "$P/p26.flac" -26 20 -metadata title=p26 -metadata album=Pair
run scan "$P" >/dev/null 2>&1 || t_fail "scan"
run analyze "u~$P/" >/dev/null 2>&1 || t_fail "analyze"
near "$(prop p23 album_loudness)" -22.3 0.2 || t_fail "album loudness of three: $(prop p23 album_loudness)"
sleep 1
sine "$P/p20.flac" -20 20 -metadata title=p20 -metadata album=Elsewhere
run scan "$P" >/dev/null 2>&1 || t_fail "rescan after the retag"
a=$(prop p23 album_loudness)
[ "$(prop p26 album_loudness)" = "$a" ] || t_fail "the album's two tracks differ: $a / $(prop p26 album_loudness)"
near "$a" -24.25 0.2 || t_fail "album loudness once p20 left: $a"
rm "$P/p26.flac"
run scan "$P" >/dev/null 2>&1 || t_fail "rescan after the delete"
near "$(prop p23 album_loudness)" -23 0.1 || t_fail "album loudness once p26 was deleted: $(prop p23 album_loudness)"
sine "$P/p26b.flac" -26 20 -metadata title=p26b -metadata album=Pair
run scan "$P" >/dev/null 2>&1 && run analyze "u~$P/" >/dev/null 2>&1 || t_fail "scan and analyze p26b"
near "$(prop p23 album_loudness)" -24.25 0.2 || t_fail "album loudness with p26b: $(prop p23 album_loudness)"
run forget --yes t:p26b >/dev/null 2>&1 || t_fail "forget"
near "$(prop p23 album_loudness)" -23 0.1 || t_fail "album loudness once p26b was forgotten: $(prop p23 album_loudness)"

t_begin corpus_tempo_is_stable_across_runs
if ! t_have_corpus; then
	t_skip "no corpus"
else
	C=$T_TMP/c; mkdir -p "$C"
	awk -F'\t' 'NR > 1 && $21 == "yes" && $22 >= 8 && ($5 ~ /mp3|flac|vorbis/) { print $1 }' \
		"$CORPUS/MANIFEST.tsv" | head -6 | while read -r f; do cp "$CORPUS/$f" "$C/"; done
	run scan "$C" >/dev/null 2>&1
	run analyze "u~$C/" >/dev/null 2>&1
	first=$(run search --format '%url% %bpm% %loudness%' "u~$C/" 2>/dev/null)
	run analyze --again "u~$C/" >/dev/null 2>&1
	second=$(run search --format '%url% %bpm% %loudness%' "u~$C/" 2>/dev/null)
	[ -n "$first" ] || t_fail "nothing analysed"
	[ "$first" = "$second" ] || t_fail "runs differ: $first / $second"
fi

t_end
