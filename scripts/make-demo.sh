#!/usr/bin/env bash
# Regenerate the demo library in data/demo/: twelve short synthetic tracks
# (Ogg Vorbis, FLAC, MP3, Opus) with real tags. Deterministic: FFmpeg's
# bitexact flags keep encoder version strings and timestamps out.
# The music is made up (plucked chords from aevalsrc), the names are fictional.
set -euo pipefail
cd "$(dirname "$0")/../data/demo"
rm -f ./*.ogg ./*.flac ./*.mp3 ./*.opus

# file|format|artist|album|albumartist|title|track|date|genre|root Hz|seconds
TRACKS=(
"01 Harbour Lights.ogg|ogg|The Lanterns|Harbour Lights|The Lanterns|Harbour Lights|1/3|1994|Rock|220|6"
"02 Salt Wind.ogg|ogg|The Lanterns|Harbour Lights|The Lanterns|Salt Wind|2/3|1994|Rock|246.94|6"
"03 Morning (Morning mix).ogg|ogg|The Lanterns|Harbour Lights|The Lanterns|Morning (Morning mix)|3/3|1994|Rock|196|6"
"01 Vatnajökull.flac|flac|Björk Sigurðardóttir|Ísland|Björk Sigurðardóttir|Vatnajökull|1/2|2003|Ambient|174.61|4"
"02 Straße der Lichter.flac|flac|Björk Sigurðardóttir|Ísland|Björk Sigurðardóttir|Straße der Lichter|2/2|2003|Ambient|164.81|4"
"01 夜の街.mp3|mp3|東京ソナタ|夜の街|東京ソナタ|夜の街|1/2|2011|Jazz|261.63|6"
"02 Синий троллейбус.mp3|mp3|Оркестр Сумерки|夜の街|東京ソナタ|Синий троллейбус|2/2|2011|Jazz|293.66|6"
"01 Stairway Down.mp3|mp3|Mira Sol|Late Trains|Mira Sol|Stairway Down|1/2|1979|Jazz|233.08|6"
"02 Track 10.mp3|mp3|Mira Sol|Late Trains|Mira Sol|Track 10|2/2|1979|Jazz|207.65|6"
"01 Kraftwerk Dreams.opus|opus|Ørsted Drive|Circuit Songs|Various Artists|Kraftwerk Dreams|1/3|2024-05-01|Electronic|329.63|6"
"02 Beat Street.opus|opus|The Beatniks|Circuit Songs|Various Artists|Beat Street|2/3|2024-05-01|Electronic|349.23|6"
"03 AC/DC Current.opus|opus|Volt & Ampère|Circuit Songs|Various Artists|AC/DC Current|3/3|2024-05-01|Electronic|392|6"
)

for row in "${TRACKS[@]}"; do
	IFS='|' read -r file fmt artist album aartist title track date genre root secs <<<"$row"
	out=${file//\//-}
	# A plucked major chord, re-struck every half second, moving through four roots.
	expr="0.18*exp(-4*mod(t,0.5))*(sin(2*PI*$root*pow(1.122,floor(mod(t,2)*2))*t)+0.7*sin(2*PI*$root*1.26*t)+0.5*sin(2*PI*$root*1.498*t))"
	expr=${expr//,/\\,}   # commas separate filter options: escape them
	case $fmt in
	ogg) codec=(-c:a libvorbis -q:a 0 -ar 22050) ;;
	flac) codec=(-c:a flac -compression_level 8 -ar 22050 -sample_fmt s16) ;;
	mp3) codec=(-c:a libmp3lame -b:a 64k -ar 22050) ;;
	opus) codec=(-c:a libopus -b:a 32k) ;;
	esac
	ffmpeg -v error -y -f lavfi -i "aevalsrc=exprs=$expr|$expr:s=44100:d=$secs" \
		-fflags +bitexact -flags:a +bitexact -map_metadata -1 \
		-metadata artist="$artist" -metadata album="$album" -metadata album_artist="$aartist" \
		-metadata title="$title" -metadata track="$track" -metadata date="$date" \
		-metadata genre="$genre" "${codec[@]}" "$out"
done
ls -l
du -sh .
