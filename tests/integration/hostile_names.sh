#!/usr/bin/env bash
# Hostile file names: newlines, quotes, shell metacharacters, a leading dash,
# escape sequences, invalid UTF-8 and 255-byte names. Every file is indexed
# (one record each), printed without control bytes, reachable by `crate info
# PATH`, and nothing in a name is ever run by a shell.
. "$(dirname "$0")/../lib.sh"

D=$T_TMP/music
DB=$T_TMP/names.db
mkdir -p "$D/sub dir \$(touch pwned)"
cd "$T_TMP" || exit 1

has_ctl() {
	LC_ALL=C grep -q $'[\x01-\x09\x0b-\x1f\x7f]' "$1" && return 0
	LC_ALL=C grep -qP '\xc2[\x80-\x9f]' "$1" 2>/dev/null
}

t_begin hostile_names_make_files
if ! command -v ffmpeg >/dev/null; then t_skip "needs ffmpeg"; t_end; exit $?; fi
ffmpeg -v error -y -f lavfi -i "sine=frequency=440:duration=0.3:sample_rate=22050" -ac 1 \
	-metadata title="Same Tone" "$T_TMP/t.mp3" || t_fail "ffmpeg failed"
long=$(printf 'L%.0s' $(seq 1 251))
names=(
	$'new\nline.mp3'
	$'carriage\rreturn.mp3'
	"double\"quote.mp3"
	"single'quote.mp3"
	'$(touch pwned).mp3'
	'`touch pwned2`.mp3'
	'semi;colon & amp | pipe > gt < lt.mp3'
	'-rf.mp3'
	'--db.mp3'
	'*glob?[x].mp3'
	$'\e[31mred\e[0m.mp3'
	$'bad \xff\xfe utf8.mp3'
	'Björk – ✓ 東京 Москва.mp3'
	'%title% %% percent.mp3'
	"$long.mp3"
	'sub dir $(touch pwned)/inner.mp3'
)
made=0
for n in "${names[@]}"; do
	if cp "$T_TMP/t.mp3" "$D/$n" 2>/dev/null; then made=$((made + 1)); else echo "    cannot create: $n" >&2; fi
done
NFILES=$(find "$D" -type f -printf x | wc -c) # names may hold newlines
[ "$NFILES" -eq "${#names[@]}" ] || t_fail "made $NFILES of ${#names[@]} files"

t_begin hostile_names_scan_indexes_all
"$CRATE" --db "$DB" scan --quiet "$D" >"$T_TMP/out" 2>&1
rc=$?
[ $rc -eq 0 ] || t_fail "crate scan exited $rc: $(head -5 "$T_TMP/out")"
LC_ALL=C grep -q $'\e' "$T_TMP/out" && t_fail "crate scan printed an ESC byte"
"$CRATE" --db "$DB" list --format '%url%' >"$T_TMP/urls" 2>&1 || t_fail "crate list failed"
n=$(wc -l <"$T_TMP/urls")
[ "$n" -eq "$NFILES" ] || t_fail "crate list printed $n lines for $NFILES files"
has_ctl "$T_TMP/urls" && t_fail "crate list printed control bytes from file names"
grep -q 'Björk – ✓ 東京 Москва.mp3' "$T_TMP/urls" || t_fail "a valid UTF-8 name is not printed as is"

t_begin hostile_names_nothing_executed
found=$(find "$T_TMP" "$SRCDIR" /tmp -maxdepth 3 \( -name pwned -o -name pwned2 \) 2>/dev/null | head -3)
[ -z "$found" ] || t_fail "a file name was run by a shell: $found"

t_begin hostile_names_info_by_path
for n in "${names[@]}"; do
	[ -f "$D/$n" ] || continue
	"$CRATE" --db "$DB" info "$D/$n" >"$T_TMP/info" 2>&1
	rc=$?
	if [ $rc -ne 0 ]; then t_fail "crate info on '$(printf %q "$n")' exited $rc: $(head -2 "$T_TMP/info")"; continue; fi
	grep -q 'Same Tone' "$T_TMP/info" || t_fail "crate info on '$(printf %q "$n")' does not show the title"
	has_ctl "$T_TMP/info" && t_fail "crate info on '$(printf %q "$n")' printed control bytes"
done
"$CRATE" --db "$DB" info -- "$D/-rf.mp3" >/dev/null 2>&1 || "$CRATE" --db "$DB" info "$D/-rf.mp3" >/dev/null 2>&1 ||
	t_fail "crate info cannot reach a name starting with '-'"

t_begin hostile_names_rescan_stable
"$CRATE" --db "$DB" scan --quiet "$D" >"$T_TMP/out" 2>&1 || t_fail "rescan failed: $(head -3 "$T_TMP/out")"
n=$("$CRATE" --db "$DB" list --format '%url%' 2>/dev/null | wc -l)
[ "$n" -eq "$NFILES" ] || t_fail "after a rescan $n items for $NFILES files (names not matched byte for byte?)"
rm -f "$D/"$'new\nline.mp3'
"$CRATE" --db "$DB" scan --quiet "$D" >/dev/null 2>&1
n=$("$CRATE" --db "$DB" list --format '%url%' 2>/dev/null | wc -l)
[ "$n" -eq $((NFILES - 1)) ] || t_fail "after deleting one file $n items are listed, expected $((NFILES - 1))"

t_end
